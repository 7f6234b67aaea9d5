"""x-t-leaver-issues: an engineer leaves on Friday and their open Linear issues are handed over as the
engineering handbook's leaver page (planted in Notion) says, each issue decided on its own: work in
progress or in review to the team's lead (the first person the team's page lists), any other open issue to the owner
of its service as the service's runbook names them (the service its title names, or for an incident's
follow-up the incident's service, which its description gives), to the lead where the leaver owns that
service, and an issue about no service unassigned and back to the Backlog; every issue handed over gets a
comment. Closed issues stay. The leaver's name has a lookalike in Linear (Jon and John Berg...). One
update answers ``unavailable`` (not applied: retry).
Version 2 keeps only the organisations where this takes a cross-server hard task's 25-60 calls.
Version 3 adds the team's past handovers: two engineers who left earlier (inactive in Linear), each with a
"Handover: <name>" page under the handbook listing the identifiers of the issues handed over, and those
issues in Linear reassigned by the handbook with the handover comment. One convention no page states
shows only in those comments (``get_issue``/``list_comments``; ``list_issues`` carries no comments) and
only on the few issues that went to someone outside the leaver's team (the team the runbook's owner line
gives, in Notion): their comment also names the leaver's team lead as the person to ask
(:data:`CONVENTION`, its alternatives and the examples that rule each out: :data:`ALTERNATIVES`,
asserted per case)."""

from __future__ import annotations

import re
from typing import Any

from tasks_catalog.authoring.cross import org, world
from tasks_catalog.authoring.cross._x_t_people import call, long_date, notion_page, people_template, solved

OPEN = ("Triage", "Backlog", "Todo", "In Progress", "In Review")
WORKING = ("In Progress", "In Review")
PAIRS = (("Jon Berg", "John Berg"), ("Alex Chen", "Alexa Chen"), ("Sam Patel", "Sami Patel"),
         ("Nina Kovacs", "Nina Kovac"), ("Maria Santos", "Maria Santana"))
HANDBOOK = "Engineering handbook: when someone leaves"
RULES = (
    "Before an engineer's last day, their open Linear issues (every state but Done, Canceled and Duplicate) are "
    "handed over, each as follows. Closed issues stay as they are.",
    "An issue In Progress or In Review goes to the leaver's team lead (the first person the team's page in Notion "
    "lists), who decides who finishes it.",
    "Any other open issue goes to the owner of its service, as the service's runbook names them. Its service is "
    "the one its title names or, for an incident's follow-up, the incident's service. Where the leaver owns "
    "that service, the issue goes to the team lead.",
    "An open issue about no service loses its assignee and goes back to the Backlog.",
    "Comment on every issue you hand over that it comes from the leaver, who is leaving.",
)
RECORDS = "Earlier handovers are recorded on the pages under this one, one per leaver."


#: The convention the past handovers show and no page states.
CONVENTION = ("an issue handed to someone outside the leaver's team (the team the service's runbook gives "
              "its owner) gets a comment that also names the leaver's team lead as the person to ask")
#: Its plausible other readings: on which past examples each would name the lead (the real one: ``cross``).
#: Every one must disagree with the examples somewhere (:func:`_ruled_out` raises otherwise).
ALTERNATIVES: dict[str, Any] = {
    "never (the reference minus the convention): the comment is always the plain handover line": lambda ex: False,
    "always: every handover comment names the lead": lambda ex: True,
    "every issue that goes to a service's owner names the lead": lambda ex: ex["kind"] in ("same", "cross"),
    "issues of tier-1 services name the lead": lambda ex: ex["tier1"],
    "urgent or high-priority issues name the lead": lambda ex: ex["priority"] in (1, 2),
}
#: How many past examples of each kind one past leaver's handover takes at most (work: in progress or
#: review, to the lead; none: about no service, back to the Backlog; same / cross: to a service's owner
#: inside / outside the leaver's team), how many past leavers at most, and what all of them must show.
PAST_QUOTA = {"work": 2, "none": 3, "same": 2, "cross": 2}
PAST_LEAVERS = 3
PAST_NEEDS = {"work": 2, "none": 2, "same": 2, "cross": 2}
PAST_CROSS_MAX = 4
PAST_EXAMPLES = range(12, 31)


