"""x-t-uk-card-close (hard, recovery): February's close of the UK shop's card payments, reconciled
between the order database and Stripe as the close procedure in Notion says.

Gmail, Notion, Postgres and Stripe. The UK shop has taken its customers' card payments through Stripe,
in GBP, since 1 February: every such payment of the order database references its Stripe charge, and
every order charge carries the order's number (``metadata.order_id``). The close procedure (a planted
Notion page beside a planted table of dated EUR/GBP rates) defines the discrepancies, what each needs,
the difference to log, and who hears of what. Of the month's 20-50 payments, the case plants:

- two duplicate charges: the small one is refunded in Stripe; the large one is above the refund
  policy's approval limit (the world's refund policy, 500 EUR), so it is escalated, not refunded;
- a captured payment whose charge was declined, and one with no charge at all: both marked failed;
- a partial refund made in Stripe that the refunds table lacks, converted at the rate of the refund's
  day (not the charge's);
- two charges for other amounts than the payment converts to (one at a stale rate, one short of a whole
  order line): the payment takes the charge's EUR amount;
- a charge for a pending order with no payment: the payment is added and the order becomes paid;
- every one logged in the order database's ``close_log`` (exact kind, EUR difference and whether
  escalated), and one email to the financial controller for the items above the threshold.
No action is due on the look-alikes: a duplicate refunded in full already, a second order of the same
customer for the same amount that day (two orders, one charge each), a payment of 28 February whose
charge Stripe made on 1 March (a February-only listing misses it), charges that failed before a retry
succeeded, refunds the order database records already. Every GBP amount is compared through the rate of
its own day (a weekend takes Friday's). The first refund answers ``unavailable`` (it did not apply: retry);
the third close-log insert answers a timeout although it applied (a blind retry logs twice).

Version 2: the team's twelve earlier closes (February 2025 to January 2026, with the shop's previous card
processor) sit in the world as it would hold them: their ``close_log`` rows (their orders and payments planted
to match) and one escalation email a month to the financial controller, sent by Priya. The goal asks for the
close "the way we closed the earlier months". The procedure still decides every fix; what it does not say the
earlier escalations show: one listing an enterprise customer's order (``segment`` in the order database)
copies the Head of Customer Success (:func:`copied`), seen only in the ``cc`` that ``read_email`` and
``get_thread`` return and ``search_emails`` does not, in 3 or 5 of the 12. Every case's February escalation
lists such an order, so it copies the head; :data:`READINGS` are the other readings of when to copy, each
asserted per case (:func:`check_copy_convention`) to be contradicted by an earlier escalation or to copy alike.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from typing import Any

from servers.kit.pages import make_cursor
from tasks_catalog.authoring.cross import budget, cases, org, template, world
from tasks_catalog.authoring.cross._x_t_billing import (
    GMAIL_TOOLS,
    NOTION_READ,
    STRIPE_READ,
    case_task,
    hex_id,
    notion_page,
    uuid_of,
)
from tasks_catalog.authoring.cross._x_t_data import pg_row, pg_rows, sql_text
from tasks_catalog.authoring.cross._x_t_readings import Always, FlaggedSide, FlaggedWhen, left_open

ID = "x-t-uk-card-close"
PERIOD = "2026-02"
FEB, MAR = datetime(2026, 2, 1, tzinfo=UTC), datetime(2026, 3, 1, tzinfo=UTC)
NOW = datetime(2026, 3, 16, 9, tzinfo=UTC)
#: The business days the rate table covers (a weekend day takes the last rate before it).
RATE_DAYS = [date(2026, 1, 2) + timedelta(days=i) for i in range(71)
             if (date(2026, 1, 2) + timedelta(days=i)).weekday() < 5]
ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
LOG_COLUMNS = ("id", "period", "order_id", "kind", "difference_eur", "action", "escalated")
#: The refund policy's approval limit the case relies on (every seed's 2026 refund policy says 500 EUR).
APPROVAL_EUR = 500
THRESHOLDS = (1500, 2000, 2500, 3000)
#: What the month's escalation names, in its subject or its body: February, which no earlier escalation does
#: (each names its own month), so only a new email to the controller meets the clause.
MONTH_NAMED = "Feb|2026-02|02/2026"
DECLINED = "Your card was declined."


def _ts(text: str) -> datetime:
    return datetime.fromisoformat(str(text).replace("Z", "")).replace(tzinfo=UTC)


def _sql_ts(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def _on_day(column: str, moment: datetime) -> str:
    """SQL that ``column`` (a TIMESTAMP) falls on the UTC day of ``moment``."""
    start = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    return f"{column} >= TIMESTAMP '{_sql_ts(start)}' AND {column} < TIMESTAMP '{_sql_ts(start + timedelta(days=1))}'"


def _unix(moment: datetime) -> int:
    return int(moment.timestamp())


def _cents(eur: float) -> int:
    return int((Decimal(str(eur)) * 100).to_integral_value())


def _half_up(value: Fraction) -> int:
    """``value`` rounded half up."""
    whole = value.numerator // value.denominator
    return whole + (1 if value - whole >= Fraction(1, 2) else 0)


def _untied(value: Fraction) -> int | None:
    """``value`` rounded half up, or ``None`` on an exact tie (a value two careful readings could round
    apart, which no checked amount may be)."""
    return None if value - value.numerator // value.denominator == Fraction(1, 2) else _half_up(value)


def charge_pence(cents: int, rate: int) -> int:
    """What a card is charged for a EUR amount (cents) at ``rate`` (GBP per EUR, in ten-thousandths), in pence."""
    return _half_up(Fraction(cents * rate, 10_000))


def to_pence(cents: int, rate: int) -> int | None:
    """:func:`charge_pence`, or ``None`` where it rounds a tie."""
    return _untied(Fraction(cents * rate, 10_000))


def to_cents(pence: int, rate: int) -> int | None:
    """A GBP amount (pence) in EUR cents at ``rate``."""
    return _untied(Fraction(pence * 10_000, rate))


def _eur(cents: int) -> float:
    return round(cents / 100, 2)


def _money(cents: int) -> str:
    return f"{cents / 100:,.2f}"


class _Rates:
    """The case's table of GBP per EUR by business day (ten-thousandths), and the rate of any day."""

    def __init__(self, rng: random.Random) -> None:
        gbp, usd = rng.randint(8380, 8620), rng.randint(10700, 11000)
        self.gbp: dict[date, int] = {}
        self.usd: dict[date, int] = {}
        for day in RATE_DAYS:
            gbp += rng.choice([-1, 1]) * rng.randint(8, 40)
            usd += rng.randint(-45, 45)
            self.gbp[day], self.usd[day] = gbp, usd

    def day_of(self, moment: datetime) -> date:
        """The business day whose rate ``moment`` takes."""
        day = moment.date()
        while day not in self.gbp:
            day -= timedelta(days=1)
        return day

    def on(self, moment: datetime) -> int:
        return self.gbp[self.day_of(moment)]


