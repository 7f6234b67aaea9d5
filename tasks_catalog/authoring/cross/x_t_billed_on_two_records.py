"""x-t-billed-on-two-records: Fjordline Ferries AS was entered twice (Fjordline Ferry AS, a newer record
with the same billing domain and country) and has paid the invoices of both since January. Their
billing contact writes; the agent merges the records as the customer records policy in force says.

Hard, recovery; Gmail, Notion, Slack and Stripe. What decides the outcome, and where it is:
- the complaint (Gmail) names both records, not which one is the duplicate;
- the customer records policy of 2026 (Notion) says what a duplicate is (billing domain and country:
  the 2025 version's name rule would say they are two companies) and that the NEWER record is merged
  into the older; the planted paragraph says what merging means: archive the newer CRM row, void its
  open invoices, refund its paid ones in full on the charge that paid them, leave charges not made for an
  invoice alone;
- Stripe's ``created`` says which record is newer; each of the newer record's invoices is decided on its
  own (paid: refund; open: void), the older record's invoices (some open) stay;
- the refund policy needs a finance approver's approval above 500 EUR (every case is above): the approvers
  are named in the policy, the approval is in a #finance thread where a colleague who is not one asked.
Archiving the CRM row answers ``unavailable`` once (it did not apply): it must be retried.
"""

from __future__ import annotations

from typing import Any

from tasks_catalog.authoring.cross import budget, cases, org, template, world
from tasks_catalog.authoring.cross._x_t_billing import (
    GMAIL_TOOLS,
    NOTION_READ,
    SLACK_TOOLS,
    STRIPE_READ,
    approvers_paragraph,
    case_task,
    finance_approvers,
    gmail_message,
    money,
    notion_page,
    rng_for,
    slack_channel,
    uuid_of,
)

ID = "x-t-billed-on-two-records"
CRM = "Customer Accounts"


def _crm(seed: int) -> tuple[str, dict[str, dict]]:
    """The CRM database's id and its live rows by Stripe customer id."""
    notion = world("notion", seed)
    db = next(d for d in notion["databases"] if d["title"] == CRM)
    rows = {p["properties"].get("Stripe customer"): p for p in notion["pages"]
            if p.get("parent_id") == db["id"] and not p.get("archived")}
    return db["id"], rows


