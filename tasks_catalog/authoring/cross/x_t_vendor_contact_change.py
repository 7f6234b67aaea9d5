"""x-t-vendor-contact-change (medium): one of the three printers with nearly the same name (Harbour Print
Co, Harbour Printing Ltd, Harbor Print Co) wrote twice about our accounts contact there: first naming one
person, then, weeks later, correcting it to another. The vendor register in Notion must name the later
one, on that printer's row only."""

from __future__ import annotations

import hashlib
import random
from typing import Any

from tasks_catalog.authoring.cross import budget, cases, org, template, world
from tasks_catalog.authoring.cross import world_state as state

ID = "x-t-vendor-contact-change"
PRINTERS = ("Harbour Print Co", "Harbour Printing Ltd", "Harbor Print Co")
FIRST = ("Ines", "Tomas", "Lena", "Mateo", "Sofia", "Viktor", "Amara", "Kofi", "Yuki", "Elif")
LAST = ("Moreau", "Novak", "Duarte", "Keller", "Brandt", "Okoro", "Varga", "Lindgren", "Costa", "Hale")


def case_of(seed: int) -> dict[str, Any] | None:
    """The case of ``seed``: the printer that writes, its row in the register, the two contacts it named."""
    o = org(seed)
    vendors = {v.name: v for v in o.vendors}
    if any(p not in vendors for p in PRINTERS):
        return None
    notion = world("notion", seed)
    db = next(d for d in notion["databases"] if d["title"] == "Vendors")
    rows = {p["title"]: p for p in notion["pages"] if p.get("parent_id") == db["id"]}
    if any(rows.get(p, {}).get("properties", {}).get("Contact") != vendors[p].email for p in PRINTERS):
        return None
    rng = random.Random(f"{ID}:{seed}")
    name = rng.choice(PRINTERS)
    vendor, row = vendors[name], rows[name]
    look = rows[next(p for p in PRINTERS if p != name and p.split()[0] == name.split()[0])
                if name != "Harbor Print Co" else "Harbour Print Co"]
    people = [(f, last) for f in FIRST for last in LAST]
    (f1, l1), (f2, l2) = rng.sample(people, 2)
    domain = vendor.email.split("@")[1]
    first, second = f"{f1.lower()}.{l1.lower()}@{domain}", f"{f2.lower()}.{l2.lower()}@{domain}"
    sign = f"\n\nBest regards,\n{vendor.contact}\nAccounts receivable, {vendor.name}"
    ids = [hashlib.sha256(f"{ID}:{seed}:{k}".encode()).hexdigest()[:16] for k in range(2)]
    day1, day2 = f"2026-02-{rng.randint(16, 26):02d}T{rng.randint(8, 16):02d}:{rng.randint(0, 59):02d}:00Z", \
        f"2026-03-{rng.randint(9, 13):02d}T{rng.randint(8, 16):02d}:{rng.randint(0, 59):02d}:00Z"
    subject = f"Your accounts contact at {vendor.name}"
    patch = [
        {"op": "add", "in": ["messages"], "value": {
            "id": ids[0], "thread_id": ids[0], "sender": vendor.email, "to": ["priya.raman@kestrelfreight.com"],
            "cc": [], "subject": subject, "date": day1, "label_ids": ["INBOX"],
            "body": (f"Hello,\n\nfrom 1 March your contact for bills, statements and remittances at {vendor.name} is "
                     f"{f1} {l1} ({first}). Please update your supplier records." + sign)}},
        {"op": "add", "in": ["messages"], "value": {
            "id": ids[1], "thread_id": ids[0], "sender": vendor.email, "to": ["priya.raman@kestrelfreight.com"],
            "cc": [second], "subject": f"Re: {subject}", "date": day2, "label_ids": ["INBOX", "UNREAD"],
            "body": (f"Hello again,\n\na correction to my earlier note: {f1} {l1} has moved to another team, so your "
                     f"contact for bills, statements and remittances is {f2} {l2} ({second}, in copy) instead." + sign)}},
    ]
    update = {"page_id": row["id"], "properties": {"Contact": second}}
    reference = [
        {"tool": "gmail__search_emails", "arguments": {"query": "contact after:2026/02/01", "maxResults": 20}},
        {"tool": "gmail__get_thread", "arguments": {"threadId": ids[0]}},
        {"tool": "notion__search", "arguments": {"query": "Vendors", "filter": "database"}},
        {"tool": "notion__query_database", "arguments": {"database_id": db["id"], "filter": [
            {"property": "Category", "equals": "Printing"}]}},
        {"tool": "notion__update_page", "arguments": update},
    ]
    return {
        "vendor": {"name": vendor.name, "row": row["id"], "first": first, "second": second},
        "look": {"name": look["title"], "row": look["id"]},
        "patch": patch,
        "reference": reference,
        "max_steps": budget(len(reference)),
        "update": update,
    }


