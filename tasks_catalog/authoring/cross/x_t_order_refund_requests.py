"""x-t-order-refund-requests (medium since version 2, recovery): four customers asked by email this month for an order's
payment back. The refund policy in force (Notion, the 2026 version: 30 days from the payment, not the
superseded 14) decides each one: two are refunded in the order database (one of them on an order whose
first card payment failed, so the captured payment is the one refunded), one is refused as too late, and
one was refunded already; each customer is answered. The first write times out although it
applied, so a blind ``max(id) + 1`` retry refunds twice.

Version 3: the team's past work. Six customers asked for a refund in February; each thread holds the request
and Priya's answer (refunded, too late or refunded already, as the 2026 policy decided, with the order
database's refunds planted to match). The answers to the customers whose segment in the order database is
``enterprise`` (two of the six, drawn per case) copy the Head of Customer Success, a copy only the opened
thread's ``cc`` shows (``search_emails`` lists ``to``, never ``cc``; the answers' bodies never mention it);
the other four copy no one. Nothing else in the world says so: the goal only asks for the answers "the way we
have answered these before". One or two of this month's four requesters are enterprise customers, so their
answers copy the Head of Customer Success too; copying her on the others' answers as well is harmless.

:data:`READINGS` lists the other readings of when an answer copies her (always, never, by the outcome, the
customer's country, the payment method, the complaint, from the mid-market segment up, by amount, credit
limit or date); :func:`check_convention` raises unless each is contradicted by an earlier answer or treats
this month's requests as the habit does. A draw that leaves one open is drawn again (:data:`DRAWS` times).
The most recent earlier answer is the copied one in about half the cases.

Strict point (the frame): an enterprise customer's answer must copy the Head of Customer Success in ``cc``
and no one else, as the earlier ones do; every answer goes to its requester alone in ``to``.
"""

from __future__ import annotations

import hashlib
import random
from datetime import date, datetime, timedelta
from typing import Any

from tasks_catalog.authoring.cross import budget, cases, org, template, world
from tasks_catalog.authoring.cross import world_state as state
from tasks_catalog.authoring.cross._x_t_billing import weekdays
from tasks_catalog.authoring.cross._x_t_data import pg_rows
from tasks_catalog.authoring.cross._x_t_readings import Always, FlaggedSide, FlaggedWhen, left_open

ID = "x-t-order-refund-requests"
MAILBOX = "priya.raman@kestrelfreight.com"
HEAD = "Head of Customer Success"
#: How many earlier requests the mailbox holds, how many of them (the enterprise customers') copy the Head of
#: Customer Success, and how many draws a seed gets before it gives no case.
EXAMPLES, COPIED, DRAWS = 6, 2, 300
#: The segments of the order database, in order (a reading "from mid-market up" keys on the rank).
RANK = {"smb": 0, "mid-market": 1, "enterprise": 2}
#: The February working days an earlier request came and was answered (the 2026 policy was in force).
FEBRUARY = weekdays("2026-02-02", "2026-02-27")
#: When an answer copies the Head of Customer Success, as a reader of the earlier ones might take it: the
#: habit is "the customer's segment is enterprise" (``HABIT``); every other reading must be contradicted by an
#: earlier answer or treat this month's requests as the habit does.
READINGS: dict[str, Any] = {
    "always": Always(True, flag="cc"),
    "never": Always(False, flag="cc"),
    "by the outcome (refunded, too late, refunded already)": FlaggedWhen("kind", flag="cc"),
    "by the customer's country": FlaggedWhen("country", flag="cc"),
    "by the customer's region": FlaggedWhen("region", flag="cc"),
    "by the account's owner": FlaggedWhen("owner_key", flag="cc"),
    "above an ARR": FlaggedSide("arr", low=False, flag="cc"),
    "above a number of seats": FlaggedSide("seats", low=False, flag="cc"),
    "by the payment method": FlaggedWhen("method", flag="cc"),
    "by the complaint": FlaggedWhen("reason", flag="cc"),
    "from the mid-market segment up": FlaggedSide("rank", low=False, flag="cc"),
    "above an amount": FlaggedSide("amount", low=False, flag="cc"),
    "below an amount": FlaggedSide("amount", low=True, flag="cc"),
    "above a credit limit": FlaggedSide("credit", low=False, flag="cc"),
    "below a credit limit": FlaggedSide("credit", low=True, flag="cc"),
    "the latest requests": FlaggedSide("day", low=False, flag="cc"),
    "the earliest requests": FlaggedSide("day", low=True, flag="cc"),
}
HABIT = FlaggedWhen("segment", flag="cc")
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