def case_of(seed: int) -> dict[str, Any] | None:
    o = org(seed)
    dup = next((c for c in o.customers if c.duplicate_of), None)
    if dup is None:
        return None
    orig = next(c for c in o.customers if c.key == dup.duplicate_of)
    stripe = world("stripe", seed)
    cust = {c["id"]: c for c in stripe["customers"]}
    s_dup, s_orig = cust.get(dup.stripe_id or ""), cust.get(orig.stripe_id or "")
    if s_dup is None or s_orig is None or s_dup["created"] <= s_orig["created"] or dup.currency != "eur":
        return None
    db_id, rows = _crm(seed)
    if dup.stripe_id not in rows or orig.stripe_id not in rows:
        return None
    titles = [p["title"] for p in world("notion", seed)["pages"]]
    if titles.count(rows[dup.stripe_id]["title"]) != 1:
        return None
    invoices = [i for i in stripe["invoices"] if i["customer"] == s_dup["id"]]
    if not invoices or any(i["status"] not in ("paid", "open") for i in invoices):
        return None
    paid, open_ = [], []
    for inv in sorted(invoices, key=lambda i: i["created"]):
        total = sum(line["amount"] for line in inv["lines"])
        if inv["status"] == "open":
            open_.append({"id": inv["id"], "number": inv["number"], "total": total})
            continue
        ok = [ch for ch in stripe["charges"] if ch["invoice"] == inv["id"] and ch["status"] == "succeeded"]
        if len(ok) != 1 or ok[0]["amount"] != total or any(r["charge"] == ok[0]["id"] for r in stripe["refunds"]):
            return None
        paid.append({"invoice": inv["id"], "number": inv["number"], "charge": ok[0]["id"], "amount": total,
                     "money": money(total, "eur")})
    if not paid or min(p["amount"] for p in paid) <= 50_000:
        return None
    orig_paid = [ch for ch in stripe["charges"] if ch["customer"] == s_orig["id"] and ch["status"] == "succeeded"
                 and ch["invoice"]]
    orig_open = [i["id"] for i in stripe["invoices"] if i["customer"] == s_orig["id"] and i["status"] == "open"]
    contact = orig.contact("billing")
    rng = rng_for(ID, seed)

    approvers = finance_approvers(seed)
    askers = [e for e in o.employees if e.team == next(a.team for a in approvers) and e not in approvers
             and "finance-approver" not in e.flags and e.employed_on("2026-03-01")]
    if len(approvers) < 2 or not askers:
        return None
    approver, asker = approvers[rng.randrange(len(approvers))], rng.choice(askers)
    finance = slack_channel(seed, "finance")
    users = {u.get("email"): u for u in world("slack", seed)["users"]}
    if approver.email not in users or asker.email not in users:
        return None
    root_ts, reply_ts = "1773311400.221700", "1773325800.318400"
    taken = {m["ts"] for m in finance["messages"]}
    if root_ts in taken or reply_ts in taken:
        return None
    months = ", ".join(p["number"] for p in paid)
    slack_patch = [
        {"op": "add", "in": ["channels", finance["id"], "messages"], "value": {
            "ts": root_ts, "user": users[asker.email]["id"],
            "text": f"{orig.name} is in Stripe a second time as {dup.name} and has paid the invoices of both records "
                    f"since January. Refunds of what they paid on the second record need a finance approver's OK."}},
        {"op": "add", "in": ["channels", finance["id"], "messages"], "value": {
            "ts": reply_ts, "user": users[approver.email]["id"], "thread_ts": root_ts,
            "text": f"Approved: refund what {orig.short} paid on the duplicate record, as the customer records "
                    f"policy says."}},
    ]
    records = notion_page(seed, "Customer records policy")
    refund_page = notion_page(seed, "Refund and service credit policy")
    notion_patch = [
        {"op": "add", "in": ["pages", records["id"], "content"], "value": {
            "id": uuid_of(ID, "merge", seed), "type": "paragraph",
            "text": "Merging a duplicate: archive the newer record's row in Customer Accounts. Every invoice raised "
                    "on the newer record is cancelled: an open one is voided, a paid one is refunded in full on the "
                    "charge that paid it. Charges not made for an invoice stay as they are, and the older record's "
                    "invoices stand."}},
        approvers_paragraph(seed, ID, approvers),
    ]
    message = gmail_message(
        seed=seed, key=ID, sender=contact.email, date="2026-03-12T08:36:00Z",
        subject="Two invoices from you every month",
        body=(f"Hello Priya,\n\nsince January we have received two invoices from you every month, one addressed to "
              f"{orig.name} and one to {dup.name}, and our accounts payable team has paid both. We are one company "
              f"with one contract. Please put your records right, give back what we paid twice, and tell me what "
              f"you have done.\n\nBest regards,\n{contact.first} {contact.last}\n{contact.title}, {orig.name}"))

    refunds = [{"tool": "stripe__create_refund", "arguments": {"charge": p["charge"], "amount": p["amount"],
                                                               "reason": "duplicate"}} for p in paid]
    voids = [{"tool": "stripe__void_invoice", "arguments": {"invoice": i["id"]}} for i in open_]
    archive = {"tool": "notion__update_page", "arguments": {"page_id": rows[dup.stripe_id]["id"], "archived": True}}
    reply = {"tool": "gmail__send_email", "arguments": {
        "to": [contact.email], "subject": "Re: Two invoices from you every month", "threadId": message["id"],
        "body": f"Hello {contact.first},\n\nyou are right: {dup.name} was a second record of your company. We have "
                f"merged it into {orig.name}, refunded in full what you paid on it ({months}) and cancelled "
                + (f"its open invoice {', '.join(i['number'] for i in open_)}" if open_ else "nothing else was open")
                + f". From now on you receive one invoice a month, for {orig.name}.\n\nBest regards,\nPriya"}}
    thread = {"tool": "slack__reply_to_thread", "arguments": {
        "channel_id": finance["id"], "thread_ts": root_ts,
        "text": f"Done: refunded {months} paid on {dup.name}"
                + (f", voided {', '.join(i['number'] for i in open_)}" if open_ else "")
                + f", and archived its CRM row; {orig.name} stays."}}
    reads = [
        {"tool": "gmail__search_emails", "arguments": {"query": "two invoices"}},
        {"tool": "gmail__read_email", "arguments": {"messageId": message["id"]}},
        {"tool": "notion__search", "arguments": {"query": "customer records policy"}},
        {"tool": "notion__get_block_children", "arguments": {"block_id": records["id"]}},
        {"tool": "notion__search", "arguments": {"query": "refund and service credit policy"}},
        {"tool": "notion__get_block_children", "arguments": {"block_id": refund_page["id"]}},
        {"tool": "slack__search_messages", "arguments": {"query": f"{orig.short.split()[0]} in:#finance"}},
        {"tool": "slack__get_thread_replies", "arguments": {"channel_id": finance["id"], "thread_ts": root_ts}},
        {"tool": "slack__get_user_profile", "arguments": {"user_id": users[approver.email]["id"]}},
        {"tool": "stripe__search_customers", "arguments": {"query": f"name~'{orig.short.split()[0]}'"}},
        {"tool": "stripe__list_invoices", "arguments": {"customer": s_dup["id"]}},
        {"tool": "stripe__list_invoices", "arguments": {"customer": s_orig["id"]}},
    ]
    find_row = {"tool": "notion__search", "arguments": {"query": dup.name}}
    # archiving the CRM row answers `unavailable` once (not applied): the gate's replay retries it
    reference = [*reads, *refunds, *voids,
                 {"tool": "stripe__list_refunds", "arguments": {"charge": paid[0]["charge"]}},
                 find_row, archive, reply, thread]
    success = [
        *({"stripe.refundIssued": {"charge": p["charge"]}} for p in paid),
        *({"stripe.invoiceExists": {"customer": s_dup["id"], "status": "void"}} for i in open_[:1]),
        {"not": {"notion.pageExists": {"title": rows[dup.stripe_id]["title"], "parent": db_id}}},
        {"notion.pageExists": {"title": rows[orig.stripe_id]["title"], "parent": db_id}},
        {"gmail.draftSent": {"subject_pattern": "nvoice|efund|ecord|uplicate|erge", "to": contact.email}},
    ]
    frame = [
        *({"entity": "stripe.refund", "change": ["create"], "where": {"charge": p["charge"], "amount": p["amount"]},
           "max": 1} for p in paid),
        *({"entity": "stripe.invoice", "ids": [i["id"]], "fields": ["status"], "values": {"status": {"eq": "void"}}}
          for i in open_),
        {"entity": "notion.page", "ids": [rows[dup.stripe_id]["id"]], "fields": ["archived"],
         "values": {"archived": {"eq": True}}},
        {"entity": "gmail.message", "fields": ["label_ids"]},
        {"entity": "gmail.message", "change": ["create"], "where": {"to": [contact.email]}, "max": 2},
        {"entity": "gmail.draft", "change": ["create", "delete"]},
        {"entity": "slack.message", "change": ["create"], "where": {"channel": finance["id"]}, "max": 2},
    ]
    # a wrong or alternative sequence archives twice: once refused by the fault, once applied
    writes = [*refunds, *voids, archive, archive, reply]
    orig_refunds = [{"tool": "stripe__create_refund", "arguments": {"charge": ch["id"], "amount": ch["amount"],
                                                                    "reason": "duplicate"}}
                    for ch in sorted(orig_paid, key=lambda c: c["created"])[-len(paid):]]
    # charges on the newer record not made for an invoice stay (the policy says so): refunding one is damage
    extra_refunds = [{"tool": "stripe__create_refund", "arguments": {"charge": ch["id"]}} for ch in stripe["charges"]
                     if ch["customer"] == s_dup["id"] and ch["invoice"] is None and ch["status"] == "succeeded"]
    if not (orig_open or extra_refunds or orig_refunds):
        return None
    wrongs = [
        {"why": "merges the wrong way: refunds the older record's latest payments and archives its CRM row",
         "kind": "lookalike",
         "calls": [*orig_refunds, {"tool": "notion__update_page", "arguments": {
             "page_id": rows[orig.stripe_id]["id"], "archived": True}}] * 2 + [reply]},
        {"why": "does the merge and also voids the older record's open invoices (or refunds a charge that "
                "stands: one not made for an invoice, or the older record's)",
         "kind": "collateral",
         "calls": [*writes, *({"tool": "stripe__void_invoice", "arguments": {"invoice": i}} for i in orig_open)]
         if orig_open else [*writes, *(extra_refunds or orig_refunds)[:1]]},
        {"why": "reads the 2025 customer records policy (names differ, so two companies) and only answers",
         "kind": "other", "calls": [reply]},
        {"why": "refunds only the invoice the customer happened to pay last and answers",
         "kind": "other", "calls": [refunds[-1], archive, archive, reply]}
        if len(paid) > 1 else
        {"why": "refunds half of the duplicate payment and answers",
         "kind": "other", "calls": [{"tool": "stripe__create_refund", "arguments": {
             "charge": paid[0]["charge"], "amount": paid[0]["amount"] // 2}},
             {"tool": "stripe__create_refund", "arguments": {"charge": paid[0]["charge"],
                                                             "amount": paid[0]["amount"] // 2}},
             *voids, archive, archive, reply]},
    ]
    alternatives = [
        {"why": "writes in another order (CRM first), retrying the refused refund, without the Slack note",
         "calls": [archive, archive, *reversed(refunds), *voids, reply]},
    ]
    return {
        "original": {"name": orig.name, "short": orig.short, "stripe": s_orig["id"]},
        "duplicate": {"name": dup.name, "stripe": s_dup["id"]},
        "contact": {"first": contact.first, "last": contact.last, "email": contact.email},
        "message": message,
        "gmail_patch": [{"op": "add", "in": ["messages"], "value": message}],
        "notion_patch": notion_patch,
        "slack_patch": slack_patch,
        "reference": reference,
        "success": success,
        "frame": frame,
        "wrongs": wrongs,
        "alternatives": alternatives,
        "max_steps": budget(len(reference), forced=1),
    }


def build() -> dict[str, Any]:
    task = case_task(
        "{{case.contact.first}} {{case.contact.last}} of {{case.original.short}} says they have been getting and "
        "paying two invoices from us every month. Sort it out as our policies say, and tell {{case.contact.first}} "
        "what you did.",
        ["gmail", "notion", "slack", "stripe"],
        [*GMAIL_TOOLS, *NOTION_READ, "notion__update_page", *SLACK_TOOLS, *STRIPE_READ, "stripe__create_refund",
         "stripe__void_invoice"],
        [{"tool": "notion__update_page", "on_call": 1, "kind": "unavailable"}], 900, ("gmail", "notion", "slack"))
    return template(id=ID, version=2, servers=["gmail", "notion", "slack", "stripe"], difficulty="medium",
                    category="recovery", case_list=cases(case_of), task=task)