def build() -> dict[str, Any]:
    """The template document."""
    frame = [{"entity": "notion.page", "ids": ["{{case.vendor.row}}"], "fields": ["properties.Contact"]},
             {"entity": "gmail.message", "change": ["create"], "max": 1},
             {"entity": "notion.comment", "change": ["create"], "where": {"page_id": "{{case.vendor.row}}"}, "max": 1}]
    return template(
        id=ID, version=1, servers=["gmail", "notion"], difficulty="medium", category="standard",
        case_list=cases(case_of),
        task={
            "goal": ("One of our printing suppliers has emailed us about who our contact there is now. "
                     "Bring that supplier's Contact in our vendor register up to date."),
            "initial_state": {"gmail": state("gmail", "{{case.patch}}"), "notion": state("notion")},
            "available_tools": ["gmail__search_emails", "gmail__get_thread", "gmail__read_email", "gmail__send_email",
                                "gmail__list_email_labels", "notion__search", "notion__retrieve_page",
                                "notion__retrieve_database", "notion__query_database", "notion__update_page",
                                "notion__get_block_children", "notion__create_comment"],
            "max_steps": "{{case.max_steps}}",
            "timeout_s": 300,
            "frame": frame,
            "success": {"all": [
                {"notion.pagePropertyEquals": {"page": "{{case.vendor.row}}", "property": "Contact",
                                               "value": "{{case.vendor.second}}"}},
            ]},
            "reference_solution": "{{case.reference}}",
            "wrong_solutions": [
                {"why": "puts the new contact on {{case.look.name}}, the printer with nearly the same name",
                 "kind": "lookalike",
                 "calls": [{"tool": "notion__update_page", "arguments": {
                     "page_id": "{{case.look.row}}", "properties": {"Contact": "{{case.vendor.second}}"}}}]},
                {"why": "records the first contact named, which the later email corrected",
                 "kind": "other",
                 "calls": [{"tool": "notion__update_page", "arguments": {
                     "page_id": "{{case.vendor.row}}", "properties": {"Contact": "{{case.vendor.first}}"}}}]},
                {"why": "updates the right row and also {{case.look.name}}'s, as if both printers were one",
                 "kind": "collateral",
                 "calls": [{"tool": "notion__update_page", "arguments": "{{case.update}}"},
                           {"tool": "notion__update_page", "arguments": {
                               "page_id": "{{case.look.row}}", "properties": {"Contact": "{{case.vendor.second}}"}}}]},
            ],
            "alternative_solutions": [
                {"why": "also thanks the supplier for the update",
                 "calls": [{"tool": "notion__update_page", "arguments": "{{case.update}}"},
                           {"tool": "gmail__send_email", "arguments": {
                               "to": ["{{case.vendor.second}}"], "subject": "Re: your accounts contact",
                               "body": "Thank you: our vendor register now names you as our contact."}}]},
            ],
        })
