"""Easy: note on each of a resolved incident's Linear follow-ups which GitHub pull request fixed it.

The incident's service had another incident with the same title and its own fix: the lookalike is the
other incident's pull request in the same repository."""

from __future__ import annotations

from typing import Any

from tasks_catalog.authoring.cross import cases, org, template
from tasks_catalog.authoring.cross._x_t_eng import OWNER, fix_prs, followups, judged_by_case, pr_pattern


def _comment(repo: str, number: int, incident: int) -> str:
    return f"Incident {incident} was fixed by {OWNER}/{repo}#{number} (https://github.com/{OWNER}/{repo}/pull/{number})."


def case_of(seed: int) -> dict[str, Any] | None:
    company, prs, ups = org(seed), fix_prs(seed), followups(seed)
    resolved = [i for i in company.incidents if i.resolved and i.number in prs and len(ups.get(i.number, [])) == 2]
    for incident in reversed(resolved):
        siblings = [i for i in resolved if i.service == incident.service and i.number != incident.number
                    and prs[i.number][0] == prs[incident.number][0]]
        if not siblings:
            continue
        other = min(siblings, key=lambda i: abs(i.number - incident.number))
        repo, number = prs[incident.number]
        wrong = prs[other.number][1]
        issues = [i["id"] for i in ups[incident.number]]
        text = _comment(repo, number, incident.number)
        right = [{"tool": "linear__create_comment", "arguments": {"issueId": i, "body": text}} for i in issues]
        return {
            "incident": incident.number, "repo": repo, "pr": number, "issues": issues, "max_steps": 7,
            "frame": [{"entity": "linear.comment", "change": ["create"], "where": {"issue": i}, "max": 1}
                      for i in issues],
            "success": {"all": [{"linear.issueHasComment": {"issue": i, "pattern": pr_pattern(repo, number)}}
                                for i in issues]},
            "reference": [
                {"tool": "github__search_issues", "arguments": {"query": f"incident {incident.number} is:pr"}},
                {"tool": "linear__list_issues", "arguments": {"query": f"Incident {incident.number}:"}},
                *right],
            "wrong_lookalike": [{"tool": "linear__create_comment", "arguments": {
                "issueId": i, "body": _comment(repo, wrong, incident.number)}} for i in issues],
            "wrong_collateral": [*right, {"tool": "linear__update_issue", "arguments": {
                "id": issues[0], "state": "Canceled" if ups[incident.number][0]["state"] != "Canceled" else "Todo"}}],
            "wrong_one": right[:1],
            "alternative": [
                {"tool": "linear__list_issues", "arguments": {"query": f"Incident {incident.number}"}},
                {"tool": "github__list_pull_requests", "arguments": {"owner": OWNER, "repo": repo, "state": "closed"}},
                *[{"tool": "linear__create_comment", "arguments": {
                    "issueId": i, "body": f"Fixed by PR {number} in {repo}: https://github.com/{OWNER}/{repo}/pull/{number}"}}
                  for i in reversed(issues)]],
        }
    return None


def build() -> dict[str, Any]:
    return template(
        id="x-t-fix-pr-on-followups", version=1, servers=["github", "linear"], difficulty="easy",
        category="standard", case_list=cases(case_of),
        task={
            "goal": ("Incident {{case.incident}} is resolved. On each of its follow-up issues in Linear, leave a "
                     "comment saying which GitHub pull request fixed the incident."),
            "initial_state": {s: {"world": {"generator": s, "version": 2, "seed": "{{case.seed}}", "size": "default"},
                                  "patch": []} for s in ("github", "linear")},
            "available_tools": [
                "github__search_issues", "github__list_pull_requests", "github__get_issue", "github__list_issues",
                "github__add_issue_comment",
                "linear__list_issues", "linear__get_issue", "linear__list_comments", "linear__create_comment",
                "linear__update_issue"],
            **judged_by_case(timeout_s=300),
            "wrong_solutions": [
                {"why": "names the fix of the earlier or later incident of the same service (same title, same repository)",
                 "kind": "lookalike", "calls": "{{case.wrong_lookalike}}"},
                {"why": "comments as asked, then also cancels a follow-up the goal never asked to touch",
                 "kind": "collateral", "calls": "{{case.wrong_collateral}}"},
                {"why": "comments on one follow-up only", "kind": "other", "calls": "{{case.wrong_one}}"},
            ],
            "alternative_solutions": [
                {"why": "finds the pull request in the repository's closed pull requests and comments in "
                        "the other order with other wording", "calls": "{{case.alternative}}"},
            ],
        })
