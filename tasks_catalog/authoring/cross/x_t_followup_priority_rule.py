"""Medium: apply the head of Platform's rule, posted in #sre-oncall, on how urgent incident follow-ups
are, to the follow-ups of this year's incidents in Linear.

The rule (planted: one message, its author added to the channel) says SEV1 follow-ups are Urgent and
SEV2 ones High, SEV3 ones keep their priority, and only follow-ups nobody has picked up (Backlog or Todo)
change. The world decides each follow-up: its incident's date and severity (in its description), its
state, its priority now. The lookalike is last year's follow-up of the same title."""

from __future__ import annotations

import calendar
from datetime import datetime
from typing import Any

from tasks_catalog.authoring.cross import budget, cases, org, template
from tasks_catalog.authoring.cross._x_t_eng import followups, initial_state, judged_by_case, slack_world_channel

YEAR_START = "2026-01-01"
TARGET = {"SEV1": 1, "SEV2": 2}
NAMES = {1: "Urgent", 2: "High"}
UNPICKED = ("Backlog", "Todo")
#: Sunday 15 March 2026, 18:20 UTC: "yesterday" on Monday the 16th, after the channel's last message.
POSTED = calendar.timegm(datetime(2026, 3, 15, 18, 20).timetuple())
RULE = ("From today incident follow-ups are prioritised by the incident's severity: follow-ups of SEV1 incidents "
        "are Urgent and those of SEV2 incidents High; SEV3 follow-ups keep the priority their owner gave them. "
        "Only follow-ups nobody has picked up yet (Backlog or Todo) change: leave the ones in progress, in review "
        "or closed as they are.")


def case_of(seed: int) -> dict[str, Any] | None:
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
                                                                          "title": issue["title"][14:]})
            elif this_year:
                excluded.append(issue)
            elif target and issue["state"] in UNPICKED and issue["priority"] != target:
                lookalikes.append((issue, target))
    if not 2 <= len(change) <= 7 or not excluded:
        return None
    twin: Any = next(((i, t) for i, t in lookalikes for c in change if i["title"][14:] == c["title"]), None)
    if twin is None:
        return None
    author = company.employee(company.policy("on-call").owner)
    channel = slack_world_channel(seed, "sre-oncall")
    if channel is None or max(float(m["ts"]) for m in channel["messages"]) >= POSTED:
        return None
    sre = channel["id"]
    members = channel["members"] if author.slack_id in channel["members"] else [*channel["members"], author.slack_id]
    patch = [{"op": "update", "in": ["channels"], "id": sre, "fields": {"members": members}},
             {"op": "add", "in": ["channels", sre, "messages"],
              "value": {"ts": f"{POSTED}.000100", "user": author.slack_id, "text": RULE}}]
    writes: list[dict[str, Any]] = [{"tool": "linear__update_issue", "arguments": {"id": c["issue"], "priority": c["priority"]}} for c in change]
    reference = [{"tool": "slack__list_channels", "arguments": {"limit": 100}},
                 {"tool": "slack__get_channel_history", "arguments": {"channel_id": sre, "limit": 5}},
                 {"tool": "linear__list_issues", "arguments": {"query": "Follow-up from incident", "limit": 100}},
                 *writes]
    calls = len(reference)
    wrong_twin = [w if w["arguments"]["id"] != next(c["issue"] for c in change if c["title"] == twin[0]["title"][14:])
                  else {"tool": "linear__update_issue", "arguments": {"id": twin[0]["id"], "priority": twin[1]}}
                  for w in writes]
    spoil = excluded[0]
    # one priority for every unpicked follow-up: the one that is wrong for some of them
    one = 2 if any(c["priority"] == 1 for c in change + kept) else 1
    return {
        "author": author.name,
        "patch": patch,
        "max_steps": budget(calls),
        "frame": [{"entity": "linear.issue", "ids": [c["issue"]], "fields": ["priority"],
                   "values": {"priority": {"eq": c["priority"]}}} for c in change],
        "success": {"all": [{"linear.issuePriority": {"issue": c["issue"], "priority": NAMES[c["priority"]]}}
                            for c in change + kept]},
        "reference": reference,
        "wrong_lookalike": wrong_twin,
        "wrong_collateral": [*writes, {"tool": "linear__update_issue", "arguments": {
            "id": spoil["id"], "priority": 1 if spoil["priority"] != 1 else 2}}],
        "wrong_one_for_all": [{"tool": "linear__update_issue", "arguments": {"id": c["issue"], "priority": one}}
                              for c in change + kept],
        "alternative": [{"tool": "slack__search_messages", "arguments": {"query": "follow-ups"}},
                        {"tool": "linear__list_issues", "arguments": {"label": "On-call", "limit": 50}},
                        *[{"tool": "linear__get_issue", "arguments": {"id": c["issue"]}} for c in change[:1]],
                        *writes[::-1]],
    }


def build() -> dict[str, Any]:
    return template(
        id="x-t-followup-priority-rule", version=1, servers=["linear", "slack"], difficulty="medium",
        category="standard", case_list=cases(case_of),
        task={
            "goal": ("{{case.author}} posted in #sre-oncall yesterday how urgent incident follow-ups are from now "
                     "on (Urgent or High, by severity). Apply it in Linear to the follow-ups of this year's "
                     "incidents."),
            "initial_state": initial_state(["linear", "slack"], {"slack": "{{case.patch}}"}),
            "available_tools": [
                "linear__list_issues", "linear__get_issue", "linear__list_comments", "linear__list_teams",
                "linear__list_issue_labels", "linear__update_issue", "linear__create_comment",
                "slack__list_channels", "slack__get_channel_history", "slack__get_thread_replies",
                "slack__search_messages", "slack__post_message", "slack__reply_to_thread"],
            **judged_by_case(timeout_s=600),
            "wrong_solutions": [
                {"why": "re-prioritises last year's follow-up of the same title instead of this year's",
                 "kind": "lookalike", "calls": "{{case.wrong_lookalike}}"},
                {"why": "applies the rule, then also re-prioritises a follow-up the rule leaves alone (already "
                        "picked up, or of a SEV3 incident)", "kind": "collateral", "calls": "{{case.wrong_collateral}}"},
                {"why": "gives every unpicked follow-up of this year one priority, whatever its incident's severity",
                 "kind": "other", "calls": "{{case.wrong_one_for_all}}"},
            ],
            "alternative_solutions": [
                {"why": "finds the rule by searching Slack, lists the follow-ups by label, opens one, and updates "
                        "in the other order", "calls": "{{case.alternative}}"},
            ],
        })