def _ids(rng: random.Random, prefix: str, taken: set[str]) -> str:
    while True:
        ident = prefix + "".join(rng.choices(ALNUM, k=24))
        if ident not in taken:
            taken.add(ident)
            return ident


def _controller(seed: int):
    found = [e for e in org(seed).employees if e.title == "Financial controller" and e.employed_on("2026-03-16")]
    return found[0] if len(found) == 1 else None


def _policy_blocks(seed: int, threshold: int, controller) -> list[dict[str, Any]]:
    name, email = f"{controller.first} {controller.last}", controller.email
    texts = [
        ("heading_2", "Effective 2026-02-01"),
        ("paragraph", "From 1 February 2026 the UK shop takes its customers' card payments through Stripe, in GBP. "
                      "Each month's close reconciles the order database with Stripe for the card payments of "
                      "customers in the United Kingdom (country GB) that the order database dates (paid_at) in that "
                      "month. A payment's reference is its Stripe charge id, and Stripe marks every order charge with "
                      "the order's number (metadata order_id). Days are UTC days."),
        ("paragraph", "Rates: the database EUR exchange rates gives GBP per 1 EUR for each business day; a day without "
                      "a rate (a weekend) takes the last rate before it. A card is charged the payment's EUR amount "
                      "times the rate of the charge's day, rounded to the penny. Any GBP amount Stripe holds (a charge, "
                      "a refund) is converted to EUR by dividing it by the rate of its own day, rounded to the cent. A "
                      "difference under 1.00 EUR is rounding, not a discrepancy."),
        ("heading_2", "Discrepancies and what to do"),
        ("bulleted_list_item", "duplicate_charge: Stripe holds more than one succeeded charge for one order. The charge "
                               "the payment references stays; every other one is refunded in full, unless the refund "
                               "policy needs an approval for that refund: then it is not refunded but escalated. A "
                               "duplicate already refunded in full is settled and is not a discrepancy."),
        ("bulleted_list_item", "not_collected: the order database records a captured payment, but Stripe holds no "
                               "succeeded charge for it (the charge was declined, or there is none). Set the payment's "
                               "status to failed; leave the order as it is."),
        ("bulleted_list_item", "refund_not_recorded: Stripe holds a refund, made in the month, of one of these payments "
                               "that the refunds table does not record. Add it to refunds: the payment, the refund's EUR "
                               "amount, the reason and the refund's time."),
        ("bulleted_list_item", "amount_mismatch: a payment's charge succeeded for another amount than the payment's "
                               "amount converts to. Stripe is right: set the payment's amount to the charge's EUR "
                               "amount."),
        ("bulleted_list_item", "unrecorded_charge: Stripe holds a succeeded charge, made in the month, for an order "
                               "that has no payment in the order database. Add the card payment (captured, the charge's "
                               "EUR amount, paid at the charge's time, the charge id as its reference) and set the "
                               "order's status to paid."),
        ("heading_2", "Close log"),
        ("paragraph", "Record every discrepancy in the order database's close_log table: one row per order and kind, "
                      "with the month closed (YYYY-MM), the difference in EUR, what was done, and whether it was "
                      "escalated. The difference is positive: for duplicate_charge, the duplicate charge's EUR amount; "
                      "for not_collected, the payment's amount; for refund_not_recorded, the refund's EUR amount; for "
                      "amount_mismatch, how far the payment's old amount is from the charge's EUR amount; for "
                      "unrecorded_charge, the charge's EUR amount."),
        ("paragraph", f"Escalation: every discrepancy whose difference is above {threshold:,} EUR, and every duplicate "
                      f"left unrefunded for want of an approval, is escalated to the financial controller, {name} "
                      f"({email}): one email once the close is done, listing each escalated order with its kind and "
                      f"difference."),
        ("paragraph", f"Owner: {name}"),
    ]
    return [{"id": uuid_of(ID, "policy", i, seed), "type": kind, "text": text} for i, (kind, text) in enumerate(texts)]


#: The months closed before February, each the way February is to be closed (the shop's previous card
#: processor): a close_log row per discrepancy and one escalation email to the financial controller.
PAST = [f"{y}-{m:02d}" for y, m in [(2025, k) for k in range(2, 13)] + [(2026, 1)]]
#: The habit the earlier escalation emails show (only in their ``cc``, which read_email and get_thread return
#: and search_emails does not): the Head of Customer Success is copied when an escalated order is an
#: enterprise customer's (the customer's ``segment`` in the order database).
CC_FLAGGED = (3, 5)


def copied(e: dict[str, Any]) -> bool:
    """The habit: an escalation listing an enterprise customer's order copies the Head of Customer Success."""
    return e["enterprise"]


#: When an escalation copies the Head of Customer Success, as a reader of the earlier ones might guess it.
READINGS: dict[str, Any] = {
    "always": Always(True, flag="cc"),
    "never": Always(False, flag="cc"),
    "when a duplicate charge is escalated": FlaggedWhen("has_dup", flag="cc"),
    "when a payment not collected is escalated": FlaggedWhen("has_nc", flag="cc"),
    "when an amount mismatch is escalated": FlaggedWhen("has_mm", flag="cc"),
    "when a mid-market customer's order is escalated": FlaggedWhen("mid", flag="cc"),
    "when only smaller customers' orders are escalated": FlaggedWhen("small_only", flag="cc"),
    "above a number of escalated orders": FlaggedSide("n", low=False, flag="cc"),
    "below a number of escalated orders": FlaggedSide("n", low=True, flag="cc"),
    "above a total escalated": FlaggedSide("total", low=False, flag="cc"),
    "above a largest difference": FlaggedSide("top", low=False, flag="cc"),
    "above a customer's credit limit": FlaggedSide("credit", low=False, flag="cc"),
    "in the quarter's last month": FlaggedWhen("quarter_end", flag="cc"),
}


def _facts(period: str, rows: list[dict[str, Any]], customer_of: Callable[[int], dict]) -> dict[str, Any]:
    """The facts of one escalation (its escalated rows) a reader could key the copy on."""
    segs = [customer_of(x["order_id"])["segment"] for x in rows]
    return {"period": period, "enterprise": "enterprise" in segs, "mid": "mid-market" in segs,
            "small_only": set(segs) <= {"smb"}, "has_dup": any(x["kind"] == "duplicate_charge" for x in rows),
            "has_nc": any(x["kind"] == "not_collected" for x in rows),
            "has_mm": any(x["kind"] == "amount_mismatch" for x in rows), "n": len(rows),
            "total": sum(x["diff"] for x in rows), "top": max(x["diff"] for x in rows),
            "credit": max(customer_of(x["order_id"])["credit_limit"] for x in rows),
            "quarter_end": period[-2:] in ("03", "06", "09", "12")}


