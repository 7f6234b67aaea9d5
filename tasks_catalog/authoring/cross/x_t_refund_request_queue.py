"""x-t-refund-request-queue: four customers' refund requests wait under Priya's "Finance/Refunds"
label; each is decided on its own by the refund policy in force and the ledger.

Hard; Gmail, Notion, Slack and Stripe. The four requests, one per customer (each billed at its billing
contact's address), and what decides each:
- ``window``: the February Tracking API overage (charged 28 February), asked on 10 March: within the
  2026 policy's 30 days and under its 500 EUR approval limit: refunded in full;
- ``late``: the January overage (charged at the end of January), asked on 9 March: over 30 days, outside the window:
  refused (the customer is told why);
- ``approved``: an onboarding workshop of 1,500.00 EUR charged in February, asked on 11 March: within the
  window, above the approval limit, and a finance approver (named in the policy, planted) approved it in
  #finance: refunded in full (the 2025 version's 14 days would refuse it: the stale reading);
- ``done``: a February overage we already refunded on 4 March (a refund in Stripe), asked again on
  12 March: nothing more to refund; the customer is told when it was refunded.
The customers are found by name in Stripe, the charges by description and date; the second refund
answers ``unavailable`` (not applied) and must be retried.
"""

from __future__ import annotations

from datetime import UTC, datetime
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
    unix,
)

ID = "x-t-refund-request-queue"
LABEL = {"id": "Label_refund_requests", "name": "Finance/Refunds"}


def _day(ts: int) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d")


def _spoken(day: str) -> str:
    return datetime.fromisoformat(day).strftime("%-d %B")