def check_convention(examples: list[dict[str, Any]], items: list[dict[str, Any]]) -> None:
    """Raise unless the earlier answers ``examples`` tell the habit (an enterprise customer's answer copies the
    Head of Customer Success) apart from every reading of :data:`READINGS` for this month's requests ``items``:
    :data:`COPIED` of :data:`EXAMPLES` answers copied, exactly the enterprise customers', and no reading that
    fits every answer yet treats one of this month's otherwise."""
    copied = [e for e in examples if e["cc"]]
    if len(examples) != EXAMPLES or len(copied) != COPIED:
        raise ValueError(f"{ID}: {len(copied)} of {len(examples)} earlier answers copy the {HEAD}")
    if not HABIT(examples) or {e["segment"] for e in copied} != {"enterprise"}:
        raise ValueError(f"{ID}: the earlier answers do not show that an enterprise customer's answer is copied")
    for name in left_open(READINGS, examples, items, _copies)[:1]:
        raise ValueError(f"{ID}: the reading {name!r} fits every earlier answer and differs on this month's requests")


def _copies(item: dict[str, Any]) -> bool:
    """The habit: the answer to an enterprise customer copies the Head of Customer Success."""
    return bool(item["segment"] == "enterprise")


def _answer(kind: str, first: str, order: int, amount: float, paid_on: str, done: dict[str, Any] | None = None) -> str:
    """Priya's answer to a request for order ``order``: refunded in full, too late, or refunded already."""
    if kind == "refund":
        return (f"Dear {first},\n\nwe have refunded order {order} in full: {_money(amount)} EUR back to the payment "
                f"you made on {paid_on}.\n\nBest regards,\nPriya")
    if kind == "late":
        return (f"Dear {first},\n\nI am sorry: order {order} was paid on {paid_on}, and our refund policy lets us "
                f"refund a payment only within 30 days of it, so we cannot refund it.\n\nBest regards,\nPriya")
    assert done is not None
    return (f"Dear {first},\n\norder {order} was already refunded on {_ts(str(done['created_at'])).strftime('%d %B %Y')} "
            f"({_money(done['amount'])} EUR), so there is nothing more to refund.\n\nBest regards,\nPriya")


def _request(order: dict[str, Any], paid_on: str, why: str, person: Any, customer: str) -> str:
    """A customer's request to refund ``order``."""
    return (f"Hello Priya,\n\nour order {order['id']} (paid on {paid_on}, {_money(order['total'])} EUR) {why}. "
            f"Please refund it.\n\nBest regards,\n{person.first} {person.last}\n{person.title}, {customer}")


