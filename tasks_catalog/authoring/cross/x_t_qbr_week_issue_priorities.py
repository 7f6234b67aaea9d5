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

Version 3 adds the way Priya prepared her last few QBRs (round 10: an opened-only convention), which the goal
asks to follow. The last QBRs on her calendar before this week (from 19 January; 6-7 raised issues in all)
carry a prep note in their description ("Prep (Mon 2 Mar): raised their open issues to High: ENG-357,
ENG-452."), and those issues are High in Linear: the world's open issues of those customers reported before
the prep Monday, and four the case plants (:func:`_plant`). What no page says, and only an opened issue shows
(``list_issues`` carries no comments): on a raised issue whose ASSIGNEE was invited to that customer's QBR,
Priya commented to tell them it will come up there ("Jon, you're in the Crescent Builders QBR with me on Thu
12 Mar: ..."); 2-3 of the examples have such a comment, the others, opened, have none of hers. The plants tell
the habit apart: two issues of one in-person QBR's customer, one whose assignee is invited (commented) and one
whose assignee is not; one more of the invited engineer's at another QBR, where they are not invited
(uncommented); one of a third QBR whose assignee is invited (commented), on the team of the new issue due the
comment and at a QBR as in person (or remote) as its, so that no "invited and on that team" reading leaves it
out. Next week's QBR invites the assignee of one issue to raise (a calendar patch; where several are raised,
the others' assignees are not invited), so that issue is due a comment. The module asserts per case
(:data:`READINGS`, :func:`check_habit`) that every other reading (always, never, by team, state, assignee,
customer, account owner, an in-person QBR, a named reporter, whether the issue is assigned) is contradicted by
an example or treats every new issue alike, that a commented example shares the team and the in-person (or
remote) QBR of each new issue due the comment, and that no other open issue of a customer met, nor any new
issue not due the comment, has an assignee invited to next week's QBRs. Commenting on every raised issue
passes (over-applying is harmless), as does noting the prep in next week's QBR descriptions as the earlier
ones show; raising without the due comment fails, as does the comment on another issue instead.
"""

from __future__ import annotations

import itertools
import re
from datetime import date, timedelta
from typing import Any

from tasks_catalog.authoring.cross import budget, cases, org, template, world, world_state
from tasks_catalog.authoring.cross._x_t_accounts import (
    PRIORITY_NAMES,
    case_task,
    customer_of_meeting,
    is_open,
    reported_by,
    short_name_shared,
)
from tasks_catalog.authoring.cross._x_t_readings import Always, FlaggedWhen, left_open
from tasks_catalog.stats import calls_of

ID = "x-t-qbr-week-issue-priorities"
WEEK = ("2026-03-23", "2026-03-28")
PRIMARY = "priya.raman@kestrelfreight.com"
GOAL = (
    "It is Monday 16 March. I have QBRs with customers next week. Before we meet, every Linear issue that one "
    "of those customers reported and that is still open should be at least High priority (Urgent counts). Do it the way I prepared my last few QBRs."
)


def _qbrs(seed: int, low: str, high: str) -> list[dict[str, Any]]:
    return [e for e in world("calendar", seed)["events"] if e["title"].endswith(" QBR") and low <= e["start"] < high]


def _raise(seed: int, customers) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """(open issues reported by ``customers``, those below High, those already High or Urgent)."""
    issues = [i for c in customers for i in reported_by(seed, c.name) if is_open(i, seed)]
    low = [i["id"] for i in issues if i["priority"] in (0, 3, 4)]
    high = [i["id"] for i in issues if i["priority"] in (1, 2)]
    return issues, low, high



#: The earliest a QBR the team prepared can be (the habit's examples are the last QBRs before this week's), how
#: many raised issues the examples hold in all, and how many of them carry Priya's comment (a minority).
PAST_FROM, PAST_TO = "2026-01-19", "2026-03-14"
EXAMPLES = (6, 8)
FLAGGED = (2, 3)
#: How an issue's description names the person who reported it ("Reported by <name> (<email>) of ...",
#: "... trial by <name> (<email>) on ...").
_NAMED = re.compile(r"(?:Reported by|trial by) [^(\n]+? \([^)\s]+@[^)\s]+\)")
_OWNER = re.compile(r"Account owner: ([^.\n]+)\.")
#: Readings of when Priya comments on a raised issue that a careful reader of the examples could form; the
#: habit is "its assignee is invited to the customer's QBR" (the example's ``commented``).
READINGS = {
    "always": Always(True),
    "never": Always(False),
    "by the issue's team": FlaggedWhen("team"),
    "by the issue's state": FlaggedWhen("state"),
    "when the issue is assigned": FlaggedWhen("assigned"),
    "by the assignee (whoever was told before)": FlaggedWhen("assignee"),
    "by the customer": FlaggedWhen("customer"),
    "by the account owner": FlaggedWhen("owner"),
    "when the QBR is in person (a room is booked)": FlaggedWhen("in_person"),
    "when the description names the reporter": FlaggedWhen("named"),
}


def _monday_before(day: str) -> date:
    """The Monday of the week before ``day`` (YYYY-MM-DD...): when Priya prepares a QBR."""
    d = date.fromisoformat(day[:10])
    return d - timedelta(days=d.weekday() + 7)


def _day(d: date) -> str:
    return f"{d:%a} {d.day} {d:%b}"


def _facts(seed: int, issue: dict[str, Any], customer, event_ids: list[str], attendees: set[str]) -> dict[str, Any]:
    """What a reader of one raised issue (an example or a new one) can see that a habit could key on."""
    users = {u["id"]: u for u in world("linear", seed)["users"]}
    who = users.get(issue["assignee"] or "")
    events = {e["id"]: e for e in world("calendar", seed)["events"]}
    owner = _OWNER.search(issue["description"])
    return {
        "id": issue["id"], "team": issue["id"].split("-")[0], "state": issue["state"],
        "assigned": who is not None, "assignee": who["name"] if who else None, "active": bool(who and who["active"]),
        "assignee_email": who["email"] if who else None, "customer": customer.name,
        "owner": owner.group(1) if owner else None,
        "in_person": any(bool(events[i]["location"]) for i in event_ids),
        "named": bool(_NAMED.search(issue["description"])),
        "commented": bool(who and who["email"] in attendees),
        "events": event_ids,
    }


def _invite(event: dict[str, Any], emails: list[str]) -> list[dict[str, Any]]:
    """The event's attendees with ``emails`` added (accepted), as a patch's whole list."""
    have = [dict(a) for a in event["attendees"]]
    return have + [{"email": m, "response_status": "accepted"} for m in emails if m not in {a["email"] for a in have}]


TOOLS = [
    "calendar__list_calendars",
    "calendar__list_events",
    "calendar__search_events",
    "calendar__get_event",
    "calendar__search_people",
    "calendar__update_event",
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


def _past(seed: int, week_customers: set[str], avoid: set[str]) -> list[tuple[dict[str, Any], Any, list[dict[str, Any]]]] | None:
    """The QBRs Priya prepared before this week's (the last ones on her calendar from :data:`PAST_FROM`), each
    with its customer and the world's issues raised for it (open, reported by the customer before the prep
    Monday, below High), earliest first: the last :data:`PAST_QBRS` QBRs, or fewer when their raised issues
    already number :data:`EXAMPLES` less :data:`PLANTED`; ``None`` when they hold more, or one is about a
    customer met this week, whose short name another customer shares, or raises an issue in ``avoid``."""
    past = sorted((e for e in _qbrs(seed, PAST_FROM, PAST_TO)
                   if e["calendar_id"] == PRIMARY and e["status"] == "confirmed"), key=lambda e: e["start"])
    chosen: list[dict[str, Any]] = []
    for event in reversed(past):
        chosen.insert(0, event)
        raised: set[str] = set()
        out = []
        for e in chosen:
            c = customer_of_meeting(seed, e)
            if c is None or short_name_shared(seed, c.name) or c.name in week_customers:
                return None
            prep = _monday_before(e["start"]).isoformat()
            issues = [i for i in reported_by(seed, c.name) if is_open(i, seed) and i["priority"] in (0, 3, 4)
                      and i["created_at"][:10] < prep and i["id"] not in raised]
            if any(i["id"] in avoid for i in issues):
                return None
            raised |= {i["id"] for i in issues}
            out.append((e, c, issues))
        if len(raised) + PLANTED > EXAMPLES[1]:
            return None
        if len(chosen) >= PAST_QBRS or len(raised) + PLANTED >= EXAMPLES[0]:
            return out if len(raised) + PLANTED >= EXAMPLES[0] and len(chosen) >= 3 else None
    return None


#: Issues the team raised before earlier QBRs that the case plants beside the world's (titles as customers
#: report them), and how many.
PLANTED_TITLES = [
    "Tracking page shows the wrong ETA for split shipments",
    "Proof-of-delivery PDF is missing the signature",
    "Customs documents not attached to EU export bookings",
    "Invoice export drops the purchase order number",
]
PLANTED = len(PLANTED_TITLES)
PAST_QBRS = 8


def _plant(seed: int, past, team: str, third: int) -> tuple[list[tuple[dict[str, Any], Any, list[dict[str, Any]]]], dict[str, list[str]]] | None:
    """Plant :data:`PLANTED` raised issues beside the world's, so that the examples tell the habit apart: two
    Engineering issues of the last in-person QBR's customer, one whose assignee ``x`` is invited to that QBR
    (commented) and one whose assignee is not; one of the latest other QBR assigned to ``x``, who is not invited
    there; one of ``team`` at the ``third``-th QBR before those whose assignee ``z`` is invited (commented).
    (the QBRs with their raised issues, invitations by event id)"""
    linear = world("linear", seed)
    o = org(seed)
    staff = {e.email for e in o.employees}
    engineers = sorted({u["id"] for i in linear["issues"] for u in linear["users"]
                        if u["id"] == i["assignee"] and u["active"] and u["email"] in staff
                        and u["id"] != linear["viewer"] and i["id"].startswith("ENG-")})
    users = {u["id"]: u for u in linear["users"]}
    rooms = [k for k, (e, _, _) in enumerate(past) if e["location"]]
    if not rooms or len(past) < 3:
        return None
    a = rooms[-1]
    rest = [k for k in range(len(past) - 1, -1, -1) if k != a]
    if third + 1 >= len(rest):
        return None
    b, c = rest[0], rest[1 + third]
    present = {k: {m["email"] for m in past[k][0]["attendees"]} for k in (a, b, c)}
    busy = {i["assignee"] for _, _, raised in past for i in raised}
    free = [u for u in engineers if u not in busy and all(users[u]["email"] not in p for p in present.values())]
    if len(free) < 3:
        return None
    x, y, z = free[:3]
    number = {t: max(int(i["id"].split("-")[1]) for i in linear["issues"] if i["id"].startswith(f"{t}-"))
              for t in ("ENG", team)}
    planted: dict[int, list[dict[str, Any]]] = {a: [], b: [], c: []}
    plants = [(a, x, "Todo", "ENG"), (a, y, "Todo", "ENG"), (b, x, "In Progress", "ENG"), (c, z, "Backlog", team)]
    for n, (k, who, state, key) in enumerate(plants):
        event, customer, _ = past[k]
        contact = next((p for p in customer.contacts if p.email in present[k]), None)
        if contact is None:
            return None
        reported = _monday_before(event["start"]) - timedelta(days=3 + 2 * n)
        number[key] += 1
        planted[k].append({
            "id": f"{key}-{number[key]}", "title": PLANTED_TITLES[n], "state": state, "assignee": who, "priority": 2,
            "labels": ["Bug"] if any(lb["name"] == "Bug" for lb in linear["labels"]) else [], "comments": [],
            "description": (f"Reported by {contact.first} {contact.last} ({contact.email}) of {customer.name} on "
                            f"{reported:%d %B %Y}. Account owner: {_owner_name(o, customer)}."),
            "creator": linear["viewer"], "created_at": f"{reported.isoformat()}T10:{10 + n:02d}:00Z",
        })
    out = [(e, cu, [*raised, *planted.get(k, [])]) for k, (e, cu, raised) in enumerate(past)]
    invites = {past[a][0]["id"]: [users[x]["email"]], past[c][0]["id"]: [users[z]["email"]]}
    return out, invites


def _owner_name(o, customer) -> str:
    owner = next(e for e in o.employees if e.key == customer.owner)
    return owner.name


def _plan(seed: int, past, week: dict[str, tuple[Any, list[dict[str, Any]]]], targets: list[str],
          invites: dict[str, list[str]]) -> Any:
    """Whom next week's QBRs invite so that at least one issue to raise carries the habit (and, of several,
    one does not), every other reading is told apart (:func:`left_open`) and no other open issue of a
    customer met has an invited assignee: (examples, new issues, invitations by event id), or ``None``."""
    issues = {i["id"]: i for i in world("linear", seed)["issues"]}
    users = {u["id"]: u["email"] for u in world("linear", seed)["users"]}

    def attendees(events: list[dict[str, Any]], invited: dict[str, list[str]]) -> set[str]:
        return {a["email"] for e in events for a in e["attendees"]} | {m for e in events for m in invited.get(e["id"], [])}

    def facts(invited: dict[str, list[str]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]] | None:
        examples: list[dict[str, Any]] = []
        items: list[dict[str, Any]] = []
        groups = [([e], c, raised) for e, c, raised in past] + [
            (events, c, [issues[t] for t in targets if issues[t] in reported_by(seed, c.name)])
            for c, events in week.values()]
        for events, c, raised in groups:
            present = attendees(events, invited)
            others = [i for i in reported_by(seed, c.name) if is_open(i, seed) and i not in raised]
            if any(users.get(i["assignee"] or "") in present for i in others):
                return None  # an open issue left alone whose assignee is at the QBR: the habit would not say
            out = examples if events[0]["start"] < WEEK[0] else items
            out += [_facts(seed, i, c, [e["id"] for e in events], present) for i in raised]
        return examples, items

    base = facts(invites)
    if base is None:
        return None
    _, items = base
    choices: list[list[dict[str, Any]]] = [[]] if any(x["commented"] for x in items) else [
        [x] for x in items if x["active"]]
    for new in choices:
        invited = {k: list(v) for k, v in invites.items()}
        for x in new:
            for event_id in x["events"]:
                invited.setdefault(event_id, []).append(x["assignee_email"])
        got = facts(invited)
        if got is None:
            continue
        ex, it = got
        if not FLAGGED[0] <= sum(x["commented"] for x in ex) <= FLAGGED[1] or not any(x["commented"] for x in it):
            continue
        if len(it) > 1 and all(x["commented"] for x in it):
            continue
        # an issue not due the comment whose assignee is at another customer's QBR next week: "anyone in next
        # week's QBRs" would comment it, and the examples need not say otherwise
        everyone = attendees([e for _, events in week.values() for e in events], invited)
        if any(x["assignee_email"] in everyone for x in it if not x["commented"]):
            continue
        if left_open(READINGS, ex, it, lambda x: x["commented"]) or _unlike(ex, it):
            continue
        return ex, it, invited
    return None


def case_of(seed: int) -> dict[str, Any] | None:  # noqa: C901, PLR0912, PLR0915 - one world's whole case, read in order
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
    week_by: dict[str, tuple[Any, list[dict[str, Any]]]] = {}
    for e in week:
        c = customer_of_meeting(seed, e)
        week_by.setdefault(c.name, (c, []))[1].append(e)
    # The QBRs prepared before (the examples) and whom their invitations and next week's must hold.
    past = _past(seed, set(week_by), {decoy[0], *targets})
    if past is None:
        return None
    # the plants whose third example shares a team and an in-person (or remote) QBR with the new issue due
    # the comment, tried in order
    plan = None
    for team, third in itertools.product(("ENG", "MOB", "PLT"), range(len(past))):
        planted = _plant(seed, past, team, third)
        if planted is None:
            continue
        plan = _plan(seed, planted[0], week_by, targets, planted[1])
        if plan:
            past = planted[0]
            break
    if not plan:
        return None
    examples, items, invites = plan
    check_habit(examples, items)
    linear = {i["id"]: i for i in world("linear", seed)["issues"]}
    viewer = world("linear", seed)["viewer"]
    calendar_patch: list[dict[str, Any]] = []
    linear_patch: list[dict[str, Any]] = []
    flagged = {x["id"] for x in examples if x["commented"]}
    for e, c, raised in past:
        fields: dict[str, Any] = {}
        if raised:
            prep = _monday_before(e["start"])
            ids = ", ".join(i["id"] for i in raised)
            fields["description"] = f"{e['description']}\n\nPrep ({_day(prep)}): raised their open issues to High: {ids}."
        if e["id"] in invites:
            fields["attendees"] = _invite(e, invites[e["id"]])
        if fields:
            calendar_patch.append({"op": "update", "in": ["events"], "id": e["id"], "fields": fields})
        for i in raised:
            added = i["id"] not in linear
            if added:
                linear_patch.append({"op": "add", "in": ["issues"], "value": i})
            else:
                linear_patch.append({"op": "update", "in": ["issues"], "id": i["id"], "fields": {"priority": 2}})
            if i["id"] not in flagged:
                continue
            who = next(x for x in examples if x["id"] == i["id"])["assignee"]
            qbr = date.fromisoformat(e["start"][:10])
            body = (f"{who.split()[0]}, you're in the {c.short} QBR with me on {_day(qbr)}: this one will come up, "
                    "so I've raised it to High. Could you have an update ready by then?")
            n = 1 if added else len(linear[i["id"]]["comments"]) + 1
            linear_patch.append({"op": "add", "in": ["issues", i["id"], "comments"], "value": {
                "id": f"{i['id']}-c{n}", "author": viewer, "body": body,
                "created_at": f"{_monday_before(e['start']).isoformat()}T09:20:00Z"}})
    for _, evs in week_by.values():
        for e in evs:
            if e["id"] in invites:
                calendar_patch.append({"op": "update", "in": ["events"], "id": e["id"],
                                       "fields": {"attendees": _invite(e, invites[e["id"]])}})
    due = [x for x in items if x["commented"]]
    shorts = {x["id"]: next(c.short for c, _ in week_by.values() if c.name == x["customer"]) for x in items}

    def comment(x: dict[str, Any]) -> dict[str, Any]:
        return {"tool": "linear__create_comment", "arguments": {"issueId": x["id"], "body": (
            f"{x['assignee'].split()[0]}, you're in the {shorts[x['id']]} QBR with me next week: this one will come up, "
            "so I've raised it to High. Could you have an update ready by then?")}}

    reference: list[dict[str, Any]] = [
        {"tool": "calendar__search_events",
         "arguments": {"query": "QBR", "timeMin": "2026-03-23T00:00", "timeMax": "2026-03-30T00:00", "maxResults": 50}},
        {"tool": "calendar__search_events",
         "arguments": {"query": "QBR", "timeMin": f"{PAST_FROM}T00:00", "timeMax": "2026-03-16T00:00", "maxResults": 100}},
        *({"tool": "linear__get_issue", "arguments": {"id": x["id"]}} for x in examples),
    ]
    for c in customers:
        reference.append({"tool": "linear__list_issues", "arguments": {"query": c.short, "limit": 50}})
    updates = [{"tool": "linear__update_issue", "arguments": {"id": i, "priority": 2}} for i in targets]
    comments = [comment(x) for x in due]
    reference += [*updates, *comments]
    if len(reference) not in calls_of("medium", cross_server=True):
        return None
    first = linear[targets[0]]
    nudge = next(p for p in (3, 4, 0) if p != first["priority"])
    first_comments = [comment(x) for x in due if x["id"] == targets[0]]
    wrong: list[dict[str, Any]] = [
        {
            "why": decoy[1],
            "kind": "lookalike",
            "calls": [*updates, *comments, {"tool": "linear__update_issue", "arguments": {"id": decoy[0], "priority": 2}}],
        },
        {
            "why": f"raises {targets[0]} but misses the other issues"
            if len(targets) > 1
            else f"sets {targets[0]} to {PRIORITY_NAMES[nudge]}, which is not High",
            "kind": "other",
            "calls": [*updates[:1], *first_comments]
            if len(targets) > 1
            else [{"tool": "linear__update_issue", "arguments": {"id": targets[0], "priority": nudge}}, *comments],
        },
        {
            "why": "raises every issue as the goal says but leaves no word for "
                   + ", ".join(f"{x['assignee']} ({x['id']})" for x in due)
                   + ", invited to the QBR, as Priya did on the raised issues of the assignees invited to earlier QBRs",
            "kind": "other",
            "calls": updates,
        },
    ]
    spare = [x for x in items if not x["commented"]]
    if spare:
        wrong.append({
            "why": f"comments on {spare[0]['id']}, whose assignee is not at the QBR, instead of on "
                   + ", ".join(x["id"] for x in due),
            "kind": "other",
            "calls": [*updates, {"tool": "linear__create_comment", "arguments": {
                "issueId": spare[0]["id"], "body": "Raised to High: this will come up at the customer's QBR next week."}}],
        })
    if closed:
        wrong.append(
            {
                "why": f"also reopens-in-priority {closed[0]}, which is already closed",
                "kind": "collateral",
                "calls": [*updates, *comments, {"tool": "linear__update_issue", "arguments": {"id": closed[0], "priority": 2}}],
            }
        )
    else:
        wrong.append(
            {
                "why": f"raises the issues and also takes {targets[0]} over (assigns it to me)",
                "kind": "collateral",
                "calls": [
                    *updates[1:],
                    *comments,
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
                    *comments,
                    *[{"tool": "linear__update_issue", "arguments": {"id": i, "priority": 2}} for i in urgent],
                ],
            }
        )
    week_ids = [e["id"] for e in week]
    frame: list[dict[str, Any]] = [{"entity": "linear.issue", "ids": targets, "fields": ["priority"], "values": {"priority": {"in": [1, 2]}}}]
    frame += [{"entity": "linear.comment", "change": ["create"], "where": {"issue": i}, "max": 1} for i in targets]
    frame.append({"entity": "calendar.event", "ids": week_ids, "fields": ["description"]})
    success = {
        "all": [
            *({
                "any": [
                    {"linear.issuePriority": {"issue": i, "priority": "High"}},
                    {"linear.issuePriority": {"issue": i, "priority": "Urgent"}},
                ]
            } for i in targets),
            *({"linear.issueHasComment": {"issue": x["id"], "pattern": _carries(x, shorts[x["id"]])}} for x in due),
        ]
    }
    alternatives = [
        {
            "why": "makes the issues Urgent rather than High",
            "calls": [*({"tool": "linear__update_issue", "arguments": {"id": i, "priority": 1}} for i in targets), *comments],
        },
        {
            "why": "raises each issue and leaves a comment on every one saying why (more than the habit asks)",
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
        {
            "why": "also notes the prep in next week's QBR descriptions, as the earlier QBRs' descriptions do",
            "calls": [*updates, *comments, *({"tool": "calendar__update_event", "arguments": {
                "calendarId": PRIMARY, "eventId": e["id"],
                "description": f"{e['description']}\n\nPrep (Mon 16 Mar): raised their open issues to High."}}
                for e in week)],
        },
    ]
    return {
        "customers": [c.name for c in customers],
        "targets": targets,
        "patch": {"calendar": calendar_patch, "linear": linear_patch},
        "frame": frame,
        "max_steps": budget(len(reference), 1),
        "success": success,
        "reference": reference,
        "wrong": wrong,
        "alternatives": alternatives,
        "summary": {"examples": len(examples), "flagged": sorted(flagged), "due": [x["id"] for x in due],
                    "spare": [x["id"] for x in spare]},
    }


def _carries(item: dict[str, Any], short: str) -> str:
    """What a comment telling the assignee that the issue comes up at the QBR carries: the QBR, the customer
    or the assignee's name (any of them)."""
    first, *_, last = item["assignee"].split()
    return "|".join(["QBR", "[Qq]uarterly", "[Bb]usiness [Rr]eview", re.escape(short), re.escape(first), re.escape(last)])


