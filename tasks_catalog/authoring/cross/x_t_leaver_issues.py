"""x-t-leaver-issues: an engineer leaves on Friday and their open Linear issues are handed over as the
engineering handbook's leaver page (planted in Notion) says, each issue decided on its own: work in
progress or in review to the team's lead (the first person the team's page lists), any other open issue to the owner
of its service as the service's runbook names them (the service its title names, or for an incident's
follow-up the incident's service, which its description gives), to the lead where the leaver owns that
service, and an issue about no service unassigned and back to the Backlog; every issue handed over gets a
comment. Closed issues stay. The leaver's name has a lookalike in Linear (Jon and John Berg...). One
update answers ``unavailable`` (not applied: retry).
Version 2 keeps only the organisations where this takes a cross-server hard task's 25-60 calls."""

from __future__ import annotations

import re
from typing import Any

from tasks_catalog.authoring.cross import org, world
from tasks_catalog.authoring.cross._x_t_people import call, notion_page, people_template, solved

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


def case_of(seed: int) -> dict[str, Any] | None:
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

    handbook_parent = notion_page(seed, "Engineering")["id"]
    stem = handbook_parent[:-4]
    patch_notion = [{"op": "add", "in": ["pages"], "value": {
        "id": f"{stem}7001", "title": HANDBOOK, "parent_id": handbook_parent, "properties": {}, "archived": False,
        "created_time": "2026-01-12T09:00:00Z",
        "content": [{"id": f"{stem}71{k:02d}", "type": "paragraph", "text": text} for k, text in enumerate(RULES)]}}]

    first = leaver.first
    comment = f"Handed over from {name}, who is leaving on Friday."
    discover = [
        call("notion__search", query="leaves"),
        call("notion__get_block_children", block_id=f"{stem}7001"),
        call("linear__list_users", query=name.split()[-1]),
        call("linear__list_issues", assignee=users[name]["id"], limit=50),
        call("notion__search", query=f"Team: {leaver.team}"),
        call("notion__get_block_children", block_id=team_page["id"]),
    ]
    looked: list[str] = []
    writes: list[dict] = []
    frame: list[dict] = []
    success: list[dict] = []
    for issue, to, _ in decisions:
        service = None if issue["state"] in WORKING else _service(issue, services)
        if service and service not in looked:
            looked.append(service)
            page = notion_page(seed, f"Runbook: {service}")
            discover += [call("notion__search", query=f"Runbook: {service}"),
                         call("notion__get_block_children", block_id=page["id"])]
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
        writes.append(call("linear__create_comment", issueId=issue["id"], body=comment))
        frame.append({"entity": "linear.comment", "change": ["create"], "where": {"issue": issue["id"]}, "max": 1})
        success.append({"linear.issueHasComment": {"issue": issue["id"], "pattern": first}})
    reference = [*discover, *writes]
    updates = [w for w in writes if w["tool"] == "linear__update_issue"]
    comments = [w for w in writes if w["tool"] == "linear__create_comment"]
    fault_call = 2  # the second update_issue answers 'unavailable' (not applied); the oracle retries it

    other_id = users[other]["id"]
    others = [i for i in linear["issues"] if i.get("assignee") == other_id and i["state"] in OPEN]
    closed = [i for i in linear["issues"] if i.get("assignee") == users[name]["id"] and i["state"] not in OPEN]
    wrongs = [
        {"why": f"hands over {other}'s open issues instead of {name}'s", "kind": "lookalike",
         "calls": [call("linear__update_issue", id=i["id"], assignee=manager.name) for i in others]
         + [call("linear__create_comment", issueId=i["id"], body=comment) for i in others]
         or [call("linear__update_issue", id=decisions[0][0]["id"], assignee=other_id)]},
        {"why": "hands over the open issues right and the closed ones too", "kind": "collateral",
         "calls": [*writes, *(call("linear__update_issue", id=i["id"], assignee=manager.name) for i in closed)]},
        {"why": "gives every open issue to the team's manager", "kind": "other",
         "calls": [*(call("linear__update_issue", id=i["id"], assignee=manager.name) for i, _, _ in decisions),
                   *comments]},
        {"why": "reassigns without the comments", "kind": "other", "calls": updates},
        {"why": "unassigns the issues about no service but leaves them in their state", "kind": "other",
         "calls": [call("linear__update_issue", id=w["arguments"]["id"], assignee=w["arguments"]["assignee"])
                   for w in updates] + comments},
    ]
    if not any(to is None and i["state"] != "Backlog" for i, to, _ in decisions):
        wrongs.pop()  # every issue about no service is in the Backlog already
    alternatives = [
        {"why": "comments on every issue first, then reassigns them", "calls": [*discover, *comments, *updates]},
        {"why": "reads each issue before handing it over",
         "calls": [*discover[:4], *(call("linear__get_issue", id=i["id"]) for i, _, _ in decisions[:3]),
                   *discover[4:], *writes]},
    ]
    return solved(
        leaver=name,
        patch={"linear": [], "notion": patch_notion},
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
             "handbook says.",
        tools=["linear__list_teams", "linear__list_users", "linear__list_issue_statuses", "linear__list_issues",
               "linear__get_issue", "linear__list_comments", "linear__list_projects", "linear__get_project",
               "linear__update_issue", "linear__create_comment", "notion__search", "notion__retrieve_page",
               "notion__get_block_children", "notion__query_database", "notion__list_users"]), "version": 2}
