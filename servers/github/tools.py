"""GitHub tools, named and shaped after GitHub's official MCP server (github-mcp-server).

Repositories are addressed by ``owner`` and ``repo`` (matched case-insensitively, as on GitHub).
Everything the agent creates is authored by the state's ``viewer``. Commit ids are derived from the
commit's content, so replaying the same calls from the same state gives the same ids.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from servers.github.state import (
    Branch,
    Comment,
    Commit,
    GithubState,
    Issue,
    PullRequest,
    Repository,
    blob_sha,
    check_branch_name,
    check_file_path,
    commit_sha,
)
from servers.kit import ToolError, Toolset, tool
from servers.kit.pages import page

Owner = Annotated[str, Field(min_length=1, max_length=100, description="Repository owner (user or organisation)")]
RepoName = Annotated[str, Field(min_length=1, max_length=100, description="Repository name")]
Number = Annotated[int, Field(ge=1)]
PerPage = Annotated[int, Field(ge=1, le=100, description="Results per page (at most 100)")]
Page = Annotated[int, Field(ge=1, description="Page number, from 1")]
After = Annotated[str | None, Field(max_length=200, description="pageInfo.endCursor of the previous page")]
Text = Annotated[str, Field(max_length=65_536)]


class GithubTools(Toolset[GithubState]):
    state_model = GithubState

    # -- lookups -----------------------------------------------------------------------------
    def _repo(self, owner: str, repo: str) -> Repository:
        wanted = f"{owner}/{repo}".lower()
        for r in self.state.repos:
            if r.full_name.lower() == wanted:
                return r
        raise ToolError(f"unknown repository '{owner}/{repo}' (search_repositories lists the visible ones)")

    def _branch(self, repo: Repository, name: str | None) -> Branch:
        name = name or repo.default_branch
        branch = repo.branch(name)
        if branch is None:
            known = ", ".join(b.name for b in repo.branches)
            raise ToolError(f"unknown branch '{name}' in {repo.full_name}; branches: {known}")
        return branch

    def _issue(self, repo: Repository, number: int) -> Issue:
        issue = repo.issue(number)
        if issue is None:
            if repo.pull_request(number) is not None:
                raise ToolError(f"#{number} in {repo.full_name} is a pull request, not an issue")
            raise ToolError(f"unknown issue #{number} in {repo.full_name}")
        return issue

    def _pull(self, repo: Repository, number: int) -> PullRequest:
        pr = repo.pull_request(number)
        if pr is None:
            if repo.issue(number) is not None:
                raise ToolError(f"#{number} in {repo.full_name} is an issue, not a pull request")
            raise ToolError(f"unknown pull request #{number} in {repo.full_name}")
        return pr

    def _commit(self, repo: Repository, branch: Branch, message: str, *salt: str, removed: str | None = None) -> Commit:
        parent = branch.commits[0].sha if branch.commits else ""
        sha = commit_sha(repo.full_name, branch.name, parent, message, *salt)
        return Commit(sha=sha, message=message, author=self.state.viewer, removed=[removed] if removed else [])

    @staticmethod
    def _path(path: str) -> str:
        try:
            return check_file_path(path.strip("/"))
        except ValueError as exc:
            raise ToolError(str(exc)) from None

    @staticmethod
    def _issue_summary(issue: Issue) -> dict[str, Any]:
        return {
            "number": issue.number,
            "title": issue.title,
            "state": issue.state,
            "author": issue.author,
            "labels": issue.labels,
            "assignees": issue.assignees,
            "comments": len(issue.comments),
            "milestone": issue.milestone,
            "created_at": issue.created_at,
        }

    @staticmethod
    def _pull_json(repo: Repository, pr: PullRequest) -> dict[str, Any]:
        data = pr.model_dump(mode="json")
        head, base = repo.branch(pr.head), repo.branch(pr.base)
        if head is not None and base is not None and not pr.merged:
            base_shas = {c.sha for c in base.commits}
            data["commits_ahead"] = sum(1 for c in head.commits if c.sha not in base_shas)
        return data

    # -- repositories, branches, commits -----------------------------------------------------
    @tool(read_only=True)
    def search_repositories(
        self, query: Annotated[str, Field(max_length=256, description="Words to find in name or description; empty lists all")] = ""
    ) -> list:
        """Find repositories visible to you whose full name or description contains every word of the query (case-insensitive)."""
        words = query.lower().split()
        out = []
        for r in self.state.repos:
            hay = f"{r.full_name} {r.description}".lower()
            if all(w in hay for w in words):
                out.append({
                    "full_name": r.full_name,
                    "description": r.description,
                    "private": r.private,
                    "default_branch": r.default_branch,
                    "open_issues": sum(1 for i in r.issues if i.state == "open"),
                })
        return out

    @tool(read_only=True)
    def list_branches(self, owner: Owner, repo: RepoName) -> list:
        """List a repository's branches with their head commit and whether they are protected."""
        r = self._repo(owner, repo)
        return [
            {"name": b.name, "commit": b.commits[0].sha if b.commits else None, "protected": b.protected,
             "default": b.name == r.default_branch}
            for b in r.branches
        ]

    @tool()
    def create_branch(
        self,
        owner: Owner,
        repo: RepoName,
        branch: Annotated[str, Field(min_length=1, max_length=200, description="Name of the new branch")],
        from_branch: Annotated[str | None, Field(description="Branch to start from; default: the repository's default branch")] = None,
    ) -> str:
        """Create a new branch starting from the head of an existing one."""
        r = self._repo(owner, repo)
        try:
            check_branch_name(branch)
        except ValueError as exc:
            raise ToolError(str(exc)) from None
        if r.branch(branch) is not None:
            raise ToolError(f"branch '{branch}' already exists in {r.full_name}")
        source = self._branch(r, from_branch)
        r.branches = [*r.branches, Branch(name=branch, files=dict(source.files), commits=list(source.commits))]
        return f"Created branch {branch} in {r.full_name} from {source.name}"

    @tool(read_only=True)
    def list_commits(
        self,
        owner: Owner,
        repo: RepoName,
        sha: Annotated[str | None, Field(description="Branch name to list; default: the default branch")] = None,
        author: Annotated[str | None, Field(description="Only commits by this login")] = None,
        perPage: PerPage = 30,
        page: Page = 1,
    ) -> list:
        """List the commits of a branch, newest first, one page at a time (page 1, 2, ...)."""
        r = self._repo(owner, repo)
        commits = [c for c in self._branch(r, sha).commits if author is None or c.author == author]
        start = (page - 1) * perPage
        return [c.model_dump(mode="json") for c in commits[start:start + perPage]]

    # -- files -------------------------------------------------------------------------------
    @tool(read_only=True)
    def get_file_contents(
        self,
        owner: Owner,
        repo: RepoName,
        path: Annotated[str, Field(max_length=1000, description="File or directory path; '' or '/' is the root")] = "",
        ref: Annotated[str | None, Field(description="Branch; default: the default branch")] = None,
    ) -> Any:
        """Get a file's text and blob sha, or a directory's entries, on a branch."""
        r = self._repo(owner, repo)
        branch = self._branch(r, ref)
        path = path.strip("/")
        if path:
            path = self._path(path)
            if path in branch.files:
                text = branch.files[path]
                return {"type": "file", "path": path, "sha": blob_sha(text), "size": len(text.encode()), "content": text}
        prefix = f"{path}/" if path else ""
        entries: dict[str, str] = {}
        for p in branch.files:
            if p.startswith(prefix):
                head, _, rest = p[len(prefix):].partition("/")
                entries[head] = "dir" if rest else "file"
        if not entries:
            raise ToolError(f"no file or directory '{path}' on branch {branch.name} of {r.full_name}")
        return [{"type": kind, "name": name, "path": prefix + name} for name, kind in sorted(entries.items())]

    @tool(destructive=True)
    def create_or_update_file(
        self,
        owner: Owner,
        repo: RepoName,
        path: Annotated[str, Field(min_length=1, max_length=1000)],
        content: Text,
        message: Annotated[str, Field(min_length=1, max_length=4000, description="Commit message")],
        branch: Annotated[str, Field(min_length=1)],
        sha: Annotated[str | None, Field(description="Blob sha of the file being replaced; required when it exists")] = None,
    ) -> dict:
        """Create a file, or replace an existing one, in a single commit on a branch. Replacing needs the file's current blob sha (from get_file_contents)."""
        r = self._repo(owner, repo)
        b = self._branch(r, branch)
        path = self._path(path)
        if b.protected:
            raise ToolError(f"branch {b.name} of {r.full_name} is protected; change it through a pull request")
        if any(p.startswith(path + "/") for p in b.files):
            raise ToolError(f"'{path}' is a directory on {b.name}")
        current = b.files.get(path)
        if current is not None:
            if sha is None:
                raise ToolError(f"'{path}' already exists on {b.name}; pass its blob sha (from get_file_contents) to update it")
            if sha != blob_sha(current):
                raise ToolError(f"sha {sha} does not match the current blob of '{path}' on {b.name}")
        elif sha is not None:
            raise ToolError(f"'{path}' does not exist on {b.name}, so there is no blob to replace; omit sha")
        commit = self._commit(r, b, message, path, blob_sha(content))
        b.files = {**b.files, path: content}
        b.commits = [commit, *b.commits]
        return {"commit": commit.sha, "path": path, "sha": blob_sha(content), "branch": b.name}

    @tool(destructive=True)
    def delete_file(
        self,
        owner: Owner,
        repo: RepoName,
        path: Annotated[str, Field(min_length=1, max_length=1000)],
        message: Annotated[str, Field(min_length=1, max_length=4000, description="Commit message")],
        branch: Annotated[str, Field(min_length=1)],
    ) -> dict:
        """Delete a file from a branch in a single commit."""
        r = self._repo(owner, repo)
        b = self._branch(r, branch)
        path = self._path(path)
        if b.protected:
            raise ToolError(f"branch {b.name} of {r.full_name} is protected; change it through a pull request")
        if path not in b.files:
            raise ToolError(f"no file '{path}' on branch {b.name} of {r.full_name}")
        commit = self._commit(r, b, message, "delete", path, removed=path)
        b.files = {p: t for p, t in b.files.items() if p != path}
        b.commits = [commit, *b.commits]
        return {"commit": commit.sha, "deleted": path, "branch": b.name}

    # -- issues ------------------------------------------------------------------------------
    @tool(read_only=True)
    def list_issues(
        self,
        owner: Owner,
        repo: RepoName,
        state: Literal["open", "closed", "all"] = "open",
        labels: Annotated[list[str] | None, Field(description="Only issues carrying all of these labels")] = None,
        milestone: Annotated[int | None, Field(ge=1, description="Only issues of this milestone number")] = None,
        perPage: PerPage = 30,
        after: After = None,
    ) -> dict:
        """List a repository's issues (not pull requests) by number, filtered by state, labels and milestone,
        one page at a time: when pageInfo.hasNextPage is true, pass pageInfo.endCursor as 'after'."""
        r = self._repo(owner, repo)
        found = [
            self._issue_summary(i)
            for i in sorted(r.issues, key=lambda i: i.number)
            if (state == "all" or i.state == state) and all(lb in i.labels for lb in labels or [])
            and (milestone is None or i.milestone == milestone)
        ]
        chunk, cursor = page(found, f"issues:{r.full_name}:{state}:{sorted(labels or [])}:{milestone}", after, perPage)
        return {"issues": chunk, "pageInfo": {"hasNextPage": bool(cursor), "endCursor": cursor or None},
                "totalCount": len(found)}

    @tool(read_only=True)
    def search_issues(
        self,
        query: Annotated[str, Field(min_length=1, max_length=256, description=(
            "Words and qualifiers, as on GitHub: repo:owner/name, is:open, is:closed, is:issue, is:pr, "
            "label:name (quote names with spaces), author:login, assignee:login, milestone:\"title\""))],
        perPage: PerPage = 30,
        page: Page = 1,
    ) -> dict:
        """Search issues and pull requests of the repositories you can see with GitHub's search syntax; every
        word must occur in the title or body. Newest first (by number); total_count says how many matched."""
        import shlex

        try:
            tokens = shlex.split(query)
        except ValueError as exc:
            raise ToolError(f"cannot parse the query: {exc}") from None
        words, quals = [], []
        for token in tokens:
            key, sep, value = token.partition(":")
            if sep and key in ("repo", "is", "label", "author", "assignee", "milestone", "state"):
                quals.append((key, value))
            else:
                words.append(token.lower())
        items = []
        for r in self.state.repos:
            entries = [(i, "issue") for i in r.issues] + [(p, "pr") for p in r.pull_requests]
            for entry, kind in entries:
                if self._matches(r, entry, kind, words, quals):
                    items.append((r, entry, kind))
        items.sort(key=lambda t: (t[1].number, t[0].full_name), reverse=True)
        start = (page - 1) * perPage
        chunk = items[start:start + perPage]
        return {"total_count": len(items), "items": [
            {"repository": r.full_name, "number": e.number, "title": e.title, "state": e.state,
             "is_pull_request": kind == "pr", "author": e.author, "labels": e.labels,
             "url": f"https://github.com/{r.full_name}/{'pull' if kind == 'pr' else 'issues'}/{e.number}"}
            for r, e, kind in chunk]}

    @staticmethod
    def _matches(r: Repository, entry: Issue | PullRequest, kind: str, words: list[str],
                 quals: list[tuple[str, str]]) -> bool:
        hay = f"{entry.title}\n{entry.body}".lower()
        if not all(w in hay for w in words):
            return False
        for key, value in quals:
            low = value.lower()
            if key == "repo" and r.full_name.lower() != low:
                return False
            if key in ("is", "state"):
                if low in ("issue", "pr") and (low == "pr") != (kind == "pr"):
                    return False
                if low in ("open", "closed") and entry.state != low:
                    return False
                if low == "merged" and not getattr(entry, "merged", False):
                    return False
            if key == "label" and low not in (lb.lower() for lb in entry.labels):
                return False
            if key == "author" and entry.author.lower() != low:
                return False
            if key == "assignee" and low not in (a.lower() for a in getattr(entry, "assignees", [])):
                return False
            if key == "milestone":
                number = getattr(entry, "milestone", None)
                titles = {m.number: m.title.lower() for m in r.milestones}
                if number is None or titles.get(number) != low:
                    return False
        return True

    @tool(read_only=True)
    def get_issue(self, owner: Owner, repo: RepoName, issue_number: Number) -> dict:
        """Get one issue with its body, labels, assignees and comments."""
        return self._issue(self._repo(owner, repo), issue_number).model_dump(mode="json")

    @tool()
    def create_issue(
        self,
        owner: Owner,
        repo: RepoName,
        title: Annotated[str, Field(min_length=1, max_length=256)],
        body: Text = "",
        labels: list[str] | None = None,
        assignees: list[str] | None = None,
    ) -> dict:
        """Open a new issue; returns its number."""
        r = self._repo(owner, repo)
        issue = Issue(number=r.next_number(), title=title, body=body, author=self.state.viewer,
                      labels=list(dict.fromkeys(labels or [])), assignees=list(dict.fromkeys(assignees or [])))
        r.issues = [*r.issues, issue]
        return {"number": issue.number, "url": f"https://github.com/{r.full_name}/issues/{issue.number}"}

    @tool(destructive=True)
    def update_issue(
        self,
        owner: Owner,
        repo: RepoName,
        issue_number: Number,
        title: Annotated[str | None, Field(min_length=1, max_length=256)] = None,
        body: Text | None = None,
        state: Literal["open", "closed"] | None = None,
        state_reason: Literal["completed", "not_planned", "reopened"] | None = None,
        labels: Annotated[list[str] | None, Field(description="Replaces all labels")] = None,
        assignees: Annotated[list[str] | None, Field(description="Replaces all assignees")] = None,
        milestone: Annotated[int | None, Field(ge=1, description="Milestone number to put the issue in")] = None,
    ) -> dict:
        """Edit an issue: title, body, state (open/closed, with an optional reason), labels, assignees or milestone. Only the fields given change."""
        r = self._repo(owner, repo)
        issue = self._issue(r, issue_number)
        if state_reason is not None:
            effective = state or issue.state
            if (state_reason == "reopened") != (effective == "open"):
                raise ToolError(f"state_reason '{state_reason}' does not fit state '{effective}'")
        changes: dict[str, Any] = {}
        if title is not None:
            changes["title"] = title
        if body is not None:
            changes["body"] = body
        if labels is not None:
            changes["labels"] = list(dict.fromkeys(labels))
        if assignees is not None:
            changes["assignees"] = list(dict.fromkeys(assignees))
        if milestone is not None:
            if all(m.number != milestone for m in r.milestones):
                raise ToolError(f"unknown milestone {milestone} in {r.full_name}; list_milestones shows them")
            changes["milestone"] = milestone
        if state is not None and state != issue.state:
            changes["state"] = state
            changes["state_reason"] = state_reason or ("completed" if state == "closed" else "reopened")
        elif state_reason is not None:
            changes["state_reason"] = state_reason
        if not changes:
            raise ToolError("nothing to update: give at least one of title, body, state, state_reason, labels, "
                            "assignees, milestone")
        updated = Issue.model_validate({**issue.model_dump(), **changes})
        r.issues = [updated if i.number == issue_number else i for i in r.issues]
        return self._issue_summary(updated)

    @tool(read_only=True)
    def list_milestones(self, owner: Owner, repo: RepoName,
                        state: Literal["open", "closed", "all"] = "open") -> list:
        """List a repository's milestones: number, title, state, due date, and open and closed issue counts."""
        r = self._repo(owner, repo)
        return [{**m.model_dump(mode="json"),
                 "open_issues": sum(1 for i in r.issues if i.milestone == m.number and i.state == "open"),
                 "closed_issues": sum(1 for i in r.issues if i.milestone == m.number and i.state == "closed")}
                for m in r.milestones if state == "all" or m.state == state]

    @tool()
    def add_issue_comment(self, owner: Owner, repo: RepoName, issue_number: Number,
                          body: Annotated[str, Field(min_length=1, max_length=65_536)]) -> dict:
        """Add a comment to an issue."""
        r = self._repo(owner, repo)
        issue = self._issue(r, issue_number)
        next_id = max((c.id for i in r.issues for c in i.comments), default=0) + 1
        issue.comments = [*issue.comments, Comment(id=next_id, author=self.state.viewer, body=body)]
        return {"id": next_id, "issue": issue_number}

    # -- pull requests -----------------------------------------------------------------------
    @tool(read_only=True)
    def list_pull_requests(self, owner: Owner, repo: RepoName,
                           state: Literal["open", "closed", "all"] = "open",
                           perPage: PerPage = 30, page: Page = 1) -> list:
        """List pull requests by number with title, body, head and base branches, and merge status, one page
        at a time (page 1, 2, ...; a short or empty page is the last)."""
        r = self._repo(owner, repo)
        found = [p for p in sorted(r.pull_requests, key=lambda p: p.number) if state == "all" or p.state == state]
        start = (page - 1) * perPage
        return [self._pull_json(r, p) for p in found[start:start + perPage]]

    @tool()
    def create_pull_request(
        self,
        owner: Owner,
        repo: RepoName,
        title: Annotated[str, Field(min_length=1, max_length=256)],
        head: Annotated[str, Field(min_length=1, description="Branch with the changes")],
        base: Annotated[str, Field(min_length=1, description="Branch to merge into")],
        body: Text = "",
    ) -> dict:
        """Open a pull request to merge head into base; head must have commits base lacks."""
        r = self._repo(owner, repo)
        h, b = self._branch(r, head), self._branch(r, base)
        if h.name == b.name:
            raise ToolError("head and base are the same branch")
        base_shas = {c.sha for c in b.commits}
        if all(c.sha in base_shas for c in h.commits):
            raise ToolError(f"no commits between {base} and {head}")
        if any(p.state == "open" and p.head == head and p.base == base for p in r.pull_requests):
            raise ToolError(f"a pull request from {head} into {base} is already open")
        pr = PullRequest(number=r.next_number(), title=title, body=body, head=head, base=base, author=self.state.viewer)
        r.pull_requests = [*r.pull_requests, pr]
        return {"number": pr.number, "url": f"https://github.com/{r.full_name}/pull/{pr.number}"}

    @tool(destructive=True)
    def merge_pull_request(
        self,
        owner: Owner,
        repo: RepoName,
        pullNumber: Number,
        merge_method: Literal["merge", "squash", "rebase"] = "merge",
        commit_title: Annotated[str | None, Field(max_length=256)] = None,
        commit_message: Text | None = None,
    ) -> dict:
        """Merge an open pull request into its base branch: files added or changed on the head branch are brought into the base, and files its new commits deleted are deleted there."""
        r = self._repo(owner, repo)
        pr = self._pull(r, pullNumber)
        if pr.merged:
            raise ToolError(f"pull request #{pullNumber} is already merged")
        if pr.state != "open":
            raise ToolError(f"pull request #{pullNumber} is closed; reopen it before merging")
        head, base = self._branch(r, pr.head), self._branch(r, pr.base)
        base_shas = {c.sha for c in base.commits}
        new = [c for c in head.commits if c.sha not in base_shas]
        if not new:
            raise ToolError(f"pull request #{pullNumber} has no commits to merge")
        top = base.commits[0].sha if base.commits else ""
        deleted = {p for c in new for p in c.removed if p not in head.files}
        if merge_method == "squash":
            title = commit_title or f"{pr.title} (#{pr.number})"
            body = commit_message if commit_message is not None else "\n".join(f"* {c.message}" for c in reversed(new))
            message = f"{title}\n\n{body}".rstrip()
            added = [Commit(sha=commit_sha(r.full_name, "squash", top, *(c.sha for c in new)), message=message,
                            author=self.state.viewer, removed=sorted(deleted))]
        elif merge_method == "rebase":
            added = [Commit(sha=commit_sha(r.full_name, "rebase", top, c.sha), message=c.message, author=c.author,
                            removed=c.removed) for c in new]
        else:
            title = commit_title or f"Merge pull request #{pr.number} from {r.owner}/{pr.head}"
            body = commit_message if commit_message is not None else pr.title
            merge = Commit(sha=commit_sha(r.full_name, "merge", top, new[0].sha), message=f"{title}\n\n{body}".rstrip(),
                           author=self.state.viewer)
            added = [merge, *new]
        base.files = {p: t for p, t in {**base.files, **head.files}.items() if p not in deleted}
        base.commits = [*added, *base.commits]
        merged = PullRequest.model_validate(
            {**pr.model_dump(), "state": "closed", "merged": True, "merge_commit_sha": added[0].sha}
        )
        r.pull_requests = [merged if p.number == pullNumber else p for p in r.pull_requests]
        return {"merged": True, "sha": added[0].sha, "message": f"Pull request #{pullNumber} merged into {base.name}"}
