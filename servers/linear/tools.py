"""Linear tools, named after Linear's MCP server (list_issues, get_issue, create_issue, update_issue,
list_teams, list_users, list_issue_statuses, list_issue_labels, create_comment, list_cycles,
list_projects, get_project, ...).

Issues answer as Linear's API shows them: ``identifier`` ``ENG-142``, ``state`` an object with ``name`` and
``type``, ``priority`` with its value and name, ``cycle`` and ``project``. ``list_issues`` pages like a
GraphQL connection: ``pageInfo.hasNextPage`` and ``pageInfo.endCursor``, passed back as ``cursor``.

Like Linear's server, tools accept people, teams, states and labels by name as well as by id, matched
case-insensitively, and store the canonical value. An ambiguous or unknown reference is an error that
says what exists.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import Field

from servers.kit import MAX_QUERY_CHARS, ToolError, Toolset, tool
from servers.kit.pages import Cursor, page
from servers.linear.state import PRIORITY_NAMES, Comment, Cycle, Issue, Label, LinearState, Project, Team, User

IssueId = Annotated[str, Field(min_length=1, description="Issue identifier, e.g. 'ENG-142'")]
TeamRef = Annotated[str, Field(min_length=1, description="Team key (e.g. 'ENG') or name")]
UserRef = Annotated[str, Field(description="User id, name or email")]
StateRef = Annotated[str, Field(min_length=1, description="Workflow state name (e.g. 'In Progress') or type (e.g. 'completed')")]
Priority = Annotated[int, Field(ge=0, le=4, description="0 = No priority, 1 = Urgent, 2 = High, 3 = Medium, 4 = Low")]
Limit = Annotated[int, Field(ge=1, le=250, description="Maximum number of results (per page)")]
CycleRef = Annotated[str, Field(description=(
    "Cycle number within the issue's team (e.g. '7'), cycle id, or 'current' / 'next' / 'previous'; '' for none"))]
ProjectRef = Annotated[str, Field(description="Project name or id; '' for none")]


class LinearTools(Toolset[LinearState]):
    state_model = LinearState

    # -- resolving references ---------------------------------------------------------------
    def _issue(self, ref: str) -> Issue:
        issue = self.state.issue(ref.strip().upper())
        if issue is None:
            raise ToolError(f"unknown issue {ref!r}; issue identifiers look like 'ENG-142' (see list_issues)")
        return issue

    def _team(self, ref: str) -> Team:
        want = ref.strip().casefold()
        for t in self.state.teams:
            if t.key.casefold() == want or t.name.casefold() == want:
                return t
        known = ", ".join(f"{t.key} ({t.name})" for t in self.state.teams) or "none"
        raise ToolError(f"unknown team {ref!r}; the teams are: {known}")

    def _team_of(self, issue: Issue) -> Team:
        team = self.state.team(issue.team)
        assert team is not None  # LinearState._references_resolve: every issue's team exists
        return team

    def _user(self, ref: str, *, assignable: bool = True) -> User:
        """The one user ``ref`` names; with ``assignable``, a deactivated user is refused."""
        want = ref.strip().casefold()
        hits = [u for u in self.state.users if want in (u.id.casefold(), u.name.casefold(), u.email.casefold())]
        if not hits:
            raise ToolError(f"unknown user {ref!r}; give a user id, name or email (see list_users)")
        if len(hits) > 1:
            raise ToolError(f"user {ref!r} is ambiguous ({', '.join(u.id for u in hits)}); give the user id or email")
        if assignable and not hits[0].active:
            raise ToolError(f"user {hits[0].name} ({hits[0].id}) is deactivated and cannot be assigned")
        return hits[0]

    def _state_name(self, team: Team, ref: str) -> str:
        want = ref.strip().casefold()
        for s in team.states:
            if s.name.casefold() == want:
                return s.name
        of_type = [s.name for s in team.states if s.type == want]
        if len(of_type) == 1:
            return of_type[0]
        names = ", ".join(repr(s.name) for s in team.states)
        if of_type:
            raise ToolError(f"state type {ref!r} is ambiguous in team {team.key}; name one of: {names}")
        raise ToolError(f"unknown workflow state {ref!r} for team {team.key}; its states are: {names}")

    def _label_names(self, refs: list[str]) -> list[str]:
        out: list[str] = []
        for ref in refs:
            want = ref.strip().casefold()
            label = next((lb for lb in self.state.labels if lb.name.casefold() == want), None)
            if label is None:
                known = ", ".join(repr(lb.name) for lb in self.state.labels) or "none"
                raise ToolError(f"unknown label {ref!r}; the labels are: {known} (create one with create_issue_label)")
            if label.name not in out:
                out.append(label.name)
        return out

    def _cycle(self, team: Team, ref: str) -> Cycle:
        """The cycle of ``team`` that ``ref`` names: a number, an id, or current/next/previous (by ``now``)."""
        want = ref.strip().casefold()
        cycles = sorted((c for c in self.state.cycles if c.team == team.key), key=lambda c: c.number)
        if want in ("current", "next", "previous"):
            if not self.state.now:
                raise ToolError("this workspace has no present date; name the cycle by number")
            today = self.state.now[:10]
            at = next((k for k, c in enumerate(cycles) if c.starts_at <= today < c.ends_at), None)
            if at is None:
                raise ToolError(f"team {team.key} has no cycle running on {today}")
            at += {"current": 0, "next": 1, "previous": -1}[want]
            if not 0 <= at < len(cycles):
                raise ToolError(f"team {team.key} has no {want} cycle")
            return cycles[at]
        for c in cycles:
            if c.id.casefold() == want or str(c.number) == want.removeprefix("cycle ").strip():
                return c
        known = ", ".join(str(c.number) for c in cycles) or "none"
        raise ToolError(f"unknown cycle {ref!r} for team {team.key}; its cycles are numbered {known} (see list_cycles)")

    def _project(self, ref: str) -> Project:
        want = ref.strip().casefold()
        hits = [p for p in self.state.projects if want in (p.id.casefold(), p.name.casefold())]
        if not hits:
            hits = [p for p in self.state.projects if p.name.casefold().startswith(want)]
        if len(hits) == 1:
            return hits[0]
        if hits:
            raise ToolError(f"project {ref!r} is ambiguous ({', '.join(p.name for p in hits)}); give its full name or id")
        known = ", ".join(repr(p.name) for p in self.state.projects) or "none"
        raise ToolError(f"unknown project {ref!r}; the projects are: {known}")

    # -- rendering --------------------------------------------------------------------------
    def _person(self, user_id: str | None) -> dict[str, str] | None:
        u = self.state.user(user_id) if user_id else None
        return None if u is None else {"id": u.id, "name": u.name, "email": u.email}

    def _status(self, issue: Issue) -> dict[str, str]:
        team = self.state.team(issue.team)
        kind = next((s.type for s in team.states if s.name == issue.state), None) if team else None
        return {"name": issue.state, "type": kind or ""}

    def _cycle_json(self, cycle_id: str | None) -> dict[str, Any] | None:
        c = self.state.cycle(cycle_id) if cycle_id else None
        return None if c is None else {"id": c.id, "number": c.number, "name": c.name or f"Cycle {c.number}",
                                       "startsAt": c.starts_at, "endsAt": c.ends_at}

    def _project_ref(self, project_id: str | None) -> dict[str, str] | None:
        p = self.state.project(project_id) if project_id else None
        return None if p is None else {"id": p.id, "name": p.name}

    def _summary(self, issue: Issue) -> dict[str, Any]:
        assignee = self.state.user(issue.assignee) if issue.assignee else None
        cycle = self.state.cycle(issue.cycle) if issue.cycle else None
        project = self.state.project(issue.project) if issue.project else None
        return {
            "id": issue.id,
            "identifier": issue.id,
            "title": issue.title,
            "state": self._status(issue),
            "assignee": {"id": assignee.id, "name": assignee.name} if assignee else None,
            "priority": {"value": issue.priority, "name": PRIORITY_NAMES[issue.priority]},
            "labels": issue.labels,
            "cycle": cycle.number if cycle else None,
            "project": project.name if project else None,
            "createdAt": issue.created_at or None,
        }

    def _detail(self, issue: Issue) -> dict[str, Any]:
        team = self.state.team(issue.team)
        return {
            "id": issue.id,
            "identifier": issue.id,
            "title": issue.title,
            "description": issue.description,
            "team": {"key": team.key, "name": team.name} if team else issue.team,
            "state": self._status(issue),
            "assignee": self._person(issue.assignee),
            "creator": self._person(issue.creator),
            "priority": {"value": issue.priority, "name": PRIORITY_NAMES[issue.priority]},
            "labels": issue.labels,
            "cycle": self._cycle_json(issue.cycle),
            "project": self._project_ref(issue.project),
            "parent": issue.parent,
            "children": [i.id for i in self.state.issues if i.parent == issue.id],
            "estimate": issue.estimate,
            "dueDate": issue.due_date,
            "createdAt": issue.created_at or None,
            "comments": [self._comment(c) for c in issue.comments],
        }

    def _comment(self, c: Comment) -> dict[str, Any]:
        author = self.state.user(c.author)
        return {"id": c.id, "author": author.name if author else c.author, "body": c.body, "createdAt": c.created_at or None}

    # -- read tools -------------------------------------------------------------------------
    @tool(read_only=True)
    def list_teams(self) -> list:
        """List the teams of the workspace: key (the prefix of issue identifiers) and name."""
        return [{"key": t.key, "name": t.name} for t in self.state.teams]

    @tool(read_only=True)
    def list_users(self, query: Annotated[str | None, Field(max_length=MAX_QUERY_CHARS,
                                                            description="Filter by name or email substring")] = None) -> list:
        """List the workspace's users (id, name, email, active), optionally filtered by name or email."""
        q = (query or "").casefold()
        return [
            u.model_dump()
            for u in self.state.users
            if not q or q in u.name.casefold() or q in u.email.casefold()
        ]

    @tool(read_only=True)
    def list_issue_statuses(self, team: TeamRef) -> list:
        """List a team's workflow states (name and type: backlog, unstarted, started, completed, canceled)."""
        return [s.model_dump() for s in self._team(team).states]

    @tool(read_only=True)
    def list_issue_labels(self) -> list:
        """List the workspace's issue labels (name and color)."""
        return [lb.model_dump() for lb in self.state.labels]

    @tool(read_only=True)
    def list_issues(
        self,
        team: TeamRef | None = None,
        assignee: Annotated[str | None, Field(description="User id, name or email")] = None,
        state: Annotated[str | None, Field(description="Workflow state name or type")] = None,
        label: Annotated[str | None, Field(description="Label name")] = None,
        priority: Priority | None = None,
        query: Annotated[str | None, Field(max_length=MAX_QUERY_CHARS,
                                           description="Case-insensitive text to find in title or description")] = None,
        project: Annotated[str | None, Field(description="Project name or id")] = None,
        cycle: Annotated[str | None, Field(description="Cycle number, id, or current/next/previous (needs team)")] = None,
        limit: Limit = 25,
        cursor: Cursor | None = None,
    ) -> dict:
        """List issues, optionally filtered by team, assignee, state, label, priority, project, cycle or text,
        ordered by identifier, one page at a time: while pageInfo.hasNextPage, pass pageInfo.endCursor as
        cursor for the next page."""
        issues = list(self.state.issues)
        if team is not None:
            key = self._team(team).key
            issues = [i for i in issues if i.team == key]
        if assignee is not None:
            uid = self._user(assignee, assignable=False).id
            issues = [i for i in issues if i.assignee == uid]
        if state is not None:
            want = state.strip().casefold()
            types = {(t.key, s.name): s.type for t in self.state.teams for s in t.states}
            issues = [i for i in issues if i.state.casefold() == want or types.get((i.team, i.state)) == want]
        if label is not None:
            name = self._label_names([label])[0]
            issues = [i for i in issues if name in i.labels]
        if priority is not None:
            issues = [i for i in issues if i.priority == priority]
        if project is not None:
            pid = self._project(project).id
            issues = [i for i in issues if i.project == pid]
        if cycle is not None:
            if team is None:
                raise ToolError("cycle needs team: cycles are numbered within a team")
            cid = self._cycle(self._team(team), cycle).id
            issues = [i for i in issues if i.cycle == cid]
        if query:
            q = query.casefold()
            issues = [i for i in issues if q in i.title.casefold() or q in i.description.casefold()]
        issues.sort(key=lambda i: (i.team, i.number))
        listing = f"issues:{team}:{assignee}:{state}:{label}:{priority}:{project}:{cycle}:{query}"
        chunk, next_cursor = page(issues, listing, cursor, limit)
        return {"issues": [self._summary(i) for i in chunk],
                "pageInfo": {"hasNextPage": bool(next_cursor), "endCursor": next_cursor or None}}

    @tool(read_only=True)
    def list_cycles(self, team: TeamRef) -> list:
        """A team's cycles, oldest first: id, number, dates, how many issues each holds, and which is current."""
        t = self._team(team)
        today = (self.state.now or "")[:10]
        out = []
        for c in sorted((c for c in self.state.cycles if c.team == t.key), key=lambda c: c.number):
            held = [i for i in self.state.issues if i.cycle == c.id]
            shown = self._cycle_json(c.id)
            assert shown is not None  # c is a cycle of the state
            out.append({**shown, "issueCount": len(held),
                        "completedIssueCount": sum(self._status(i)["type"] == "completed" for i in held),
                        "isActive": bool(today) and c.starts_at <= today < c.ends_at})
        return out

    @tool(read_only=True)
    def list_projects(
        self,
        query: Annotated[str | None, Field(max_length=MAX_QUERY_CHARS,
                                           description="Text to find in the project's name or description")] = None,
        team: TeamRef | None = None,
    ) -> list:
        """The workspace's projects: id, name, state, lead, teams, target date and issue count."""
        q = (query or "").casefold()
        key = self._team(team).key if team is not None else None
        return [self._project_json(p) for p in self.state.projects
                if (not q or q in p.name.casefold() or q in p.description.casefold()) and (key is None or key in p.teams)]

    @tool(read_only=True)
    def get_project(self, project: Annotated[str, Field(min_length=1, description="Project name or id")]) -> dict:
        """One project with its description and the identifiers of its issues."""
        p = self._project(project)
        return {**self._project_json(p), "description": p.description,
                "issues": [i.id for i in sorted(self.state.issues, key=lambda i: (i.team, i.number)) if i.project == p.id]}

    def _project_json(self, p: Project) -> dict[str, Any]:
        lead = self.state.user(p.lead) if p.lead else None
        return {"id": p.id, "name": p.name, "state": p.state, "lead": lead.name if lead else None, "teams": p.teams,
                "targetDate": p.target_date, "issueCount": sum(i.project == p.id for i in self.state.issues)}

    @tool(read_only=True)
    def get_issue(self, id: IssueId) -> dict:
        """Get one issue in full: title, description, team, state, assignee, priority, labels and comments."""
        return self._detail(self._issue(id))

    @tool(read_only=True)
    def list_comments(self, issueId: IssueId) -> list:
        """List the comments of an issue, oldest first."""
        return [self._comment(c) for c in self._issue(issueId).comments]

    # -- write tools ------------------------------------------------------------------------
    @tool()
    def create_issue(
        self,
        title: Annotated[str, Field(min_length=1, max_length=255)],
        team: TeamRef,
        description: str = "",
        assignee: Annotated[str | None, Field(description="User id, name or email")] = None,
        state: Annotated[str | None, Field(description="Workflow state name or type; default: the team's first state")] = None,
        priority: Priority = 0,
        labels: Annotated[list[str] | None, Field(description="Label names")] = None,
        project: ProjectRef | None = None,
        cycle: CycleRef | None = None,
        parent: Annotated[str | None, Field(description="Identifier of a parent issue, e.g. 'ENG-142'")] = None,
        dueDate: Annotated[str | None, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="YYYY-MM-DD")] = None,
    ) -> dict:
        """Create an issue in a team. Returns the new issue with its identifier."""
        t = self._team(team)
        if not title.strip():
            raise ToolError("an issue title cannot be blank")
        number = max((i.number for i in self.state.issues if i.team == t.key), default=0) + 1
        issue = Issue(
            id=f"{t.key}-{number}",
            title=title.strip(),
            description=description,
            state=self._state_name(t, state) if state is not None else t.states[0].name,
            assignee=self._user(assignee).id if assignee else None,
            priority=priority,
            labels=self._label_names(labels or []),
            project=self._project(project).id if project else None,
            cycle=self._cycle(t, cycle).id if cycle else None,
            parent=self._issue(parent).id if parent else None,
            due_date=dueDate,
            creator=self.state.viewer,
            created_at=self.state.now or "",
        )
        self.state.issues.append(issue)
        return self._detail(issue)

    @tool(destructive=True)
    def update_issue(  # noqa: C901 - one branch per optional field of the tool
        self,
        id: IssueId,
        title: Annotated[str | None, Field(min_length=1, max_length=255)] = None,
        description: str | None = None,
        state: Annotated[str | None, Field(description="Workflow state name or type, e.g. 'Done' or 'completed'")] = None,
        assignee: Annotated[str | None, Field(description="User id, name or email; an empty string unassigns")] = None,
        priority: Priority | None = None,
        labels: Annotated[list[str] | None, Field(description="Label names; REPLACES the issue's labels (pass [] to clear)")] = None,
        project: ProjectRef | None = None,
        cycle: CycleRef | None = None,
        parent: Annotated[str | None, Field(description="Identifier of the parent issue; '' removes it")] = None,
        dueDate: Annotated[str | None, Field(description="YYYY-MM-DD; '' removes it")] = None,
    ) -> dict:
        """Update an issue: title, description, workflow state, assignee, priority, labels, project, cycle, parent
        or due date. Omitted fields are left unchanged. `labels` replaces the whole set, so include the labels to
        keep."""
        issue = self._issue(id)
        changes: dict[str, Any] = {}
        if title is not None:
            if not title.strip():
                raise ToolError("an issue title cannot be blank")
            changes["title"] = title.strip()
        if description is not None:
            changes["description"] = description
        if state is not None:
            changes["state"] = self._state_name(self._team_of(issue), state)
        if assignee is not None:
            changes["assignee"] = self._user(assignee).id if assignee.strip() else None
        if priority is not None:
            changes["priority"] = priority
        if labels is not None:
            changes["labels"] = self._label_names(labels)
        if project is not None:
            changes["project"] = self._project(project).id if project.strip() else None
        if cycle is not None:
            changes["cycle"] = self._cycle(self._team_of(issue), cycle).id if cycle.strip() else None
        if parent is not None:
            if parent.strip() and self._issue(parent).id == issue.id:
                raise ToolError("an issue cannot be its own parent")
            changes["parent"] = self._issue(parent).id if parent.strip() else None
        if dueDate is not None:
            if dueDate.strip() and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", dueDate.strip()):
                raise ToolError(f"dueDate {dueDate!r} must look like 2026-03-31")
            changes["due_date"] = dueDate.strip() or None
        if not changes:
            raise ToolError("nothing to update: give at least one of title, description, state, assignee, priority, "
                            "labels, project, cycle, parent, dueDate")
        for key, value in changes.items():
            setattr(issue, key, value)
        return self._detail(issue)

    @tool()
    def create_comment(self, issueId: IssueId, body: Annotated[str, Field(min_length=1)], author: UserRef | None = None) -> dict:
        """Add a comment to an issue. The author defaults to you (the workspace's viewer)."""
        issue = self._issue(issueId)
        if not body.strip():
            raise ToolError("a comment body cannot be blank")
        who: User | None
        if author:
            who = self._user(author)
        elif self.state.viewer is not None:
            who = self.state.user(self.state.viewer)
        else:
            who = next((u for u in self.state.users if u.active), None)
            if who is None:
                raise ToolError("the workspace has no active user to author the comment; give author")
        assert who is not None  # the viewer is a user (LinearState._references_resolve)
        taken = {c.id for c in issue.comments}
        n = len(issue.comments) + 1
        while f"{issue.id}-c{n}" in taken:
            n += 1
        comment = Comment(id=f"{issue.id}-c{n}", author=who.id, body=body, created_at=self.state.now or "")
        issue.comments.append(comment)
        return self._comment(comment)

    @tool()
    def create_issue_label(
        self,
        name: Annotated[str, Field(min_length=1, max_length=80)],
        color: Annotated[str, Field(pattern=r"^#[0-9a-fA-F]{6}$", description="Hex color, e.g. '#eb5757'")] = "#95a2b3",
    ) -> dict:
        """Create a workspace issue label. Fails if a label with that name (any case) exists."""
        name = name.strip()
        if not name:
            raise ToolError("a label name cannot be blank")
        if any(lb.name.casefold() == name.casefold() for lb in self.state.labels):
            raise ToolError(f"a label named {name!r} already exists")
        label = Label(name=name, color=color.lower())
        self.state.labels.append(label)
        return label.model_dump()
