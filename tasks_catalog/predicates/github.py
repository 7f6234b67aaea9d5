"""GitHub primitives. A repository is named ``owner/name`` exactly as in the state (case-sensitive);
issues and pull requests by their number within it; a missing repository, branch, issue or pull
request makes a primitive false, never an error."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from servers.github import GithubState
from servers.github.state import Branch
from tasks_catalog.predicates._registry import Args, Name, Pattern, explains, listing, pattern, primitive, search, shown

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


# -- explainers: what each clause asks and what the state held -------------------------------------

def _no_repo(state: GithubState, repo: str) -> str:
    return f"no repository {repo}; repositories: {listing(r.full_name for r in state.repos)}"


def _no_issue(repo, number: int) -> str:
    pr = repo.pull_request(number)
    return f"{repo.full_name} has no issue #{number}" + (f" (#{number} is a pull request)" if pr else "")


def _branch_or_why(state: GithubState, repo: str, branch: str | None) -> tuple[Branch | None, str]:
    r = state.repo(repo)
    if r is None:
        return None, _no_repo(state, repo)
    name = branch if branch is not None else r.default_branch
    b = r.branch(name)
    return b, ("" if b is not None else f"{repo} has no branch {name}; branches: {listing(x.name for x in r.branches)}")


@explains("github", "issueClosed")
def _explain_issue_closed(state: GithubState, args: IssueClosed) -> tuple[str, str]:
    expected = f"issue #{args.issue} of {args.repo} closed"
    r = state.repo(args.repo)
    issue = r.issue(args.issue) if r is not None else None
    if issue is None:
        return expected, _no_repo(state, args.repo) if r is None else _no_issue(r, args.issue)
    reason = f" ({issue.state_reason})" if issue.state_reason else ""
    return expected, f"issue #{issue.number} {shown(issue.title)} is {issue.state}{reason}"


@explains("github", "prMerged")
def _explain_pr_merged(state: GithubState, args: PrMerged) -> tuple[str, str]:
    expected = f"pull request #{args.pr} of {args.repo} merged"
    r = state.repo(args.repo)
    pr = r.pull_request(args.pr) if r is not None else None
    if pr is None:
        return expected, _no_repo(state, args.repo) if r is None else f"{args.repo} has no pull request #{args.pr}"
    return expected, (f"pull request #{pr.number} {shown(pr.title)} ({pr.head} -> {pr.base}) is {pr.state}, "
                      f"{'merged' if pr.merged else 'not merged'}")


@explains("github", "repoHasFile")
def _explain_repo_has_file(state: GithubState, args: RepoHasFile) -> tuple[str, str]:
    on = args.branch or "the default branch"
    matching = f" matching {pattern(args.pattern)}" if args.pattern is not None else ""
    expected = f"{args.path} on {on} of {args.repo}{matching}"
    b, why = _branch_or_why(state, args.repo, args.branch)
    if b is None:
        return expected, why
    if args.path not in b.files:
        return expected, f"no {args.path} on {b.name}; files there: {listing(sorted(b.files), 8)}"
    return expected, f"{args.path} on {b.name} reads {shown(b.files[args.path], 240)}"


@explains("github", "issueHasComment")
def _explain_issue_has_comment(state: GithubState, args: IssueHasComment) -> tuple[str, str]:
    by = f" by {args.author}" if args.author is not None else ""
    expected = f"a comment{by} on issue #{args.issue} of {args.repo} matching {pattern(args.pattern)}"
    r = state.repo(args.repo)
    issue = r.issue(args.issue) if r is not None else None
    if issue is None:
        return expected, _no_repo(state, args.repo) if r is None else _no_issue(r, args.issue)
    last = "; ".join(f"{c.author}: {shown(c.body)}" for c in issue.comments[-3:]) or "none"
    return expected, f"issue #{issue.number} has {len(issue.comments)} comments; the last: {last}"


@explains("github", "commitMatchesPattern")
def _explain_commit_matches_pattern(state: GithubState, args: CommitMatchesPattern) -> tuple[str, str]:
    on = args.branch or "the default branch"
    expected = f"a commit on {on} of {args.repo} whose message matches {pattern(args.pattern)}"
    b, why = _branch_or_why(state, args.repo, args.branch)
    if b is None:
        return expected, why
    newest = "; ".join(f"{c.sha[:7]} {shown(c.message)}" for c in b.commits[:3]) or "none"
    return expected, f"{len(b.commits)} commits on {b.name}; the newest: {newest}"
