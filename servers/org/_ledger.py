"""The organisation's money: customer invoices, the charges that paid them (declined attempts, cards
charged twice), refunds (duplicates, service credits owed after incidents) and vendors' bills.

Amounts are in the smallest unit of the currency (cents; whole yen for JPY), times in Unix seconds."""

from __future__ import annotations

import calendar
import random
import time
from datetime import date, timedelta

from servers.org.model import NOW_UNIX, TODAY, Bill, Charge, Customer, Incident, Invoice, Line, Policy, Refund

#: Monthly list prices per product and currency; an annual price is ten months.
PRICES = {
    "seat": {"eur": 4900, "usd": 5400, "gbp": 4200, "cad": 7200, "jpy": 7800},
    "tracking": {"eur": 29000, "usd": 32000, "gbp": 25000, "cad": 43000, "jpy": 46000},
    "customs": {"eur": 9900, "usd": 10900, "gbp": 8500, "cad": 14500, "jpy": 15500},
    "telematics": {"eur": 1500, "usd": 1700, "gbp": 1300, "cad": 2200, "jpy": 2400},
    "workshop": {"eur": 150000, "usd": 165000, "gbp": 130000, "cad": 220000, "jpy": 240000},
    "overage": {"eur": 4, "usd": 5, "gbp": 4, "cad": 6, "jpy": 6},  # per tracked shipment over the tier
}
PRODUCT_NAMES = {"seat": "Route Planner seat", "tracking": "Tracking API - Growth tier",
                 "customs": "Customs Docs add-on", "telematics": "Fleet Telematics"}
