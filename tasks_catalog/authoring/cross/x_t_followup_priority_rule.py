"""Medium: apply the head of Platform's rule, posted in #sre-oncall, on how urgent incident follow-ups
are, to the follow-ups of this year's incidents in Linear, the way the same person handled last year's.

The rule (planted: one message, its author added to the channel) says SEV1 follow-ups are Urgent and
SEV2 ones High, SEV3 ones keep their priority, and only follow-ups nobody has picked up (Backlog or Todo)
change. The world decides each follow-up: its incident's date and severity (in its description), its
state, its priority now. The lookalike is last year's follow-up of the same title (version 2: or, where none
is, another of last year's the December note leaves out).

Version 2 adds the way the rule's author moved last year's follow-ups up at the end of December (round 10:
an opened-only convention), which the goal asks to follow. A note in #sre-oncall of 30 December 2025 names the
6-8 follow-ups moved up then (the unpicked follow-ups of last year's SEV1 and SEV2 incidents but the lookalike,
the earliest SEV2 ones left out when they are too many, and those :func:`_plant` adds on those incidents; now
Urgent and High in Linear). What no page says, and only an opened follow-up
shows (``list_issues`` carries no comments): on each follow-up made Urgent (a SEV1's) the author left a
comment telling its assignee so ("Dana, I've made this Urgent: incident 2030 was a SEV1 ..."); the High
ones, opened, carry none of hers. So this year's follow-ups raised to Urgent are due such a comment; the
ones raised to High are not. The module asserts per case (:data:`READINGS`, :func:`check_habit`) that every
other reading (always, never, by team, assignee, state, service, title, whether the follow-up is assigned)
is contradicted by an example or treats every follow-up to raise as the habit does. Commenting on every
follow-up it changes passes (over-applying is harmless), as does a note in #sre-oncall as the December one;
raising without the due comment fails, as does the comment on a High follow-up instead."""

from __future__ import annotations

import calendar
import re
from datetime import UTC, datetime
from typing import Any

from tasks_catalog.authoring.cross import budget, cases, org, template, world
from tasks_catalog.authoring.cross._x_t_eng import followups, initial_state, judged_by_case, slack_world_channel
from tasks_catalog.authoring.cross._x_t_readings import Always, FlaggedWhen, left_open
from tasks_catalog.stats import calls_of

ID = "x-t-followup-priority-rule"
YEAR_START = "2026-01-01"
TARGET = {"SEV1": 1, "SEV2": 2}
NAMES = {1: "Urgent", 2: "High"}
UNPICKED = ("Backlog", "Todo")
#: Sunday 15 March 2026, 18:20 UTC: "yesterday" on Monday the 16th, after the channel's last message.
POSTED = calendar.timegm(datetime(2026, 3, 15, 18, 20).timetuple())
#: Tuesday 30 December 2025, 10:05 UTC: the note on last year's follow-ups moved up before the new year.
NOTED = calendar.timegm(datetime(2025, 12, 30, 10, 5).timetuple())
RULE = ("From today incident follow-ups are prioritised by the incident's severity: follow-ups of SEV1 incidents "
        "are Urgent and those of SEV2 incidents High; SEV3 follow-ups keep the priority their owner gave them. "
        "Only follow-ups nobody has picked up yet (Backlog or Todo) change: leave the ones in progress, in review "
        "or closed as they are.")
