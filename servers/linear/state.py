"""Linear state: teams with their workflow states, users, labels, cycles, projects, and issues with comments.

Issues are identified by their human identifier (``ENG-142``): the team key, a dash and a number
unique within the team. Workflow states belong to a team and are named (``In Progress``); an issue's
``state`` is the name of one of its team's states. Labels are workspace-wide and named. An issue's
``assignee`` is a user id or ``null``. A cycle belongs to one team and is numbered within it; an issue's
``cycle`` is a cycle id of its own team. A project spans teams; an issue's ``project`` is a project id.
``viewer`` is the user the agent acts as (the author of its comments); ``now`` is the workspace's present,
which decides the current cycle.
"""

from __future__ import annotations

import re
from typing import ClassVar, Literal

from pydantic import Field, model_validator

from servers.kit import Model, ServerState

#: Linear's priority scale: the number an issue stores and the name the app shows.
PRIORITY_NAMES: dict[int, str] = {0: "No priority", 1: "Urgent", 2: "High", 3: "Medium", 4: "Low"}

StateType = Literal["triage", "backlog", "unstarted", "started", "completed", "canceled"]

_TEAM_KEY = re.compile(r"^[A-Z][A-Z0-9]{0,6}$")
_ISSUE_ID = re.compile(r"^([A-Z][A-Z0-9]{0,6})-([1-9][0-9]*)$")


class WorkflowState(Model):
    name: str = Field(min_length=1)
    type: StateType


class Team(Model):
    key: str = Field(description="Short uppercase key that prefixes issue identifiers, e.g. 'ENG'")
    name: str = Field(min_length=1)
    states: list[WorkflowState] = Field(min_length=1)


class User(Model):
    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    email: str = Field(min_length=3)
    active: bool = True


class Label(Model):
    name: str = Field(min_length=1)
    color: str = "#95a2b3"


class Comment(Model):
    id: str = Field(min_length=1)
    author: str = Field(description="User id of the author")
    body: str
    created_at: str = ""


class Cycle(Model):
    """A team's time-boxed iteration, numbered within the team; ``starts_at``/``ends_at`` are dates."""

    id: str = Field(min_length=1)
    team: str = Field(description="Team key")
    number: int = Field(ge=1)
    name: str = ""
    starts_at: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}$")
    ends_at: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}$")


class Project(Model):
    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    description: str = ""
    state: Literal["backlog", "planned", "started", "paused", "completed", "canceled"] = "planned"
    lead: str | None = Field(default=None, description="User id")
    teams: list[str] = Field(default_factory=list, description="Team keys")
    target_date: str | None = None


class Issue(Model):
    id: str = Field(description="Identifier such as 'ENG-142': team key, dash, number")
    title: str = Field(min_length=1)
    description: str = ""
    state: str = Field(description="Name of one of the team's workflow states")
    assignee: str | None = Field(default=None, description="User id, or null when unassigned")
    priority: int = Field(default=0, ge=0, le=4, description="0 none, 1 urgent, 2 high, 3 medium, 4 low")
    labels: list[str] = Field(default_factory=list, description="Label names")
    comments: list[Comment] = Field(default_factory=list)
    cycle: str | None = Field(default=None, description="Cycle id of the issue's team")
    project: str | None = Field(default=None, description="Project id")
    parent: str | None = Field(default=None, description="Identifier of the parent issue")
    estimate: int | None = Field(default=None, ge=0)
    due_date: str | None = Field(default=None, pattern=r"^\d{4}-\d{2}-\d{2}$")
    creator: str | None = Field(default=None, description="User id")
    created_at: str = ""

    @property
    def team(self) -> str:
        return self.id.split("-", 1)[0]

    @property
    def number(self) -> int:
        return int(self.id.split("-", 1)[1])


