"""Before next week's QBRs, the open Linear issues the customers we meet reported go to at least High.

Calendar and Linear, medium, recovery. It is Monday 16 March; next week (23-27 March) Priya has
quarterly business reviews with a few key accounts. The QBR events name the customer by its short
name and invite its contact (whose email domain tells which legal entity it is: Cedar Pharma SA or
Inc, Harbour or Harbor Foods). Every issue one of those customers reported in Linear (its description
says "Reported by <contact> (<email>) of <legal name> on <day>") that is still open (triage, backlog,
todo, in progress or in review) must be High or Urgent; Urgent and High ones stay as they are, done and
cancelled ones are left alone, and a lookalike customer's issues (found by the same short-name search)
and the issues of customers met this week or the week after are not touched. Linear's update answers
``unavailable`` once: the agent must retry. Version 2 counts an issue "Raised in the <legal name> trial
by" one of the customer's people as its report too, as the Linear world writes reports made before a
customer signed up (calibration round 5 found version 1 of its sister, x-t-at-risk-escalations, failing
a solver for escalating one).
"""

from __future__ import annotations

from typing import Any

from tasks_catalog.authoring.cross import budget, cases, org, template, world
from tasks_catalog.authoring.cross._x_t_accounts import (
    PRIORITY_NAMES,
    case_task,
    customer_of_meeting,
    is_open,
    reported_by,
    short_name_shared,
)

ID = "x-t-qbr-week-issue-priorities"
WEEK = ("2026-03-23", "2026-03-28")
PRIMARY = "priya.raman@kestrelfreight.com"
GOAL = (
    "It is Monday 16 March. I have QBRs with customers next week. Before we meet, every Linear issue that one "
    "of those customers reported and that is still open should be at least High priority (Urgent counts)."
)


def _qbrs(seed: int, low: str, high: str) -> list[dict[str, Any]]:
    return [e for e in world("calendar", seed)["events"] if e["title"].endswith(" QBR") and low <= e["start"] < high]


def _raise(seed: int, customers) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """(open issues reported by ``customers``, those below High, those already High or Urgent)."""
    issues = [i for c in customers for i in reported_by(seed, c.name) if is_open(i, seed)]
    low = [i["id"] for i in issues if i["priority"] in (0, 3, 4)]
    high = [i["id"] for i in issues if i["priority"] in (1, 2)]
    return issues, low, high


TOOLS = [
    "calendar__list_calendars",
    "calendar__list_events",
    "calendar__search_events",
    "calendar__get_event",
    "calendar__search_people",
    "linear__list_teams",
    "linear__list_users",
    "linear__list_issue_statuses",
    "linear__list_issue_labels",
    "linear__list_issues",
    "linear__get_issue",
    "linear__list_comments",
    "linear__update_issue",
    "linear__create_comment",
]


