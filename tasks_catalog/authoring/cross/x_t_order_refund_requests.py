"""x-t-order-refund-requests (medium since version 2, recovery): four customers asked by email this month for an order's
payment back. The refund policy in force (Notion, the 2026 version: 30 days from the payment, not the
superseded 14) decides each one: two are refunded in the order database (one of them on an order whose
first card payment failed, so the captured payment is the one refunded), one is refused as too late, and
one was refunded already; each customer is answered. The first write answers a timeout although it
applied, so a blind ``max(id) + 1`` retry refunds twice."""

from __future__ import annotations

import hashlib
import random
from datetime import datetime, timedelta
from typing import Any

from tasks_catalog.authoring.cross import budget, cases, org, template, world
from tasks_catalog.authoring.cross import world_state as state
from tasks_catalog.authoring.cross._x_t_data import pg_rows

ID = "x-t-order-refund-requests"
#: What a refusal says (the goal asks why we did not refund), and what a reply about an earlier refund says.
NOT = "not|n't|unable|nothing"
BEFORE = "[Aa]lready|[Pp]reviously|[Ee]arlier|before"
REASONS = {"damaged": ("arrived damaged", "damaged in transit"), "wrong": ("is not what we ordered", "wrong item shipped"),
           "late": ("arrived too late to be of use", "late delivery")}


