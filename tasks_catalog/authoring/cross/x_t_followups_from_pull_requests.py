"""Hard (recovery): bring the incidents' follow-ups in Linear in line with the pull requests opened for
them in GitHub, and tell #sre-oncall which were closed.

The patch plants pull requests for some open follow-ups, each naming its follow-up by identifier and
titled as the follow-up is (without the incident number). The world decides each item: a merged pull
request makes its follow-up Done, an open one In Review, a pull request closed without merging changes
nothing (abandoned work), a merged one for a follow-up already Done changes nothing either. The same
service's other incident has a follow-up of the same title, still open: matching pull requests to
follow-ups by title moves the wrong one. Faults: the first update is unavailable (retry it), the second
comment times out after it was written (look before writing it again)."""

from __future__ import annotations

import re
from typing import Any

from servers.github.state import commit_sha
from tasks_catalog.authoring.cross import budget, cases, org, template, world
from tasks_catalog.authoring.cross._x_t_eng import (
    OWNER,
    fix_prs,
    followups,
    initial_state,
    judged_by_case,
    pr_pattern,
    slack_channel,
)

OPEN_STATES = ("Backlog", "Todo", "In Progress")


def _title(issue: dict[str, Any]) -> str:
    return re.sub(r"^Incident \d{4}: ", "", issue["title"])


def _link(repo: str, number: int) -> str:
    return f"https://github.com/{OWNER}/{repo}/pull/{number}"


