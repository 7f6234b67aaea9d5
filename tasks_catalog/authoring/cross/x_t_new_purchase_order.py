"""x-t-new-purchase-order: a customer's billing contact emails a new purchase order number; it goes on
their Stripe customer (metadata ``po_number``, the key Stripe already holds their old one under).

Easy, Gmail and Stripe. The case is a customer whose Stripe record carries a PO number and is billed at
its billing contact's address, with a lookalike (another Stripe customer whose name starts with the
same word: Unity Builders and Unity Medical); the planted email is the only source of the new number.
"""

from __future__ import annotations

from typing import Any

from tasks_catalog.authoring.cross import cases, org, template, world
from tasks_catalog.authoring.cross._x_t_billing import GMAIL_TOOLS, STRIPE_READ, gmail_message, rng_for, world_ref

ID = "x-t-new-purchase-order"


def case_of(seed: int) -> dict[str, Any] | None:
    """The facts of seed ``seed``: the customer, its billing contact, the lookalike and the new PO number."""
    o = org(seed)
    stripe = world("stripe", seed)
    by_id = {c["id"]: c for c in stripe["customers"]}
    first_words: dict[str, list[dict]] = {}
    for c in stripe["customers"]:
        first_words.setdefault(c["name"].split()[0], []).append(c)
    used = {c["metadata"].get("po_number") for c in stripe["customers"]}
    rng = rng_for(ID, seed)
    fit = []
    for c in o.customers:
        s = by_id.get(c.stripe_id or "")
        if (s is None or c.status != "Active" or c.group or c.duplicate_of or not s["metadata"].get("po_number")
                or any(x.duplicate_of == c.key for x in o.customers)):
            continue
        contact = c.contact("billing")
        twins = [t for t in first_words[s["name"].split()[0]] if t["id"] != s["id"]]
        if s["email"] != contact.email or not twins:
            continue
        # the short name must find exactly this customer in Stripe's search
        if sum(c.short.casefold() in x["name"].casefold() for x in stripe["customers"]) != 1:
            continue
        fit.append((c, s, contact, twins))
    if not fit:
        return None
    c, s, contact, twins = rng.choice(fit)
    lookalike = rng.choice(twins)
    new_po = next(p for p in (f"PO-2026-{rng.randint(1000, 9999)}" for _ in range(50)) if p not in used)
    old_po = s["metadata"]["po_number"]
    message = gmail_message(
        seed=seed, key=ID, sender=contact.email, date="2026-03-13T10:42:00Z",
        subject=new_po,
        body=(f"Hello Priya,\n\nour purchase order {old_po} is used up. Please quote our new purchase order "
              f"(in the subject) on every invoice you send us from now on; our accounts payable team cannot book an "
              f"invoice without it.\n\nBest regards,\n{contact.first} {contact.last}\n{contact.title}, {c.name}"))
    update = {"tool": "stripe__update_customer", "arguments": {"customer": s["id"], "metadata": {"po_number": new_po}}}
    return {
        "customer": {"id": s["id"], "name": c.name, "short": c.short},
        "contact": {"first": contact.first, "last": contact.last, "email": contact.email},
        "lookalike": {"id": lookalike["id"], "name": lookalike["name"]},
        "new_po": new_po,
        "message": message,
        "reference": [
            {"tool": "gmail__search_emails", "arguments": {"query": f"from:{contact.email}"}},
            {"tool": "gmail__read_email", "arguments": {"messageId": message["id"]}},
            {"tool": "stripe__search_customers", "arguments": {"query": f"name~'{c.short}'"}},
            update,
        ],
    }


def build() -> dict[str, Any]:
    """The template document."""
    reply = {"tool": "gmail__send_email", "arguments": {
        "to": ["{{case.contact.email}}"], "subject": "Re: {{case.new_po}}",
        "threadId": "{{case.message.id}}",
        "body": "Hello {{case.contact.first}},\n\nthank you: your invoices will quote purchase order "
                "{{case.new_po}} from now on.\n\nBest regards,\nPriya"}}
    task = {
        "goal": "{{case.contact.first}} {{case.contact.last}} from {{case.customer.short}} emailed me a new purchase "
                "order for their invoices. Put its number in their Stripe customer's po_number, so that the invoices we "
                "send them quote it.",
        "initial_state": {
            "gmail": {"world": world_ref("gmail"), "patch": [{"op": "add", "in": ["messages"],
                                                              "value": "{{case.message}}"}]},
            "stripe": {"world": world_ref("stripe"), "patch": []},
        },
        "available_tools": [*GMAIL_TOOLS, *STRIPE_READ, "stripe__update_customer"],
        "faults": [],
        "max_steps": 7,
        "timeout_s": 300,
        "frame": [
            {"entity": "stripe.customer", "ids": ["{{case.customer.id}}"], "fields": ["metadata.po_number"],
             "values": {"metadata.po_number": {"eq": "{{case.new_po}}"}}},
            {"entity": "gmail.message", "fields": ["label_ids"]},
            {"entity": "gmail.message", "change": ["create"], "where": {"to": ["{{case.contact.email}}"]}, "max": 2},
            {"entity": "gmail.draft", "change": ["create", "delete"]},
        ],
        "success": {"all": [{"stripe.customerHasMetadata": {"customer": "{{case.customer.id}}", "key": "po_number",
                                                            "value": "{{case.new_po}}"}}]},
        "reference_solution": "{{case.reference}}",
        "wrong_solutions": [
            {"why": "puts the new purchase order on the lookalike customer whose name starts with the same word",
             "kind": "lookalike",
             "calls": [{"tool": "stripe__update_customer", "arguments": {
                 "customer": "{{case.lookalike.id}}", "metadata": {"po_number": "{{case.new_po}}"}}}]},
            {"why": "sets the purchase order and also rewrites the customer's description",
             "kind": "collateral",
             "calls": [{"tool": "stripe__update_customer", "arguments": {
                 "customer": "{{case.customer.id}}", "metadata": {"po_number": "{{case.new_po}}"},
                 "description": "PO {{case.new_po}}"}}]},
            {"why": "stores the number under a new metadata key; the invoices keep quoting the old po_number",
             "kind": "other",
             "calls": [{"tool": "stripe__update_customer", "arguments": {
                 "customer": "{{case.customer.id}}", "metadata": {"purchase_order": "{{case.new_po}}"}}}]},
        ],
        "alternative_solutions": [
            {"why": "also confirms on the customer's thread", "calls": ["{{case.reference.3}}", reply]},
        ],
    }
    return template(id=ID, version=1, servers=["gmail", "stripe"], difficulty="easy", category="standard",
                    case_list=cases(case_of), task=task)