def case_of(seed: int) -> dict[str, Any] | None:  # noqa: C901, PLR0912, PLR0915 - one case is many facts of one world
    """The case of ``seed``: four request emails planted in the mailbox, each about a real order of the
    sender's company, the decision the refund policy in force makes on each, and six earlier requests of
    February with their answers (and refunds), the enterprise customers' answers copying the Head of Customer
    Success."""
    o = org(seed)
    now = _ts(o.now)
    policy = next(v for v in o.policy("refund").versions if v.superseded is None)
    window, old_window = policy.facts["refund_window_days"], o.policy("refund").versions[0].facts["refund_window_days"]
    limit = policy.facts.get("approval_above_eur") or 10**9
    if (window, old_window) != (30, 14) or policy.effective > "2026-02-01":
        return None
    heads = [e for e in o.employees if e.title == HEAD and e.employed_on("2026-02-01") and e.employed_on(o.now[:10])]
    if len(heads) != 1:
        return None
    head = heads[0]
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
    if any(c.owner == head.key for c in contacts.values()):
        return None
    rng = random.Random(f"{ID}:{seed}")
    days = list(range(3, 14))
    rng.shuffle(days)
    used: set[int] = set()

    def pick(age_lo: int, age_hi: int, *, small: bool, enterprise: bool, failed_first: bool = False,
             done: bool = False):
        day = now.replace(hour=0, minute=0, second=0) - timedelta(days=rng.choice(range(2, 9)))
        pool = []
        for oid, pays in by_order.items():
            order = orders[oid]
            cust = customers[order["customer_id"]]
            if cust["id"] in used or cust["email"] not in contacts or order["ordered_at"] >= o.now[:10] \
                    or (cust["segment"] == "enterprise") != enterprise:
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

    # one or two of the four requesters are enterprise customers (their answers copy the Head of Customer Success)
    enterprise = [True] * rng.choice((1, 2))
    enterprise += [False] * (4 - len(enterprise))
    rng.shuffle(enterprise)
    items: list[Any] = [("refund", pick(4, 11, small=True, failed_first=True, enterprise=enterprise[0])),
                        ("refund", pick(17, 27, small=True, enterprise=enterprise[1])),
                        ("late", pick(40, 80, small=False, enterprise=enterprise[2])),
                        ("done", pick(3, 25, small=False, done=True, enterprise=enterprise[3]))]
    if any(i is None for _, i in items):
        return None
    rng.shuffle(items)
    whys = [REASONS[rng.choice(sorted(REASONS))] for _ in items]
    features = []
    for (kind, it), (_, reason) in zip(items, whys, strict=True):
        cust = customers[orders[it["order"]]["customer_id"]]
        account = contacts[cust["email"]]
        features.append({"kind": kind, "segment": cust["segment"], "rank": RANK[cust["segment"]],
                         "region": account.region, "owner_key": account.owner, "arr": account.arr_eur,
                         "seats": account.seats,
                         "country": cust["country"], "method": it["pay"]["method"], "reason": reason,
                         "amount": it["pay"]["amount"], "credit": cust["credit_limit"], "day": it["day"].toordinal()})
    data = {"by_order": by_order, "orders": orders, "customers": customers, "contacts": contacts, "refunded": refunded,
            "next": max(r["id"] for r in refunds) + 1}
    past = _past(seed, rng, head, limit, data, used, features)
    if past is None:
        return None
    examples, past_patch, past_rows = past
    next_id = max(r["id"] for r in refunds + past_rows) + 1
    gmail_patch: list[Any] = list(past_patch)
    reference_reads: list[Any] = []
    inserts: list[Any] = []
    replies: list[Any] = []
    clauses: list[Any] = []
    frame: list[Any] = []
    answers_to: list[Any] = []
    for n, (kind, it) in enumerate(items):
        order, pay = orders[it["order"]], it["pay"]
        cust = customers[order["customer_id"]]
        contact = contacts[cust["email"]]
        person = contact.contact("billing", it["day"].date().isoformat())
        if person is None or person.email != cust["email"]:
            return None
        why, reason = whys[n]
        sent = it["day"].replace(hour=8 + n * 2, minute=rng.randint(0, 59))
        mid = hashlib.sha256(f"{ID}:{seed}:{n}".encode()).hexdigest()[:16]
        paid_on = _ts(pay["paid_at"]).strftime("%d %B %Y")
        gmail_patch.append({"op": "add", "in": ["messages"], "value": {
            "id": mid, "thread_id": mid, "sender": cust["email"], "to": [MAILBOX], "cc": [],
            "subject": f"Refund for order {order['id']}", "body": _request(order, paid_on, why, person, cust["name"]),
            "date": sent.strftime("%Y-%m-%dT%H:%M:%SZ"), "label_ids": ["INBOX", "UNREAD"]}})
        reference_reads.append({"tool": "gmail__read_email", "arguments": {"messageId": mid}})
        item = {**features[n], "order": order["id"], "payment": pay["id"], "to": cust["email"],
                "customer": cust["name"], "message": mid, "owner": o.employee(contact.owner).email}
        done_row = None
        if kind == "refund":
            sql = (f"INSERT INTO refunds (id, payment_id, amount, reason, created_at) VALUES "
                   f"({next_id + len(inserts)}, {pay['id']}, {pay['amount']}, '{reason}', '2026-03-16 09:30:00')")
            inserts.append({"tool": "postgres__execute", "arguments": {"sql": sql}})
            clauses.append({"postgres.queryReturnsCount": {"query": (
                f"SELECT 1 FROM refunds WHERE payment_id = {pay['id']} AND amount = {pay['amount']}"), "count": 1}})
            frame.append({"entity": "postgres.row", "change": ["create"],
                          "where": {"$table": "refunds", "payment_id": pay["id"], "amount": pay["amount"]}, "max": 1})
            fact = f"[Rr]efund(.|\\n)*{_amount_pattern(pay['amount'])}"
            if any(p["status"] == "failed" for p in by_order[order["id"]]):
                failed = next(p for p in by_order[order["id"]] if p["status"] == "failed")
                item["failed"] = failed["id"]
        elif kind == "late":
            fact = f"({NOT})(.|\\n)*(30|thirty)|(30|thirty)(.|\\n)*({NOT})"
        else:
            done_row = next(r for r in refunds if r["payment_id"] == pay["id"])
            fact = f"({NOT})(.|\\n)*({BEFORE})|({BEFORE})(.|\\n)*({NOT})"
        text = _answer(kind, person.first, order["id"], pay["amount"], paid_on, done_row)
        copy = {"cc": [head.email]} if _copies(item) else {}
        replies.append({"tool": "gmail__send_email", "arguments": {
            "to": [cust["email"]], **copy, "subject": f"Re: Refund for order {order['id']}", "body": text,
            "threadId": mid}})
        clauses.append({"gmail.draftSent": {"subject_pattern": "[Oo]rder|[Rr]efund|[Mm]oney", "to": cust["email"],
                                            "body_pattern": fact}})
        # an enterprise customer's answer copies the Head of Customer Success, as the earlier ones did; another's
        # may copy her too (the habit where the earlier answers do not show it is harmless)
        answers_to.append({"entity": "gmail.message", "change": ["create"],
                           "where": {"to": [cust["email"]], **copy}, "max": 2})
        item["reply"] = replies[-1]
        items[n] = item
    if len(inserts) != 2:
        return None
    check_convention(examples, items)
    # The first write times out having applied: the reference reads the refunds back before going on.
    check = {"tool": "postgres__query", "arguments": {"sql": "SELECT * FROM refunds ORDER BY id DESC LIMIT 3"}}
    ids = ", ".join(str(i["order"]) for i in sorted(items, key=lambda i: i["order"]))
    lookup = {"tool": "postgres__query", "arguments": {"sql": (
        "SELECT o.id, o.customer_id, c.name, c.email, c.segment, o.status, o.total, p.id AS payment, "
        "p.status AS paid, p.amount, p.paid_at, r.id AS refund, r.amount AS refunded, r.created_at "
        "FROM orders o JOIN customers c ON c.id = o.customer_id JOIN payments p ON p.order_id = o.id "
        f"LEFT JOIN refunds r ON r.payment_id = p.id WHERE o.id IN ({ids}) ORDER BY o.id, p.id")}}
    earlier = ", ".join(str(e["order"]) for e in sorted(examples, key=lambda e: e["order"]))
    past_lookup = {"tool": "postgres__query", "arguments": {"sql": (
        "SELECT o.id, c.name, c.email, c.segment, c.country, c.credit_limit, p.method, p.amount, p.paid_at "
        "FROM orders o JOIN customers c ON c.id = o.customer_id JOIN payments p ON p.order_id = o.id "
        f"WHERE o.id IN ({earlier}) ORDER BY o.id")}}
    reference = [
        {"tool": "notion__search", "arguments": {"query": "refund"}},
        {"tool": "notion__get_block_children", "arguments": {"block_id": ""}},
        {"tool": "gmail__search_emails", "arguments": {"query": "refund", "maxResults": 100}},
        {"tool": "postgres__list_tables", "arguments": {}},
        *reference_reads, lookup,
        *({"tool": "gmail__get_thread", "arguments": {"threadId": e["thread"]}}
          for e in sorted(examples, key=lambda e: e["day"], reverse=True)),
        past_lookup, inserts[0], check, inserts[1], *replies]
    others = sorted({m["sender"] for m in world("gmail", seed)["messages"] if m["date"] >= "2026-03-01"
                     and not m["sender"].endswith("@kestrelfreight.com") and "refund" in m["body"].lower()})
    if set(others) & {i["to"] for i in items}:
        return None
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

    def copying(cc: Any) -> list[dict[str, Any]]:
        """The four answers, each copying ``cc(item)`` (a list of addresses; empty: no copy)."""
        out = []
        for i in items:
            args = {k: v for k, v in i["reply"]["arguments"].items() if k != "cc"}
            out.append({"tool": "gmail__send_email", "arguments": {**args, **({"cc": cc(i)} if cc(i) else {})}})
        return out

    blind = {"tool": "postgres__execute", "arguments": {"sql": (
        f"INSERT INTO refunds (id, payment_id, amount, reason, created_at) SELECT max(id) + 1, {look['payment']}, "
        f"{look['amount']}, 'customer request', '2026-03-16 09:30:00' FROM refunds")}}
    policy_page = next(p["id"] for p in world("notion", seed)["pages"] if p["title"] == "Refund and service credit policy")
    reference[1]["arguments"]["block_id"] = policy_page
    writes = [inserts[0], check, inserts[1]]
    wrong = [
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
        {"why": "answers every request without copying anyone, as most earlier answers (those to customers not in the "
                "enterprise segment) do: the habit only the opened enterprise answers' cc shows (what a sampler does)",
         "kind": "other", "calls": [*writes, *copying(lambda i: [])]},
        {"why": "copies each enterprise customer's account owner, as the world's double-charge threads do, not the "
                f"{HEAD} the earlier refund answers copy",
         "kind": "other", "calls": [*writes, *copying(lambda i: [i["owner"]] if _copies(i) else [])]},
        {"why": f"tells the {HEAD} in a separate email instead of copying her on the enterprise customers' answers",
         "kind": "other", "calls": [*writes, *copying(lambda i: []), {"tool": "gmail__send_email", "arguments": {
             "to": [head.email], "subject": "Refund requests this month",
             "body": "FYI: I answered this month's refund requests, the enterprise customers' among them."}}]},
    ]
    for name, reading in READINGS.items():
        flags = {i["order"]: bool(reading.predicts(examples, i)) for i in items}
        if name != "never" and any(_copies(i) and not flags[i["order"]] for i in items):
            wrong.append({"why": f"copies the {HEAD} on the answers the reading {name!r} picks, missing an enterprise "
                                 "customer's", "kind": "other",
                          "calls": [*writes, *copying(lambda i, f=flags: [head.email] if f[i["order"]] else [])]})
            break
    return {
        "patch": {"gmail": gmail_patch, "postgres": [
            {"op": "add", "in": ["tables", "refunds", "rows"], "value": list(r.values())} for r in past_rows]},
        "head": head.email,
        "reference": reference,
        "max_steps": budget(len(reference)),
        "success": {"all": clauses},
        "frame": frame,
        "frame_all": [*frame, *answers_to,
                      # room for a note to the Head of Customer Success, and for a courtesy note to each customer
                      # who asked this month for money back in another way (a card charged twice: Stripe's
                      # business, not this task's)
                      {"entity": "gmail.message", "change": ["create"], "where": {"to": [head.email]}, "max": 2},
                      *({"entity": "gmail.message", "change": ["create"], "where": {"to": [a]}, "max": 1}
                        for a in others),
                      {"entity": "gmail.message", "ids": [i["message"] for i in items], "fields": ["label_ids"]},
                      {"entity": "gmail.draft", "change": ["create", "update", "delete"], "max": len(items) + 3}],
        "alternative": [
            {"tool": "gmail__modify_email", "arguments": {"messageId": i["message"], "removeLabelIds": ["UNREAD"]}}
            for i in items] + reference,
        "over": [*reference[:-len(items)], *copying(lambda i: [head.email])],
        "requests": [i["message"] for i in items],
        "wrong": wrong,
        "summary": {"copied": [e["order"] for e in examples if e["cc"]], "items": [
            (i["order"], i["kind"], i["segment"]) for i in items]},
    }