def check_copy_convention(examples: list[dict[str, Any]], new: dict[str, Any]) -> None:
    """Raise unless every example follows the habit, the copied ones are a minority, and every other reading
    is contradicted by an example or copies the new escalation as the habit does."""
    if any(bool(e["cc"]) != copied(e) for e in examples):
        raise ValueError(f"{ID}: an earlier escalation breaks the habit")
    if not CC_FLAGGED[0] <= sum(bool(e["cc"]) for e in examples) <= CC_FLAGGED[1]:
        raise ValueError(f"{ID}: the copied earlier escalations are not a minority")
    for name in left_open(READINGS, examples, [new], copied)[:1]:
        raise ValueError(f"{ID}: the reading {name!r} fits every earlier escalation")


def _past_closes(seed: int, threshold: int, customers: dict[int, dict], orders: dict[int, dict],
                 payments: list[dict], first_oid: int, first_pid: int, new: dict[str, Any]) -> Any:
    """The earlier closes: planted orders and payments, close_log rows, escalation emails and their facts; the
    first try whose examples :func:`check_copy_convention` accepts, or ``None``."""
    uk = [c for c in customers.values() if c["country"] == "GB"]
    by_seg = {s: [c for c in uk if c["segment"] == s] for s in ("smb", "mid-market", "enterprise")}
    if min(len(v) for v in by_seg.values()) < 2:
        return None
    order0, pay0 = next(iter(orders.values())), payments[0]
    for attempt in range(40):
        rng = random.Random(f"{ID}:past:{seed}:{attempt}")
        flagged = set(rng.sample(range(len(PAST)), rng.randint(*CC_FLAGGED)))
        oid, pid = first_oid, first_pid
        rows: list[dict[str, Any]] = []
        pg: list[dict[str, Any]] = []
        examples: list[dict[str, Any]] = []
        owner: dict[int, dict] = {}
        for m, period in enumerate(PAST):
            y, mo = map(int, period.split("-"))
            n = rng.choice([1, 1, 2, 2, 3])
            segs = ["enterprise"] + [rng.choice(["smb", "mid-market", "enterprise"]) for _ in range(n - 1)] \
                if m in flagged else [rng.choice(["smb", "smb", "mid-market"]) for _ in range(n)]
            month_rows = []
            for seg in [*segs, "small"]:
                kind = "duplicate_charge" if seg == "small" else rng.choice(
                    ["duplicate_charge", "not_collected", "amount_mismatch"])
                at = datetime(y, mo, rng.randint(1, 27), rng.randint(8, 20), rng.randint(0, 59), tzinfo=UTC)
                known = [c for c in (uk if seg == "small" else by_seg[seg]) if (c["created_at"] or "") < _sql_ts(at)]
                if not known:
                    break
                cust = rng.choice(known)
                if seg == "small":
                    cents = rng.randint(40, 480) * 100 + rng.randint(0, 99)
                elif kind == "duplicate_charge":
                    cents = rng.randint(int(APPROVAL_EUR * 1.1), int(threshold * 2.2)) * 100 + rng.randint(0, 99)
                else:
                    cents = rng.randint(int(threshold * 1.1), int(threshold * 2.6)) * 100 + rng.randint(0, 99)
                amount = cents if kind != "amount_mismatch" else cents + rng.randint(200, 900) * 100
                oid, pid = oid + 1, pid + 1
                owner[oid] = cust
                pg.append({"op": "add", "in": ["tables", "orders", "rows"], "value": pg_row(
                    order0, id=oid, customer_id=cust["id"], ordered_at=_sql_ts(at - timedelta(minutes=5)),
                    status="pending" if kind == "not_collected" else "paid", total=_eur(amount))})
                pg.append({"op": "add", "in": ["tables", "payments", "rows"], "value": pg_row(
                    pay0, id=pid, order_id=oid, amount=_eur(amount if kind != "amount_mismatch" else amount - cents),
                    method="card", status="failed" if kind == "not_collected" else "captured", paid_at=_sql_ts(at),
                    reference="pp_" + hex_id(ID, "past", seed, attempt, pid, n=20))})
                x = {"period": period, "order_id": oid, "kind": kind, "diff": cents,
                     "escalated": kind == "duplicate_charge" and cents > APPROVAL_EUR * 100 or cents > threshold * 100,
                     "action": {"duplicate_charge": "later charge refunded in full" if seg == "small" else
                                "later charge not refunded: above the refund approval limit",
                                "not_collected": "charge declined; payment set to failed",
                                "amount_mismatch": "payment amount set to the charge's"}[kind]}
                month_rows.append(x)
            if len(month_rows) != len(segs) + 1:
                break  # a customer of that segment who was not yet one that month
            rng.shuffle(month_rows)
            rows += month_rows
            esc = [x for x in month_rows if x["escalated"]]
            examples.append({**_facts(period, esc, owner.__getitem__), "cc": m in flagged, "rows": esc})
        if len(examples) != len(PAST):
            continue
        try:
            check_copy_convention(examples, new)
        except ValueError:
            continue
        return pg, rows, examples
    return None