#: How many of last year's follow-ups the December note names (the examples), and how many of them carry the
#: author's comment (a minority).
EXAMPLES = (6, 8)
FLAGGED = (2, 3)
#: Readings of when the author comments on a follow-up moved up that a careful reader of the examples could
#: form; the habit is "the follow-up was made Urgent (its incident a SEV1)" (the example's ``commented``). The
#: incident's service is no reading here: last year has one SEV1 incident in most worlds, so its service and its
#: severity go together in the examples, and the author's comment says which decides ("incident 2030 was a
#: SEV1, so its follow-ups come first").
READINGS = {
    "always": Always(True),
    "never": Always(False),
    "by the follow-up's team": FlaggedWhen("team"),
    "by the assignee (whoever was told before)": FlaggedWhen("assignee"),
    "by the follow-up's state": FlaggedWhen("state"),
    "when the follow-up is assigned": FlaggedWhen("assigned"),
}
#: Follow-ups the case plants on last year's incidents (the incident's service filled in).
PLANTED_TITLES = ["Write a runbook entry for {} failover", "Review the {} alert thresholds",
                  "Add a game-day scenario for {}"]
_SERVICE = re.compile(r"\(([^,()]+), SEV\d\)")


def _facts(issue: dict[str, Any], severity: str, users: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """What a reader of one follow-up (an example or one to raise) can see that a habit could key on."""
    who = users.get(issue["assignee"] or "")
    service = _SERVICE.search(issue["description"])
    return {"id": issue["id"], "team": issue["id"].split("-")[0], "assignee": who["name"] if who else None,
            "assigned": who is not None, "state": issue["state"], "service": service.group(1) if service else None,
            "title": issue["title"][14:], "severity": severity, "commented": severity == "SEV1"}


def check_habit(examples: list[dict[str, Any]], items: list[dict[str, Any]]) -> None:
    """Raise unless the examples are as many as :data:`EXAMPLES` says, the commented ones a minority
    (:data:`FLAGGED`), some follow-up to raise due the comment and some not, and every reading in
    :data:`READINGS` that fits the examples treats every follow-up to raise as the habit does."""
    if not EXAMPLES[0] <= len(examples) <= EXAMPLES[1]:
        raise ValueError(f"{ID}: {len(examples)} examples, not {EXAMPLES[0]}-{EXAMPLES[1]}")
    if not FLAGGED[0] <= sum(x["commented"] for x in examples) <= FLAGGED[1]:
        raise ValueError(f"{ID}: the commented examples are not {FLAGGED[0]}-{FLAGGED[1]}")
    if not any(x["commented"] for x in items) or all(x["commented"] for x in items):
        raise ValueError(f"{ID}: the follow-ups to raise are not some due the comment and some not")
    for name in left_open(READINGS, examples, items, lambda x: x["commented"])[:1]:
        raise ValueError(f"{ID}: the reading {name!r} fits every example and treats a follow-up otherwise")


def _plant(seed: int, numbers: list[int], items: list[dict[str, Any]], incidents: dict[int, Any],
           users: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Follow-ups the author moved up in December that the case plants beside the world's, so that the examples
    tell the habit apart: for each follow-up to raise, one of a last-year incident of the same severity (the
    same service where one is) with its team, assignee and state; a SEV1 one is commented, a SEV2 one not."""
    linear = world("linear", seed)
    ups = followups(seed)
    service_of = {n: (_SERVICE.search(us[0]["description"]) or [None, None])[1] for n, us in ups.items()}
    top = {t: max(int(i["id"].split("-")[1]) for i in linear["issues"] if i["id"].startswith(f"{t}-"))
           for t in {i["id"].split("-")[0] for i in linear["issues"]}}
    by_name = {u["name"]: u["id"] for u in users.values()}
    planted: list[dict[str, Any]] = []
    done: set[tuple[Any, ...]] = set()
    for x in items:
        key = (x["severity"], x["team"], x["assignee"], x["state"], x["service"])
        if key in done:
            continue
        done.add(key)
        same = [n for n in numbers if incidents[n].severity == x["severity"]]
        if not same:
            continue  # no such incident last year: the examples decide without this one
        n = next((n for n in same if service_of[n] == x["service"]), same[-1])
        taken = {u["title"][14:] for u in ups[n]} | {p["title"][14:] for p in planted if p["number"] == n}
        title = next((t.format(service_of[n]) for t in PLANTED_TITLES if t.format(service_of[n]) not in taken), None)
        if title is None:
            return []
        base = ups[n][0]
        top[x["team"]] += 1
        planted.append({**base, "id": f"{x['team']}-{top[x['team']]}",
                        "title": f"Incident {n}: {title}", "state": x["state"], "assignee": by_name[x["assignee"]],
                        "comments": [], "number": n, "priority": TARGET[x["severity"]], "cycle": None, "project": None})
    return planted


def _examples(seed: int, skip: str, users: dict[str, dict[str, Any]], items: list[dict[str, Any]]
              ) -> tuple[list[int], list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]] | None:
    """The last-year incidents (SEV1 or SEV2, begun and resolved before the December note, not ``skip``, the
    lookalike's) whose unpicked follow-ups (but ``skip``, the lookalike) the author moved up, those follow-ups (the world's and those
    :func:`_plant` adds), what a reader sees of each, and the planted ones: ``None`` unless they pass
    :func:`check_habit`."""
    incidents = {i.number: i for i in org(seed).incidents}
    noted = datetime.fromtimestamp(NOTED, tz=UTC).strftime("%Y-%m-%dT%H:%M")
    ups = followups(seed)
    numbers = [n for n in sorted(ups) if incidents[n].severity in TARGET
               and incidents[n].started < YEAR_START and (incidents[n].resolved or "9999") < noted]
    issues = [{**u, "number": n} for n in numbers for u in ups[n] if u["state"] in UNPICKED and u["id"] != skip]
    wanted = list(items)
    flagged = [x for x in items if x["commented"]]
    sev1 = sum(incidents[u["number"]].severity == "SEV1" for u in issues)
    # a High one of a due follow-up's assignee and team, in another state, while the examples are too few
    kinds = len({(x["severity"], x["team"], x["assignee"], x["state"], x["service"]) for x in items})
    for k in range(max(0, EXAMPLES[0] - len(issues) - kinds)):
        x = flagged[k % len(flagged)] if flagged else items[0]
        wanted.append({**x, "severity": "SEV2", "commented": False,
                       "state": UNPICKED[(UNPICKED.index(x["state"]) + 1 + k) % 2] if x["state"] in UNPICKED else "Todo"})
    if sev1 + len({(x["team"], x["assignee"], x["state"], x["service"]) for x in flagged}) < FLAGGED[0]:
        other = next((x for x in items if not x["commented"]), None)
        if other is not None:
            wanted.append({**other, "severity": "SEV1", "commented": True})
    planted = _plant(seed, numbers, wanted, incidents, users)
    if not planted:
        return None
    hosts = {p["number"] for p in planted}
    for n in list(numbers):  # the note names no more follow-ups than the examples may be: the earliest SEV2 go
        if len(issues) + len(planted) <= EXAMPLES[1]:
            break
        if n not in hosts and incidents[n].severity == "SEV2":
            issues = [u for u in issues if u["number"] != n]
    issues += planted
    numbers = sorted({u["number"] for u in issues})
    number_of = {u["id"]: n for n in numbers for u in ups[n]} | {p["id"]: p["number"] for p in planted}
    issues.sort(key=lambda u: (number_of[u["id"]], u["id"]))
    facts = [_facts(u, incidents[number_of[u["id"]]].severity, users) for u in issues]
    if any(f["commented"] and not f["assigned"] for f in facts):
        return None
    try:
        check_habit(facts, items)
    except ValueError:
        return None
    return numbers, issues, facts, planted


def _first(name: str | None) -> str:
    return name.split()[0] if name else ""


def _comment_body(first: str, number: int, verb: str) -> str:
    return (f"{first}, I've {verb} this Urgent: incident {number} was a SEV1, so its follow-ups come first. "
            "Please plan it into your next cycle.")


def case_of(seed: int) -> dict[str, Any] | None:  # noqa: C901, PLR0912, PLR0915 - one world's whole case, read in order
    company = org(seed)
    ups = followups(seed)
    incidents = {i.number: i for i in company.incidents}
    if any(i.started < YEAR_START <= (i.resolved or "9999") for i in company.incidents):
        return None  # an incident across the new year: "this year's" would be arguable
    change: list[Any] = []
    kept: list[Any] = []
    excluded: list[Any] = []
    lookalikes: list[Any] = []
    for number, issues in sorted(ups.items()):
        incident = incidents[number]
        for issue in issues:
            this_year = incident.started >= YEAR_START
            target = TARGET.get(incident.severity)
            if this_year and target and issue["state"] in UNPICKED:
                (kept if issue["priority"] == target else change).append({"issue": issue["id"], "priority": target,
                                                                          "title": issue["title"][14:], "raw": issue,
                                                                          "number": number})
            elif this_year:
                excluded.append(issue)
            elif target and issue["state"] in UNPICKED and issue["priority"] != target:
                lookalikes.append((issue, target, number))
    if not 2 <= len(change) <= 7 or not excluded:
        return None
    # the lookalike: last year's unpicked follow-up of a title to raise, else of any title (one the note leaves out)
    twin: Any = next(((i, t, n) for i, t, n in lookalikes for c in change if i["title"][14:] == c["title"]),
                     lookalikes[-1] if lookalikes else None)
    if twin is None:
        return None
    author = company.employee(company.policy("on-call").owner)
    channel = slack_world_channel(seed, "sre-oncall")
    if channel is None or max(float(m["ts"]) for m in channel["messages"]) >= POSTED:
        return None
    if min(float(m["ts"]) for m in channel["messages"]) <= NOTED or len(channel["messages"]) > 98:
        return None  # the December note must be the channel's oldest message, and the history one page of 100
    linear = world("linear", seed)
    users = {u["id"]: u for u in linear["users"]}
    writer = next((u for u in linear["users"] if u["email"] == author.email and u["active"]), None)
    if writer is None or writer["id"] == linear["viewer"]:
        return None
    items = [_facts(c["raw"], incidents[c["number"]].severity, users) for c in change]
    if any(x["commented"] and not x["assigned"] for x in items):
        return None
    chosen = _examples(seed, twin[0]["id"], users, items)
    if chosen is None:
        return None
    numbers, examples, facts, planted = chosen
    check_habit(facts, items)
    if any(c["author"] == linear["viewer"] for c in change for c in c["raw"]["comments"]):
        return None  # the due comment is judged by its author: none of the agent's may be there already
    if any(k["author"] == writer["id"] for u, f in zip(examples, facts) if not f["commented"] for k in u["comments"]):
        return None  # the High examples, opened, must carry no comment of the author's
    sre = channel["id"]
    members = channel["members"] if author.slack_id in channel["members"] else [*channel["members"], author.slack_id]
    ids = ", ".join(u["id"] for u in examples)
    note = (f"Before the new year I've moved up these follow-ups of last quarter's incidents by severity (SEV1 "
            f"Urgent, SEV2 High): {ids}.")
    slack_patch = [{"op": "update", "in": ["channels"], "id": sre, "fields": {"members": members}},
                   {"op": "add", "in": ["channels", sre, "messages"],
                    "value": {"ts": f"{NOTED}.000100", "user": author.slack_id, "text": note}},
                   {"op": "add", "in": ["channels", sre, "messages"],
                    "value": {"ts": f"{POSTED}.000100", "user": author.slack_id, "text": RULE}}]
    linear_patch: list[dict[str, Any]] = []
    by_id = {f["id"]: f for f in facts}
    number_of = {u["id"]: n for n in numbers for u in ups[n]} | {p["id"]: p["number"] for p in planted}
    new_ids = {p["id"] for p in planted}
    for u in examples:
        f = by_id[u["id"]]
        comment = {"id": f"{u['id']}-c{len(u['comments']) + 1}", "author": writer["id"],
                   "body": _comment_body(_first(f["assignee"]), number_of[u["id"]], "made"),
                   "created_at": "2025-12-30T09:50:00Z"}
        if u["id"] in new_ids:
            value = {k: v for k, v in u.items() if k != "number"}
            value["comments"] = [comment] if f["commented"] else []
            linear_patch.append({"op": "add", "in": ["issues"], "value": value})
            continue
        linear_patch.append({"op": "update", "in": ["issues"], "id": u["id"],
                             "fields": {"priority": TARGET[f["severity"]]}})
        if f["commented"]:
            linear_patch.append({"op": "add", "in": ["issues", u["id"], "comments"], "value": comment})
    writes: list[dict[str, Any]] = [{"tool": "linear__update_issue", "arguments": {"id": c["issue"], "priority": c["priority"]}} for c in change]
    due = [(c, x) for c, x in zip(change, items) if x["commented"]]
    comments: list[dict[str, Any]] = [{"tool": "linear__create_comment", "arguments": {
        "issueId": c["issue"], "body": _comment_body(_first(x["assignee"]), c["number"], "made")}} for c, x in due]
    reference = [{"tool": "slack__list_channels", "arguments": {"limit": 100}},
                 {"tool": "slack__get_channel_history", "arguments": {"channel_id": sre, "limit": 100}},
                 {"tool": "linear__list_issues", "arguments": {"query": "Follow-up from incident", "limit": 100}},
                 *({"tool": "linear__get_issue", "arguments": {"id": u["id"]}} for u in examples),
                 *writes, *comments]
    calls = len(reference)
    if calls not in calls_of("medium", cross_server=True):
        return None
    twin_of = next((c["issue"] for c in change if c["title"] == twin[0]["title"][14:]), change[0]["issue"])
    wrong_twin = [w if w["arguments"]["id"] != twin_of
                  else {"tool": "linear__update_issue", "arguments": {"id": twin[0]["id"], "priority": twin[1]}}
                  for w in writes]
    wrong_twin += [c for c in comments if c["arguments"]["issueId"] != twin_of]
    spoil = excluded[0]
    # one priority for every unpicked follow-up: the one that is wrong for some of them
    one = 2 if any(c["priority"] == 1 for c in change + kept) else 1
    high = next(c for c, x in zip(change, items) if not x["commented"])
    touched = [c["issue"] for c in change + kept]
    frame: list[dict[str, Any]] = [{"entity": "linear.issue", "ids": [c["issue"]], "fields": ["priority"],
                                    "values": {"priority": {"eq": c["priority"]}}} for c in change]
    frame += [{"entity": "linear.comment", "change": ["create"], "where": {"issue": i}, "max": 1} for i in touched]
    frame.append({"entity": "slack.message", "change": ["create"], "where": {"channel": sre}, "max": 1})
    success = {"all": [*({"linear.issuePriority": {"issue": c["issue"], "priority": NAMES[c["priority"]]}}
                         for c in change + kept),
                       *({"linear.issueHasComment": {"issue": c["issue"], "author": linear["viewer"],
                                                     "pattern": _carries(x, c["number"])}} for c, x in due)]}
    everyone = [{"tool": "linear__create_comment", "arguments": {
        "issueId": c["issue"], "body": f"Moved to {NAMES[c['priority']]} under the new follow-up rule "
                                      f"(incident {c['number']})."}} for c in change]
    summary = {"tool": "slack__post_message", "arguments": {"channel_id": sre, "text": (
        "Done: this year's open follow-ups are moved up by severity: "
        + ", ".join(f"{c['issue']} {NAMES[c['priority']]}" for c in change) + ".")}}
    return {
        "author": author.name,
        "patch": {"slack": slack_patch, "linear": linear_patch},
        "max_steps": budget(calls),
        "frame": frame,
        "success": success,
        "reference": reference,
        "wrong_lookalike": wrong_twin,
        "wrong_collateral": [*writes, *comments, {"tool": "linear__update_issue", "arguments": {
            "id": spoil["id"], "priority": 1 if spoil["priority"] != 1 else 2}}],
        "wrong_one_for_all": [*({"tool": "linear__update_issue", "arguments": {"id": c["issue"], "priority": one}}
                                for c in change + kept), *comments],
        "wrong_no_comment": writes,
        "wrong_high_comment": [*writes, {"tool": "linear__create_comment", "arguments": {
            "issueId": high["issue"], "body": f"I've made this High: incident {high['number']} was a SEV2."}}],
        "alternative": [{"tool": "slack__search_messages", "arguments": {"query": "follow-ups"}},
                        {"tool": "linear__list_issues", "arguments": {"label": "On-call", "limit": 50}},
                        *[{"tool": "linear__get_issue", "arguments": {"id": c["issue"]}} for c in change[:1]],
                        *writes[::-1], *comments],
        "alternative_everyone": [*writes, *everyone, summary],
        "summary": {"examples": [u["id"] for u in examples], "flagged": [f["id"] for f in facts if f["commented"]],
                    "due": [c["issue"] for c, _ in due], "calls": calls},
    }


def _carries(item: dict[str, Any], number: int) -> str:
    """What a comment telling the assignee the follow-up is now Urgent carries: the priority, the severity, the
    incident or the assignee's name (any of them)."""
    first, *_, last = item["assignee"].split()
    return "|".join(["[Uu]rgent", "URGENT", "SEV ?-?1", str(number), re.escape(first), re.escape(last)])


def build() -> dict[str, Any]:
    return template(
        id=ID, version=2, servers=["linear", "slack"], difficulty="medium",
        category="standard", case_list=cases(case_of),
        task={
            "goal": ("{{case.author}} posted in #sre-oncall yesterday how urgent incident follow-ups are from now "
                     "on (Urgent or High, by severity). Apply it in Linear to the follow-ups of this year's "
                     "incidents, the way {{case.author}} moved up last year's at the end of December."),
            "initial_state": initial_state(["linear", "slack"], {"slack": "{{case.patch.slack}}",
                                                                  "linear": "{{case.patch.linear}}"}),
            "available_tools": [
                "linear__list_issues", "linear__get_issue", "linear__list_comments", "linear__list_teams",
                "linear__list_issue_labels", "linear__update_issue", "linear__create_comment",
                "slack__list_channels", "slack__get_channel_history", "slack__get_thread_replies",
                "slack__search_messages", "slack__post_message", "slack__reply_to_thread"],
            **judged_by_case(timeout_s=600),
            "wrong_solutions": [
                {"why": "re-prioritises a follow-up of last year's incidents (of the same title where one is) instead of this year's",
                 "kind": "lookalike", "calls": "{{case.wrong_lookalike}}"},
                {"why": "applies the rule, then also re-prioritises a follow-up the rule leaves alone (already "
                        "picked up, or of a SEV3 incident)", "kind": "collateral", "calls": "{{case.wrong_collateral}}"},
                {"why": "gives every unpicked follow-up of this year one priority, whatever its incident's severity",
                 "kind": "other", "calls": "{{case.wrong_one_for_all}}"},
                {"why": "moves the follow-ups up but leaves the assignee of a follow-up made Urgent no word, as the "
                        "author did on last year's made Urgent (what a reader who opens only a few of them does)",
                 "kind": "other", "calls": "{{case.wrong_no_comment}}"},
                {"why": "comments on a follow-up made High instead of on the ones made Urgent",
                 "kind": "other", "calls": "{{case.wrong_high_comment}}"},
            ],
            "alternative_solutions": [
                {"why": "finds the rule by searching Slack, lists the follow-ups by label, opens one, and updates "
                        "in the other order", "calls": "{{case.alternative}}"},
                {"why": "comments on every follow-up it moves (more than the habit asks) and says in #sre-oncall "
                        "what it did, as the December note did", "calls": "{{case.alternative_everyone}}"},
            ],
        })