def check_habit(examples: list[dict[str, Any]], items: list[dict[str, Any]]) -> None:
    """Raise unless the examples are as many as :data:`EXAMPLES` says, the commented ones a minority
    (:data:`FLAGGED`), some new issue due a comment, and every reading in :data:`READINGS` that fits the
    examples treats every new issue as the habit does."""
    if not EXAMPLES[0] <= len(examples) <= EXAMPLES[1]:
        raise ValueError(f"{ID}: {len(examples)} examples, not {EXAMPLES[0]}-{EXAMPLES[1]}")
    if not FLAGGED[0] <= sum(x["commented"] for x in examples) <= FLAGGED[1]:
        raise ValueError(f"{ID}: the commented examples are not {FLAGGED[0]}-{FLAGGED[1]}")
    if not any(x["commented"] for x in items):
        raise ValueError(f"{ID}: no new issue is due the comment")
    for name in left_open(READINGS, examples, items, lambda x: x["commented"])[:1]:
        raise ValueError(f"{ID}: the reading {name!r} fits every example and treats a new issue otherwise")
    for field in _unlike(examples, items)[:1]:
        raise ValueError(f"{ID}: no commented example shares the {field} of a new issue due the comment")


def _unlike(examples: list[dict[str, Any]], items: list[dict[str, Any]]) -> list[str]:
    """The facts (team, an in-person QBR) of a new issue due the comment that no commented example shares: the
    reading "invited and on that team" (or "invited to an in-person QBR") would leave it uncommented."""
    return [field for field in ("team", "in_person") for x in items if x["commented"]
            and not any(e["commented"] and e[field] == x[field] for e in examples)]


def build() -> dict[str, Any]:
    task = case_task(
        GOAL,
        ["calendar", "linear"],
        TOOLS,
        faults=[{"tool": "linear__update_issue", "kind": "unavailable", "on_call": 1}],
        timeout_s=300,
    )
    task["initial_state"] = {s: world_state(s, f"{{{{case.patch.{s}}}}}") for s in ("calendar", "linear")}
    return template(
        id=ID,
        version=3,
        servers=["calendar", "linear"],
        difficulty="medium",
        category="recovery",
        case_list=cases(case_of),
        task=task,
    )