#: One unit of each currency in EUR (the CRM's ARR is in EUR).
FX_EUR = {"eur": 0.01, "usd": 0.0092, "gbp": 0.0117, "cad": 0.0068, "jpy": 0.0062}
MONTHS = ((2025, 10), (2025, 11), (2025, 12), (2026, 1), (2026, 2), (2026, 3))
DECLINES = ("Your card was declined.", "Your card has insufficient funds.", "Your card has expired.")
ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def stamp(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> int:
    return calendar.timegm((year, month, day, hour, minute, 0))


def month_name(year: int, month: int) -> str:
    return f"{calendar.month_name[month]} {year}"


def unix_of(iso: str) -> int:
    """An ISO UTC time (``2026-03-02T14:05:00Z``) or date as Unix seconds."""
    day = date.fromisoformat(iso[:10])
    hh, mm = (int(iso[11:13]), int(iso[14:16])) if len(iso) > 10 else (0, 0)
    return stamp(day.year, day.month, day.day, hh, mm)


class _Ids:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.taken: set[str] = set()

    def __call__(self, prefix: str, length: int = 24) -> str:
        """A new id: ``prefix_`` and ``length`` characters, each ``rng.choice(ALPHABET)`` (``_choices``)."""
        while True:
            ident = f"{prefix}_" + _choices(self.rng, length)
            if ident not in self.taken:
                self.taken.add(ident)
                return ident


#: ``_choices``: the top byte of a 32-bit word drawn by ``getrandbits`` -> its ALPHABET character (the top
#: six bits, ``getrandbits(6)``), and the top bytes ``choice`` rejects (six bits of 62 or more).
_BY_TOP_BYTE = bytes(ord(ALPHABET[b >> 2]) if b >> 2 < len(ALPHABET) else 0 for b in range(256))
_REJECTED = bytes(b for b in range(256) if b >> 2 >= len(ALPHABET))


def _choices(rng: random.Random, length: int) -> str:
    """``"".join(rng.choice(ALPHABET) for _ in range(length))``, drawing the same numbers, in blocks.

    For the 62 characters, ``random.Random.choice`` calls ``getrandbits(6)``, the top six bits of the
    generator's next 32-bit word, until it is below 62 (``_randbelow_with_getrandbits``): each word is
    a character or skipped. ``getrandbits(32 * n)`` is the next ``n`` words, the first the lowest, so
    the top byte of each (every fourth byte of the little-endian bytes, from the fourth) gives them in
    order, and as many more words are drawn as were skipped: the generator ends where ``choice`` leaves
    it (the organisation's digest is pinned; tests/servers compares the two). Character by character it
    was two Python calls a character, two thirds of building an organisation's ledger."""
    out = b""
    while len(out) < length:
        need = length - len(out)
        words = rng.getrandbits(32 * need).to_bytes(4 * need, "little")
        out += words[3::4].translate(_BY_TOP_BYTE, _REJECTED)
    return out.decode("ascii")


def build_ledger(rng: random.Random, customers: tuple[Customer, ...], incidents: tuple[Incident, ...],
                 refund_policy: Policy) -> tuple[tuple[Invoice, ...], tuple[Charge, ...], tuple[Refund, ...]]:
    new_id = _Ids(rng)
    invoices: list[Invoice] = []
    charges: list[Charge] = []
    refunds: list[Refund] = []
    window_start = stamp(*MONTHS[0], 1)
    by_key = {c.key: c for c in customers}
    # each month's name once a build (``calendar.month_name`` formats a date on every lookup)
    names = {(year, month): month_name(year, month) for year, month in MONTHS}
    for customer in customers:
        if not customer.billed:
            continue
        currency, signup = customer.currency, customer.signup
        assert signup is not None, f"{customer.key}: a billed customer has signed up"
        signup_month = time.gmtime(signup).tm_mon
        renewal = signup_month if signup_month in (10, 11, 12, 1, 2, 3) else 10
        original = by_key[customer.duplicate_of] if customer.duplicate_of else None
        seq = 0
        for year, month in MONTHS:
            month_start = stamp(year, month, 1)
            period = f"{year}-{month:02d}"
            if signup >= month_start + 28 * 86_400:
                continue
            if customer.churned and period > customer.churned[:7]:
                continue
            plan = original or customer  # a record entered twice bills the original's plan again
            if plan.annual and month != renewal:
                continue
            interval = "year" if plan.annual else "month"
            unit = PRICES["seat"][currency] * (10 if plan.annual else 1)
            lines = [Line(new_id("il"), "seat", interval, plan.seats, unit,
                          f"Route Planner seat x {plan.seats} ({names[year, month]})")]
            if not plan.annual:
                for addon in plan.addons:
                    lines.append(Line(new_id("il"), addon, "month", plan.vehicles if addon == "telematics" else 1,
                                      PRICES[addon][currency], f"{PRODUCT_NAMES[addon]} ({names[year, month]})"))
            created = max(month_start + 6 * 3600 + rng.randint(0, 3600), signup)
            seq += 1
            number = f"{customer.invoice_prefix}-{seq:04d}"
            current = (year, month) == MONTHS[-1]
            roll = rng.random()
            status = ("open" if roll < 0.35 else "paid") if current else (
                "open" if roll < 0.015 else "uncollectible" if roll < 0.022 else "void" if roll < 0.03 else "paid")
            if customer.churned and period == customer.churned[:7]:
                status = "uncollectible"
            paid_at = created + (rng.randint(600, 9 * 86_400) if rng.random() < 0.85 else rng.randint(10, 40) * 86_400)
            if status == "paid" and paid_at > NOW_UNIX - 3600:  # a slow payer has not paid yet
                status = "open"
            invoice = Invoice(new_id("in"), number, customer.key, currency, status, period, created, tuple(lines),
                              paid_at if status == "paid" else None)
            invoices.append(invoice)
            total = invoice.total
            if status in ("paid", "uncollectible", "open") and rng.random() < 0.08:
                charges.append(Charge(new_id("ch"), customer.key, invoice.id, total, currency, "failed",
                                      created + rng.randint(60, max(61, (paid_at - created) // 2)),
                                      f"Payment for invoice {number}", rng.choice(DECLINES)))
            if status == "paid":
                charge = Charge(new_id("ch"), customer.key, invoice.id, total, currency, "succeeded", paid_at,
                                f"Payment for invoice {number}")
                charges.append(charge)
                if rng.random() < 0.015:  # the card was charged twice for one invoice
                    twin = Charge(new_id("ch"), customer.key, None, total, currency, "succeeded",
                                  paid_at + rng.randint(40, 900), f"Payment for invoice {number}",
                                  duplicate_of=charge.id)
                    charges.append(twin)
                    if twin.created < stamp(2026, 3, 1) and rng.random() < 0.7:  # refunded; the recent ones not yet
                        refunds.append(Refund(new_id("re"), twin.id, total, "duplicate",
                                              twin.created + rng.randint(2, 9) * 86_400))
                elif rng.random() < 0.01:  # a goodwill credit
                    credit = total * rng.choice((10, 20)) // 100
                    if credit and paid_at < NOW_UNIX - 2 * 86_400:
                        refunds.append(Refund(new_id("re"), charge.id, credit, "requested_by_customer",
                                              min(paid_at + rng.randint(3, 20) * 86_400, NOW_UNIX - 7200),
                                              {"note": "Goodwill credit"}))
            if "tracking" in plan.addons and not plan.annual and not current and rng.random() < 0.9:
                shipments = rng.randint(200, 9000)
                charges.append(Charge(new_id("ch"), customer.key, None, shipments * PRICES["overage"][currency],
                                      currency, "succeeded", month_start + 27 * 86_400 + rng.randint(0, 86_400),
                                      f"Tracking API overage, {names[year, month]}: {shipments:,} shipments",
                                      metadata={"usage_month": period, "shipments": str(shipments)}))
        if signup > window_start - 90 * 86_400 and customer.duplicate_of is None and rng.random() < 0.6:
            charges.append(Charge(new_id("ch"), customer.key, None, PRICES["workshop"][currency], currency, "succeeded",
                                  min(signup + rng.randint(3, 20) * 86_400, NOW_UNIX - 3600), "Onboarding workshop"))
    refunds += _service_credits(rng, new_id, incidents, invoices, charges, refund_policy)
    invoices.sort(key=lambda i: (i.created, i.id))
    charges.sort(key=lambda c: (c.created, c.id))
    refunds.sort(key=lambda r: (r.created, r.id))
    return tuple(invoices), tuple(charges), tuple(refunds)


def credit_percent(policy: Policy, incident: Incident) -> int:
    """The service credit the refund policy in force when the incident started gives for its severity."""
    return policy.version_on(incident.started).facts.get(f"credit_{incident.severity.lower()}", 0)


def _service_credits(rng: random.Random, new_id: _Ids, incidents: tuple[Incident, ...], invoices: list[Invoice],
                     charges: list[Charge], policy: Policy) -> list[Refund]:
    """Service credits for the customers an incident affected, as the refund policy in force on the
    incident's day says; those of the last two weeks' incidents are not issued yet."""
    paid = {c.invoice: c for c in charges if c.invoice and c.status == "succeeded"}
    by_period = {(i.customer, i.period): i for i in invoices}
    out = []
    for incident in incidents:
        percent = credit_percent(policy, incident)
        if not percent or incident.resolved is None:
            continue
        resolved = unix_of(incident.resolved)
        if resolved > NOW_UNIX - 14 * 86_400:
            continue
        for key in incident.customers:
            invoice = by_period.get((key, incident.started[:7]))
            charge = paid.get(invoice.id) if invoice else None
            if invoice is None or charge is None:
                continue
            created = max(resolved + rng.randint(3, 12) * 86_400, charge.created + 86_400)
            if created > NOW_UNIX - 7200:  # paid so late that the credit is not issued yet
                continue
            out.append(Refund(new_id("re"), charge.id, invoice.total * percent // 100, "requested_by_customer", created,
                              {"incident": str(incident.number), "note": "Service credit"}))
    return out


#: Vendors that bill Kestrel every month, and what for.
BILLED = {"Harbour Print Co": "Printed labels and manifests", "Nimbus Cloud": "Cloud hosting",
          "Lisbon Workspace": "Office rent, Lisbon", "FleetFuel": "Fuel cards", "Atlas Catering": "Office catering",
          "Harbour Printing Ltd": "Printed brochures", "Brightline Couriers": "Courier services",
          "Baltic Pallet Works": "Pallets", "Northwind Labels": "Thermal labels", "Meridian Telecom": "Phone lines"}


def build_bills(rng: random.Random, vendors) -> tuple[Bill, ...]:
    """Monthly bills from the vendors that invoice Kestrel, January to March 2026."""
    number = rng.randint(100, 160)
    out = []
    for vendor in vendors:
        if vendor.name not in BILLED:
            continue
        base = rng.randint(8, 400) * 25
        for month in (1, 2, 3):
            number += rng.randint(1, 3)
            issued = date(2026, month, rng.randint(1, 10))
            if issued.isoformat() > TODAY:
                continue
            due = issued + timedelta(days=vendor.terms_days)
            paid_on = None
            if due.isoformat() < TODAY or rng.random() < 0.4:
                paid_on = min(due - timedelta(days=rng.randint(0, 6)), date.fromisoformat(TODAY) - timedelta(days=1))
                if paid_on.isoformat() >= TODAY or rng.random() < 0.12:  # an overdue bill nobody paid
                    paid_on = None
            status = "paid" if paid_on else "overdue" if due.isoformat() < TODAY else "open"
            amount = (base + rng.randint(-40, 40) * 5) * 100
            out.append(Bill(f"INV-2026-{number}", vendor.key, amount, issued.isoformat(), due.isoformat(), status,
                            paid_on.isoformat() if paid_on else None,
                            f"{BILLED[vendor.name]}, {calendar.month_name[month]} 2026"))
    return tuple(out)


__all__ = ["FX_EUR", "MONTHS", "PRICES", "PRODUCT_NAMES", "build_bills", "build_ledger", "credit_percent", "month_name",
           "stamp", "unix_of"]
