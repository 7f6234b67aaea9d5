"""x-t-billed-on-two-records: Fjordline Ferries AS was entered twice (Fjordline Ferry AS, a newer record
with the same billing domain and country) and has paid the invoices of both since January. Their
billing contact writes; the agent merges the records as the customer records policy in force says.

Medium, recovery; Gmail, Notion, Slack and Stripe. What decides the outcome, and where it is:
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

The team's past work (version 3): five earlier customers wrote this winter (October to February) that they
got two invoices a month; each thread holds Priya's answer that their duplicate record was merged. The answers
to the two customers whose Region in the CRM is EMEA copy an accountant of the Finance team; the three to
customers in North America or APAC copy no one. The copy shows only in the opened thread's ``cc``
(``search_emails`` lists ``to``, never ``cc``) and nothing else in the world points at it: no policy line, no
title (the accountant's title is "Accountant"), no message. The goal asks for the answer "the way we have
handled these before"; Fjordline's two rows are both EMEA, so its answer copies the accountant, and the frame
allows a message to the contact only with exactly that copy. Which earlier merges are EMEA, their order and the
accountant are drawn per case (the most recent merge is copied in half the cases).

:data:`READINGS` lists the other readings of when an answer copies the accountant (always, never, by plan,
owner, the owner's team, country, currency, month, subject, above or below an ARR, the earliest or latest
merges; and where the latest merge is uncopied, an uncopied one lies between the copied ones, so that "copied
for a while, no more since" never fits);
:func:`check_convention` raises unless each is contradicted by an earlier answer or copies Fjordline's as the
habit does, for each of its two rows where they differ (plan, owner and team, ARR). A draw that leaves one open is drawn
again. No earlier merge is of a customer whose name nearly matches another's (the policy calls those two
companies) or of a group's entity. Strict point: the copy must be exactly the accountant (``cc`` equal to
``[accountant]``); copying the approver instead, or no one, fails. To open the five threads and read the CRM's
rows within the medium band, the reference finds both policies with one search and no longer lists the refunds
after making them (22-24 calls).
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
    hex_id,
    money,
    notion_page,
    rng_for,
    slack_channel,
    uuid_of,
    weekdays,
)
from tasks_catalog.authoring.cross._x_t_readings import Always, FlaggedSide, FlaggedWhen, left_open

ID = "x-t-billed-on-two-records"
CRM = "Customer Accounts"
MAILBOX = "priya.raman@kestrelfreight.com"
#: How many earlier merges the mailbox shows, how many of them (the EMEA customers') copy the accountant,
#: and how many draws a seed gets before it gives no case.
EXAMPLES, COPIED, DRAWS = 5, 2, 400
#: The subjects the earlier customers wrote under (each words its own).
SUBJECTS = ("Two invoices every month", "Invoiced twice", "Duplicate invoices from you")
#: Where the copy on an earlier reply could be read to depend on. The habit is "the customer's Region in
#: the CRM is EMEA" (``HABIT``); every other reading must be contradicted by an earlier reply or copy
#: Fjordline's reply as the habit does (for the plan, owner and ARR of either Fjordline row).
READINGS: dict[str, Any] = {
    "always": Always(True, flag="cc"),
    "never": Always(False, flag="cc"),
    "by the customer's plan": FlaggedWhen("plan", flag="cc"),
    "by the customer's owner": FlaggedWhen("owner", flag="cc"),
    "by the owner's team": FlaggedWhen("team", flag="cc"),
    "by the customer's country": FlaggedWhen("country", flag="cc"),
    "by the customer's currency": FlaggedWhen("currency", flag="cc"),
    "by the month the complaint came": FlaggedWhen("month", flag="cc"),
    "by the complaint's subject": FlaggedWhen("subject", flag="cc"),
    "below an ARR": FlaggedSide("arr", low=True, flag="cc"),
    "above an ARR": FlaggedSide("arr", low=False, flag="cc"),
    "the earliest merges": FlaggedSide("day", low=True, flag="cc"),
    "the latest merges": FlaggedSide("day", low=False, flag="cc"),
}
HABIT = FlaggedWhen("region", flag="cc")


def check_convention(examples: list[dict[str, Any]], items: list[dict[str, Any]]) -> None:
    """Raise unless the earlier merges tell the habit (the reply copies the accountant when the customer's
    CRM Region is EMEA) apart from every reading of :data:`READINGS` for Fjordline (``items``: its two CRM
    rows, one reading per row where they differ): a minority of copied replies, all of EMEA customers, no
    EMEA customer uncopied, and no reading that fits every earlier reply yet treats Fjordline's otherwise."""
    copied = [e for e in examples if e["cc"]]
    if len(copied) != COPIED or 2 * len(copied) >= len(examples):
        raise ValueError(f"{ID}: {len(copied)} of {len(examples)} earlier replies copy the accountant")
    if not HABIT(examples) or any(HABIT.predicts(examples, i) is not True for i in items):
        raise ValueError(f"{ID}: the earlier replies do not show that Fjordline's reply copies the accountant")
    days = sorted((e["day"], e["cc"]) for e in examples)
    first, last = (min(e["day"] for e in copied), max(e["day"] for e in copied)) if copied else (0, 0)
    if not days[-1][1] and not any(first < day < last and not cc for day, cc in days):
        raise ValueError(f"{ID}: the earlier replies read as copying for a while and no more since")
    for name in left_open(READINGS, examples, items, lambda _: True)[:1]:
        raise ValueError(f"{ID}: the reading {name!r} fits every earlier reply and differs on Fjordline's")


