"""Facts the account-management templates (``x_t_*``) read from the version-2 worlds of one seed.

Private to those modules: the worlds as the agent sees them (calendar events, Linear issues, the CRM in
Notion, Slack's users and channels), and the small lookups the templates share: which issues a
customer reported, which of them are still open, who owns an account today.
"""

from __future__ import annotations

import re
from typing import Any

from tasks_catalog.authoring.cross import org, world, world_state

#: Linear workflow-state types of an issue that is still open.
OPEN_TYPES = frozenset({"triage", "backlog", "unstarted", "started"})


def state_ref(server: str) -> dict[str, Any]:
    """A server's initial state: its version-2 world of the case's seed, unpatched."""
    return world_state(server)


#: People whose names differ by a letter from a colleague's: the lookalike of a person a task is about.
LOOKALIKE_PEOPLE = {
    "Maria Santos": "Maria Santana", "Maria Santana": "Maria Santos",
    "Jon Berg": "John Berg", "John Berg": "Jon Berg",
    "Alex Chen": "Alexa Chen", "Alexa Chen": "Alex Chen",
    "Sam Patel": "Sami Patel", "Sami Patel": "Sam Patel",
    "Nina Kovacs": "Nina Kovac", "Nina Kovac": "Nina Kovacs",
}
#: Priority names as Linear's tools number them.
PRIORITY_NAMES = {0: "No priority", 1: "Urgent", 2: "High", 3: "Medium", 4: "Low"}


def state_types(seed: int) -> dict[tuple[str, str], str]:
    """(team key, state name) -> workflow-state type, as Linear's teams define them."""
    return {(t["key"], s["name"]): s["type"] for t in world("linear", seed)["teams"] for s in t["states"]}


def is_open(issue: dict[str, Any], seed: int) -> bool:
    """Whether a Linear issue is still open (triage, backlog, unstarted or started)."""
    return state_types(seed)[(issue["id"].split("-")[0], issue["state"])] in OPEN_TYPES


#: how the world's Linear writes a report in a customer's short name ("Reported by Falcon Outdoor on Friday.")
_SHORT_REPORT = re.compile(r"Reported by ([^\n(]+?) on (?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\.")


def _customer(seed: int, legal_name: str):
    return next(c for c in org(seed).customers if c.name == legal_name)


def reported_by(seed: int, legal_name: str) -> list[dict[str, Any]]:
    """The Linear issues a customer reported: the description names the reporter 'of <legal name> on', or
    says it was 'Raised in the <legal name> trial by' one of its people (before the customer signed up), or
    names the customer by its short name ('Reported by <short name> on Friday.'; solvers read the last two
    as reports too, calibration rounds 3 and 5)."""
    markers, short = (f" of {legal_name} on ", f"Raised in the {legal_name} trial by "), _customer(seed, legal_name).short
    return [i for i in world("linear", seed)["issues"]
            if any(m in i["description"] for m in markers) or short in _SHORT_REPORT.findall(i["description"])]


def short_name_shared(seed: int, legal_name: str) -> bool:
    """Whether another customer has this customer's short name and an issue is reported in it: whose report
    it is cannot be told, so a case about either skips the seed."""
    short = _customer(seed, legal_name).short
    if sum(c.short == short for c in org(seed).customers) < 2:
        return False
    return any(short in _SHORT_REPORT.findall(i["description"]) for i in world("linear", seed)["issues"])


def customer_of_meeting(seed: int, event: dict[str, Any]):
    """The organisation's customer a calendar event is with (the meeting it projects), or None."""
    o = org(seed)
    by_key = {c.key: c for c in o.customers}
    for m in o.meetings:
        if m.title == event["title"] and m.start == event["start"] and m.subject in by_key:
            return by_key[m.subject]
    return None


def employee(seed: int, key: str):
    """The employee of ``key``."""
    return next(e for e in org(seed).employees if e.key == key)


def crm_rows(seed: int) -> list[dict[str, Any]]:
    """The rows of the CRM (Customer Accounts) in Notion."""
    n = world("notion", seed)
    db = next(d for d in n["databases"] if d["title"] == "Customer Accounts")
    return [p for p in n["pages"] if p["parent_id"] == db["id"] and not p["archived"]]


def crm_database_id(seed: int) -> str:
    """The id of the CRM database (Customer Accounts) in Notion."""
    return next(d["id"] for d in world("notion", seed)["databases"] if d["title"] == "Customer Accounts")


def notion_user_email(seed: int, user_id: str) -> str:
    """The email of a Notion user."""
    u = next(u for u in world("notion", seed)["users"] if u["id"] == user_id)
    return u.get("person", {}).get("email") or u.get("email")


def first_name_pattern(name: str) -> str:
    """A pattern that finds a person's full name in free text (any whitespace between the parts)."""
    return r"\s+".join(part for part in name.split())


def case_task(
    goal: str, servers: list[str], tools: list[str], *, faults: list[dict[str, Any]], timeout_s: int
) -> dict[str, Any]:
    """A template's task body whose budget, frame, predicate and solutions are all the case's own
    (``case.max_steps``, ``case.frame``, ``case.success``, ``case.reference``, ``case.wrong``,
    ``case.alternatives``), every server starting from its world of the case's seed."""
    return {
        "goal": goal,
        "initial_state": {server: state_ref(server) for server in servers},
        "faults": faults,
        "available_tools": tools,
        "max_steps": "{{case.max_steps}}",
        "timeout_s": timeout_s,
        "frame": "{{case.frame}}",
        "success": "{{case.success}}",
        "reference_solution": "{{case.reference}}",
        "wrong_solutions": "{{case.wrong}}",
        "alternative_solutions": "{{case.alternatives}}",
    }
