"""x-t-renewal-terms-request: a key account's billing contact asks Priya for renewal terms and mentions
the account manager they used to deal with; the request goes to the account's owner of record.

Medium; Gmail and Notion. The case is a key account whose owner changed this winter (the first owner
left): the customer's email names the old owner, the CRM (Customer Accounts in Notion) names today's
owner as a Notion user whose email ``list_users`` shows. The customer records policy says the CRM's
Owner is the owner of record; the newer source wins over the customer's memory.
"""

from __future__ import annotations

from typing import Any

from tasks_catalog.authoring.cross import cases, org, template, world
from tasks_catalog.authoring.cross._x_t_billing import GMAIL_TOOLS, NOTION_READ, gmail_message, rng_for, world_ref

ID = "x-t-renewal-terms-request"


def case_of(seed: int) -> dict[str, Any] | None:
    o = org(seed)
    notion = world("notion", seed)
    rng = rng_for(ID, seed)
    db = next(d for d in notion["databases"] if d["title"] == "Customer Accounts")
    rows = {p["properties"].get("CRM ID"): p for p in notion["pages"]
            if p.get("parent_id") == db["id"] and not p.get("archived")}
    users = {u["id"]: u for u in notion["users"]}
    emp = {e.key: e for e in o.employees}
    titles = [p["title"] for p in notion["pages"]]
    fit = []
    for c in o.customers:
        row = rows.get(c.crm_id)
        if (row is None or not c.key_account or not c.previous_owner or c.status != "Active" or c.group
                or c.duplicate_of or not c.renewal or titles.count(row["title"]) != 1):
            continue
        owner_ids = row["properties"].get("Owner") or []
        if len(owner_ids) != 1 or owner_ids[0] not in users:
            continue
        owner = users[owner_ids[0]]
        prev = emp[c.previous_owner]
        if owner.get("email") != emp[c.owner].email or prev.email == owner["email"]:
            continue
        fit.append((c, row, owner, prev))
    if not fit:
        return None
    c, row, owner, prev = rng.choice(fit)
    contact = c.contact("billing")
    message = gmail_message(
        seed=seed, key=ID, sender=contact.email, date="2026-03-13T11:05:00Z",
        subject=f"Renewal terms for {c.short}",
        body=(f"Hello Priya,\n\nour contract with you comes up for renewal on {c.renewal}. Could you send us the "
              f"renewal terms for {c.seats} seats, and an option for {c.seats + 10}? Last year {prev.first} "
              f"{prev.last} handled our renewal; I have not heard from {prev.first} since the winter.\n\n"
              f"Best regards,\n{contact.first} {contact.last}\n{contact.title}, {c.name}"))
    forward: dict[str, Any] = {"tool": "gmail__send_email", "arguments": {
        "to": [owner["email"]], "subject": f"Fwd: Renewal terms for {c.short}",
        "body": f"Hi {owner['name'].split()[0]},\n\n{contact.first} {contact.last} ({contact.email}) at {c.name}, "
                f"your account, asks for renewal terms for {c.seats} seats and an option for {c.seats + 10}; their "
                f"contract renews on {c.renewal}. Could you send them the terms?\n\nThanks,\nPriya"}}
    reply = {"tool": "gmail__send_email", "arguments": {
        "to": [contact.email], "subject": f"Re: Renewal terms for {c.short}", "threadId": message["id"],
        "body": f"Hello {contact.first},\n\nthank you. {owner['name']} now looks after your account and will send "
                f"you the renewal terms.\n\nBest regards,\nPriya"}}
    stale = {"tool": "gmail__send_email", "arguments": {**forward["arguments"], "to": [prev.email]}}
    both = {"tool": "gmail__send_email", "arguments": {
        "to": [contact.email, owner["email"]], "subject": f"Re: Renewal terms for {c.short}",
        "threadId": message["id"],
        "body": f"Hello {contact.first},\n\n{owner['name']} now looks after your account and will send you the "
                f"renewal terms for {c.seats} and {c.seats + 10} seats.\n\nBest regards,\nPriya"}}
    return {
        "customer": {"name": c.name, "short": c.short},
        "contact": {"first": contact.first, "last": contact.last, "email": contact.email},
        "owner": {"email": owner["email"], "name": owner["name"]},
        "previous": {"email": prev.email},
        "gmail_patch": [{"op": "add", "in": ["messages"], "value": message}],
        "reference": [
            {"tool": "gmail__search_emails", "arguments": {"query": f"renewal from:{contact.email}"}},
            {"tool": "gmail__read_email", "arguments": {"messageId": message["id"]}},
            {"tool": "notion__search", "arguments": {"query": c.short}},
            {"tool": "notion__retrieve_page", "arguments": {"page_id": row["id"]}},
            {"tool": "notion__list_users", "arguments": {"page_size": 100}},
            forward, reply,
        ],
        "wrongs": [
            {"why": "forwards the request to the account manager the customer remembers, who no longer owns it",
             "kind": "lookalike", "calls": [stale, reply]},
            {"why": "forwards it to the owner and also to the former owner",
             "kind": "collateral", "calls": [forward, stale, reply]},
            {"why": "answers the customer but never passes the request on",
             "kind": "other", "calls": [reply]},
        ],
        "alternatives": [
            {"why": "one email to the customer and the owner together, on the customer's thread", "calls": [both]},
            {"why": "tells the customer first, then forwards", "calls": [reply, forward]},
        ],
    }


def build() -> dict[str, Any]:
    task = {
        "goal": "{{case.contact.first}} {{case.contact.last}} at {{case.customer.short}} asked me for their "
                "renewal terms. Pass the request to whoever owns their account now, and let {{case.contact.first}} "
                "know who will be in touch.",
        "initial_state": {
            "gmail": {"world": world_ref("gmail"), "patch": "{{case.gmail_patch}}"},
            "notion": {"world": world_ref("notion"), "patch": []},
        },
        "available_tools": [*GMAIL_TOOLS, *NOTION_READ],
        "faults": [],
        "max_steps": 11,
        "timeout_s": 600,
        "frame": [
            {"entity": "gmail.message", "fields": ["label_ids"]},
            {"entity": "gmail.message", "change": ["create"], "where": {"to": ["{{case.owner.email}}"]}, "max": 2},
            {"entity": "gmail.message", "change": ["create"], "where": {"to": ["{{case.contact.email}}"]}, "max": 2},
            {"entity": "gmail.message", "change": ["create"],
             "where": {"to": ["{{case.owner.email}}", "{{case.contact.email}}"]}, "max": 1},
            {"entity": "gmail.message", "change": ["create"],
             "where": {"to": ["{{case.contact.email}}", "{{case.owner.email}}"]}, "max": 1},
            {"entity": "gmail.draft", "change": ["create", "delete"]},
        ],
        "success": {"all": [
            {"gmail.draftSent": {"subject_pattern": "enewal|erms|ccount", "to": "{{case.owner.email}}"}},
            {"gmail.draftSent": {"subject_pattern": "enewal|erms|ccount", "to": "{{case.contact.email}}"}},
        ]},
        "reference_solution": "{{case.reference}}",
        "wrong_solutions": "{{case.wrongs}}",
        "alternative_solutions": "{{case.alternatives}}",
    }
    return template(id=ID, version=1, servers=["gmail", "notion"], difficulty="medium", category="standard",
                    case_list=cases(case_of), task=task)
