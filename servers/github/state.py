"""GitHub state: repositories with branches (a file tree and a commit history each), issues and pull
requests.

A repository is identified by ``owner/name``. Issues and pull requests share one number sequence per
repository, as on GitHub. A branch holds its full file tree (path -> UTF-8 text) and its commits,
newest first; branches made from another branch start with a copy of both.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from typing import ClassVar, Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from servers.kit import Model, ServerState

_LOGIN = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")
_REPO_NAME = re.compile(r"^[A-Za-z0-9._-]{1,100}$")
_BRANCH = re.compile(r"^(?!/)(?!.*//)(?!.*\.\.)[A-Za-z0-9._/-]{1,200}(?<!/)$")


def check_file_path(path: str) -> str:
    """A repository path in canonical form: relative, POSIX, no ``.``/``..`` segments."""
    if not path or path.startswith("/") or "\\" in path or "\x00" in path:
        raise ValueError(f"file path {path!r} must be relative, without backslashes")
    if posixpath.normpath(path) != path or path.startswith("../") or path in (".", ".."):
        raise ValueError(f"file path {path!r} is not canonical (no '.', '..', '//' or trailing '/')")
    return path


def check_branch_name(name: str) -> str:
    if not _BRANCH.match(name):
        raise ValueError(f"branch name {name!r} is not valid (letters, digits, '.', '_', '-', '/')")
    return name


def commit_sha(*parts: str) -> str:
    """A deterministic 40-hex commit id over the commit's parts (so replays give the same ids)."""
    return hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()


def blob_sha(content: str) -> str:
    """The git blob id of a file's text (what ``get_file_contents`` reports as ``sha``)."""
    data = content.encode("utf-8")
    return hashlib.sha1(b"blob %d\x00" % len(data) + data).hexdigest()


class Commit(Model):
    # frozen: no tool changes a commit, nor its removed paths in place (a push, a merge make new ones), so a
    # world's copy shares them (servers.kit.state)
    model_config = ConfigDict(frozen=True)

    sha: str = Field(pattern=r"^[0-9a-f]{7,40}$")
    message: str = Field(min_length=1)
    author: str
    removed: list[str] = Field(default_factory=list, description="Paths this commit deleted")


class Branch(Model):
    name: str
    files: dict[str, str] = Field(default_factory=dict)
    commits: list[Commit] = Field(default_factory=list, description="Newest first")
    protected: bool = False

    @field_validator("name")
    @classmethod
    def _name_ok(cls, v: str) -> str:
        return check_branch_name(v)

    @field_validator("files")
    @classmethod
    def _paths_ok(cls, files: dict[str, str]) -> dict[str, str]:
        for path in files:
            check_file_path(path)
        return dict(sorted(files.items()))

    @model_validator(mode="after")
    def _shas_unique(self) -> Branch:
        shas = [c.sha for c in self.commits]
        if len(shas) != len(set(shas)):
            raise ValueError(f"branch {self.name!r} lists a commit twice")
        return self


class Comment(Model):
    id: int = Field(ge=1)
    author: str
    body: str


class Label(Model):
    """A repository label: issues and pull requests carry its name."""

    name: str = Field(min_length=1, max_length=50)
    color: str = Field(default="ededed", pattern=r"^[0-9a-f]{6}$")
    description: str = ""


class Milestone(Model):
    """A repository milestone; issues refer to it by ``number``. ``due_on`` is a date, ``YYYY-MM-DD``."""

    number: int = Field(ge=1)
    title: str = Field(min_length=1)
    state: Literal["open", "closed"] = "open"
    due_on: str | None = Field(default=None, pattern=r"^\d{4}-\d{2}-\d{2}$")
    description: str = ""


class Issue(Model):
    number: int = Field(ge=1)
    title: str = Field(min_length=1)
    body: str = ""
    state: Literal["open", "closed"] = "open"
    state_reason: Literal["completed", "not_planned", "reopened"] | None = None
    author: str
    labels: list[str] = Field(default_factory=list)
    assignees: list[str] = Field(default_factory=list)
    comments: list[Comment] = Field(default_factory=list)
    milestone: int | None = Field(default=None, description="Number of the repository milestone it belongs to")
    created_at: str | None = Field(default=None, description="UTC, e.g. 2026-02-03T10:15:00Z")