def _crm(seed: int) -> tuple[str, dict[str, dict]]:
    """The CRM database's id and its live rows by Stripe customer id."""
    notion = world("notion", seed)
    db = next(d for d in notion["databases"] if d["title"] == CRM)
    rows = {p["properties"].get("Stripe customer"): p for p in notion["pages"]
            if p.get("parent_id") == db["id"] and not p.get("archived")}
    return db["id"], rows


#: The days an earlier complaint may have come and been answered (the office closed over Christmas).
DAYS = [d for d in weekdays("2025-10-01", "2026-02-27") if not "2025-12-22" <= d <= "2026-01-02"]


def _stem(name: str) -> tuple[str, str]:
    """What two nearly matching customer names share: the first four letters of the first word and the first
    six of the second (Hanbit Electronics Co and Hanbit Electronic Co)."""
    words = name.lower().split()
    return words[0][:4], words[1][:6] if len(words) > 1 else ""


def _features(row: dict[str, Any], customer: Any, currency: str, teams: dict[str, str | None]) -> dict[str, Any]:
    """What the CRM row, the org and Stripe show of a customer that a reading of the copy could key on
    (``teams``: each Notion user's team, for the owner's)."""
    p = row["properties"]
    return {"name": customer.name, "customer": customer, "region": p["Region"], "plan": p["Plan"],
            "owner": p["Owner"][0], "team": teams.get(p["Owner"][0]), "country": customer.country,
            "currency": currency, "arr": p["ARR"]}