def case_of(seed: int) -> dict[str, Any] | None:
    o = org(seed)
    stripe = world("stripe", seed)
    rng = rng_for(ID, seed)
    by_id = {c["id"]: c for c in stripe["customers"]}
    refunded = {r["charge"] for r in stripe["refunds"]}
    if any(lab["id"] == LABEL["id"] or lab["name"] == LABEL["name"] for lab in world("gmail", seed)["labels"]):
        return None
    # a customer an incident hit might be owed a service credit under the same policy: left out
    hit = {k for inc in o.incidents for k in inc.customers}
    custs = []
    for c in o.customers:
        s = by_id.get(c.stripe_id or "")
        if (s is None or c.status not in ("Active", "Onboarding") or c.currency != "eur" or c.group or c.duplicate_of
                or any(x.duplicate_of == c.key for x in o.customers) or c.key in hit):
            continue
        contact = c.contact("billing")
        if s["email"] != contact.email:
            continue
        mine = [ch for ch in stripe["charges"] if ch["customer"] == s["id"] and ch["invoice"] is None
                and ch["status"] == "succeeded" and ch["id"] not in refunded and ch["currency"] == "eur"]
        feb = [ch for ch in mine if ch["description"].startswith("Tracking API overage, February 2026")
               and ch["amount"] <= 50_000]
        jan = [ch for ch in mine if ch["description"].startswith("Tracking API overage, January 2026")]
        onboarding = [ch for ch in mine if ch["description"] == "Onboarding workshop"
                      and "2026-02-10" <= _day(ch["created"]) <= "2026-02-24"]
        custs.append({"c": c, "s": s, "contact": contact, "feb": feb, "jan": jan, "onboarding": onboarding})
    rng.shuffle(custs)
    picked: dict[str, dict] = {}
    firsts: set[str] = set()
    need = {"approved": lambda x: len(x["onboarding"]) == 1, "late": lambda x: len(x["jan"]) == 1,
            "window": lambda x: len(x["feb"]) == 1 and len(x["jan"]) == 1, "done": lambda x: len(x["feb"]) == 1}
    for role, ok in need.items():
        for x in custs:
            first = x["c"].short.split()[0]
            if ok(x) and first not in firsts and x not in picked.values():
                picked[role] = x
                firsts.add(first)
                break
        else:
            return None
    approvers = finance_approvers(seed)
    users = {u.get("email"): u for u in world("slack", seed)["users"] if not u.get("deleted")}
    others = [e for e in o.employees if approvers and e.team == approvers[0].team
              and "finance-approver" not in e.flags and e.employed_on("2026-03-16") and e.email in users]
    if len(approvers) < 2 or not others or any(a.email not in users for a in approvers):
        return None
    approver, asker = rng.choice(approvers), rng.choice(others)
    finance = slack_channel(seed, "finance")
    root, reply_ts = "1773226800.508100", "1773237600.519700"
    if {root, reply_ts} & {m["ts"] for m in finance["messages"]}:
        return None

    items: dict[str, dict] = {}
    for role, x in picked.items():
        charge = {"window": x["feb"], "late": x["jan"], "approved": x["onboarding"], "done": x["feb"]}[role][0]
        items[role] = {"short": x["c"].short, "name": x["c"].name, "customer": x["s"]["id"],
                       "first": x["contact"].first, "last": x["contact"].last, "email": x["contact"].email,
                       "title": x["contact"].title, "charge": charge["id"], "amount": charge["amount"],
                       "money": money(charge["amount"], "eur"), "charged": _day(charge["created"]),
                       "description": charge["description"]}
    w, late, ap, done = items["window"], items["late"], items["approved"], items["done"]
    w["jan_charge"] = picked["window"]["jan"][0]["id"]

    def email(role: str, date: str, subject: str, text: str) -> dict:
        it = items[role]
        m = gmail_message(seed=seed, key=f"{ID}:{role}", sender=it["email"], date=date, subject=subject,
                          body=f"Hello Priya,\n\n{text}\n\nBest regards,\n{it['first']} {it['last']}\n{it['title']}, "
                               f"{it['name']}")
        m["label_ids"] = [*m["label_ids"], LABEL["id"]]
        it["message"] = m["id"]
        it["subject"] = subject
        return m

    messages = [
        email("late", "2026-03-09T08:12:00Z", "Refund of our January overage charge",
              f"we were charged {late['money']} for Tracking API overage in January ({_spoken(late['charged'])}). "
              f"Most of those calls were retries caused by your API, so please refund that charge."),
        email("window", "2026-03-10T14:03:00Z", "Refund of our February overage charge",
              f"please refund the Tracking API overage charge of {w['money']} from {_spoken(w['charged'])}: our "
              f"integration sent every shipment twice in February, which we have since fixed."),
        email("approved", "2026-03-11T09:47:00Z", "Refund request: onboarding workshop",
              f"we paid {ap['money']} for an onboarding workshop on {_spoken(ap['charged'])}, but the workshop was "
              f"cancelled on your side and we will not reschedule it. Please refund the charge."),
        email("done", "2026-03-12T16:20:00Z", "Refund of our February overage charge",
              f"on 2 March we asked you to refund our February Tracking API overage charge of {done['money']}. "
              f"We cannot see it yet: can you please refund it?"),
    ]
    done_refund = {"id": "re_" + hex_id(ID, "done", seed, n=24), "charge": done["charge"], "amount": done["amount"],
                   "reason": "requested_by_customer", "status": "succeeded", "created": unix("2026-03-04T11:30:00"),
                   "metadata": {}}
    slack_patch = [
        {"op": "add", "in": ["channels", finance["id"], "messages"], "value": {
            "ts": root, "user": users[asker.email]["id"],
            "text": f"{ap['short']} wants the {ap['money']} onboarding workshop of {_spoken(ap['charged'])} refunded "
                    f"(we cancelled it). Above the approval limit: can a finance approver confirm?"}},
        {"op": "add", "in": ["channels", finance["id"], "messages"], "value": {
            "ts": reply_ts, "user": users[approver.email]["id"], "thread_ts": root,
            "text": f"Approved, refund {ap['short']} in full."}},
    ]
    refund_page = notion_page(seed, "Refund and service credit policy")
    notion_patch = [approvers_paragraph(seed, ID, approvers)]

    def refund(it: dict, charge: str | None = None) -> dict:
        return {"tool": "stripe__create_refund", "arguments": {"charge": charge or it["charge"],
                                                               "reason": "requested_by_customer"}}

    def answer(it: dict, text: str) -> dict:
        return {"tool": "gmail__send_email", "arguments": {
            "to": [it["email"]], "subject": f"Re: {it['subject']}", "threadId": it["message"],
            "body": f"Hello {it['first']},\n\n{text}\n\nBest regards,\nPriya"}}

    answers = [
        answer(w, f"we have refunded the February overage charge of {w['money']} in full."),
        answer(late, f"I am sorry: our refund policy lets us refund a charge only within 30 days of it, and the "
                     f"January overage charge of {late['money']} was made on {_spoken(late['charged'])}, "
                     f"{(datetime(2026, 3, 9, tzinfo=UTC) - datetime.fromisoformat(late['charged']).replace(tzinfo=UTC)).days} "
                     f"days before your request, so we cannot refund it."),
        answer(ap, f"we have refunded the onboarding workshop charge of {ap['money']} in full."),
        answer(done, f"we refunded the February overage charge of {done['money']} in full on 4 March; it should "
                     f"reach your account within a few days of that."),
    ]
    lookups = []
    for it in (late, w, ap, done):
        lookups += [{"tool": "gmail__read_email", "arguments": {"messageId": it["message"]}},
                    {"tool": "stripe__search_customers", "arguments": {"query": f"name~'{it['short']}'"}},
                    {"tool": "stripe__list_charges", "arguments": {"customer": it["customer"], "limit": 20}}]
    reference = [
        {"tool": "gmail__list_email_labels", "arguments": {}},
        {"tool": "gmail__search_emails", "arguments": {"query": f"label:{LABEL['name']}"}},
        {"tool": "notion__search", "arguments": {"query": "refund and service credit policy"}},
        {"tool": "notion__get_block_children", "arguments": {"block_id": refund_page["id"]}},
        *lookups,
        {"tool": "stripe__list_refunds", "arguments": {"charge": done["charge"]}},
        {"tool": "slack__search_messages", "arguments": {"query": f"{ap['short'].split()[0]} in:#finance"}},
        {"tool": "slack__get_thread_replies", "arguments": {"channel_id": finance["id"], "thread_ts": root}},
        {"tool": "slack__get_user_profile", "arguments": {"user_id": users[approver.email]["id"]}},
        refund(w), refund(ap),
        *answers,
    ]
    everyone = [w, late, ap, done]
    return {
        "gmail_patch": [{"op": "add", "in": ["labels"], "value": LABEL},
                        *({"op": "add", "in": ["messages"], "value": m} for m in messages)],
        "notion_patch": notion_patch,
        "slack_patch": slack_patch,
        "stripe_patch": [{"op": "add", "in": ["refunds"], "value": done_refund}],
        "reference": reference,
        "success": [
            {"stripe.refundIssued": {"charge": w["charge"]}},
            {"stripe.refundIssued": {"charge": ap["charge"]}},
            *({"gmail.draftSent": {"subject_pattern": "efund|harge|equest", "to": it["email"]}} for it in everyone),
            {"not": {"stripe.refundIssued": {"charge": late["charge"]}}},
        ],
        "frame": [
            {"entity": "stripe.refund", "change": ["create"], "where": {"charge": w["charge"], "amount": w["amount"]},
             "max": 1},
            {"entity": "stripe.refund", "change": ["create"], "where": {"charge": ap["charge"], "amount": ap["amount"]},
             "max": 1},
            {"entity": "gmail.message", "fields": ["label_ids"]},
            *({"entity": "gmail.message", "change": ["create"], "where": {"to": [it["email"]]}, "max": 2}
              for it in everyone),
            {"entity": "gmail.draft", "change": ["create", "delete"]},
            {"entity": "slack.message", "change": ["create"], "where": {"channel": finance["id"]}, "max": 2},
        ],
        "wrongs": [
            {"why": "refunds the January overage of the customer who asked about February",
             "kind": "lookalike", "calls": [refund(w, w["jan_charge"]), refund(w, w["jan_charge"]), refund(ap),
                                            *answers]},
            {"why": "refunds every request it can, the one asked over 30 days after the charge too",
             "kind": "collateral", "calls": [refund(w), refund(ap), refund(ap), refund(late), *answers]},
            {"why": "reads the superseded 2025 policy (14 days): refuses the onboarding workshop refund",
             "kind": "other", "calls": [refund(w), refund(w), *answers]},
            {"why": "refunds without answering the customers whose requests it refuses",
             "kind": "other", "calls": [refund(w), refund(ap), refund(ap), answers[0], answers[2]]},
        ],
        "alternatives": [
            {"why": "answers each customer right after deciding their request, and notes the approved refund "
                    "in the #finance thread",
             "calls": [answers[1], refund(w), refund(ap), answers[0], answers[2], answers[3],
                       {"tool": "slack__reply_to_thread", "arguments": {
                           "channel_id": finance["id"], "thread_ts": root,
                           "text": f"Refunded {ap['short']}'s onboarding workshop ({ap['money']})."}}]},
        ],
        "max_steps": budget(len(reference), forced=1),
    }


def build() -> dict[str, Any]:
    task = case_task(
        "Customers' refund requests have piled up under my Finance/Refunds label. Decide each one as our refund "
        "policy says, do what it allows in Stripe, and answer every customer on their thread.",
        ["gmail", "notion", "slack", "stripe"],
        [*GMAIL_TOOLS, "gmail__list_email_labels", *NOTION_READ, *SLACK_TOOLS, *STRIPE_READ, "stripe__create_refund"],
        [{"tool": "stripe__create_refund", "on_call": 2, "kind": "unavailable"}], 900,
        ("gmail", "notion", "slack", "stripe"))
    return template(id=ID, version=1, servers=["gmail", "notion", "slack", "stripe"], difficulty="hard",
                    category="recovery", case_list=cases(case_of), task=task)
