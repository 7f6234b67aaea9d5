"""GitHub primitives. A repository is named ``owner/name`` exactly as in the state (case-sensitive);
issues and pull requests by their number within it; a missing repository, branch, issue or pull
request makes a primitive false, never an error."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from servers.github import GithubState
from servers.github.state import Branch
from tasks_catalog.predicates._registry import Args, Name, Pattern, primitive, search

RepoRef = Annotated[str, Field(min_length=3, pattern=r"^[^/]+/[^/]+$", description="'owner/name', exact")]
Number = Annotated[int, Field(ge=1)]


class IssueClosed(Args):
    """True when repository `repo` has an issue numbered `issue` whose state is "closed" (for any
    reason: completed or not planned). A pull request with that number does not count."""

    repo: RepoRef
    issue: Number


class PrMerged(Args):
    """True when repository `repo` has a pull request numbered `pr` that is merged. A pull request
    closed without merging is false."""

    repo: RepoRef
    pr: Number


class RepoHasFile(Args):
    """True when branch `branch` of repository `repo` (its default branch when `branch` is absent)
    has a file at exactly `path` (relative, no leading '/'; a directory does not count) and, when
    `pattern` is given, the file's text matches it (search semantics): a file's substance."""

    repo: RepoRef
    path: Name
    branch: Name | None = None
    pattern: Pattern | None = None


class IssueHasComment(Args):
    """True when repository `repo` has an issue numbered `issue` (a pull request with that number does
    not count) with a comment whose body matches regex `pattern` (search semantics, case-sensitive)
    and, when `author` is given, whose author's login equals `author` exactly: what a comment must
    say (the decision it points to), not only that one was written."""

    repo: RepoRef
    issue: Number
    pattern: Pattern
    author: Name | None = None


class CommitMatchesPattern(Args):
    """True when some commit in the history of branch `branch` of repository `repo` (its default
    branch when `branch` is absent) has a message matching regex `pattern` (search semantics over
    the whole message, title and body)."""

    repo: RepoRef
    pattern: Pattern
    branch: Name | None = None


def _branch(state: GithubState, repo: str, branch: str | None) -> Branch | None:
    r = state.repo(repo)
    if r is None:
        return None
    return r.branch(branch if branch is not None else r.default_branch)


@primitive("github", "issueClosed", IssueClosed)
def issue_closed(state: GithubState, args: IssueClosed) -> bool:
    r = state.repo(args.repo)
    issue = r.issue(args.issue) if r is not None else None
    return issue is not None and issue.state == "closed"


@primitive("github", "prMerged", PrMerged)
def pr_merged(state: GithubState, args: PrMerged) -> bool:
    r = state.repo(args.repo)
    pr = r.pull_request(args.pr) if r is not None else None
    return pr is not None and pr.merged


@primitive("github", "repoHasFile", RepoHasFile)
def repo_has_file(state: GithubState, args: RepoHasFile) -> bool:
    b = _branch(state, args.repo, args.branch)
    if b is None or args.path not in b.files:
        return False
    return args.pattern is None or search(args.pattern, b.files[args.path])


@primitive("github", "issueHasComment", IssueHasComment)
def issue_has_comment(state: GithubState, args: IssueHasComment) -> bool:
    r = state.repo(args.repo)
    issue = r.issue(args.issue) if r is not None else None
    return issue is not None and any(
        search(args.pattern, c.body) and (args.author is None or c.author == args.author) for c in issue.comments)


@primitive("github", "commitMatchesPattern", CommitMatchesPattern)
def commit_matches_pattern(state: GithubState, args: CommitMatchesPattern) -> bool:
    b = _branch(state, args.repo, args.branch)
    return b is not None and any(search(args.pattern, c.message) for c in b.commits)