def _draw(rng: Any, pool: list[dict[str, Any]], items: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """Five earlier merges (two of EMEA customers, copied; three of others, not) whose replies tell the habit
    apart from every reading, or None."""
    emea = [f for f in pool if f["region"] == "EMEA"]
    other = [f for f in pool if f["region"] != "EMEA"]
    if len(emea) < COPIED or len(other) < EXAMPLES - COPIED:
        return None
    for _ in range(DRAWS):
        chosen = [{**f, "cc": True} for f in rng.sample(emea, COPIED)] + \
                 [{**f, "cc": False} for f in rng.sample(other, EXAMPLES - COPIED)]
        rng.shuffle(chosen)
        for e, day in zip(chosen, sorted(rng.sample(range(len(DAYS)), EXAMPLES)), strict=True):
            e.update(day=day, month=DAYS[day][:7], subject=rng.randrange(len(SUBJECTS)),
                     date=f"{DAYS[day]}T{rng.randint(8, 12):02d}:{rng.randint(0, 59):02d}:00Z")
        try:
            check_convention(chosen, items)
        except ValueError:
            continue
        return chosen
    return None


def _example_mail(e: dict[str, Any], seed: int, k: int, accountant: str, rng: Any) -> list[dict[str, Any]]:
    """The complaint of the earlier merge ``e`` and Priya's reply (copying ``accountant`` when the habit does)."""
    customer = e["customer"]
    contact = customer.contact("billing")
    complaint, reply = (hex_id(ID, seed, "past", k, i) for i in range(2))
    subject = SUBJECTS[e["subject"]]
    body = (f"Hello,\n\nfor a few months now we have received two invoices from you every month, for the same "
            f"service, and paid both. We are one company with one contract: please put this right.\n\n"
            f"Kind regards,\n{contact.first} {contact.last}\n{contact.title}, {customer.name}")
    answer = (f"Hello {contact.first},\n\nthank you, you are right: {customer.name} had been entered twice in our "
              f"records. We have merged the duplicate record into {customer.name}, refunded in full what you paid "
              f"on it and cancelled what was still open on it. From now on you receive one invoice a month.\n\n"
              "Best regards,\nPriya Raman\nOperations manager, Kestrel Freight Systems")
    hour = int(e["date"][11:13]) + rng.randint(2, 4)
    return [
        {"id": complaint, "thread_id": complaint, "sender": contact.email, "to": [MAILBOX], "cc": [],
         "subject": subject, "date": e["date"], "label_ids": ["INBOX"], "body": body},
        {"id": reply, "thread_id": complaint, "sender": MAILBOX, "to": [contact.email],
         "cc": [accountant] if e["cc"] else [], "subject": f"Re: {subject}",
         "date": f"{e['date'][:11]}{hour:02d}:{rng.randint(0, 59):02d}:00Z", "label_ids": ["SENT"], "body": answer},
    ]


def _past(seed: int, rows: dict[str, dict], stripe: dict[str, Any], orig: Any, dup: Any,
          ) -> dict[str, Any] | None:
    """The earlier merges of ``seed``'s case: the ``accountant`` their EMEA answers copy, the five merges
    (``examples``), their Gmail messages (``mail``) and ``threads`` (newest first), or None when the world gives
    no fair draw."""
    o = org(seed)
    accountants = [e for e in o.employees if e.team == "Finance" and e.title == "Accountant" and not e.flags
                   and e.employed_on(DAYS[0]) and e.employed_on("2026-03-16")]
    if not accountants or len(rows) > 100:
        return None
    accountant = rng_for(f"{ID}:accountant", seed).choice(accountants).email
    currency = {c["id"]: c["currency"] for c in stripe["customers"]}
    own = [rows[c.stripe_id or ""] for c in (orig, dup)]
    if any(row["properties"]["Region"] != "EMEA" or len(row["properties"]["Owner"]) != 1 for row in own):
        return None
    staff = {e.email: e.team for e in o.employees}
    teams = {u["id"]: staff.get(u.get("email", "")) for u in world("notion", seed)["users"]}
    items = [{**_features(row, c, "eur", teams), "month": "2026-03", "day": len(DAYS), "subject": None}
             for row, c in zip(own, (orig, dup), strict=True)]
    # no earlier merge of a customer whose name nearly matches another's (Harbour and Harbor Foods, Cedar Pharma
    # SA and Inc): the policy calls those different companies, and a merge of one would read as merging them
    stems = [_stem(c.name) for c in o.customers]
    pairs = {c.key for c in o.customers if c.duplicate_of or c.group or stems.count(_stem(c.name)) > 1} | \
        {c.duplicate_of for c in o.customers if c.duplicate_of}
    pool = [_features(rows[c.stripe_id], c, currency[c.stripe_id], teams) for c in o.customers
            if c.key not in pairs and c.status == "Active" and c.stripe_id in rows and c.stripe_id in currency
            and rows[c.stripe_id]["properties"]["Status"] == "Active"
            and len(rows[c.stripe_id]["properties"]["Owner"]) == 1
            and rows[c.stripe_id]["properties"]["Billing email"] == c.contact("billing").email]
    examples = _draw(rng_for(f"{ID}:past", seed), pool, items)
    if examples is None:
        return None
    check_convention(examples, items)
    mail_rng = rng_for(f"{ID}:mail", seed)
    mail = [m for k, e in enumerate(examples) for m in _example_mail(e, seed, k, accountant, mail_rng)]
    taken = {m["id"] for m in world("gmail", seed)["messages"]}
    if any(m["id"] in taken for m in mail):
        return None
    threads = [m["thread_id"] for m in sorted(mail, key=lambda m: m["date"], reverse=True) if m["label_ids"] == ["INBOX"]]
    return {"accountant": accountant, "examples": examples, "mail": mail, "threads": threads}


def _copy_wrongs(merge: list[dict[str, Any]], reply: dict[str, Any], approver: str) -> list[dict[str, Any]]:
    """The merge's writes ``merge`` answered by ``reply`` without the accountant's copy (the sampler's reading)
    and with the approver's instead: both must fail."""
    bare = {**reply, "arguments": {k: v for k, v in reply["arguments"].items() if k != "cc"}}
    approver_cc = {**reply, "arguments": {**reply["arguments"], "cc": [approver]}}
    return [
        {"why": "merges as the policy says but answers without copying the accountant, as the three earlier "
                "replies to customers outside EMEA do: the sampler's reading",
         "kind": "other", "calls": [*merge, bare]},
        {"why": "copies the finance approver who approved the refunds instead of the accountant the earlier "
                "replies to EMEA customers copy",
         "kind": "other", "calls": [*merge, approver_cc]},
    ]


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
    if (past := _past(seed, rows, stripe, orig, dup)) is None:
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
    reply: dict[str, Any] = {"tool": "gmail__send_email", "arguments": {
        "to": [contact.email], "cc": [past["accountant"]], "subject": "Re: Two invoices from you every month",
        "threadId": message["id"],
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
        # the earlier complaints say "two invoices" too: with the world's other matches, more than one page of 10
        {"tool": "gmail__search_emails", "arguments": {"query": "two invoices", "maxResults": 20}},
        {"tool": "gmail__read_email", "arguments": {"messageId": message["id"]}},
        *({"tool": "gmail__get_thread", "arguments": {"threadId": t}} for t in past["threads"]),
        {"tool": "notion__search", "arguments": {"query": "policy", "page_size": 50}},
        {"tool": "notion__get_block_children", "arguments": {"block_id": records["id"]}},
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
    # the CRM's rows show each earlier customer's Region (and the rest a reading could key on)
    reference = [*reads, *refunds, *voids, find_row,
                 {"tool": "notion__query_database", "arguments": {"database_id": db_id, "page_size": 100}},
                 archive, reply, thread]
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
        {"entity": "gmail.message", "change": ["create"],
         "where": {"to": [contact.email], "cc": [past["accountant"]]}, "max": 2},
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
        *_copy_wrongs([*refunds, *voids, archive, archive], reply, approver.email),
    ]
    alternatives = [
        {"why": "writes in another order (CRM first), retrying the refused refund, without the Slack note",
         "calls": [archive, archive, *reversed(refunds), *voids, reply]},
        {"why": "answers in a new email rather than in the thread, copying the accountant, and notes it in #finance",
         "calls": [*refunds, *voids, archive, archive, {"tool": "gmail__send_email", "arguments": {
             "to": [contact.email], "cc": [past["accountant"]], "subject": f"Your records with us: {orig.name}",
             "body": f"Hello {contact.first},\n\nwe have merged {dup.name} into {orig.name}, refunded what you paid "
                     f"on it ({months}) and cancelled what was open on it.\n\nBest regards,\nPriya"}},
             {"tool": "slack__post_message", "arguments": {
                 "channel_id": finance["id"], "text": f"{dup.name} merged into {orig.name}; refunds done."}}]},
    ]
    return {
        "original": {"name": orig.name, "short": orig.short, "stripe": s_orig["id"]},
        "duplicate": {"name": dup.name, "stripe": s_dup["id"]},
        "contact": {"first": contact.first, "last": contact.last, "email": contact.email},
        "message": message,
        "accountant": past["accountant"],
        "gmail_patch": [{"op": "add", "in": ["messages"], "value": m} for m in [*past["mail"], message]],
        "notion_patch": notion_patch,
        "slack_patch": slack_patch,
        "reference": reference,
        "success": success,
        "frame": frame,
        "wrongs": wrongs,
        "alternatives": alternatives,
        "max_steps": budget(len(reference), forced=1),
        "summary": {"copied": [e["name"] for e in past["examples"] if e["cc"]],
                    "regions": [(e["name"], e["region"], e["cc"]) for e in past["examples"]]},
    }


def build() -> dict[str, Any]:
    task = case_task(
        "{{case.contact.first}} {{case.contact.last}} of {{case.original.short}} says they have been getting and "
        "paying two invoices from us every month. Sort it out as our policies say, and tell {{case.contact.first}} "
        "what you did, the way we have handled these before.",
        ["gmail", "notion", "slack", "stripe"],
        [*GMAIL_TOOLS, *NOTION_READ, "notion__update_page", *SLACK_TOOLS, *STRIPE_READ, "stripe__create_refund",
         "stripe__void_invoice"],
        [{"tool": "notion__update_page", "on_call": 1, "kind": "unavailable"}], 900, ("gmail", "notion", "slack"))
    return template(id=ID, version=3, servers=["gmail", "notion", "slack", "stripe"], difficulty="medium",
                    category="recovery", case_list=cases(case_of, want=10, level="medium"), task=task)