class PullRequest(Model):
    number: int = Field(ge=1)
    title: str = Field(min_length=1)
    body: str = ""
    head: str
    base: str
    state: Literal["open", "closed"] = "open"
    merged: bool = False
    merge_commit_sha: str | None = None
    author: str
    labels: list[str] = Field(default_factory=list)
    created_at: str | None = Field(default=None, description="UTC, e.g. 2026-02-03T10:15:00Z")

    @model_validator(mode="after")
    def _merged_is_closed(self) -> PullRequest:
        if self.merged and self.state != "closed":
            raise ValueError(f"pull request #{self.number} is merged, so its state must be 'closed'")
        return self


class Repository(Model):
    owner: str
    name: str
    description: str = ""
    private: bool = False
    default_branch: str = "main"
    branches: list[Branch] = Field(default_factory=lambda: [Branch(name="main")])
    issues: list[Issue] = Field(default_factory=list)
    pull_requests: list[PullRequest] = Field(default_factory=list)
    labels: list[Label] = Field(default_factory=list, description="The repository's label definitions")
    milestones: list[Milestone] = Field(default_factory=list)

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    @field_validator("owner")
    @classmethod
    def _owner_ok(cls, v: str) -> str:
        if not _LOGIN.match(v):
            raise ValueError(f"owner {v!r} is not a valid GitHub login")
        return v

    @field_validator("name")
    @classmethod
    def _name_ok(cls, v: str) -> str:
        if not _REPO_NAME.match(v):
            raise ValueError(f"repository name {v!r} is not valid")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> Repository:
        names = [b.name for b in self.branches]
        if len(names) != len(set(names)):
            raise ValueError(f"{self.full_name}: two branches share a name")
        if self.default_branch not in names:
            raise ValueError(f"{self.full_name}: default branch {self.default_branch!r} is not among its branches")
        numbers = [i.number for i in self.issues] + [p.number for p in self.pull_requests]
        if len(numbers) != len(set(numbers)):
            raise ValueError(f"{self.full_name}: issues and pull requests share one number sequence; a number repeats")
        comment_ids = [c.id for i in self.issues for c in i.comments]
        if len(comment_ids) != len(set(comment_ids)):
            raise ValueError(f"{self.full_name}: two comments share an id")
        if len({label.name.lower() for label in self.labels}) != len(self.labels):
            raise ValueError(f"{self.full_name}: two labels share a name")
        milestones = {m.number for m in self.milestones}
        if len(milestones) != len(self.milestones):
            raise ValueError(f"{self.full_name}: two milestones share a number")
        for issue in self.issues:
            if issue.milestone is not None and issue.milestone not in milestones:
                raise ValueError(f"{self.full_name}: issue #{issue.number} names unknown milestone {issue.milestone}")
        return self

    def branch(self, name: str) -> Branch | None:
        return next((b for b in self.branches if b.name == name), None)

    def issue(self, number: int) -> Issue | None:
        return next((i for i in self.issues if i.number == number), None)

    def pull_request(self, number: int) -> PullRequest | None:
        return next((p for p in self.pull_requests if p.number == number), None)

    def next_number(self) -> int:
        return max([i.number for i in self.issues] + [p.number for p in self.pull_requests], default=0) + 1


class GithubState(ServerState):
    """``viewer`` is the login the agent acts as (author of what it creates); ``repos`` every
    repository it can see."""

    world_generator: ClassVar[str] = "github"

    viewer: str = "mcpbench-bot"
    repos: list[Repository] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique_repos(self) -> GithubState:
        names = [r.full_name.lower() for r in self.repos]
        if len(names) != len(set(names)):
            raise ValueError("two repositories share a full name")
        return self

    def repo(self, full_name: str) -> Repository | None:
        return next((r for r in self.repos if r.full_name == full_name), None)
