"""Medium (recovery): bring the incidents' follow-ups in Linear in line with the pull requests opened for
them in GitHub, and tell #sre-oncall which were closed.

The patch plants pull requests for some open follow-ups, each naming its follow-up by identifier and
titled as the follow-up is (without the incident number). The world decides each item: a merged pull
request makes its follow-up Done, an open one In Review, a pull request closed without merging changes
nothing (abandoned work), a merged one for a follow-up already Done changes nothing either. The same
service's other incident has a follow-up of the same title, still open: matching pull requests to
follow-ups by title moves the wrong one. Faults: the first update is unavailable (retry it), the second
comment times out after it was written (look before writing it again).

Version 3 adds the team's earlier work of the same kind (round 11: an opened-only habit), which the goal asks
to follow ("the way we did on the ones we closed before"). Four earlier pull requests, merged between late
January and early March, sit in the same repositories beside the new ones; their follow-ups are Done, each
with our comment giving the pull request's link. What no page says, and only an opened follow-up shows
(``list_issues`` carries no comments): on the follow-ups of a SEV1 or SEV2 incident (the severity is in the
follow-up's description, which ``list_issues`` leaves out too) the comment also names the incident's own fix
pull request (the one titled "... (incident NNNN)" in the same repository); on a SEV3 incident's it does not.
Which two of the four carry it, and their dates, are drawn per case, so the most recent one carries it in
about half the cases. The module asserts per case (:data:`READINGS`, :func:`check_habit`) that every other
reading (always, never, only the severity levels seen, by service, repository, team, priority, before or after
a date) is contradicted by an example or treats every follow-up closed now as the habit does. Every case
closes a follow-up due the incident's fix and one that is not.

Judged by substance: the incident's fix pull request named in any usual way (``pr_pattern``) in the comment on
each follow-up due it, beside the link. Strict point: one comment a follow-up (a second would be the blind
retry the timeout invites), as the goal and the earlier comments have it, so the fix goes in that comment.
Naming the incident's fix on every follow-up closed passes (over-applying is harmless); leaving it out where
it is due fails, as does naming it on the others only."""

from __future__ import annotations

import itertools
import random
import re
from datetime import date, timedelta
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
from tasks_catalog.authoring.cross._x_t_readings import Always, FlaggedSide, FlaggedWhen, left_open

ID = "x-t-followups-from-pull-requests"
OPEN_STATES = ("Backlog", "Todo", "In Progress")
#: How many earlier pull requests (merged, their follow-ups Done with our comment) a case plants, and how many
#: of them name the incident's fix (half: the other two, opened, visibly do not).
EXAMPLES = 4
FLAGGED = (2, 2)
#: How many cases the template keeps (the gate checks every one).
CASES = 10
#: The severities whose follow-ups' closing comment gives the incident's fix (the habit).
DUE = ("SEV1", "SEV2")
#: The days the earlier pull requests may have merged on (the new ones were opened from 9 March).
FIRST_DAY, LAST_DAY = date(2026, 1, 19), date(2026, 3, 6)
#: The day the first of the new pull requests was opened.
NEW_DAY = date(2026, 3, 9)
#: Readings of when the closing comment gives the incident's fix that a careful reader of the earlier follow-ups
#: could form; the habit is "the incident was a SEV1 or SEV2" (the example's ``commented``). The follow-up's
#: incident is no reading: each example is of another incident, and the severity, which the description
#: prints beside it, is what the incidents whose fix is named share.
READINGS = {
    "always": Always(True),
    "never": Always(False),
    "only the severities seen on the commented ones": FlaggedWhen("severity"),
    "by the incident's service": FlaggedWhen("service"),
    "by the repository": FlaggedWhen("repo"),
    "by the follow-up's team": FlaggedWhen("team"),
    "by the follow-up's priority": FlaggedWhen("priority"),
    "since some day (a new practice)": FlaggedSide("day", low=False),
    "until some day (given up since)": FlaggedSide("day", low=True),
}
_SEVERITY = re.compile(r"\(([^,()]+), (SEV\d)\)")