def case_of(seed: int) -> dict[str, Any] | None:  # noqa: C901, PLR0915 - picks each kind of item in turn, then its calls
    company = org(seed)
    prs, ups = fix_prs(seed), followups(seed)
    logins = {e.linear_id: e.github_login for e in company.employees}
    resolved = {i.number: i for i in company.incidents if i.resolved and i.number in prs}
    # follow-ups of resolved incidents, whose title another incident of the same service shares
    by_title: dict[tuple[str, str], list[tuple[int, dict[str, Any]]]] = {}
    for number, issues in ups.items():
        if number not in resolved:
            continue
        for issue in issues:
            by_title.setdefault((resolved[number].service, _title(issue)), []).append((number, issue))
    used: set[str] = set()
    twin_of: dict[str, dict[str, Any]] = {}

    def pick(want, twin_open: bool = False) -> tuple[int, dict[str, Any]] | None:
        for (_service, _t), group in sorted(by_title.items()):
            if len(group) < 2:
                continue
            for number, issue in sorted(group, key=lambda g: -g[0]):
                twins = [i for n, i in group if n != number]
                if issue["id"] in used or not want(issue) or not logins.get(issue["assignee"]):
                    continue
                open_twins = [t for t in twins if t["state"] in OPEN_STATES and t["id"] not in used]
                if twin_open and not open_twins:
                    continue
                used.add(issue["id"])
                if twin_open:
                    used.add(open_twins[0]["id"])  # kept aside: the lookalike, left untouched
                    twin_of[issue["id"]] = open_twins[0]
                return number, issue
        return None

    lookalike = pick(lambda i: i["state"] in OPEN_STATES, twin_open=True)
    if lookalike is None:
        return None
    merged = [lookalike]
    for _ in range(2):
        item = pick(lambda i: i["state"] in OPEN_STATES)
        if item is None:
            return None
        merged.append(item)
    reviewing = pick(lambda i: i["state"] in OPEN_STATES)
    abandoned = pick(lambda i: i["state"] in OPEN_STATES)
    already = pick(lambda i: i["state"] == "Done")
    if reviewing is None or abandoned is None or already is None:
        return None
    twin = twin_of[lookalike[1]["id"]]

    # the pull requests, numbered after each repository's last one, in the order they were opened
    repos = {r["name"]: r for r in world("github", seed)["repos"]}
    next_number = {name: max([i["number"] for i in r["issues"]] + [p["number"] for p in r["pull_requests"]]) + 1
                   for name, r in repos.items()}
    items = [("merged", n, i) for n, i in merged] + [("open", *reviewing), ("abandoned", *abandoned),
                                                     ("merged-done", *already)]
    patch, planted = [], []
    for k, (kind, number, issue) in enumerate(items):
        repo = prs[number][0]
        pr = next_number[repo]
        next_number[repo] += 1
        login = logins[issue["assignee"]]
        body = (f"Implements {issue['id']}, a follow-up of incident {number}. "
                + ("Superseded by the alerting rework; closing without merging." if kind == "abandoned" else
                   "Ready for review." if kind == "open" else "Tested on staging."))
        value = {"number": pr, "title": _title(issue), "body": body, "head": f"{login}/{issue['id'].lower()}",
                 "base": "main", "state": "open" if kind == "open" else "closed", "merged": kind.startswith("merged"),
                 "merge_commit_sha": commit_sha(repo, str(pr), issue["id"]) if kind.startswith("merged") else None,
                 "author": login, "labels": [], "created_at": f"2026-03-{9 + k // 2:02d}T{10 + 3 * (k % 2) + k:02d}:20:00Z"}
        patch.append({"op": "add", "in": ["repos", f"{OWNER}/{repo}", "pull_requests"], "value": value})
        planted.append({"kind": kind, "incident": number, "issue": issue["id"], "repo": repo, "pr": pr})

    sre = slack_channel(seed, "sre-oncall")["id"]
    moved = [p for p in planted if p["kind"] in ("merged", "open")]
    done = [p for p in planted if p["kind"] == "merged"]

    def comment(p: dict[str, Any]) -> str:
        verb = "merged" if p["kind"] == "merged" else "open for review"
        return f"Pull request {OWNER}/{p['repo']}#{p['pr']} is {verb}: {_link(p['repo'], p['pr'])}"

    summary = ("Incident follow-ups closed after their pull requests merged: "
               + ", ".join(f"{p['issue']} ({OWNER}/{p['repo']}#{p['pr']})" for p in done) + ". "
               + f"{moved[-1]['issue']} is In Review.")
    reads = [{"tool": "github__search_issues", "arguments": {"query": "is:pr follow-up", "perPage": 100}}]
    reads += [{"tool": "github__list_pull_requests", "arguments": {"owner": OWNER, "repo": repo, "state": "all",
                                                                   "perPage": 100}}
              for repo in sorted({p["repo"] for p in planted})]
    reads += [{"tool": "linear__get_issue", "arguments": {"id": p["issue"]}} for p in planted]
    writes: list[dict[str, Any]] = []
    for k, p in enumerate(moved):
        state = "Done" if p["kind"] == "merged" else "In Review"
        writes.append({"tool": "linear__update_issue", "arguments": {"id": p["issue"], "state": state}})
        writes.append({"tool": "linear__create_comment", "arguments": {"issueId": p["issue"], "body": comment(p)}})
        if k == 1:  # the second comment times out after it was written: look before anything else
            writes.append({"tool": "linear__list_comments", "arguments": {"issueId": p["issue"]}})
    writes += [{"tool": "slack__list_channels", "arguments": {"limit": 100}},
               {"tool": "slack__post_message", "arguments": {"channel_id": sre, "text": summary}}]
    reference = reads + writes
    calls = len(reference)
    max_steps = budget(calls, 1)  # the unavailable first update is retried once

    frame: list[dict[str, Any]] = []
    success: list[dict[str, Any]] = []
    for p in moved:
        state = "Done" if p["kind"] == "merged" else "In Review"
        frame.append({"entity": "linear.issue", "ids": [p["issue"]], "fields": ["state"],
                      "values": {"state": {"eq": state}}})
        frame.append({"entity": "linear.comment", "change": ["create"], "where": {"issue": p["issue"]}, "max": 1})
        success.append({"linear.issueState": {"issue": p["issue"], "state": state}})
        success.append({"linear.issueHasComment": {"issue": p["issue"], "pattern": pr_pattern(p["repo"], p["pr"])}})
    already_p = next(p for p in planted if p["kind"] == "merged-done")
    abandoned_p = next(p for p in planted if p["kind"] == "abandoned")
    # a note on the follow-ups left as they were (already Done, or their pull request abandoned): not asked, harmless
    frame.append({"entity": "linear.comment", "change": ["create"], "where": {"issue": already_p["issue"]}, "max": 1})
    frame.append({"entity": "linear.comment", "change": ["create"], "where": {"issue": abandoned_p["issue"]}, "max": 1})
    frame.append({"entity": "slack.message", "change": ["create"], "where": {"channel": sre}, "max": 1})
    success += [{"slack.messagePosted": {"channel": sre, "pattern": p["issue"]}} for p in done]

    first = moved[0]
    right_writes = [w for w in writes if w["tool"] != "linear__list_comments"]
    lookalike_writes = [
        {"tool": "linear__update_issue", "arguments": {"id": twin["id"], "state": "Done"}},
        {"tool": "linear__create_comment", "arguments": {"issueId": twin["id"], "body": comment(first)}},
        *[w for w in right_writes if w["arguments"].get("id", w["arguments"].get("issueId")) != first["issue"]]]
    blind = []
    for k, w in enumerate([w for w in right_writes if w["tool"] == "linear__create_comment"]):
        blind.append(w)
        if k == 1:
            blind.append(w)
    blind_calls = [w for w in right_writes if w["tool"] != "linear__create_comment"] + blind
    all_done = [{"tool": "linear__update_issue", "arguments": {"id": w["arguments"]["id"], "state": "Done"}}
                if w["tool"] == "linear__update_issue" else w for w in right_writes]
    return {
        "patch": patch,
        "max_steps": max_steps,
        "frame": frame,
        "success": {"all": success},
        "reference": reference,
        "wrong_lookalike": lookalike_writes,
        "wrong_collateral": [*right_writes,
                             {"tool": "linear__update_issue", "arguments": {"id": abandoned_p["issue"], "state": "Done"}}],
        "wrong_blind_retry": blind_calls,
        "wrong_all_done": all_done,
        "alternative": [*reads[::-1], *[w for w in writes if w["tool"].startswith("slack__")][:1],
                        *[c for p in moved for c in (
                            {"tool": "linear__create_comment", "arguments": {
                                "issueId": p["issue"], "body": f"Tracked in {_link(p['repo'], p['pr'])}"}},
                            {"tool": "linear__update_issue", "arguments": {
                                "id": p["issue"], "state": "Done" if p["kind"] == "merged" else "In Review"}})],
                        {"tool": "linear__create_comment", "arguments": {
                            "issueId": already_p["issue"], "body": f"Merged: {_link(already_p['repo'], already_p['pr'])}"}},
                        {"tool": "linear__create_comment", "arguments": {
                            "issueId": abandoned_p["issue"],
                            "body": f"Left as it is: {_link(abandoned_p['repo'], abandoned_p['pr'])} was closed without merging."}},
                        {"tool": "linear__list_comments", "arguments": {"issueId": moved[0]["issue"]}},
                        {"tool": "linear__list_comments", "arguments": {"issueId": moved[1]["issue"]}},
                        {"tool": "slack__post_message", "arguments": {"channel_id": sre, "text": summary}}],
    }