def _service(issue: dict[str, Any], services: list[str]) -> str | None:
    named = [s for s in services if re.search(rf"(?<![a-z-]){re.escape(s)}(?![a-z-])", issue["title"])]
    m = re.match(r"Follow-up from incident \d+ \(([a-z-]+),", issue.get("description") or "")
    if issue["title"].startswith("Incident ") and m:
        # a follow-up whose title names another service than its incident's would read two ways
        return m.group(1) if named in ([], [m.group(1)]) else "?"
    return named[0] if len(named) == 1 else ("?" if named else None)


def _runbook_owner(seed: int, service: str) -> str | None:
    page = notion_page(seed, f"Runbook: {service}")
    for block in page["content"]:
        m = re.match(r"Owner: ([^(.]+?) \(", block.get("text", ""))
        if m:
            return m.group(1)
    return None


def _leaver(o, linear: dict[str, Any], users: dict[str, Any]):
    """The first of a lookalike pair, both in Linear, with 5 or more open issues and some closed ones: the
    leaver, their lookalike and their open issues; None when no pair qualifies."""
    for name, other in PAIRS + tuple((b, a) for a, b in PAIRS):
        if name not in users or other not in users:
            continue
        mine = [i for i in linear["issues"] if i.get("assignee") == users[name]["id"]]
        open_ = [i for i in mine if i["state"] in OPEN]
        if len(open_) >= 5 and len(mine) > len(open_):
            return next(e for e in o.employees if e.name == name and e.active), other, open_
    return None


def _decide(seed: int, issue: dict[str, Any], leaver: str, lead: str, services: list[str],
            users: dict[str, Any]) -> tuple[str | None, str] | None:
    """Whom the handbook gives ``issue`` to (None: nobody, back to the Backlog) and why; None when the world
    does not decide it fairly (a title naming two services, a runbook owner not in Linear)."""
    if issue["state"] in WORKING:
        return lead, "in progress or review"
    service = _service(issue, services)
    if service == "?":
        return None
    if service is None:
        return None, "no service"
    owner = _runbook_owner(seed, service)
    if owner is None or owner not in users:
        return None
    return (lead, f"{service}, owned by the leaver") if owner == leaver else (owner, service)


def _team_lead(seed: int, team: str | None) -> str | None:
    """The first person the team's page lists (None: no team, or no such page)."""
    if team is None:
        return None
    page = next((p for p in world("notion", seed)["pages"] if p["title"] == f"Team: {team}"), None)
    bullets = [b for b in (page or {}).get("content", []) if b.get("type") == "bulleted_list_item"]
    return bullets[0]["text"].split(",")[0] if bullets else None


def _owner_team(seed: int, service: str | None) -> str | None:
    """The team the service's runbook gives its owner (``Owner: Rosa Mensah (Backend).``), when the owner is
    listed on that team's page and on no other (None otherwise: no service, or two sources would disagree)."""
    if service is None:
        return None
    for block in notion_page(seed, f"Runbook: {service}")["content"]:
        m = re.match(r"Owner: ([^(.]+?) \(([^)]+)\)", block.get("text", ""))
        if m:
            teams = [p["title"][len("Team: "):] for p in world("notion", seed)["pages"] if p["title"].startswith("Team: ")
                     and any(b.get("text", "").startswith(f"{m.group(1)},") for b in p["content"])]
            return m.group(2) if teams == [m.group(2)] else None
    return None


def _kind(seed: int, issue: dict[str, Any], to: str | None, lead: str, team: str, services: list[str]) -> str:
    """work (in progress or review, to the lead), none (no service), lead (the leaver's own service), or
    same / cross: to the service's owner inside / outside the leaver's team ("?": the owner's team is unclear)."""
    if issue["state"] in WORKING:
        return "work"
    if to is None:
        return "none"
    if to == lead:
        return "lead"
    owner_team = _owner_team(seed, _service(issue, services))
    return "?" if owner_team is None else "same" if owner_team == team else "cross"


def _number(identifier: str) -> tuple[str, int]:
    team, number = identifier.split("-")
    return team, int(number)


def _plain(name: str) -> str:
    return f"Handed over from {name}, who is leaving."


def _asking(name: str, lead: str, team: str) -> str:
    return f"Handed over from {name}, who is leaving. Questions about it: {lead}, {team} lead."