def _past(seed: int, rng: random.Random, head: Any, limit: float, data: dict[str, Any], used: set[int],
          items: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]],
                                                list[dict[str, Any]]] | None:
    """Six earlier requests of February, each with Priya's answer (and the refund the answer reports), whose
    copies tell the habit apart from every reading for this month's ``items``: the examples (as
    :func:`check_convention` reads them), the Gmail patch and the refund rows to plant; None when no draw does.
    ``data``: the order database's orders, customers, payments by order and refunded payments, and the
    organisation's customers by billing email (``contacts``), none of them a customer in ``used``."""
    by_order, orders, customers, contacts, refunded = (
        data[k] for k in ("by_order", "orders", "customers", "contacts", "refunded"))
    pool: list[dict[str, Any]] = []
    for oid, pays in sorted(by_order.items()):
        order = orders[oid]
        cust = customers[order["customer_id"]]
        if len(pays) != 1 or pays[0]["status"] != "captured" or pays[0]["id"] in refunded \
                or cust["id"] in used or cust["email"] not in contacts or abs(pays[0]["amount"] - order["total"]) > 0.005:
            continue
        pay = pays[0]
        paid = _ts(pay["paid_at"]).date()
        for kind, lo, hi in (("refund", 5, 25), ("done", 6, 25), ("late", 40, 90)):
            if kind != "late" and (paid.isoformat() < "2026-02-01" or pay["amount"] > limit):
                continue
            fit = [d for d in FEBRUARY if lo <= (date.fromisoformat(d) - paid).days <= hi
                   and contacts[cust["email"]].contact("billing", d).email == cust["email"]]
            if fit:
                pool.append({"order": oid, "pay": pay, "cust": cust, "kind": kind, "days": fit,
                             "contact": contacts[cust["email"]],
                             "segment": cust["segment"], "country": cust["country"]})
    top = [c for c in pool if c["segment"] == "enterprise"]
    rest = [c for c in pool if c["segment"] != "enterprise"]
    # the most recent earlier answer is a copied one in about half the cases (a coin of its own per seed)
    latest_copied = int(hashlib.sha256(f"{ID}:{seed}:latest".encode()).hexdigest(), 16) % 2 == 0
    for _ in range(DRAWS):
        if len(top) < COPIED or len(rest) < EXAMPLES - COPIED:
            return None
        chosen = _choose(rng, top, rest)
        if len({c["cust"]["id"] for c in chosen}) != EXAMPLES:
            continue
        dates = [rng.choice(c["days"]) for c in chosen]
        if len(set(dates)) != EXAMPLES or (max(dates) in dates[:COPIED]) != latest_copied:
            continue
        reasons = [REASONS[rng.choice(sorted(REASONS))] for _ in chosen]
        examples = [{"segment": c["segment"], "rank": RANK[c["segment"]], "kind": c["kind"], "country": c["country"],
                     "region": c["contact"].region, "owner_key": c["contact"].owner, "arr": c["contact"].arr_eur,
                     "seats": c["contact"].seats,
                     "method": c["pay"]["method"], "reason": r[1], "why": r[0], "amount": c["pay"]["amount"],
                     "credit": c["cust"]["credit_limit"], "day": date.fromisoformat(d).toordinal(), "date": d,
                     "cc": k < COPIED, "order": c["order"], "candidate": c}
                    for k, (c, d, r) in enumerate(zip(chosen, dates, reasons, strict=True))]
        try:
            check_convention([{k: v for k, v in e.items() if k != "candidate"} for e in examples], items)
        except ValueError:
            continue
        return _plant(seed, rng, head, examples, data["next"])
    return None