class LinearState(ServerState):
    world_generator: ClassVar[str] = "linear"

    viewer: str | None = Field(default=None, description="User id the agent acts as")
    now: str | None = Field(default=None, description="The workspace's present, e.g. 2026-03-16T09:00:00Z")
    teams: list[Team] = Field(default_factory=list)
    users: list[User] = Field(default_factory=list)
    labels: list[Label] = Field(default_factory=list)
    cycles: list[Cycle] = Field(default_factory=list)
    projects: list[Project] = Field(default_factory=list)
    issues: list[Issue] = Field(default_factory=list)

    @model_validator(mode="after")
    def _references_resolve(self) -> LinearState:  # noqa: C901, PLR0912 - one flat check per kind of reference the state holds
        teams: dict[str, Team] = {}
        for t in self.teams:
            if not _TEAM_KEY.match(t.key):
                raise ValueError(f"team key {t.key!r} must be 1-7 uppercase letters or digits, starting with a letter")
            if t.key in teams:
                raise ValueError(f"team key {t.key!r} is used twice")
            names = [s.name for s in t.states]
            if len(set(names)) != len(names):
                raise ValueError(f"team {t.key!r} has two workflow states with the same name")
            teams[t.key] = t
        _unique("user id", [u.id for u in self.users])
        _unique("label name", [lb.name for lb in self.labels])
        _unique("issue id", [i.id for i in self.issues])
        users = {u.id for u in self.users}
        labels = {lb.name for lb in self.labels}
        if self.viewer is not None and self.viewer not in users:
            raise ValueError(f"viewer {self.viewer!r} is not a user id")
        _unique("cycle id", [c.id for c in self.cycles])
        _unique("project id", [p.id for p in self.projects])
        _unique("project name", [p.name for p in self.projects])
        cycles = {c.id: c for c in self.cycles}
        for c in self.cycles:
            if c.team not in teams:
                raise ValueError(f"cycle {c.id}: no team with key {c.team!r}")
            if c.ends_at <= c.starts_at:
                raise ValueError(f"cycle {c.id}: ends_at {c.ends_at} is not after starts_at {c.starts_at}")
        _unique("cycle number", [f"{c.team} {c.number}" for c in self.cycles])
        for p in self.projects:
            if p.lead is not None and p.lead not in users:
                raise ValueError(f"project {p.id}: lead {p.lead!r} is not a user id")
            for key in p.teams:
                if key not in teams:
                    raise ValueError(f"project {p.id}: no team with key {key!r}")
        projects = {p.id for p in self.projects}
        issue_ids = {i.id for i in self.issues}
        for issue in self.issues:
            m = _ISSUE_ID.match(issue.id)
            if not m:
                raise ValueError(f"issue id {issue.id!r} must look like 'ENG-142'")
            team = teams.get(m.group(1))
            if team is None:
                raise ValueError(f"issue {issue.id}: no team with key {m.group(1)!r}")
            if issue.state not in {s.name for s in team.states}:
                raise ValueError(f"issue {issue.id}: state {issue.state!r} is not a workflow state of team {team.key}")
            if issue.assignee is not None and issue.assignee not in users:
                raise ValueError(f"issue {issue.id}: assignee {issue.assignee!r} is not a user id")
            for name in issue.labels:
                if name not in labels:
                    raise ValueError(f"issue {issue.id}: label {name!r} does not exist")
            if len(set(issue.labels)) != len(issue.labels):
                raise ValueError(f"issue {issue.id}: a label is listed twice")
            if issue.cycle is not None and (issue.cycle not in cycles or cycles[issue.cycle].team != team.key):
                raise ValueError(f"issue {issue.id}: cycle {issue.cycle!r} is not a cycle of team {team.key}")
            if issue.project is not None and issue.project not in projects:
                raise ValueError(f"issue {issue.id}: project {issue.project!r} does not exist")
            if issue.parent is not None and (issue.parent not in issue_ids or issue.parent == issue.id):
                raise ValueError(f"issue {issue.id}: parent {issue.parent!r} is not another issue")
            if issue.creator is not None and issue.creator not in users:
                raise ValueError(f"issue {issue.id}: creator {issue.creator!r} is not a user id")
            _unique(f"comment id of issue {issue.id}", [c.id for c in issue.comments])
            for comment in issue.comments:
                if comment.author not in users:
                    raise ValueError(f"issue {issue.id}: comment {comment.id} author {comment.author!r} is not a user id")
        return self

    # -- lookups shared by the tools and the predicates ------------------------------------------
    def issue(self, issue_id: str) -> Issue | None:
        return next((i for i in self.issues if i.id == issue_id), None)

    def user(self, user_id: str) -> User | None:
        return next((u for u in self.users if u.id == user_id), None)

    def team(self, key: str) -> Team | None:
        return next((t for t in self.teams if t.key == key), None)

    def cycle(self, cycle_id: str) -> Cycle | None:
        return next((c for c in self.cycles if c.id == cycle_id), None)

    def project(self, project_id: str) -> Project | None:
        return next((p for p in self.projects if p.id == project_id), None)


def _unique(what: str, values: list[str]) -> None:
    seen: set[str] = set()
    for v in values:
        if v in seen:
            raise ValueError(f"{what} {v!r} is used twice")
        seen.add(v)