def _past(seed: int, o, linear: dict[str, Any], users: dict[str, Any], services: list[str],
          busy: set[str], avoid: set[str]) -> list[dict[str, Any]] | None:
    """Two or three engineers who left before now (inactive in Linear, their team's page leading to an active
    lead, no two with the same lead)
    and the open issues each handed over, as the handbook and the convention decide: issues none of
    ``busy`` (user ids) holds, whose handover goes to none of ``avoid`` (names), created before the leave
    date. None when the world has too few."""
    everyone = {u["name"]: u for u in linear["users"]}
    taken: set[str] = set()
    past: list[dict[str, Any]] = []
    leavers = sorted((e for e in o.employees if not e.active and e.department == "Engineering" and e.leave
                      and e.leave < linear["now"][:10] and e.name in everyone and not everyone[e.name].get("active", True)),
                     key=lambda e: (e.leave, e.key), reverse=True)
    for e in leavers:
        lead = _team_lead(seed, e.team)
        if lead is None or lead not in users or lead in avoid or lead in {p["lead"] for p in past} or any(
                i.get("assignee") == everyone[e.name]["id"] and i["state"] in OPEN for i in linear["issues"]):
            continue  # every open issue of a past leaver was handed over
        quota = dict(PAST_QUOTA)
        picked = []
        crossing = sum(ex["kind"] == "cross" for p in past for ex in p["examples"])
        for issue in linear["issues"]:
            if issue["state"] not in OPEN or issue.get("assignee") in busy or issue["id"] in taken or issue["created_at"][:10] >= e.leave:
                continue
            decided = _decide(seed, issue, e.name, lead, services, users)
            if decided is None or decided[0] in avoid:
                continue
            kind = _kind(seed, issue, decided[0], lead, e.team, services)
            if quota.get(kind, 0) < 1 or kind == "cross" and crossing >= PAST_CROSS_MAX:
                continue
            quota[kind] -= 1
            crossing += kind == "cross"
            taken.add(issue["id"])
            service = None if kind in ("work", "none") else _service(issue, services)
            picked.append({"issue": issue, "to": decided[0], "kind": kind, "priority": issue["priority"],
                           "tier1": service is not None and next(s for s in o.services if s.name == service).tier == 1,
                           "owner_lead": _team_lead(seed, _owner_team(seed, service)) if kind == "cross" else None})
        if len(picked) < 3:
            for ex in picked:
                taken.discard(ex["issue"]["id"])
            continue
        past.append({"leaver": e, "lead": lead, "examples": picked})
        if len(past) == PAST_LEAVERS:
            break
    examples = [ex for p in past for ex in p["examples"]]
    if len(past) < 2 or len(examples) not in PAST_EXAMPLES or any(
            sum(ex["kind"] == kind for ex in examples) < need for kind, need in PAST_NEEDS.items()):
        return None
    return past


def _ruled_out(past: list[dict[str, Any]]) -> dict[str, list[str]]:
    """For each of :data:`ALTERNATIVES`, the past examples that contradict it; ``ValueError`` when one fits
    every example, or when a cross-team example's owner has the same lead as the leaver (the examples would
    not tell "the leaver's lead" from "the new owner's lead")."""
    examples = [ex for p in past for ex in p["examples"]]
    out = {}
    for why, names_lead in ALTERNATIVES.items():
        against = [ex["issue"]["id"] for ex in examples if names_lead(ex) != (ex["kind"] == "cross")]
        if not against:
            raise ValueError(f"x-t-leaver-issues: the past handovers do not rule out {why!r}")
        out[why] = against
    for p in past:
        for ex in p["examples"]:
            if ex["kind"] == "cross" and ex["owner_lead"] == p["lead"]:
                raise ValueError(f"x-t-leaver-issues: {ex['issue']['id']} goes to a team led by the leaver's lead")
    out["the comment names the new owner's team lead"] = [ex["issue"]["id"] for ex in examples if ex["kind"] == "cross"]
    return out