def case_of(seed: int) -> dict[str, Any] | None:  # noqa: C901, PLR0912 - one world's whole case, read in order
    # Every QBR of the week (Monday 23 to Sunday 29 March) confirmed, on Priya's own calendar, on a weekday.
    week = _qbrs(seed, WEEK[0], "2026-03-30")
    if not week or any(
        e["status"] != "confirmed" or e["calendar_id"] != PRIMARY or e["start"] >= WEEK[1] for e in week
    ):
        return None
    customers = []
    for e in week:
        c = customer_of_meeting(seed, e)
        if c is None:
            return None
        if c not in customers:
            customers.append(c)
    if any(short_name_shared(seed, c.name) for c in customers):
        return None
    issues, targets, _ = _raise(seed, customers)
    urgent = [i["id"] for i in issues if i["priority"] == 1]
    if not targets:
        return None
    # The lookalike: an open, low-priority issue found by the same short-name search that another legal
    # entity reported, else one of a customer met the week before or after.
    met = {c.key for c in customers}
    decoy = None
    o_customers = {c.key: c for c in org(seed).customers}
    for c in customers:
        for other in o_customers.values():
            if other.key in met or c.short not in other.name or short_name_shared(seed, other.name):
                continue
            cand = [i for i in reported_by(seed, other.name) if is_open(i, seed) and i["priority"] in (0, 3, 4)]
            if cand:
                decoy = (
                    cand[0]["id"],
                    f"raises {cand[0]['id']}, reported by {other.name}, not the {c.name} met at the QBR",
                )
                break
        if decoy:
            break
    if decoy is None:
        near = [e for e in _qbrs(seed, "2026-03-16", "2026-04-04") if not (WEEK[0] <= e["start"] < WEEK[1])]
        for e in near:
            c = customer_of_meeting(seed, e)
            if c is None or c.key in met:
                continue
            _, low, _ = _raise(seed, [c])
            if low:
                decoy = (low[0], f"raises {low[0]} of {c.name}, whose QBR ({e['start'][:10]}) is not next week")
                break
    if decoy is None:
        return None
    # a closed issue not at High already, so raising it to High changes it
    closed = [i["id"] for c in customers for i in reported_by(seed, c.name) if not is_open(i, seed) and i["priority"] != 2]
    reference: list[dict[str, Any]] = [
        {
            "tool": "calendar__search_events",
            "arguments": {
                "query": "QBR",
                "timeMin": "2026-03-23T00:00",
                "timeMax": "2026-03-30T00:00",
                "maxResults": 50,
            },
        }
    ]
    for c in customers:
        reference.append({"tool": "linear__list_issues", "arguments": {"query": c.short, "limit": 50}})
    updates = [{"tool": "linear__update_issue", "arguments": {"id": i, "priority": 2}} for i in targets]
    reference += updates
    if not 5 <= len(reference) <= 10:
        return None
    first = next(i for i in world("linear", seed)["issues"] if i["id"] == targets[0])
    nudge = next(p for p in (3, 4, 0) if p != first["priority"])
    wrong: list[dict[str, Any]] = [
        {
            "why": decoy[1],
            "kind": "lookalike",
            "calls": [*updates, {"tool": "linear__update_issue", "arguments": {"id": decoy[0], "priority": 2}}],
        },
        {
            "why": f"raises {targets[0]} but misses the other issues"
            if len(targets) > 1
            else f"sets {targets[0]} to {PRIORITY_NAMES[nudge]}, which is not High",
            "kind": "other",
            "calls": updates[:1]
            if len(targets) > 1
            else [{"tool": "linear__update_issue", "arguments": {"id": targets[0], "priority": nudge}}],
        },
    ]
    if closed:
        wrong.append(
            {
                "why": f"also reopens-in-priority {closed[0]}, which is already closed",
                "kind": "collateral",
                "calls": [*updates, {"tool": "linear__update_issue", "arguments": {"id": closed[0], "priority": 2}}],
            }
        )
    else:
        wrong.append(
            {
                "why": f"raises the issues and also takes {targets[0]} over (assigns it to me)",
                "kind": "collateral",
                "calls": [
                    *updates[1:],
                    {
                        "tool": "linear__update_issue",
                        "arguments": {"id": targets[0], "priority": 2, "assignee": PRIMARY},
                    },
                ],
            }
        )
    if urgent:
        wrong.append(
            {
                "why": f"sets every open issue to High, lowering {urgent[0]} from Urgent",
                "kind": "other",
                "calls": [
                    *updates,
                    *[{"tool": "linear__update_issue", "arguments": {"id": i, "priority": 2}} for i in urgent],
                ],
            }
        )
    frame: list[dict[str, Any]] = [{"entity": "linear.issue", "ids": targets, "fields": ["priority"], "values": {"priority": {"in": [1, 2]}}}]
    frame += [{"entity": "linear.comment", "change": ["create"], "where": {"issue": i}, "max": 1} for i in targets]
    success = {
        "all": [
            {
                "any": [
                    {"linear.issuePriority": {"issue": i, "priority": "High"}},
                    {"linear.issuePriority": {"issue": i, "priority": "Urgent"}},
                ]
            }
            for i in targets
        ]
    }
    alternatives = [
        {
            "why": "makes the issues Urgent rather than High",
            "calls": [{"tool": "linear__update_issue", "arguments": {"id": i, "priority": 1}} for i in targets],
        },
        {
            "why": "raises each issue and leaves a comment saying why",
            "calls": [
                c
                for i in targets
                for c in (
                    {"tool": "linear__update_issue", "arguments": {"id": i, "priority": 2}},
                    {
                        "tool": "linear__create_comment",
                        "arguments": {"issueId": i, "body": "Raised to High ahead of the customer's QBR next week."},
                    },
                )
            ],
        },
    ]
    return {
        "customers": [c.name for c in customers],
        "targets": targets,
        "frame": frame,
        "max_steps": budget(len(reference), 1),
        "success": success,
        "reference": reference,
        "wrong": wrong,
        "alternatives": alternatives,
    }


def build() -> dict[str, Any]:
    return template(
        id=ID,
        version=2,
        servers=["calendar", "linear"],
        difficulty="medium",
        category="recovery",
        case_list=cases(case_of),
        task=case_task(
            GOAL,
            ["calendar", "linear"],
            TOOLS,
            faults=[{"tool": "linear__update_issue", "kind": "unavailable", "on_call": 1}],
            timeout_s=300,
        ),
    )