def _title(issue: dict[str, Any]) -> str:
    return re.sub(r"^Incident \d{4}: ", "", issue["title"])


def _link(repo: str, number: int) -> str:
    return f"https://github.com/{OWNER}/{repo}/pull/{number}"


def _facts(issue: dict[str, Any], repo: str, day: int) -> dict[str, Any]:
    """What a reader of one follow-up (an earlier one or one to close) sees that a habit could key on: its
    description's service and severity, its team, priority and assignee, its pull request's repository and
    the day (an ordinal) the pull request merged."""
    m = _SEVERITY.search(issue["description"])
    if m is None:
        raise ValueError(f"{ID}: {issue['id']}'s description names no service and severity")
    return {"id": issue["id"], "service": m.group(1), "severity": m.group(2), "team": issue["id"].split("-")[0],
            "priority": issue["priority"], "assignee": issue["assignee"], "repo": repo, "day": day,
            "commented": m.group(2) in DUE}


def check_habit(examples: list[dict[str, Any]], items: list[dict[str, Any]]) -> None:
    """Raise unless the earlier follow-ups are :data:`EXAMPLES`, those giving the incident's fix :data:`FLAGGED`,
    some follow-up closed now due the incident's fix and some not, and every reading in :data:`READINGS` that fits the
    earlier follow-ups treats every follow-up closed now as the habit does."""
    if len(examples) != EXAMPLES:
        raise ValueError(f"{ID}: {len(examples)} earlier follow-ups, not {EXAMPLES}")
    if not FLAGGED[0] <= sum(x["commented"] for x in examples) <= FLAGGED[1]:
        raise ValueError(f"{ID}: the earlier follow-ups giving the incident's fix are not {FLAGGED[0]}-{FLAGGED[1]}")
    if not any(x["commented"] for x in items) or all(x["commented"] for x in items):
        raise ValueError(f"{ID}: the follow-ups closed now are not some due the incident's fix and some not")
    for name in left_open(READINGS, examples, items, lambda x: x["commented"])[:1]:
        raise ValueError(f"{ID}: the reading {name!r} fits every earlier follow-up and treats one closed now otherwise")


def _fix_note(incident: int, fix: tuple[str, int]) -> str:
    """The sentence our closing comment adds on a SEV1 or SEV2 incident's follow-up: the incident's fix."""
    return f" Incident {incident}'s fix: {OWNER}/{fix[0]}#{fix[1]}."


def _with_fix(call: dict[str, Any], planted: list[dict[str, Any]]) -> dict[str, Any]:
    """The comment call ``call`` with the fix of its follow-up's incident added."""
    p = next(p for p in planted if p["issue"] == call["arguments"]["issueId"])
    return {**call, "arguments": {**call["arguments"], "body": call["arguments"]["body"] + _fix_note(p["incident"], p["fix"])}}