def build() -> dict[str, Any]:
    return template(
        id="x-t-followups-from-pull-requests", version=2, servers=["github", "linear", "slack"], difficulty="medium",
        category="recovery", case_list=cases(case_of),
        task={
            "goal": ("Engineers have been opening pull requests for our incident follow-ups without touching "
                     "Linear. Bring the follow-ups in Linear in line with GitHub: a follow-up whose pull request "
                     "has been merged is Done, one whose pull request is open for review is In Review. Comment "
                     "the pull request's link on each follow-up you move, then post in #sre-oncall which "
                     "follow-ups you closed."),
            "initial_state": initial_state(["github", "linear", "slack"], {"github": "{{case.patch}}"}),
            "available_tools": [
                "github__search_issues", "github__list_pull_requests", "github__list_issues", "github__get_issue",
                "github__list_branches", "github__add_issue_comment", "github__update_issue",
                "linear__list_issues", "linear__get_issue", "linear__list_comments", "linear__list_teams",
                "linear__list_issue_statuses", "linear__update_issue", "linear__create_comment",
                "slack__list_channels", "slack__get_channel_history", "slack__post_message",
                "slack__reply_to_thread"],
            "faults": [{"tool": "linear__update_issue", "kind": "unavailable", "on_call": 1},
                       {"tool": "linear__create_comment", "kind": "timeout_after_commit", "on_call": 2}],
            **judged_by_case(timeout_s=900),
            "wrong_solutions": [
                {"why": "matches a pull request to its follow-up by title and moves the other incident's follow-up "
                        "of the same name", "kind": "lookalike", "calls": "{{case.wrong_lookalike}}"},
                {"why": "does what is asked, then also closes the follow-up whose pull request was closed without "
                        "merging", "kind": "collateral", "calls": "{{case.wrong_collateral}}"},
                {"why": "writes the second comment again after its timeout, though it had been written",
                 "kind": "other", "calls": "{{case.wrong_blind_retry}}"},
                {"why": "marks every follow-up with a pull request Done, the one still in review too",
                 "kind": "other", "calls": "{{case.wrong_all_done}}"},
            ],
            "alternative_solutions": [
                {"why": "reads in another order, finds the channel first, comments before moving each follow-up, "
                        "notes the link on the follow-ups it leaves as they are too, and checks the first two comments", "calls": "{{case.alternative}}"},
            ],
        })
