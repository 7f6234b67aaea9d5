"""Hard (recovery): every account owner of a customer hit by this year's SEV1 or SEV2 incidents is in the
incident's Slack channel, and each channel where someone was added is told who.

The set is a join: the incidents and the customers they hit are in Slack (each channel's timeline), the
account owner of record is the CRM's Owner in Notion, the person is found again in Slack by email. The
world decides each item: the owner who reported the customer impact is already in the channel (nothing to
do), an owner of two hit customers is added once, SEV3 incidents and last year's are out of scope (their
owners are missing from the SEV3 channels too: adding them is damage), a Slack lookalike shares the
owner's first name. Faults: the first invite is unavailable (retry it), the second message times out
after it was posted (look before posting again)."""

from __future__ import annotations

from typing import Any

from tasks_catalog.authoring.cross import budget, cases, org, template, world
from tasks_catalog.authoring.cross._x_t_eng import initial_state, judged_by_case, slack_channel, slack_user_by_email

YEAR_START = "2026-01-01"


def _crm(seed: int) -> tuple[dict[str, Any], dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """The CRM database, its rows by account (legal name), and the Notion users by id."""
    notion = world("notion", seed)
    db = next(d for d in notion["databases"] if d["title"] == "Customer Accounts")
    rows = {p["title"]: p for p in notion["pages"] if p["parent_id"] == db["id"] and not p.get("archived")}
    return db, rows, {u["id"]: u for u in notion["users"]}


def case_of(seed: int) -> dict[str, Any] | None:  # noqa: C901, PLR0912, PLR0915 - one pass over the incidents, deciding each
    company = org(seed)
    db, rows, notion_users = _crm(seed)
    by_email = slack_user_by_email(seed)
    slack_users = world("slack", seed)["users"]
    in_scope: list[Any] = []
    traps: list[Any] = []
    patch: list[Any] = []
    for incident in company.incidents:
        if not incident.customers:
            continue
        if incident.started < YEAR_START <= (incident.resolved or "9999"):
            return None  # an incident across the new year: "since the start of the year" would be arguable
        if incident.started < YEAR_START:
            continue
        channel = slack_channel(seed, f"incident-{incident.number}")
        if channel["is_archived"]:
            return None
        speakers = {m["user"] for m in channel["messages"]}
        owners: list[str] = []
        for key in incident.customers:
            customer = company.customer(key)
            row = rows.get(customer.name)
            if row is None or len(row["properties"]["Owner"]) != 1:
                return None
            person = notion_users[row["properties"]["Owner"][0]]
            user = by_email.get(person["email"])
            if user is None or user.get("deleted") or person["email"] != company.employee(customer.owner).email:
                return None
            if user["id"] not in owners:
                owners.append(user["id"])
        # who may be taken out of the channel: owners who did not speak there (the reporter of the impact stays)
        # (out of scope, a SEV3 channel's reporter has left it as well: adding them back is the trap)
        reporter = {m["user"] for m in channel["messages"] if m["text"].startswith("Customer impact")}
        sev3 = incident.severity not in ("SEV1", "SEV2")
        removable = [u for u in owners if u not in speakers or (sev3 and u in reporter)]
        members = [m for m in channel["members"] if m not in removable]
        missing = [u for u in owners if u not in members]
        if removable:
            patch.append({"op": "update", "in": ["channels"], "id": channel["id"], "fields": {"members": members}})
        entry = {"number": incident.number, "channel": channel["id"], "owners": owners, "missing": missing}
        (in_scope if incident.severity in ("SEV1", "SEV2") else traps).append(entry)
    todo = [e for e in in_scope if e["missing"]]
    done = [e for e in in_scope if not e["missing"]] + [e for e in in_scope if e["missing"] and len(e["missing"]) < len(e["owners"])]
    trap = next((e for e in traps if e["missing"]), None)
    if len(todo) < 2 or len(todo) > 5 or trap is None or not done:
        return None
    names = {u["id"]: u["real_name"] for u in slack_users}
    # the lookalike: an active Slack user with the first name of an owner to add, who is not one of the owners
    first_missing = todo[0]["missing"][0]
    first = names[first_missing].split()[0]
    every_owner = {u for e in in_scope + traps for u in e["owners"]}
    lookalike = next((u["id"] for u in slack_users if not u.get("deleted") and not u.get("is_bot")
                      and u["real_name"].split()[0] == first and u["id"] not in every_owner
                      and u["id"] not in slack_channel_members(seed, todo[0]["channel"], patch)), None)
    if lookalike is None:
        return None

    def note(entry: dict[str, Any]) -> str:
        who = ", ".join(f"<@{u}> ({names[u]})" for u in entry["missing"])
        return (f"Added {who}: account owner of a customer hit by incident {entry['number']}, "
                f"so you hear about it from us first. The timeline is above.")

    reads = [{"tool": "slack__list_channels", "arguments": {"limit": 100}}]
    reads += [{"tool": "slack__get_channel_history", "arguments": {"channel_id": e["channel"]}}
              for e in sorted(in_scope + traps, key=lambda e: e["number"])]
    reads += [{"tool": "notion__search", "arguments": {"query": "Customer Accounts"}},
              {"tool": "notion__query_database", "arguments": {"database_id": db["id"], "page_size": 100}},
              {"tool": "notion__list_users", "arguments": {"page_size": 100}},
              {"tool": "slack__get_users", "arguments": {"limit": 200}}]
    invites = [{"tool": "slack__invite_to_channel", "arguments": {"channel_id": e["channel"], "users": e["missing"]}}
               for e in todo]
    posts = [{"tool": "slack__post_message", "arguments": {"channel_id": e["channel"], "text": note(e)}} for e in todo]
    writes: list[dict[str, Any]] = []
    for i, (invite, post) in enumerate(zip(invites, posts)):
        writes += [invite, post]
        if i == 1:  # the second message times out after it was posted: look before doing anything else
            writes.append({"tool": "slack__get_channel_history", "arguments": {"channel_id": todo[1]["channel"], "limit": 3}})
    reference = reads + writes
    calls = len(reference)
    max_steps = budget(calls, 1)  # the unavailable first invite is retried once

    frame: list[dict[str, Any]] = []
    success: list[dict[str, Any]] = []
    for e in todo:
        frame.append({"entity": "slack.channel", "ids": [e["channel"]], "fields": ["members"],
                      "values": {"members": {"add": e["missing"]}}})
        frame.append({"entity": "slack.message", "change": ["create"], "where": {"channel": e["channel"]}, "max": 1})
        success.append({"slack.channelHasMembers": {"channel": e["channel"], "members": e["owners"]}})
        success += [{"slack.messagePosted": {"channel": e["channel"],
                                             "pattern": f"({u}|{'|'.join(names[u].split())})"}}
                    for u in e["missing"]]
    for e in in_scope:
        if not e["missing"]:
            success.append({"slack.channelHasMembers": {"channel": e["channel"], "members": e["owners"]}})

    swapped = [dict(c) for c in invites]
    swapped[0] = {"tool": "slack__invite_to_channel", "arguments": {
        "channel_id": todo[0]["channel"], "users": [lookalike if u == first_missing else u for u in todo[0]["missing"]]}}
    blind = []
    for i, (invite, post) in enumerate(zip(invites, posts)):
        blind += [invite, post] + ([post] if i == 1 else [])
    return {
        "initial": initial_state(["notion", "slack"], {"slack": "{{case.patch}}"}),
        "patch": patch,
        "max_steps": max_steps,
        "frame": frame,
        "success": {"all": success},
        "reference": reference,
        "wrong_lookalike": [*swapped, *posts],
        "wrong_collateral": [*invites, *posts, {"tool": "slack__invite_to_channel", "arguments": {
            "channel_id": trap["channel"], "users": trap["missing"]}}],
        "wrong_blind_retry": blind,
        "wrong_partial": [invites[0], posts[0]],
        "alternative": [*reads, *invites, *posts[:2],
                        {"tool": "slack__get_channel_history", "arguments": {"channel_id": todo[1]["channel"]}},
                        *posts[2:]],
    }


def slack_channel_members(seed: int, channel_id: str, patch: list[dict[str, Any]]) -> list[str]:
    """A channel's members once ``patch`` is applied."""
    for op in patch:
        if op["id"] == channel_id:
            return op["fields"]["members"]
    return next(c for c in world("slack", seed)["channels"] if c["id"] == channel_id)["members"]


def build() -> dict[str, Any]:
    found = cases(case_of)
    initial = found[0].pop("initial")
    for case in found[1:]:
        case.pop("initial")
    return template(
        id="x-t-incident-channel-account-owners", version=2, servers=["notion", "slack"], difficulty="medium",
        category="recovery", case_list=found,
        task={
            "goal": ("Account owners keep hearing about our incidents from their customers before they hear from "
                     "us. For every SEV1 or SEV2 incident since the start of this year that hit customers, make "
                     "sure the account owner of each customer it hit is in the incident's Slack channel. In each "
                     "channel where you add someone, post one message saying who you added."),
            "initial_state": initial,
            "available_tools": [
                "notion__search", "notion__retrieve_page", "notion__get_block_children", "notion__query_database",
                "notion__retrieve_database", "notion__list_users",
                "slack__list_channels", "slack__get_channel_history", "slack__get_thread_replies",
                "slack__search_messages", "slack__get_users", "slack__get_user_profile",
                "slack__invite_to_channel", "slack__kick_from_channel", "slack__post_message",
                "slack__reply_to_thread", "slack__set_channel_topic"],
            "faults": [{"tool": "slack__invite_to_channel", "kind": "unavailable", "on_call": 1},
                       {"tool": "slack__post_message", "kind": "timeout_after_commit", "on_call": 2}],
            **judged_by_case(timeout_s=900),
            "wrong_solutions": [
                {"why": "adds the colleague who shares the first owner's first name instead of the owner",
                 "kind": "lookalike", "calls": "{{case.wrong_lookalike}}"},
                {"why": "does what is asked, then also adds the owners of a SEV3 incident's customers",
                 "kind": "collateral", "calls": "{{case.wrong_collateral}}"},
                {"why": "posts the second message again after its timeout, though it had been posted",
                 "kind": "other", "calls": "{{case.wrong_blind_retry}}"},
                {"why": "handles the first incident only", "kind": "other", "calls": "{{case.wrong_partial}}"},
            ],
            "alternative_solutions": [
                {"why": "invites everyone first, then posts, checking the channel after the message that timed out",
                 "calls": "{{case.alternative}}"},
            ],
        })