def case_of(seed: int) -> dict[str, Any] | None:  # noqa: C901, PLR0912, PLR0915 - one case is many facts of one world
    """The case of ``seed``: the UK shop's card payments in Stripe, the planted discrepancies and look-alikes,
    and what the close procedure makes of each."""
    controller = _controller(seed)
    refund_policy = org(seed).policy("refund").current
    if controller is None or refund_policy.facts.get("approval_above_eur") != APPROVAL_EUR:
        return None
    customers = {r["id"]: r for r in pg_rows(seed, "customers")}
    orders = {r["id"]: r for r in pg_rows(seed, "orders")}
    payments = pg_rows(seed, "payments")
    refunds = pg_rows(seed, "refunds")
    items = pg_rows(seed, "order_items")
    stripe = world("stripe", seed)
    scus = {c["id"]: c for c in stripe["customers"]}
    rng = random.Random(f"{ID}:{seed}")
    rates = _Rates(rng)
    by_order: dict[int, list[dict]] = {}
    for p in payments:
        by_order.setdefault(p["order_id"], []).append(p)
    refunded = {r["payment_id"] for r in refunds}

    def uk(order_id: int) -> bool:
        return customers[orders[order_id]["customer_id"]]["country"] == "GB"

    shop = [p for p in payments if p["method"] == "card" and uk(p["order_id"]) and FEB <= _ts(p["paid_at"]) < NOW]
    scope = [p for p in shop if _ts(p["paid_at"]) < MAR]
    if not 20 <= len(scope) <= 50:
        return None
    for p in shop:
        cus = customers[orders[p["order_id"]]["customer_id"]]["stripe_customer_id"]
        if cus not in scus or scus[cus]["currency"] != "gbp":
            return None
        if sum(q["status"] == "captured" for q in by_order[p["order_id"]]) > 1:
            return None  # an order the order database holds two captured payments for: not this task's story

    def cus_of(order_id: int) -> str:
        return customers[orders[order_id]["customer_id"]]["stripe_customer_id"]

    taken = {c["id"] for c in stripe["charges"]} | {r["id"] for r in stripe["refunds"]}
    charge_of = {p["id"]: _ids(rng, "ch_", taken) for p in shop}

    def charge(pid: int, *, order_id: int, cents: int, at: datetime, status: str = "succeeded",
               pence: int | None = None, ident: str | None = None, customer: str | None = None) -> dict[str, Any]:
        amount = pence if pence is not None else charge_pence(cents, rates.on(at))
        return {"id": ident or charge_of[pid], "amount": amount, "currency": "gbp",
                "customer": customer or cus_of(order_id),
                "description": f"Order {order_id}", "status": status, "invoice": None, "created": _unix(at),
                "metadata": {"order_id": str(order_id)},
                "failure_message": DECLINED if status == "failed" else None}

    # -- choose the planted items among the month's single-payment captured orders ---------------------------
    def roundtrip(p: dict) -> bool:
        rate = rates.on(_ts(p["paid_at"]))
        pence = to_pence(_cents(p["amount"]), rate)
        return pence is not None and to_cents(pence, rate) == _cents(p["amount"])

    plain = [p for p in scope if p["status"] == "captured" and len(by_order[p["order_id"]]) == 1
             and p["id"] not in refunded and to_pence(_cents(p["amount"]), rates.on(_ts(p["paid_at"]))) is not None]
    rng.shuffle(plain)
    used: set[int] = set()

    def pick(test: Callable[[dict[str, Any]], bool]) -> Any:
        for p in plain:
            if p["id"] not in used and test(p):
                used.add(p["id"])
                return p
        return None

    threshold = rng.choice(THRESHOLDS)
    low, high = 0.8 * threshold, 1.25 * threshold
    day = lambda p: _ts(p["paid_at"])  # noqa: E731
    boundary = pick(lambda p: day(p).date() in (date(2026, 2, 27), date(2026, 2, 28))
                    and orders[p["order_id"]]["status"] == "paid")
    boundary = boundary or pick(lambda p: day(p).date() in (date(2026, 2, 27), date(2026, 2, 28)))
    dup_small = pick(lambda p: p["amount"] < 0.7 * APPROVAL_EUR and roundtrip(p) and day(p).hour < 22)
    # above the refund approval limit but under the escalation threshold: escalated for the approval alone
    dup_large = pick(lambda p: 1.6 * APPROVAL_EUR < p["amount"] < low and roundtrip(p) and day(p).hour < 22)
    dup_done = pick(lambda p: day(p) < datetime(2026, 2, 24, tzinfo=UTC) and day(p).hour < 22)
    declined = pick(lambda p: p["amount"] > high)
    missing = pick(lambda p: 50 < p["amount"] < low)
    twin = pick(lambda p: day(p).hour < 19 and orders[p["order_id"]]["status"] in ("paid", "shipped", "delivered"))
    if None in (boundary, dup_small, dup_large, dup_done, declined, missing, twin):
        return None

    # the partial refund: its day's rate converts it to another cent than the charge's day's would
    refund_item: Any = None
    for p in plain:
        if p["id"] in used or day(p) >= datetime(2026, 2, 21, tzinfo=UTC):
            continue
        charged = charge_pence(_cents(p["amount"]), rates.on(day(p)))
        when = (day(p) + timedelta(days=rng.randint(3, 6))).replace(hour=rng.randint(9, 17), minute=rng.randint(0, 59))
        back = round(charged * rng.uniform(0.15, 0.45) / 100) * 100
        if back < 1000:
            continue
        right, wrong = to_cents(back, rates.on(when)), to_cents(back, rates.on(day(p)))
        if right is None or wrong is None or right == wrong or not (right < low * 100 or right > high * 100):
            continue
        used.add(p["id"])
        refund_item = {"payment": p, "pence": back, "at": when, "cents": right, "wrong_cents": wrong}
        break
    # a charge at a stale rate (a few business days old): the payment takes what Stripe charged
    stale: Any = None
    for p in plain:
        if p["id"] in used or p["amount"] < 800:
            continue
        rate = rates.on(day(p))
        old_day = RATE_DAYS[max(0, RATE_DAYS.index(rates.day_of(day(p))) - rng.randint(6, 12))]
        old = to_pence(_cents(p["amount"]), rates.gbp[old_day])
        new = to_cents(old, rate) if old else None
        if new is None or not 500 <= abs(_cents(p["amount"]) - new) < low * 100:
            continue
        used.add(p["id"])
        stale = {"payment": p, "pence": old, "cents": new, "diff": abs(_cents(p["amount"]) - new)}
        break
    # a charge one order line short
    lines: dict[int, list[dict]] = {}
    for it in items:
        lines.setdefault(it["order_id"], []).append(it)
    short: Any = None
    for p in plain:
        if p["id"] in used or len(lines.get(p["order_id"], [])) < 2:
            continue
        line = max(_cents(it["quantity"] * it["unit_price"]) for it in lines[p["order_id"]])
        rest = _cents(p["amount"]) - line
        if line < high * 100 or rest < 10_000:
            continue
        rate = rates.on(day(p))
        part = to_pence(rest, rate)
        new = to_cents(part, rate) if part else None
        if new is None:
            continue
        used.add(p["id"])
        short = {"payment": p, "pence": part, "cents": new, "diff": _cents(p["amount"]) - new}
        break
    # a charge for a pending order with no payment at all
    unrecorded: Any = None
    pending = [o for o in orders.values() if o["status"] == "pending" and o["id"] not in by_order and uk(o["id"])
               and FEB <= _ts(o["ordered_at"]) < datetime(2026, 2, 27, tzinfo=UTC) and _ts(o["ordered_at"]).hour < 22
               and scus.get(cus_of(o["id"]), {}).get("currency") == "gbp"]
    rng.shuffle(pending)
    for o in pending:
        at = _ts(o["ordered_at"]) + timedelta(minutes=rng.randint(3, 40))
        rate = rates.on(at)
        whole = to_pence(_cents(o["total"]), rate)
        if whole is None or to_cents(whole, rate) != _cents(o["total"]) or low * 100 <= _cents(o["total"]) <= high * 100:
            continue
        unrecorded = {"order": o, "at": at, "pence": whole, "cents": _cents(o["total"]),
                      "charge": _ids(rng, "ch_", taken)}
        break
    if None in (refund_item, stale, short, unrecorded):
        return None

    # -- the Stripe patch: every shop payment's charge, the planted extra charges and refunds ---------------
    boundary_paid = datetime(2026, 2, 28, 23, rng.randint(50, 58), rng.randint(0, 59), tzinfo=UTC)
    boundary_charged = datetime(2026, 3, 1, 0, rng.randint(1, 9), rng.randint(0, 59), tzinfo=UTC)
    missing_ref = _ids(rng, "ch_", taken)
    charges: list[dict[str, Any]] = []
    for p in shop:
        pid, oid = p["id"], p["order_id"]
        if pid == missing["id"]:
            continue
        at = boundary_charged if pid == boundary["id"] else day(p)
        status = "failed" if p["status"] == "failed" or pid == declined["id"] else "succeeded"
        pence = next((x["pence"] for x in (stale, short) if x["payment"]["id"] == pid), None)
        charges.append(charge(pid, order_id=oid, cents=_cents(p["amount"]), at=at, status=status, pence=pence))
    dup_charges = {}
    for key, p in (("small", dup_small), ("large", dup_large), ("done", dup_done)):
        at = day(p) + timedelta(minutes=rng.randint(2, 45), seconds=rng.randint(0, 59))
        ident = _ids(rng, "ch_", taken)
        dup_charges[key] = charge(p["id"], order_id=p["order_id"], cents=_cents(p["amount"]), at=at, ident=ident)
        charges.append(dup_charges[key])
    charges.append(charge(0, order_id=unrecorded["order"]["id"], cents=unrecorded["cents"], at=unrecorded["at"],
                          ident=unrecorded["charge"]))
    # the look-alike: a second order of the twin's customer, same items and total, later that day
    twin_order = orders[twin["order_id"]]
    new_oid, new_pid = max(orders) + 1, max(p["id"] for p in payments) + 1
    twin_at = day(twin) + timedelta(minutes=rng.randint(40, 200))
    twin_charge = charge(0, order_id=new_oid, cents=_cents(twin["amount"]), at=twin_at, ident=_ids(rng, "ch_", taken),
                         customer=cus_of(twin["order_id"]))
    charges.append(twin_charge)
    stripe_refunds: list[dict[str, Any]] = []
    charged_of = {p["id"]: next(c["amount"] for c in charges if c["id"] == charge_of[p["id"]])
               for p in shop if p["id"] != missing["id"]}
    for r in refunds:  # the refunds the order database records on shop payments, as Stripe made them
        paid = next((q for q in shop if q["id"] == r["payment_id"]), None)
        if paid is None or _ts(r["created_at"]) >= NOW or paid["status"] != "captured":
            continue
        p = paid
        at = _ts(r["created_at"])
        given = charge_pence(_cents(r["amount"]), rates.on(at))
        left = charged_of[p["id"]] - sum(x["amount"] for x in stripe_refunds if x["charge"] == charge_of[p["id"]])
        if given > left:
            if at < MAR:
                return None  # a February refund Stripe could not have made as the order database records it
            given = left  # a later month's refund of all that is left: not this close's business
        if given > 0:
            stripe_refunds.append({"id": _ids(rng, "re_", taken), "charge": charge_of[p["id"]], "amount": given,
                                   "reason": "requested_by_customer", "status": "succeeded", "created": _unix(at),
                                   "metadata": {"note": r["reason"]}})
    done_at = datetime.fromtimestamp(dup_charges["done"]["created"], UTC) + timedelta(
        days=rng.randint(1, 3), hours=rng.randint(1, 5))
    stripe_refunds.append({"id": _ids(rng, "re_", taken), "charge": dup_charges["done"]["id"],
                           "amount": dup_charges["done"]["amount"], "reason": "duplicate", "status": "succeeded",
                           "created": _unix(done_at), "metadata": {}})
    rp = refund_item["payment"]
    stripe_refunds.append({"id": _ids(rng, "re_", taken), "charge": charge_of[rp["id"]], "amount": refund_item["pence"],
                           "reason": "requested_by_customer", "status": "succeeded",
                           "created": _unix(refund_item["at"]), "metadata": {"note": "damaged in transit"}})
    stripe_patch = [*({"op": "add", "in": ["charges"], "value": c} for c in charges),
                    *({"op": "add", "in": ["refunds"], "value": r} for r in stripe_refunds)]

    # -- the order database patch -----------------------------------------------------------------------------
    pg_patch: list[dict[str, Any]] = []
    for p in shop:
        ref = missing_ref if p["id"] == missing["id"] else charge_of[p["id"]]
        changes: dict[str, Any] = {"reference": ref}
        if p["id"] == boundary["id"]:
            changes["paid_at"] = _sql_ts(boundary_paid)
        pg_patch.append({"op": "replace", "in": ["tables", "payments", "rows"], "value": pg_row(p, **changes)})
    pg_patch.append({"op": "add", "in": ["tables", "orders", "rows"], "value": pg_row(
        twin_order, id=new_oid, status="paid", ordered_at=_sql_ts(twin_at - timedelta(minutes=rng.randint(2, 9))))})
    next_item = max(it["id"] for it in items) + 1
    for k, it in enumerate(sorted(lines[twin["order_id"]], key=lambda it: it["id"])):
        pg_patch.append({"op": "add", "in": ["tables", "order_items", "rows"],
                         "value": pg_row(it, id=next_item + k, order_id=new_oid)})
    pg_patch.append({"op": "add", "in": ["tables", "payments", "rows"], "value": pg_row(
        twin, id=new_pid, order_id=new_oid, paid_at=_sql_ts(twin_at), reference=twin_charge["id"])})
    pg_patch.append({"op": "add", "in": ["tables"], "value": {
        "name": "close_log",
        "columns": [{"name": "id", "type": "INTEGER", "nullable": False},
                    {"name": "period", "type": "VARCHAR", "nullable": False},
                    {"name": "order_id", "type": "INTEGER", "nullable": False},
                    {"name": "kind", "type": "VARCHAR", "nullable": False},
                    {"name": "difference_eur", "type": "DECIMAL(12,2)", "nullable": False},
                    {"name": "action", "type": "VARCHAR", "nullable": True},
                    {"name": "escalated", "type": "BOOLEAN", "nullable": False}],
        "primary_key": ["id"],
        "foreign_keys": [{"columns": ["order_id"], "references": "orders", "referenced_columns": ["id"]}],
        "rows": []}})

    # -- the Notion patch: the rate table and the close procedure under Month-end Close -------------------------
    close_page = notion_page(seed, "Month-end Close")
    fx_db = uuid_of(ID, "fx", seed)
    policy_id = uuid_of(ID, "procedure", seed)
    notion_patch: list[dict[str, Any]] = [
        {"op": "add", "in": ["databases"], "value": {
            "id": fx_db, "title": "EUR exchange rates", "parent_id": close_page["id"],
            "properties": {"Date": {"type": "title"}, "GBP": {"type": "number"}, "USD": {"type": "number"}},
            "archived": False}},
        *({"op": "add", "in": ["pages"], "value": {
            "id": uuid_of(ID, "rate", d.isoformat(), seed), "title": d.isoformat(), "parent_id": fx_db,
            "properties": {"GBP": rates.gbp[d] / 10_000, "USD": rates.usd[d] / 10_000}, "content": [],
            "archived": False, "created_time": f"{d.isoformat()}T16:05:00Z"}} for d in RATE_DAYS),
        {"op": "add", "in": ["pages"], "value": {
            "id": policy_id, "title": "Card payment close: UK shop", "parent_id": close_page["id"], "properties": {},
            "content": _policy_blocks(seed, threshold, controller), "archived": False,
            "created_time": "2026-01-26T10:00:00Z"}},
    ]

    # -- what the procedure makes of each item ----------------------------------------------------------------
    def item(kind: str, order_id: int, diff: int, action: str, *, escalate: bool | None = None) -> dict[str, Any]:
        return {"kind": kind, "order_id": order_id, "diff": diff, "action": action,
                "escalated": diff > threshold * 100 if escalate is None else escalate}

    small_cents, large_cents = _cents(dup_small["amount"]), _cents(dup_large["amount"])
    log = [
        item("duplicate_charge", dup_small["order_id"], small_cents,
             f"refunded the later charge {dup_charges['small']['id']} in full"),
        item("duplicate_charge", dup_large["order_id"], large_cents,
             f"charge {dup_charges['large']['id']} not refunded: above the refund approval limit", escalate=True),
        item("not_collected", declined["order_id"], _cents(declined["amount"]), "charge declined; payment set to failed"),
        item("not_collected", missing["order_id"], _cents(missing["amount"]), "no charge in Stripe; payment set to failed"),
        item("refund_not_recorded", rp["order_id"], refund_item["cents"], "refund added to refunds"),
        item("amount_mismatch", stale["payment"]["order_id"], stale["diff"], "payment amount set to the charge's"),
        item("amount_mismatch", short["payment"]["order_id"], short["diff"], "payment amount set to the charge's"),
        item("unrecorded_charge", unrecorded["order"]["id"], unrecorded["cents"],
             "card payment added; order set to paid"),
    ]
    if any(abs(x["diff"] - threshold * 100) < 0.2 * threshold * 100 and x["kind"] != "duplicate_charge" for x in log):
        return None
    escalated = [x for x in log if x["escalated"]]
    if not escalated or len(escalated) == len(log):
        return None

    # -- the earlier closes, and the copy their escalations show -------------------------------------------------
    heads = [e for e in org(seed).employees if e.title == "Head of Customer Success" and e.employed_on("2026-03-16")]
    if len(heads) != 1:
        return None
    head = heads[0].email
    february = _facts(PERIOD, escalated, lambda o: customers[orders[o]["customer_id"]])
    if not copied(february):
        return None  # the habit is due in every case: an escalated order of an enterprise customer
    past = _past_closes(seed, threshold, customers, orders, payments, new_oid, new_pid + 1, february)
    if past is None:
        return None
    past_pg, past_rows, examples = past
    pg_patch += past_pg
    next(op for op in pg_patch if op["in"] == ["tables"])["value"]["rows"] = [
        [i, x["period"], x["order_id"], x["kind"], _eur(x["diff"]), x["action"], x["escalated"]]
        for i, x in enumerate(past_rows, 1)]
    offset = len(past_rows)
    gmail = world("gmail", seed)
    address, taken_ids = gmail["address"], {m["id"] for m in gmail["messages"]}
    past_mail = []
    for e in examples:
        y, mo = map(int, e["period"].split("-"))
        sent = (datetime(y + mo // 12, mo % 12 + 1, 1, tzinfo=UTC) + timedelta(days=rng.randint(9, 13), hours=10)
                + timedelta(minutes=rng.randint(0, 59)))
        ident = hex_id(ID, "escalation", e["period"], seed)
        if ident in taken_ids:
            return None
        lines_ = "\n".join(f"- order {x['order_id']}: {x['kind']}, {_money(x['diff'])} EUR" for x in e["rows"])
        past_mail.append({"id": ident, "thread_id": ident, "sender": address, "to": [controller.email],
                          "cc": [head] if e["cc"] else [],
                          "subject": f"Card close {e['period']} (UK shop): escalations",
                          "body": f"Hello {controller.first},\n\nThe {e['period']} close of the UK shop's card "
                                  f"payments is done. These need you:\n{lines_}\n\nEverything is in close_log.\n\n"
                                  f"Priya", "date": sent.strftime("%Y-%m-%dT%H:%M:%SZ"), "label_ids": ["SENT"]})
    gmail_patch = [{"op": "add", "in": ["messages"], "value": m} for m in past_mail]
    if any("SENT" in m["label_ids"] and controller.email in m["to"]
           and (re.search(MONTH_NAMED, m["subject"]) or re.search(MONTH_NAMED, m["body"]))
           for m in [*gmail["messages"], *past_mail]):
        return None  # a sent email would already meet the escalation's clause: only the month's new one may

    # -- the calls ----------------------------------------------------------------------------------------------
    def execute(sql: str) -> dict[str, Any]:
        return {"tool": "postgres__execute", "arguments": {"sql": sql}}

    def query(sql: str) -> dict[str, Any]:
        return {"tool": "postgres__query", "arguments": {"sql": sql}}

    refund_row = (max(r["id"] for r in refunds) + 1, rp["id"], _eur(refund_item["cents"]), "requested by customer",
                  _sql_ts(refund_item["at"]))
    refund_at = refund_item["at"]
    fixes = [
        execute(f"UPDATE payments SET status = 'failed' WHERE id = {declined['id']}"),
        execute(f"UPDATE payments SET status = 'failed' WHERE id = {missing['id']}"),
        execute(f"INSERT INTO refunds (id, payment_id, amount, reason, created_at) VALUES ({refund_row[0]}, "
                f"{refund_row[1]}, {refund_row[2]:.2f}, '{refund_row[3]}', '{refund_row[4]}')"),
        execute(f"UPDATE payments SET amount = {_eur(stale['cents']):.2f} WHERE id = {stale['payment']['id']}"),
        execute(f"UPDATE payments SET amount = {_eur(short['cents']):.2f} WHERE id = {short['payment']['id']}"),
        execute(f"INSERT INTO payments (id, order_id, amount, method, status, paid_at, reference) VALUES "
                f"({new_pid + 1}, {unrecorded['order']['id']}, {_eur(unrecorded['cents']):.2f}, 'card', 'captured', "
                f"'{_sql_ts(unrecorded['at'])}', '{unrecorded['charge']}'); "
                f"UPDATE orders SET status = 'paid' WHERE id = {unrecorded['order']['id']}"),
    ]

    def log_insert(i: int, x: dict[str, Any]) -> dict[str, Any]:
        return execute(f"INSERT INTO close_log (id, period, order_id, kind, difference_eur, action, escalated) VALUES "
                       f"({offset + i}, '{PERIOD}', {x['order_id']}, '{x['kind']}', {_eur(x['diff']):.2f}, "
                       f"{sql_text(x['action'])}, {'true' if x['escalated'] else 'false'})")

    logs = [log_insert(i, x) for i, x in enumerate(log, 1)]
    the_log = query(f"SELECT * FROM close_log WHERE period = '{PERIOD}' ORDER BY id")
    refund_small = {"tool": "stripe__create_refund",
                    "arguments": {"charge": dup_charges["small"]["id"], "reason": "duplicate"}}
    body = "\n".join(f"- order {x['order_id']}: {x['kind']}, {_money(x['diff'])} EUR" for x in escalated)
    email: dict[str, Any] = {"tool": "gmail__send_email", "arguments": {
        "to": [controller.email], "cc": [head], "subject": "Card close 2026-02 (UK shop): escalations",
        "body": f"Hello {controller.first},\n\nThe February close of the UK shop's card payments is done. These need "
                f"you:\n{body}\n\nEverything is in close_log.\n\nPriya"}}
    feb_q = f"currency:'gbp' AND created>={_unix(FEB)} AND created<{_unix(MAR)}"
    in_feb = [c for c in [*stripe["charges"], *charges] if c["currency"] == "gbp" and _unix(FEB) <= c["created"] < _unix(MAR)]
    reads = [
        {"tool": "notion__search", "arguments": {"query": "close"}},
        {"tool": "notion__get_block_children", "arguments": {"block_id": policy_id}},
        {"tool": "notion__search", "arguments": {"query": "Refund and service credit policy"}},
        {"tool": "notion__get_block_children", "arguments": {
            "block_id": notion_page(seed, "Refund and service credit policy")["id"]}},
        {"tool": "notion__search", "arguments": {"query": "exchange rates", "filter": "database"}},
        {"tool": "notion__query_database", "arguments": {"database_id": fx_db, "page_size": 100}},
        {"tool": "postgres__list_tables", "arguments": {}},
        {"tool": "postgres__describe_table", "arguments": {"table": "close_log"}},
        query("SELECT l.*, c.name, c.segment, c.credit_limit FROM close_log l JOIN orders o ON o.id = l.order_id "
              "JOIN customers c ON c.id = o.customer_id ORDER BY l.id"),
        {"tool": "gmail__search_emails", "arguments": {"query": "subject:close", "maxResults": 20}},
        *({"tool": "gmail__read_email", "arguments": {"messageId": m["id"]}} for m in past_mail),
        query("SELECT p.id, p.order_id, p.amount, p.status, p.paid_at, p.reference, o.status AS order_status "
              "FROM payments p JOIN orders o ON o.id = p.order_id JOIN customers c ON c.id = o.customer_id "
              "WHERE c.country = 'GB' AND p.method = 'card' AND p.paid_at >= '2026-02-01' AND p.paid_at < '2026-03-01' "
              "ORDER BY p.paid_at"),
        query("SELECT r.* FROM refunds r JOIN payments p ON p.id = r.payment_id JOIN orders o ON o.id = p.order_id "
              "JOIN customers c ON c.id = o.customer_id WHERE c.country = 'GB' AND p.method = 'card' "
              "AND p.paid_at >= '2026-02-01'"),
        {"tool": "stripe__search_charges", "arguments": {"query": feb_q, "limit": 100}},
    ]
    if len(in_feb) > 100:
        listing = f"/v1/charges/search:{hashlib.sha256(feb_q.encode()).hexdigest()[:12]}"
        reads.append({"tool": "stripe__search_charges",
                      "arguments": {"query": feb_q, "limit": 100, "page": make_cursor(listing, 100)}})
    reads += [
        {"tool": "stripe__list_refunds", "arguments": {"limit": 100}},
        {"tool": "stripe__search_charges", "arguments": {"query": f"metadata['order_id']:'{missing['order_id']}'"}},
        {"tool": "stripe__search_charges", "arguments": {"query": f"metadata['order_id']:'{boundary['order_id']}'"}},
        query(f"SELECT o.id, o.status, o.total, count(p.id) AS payments FROM orders o LEFT JOIN payments p "
              f"ON p.order_id = o.id WHERE o.id IN ({unrecorded['order']['id']}, {new_oid}, {twin['order_id']}) "
              f"GROUP BY o.id, o.status, o.total"),
        query("SELECT (SELECT max(id) FROM payments) AS payments, (SELECT max(id) FROM refunds) AS refunds"),
    ]
    reference = [*reads, refund_small, *fixes, *logs[:3], the_log, *logs[3:], the_log, email]

    # -- judgement ----------------------------------------------------------------------------------------------
    def count(sql: str, n: int = 1) -> dict[str, Any]:
        return {"postgres.queryReturnsCount": {"query": sql, "count": n}}

    success = [
        count(f"SELECT 1 FROM payments WHERE id = {declined['id']} AND status = 'failed' "
              f"AND amount = {declined['amount']:.2f}"),
        count(f"SELECT 1 FROM payments WHERE id = {missing['id']} AND status = 'failed' "
              f"AND amount = {missing['amount']:.2f}"),
        count(f"SELECT 1 FROM refunds WHERE payment_id = {rp['id']} AND amount = {_eur(refund_item['cents']):.2f} "
              f"AND {_on_day('created_at', refund_at)}"),
        count(f"SELECT 1 FROM payments WHERE id = {stale['payment']['id']} AND status = 'captured' "
              f"AND amount = {_eur(stale['cents']):.2f}"),
        count(f"SELECT 1 FROM payments WHERE id = {short['payment']['id']} AND status = 'captured' "
              f"AND amount = {_eur(short['cents']):.2f}"),
        count(f"SELECT 1 FROM payments WHERE order_id = {unrecorded['order']['id']} AND method = 'card' "
              f"AND status = 'captured' AND amount = {_eur(unrecorded['cents']):.2f} "
              f"AND reference = '{unrecorded['charge']}' "
              f"AND {_on_day('paid_at', unrecorded['at'])}"),
        count(f"SELECT 1 FROM orders WHERE id = {unrecorded['order']['id']} AND status = 'paid'"),
        *(count(f"SELECT 1 FROM close_log WHERE period = '{PERIOD}' AND order_id = {x['order_id']} "
                f"AND kind = '{x['kind']}' AND difference_eur = {_eur(x['diff']):.2f} "
                f"AND escalated = {'true' if x['escalated'] else 'false'}") for x in log),
        count(f"SELECT count(*) FROM close_log WHERE period = '{PERIOD}' HAVING count(*) = {len(log)}"),
        {"stripe.refundIssued": {"charge": dup_charges["small"]["id"]}},
        {"not": {"stripe.refundIssued": {"charge": dup_charges["large"]["id"]}}},
        {"any": [{"gmail.draftSent": {"subject_pattern": MONTH_NAMED, "to": controller.email}},
                 {"gmail.draftSent": {"body_pattern": MONTH_NAMED, "to": controller.email}}]},
    ]
    frame = [
        {"entity": "postgres.row", "ids": [f"payments/{declined['id']}", f"payments/{missing['id']}"],
         "fields": ["status"], "values": {"status": {"eq": "failed"}}},
        {"entity": "postgres.row", "ids": [f"payments/{stale['payment']['id']}"], "fields": ["amount"],
         "values": {"amount": {"eq": _eur(stale["cents"])}}},
        {"entity": "postgres.row", "ids": [f"payments/{short['payment']['id']}"], "fields": ["amount"],
         "values": {"amount": {"eq": _eur(short["cents"])}}},
        {"entity": "postgres.row", "change": ["create"], "where": {"$table": "refunds", "payment_id": rp["id"]},
         "max": 1},
        {"entity": "postgres.row", "change": ["create"],
         "where": {"$table": "payments", "order_id": unrecorded["order"]["id"]}, "max": 1},
        {"entity": "postgres.row", "ids": [f"orders/{unrecorded['order']['id']}"], "fields": ["status"],
         "values": {"status": {"eq": "paid"}}},
        {"entity": "postgres.row", "change": ["create"], "where": {"$table": "close_log", "period": PERIOD},
         "max": len(log)},
        {"entity": "stripe.refund", "change": ["create"],
         "where": {"charge": dup_charges["small"]["id"], "amount": dup_charges["small"]["amount"]}, "max": 1},
        {"entity": "gmail.message", "change": ["create"], "where": {"to": [controller.email], "cc": [head]},
         "max": 1},
        {"entity": "gmail.draft", "change": ["create", "delete"]},
    ]

    # -- what a wrong close does --------------------------------------------------------------------------------
    closed = [refund_small, *fixes, *logs, email]
    lookalike_refund = {"tool": "stripe__create_refund", "arguments": {"charge": twin_charge["id"], "reason": "duplicate"}}
    wrongs = [
        {"why": f"takes order {new_oid}, the same customer's second order for the same amount that day, for a "
                f"duplicate of order {twin['order_id']} and refunds its charge",
         "kind": "lookalike", "calls": [lookalike_refund, *closed]},
        {"why": "closes every item right, and also puts the declined order back to pending, which the procedure "
                "says to leave as it is",
         "kind": "collateral",
         "calls": [*closed, execute(f"UPDATE orders SET status = 'pending' WHERE id = {declined['order_id']}")]},
        {"why": "retries the close-log insert that timed out with the next id, logging that item twice",
         "kind": "other", "calls": [refund_small, *fixes, *logs, log_insert(len(log) + 1, log[2]), email]},
        {"why": "closes every item right but sends the escalation to the controller alone, as most earlier "
                "escalations were sent, not copying the Head of Customer Success as those listing an enterprise "
                "customer's order were",
         "kind": "other", "calls": [refund_small, *fixes, *logs,
                                    {**email, "arguments": {k: v for k, v in email["arguments"].items() if k != "cc"}}]},
        {"why": "closes every item right but sends the escalation to the controller and the Head of Customer "
                "Success both as recipients, not copying the head as the earlier escalations did",
         "kind": "other", "calls": [refund_small, *fixes, *logs,
                                    {**email, "arguments": {**{k: v for k, v in email["arguments"].items()
                                                               if k != "cc"}, "to": [controller.email, head]}}]},
        {"why": "closes every item right but sends no escalation, though each earlier month's close ended with one",
         "kind": "other", "calls": [refund_small, *fixes, *logs]},
        {"why": "refunds the large duplicate too, though the refund policy needs an approval for it",
         "kind": "other", "calls": [refund_small,
                                    {"tool": "stripe__create_refund", "arguments": {
                                        "charge": dup_charges["large"]["id"], "reason": "duplicate"}},
                                    *fixes, *logs, email]},
        {"why": "converts the unrecorded refund at the rate of the charge's day, not the refund's",
         "kind": "other",
         "calls": [refund_small, *fixes[:2],
                   execute(f"INSERT INTO refunds (id, payment_id, amount, reason, created_at) VALUES ({refund_row[0]}, "
                           f"{refund_row[1]}, {_eur(refund_item['wrong_cents']):.2f}, '{refund_row[3]}', "
                           f"'{refund_row[4]}')"),
                   *fixes[3:], *logs, email]},
        {"why": f"lists only the charges Stripe made in February and takes the payment of order {boundary['order_id']} "
                f"(charged just after midnight on 1 March) for one never collected",
         "kind": "other",
         "calls": [refund_small, *fixes, *logs,
                   execute(f"UPDATE payments SET status = 'failed' WHERE id = {boundary['id']}"),
                   log_insert(len(log) + 1, item("not_collected", boundary["order_id"], _cents(boundary["amount"]), "x")),
                   email]},
        {"why": "escalates only what is above the threshold, not the duplicate left unrefunded for want of an "
                "approval",
         "kind": "other",
         "calls": [refund_small, *fixes,
                   *(log_insert(i, {**x, "escalated": x["diff"] > threshold * 100}) for i, x in enumerate(log, 1)),
                   email]},
    ]
    batched = [
        refund_small, execute("; ".join(f["arguments"]["sql"] for f in fixes)),
        execute("INSERT INTO close_log (id, period, order_id, kind, difference_eur, action, escalated) VALUES "
                + ", ".join(f"({offset + i}, '{PERIOD}', {x['order_id']}, '{x['kind']}', {_eur(x['diff']):.2f}, "
                            f"{sql_text(x['action'])}, {'true' if x['escalated'] else 'false'})" for i, x in enumerate(log, 1))),
        {"tool": "gmail__draft_email", "arguments": email["arguments"]},
    ]
    drafts = {d["id"] for d in world("gmail", seed)["drafts"]}
    draft_id = next(f"r-{n}" for n in range(len(drafts) + 1, len(drafts) + 100) if f"r-{n}" not in drafts)
    alternatives = [
        {"why": "makes the fixes in one transaction and logs every item in one insert, then sends the escalation "
                "from a draft",
         "calls": [*batched, {"tool": "gmail__send_draft", "arguments": {"draftId": draft_id}}]},
    ]
    return {
        "threshold": threshold,
        "controller": controller.email,
        "items": [{k: v for k, v in x.items() if k != "action"} for x in log],
        "head": head,
        "past": [{k: e[k] for k in ("period", "cc", "n", "enterprise")} for e in examples],
        "gmail_patch": gmail_patch,
        "postgres_patch": pg_patch,
        "stripe_patch": stripe_patch,
        "notion_patch": notion_patch,
        "reference": reference,
        "success": success,
        "frame": frame,
        "wrongs": wrongs,
        "alternatives": alternatives,
        "max_steps": budget(len(reference), forced=1),
    }


def build() -> dict[str, Any]:
    """The template document."""
    task = case_task(
        "February is ready to close. Please reconcile the UK shop's February card payments between our order "
        "database and Stripe, and deal with every difference the way our close procedure in Notion says, closing it out the way we "
        "closed the earlier months.",
        ["gmail", "notion", "postgres", "stripe"],
        [*GMAIL_TOOLS, *NOTION_READ, "postgres__list_tables", "postgres__describe_table", "postgres__query",
         "postgres__execute", *STRIPE_READ, "stripe__create_refund"],
        [{"tool": "stripe__create_refund", "on_call": 1, "kind": "unavailable"},
         {"tool": "postgres__execute", "on_call": 9, "kind": "timeout_after_commit"}],
        1800, ("gmail", "notion", "postgres", "stripe"))
    return template(id=ID, version=3, servers=["gmail", "notion", "postgres", "stripe"], difficulty="hard",
                    category="recovery", case_list=cases(case_of, want=12), task=task)
