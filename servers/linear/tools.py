"""Linear tools, named after Linear's MCP server (list_issues, get_issue, create_issue, update_issue,
list_teams, list_users, list_issue_statuses, list_issue_labels, create_comment, ...).

Like Linear's server, tools accept people, teams, states and labels by name as well as by id, matched
case-insensitively, and store the canonical value. An ambiguous or unknown reference is an error that
says what exists.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from servers.kit import ToolError, Toolset, tool
from servers.linear.state import PRIORITY_NAMES, Comment, Issue, Label, LinearState, Team, User

IssueId = Annotated[str, Field(min_length=1, description="Issue identifier, e.g. 'ENG-142'")]
TeamRef = Annotated[str, Field(min_length=1, description="Team key (e.g. 'ENG') or name")]
UserRef = Annotated[str, Field(description="User id, name or email")]
StateRef = Annotated[str, Field(min_length=1, description="Workflow state name (e.g. 'In Progress') or type (e.g. 'completed')")]
Priority = Annotated[int, Field(ge=0, le=4, description="0 = No priority, 1 = Urgent, 2 = High, 3 = Medium, 4 = Low")]
Limit = Annotated[int, Field(ge=1, le=250, description="Maximum number of results")]


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

    # -- rendering --------------------------------------------------------------------------
    def _person(self, user_id: str | None) -> dict[str, str] | None:
        u = self.state.user(user_id) if user_id else None
        return None if u is None else {"id": u.id, "name": u.name, "email": u.email}

    def _summary(self, issue: Issue) -> dict[str, Any]:
        assignee = self.state.user(issue.assignee) if issue.assignee else None
        return {
            "id": issue.id,
            "title": issue.title,
            "state": issue.state,
            "assignee": assignee.name if assignee else None,
            "priority": PRIORITY_NAMES[issue.priority],
            "labels": issue.labels,
        }

    def _detail(self, issue: Issue) -> dict[str, Any]:
        team = self.state.team(issue.team)
        return {
            "id": issue.id,
            "title": issue.title,
            "description": issue.description,
            "team": {"key": team.key, "name": team.name} if team else issue.team,
            "state": issue.state,
            "assignee": self._person(issue.assignee),
            "priority": {"value": issue.priority, "name": PRIORITY_NAMES[issue.priority]},
            "labels": issue.labels,
            "comments": [self._comment(c) for c in issue.comments],
        }

    def _comment(self, c: Comment) -> dict[str, Any]:
        author = self.state.user(c.author)
        return {"id": c.id, "author": author.name if author else c.author, "body": c.body}

    # -- read tools -------------------------------------------------------------------------
    @tool(read_only=True)
    def list_teams(self) -> list:
        """List the teams of the workspace: key (the prefix of issue identifiers) and name."""
        return [{"key": t.key, "name": t.name} for t in self.state.teams]

    @tool(read_only=True)
    def list_users(self, query: Annotated[str | None, Field(description="Filter by name or email substring")] = None) -> list:
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
        query: Annotated[str | None, Field(description="Case-insensitive text to find in title or description")] = None,
        limit: Limit = 50,
    ) -> list:
        """List issues, optionally filtered by team, assignee, state, label, priority or text, ordered by identifier."""
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
        if query:
            q = query.casefold()
            issues = [i for i in issues if q in i.title.casefold() or q in i.description.casefold()]
        issues.sort(key=lambda i: (i.team, i.number))
        return [self._summary(i) for i in issues[:limit]]

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
        )
        self.state.issues.append(issue)
        return self._detail(issue)

    @tool(destructive=True)
    def update_issue(
        self,
        id: IssueId,
        title: Annotated[str | None, Field(min_length=1, max_length=255)] = None,
        description: str | None = None,
        state: Annotated[str | None, Field(description="Workflow state name or type, e.g. 'Done' or 'completed'")] = None,
        assignee: Annotated[str | None, Field(description="User id, name or email; an empty string unassigns")] = None,
        priority: Priority | None = None,
        labels: Annotated[list[str] | None, Field(description="Label names; REPLACES the issue's labels (pass [] to clear)")] = None,
    ) -> dict:
        """Update an issue: title, description, workflow state, assignee, priority or labels. Omitted fields are
        left unchanged. `labels` replaces the whole set, so include the labels to keep."""
        issue = self._issue(id)
        changes: dict[str, Any] = {}
        if title is not None:
            if not title.strip():
                raise ToolError("an issue title cannot be blank")
            changes["title"] = title.strip()
        if description is not None:
            changes["description"] = description
        if state is not None:
            changes["state"] = self._state_name(self.state.team(issue.team), state)
        if assignee is not None:
            changes["assignee"] = self._user(assignee).id if assignee.strip() else None
        if priority is not None:
            changes["priority"] = priority
        if labels is not None:
            changes["labels"] = self._label_names(labels)
        if not changes:
            raise ToolError("nothing to update: give at least one of title, description, state, assignee, priority, labels")
        for key, value in changes.items():
            setattr(issue, key, value)
        return self._detail(issue)

    @tool()
    def create_comment(self, issueId: IssueId, body: Annotated[str, Field(min_length=1)], author: UserRef | None = None) -> dict:
        """Add a comment to an issue. The author defaults to the workspace's first active user."""
        issue = self._issue(issueId)
        if not body.strip():
            raise ToolError("a comment body cannot be blank")
        if author:
            who = self._user(author)
        else:
            who = next((u for u in self.state.users if u.active), None)
            if who is None:
                raise ToolError("the workspace has no active user to author the comment; give author")
        taken = {c.id for c in issue.comments}
        n = len(issue.comments) + 1
        while f"{issue.id}-c{n}" in taken:
            n += 1
        comment = Comment(id=f"{issue.id}-c{n}", author=who.id, body=body)
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
