"""Linear primitives. An issue is identified by its identifier (``ENG-142``), matched exactly; a
missing issue makes every primitive false."""

from __future__ import annotations

from servers.linear import LinearState
from servers.linear.state import PRIORITY_NAMES
from tasks_catalog.predicates._registry import (
    Args,
    Name,
    Pattern,
    explains,
    listing,
    pattern,
    primitive,
    same,
    search,
    shown,
)


class IssueState(Args):
    """True when issue `issue` exists and its workflow state's name equals `state` (exact,
    case-sensitive string equality, e.g. "In Review"; a state type such as "completed" does not match
    a state named "Done")."""

    issue: Name
    state: Name


class IssueHasLabel(Args):
    """True when issue `issue` exists and carries a label whose name equals `label` (exact,
    case-sensitive); other labels may be there too."""

    issue: Name
    label: Name


class IssueAssignee(Args):
    """True when issue `issue` exists and is assigned to the user whose `id`, `name` or `email` equals
    `assignee` (exact, case-sensitive string equality with any of the three). `assignee` null means the
    issue has no assignee."""

    issue: Name
    assignee: Name | None


class IssuePriority(Args):
    """True when issue `issue` exists and its priority equals `priority`. A number is compared with the
    stored priority numerically (0 No priority, 1 Urgent, 2 High, 3 Medium, 4 Low); a string is compared
    exactly (case-sensitive) with the priority's name ("Urgent", "High", "Medium", "Low", "No priority"),
    so the string "2" matches nothing."""

    issue: Name
    priority: int | Name


class IssueHasComment(Args):
    """True when issue `issue` exists and one of its comments has a body matching regex `pattern`
    (search semantics, case-sensitive) and, when `author` is given, was written by the user whose `id`,
    `name` or `email` equals `author` exactly."""

    issue: Name
    pattern: Pattern
    author: Name | None = None


class IssueInCycle(Args):
    """True when issue `issue` exists and is in the cycle whose id equals `cycle` exactly (a cycle of
    the issue's own team); `cycle` null means the issue is in no cycle."""

    issue: Name
    cycle: Name | None


@primitive("linear", "issueState", IssueState)
def issue_state(state: LinearState, args: IssueState) -> bool:
    issue = state.issue(args.issue)
    return issue is not None and issue.state == args.state


@primitive("linear", "issueHasLabel", IssueHasLabel)
def issue_has_label(state: LinearState, args: IssueHasLabel) -> bool:
    issue = state.issue(args.issue)
    return issue is not None and args.label in issue.labels


@primitive("linear", "issueAssignee", IssueAssignee)
def issue_assignee(state: LinearState, args: IssueAssignee) -> bool:
    issue = state.issue(args.issue)
    if issue is None:
        return False
    if args.assignee is None:
        return issue.assignee is None
    user = state.user(issue.assignee) if issue.assignee is not None else None
    return user is not None and args.assignee in (user.id, user.name, user.email)


@primitive("linear", "issuePriority", IssuePriority)
def issue_priority(state: LinearState, args: IssuePriority) -> bool:
    issue = state.issue(args.issue)
    if issue is None:
        return False
    if isinstance(args.priority, str):
        return PRIORITY_NAMES[issue.priority] == args.priority
    return same(args.priority, issue.priority)


@primitive("linear", "issueHasComment", IssueHasComment)
def issue_has_comment(state: LinearState, args: IssueHasComment) -> bool:
    issue = state.issue(args.issue)
    if issue is None:
        return False
    for comment in issue.comments:
        if args.author is not None:
            user = state.user(comment.author)
            if user is None or args.author not in (user.id, user.name, user.email):
                continue
        if search(args.pattern, comment.body):
            return True
    return False


@primitive("linear", "issueInCycle", IssueInCycle)
def issue_in_cycle(state: LinearState, args: IssueInCycle) -> bool:
    issue = state.issue(args.issue)
    if issue is None:
        return False
    if args.cycle is None:
        return issue.cycle is None
    cycle = state.cycle(issue.cycle) if issue.cycle is not None else None
    return cycle is not None and cycle.team == issue.team and cycle.id == args.cycle


# -- explainers: what each clause asks and what the state held -------------------------------------

def _issue_or_why(state: LinearState, ref: str):
    issue = state.issue(ref)
    return issue, ("" if issue is not None else f"no issue {ref}")


def _who(state: LinearState, user_id: str | None) -> str:
    if user_id is None:
        return "nobody"
    user = state.user(user_id)
    return f"{user.name} <{user.email}> ({user.id})" if user is not None else user_id


@explains("linear", "issueState")
def _explain_issue_state(state: LinearState, args: IssueState) -> tuple[str, str]:
    issue, why = _issue_or_why(state, args.issue)
    return f"{args.issue} in state {args.state!r}", why or f"{issue.id} {shown(issue.title, 60)} is in {issue.state!r}"


@explains("linear", "issueHasLabel")
def _explain_issue_has_label(state: LinearState, args: IssueHasLabel) -> tuple[str, str]:
    issue, why = _issue_or_why(state, args.issue)
    return f"{args.issue} labelled {args.label!r}", why or f"{issue.id} carries {listing(issue.labels)}"


@explains("linear", "issueAssignee")
def _explain_issue_assignee(state: LinearState, args: IssueAssignee) -> tuple[str, str]:
    issue, why = _issue_or_why(state, args.issue)
    expected = f"{args.issue} assigned to {args.assignee if args.assignee is not None else 'nobody'}"
    return expected, why or f"{issue.id} is assigned to {_who(state, issue.assignee)}"


@explains("linear", "issuePriority")
def _explain_issue_priority(state: LinearState, args: IssuePriority) -> tuple[str, str]:
    issue, why = _issue_or_why(state, args.issue)
    expected = f"{args.issue} at priority {args.priority!r}"
    return expected, why or f"{issue.id} has priority {issue.priority} ({PRIORITY_NAMES[issue.priority]})"


@explains("linear", "issueHasComment")
def _explain_issue_has_comment(state: LinearState, args: IssueHasComment) -> tuple[str, str]:
    by = f" by {args.author}" if args.author is not None else ""
    expected = f"a comment{by} on {args.issue} matching {pattern(args.pattern)}"
    issue, why = _issue_or_why(state, args.issue)
    if issue is None:
        return expected, why
    last = "; ".join(f"{_who(state, c.author)}: {shown(c.body)}" for c in issue.comments[-3:]) or "none"
    return expected, f"{issue.id} has {len(issue.comments)} comments; the last: {last}"


@explains("linear", "issueInCycle")
def _explain_issue_in_cycle(state: LinearState, args: IssueInCycle) -> tuple[str, str]:
    issue, why = _issue_or_why(state, args.issue)
    expected = f"{args.issue} in cycle {args.cycle if args.cycle is not None else 'none'}"
    if issue is None:
        return expected, why
    cycle = state.cycle(issue.cycle) if issue.cycle is not None else None
    held = "no cycle" if issue.cycle is None else (
        f"cycle {issue.cycle}" + (f" (team {cycle.team}, the issue's team {issue.team})" if cycle else " (no such cycle)"))
    return expected, f"{issue.id} is in {held}"