def _ts(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", ""))


def _money(amount: float) -> str:
    return f"{amount:,.2f}"


def _amount_pattern(amount: float) -> str:
    whole, cents = f"{amount:.2f}".split(".")
    return whole if cents == "00" else f"{whole}[.,]{cents[0]}"


def case_of(seed: int) -> dict[str, Any] | None:  # noqa: C901, PLR0915 - one case is many facts of one world
    """The case of ``seed``: four request emails planted in the mailbox, each about a real order of the
    sender's company, and the decision the refund policy in force makes on each."""
    o = org(seed)
    now = _ts(o.now)
    policy = next(v for v in o.policy("refund").versions if v.superseded is None)
    window, old_window = policy.facts["refund_window_days"], o.policy("refund").versions[0].facts["refund_window_days"]
    limit = policy.facts.get("approval_above_eur") or 10**9
    if (window, old_window) != (30, 14) or policy.effective > "2026-03-01":
        return None
    customers = {r["id"]: r for r in pg_rows(seed, "customers")}
    orders = {r["id"]: r for r in pg_rows(seed, "orders")}
    payments = pg_rows(seed, "payments")
    refunds = pg_rows(seed, "refunds")
    refunded = {r["payment_id"] for r in refunds}
    paid = {p["id"]: p["amount"] for p in pg_rows(seed, "payments")}
    # "already refunded" is a payment refunded in full before now: a partial refund leaves a remainder a careful
    # agent may refund, and a refund dated after now is not yet made (a solver saw both; calibration 2026-12-05)
    full = {pid for pid in refunded
            if sum(r["amount"] for r in refunds if r["payment_id"] == pid) >= paid.get(pid, float("inf")) - 0.005
            and all(str(r["created_at"]) < o.now.replace("T", " ")[:19] for r in refunds if r["payment_id"] == pid)}
    by_order: dict[int, list[dict]] = {}
    for p in payments:
        by_order.setdefault(p["order_id"], []).append(p)
    contacts = {c.billing_email: c for c in o.customers if c.status in ("Active", "At risk") and c.billing_email}
    rng = random.Random(f"{ID}:{seed}")
    days = list(range(3, 14))
    rng.shuffle(days)
    used: set[int] = set()

    def pick(age_lo: int, age_hi: int, *, small: bool, failed_first: bool = False, done: bool = False):
        day = now.replace(hour=0, minute=0, second=0) - timedelta(days=rng.choice(range(2, 9)))
        pool = []
        for oid, pays in by_order.items():
            order = orders[oid]
            cust = customers[order["customer_id"]]
            if cust["id"] in used or cust["email"] not in contacts or order["ordered_at"] >= o.now[:10]:
                continue
            captured = [p for p in pays if p["status"] == "captured"]
            if len(captured) != 1 or (small and captured[0]["amount"] > limit):
                continue
            cap = captured[0]
            if failed_first != any(p["status"] == "failed" for p in pays) or (
                    cap["id"] not in full if done else cap["id"] in refunded):
                continue
            age = (day - _ts(cap["paid_at"])).days
            if age_lo <= age <= age_hi and abs(cap["amount"] - order["total"]) < 0.005:
                pool.append((oid, cap))
        if not pool:
            return None
        oid, cap = rng.choice(sorted(pool, key=lambda t: t[0]))
        used.add(customers[orders[oid]["customer_id"]]["id"])
        return {"order": oid, "pay": cap, "day": day}

    items: list[Any] = [("refund", pick(4, 11, small=True, failed_first=True)),
             ("refund", pick(17, 27, small=True)),
             ("late", pick(40, 80, small=False)),
             ("done", pick(3, 25, small=False, done=True))]
    if any(i is None for _, i in items):
        return None
    rng.shuffle(items)
    next_id = max(r["id"] for r in refunds) + 1
    gmail_patch: list[Any] = []
    reference_reads: list[Any] = []
    inserts: list[Any] = []
    replies: list[Any] = []
    clauses: list[Any] = []
    frame: list[Any] = []
    refund_calls: list[Any] = []
    for n, (kind, it) in enumerate(items):
        order, pay = orders[it["order"]], it["pay"]
        cust = customers[order["customer_id"]]
        contact = contacts[cust["email"]]
        person = contact.contact("billing", it["day"].date().isoformat())
        if person is None or person.email != cust["email"]:
            return None
        why, reason = REASONS[rng.choice(sorted(REASONS))]
        sent = it["day"].replace(hour=8 + n * 2, minute=rng.randint(0, 59))
        mid = hashlib.sha256(f"{ID}:{seed}:{n}".encode()).hexdigest()[:16]
        paid_on = _ts(pay["paid_at"]).strftime("%d %B %Y")
        body = (f"Hello Priya,\n\nour order {order['id']} (paid on {paid_on}, {_money(order['total'])} EUR) {why}. "
                f"Please refund it.\n\nBest regards,\n{person.first} {person.last}\n{person.title}, {cust['name']}")
        gmail_patch.append({"op": "add", "in": ["messages"], "value": {
            "id": mid, "thread_id": mid, "sender": cust["email"], "to": ["priya.raman@kestrelfreight.com"], "cc": [],
            "subject": f"Refund for order {order['id']}", "body": body, "date": sent.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "label_ids": ["INBOX", "UNREAD"]}})
        reference_reads.append({"tool": "gmail__read_email", "arguments": {"messageId": mid}})
        reference_reads.append({"tool": "postgres__query", "arguments": {"sql": (
            "SELECT o.id, o.customer_id, c.name, c.email, o.status, o.total, p.id AS payment, p.status AS paid, "
            f"p.amount, p.paid_at, r.id AS refund, r.created_at FROM orders o JOIN customers c ON c.id = o.customer_id "
            f"JOIN payments p ON p.order_id = o.id LEFT JOIN refunds r ON r.payment_id = p.id WHERE o.id = {order['id']}")}})
        item = {"kind": kind, "order": order["id"], "payment": pay["id"], "amount": pay["amount"], "to": cust["email"],
                "customer": cust["name"], "message": mid}
        if kind == "refund":
            sql = (f"INSERT INTO refunds (id, payment_id, amount, reason, created_at) VALUES "
                   f"({next_id + len(inserts)}, {pay['id']}, {pay['amount']}, '{reason}', '2026-03-16 09:30:00')")
            inserts.append({"tool": "postgres__execute", "arguments": {"sql": sql}})
            refund_calls.append({"tool": "postgres__execute", "arguments": {"sql": (
                f"INSERT INTO refunds (id, payment_id, amount, reason, created_at) SELECT max(id) + 1, {pay['id']}, "
                f"{pay['amount']}, '{reason}', '2026-03-16 09:30:00' FROM refunds")}})
            clauses.append({"postgres.queryReturnsCount": {"query": (
                f"SELECT 1 FROM refunds WHERE payment_id = {pay['id']} AND amount = {pay['amount']}"), "count": 1}})
            frame.append({"entity": "postgres.row", "change": ["create"],
                          "where": {"$table": "refunds", "payment_id": pay["id"], "amount": pay["amount"]}, "max": 1})
            text = (f"Dear {person.first},\n\nwe have refunded order {order['id']} in full: {_money(pay['amount'])} EUR "
                    f"back to the payment you made on {paid_on}.\n\nBest regards,\nPriya")
            fact = f"[Rr]efund(.|\\n)*{_amount_pattern(pay['amount'])}"
            if any(p["status"] == "failed" for p in by_order[order["id"]]):
                failed = next(p for p in by_order[order["id"]] if p["status"] == "failed")
                item["failed"] = failed["id"]
        elif kind == "late":
            text = (f"Dear {person.first},\n\nI am sorry: order {order['id']} was paid on {paid_on}, and our refund policy "
                    f"lets us refund a payment only within 30 days of it, so we cannot refund it.\n\nBest regards,\nPriya")
            fact = f"({NOT})(.|\\n)*(30|thirty)|(30|thirty)(.|\\n)*({NOT})"
        else:
            done = next(r for r in refunds if r["payment_id"] == pay["id"])
            text = (f"Dear {person.first},\n\norder {order['id']} was already refunded on "
                    f"{_ts(done['created_at']).strftime('%d %B %Y')} ({_money(done['amount'])} EUR), so there is nothing "
                    f"more to refund.\n\nBest regards,\nPriya")
            fact = f"({NOT})(.|\\n)*({BEFORE})|({BEFORE})(.|\\n)*({NOT})"
        replies.append({"tool": "gmail__send_email", "arguments": {
            "to": [cust["email"]], "subject": f"Re: Refund for order {order['id']}", "body": text, "threadId": mid}})
        clauses.append({"gmail.draftSent": {"subject_pattern": "[Oo]rder|[Rr]efund|[Mm]oney", "to": cust["email"],
                                            "body_pattern": fact}})
        item["reply"] = replies[-1]
        items[n] = item
    if len(inserts) != 2:
        return None
    # The first write times out having applied: the reference reads the refunds back before going on.
    check = {"tool": "postgres__query", "arguments": {"sql": "SELECT * FROM refunds ORDER BY id DESC LIMIT 3"}}
    reference = [
        {"tool": "notion__search", "arguments": {"query": "refund"}},
        {"tool": "notion__get_block_children", "arguments": {"block_id": ""}},
        {"tool": "gmail__search_emails", "arguments": {"query": "refund after:2026/03/01", "maxResults": 20}},
        {"tool": "postgres__list_tables", "arguments": {}},
        *reference_reads, inserts[0], check, inserts[1], *replies]
    others = sum(1 for m in world("gmail", seed)["messages"] if m["date"] >= "2026-03-01"
                 and not m["sender"].endswith("@kestrelfreight.com") and "refund" in m["body"].lower())
    refund_items = [i for i in items if i["kind"] == "refund"]
    look = next(i for i in refund_items if "failed" in i)  # the recent one, whose first card payment failed
    other = next(i for i in refund_items if i is not look)
    late = next(i for i in items if i["kind"] == "late")
    done = next(i for i in items if i["kind"] == "done")
    answers = [i["reply"] for i in items]

    def insert(payment: int, amount: float, row_id: int) -> dict[str, Any]:
        return {"tool": "postgres__execute", "arguments": {"sql": (
            f"INSERT INTO refunds (id, payment_id, amount, reason, created_at) VALUES ({row_id}, {payment}, {amount}, "
            f"'customer request', '2026-03-16 09:30:00')")}}

    blind = {"tool": "postgres__execute", "arguments": {"sql": (
        f"INSERT INTO refunds (id, payment_id, amount, reason, created_at) SELECT max(id) + 1, {look['payment']}, "
        f"{look['amount']}, 'customer request', '2026-03-16 09:30:00' FROM refunds")}}
    policy_page = next(p["id"] for p in world("notion", seed)["pages"] if p["title"] == "Refund and service credit policy")
    reference[1]["arguments"]["block_id"] = policy_page
    return {
        "patch": gmail_patch,
        "reference": reference,
        "max_steps": budget(len(reference)),
        "success": {"all": clauses},
        "frame": frame,
        "frame_all": [*frame,
                      # The four answers, and room for a courtesy note to each customer who asked this month for
                      # money back in another way (a card charged twice: Stripe's business, not this task's).
                      {"entity": "gmail.message", "change": ["create"], "max": len(items) + 2 + others},
                      {"entity": "gmail.message", "ids": [i["message"] for i in items], "fields": ["label_ids"]},
                      {"entity": "gmail.draft", "change": ["create", "update", "delete"], "max": len(items) + 3}],
        "alternative": [
            {"tool": "gmail__modify_email", "arguments": {"messageId": i["message"], "removeLabelIds": ["UNREAD"]}}
            for i in items] + reference,
        "requests": [i["message"] for i in items],
        "wrong": [
            {"why": f"refunds order {look['order']} on its failed card payment {look['failed']}, not the captured one",
             "kind": "lookalike",
             "calls": [insert(look["failed"], look["amount"], next_id), insert(other["payment"], other["amount"], next_id + 1),
                       *answers]},
            {"why": f"also refunds order {late['order']}, paid more than 30 days before its request",
             "kind": "collateral",
             "calls": [insert(look["payment"], look["amount"], next_id), insert(other["payment"], other["amount"], next_id + 1),
                       insert(late["payment"], late["amount"], next_id + 2), *answers]},
            {"why": f"refunds every request, order {done['order']} a second time and order {late['order']} too late",
             "kind": "other",
             "calls": [insert(i["payment"], i["amount"], next_id + k) for k, i in enumerate(items)] + answers},
            {"why": f"applies the superseded 14-day window: refuses order {other['order']}, which the policy in force "
                    f"refunds",
             "kind": "other",
             "calls": [insert(look["payment"], look["amount"], next_id), *answers]},
            {"why": f"retries the timed-out refund of order {look['order']} blindly: max(id) + 1 refunds it twice",
             "kind": "other",
             "calls": [blind, blind, insert(other["payment"], other["amount"], next_id + 5), *answers]},
        ],
    }


def build() -> dict[str, Any]:
    """The template document."""
    return template(
        id=ID, version=2, servers=["gmail", "notion", "postgres"], difficulty="medium", category="recovery",
        case_list=cases(case_of),
        task={
            "goal": ("This month several customers have emailed me asking for their money back for an order they paid "
                     "for. Settle each request in our order database as our refund policy says, and answer each of "
                     "them by email: what we refunded, or why we did not."),
            "initial_state": {"gmail": state("gmail", "{{case.patch}}"), "notion": state("notion"),
                              "postgres": state("postgres")},
            "available_tools": ["gmail__search_emails", "gmail__get_thread", "gmail__read_email", "gmail__send_email",
                                "gmail__draft_email", "gmail__send_draft", "gmail__modify_email",
                                "gmail__list_email_labels",
                                "notion__search", "notion__retrieve_page", "notion__get_block_children",
                                "notion__query_database",
                                "postgres__list_tables", "postgres__describe_table", "postgres__query",
                                "postgres__execute"],
            "faults": [{"tool": "postgres__execute", "on_call": 1, "kind": "timeout_after_commit"}],
            "max_steps": "{{case.max_steps}}",
            "timeout_s": 900,
            "frame": "{{case.frame_all}}",
            "success": "{{case.success}}",
            "reference_solution": "{{case.reference}}",
            "wrong_solutions": "{{case.wrong}}",
            "alternative_solutions": [
                {"why": "marks each request read before settling them",
                 "calls": "{{case.alternative}}"},
            ],
        })