def _earlier(seed: int, items: list[tuple[str, int, dict[str, Any]]], used: set[str], resolved: dict[int, Any],
             prs: dict[int, tuple[str, int]], logins: dict[str, str | None]) -> list[dict[str, Any]] | None:
    """The :data:`EXAMPLES` earlier follow-ups the case plants as merged before and closed (each a follow-up of
    another resolved incident, not cancelled, in a repository the new pull requests are in, none of the new items nor of their titles),
    drawn per case with the 2-3 of a SEV1 or SEV2 incident among them and the days their pull requests merged:
    each with its issue, incident, repository, day, hour and what a reader sees of it. ``None`` when no draw
    passes :func:`check_habit`."""
    repos = {prs[n][0] for _k, n, _i in items}
    titles = {_title(i) for _k, _n, i in items}
    closed = [_facts(i, prs[n][0], NEW_DAY.toordinal()) for k, n, i in items if k == "merged"]
    pool: dict[bool, dict[int, list[dict[str, Any]]]] = {True: {}, False: {}}
    for number, issues in sorted(followups(seed).items()):
        if number not in resolved or prs[number][0] not in repos or resolved[number].resolved[:10] >= (LAST_DAY - timedelta(days=2)).isoformat():
            continue
        for issue in issues:
            if (issue["state"] not in ("Canceled", "Duplicate") and issue["id"] not in used and logins.get(issue["assignee"])
                    and _title(issue) not in titles):
                due = _facts(issue, prs[number][0], 0)["commented"]
                pool[due].setdefault(number, []).append(issue)
    need = {x["severity"] for x in closed if x["commented"]}
    service_of = {n: _facts(us[0], "", 0)["service"] for side in pool.values() for n, us in side.items()}
    shared = sorted({service_of[n] for n in pool[True]} & {service_of[n] for n in pool[False]})
    for draw in range(200):
        rng = random.Random(f"{ID}:{seed}:{draw}")
        flagged = rng.randint(*FLAGGED)
        if len(pool[True]) < flagged or len(pool[False]) < EXAMPLES - flagged:
            return None
        # a due and a not-due incident of one service where the world has one (else the service may decide)
        pair = rng.choice(shared) if shared and rng.random() < 0.8 else None
        yes = [rng.choice([n for n in sorted(pool[True]) if service_of[n] == pair])] if pair else []
        no = [rng.choice([n for n in sorted(pool[False]) if service_of[n] == pair])] if pair else []
        for severity in sorted(need):  # each severity due now seen on an earlier one, where the world has it
            of = [n for n in sorted(pool[True]) if n not in yes and _facts(pool[True][n][0], "", 0)["severity"] == severity]
            if of and not any(_facts(pool[True][n][0], "", 0)["severity"] == severity for n in yes):
                yes.append(rng.choice(of))
        yes += rng.sample([n for n in sorted(pool[True]) if n not in yes], max(0, flagged - len(yes)))
        no += rng.sample([n for n in sorted(pool[False]) if n not in no], EXAMPLES - flagged - len(no))
        if len(yes) != flagged:
            continue
        chosen = [(n, rng.choice(pool[True][n])) for n in yes] + [(n, rng.choice(pool[False][n])) for n in no]
        out: list[dict[str, Any]] = []
        days: set[date] = set()
        for number, issue in chosen:
            first = max(FIRST_DAY, date.fromisoformat(resolved[number].resolved[:10]) + timedelta(days=2))
            span = (LAST_DAY - first).days
            day = first + timedelta(days=rng.randint(0, span))
            if day in days:
                break
            days.add(day)
            repo = prs[number][0]
            out.append({"issue": issue, "incident": number, "repo": repo, "date": day, "hour": rng.randint(9, 17),
                        "facts": _facts(issue, repo, day.toordinal())})
        else:
            try:
                check_habit([ex["facts"] for ex in out], closed)
            except ValueError:
                continue
            return sorted(out, key=lambda ex: ex["date"])
    return None


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
    others = [o for o in (pick(lambda i: i["state"] in OPEN_STATES) for _ in range(4)) if o is not None]
    already = pick(lambda i: i["state"] == "Done")
    if len(others) < 4 or already is None:
        return None
    # which of the four is merged, in review or abandoned: the first way in which the follow-ups closed now
    # include one due the incident's fix and one not (the world's order otherwise)
    due = [_facts(i, "", 0)["commented"] for _n, i in [lookalike, *others]]
    order = next((o for o in itertools.permutations(range(4)) if len({due[0], due[1 + o[0]], due[1 + o[1]]}) == 2),
                 (0, 1, 2, 3))
    merged = [lookalike, *(others[k] for k in order[:2])]
    reviewing, abandoned = others[order[2]], others[order[3]]
    twin = twin_of[lookalike[1]["id"]]
    items = [("merged", n, i) for n, i in merged] + [("open", *reviewing), ("abandoned", *abandoned),
                                                     ("merged-done", *already)]
    earlier = _earlier(seed, items, used, resolved, prs, logins)
    if earlier is None:
        return None

    # the pull requests, numbered after each repository's last one, in the order they were opened: the earlier
    # ones (merged before the new ones were opened) first
    repos = {r["name"]: r for r in world("github", seed)["repos"]}
    next_number = {name: max([i["number"] for i in r["issues"]] + [p["number"] for p in r["pull_requests"]]) + 1
                   for name, r in repos.items()}
    patch, planted = [], []
    linear = world("linear", seed)
    linear_patch: list[dict[str, Any]] = []
    for ex in earlier:
        issue, repo, day = ex["issue"], ex["repo"], ex["date"]
        pr = next_number[repo]
        next_number[repo] += 1
        login = logins[issue["assignee"]]
        merge_sha = commit_sha(repo, str(pr), issue["id"])
        patch.append({"op": "add", "in": ["repos", f"{OWNER}/{repo}", "pull_requests"], "value": {
            "number": pr, "title": _title(issue), "body": f"Implements {issue['id']}, a follow-up of incident "
            f"{ex['incident']}. Tested on staging.", "head": f"{login}/{issue['id'].lower()}", "base": "main",
            "state": "closed", "merged": True, "merge_commit_sha": merge_sha, "author": login, "labels": [],
            "created_at": f"{(day - timedelta(days=1)).isoformat()}T{10 + ex['hour'] % 6:02d}:40:00Z"}})
        body = (f"Pull request {OWNER}/{repo}#{pr} is merged: {_link(repo, pr)}"
                + (_fix_note(ex["incident"], prs[ex["incident"]]) if ex["facts"]["commented"] else ""))
        note = {"id": f"{issue['id']}-merged", "author": linear["viewer"], "body": body,
                   "created_at": f"{day.isoformat()}T{ex['hour']:02d}:{(7 * ex['hour']) % 60:02d}:00Z"}
        comments = sorted([*issue["comments"], note], key=lambda c: c["created_at"])
        linear_patch.append({"op": "update", "in": ["issues"], "id": issue["id"],
                             "fields": {"state": "Done", "comments": comments}})
    for k, (kind, number, issue) in enumerate(items):
        repo = prs[number][0]
        pr = next_number[repo]
        next_number[repo] += 1
        login = logins[issue["assignee"]]
        body = (f"Implements {issue['id']}, a follow-up of incident {number}. "
                + ("Superseded by the alerting rework; closing without merging." if kind == "abandoned" else
                   "Ready for review." if kind == "open" else "Tested on staging."))
        sha = commit_sha(repo, str(pr), issue["id"]) if kind.startswith("merged") else None
        value = {"number": pr, "title": _title(issue), "body": body, "head": f"{login}/{issue['id'].lower()}",
                 "base": "main", "state": "open" if kind == "open" else "closed", "merged": kind.startswith("merged"),
                 "merge_commit_sha": sha,
                 "author": login, "labels": [], "created_at": f"2026-03-{9 + k // 2:02d}T{10 + 3 * (k % 2) + k:02d}:20:00Z"}
        patch.append({"op": "add", "in": ["repos", f"{OWNER}/{repo}", "pull_requests"], "value": value})
        planted.append({"kind": kind, "incident": number, "issue": issue["id"], "repo": repo, "pr": pr, "fix": prs[number],
                        "due": kind == "merged" and _facts(issue, repo, 0)["commented"]})

    sre = slack_channel(seed, "sre-oncall")["id"]
    moved = [p for p in planted if p["kind"] in ("merged", "open")]
    done = [p for p in planted if p["kind"] == "merged"]

    def comment(p: dict[str, Any]) -> str:
        verb = "merged" if p["kind"] == "merged" else "open for review"
        fix = _fix_note(p["incident"], p["fix"]) if p["due"] else ""
        return f"Pull request {OWNER}/{p['repo']}#{p['pr']} is {verb}: {_link(p['repo'], p['pr'])}{fix}"

    def bare(w: dict[str, Any]) -> dict[str, Any]:
        """A comment call without the incident's fix the habit gives."""
        if w["tool"] != "linear__create_comment":
            return w
        return {**w, "arguments": {**w["arguments"], "body": re.sub(r" Incident \d+'s fix: \S+\.$", "", w["arguments"]["body"])}}

    summary = ("Incident follow-ups closed after their pull requests merged: "
               + ", ".join(f"{p['issue']} ({OWNER}/{p['repo']}#{p['pr']})" for p in done) + ". "
               + f"{moved[-1]['issue']} is In Review.")
    reads = [{"tool": "github__search_issues", "arguments": {"query": "is:pr follow-up", "perPage": 100}}]
    reads += [{"tool": "github__list_pull_requests", "arguments": {"owner": OWNER, "repo": repo, "state": "all",
                                                                   "perPage": 100}}
              for repo in sorted({p["repo"] for p in planted} | {ex["repo"] for ex in earlier})]
    reads += [{"tool": "linear__get_issue", "arguments": {"id": p["issue"]}} for p in planted if p["kind"] != "abandoned"]
    reads += [{"tool": "linear__get_issue", "arguments": {"id": ex["issue"]["id"]}}
              for ex in sorted(earlier, key=lambda ex: ex["date"], reverse=True)]
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
        if p["due"]:
            success.append({"linear.issueHasComment": {"issue": p["issue"], "pattern": pr_pattern(*p["fix"])}})
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
    due = [p for p in done if p["due"]]
    not_due = [p for p in done if not p["due"]]
    swapped = [bare(w) if w["tool"] == "linear__create_comment" and w["arguments"]["issueId"] in {p["issue"] for p in due}
               else _with_fix(w, not_due)
               if w["tool"] == "linear__create_comment" and w["arguments"]["issueId"] in {p["issue"] for p in not_due}
               else w for w in right_writes]
    return {
        "facts": {"earlier": [ex["facts"] for ex in earlier],
                  "closed": [_facts(i, prs[n][0], NEW_DAY.toordinal()) for kind, n, i in items if kind == "merged"]},
        "patch": {"github": patch, "linear": linear_patch},
        "max_steps": max_steps,
        "frame": frame,
        "success": {"all": success},
        "reference": reference,
        "wrong_lookalike": lookalike_writes,
        "wrong_collateral": [*right_writes,
                             {"tool": "linear__update_issue", "arguments": {"id": abandoned_p["issue"], "state": "Done"}}],
        "wrong_blind_retry": blind_calls,
        "wrong_all_done": all_done,
        "wrong_no_habit": [bare(w) for w in right_writes],
        "wrong_swapped": swapped,
        "alternative": [*reads[::-1], *[w for w in writes if w["tool"].startswith("slack__")][:1],
                        *[c for p in moved for c in (
                            {"tool": "linear__create_comment", "arguments": {
                                "issueId": p["issue"], "body": f"Tracked in {_link(p['repo'], p['pr'])}"
                                + (f" (incident {p['incident']}, fixed in {_link(*p['fix'])})" if p["kind"] == "merged" else "")}},
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
        id=ID, version=3, servers=["github", "linear", "slack"], difficulty="medium",
        category="recovery", case_list=cases(case_of, want=CASES),
        task={
            "goal": ("Engineers have been opening pull requests for our incident follow-ups without touching "
                     "Linear. Bring the follow-ups in Linear in line with GitHub: a follow-up whose pull request "
                     "has been merged is Done, one whose pull request is open for review is In Review. Comment "
                     "the pull request's link on each follow-up you move, the way we did on the ones we closed "
                     "before, then post in #sre-oncall which follow-ups you closed."),
            "initial_state": initial_state(["github", "linear", "slack"], {"github": "{{case.patch.github}}",
                                                                           "linear": "{{case.patch.linear}}"}),
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
                {"why": "comments only the pull request's link, as a sampler of the earlier follow-ups would, leaving "
                        "out the incident's fix pull request the earlier comments give on a SEV1 or SEV2 incident's "
                        "follow-up",
                 "kind": "other", "calls": "{{case.wrong_no_habit}}"},
                {"why": "gives the incident's fix on the SEV3 incidents' follow-ups closed now instead of the SEV1 or "
                        "SEV2 ones'", "kind": "other", "calls": "{{case.wrong_swapped}}"},
            ],
            "alternative_solutions": [
                {"why": "reads in another order, finds the channel first, comments before moving each follow-up, "
                        "links the incident's fix on every follow-up it closes (more than the earlier comments "
                        "did), notes the link on the follow-ups it leaves as they are too, and checks the first two "
                        "comments", "calls": "{{case.alternative}}"},
            ],
        })