def case_of(seed: int) -> dict[str, Any] | None:  # noqa: C901, PLR0912, PLR0915 - one case is one story, told in order
    o = org(seed)
    linear = world("linear", seed)
    users = {u["name"]: u for u in linear["users"] if u.get("active", True)}
    services = [s.name for s in o.services]
    chosen = _leaver(o, linear, users)
    if chosen is None:
        return None
    leaver, other, open_ = chosen
    name = leaver.name
    manager = o.employee(leaver.manager)
    team_page = notion_page(seed, f"Team: {leaver.team}")
    bullets = [b for b in team_page["content"] if b.get("type") == "bulleted_list_item"]
    if not bullets or not bullets[0]["text"].startswith(f"{manager.name},") or manager.name not in users:
        return None  # the team's lead (its manager) is the first person its page lists
    decided = [(issue, _decide(seed, issue, name, manager.name, services, users)) for issue in open_]
    if any(d is None for _, d in decided):
        return None
    decisions = [(issue, d[0], d[1]) for issue, d in decided if d is not None]
    kinds = {("manager" if to == manager.name else "none" if to is None else "owner") for _, to, _ in decisions}
    if len(kinds) < 2 or len(decisions) > 12:
        return None

    lead = manager.name
    busy = {users[name]["id"], users[other]["id"]}
    past = _past(seed, o, linear, users, services, busy, {name, other})
    if past is None:
        return None
    ruled_out: dict[str, list[str] | str] = dict(_ruled_out(past))
    tier1 = {s.name for s in o.services if s.tier == 1}

    def item(issue: dict[str, Any], to: str | None) -> dict[str, Any]:
        kind = _kind(seed, issue, to, lead, leaver.team, services)
        service = None if kind in ("work", "none") else _service(issue, services)
        return {"issue": issue, "to": to, "kind": kind, "priority": issue["priority"], "tier1": service in tier1,
                "service": service,
                "owner_lead": _team_lead(seed, _owner_team(seed, service)) if kind == "cross" else None}

    items = [item(issue, to) for issue, to, _ in decisions]
    if any(it["kind"] == "?" for it in items):
        return None
    # Where the leaver's own issues show the convention fewer than twice or its absence never, the smallest
    # patch plants it: the first open issues (not in progress, not an example) that would, become theirs.
    shown = {ex["issue"]["id"] for p in past for ex in p["examples"]}
    planted: list[dict[str, Any]] = []
    for issue in linear["issues"]:
        lacking = {"cross": 2 - sum(it["kind"] == "cross" for it in items),
                   "none": 1 - sum(it["kind"] in ("same", "none") for it in items)}
        if max(lacking.values()) <= 0:
            break
        if (issue["state"] not in OPEN or issue["state"] in WORKING or issue.get("assignee") in busy
                or issue["id"] in shown):
            continue
        decided_one = _decide(seed, issue, name, lead, services, users)
        if decided_one is None:
            continue
        candidate = item(issue, decided_one[0])
        if lacking.get(candidate["kind"], 0) > 0:
            planted.append(issue)
            items.append(candidate)
    items.sort(key=lambda it: _number(it["issue"]["id"]))
    crossing = [it for it in items if it["kind"] == "cross"]
    guarded = [it for it in items if it["kind"] in ("same", "none")]
    if len(crossing) < 2 or not guarded or len(items) > 12:
        return None  # the new items show the convention twice or more, and its absence once or more
    crossing_leads = {p["lead"] for p in past if any(ex["kind"] == "cross" for ex in p["examples"])}
    if len(crossing_leads) < 2 and crossing_leads != {lead}:
        return None  # the examples name two leads, or the one they name is this leaver's lead too
    ruled_out["the comment names one fixed person, whoever leaves"] = [
        ex["issue"]["id"] for p in past for ex in p["examples"] if ex["kind"] == "cross"] if len(crossing_leads) > 1 else (
        "the one lead the examples name is this leaver's lead too: the readings agree")
    # the lead's first or last name where the convention asks for it (the goal's sign-off names the lead)
    lead_name = rf"\b(?:{re.escape(lead.split()[0])}|{re.escape(lead.split()[-1])})\b"
    near = {name, other, *(it["to"] for it in guarded if it["to"]), *(it["owner_lead"] for it in crossing)}
    if any(re.search(lead_name, who) for who in near if who != lead) or any(
            re.search(lead_name, c["body"]) for it in items for c in it["issue"]["comments"]):
        return None  # the lead's name is told apart from every other name the comments may carry

    handbook_parent = notion_page(seed, "Engineering")["id"]
    stem = handbook_parent[:-4]
    handbook = f"{stem}7001"
    patch_notion = [{"op": "add", "in": ["pages"], "value": {
        "id": handbook, "title": HANDBOOK, "parent_id": handbook_parent, "properties": {}, "archived": False,
        "created_time": "2025-06-02T09:00:00Z",
        "content": [{"id": f"{stem}71{k:02d}", "type": "paragraph", "text": text}
                    for k, text in enumerate((*RULES, RECORDS))]}}]
    patch_linear: list[dict] = [{"op": "update", "in": ["issues"], "id": i["id"], "fields": {"assignee": users[name]["id"]}}
                                for i in planted]
    for k, p in enumerate(past):
        e, plead = p["leaver"], p["lead"]
        patch_notion.append({"op": "add", "in": ["pages"], "value": {
            "id": f"{stem}700{k + 2}", "title": f"Handover: {e.name}", "parent_id": handbook, "properties": {},
            "archived": False, "created_time": f"{e.leave}T17:00:00Z",
            "content": [{"id": f"{stem}7{k + 2}00", "type": "paragraph",
                         "text": f"{e.name} ({e.team}) left on {long_date(e.leave)} {e.leave[:4]}. "
                                 "Their open Linear issues were handed over:"},
                        *({"id": f"{stem}7{k + 2}{j + 1:02d}", "type": "bulleted_list_item", "text": ex["issue"]["id"]}
                          for j, ex in enumerate(sorted(p["examples"], key=lambda ex: _number(ex["issue"]["id"]))))]}})
        for ex in p["examples"]:
            issue = ex["issue"]
            fields: dict[str, Any] = {"assignee": users[ex["to"]]["id"] if ex["to"] else None}
            if ex["kind"] == "none":
                fields["state"] = "Backlog"
            handed = {"id": f"{issue['id']}-c{len(issue['comments']) + 1}", "author": users[plead]["id"],
                      "body": _asking(e.name, plead, e.team) if ex["kind"] == "cross" else _plain(e.name),
                      "created_at": f"{e.leave}T10:00:00Z"}
            fields["comments"] = sorted([*issue["comments"], handed], key=lambda c: c["created_at"])  # oldest first
            patch_linear.append({"op": "update", "in": ["issues"], "id": issue["id"], "fields": fields})

    first = leaver.first
    examples = [ex["issue"]["id"] for p in past for ex in p["examples"]]
    discover = [
        call("notion__search", query="leaves"),
        call("notion__get_block_children", block_id=handbook),
        call("linear__list_users", query=name.split()[-1]),
        call("linear__list_issues", assignee=users[name]["id"], limit=50),
        call("notion__search", query=f"Team: {leaver.team}"),
        call("notion__get_block_children", block_id=team_page["id"]),
        call("notion__search", query="Handover:"),
        *(call("notion__get_block_children", block_id=f"{stem}700{k + 2}") for k in range(len(past))),
        *(call("linear__get_issue", id=i) for i in sorted(examples, key=_number)),
        call("notion__search", query="Runbook:", page_size=50),
    ]
    looked: list[str] = []
    writes: list[dict] = []
    frame: list[dict] = []
    success: list[dict] = []
    wanted = {ex["issue"]["id"]: ex for p in past for ex in p["examples"]}
    runbooks = [it["service"] for it in items] + [
        _service(ex["issue"], services) for ex in wanted.values() if ex["kind"] in ("same", "cross")]
    for service in runbooks:
        if service and service not in looked:
            looked.append(service)
            discover.append(call("notion__get_block_children", block_id=notion_page(seed, f"Runbook: {service}")["id"]))
    for it in items:
        issue, to = it["issue"], it["to"]
        if to is None:
            writes.append(call("linear__update_issue", id=issue["id"], assignee="", state="Backlog"))
            frame.append({"entity": "linear.issue", "ids": [issue["id"]], "fields": ["assignee", "state"],
                          "values": {"assignee": {"eq": None}, "state": {"eq": "Backlog"}}})
            success += [{"linear.issueAssignee": {"issue": issue["id"], "assignee": None}},
                        {"linear.issueState": {"issue": issue["id"], "state": "Backlog"}}]
        else:
            uid = users[to]["id"]
            writes.append(call("linear__update_issue", id=issue["id"], assignee=uid))
            frame.append({"entity": "linear.issue", "ids": [issue["id"]], "fields": ["assignee"],
                          "values": {"assignee": {"eq": uid}}})
            success.append({"linear.issueAssignee": {"issue": issue["id"], "assignee": uid}})
        body = _asking(name, lead, leaver.team) if it["kind"] == "cross" else _plain(name)
        writes.append(call("linear__create_comment", issueId=issue["id"], body=body))
        frame.append({"entity": "linear.comment", "change": ["create"], "where": {"issue": issue["id"]}, "max": 1})
        success.append({"linear.issueHasComment": {"issue": issue["id"], "pattern": first}})
        if it["kind"] == "cross":  # naming the lead where the examples do not is more than they do, not damage
            success.append({"linear.issueHasComment": {"issue": issue["id"], "pattern": lead_name}})
    reference = [*discover, *writes]

    def commented(text) -> list[dict]:
        """The reference's writes with each item's comment ``text(item)``."""
        bodies = iter(text(it) for it in items)
        return [call(w["tool"], issueId=w["arguments"]["issueId"], body=next(bodies))
                if w["tool"] == "linear__create_comment" else w for w in writes]
    updates = [w for w in writes if w["tool"] == "linear__update_issue"]
    comments = [w for w in writes if w["tool"] == "linear__create_comment"]
    fault_call = 2  # the second update_issue answers 'unavailable' (not applied); the oracle retries it

    other_id = users[other]["id"]
    others = [i for i in linear["issues"] if i.get("assignee") == other_id and i["state"] in OPEN]
    closed = [i for i in linear["issues"] if i.get("assignee") == users[name]["id"] and i["state"] not in OPEN]
    wrongs = [
        {"why": f"hands over {other}'s open issues instead of {name}'s", "kind": "lookalike",
         "calls": [call("linear__update_issue", id=i["id"], assignee=manager.name) for i in others]
         + [call("linear__create_comment", issueId=i["id"], body=_plain(name)) for i in others]
         or [call("linear__update_issue", id=items[0]["issue"]["id"], assignee=other_id)]},
        {"why": "hands over the open issues right and the closed ones too", "kind": "collateral",
         "calls": [*writes, *(call("linear__update_issue", id=i["id"], assignee=manager.name) for i in closed)]},
        {"why": "gives every open issue to the team's manager", "kind": "other",
         "calls": [*(call("linear__update_issue", id=it["issue"]["id"], assignee=manager.name) for it in items),
                   *comments]},
        {"why": "reassigns without the comments", "kind": "other", "calls": updates},
        {"why": "unassigns the issues about no service but leaves them in their state", "kind": "other",
         "calls": [call("linear__update_issue", id=w["arguments"]["id"], assignee=w["arguments"]["assignee"])
                   for w in updates] + comments},
    ]
    if not any(it["to"] is None and it["issue"]["state"] != "Backlog" for it in items):
        wrongs.pop()  # every issue about no service is in the Backlog already
    wrongs += [
        {"why": "names the lead as the person to ask on the issues going outside the team, but the new owner's lead",
         "kind": "other", "calls": commented(lambda it: _asking(name, it["owner_lead"], leaver.team)
                                             if it["kind"] == "cross" else _plain(name))}]
    for why, names_lead in ALTERNATIVES.items():
        if any(it["kind"] == "cross" and not names_lead(it) for it in items):  # a reading that leaves one out
            wrongs.append({"why": f"reads the past handovers as {why!r}", "kind": "other",
                           "calls": commented(lambda it, f=names_lead: _asking(name, lead, leaver.team) if f(it)
                                              else _plain(name))})
    alternatives = [
        {"why": "comments on every issue first, then reassigns them", "calls": [*discover, *comments, *updates]},
        {"why": "names the lead as the person to ask on every handover, more than the examples do",
         "calls": commented(lambda it: _asking(name, lead, leaver.team))},
        {"why": "reads each issue before handing it over",
         "calls": [*discover[:4], *(call("linear__get_issue", id=it["issue"]["id"]) for it in items[:3]),
                   *discover[4:], *writes]},
    ]
    return solved(
        leaver=name,
        lead=lead,
        facts={"convention": CONVENTION, "ruled_out": ruled_out,
               "new": {it["issue"]["id"]: it["kind"] for it in items}},
        patch={"linear": patch_linear, "notion": patch_notion},
        faults=[{"tool": "linear__update_issue", "on_call": fault_call, "kind": "unavailable"}],
        frame=frame,
        success={"all": success},
        reference=reference,
        wrong=wrongs,
        alternatives=alternatives,
        retried=1)


def build() -> dict[str, Any]:
    return {**people_template(
        id="x-t-leaver-issues", servers=["linear", "notion"], difficulty="hard", category="recovery",
        case_of=case_of, timeout_s=600,
        goal="{{case.leaver}}'s last day is this Friday. Hand their Linear work over the way our engineering "
             "handbook says, as we did for the people who left before. Thanks, {{case.lead}}",
        tools=["linear__list_teams", "linear__list_users", "linear__list_issue_statuses", "linear__list_issues",
               "linear__get_issue", "linear__list_comments", "linear__list_projects", "linear__get_project",
               "linear__update_issue", "linear__create_comment", "notion__search", "notion__retrieve_page",
               "notion__get_block_children", "notion__query_database", "notion__list_users"]), "version": 3}
