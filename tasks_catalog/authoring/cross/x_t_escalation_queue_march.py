"""x-t-escalation-queue-march: triage March's new escalations in Linear's Escalations queue the way the earlier
ones were handled, including a habit that only OPENING the earlier escalations shows. No page states the rules.

Hard; Linear, Notion and Slack. The queue, its earlier and new escalations, the #cs-escalations posts and the
three visible conventions (assignee = the component's runbook owner, priority by CRM plan and blocking, state
by blocking; an earlier title repeated by another customer triaged on its own, never as a Duplicate) are
x-t-escalation-triage's (its ``case_of``, drawn with this template's own random stream and without that
template's renewal ping, so the issues differ from that template's for the same seed). A fourth convention is added here, and it shows
in no list: when the customer's row in the CRM (Notion's Customer Accounts) has Status **At risk**, the
triager left one comment on the escalation linking the account's CRM row, e.g. "Jane Doe: heads-up, Acme
Ltd is At risk in Customer Accounts (https://www.notion.so/<row id>); please keep them in the loop on this one."
Linear's ``list_issues`` returns no comments (only ``get_issue`` and ``list_comments`` do), and 2 to 4 of the
14-16 earlier escalations carry one: the others, opened, have none. So an agent that tabulates the queue
from the list and samples a few issues misses it.

``COMMENT_TRIGGERS`` lists the plausible readings of when the comment is left and ``check_comment_convention``
raises unless each reading other than "the account is At risk" is contradicted by an earlier escalation or
agrees with it on every new one, the commented examples are of two customers or more (not "that one
customer"), and every new item's CRM status was seen among the examples. A world whose
draw leaves a reading open gives no case.

Judged: as x-t-escalation-triage (each new item's assignee, priority and state exactly, at most one comment
per item, two on an at-risk account's, nothing else changes), and each new escalation of an At-risk account has a comment linking its
CRM row (its page id, or the address Notion gives it). A note on the other items is allowed (at most one comment per item, as before).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tasks_catalog.authoring.cross import budget, cases, template, world
from tasks_catalog.authoring.cross import x_t_escalation_triage as esc
from tasks_catalog.authoring.cross._x_t_billing import case_task
from tasks_catalog.authoring.cross._x_t_people import call

ID = "x-t-escalation-queue-march"
SERVERS = ["linear", "notion", "slack"]
AT_RISK = "At risk"
#: How many draws of a world's escalations are tried for a case (a seed gives at most one case).
DRAWS = 3
#: What a description says of the reporting customer and its account owner (x-t-escalation-triage's text).
DESCRIBED = re.compile(r" of (?P<customer>.+) on \d\d \w+ 2026\. Account owner: (?P<owner>.+)\. Support ticket")

#: Readings of when the triager comments, each a rule on an item (CRM status, plan, blocking, priority).
Trigger = Callable[[dict[str, Any]], bool]
COMMENT_TRIGGERS: list[tuple[str, Trigger]] = [
    ("on every escalation", lambda i: True),
    ("for Enterprise customers", lambda i: i["plan"] == "Enterprise"),
    ("when the customer is blocked", lambda i: i["blocked"]),
    ("when the priority is Urgent", lambda i: i["priority"] == 1),
    ("when the priority is Urgent or High", lambda i: i["priority"] <= 2),
    ("for any account not Active", lambda i: i["status"] != "Active"),
    ("for accounts Onboarding", lambda i: i["status"] == "Onboarding"),
]


def _link(page_id: str) -> str:
    """The address Notion gives a page (``notion__retrieve_page``'s ``url``)."""
    return f"https://www.notion.so/{page_id.replace('-', '')}"


def _comment(item: dict[str, Any], page: str | None = None) -> str:
    """The heads-up the triager leaves on an at-risk account's escalation, linking its CRM row (or ``page``)."""
    return (f"{item['account_owner']}: heads-up, {item['customer']} is {AT_RISK} in Customer Accounts "
            f"({_link(page or item['page'])}); please keep them in the loop on this one.")


def _linked(page_id: str) -> str:
    """A pattern a comment linking page ``page_id`` matches: its id as the tools give it, or its address."""
    return f"{page_id}|{page_id.replace('-', '')}"


def check_comment_convention(examples: list[dict[str, Any]], items: list[dict[str, Any]]) -> None:
    """Raise unless the at-risk comment is told apart from every other reading by the examples: each
    alternative trigger is contradicted by an example or agrees with "At risk" on every new item; a minority
    (2-4) of the examples, of two customers at least, are commented; every new item's status was seen in an
    example."""
    commented = [e for e in examples if e["status"] == AT_RISK]
    if not 2 <= len(commented) <= 4:
        raise ValueError(f"{len(commented)} of {len(examples)} examples show the comment; a minority of 2-4 should")
    if len({e["customer"] for e in commented}) < 2:
        raise ValueError("the commented examples are one customer's: 'that customer' would fit them as well")
    if {i["status"] for i in items} - {e["status"] for e in examples}:
        raise ValueError("a new item's CRM status is seen in no example")
    for reading, trigger in COMMENT_TRIGGERS:
        contradicted = any(trigger(e) != (e["status"] == AT_RISK) for e in examples)
        same = all(trigger(i) == (i["status"] == AT_RISK) for i in items)
        if not contradicted and not same:
            raise ValueError(f"the comment reading {reading!r} fits every example and differs on a new item")


def _items(case: dict[str, Any], seed: int) -> list[dict[str, Any]]:
    """The earlier and new escalations of ``case`` with what decides them: the customer's CRM row, the
    account owner the description names, the assignee's name and the priority the conventions give."""
    notion = world("notion", seed)
    crm = next(d for d in notion["databases"] if d["title"] == esc.CRM)
    rows = {p["title"]: p for p in notion["pages"]
            if p.get("parent_id") == crm["id"] and not p.get("archived")}
    lin = world("linear", seed)
    name_of = {u["id"]: u["name"] for u in lin["users"]}
    blocked = {}
    for p in case["slack_patch"]:
        text = p["value"]["text"]
        ticket = text.split(" ", 2)[1]
        blocked[ticket] = text.endswith(esc.BLOCKED)
    writes = {c["arguments"]["id"]: c["arguments"] for c in case["reference"] if c["tool"] == "linear__update_issue"}
    out = []
    for p in case["linear_patch"][1:]:
        v = p["value"]
        m = DESCRIBED.search(v["description"])
        if m is None:
            raise ValueError(f"{v['id']}: the description does not name its customer and account owner")
        page = rows[m["customer"]]
        row = page["properties"]
        new = v["state"] == "Triage"
        decided = writes[v["id"]] if new else {"assignee": v["assignee"], "priority": v["priority"]}
        found = re.search(r"Support ticket (\S+),", v["description"])
        if found is None:
            raise ValueError(f"{v['id']}: the description names no support ticket")
        ticket = found[1]
        out.append({"id": v["id"], "new": new, "customer": m["customer"], "account_owner": m["owner"], "page": page["id"],
                    "status": row["Status"], "plan": row["Plan"], "blocked": blocked[ticket],
                    "owner_name": name_of[decided["assignee"]], "priority": decided["priority"],
                    "creator": v["creator"]})
    return out


def case_of(seed: int) -> dict[str, Any] | None:
    """The first of :data:`DRAWS` draws of ``seed``'s escalations (:func:`case_of_draw`) that makes a case."""
    for draw in range(DRAWS):
        case = case_of_draw(seed, draw)
        if case is not None:
            return case
    return None


def case_of_draw(seed: int, draw: int) -> dict[str, Any] | None:
    """x-t-escalation-triage's case of ``seed`` drawn with this template's random stream number ``draw``, with
    the at-risk comment on its earlier escalations, its writes, frame, predicate, wrongs and alternatives;
    ``None`` when that template's situation does not hold or the comment convention is left open."""
    case = esc.case_of(seed, stream=ID if draw == 0 else f"{ID}#{draw}", pings=False)
    if case is None:
        return None
    items = _items(case, seed)
    examples = [i for i in items if not i["new"]]
    new = [i for i in items if i["new"]]
    try:
        check_comment_convention(examples, new)
    except ValueError:
        return None
    flagged = [i for i in new if i["status"] == AT_RISK]
    if not flagged:
        return None

    commented = {e["id"]: e for e in examples if e["status"] == AT_RISK}
    linear_patch = []
    for p in case["linear_patch"]:
        v = p["value"]
        if v.get("id") in commented:
            v = {**v, "comments": [{"id": f"{v['id']}-c1", "author": v["creator"], "body": _comment(commented[v["id"]]),
                                    "created_at": v["created_at"]}]}
        linear_patch.append({**p, "value": v})

    def notes(page: str | None = None, who: list[dict[str, Any]] = flagged) -> list[dict[str, Any]]:
        return [call("linear__create_comment", issueId=i["id"], body=_comment(i, page)) for i in who]

    reference = [*case["reference"], *notes()]
    if len(reference) > 60:
        return None
    success = [*case["success"], *[{"linear.issueHasComment": {"issue": i["id"], "pattern": _linked(i["page"])}}
                                   for i in flagged]]
    base_writes = [c for c in case["reference"] if c["tool"] == "linear__update_issue"]
    wrongs = [{**w, "calls": [*w["calls"], *notes()]} for w in case["wrongs"]]
    wrongs.insert(0, {"why": "triages every new escalation right but leaves no heads-up on the at-risk accounts' "
                             "(the habit only opening the earlier escalations shows)", "kind": "other",
                      "calls": list(base_writes)})
    crm = next(d for d in world("notion", seed)["databases"] if d["title"] == esc.CRM)
    wrongs.append({"why": "the heads-up links the Customer Accounts database, not the account's own row",
                   "kind": "lookalike", "calls": [*base_writes, *notes(crm["id"])]})
    for reading, trigger in COMMENT_TRIGGERS:
        who = [i for i in new if trigger(i)]
        if any(i not in who for i in flagged):
            wrongs.append({"why": f"leaves the heads-up {reading}, not for the accounts At risk", "kind": "other",
                           "calls": [*base_writes, *notes(who=who)]})
    by_id = {i["id"]: i for i in flagged}
    alternatives = [
        {"why": "the heads-up first, then the triage, in reverse order",
         "calls": [c for w in reversed(base_writes) for c in (
             *notes(who=[by_id[w["arguments"]["id"]]] if w["arguments"]["id"] in by_id else []), w)]},
        *[{**a, "calls": [*a["calls"], *notes()]} for a in case["alternatives"][1:]],
        {"why": "a triage note on every item, the at-risk ones' carrying the heads-up",
         "calls": [*base_writes, *[call("linear__create_comment", issueId=i["id"], body=(
             _comment(i) if i in flagged else f"Triaged: {i['owner_name']} owns this component.")) for i in new]]},
        {"why": "a triage note on every item and, on the at-risk ones, the heads-up as a second comment",
         "calls": [*base_writes, *[call("linear__create_comment", issueId=i["id"],
                                        body=f"Triaged: {i['owner_name']} owns this component.") for i in new],
                   *notes()]},
    ]
    # the heads-up may come beside a triage note: two comments on an at-risk account's escalation
    frame = [{**f, "max": 2} if f["entity"] == "linear.comment" and f.get("where", {}).get("issue") in by_id else f
             for f in case["frame"]]
    return {**case, "linear_patch": linear_patch, "frame": frame, "reference": reference, "success": success, "wrongs": wrongs,
            "alternatives": alternatives, "max_steps": budget(len(reference), forced=1),
            "facts": {**case["facts"], "calls": len(reference), "commented_examples": sorted(commented),
                      "at_risk_new": [i["id"] for i in flagged]}}


def _case(seed: int) -> dict[str, Any] | None:
    case = case_of(seed)
    return None if case is None else {k: v for k, v in case.items() if k != "facts"}


def build() -> dict[str, Any]:
    task = case_task(
        goal=("Support has filed this month's new escalations in the Escalations team's Triage queue in Linear. "
              "Please work through them the way the team has been handling the earlier escalations."),
        servers=SERVERS, tools=esc.TOOLS,
        faults=[{"tool": "linear__update_issue", "on_call": 3, "kind": "unavailable"},
                {"tool": "linear__update_issue", "on_call": 8, "kind": "timeout_after_commit"}],
        timeout_s=1500, patched=("linear", "slack"))
    return template(id=ID, version=2, servers=SERVERS, difficulty="hard", category="recovery",
                    case_list=cases(_case, want=10), task=task)