def _choose(rng: random.Random, top: list[dict[str, Any]], rest: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Six earlier requests, the first :data:`COPIED` of them from ``top`` (enterprise customers'), the others from
    ``rest``: the copied ones of two outcomes, an uncopied one in each copied one's country and of every outcome,
    where the world has them (most orders were paid too long ago to have been refunded)."""
    kinds = rng.sample(sorted({c["kind"] for c in top}), min(COPIED, len({c["kind"] for c in top})))
    chosen = [rng.choice([c for c in top if c["kind"] == kinds[k % len(kinds)]]) for k in range(COPIED)]
    for f in chosen[:2]:
        alike = [c for c in rest if c["country"] == f["country"]]
        if alike:
            chosen.append(rng.choice(alike))
    for kind in ("refund", "late", "done"):
        missing = [c for c in rest if c["kind"] == kind]
        if len(chosen) < EXAMPLES and kind not in {c["kind"] for c in chosen} and missing:
            chosen.append(rng.choice(missing))
    while len(chosen) < EXAMPLES:
        chosen.append(rng.choice(rest))
    return chosen


def _plant(seed: int, rng: random.Random, head: Any, examples: list[dict[str, Any]], first_id: int) -> tuple[
        list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """The threads of the earlier requests ``examples`` (request and answer) and the refunds they report, numbered
    from ``first_id`` on."""
    patch: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    for n, e in enumerate(examples):
        c = e.pop("candidate")
        order, pay, cust = c, c["pay"], c["cust"]
        person = c["contact"].contact("billing", e["date"])
        paid_on = _ts(pay["paid_at"]).strftime("%d %B %Y")
        why = e.pop("why")
        asked = datetime.fromisoformat(e["date"]).replace(hour=rng.randint(8, 12), minute=rng.randint(0, 59))
        answered = asked + timedelta(hours=rng.randint(1, 4), minutes=rng.randint(0, 59))
        thread, reply = (hashlib.sha256(f"{ID}:{seed}:past:{n}:{i}".encode()).hexdigest()[:16] for i in range(2))
        done = None
        if e["kind"] == "refund":
            rows.append({"id": first_id + len(rows), "payment_id": pay["id"], "amount": pay["amount"],
                         "reason": e["reason"], "created_at": answered.strftime("%Y-%m-%d %H:%M:%S")})
        elif e["kind"] == "done":
            gap = (asked.date() - _ts(pay["paid_at"]).date()).days
            when = _ts(pay["paid_at"]) + timedelta(days=rng.randint(2, gap - 3), hours=rng.randint(1, 5))
            done = {"id": first_id + len(rows), "payment_id": pay["id"], "amount": pay["amount"],
                    "reason": e["reason"], "created_at": when.strftime("%Y-%m-%d %H:%M:%S")}
            rows.append(done)
        subject = f"Refund for order {order['order']}"
        patch += [
            {"op": "add", "in": ["messages"], "value": {
                "id": thread, "thread_id": thread, "sender": cust["email"], "to": [MAILBOX], "cc": [],
                "subject": subject, "body": _request({"id": order["order"], "total": pay["amount"]}, paid_on, why,
                                                     person, cust["name"]),
                "date": asked.strftime("%Y-%m-%dT%H:%M:%SZ"), "label_ids": ["INBOX"]}},
            {"op": "add", "in": ["messages"], "value": {
                "id": reply, "thread_id": thread, "sender": MAILBOX, "to": [cust["email"]],
                "cc": [head.email] if e["cc"] else [], "subject": f"Re: {subject}",
                "body": _answer(e["kind"], person.first, order["order"], pay["amount"], paid_on, done),
                "date": answered.strftime("%Y-%m-%dT%H:%M:%SZ"), "label_ids": ["SENT"]}}]
        e["thread"] = thread
    return examples, patch, rows


def build() -> dict[str, Any]:
    """The template document."""
    return template(
        id=ID, version=3, servers=["gmail", "notion", "postgres"], difficulty="medium", category="recovery",
        case_list=cases(case_of, want=10, level="medium"),
        task={
            "goal": ("This month several customers have emailed me asking for their money back for an order they paid "
                     "for. Settle each request in our order database as our refund policy says, and answer each of "
                     "them by email the way we have answered these requests before: what we refunded, or why we did "
                     "not."),
            "initial_state": {"gmail": state("gmail", "{{case.patch.gmail}}"), "notion": state("notion"),
                              "postgres": state("postgres", "{{case.patch.postgres}}")},
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
                {"why": "copies the Head of Customer Success on every answer, not only the enterprise customers' (the "
                        "habit where the earlier answers do not show it)",
                 "calls": "{{case.over}}"},
            ],
        })
