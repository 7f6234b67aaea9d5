"""The Stripe world: Kestrel Freight Systems' Stripe account, six months of subscription billing.

At the default size: 300 customers (companies billed in EUR, USD, GBP, CAD or JPY; among them the
lookalikes a real account accumulates: Harbour Foods Ltd and Harbor Foods Inc, Nordkapp Marine AS and
Nordkap Marine AS, one company with two customers for two entities), 7 products with monthly, annual
and one-time prices (an archived legacy product among them), about 1,400 invoices (one per customer
and month from October 2025 to March 2026, or one a year on annual plans; March's partly still open),
about 2,200 charges (invoice payments, failed card attempts before a retry, usage overage and one-off
workshops, and a few customers charged twice for the same invoice) and refunds (duplicates refunded,
partial service credits). Timestamps are Unix seconds (UTC); amounts are in the smallest currency unit
(cents, but whole yen for JPY). The account's clock ``now`` is 2026-03-16 09:00 UTC.

Version 2 projects the organisation (``servers/org``): its 370 or so billed customers (every one but
the prospects; Fjordline Ferry AS is Fjordline Ferries AS entered twice and billed twice for the same
plan; a few still billed at the address of a billing contact who has since handed over), and its
ledger: about 1,780 invoices, 2,670 charges (declined attempts, cards charged twice: the older ones
refunded, the March ones not yet) and refunds, among them the service credits the refund policy in
force on an incident's day gave the customers it hit (``metadata.incident``).

Patchable collections: ``customers``, ``products``, ``prices``, ``invoices``, ``charges`` and
``refunds`` (each by ``id``); ``set`` may change ``now``.
"""

from __future__ import annotations

import calendar
import random
import time
from typing import Any

from servers.kit.world import versions
from servers.kit.worldtext import CUSTOMERS, FIRST_NAMES, LAST_NAMES
from servers.org import NOW_UNIX, PRICES, Organisation, cast

SIZES = {"default": 300, "small": 24}
#: Billing months: (year, month); the window the invoices span.
MONTHS = ((2025, 10), (2025, 11), (2025, 12), (2026, 1), (2026, 2), (2026, 3))
NOW = NOW_UNIX  # 2026-03-16 09:00 UTC

COMPANY_WORDS = ("Atlas", "Borealis", "Cobalt", "Delta", "Evergreen", "Falcon", "Granite", "Horizon", "Ironwood",
                 "Juniper", "Keystone", "Lumen", "Marlin", "Northstar", "Orchard", "Pinnacle", "Quill", "Redwood",
                 "Summit", "Trident", "Unity", "Valley", "Willow", "Zephyr", "Aurora", "Beacon", "Crescent")
COMPANY_KINDS = ("Foods", "Logistics", "Retail", "Pharma", "Marine", "Textiles", "Electronics", "Beverages",
                 "Builders", "Medical", "Outdoor", "Paper", "Auto Parts", "Grocers", "Optics", "Seafood")
#: country -> (legal suffixes, billing currency, email top-level domain)
COUNTRIES = {
    "GB": (("Ltd", "PLC"), "gbp", "co.uk"), "US": (("Inc", "LLC", "Corp"), "usd", "com"),
    "CA": (("Inc", "Ltd"), "cad", "ca"), "JP": (("KK",), "jpy", "co.jp"), "DE": (("GmbH", "AG"), "eur", "de"),
    "NL": (("BV",), "eur", "nl"), "PT": (("Lda", "SA"), "eur", "pt"), "PL": (("Sp. z o.o.",), "eur", "pl"),
    "NO": (("AS",), "eur", "no"), "SE": (("AB",), "eur", "se"), "FR": (("SA", "SAS"), "eur", "fr"),
    "KR": (("Co",), "usd", "co.kr"),
}
#: Named customers: (name, country, email local part). The lookalikes are deliberate, as in a real account.
NAMED = (
    ("Harbour Foods Ltd", "GB", "accounts"), ("Harbor Foods Inc", "US", "billing"),
    ("Nordkapp Marine AS", "NO", "faktura"), ("Nordkap Marine AS", "NO", "post"),
    ("Fjordline Ferries AS", "NO", "okonomi"), ("Fjordline Ferry AS", "NO", "billing"),
    ("Hanbit Electronics Co", "KR", "ap"), ("Hanbit Electronic Co", "KR", "finance"),
    ("Cedar Pharma SA", "FR", "ap"), ("Cedar Pharma Inc", "US", "ap-us"),
)
PLANS = {"starter": (1, 5), "growth": (5, 20), "scale": (20, 60), "enterprise": (60, 200)}
#: Product name, description, {currency: monthly unit amount}; annual prices are ten months.
SEAT, TRACKING, CUSTOMS = PRICES["seat"], PRICES["tracking"], PRICES["customs"]
TELEMATICS, WORKSHOP, OVERAGE = PRICES["telematics"], PRICES["workshop"], PRICES["overage"]
DECLINES = ("Your card was declined.", "Your card has insufficient funds.", "Your card has expired.")


def _stamp(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> int:
    return calendar.timegm((year, month, day, hour, minute, 0))


def _month_name(year: int, month: int) -> str:
    return f"{calendar.month_name[month]} {year}"


def _id(rng: random.Random, prefix: str, taken: set[str], length: int = 14) -> str:
    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    while True:
        ident = f"{prefix}_" + "".join(rng.choice(alphabet) for _ in range(length))
        if ident not in taken:
            taken.add(ident)
            return ident


def _slug(name: str) -> str:
    words = [w for w in name.lower().replace("&", "and").split() if w not in ("ltd", "plc", "inc", "llc", "corp",
             "gmbh", "ag", "bv", "lda", "sa", "sas", "kk", "as", "ab", "co", "sp.", "z", "o.o.")]
    return "".join(ch for ch in "".join(words) if ch.isalnum())


def _customer_rows(rng: random.Random, count: int) -> list[tuple[str, str, str]]:
    rows = list(NAMED)
    seen = {name for name, _, _ in rows} | {"Harbour Foods", "Nordkapp Marine", "Fjordline Ferries", "Hanbit Electronics"}
    for base in CUSTOMERS:
        if base in seen:
            continue
        country = rng.choice(sorted(COUNTRIES))
        rows.append((f"{base} {rng.choice(COUNTRIES[country][0])}", country, rng.choice(("ap", "billing", "finance"))))
        seen.add(base)
    while len(rows) < count:
        country = rng.choice(sorted(COUNTRIES))
        base = f"{rng.choice(COMPANY_WORDS)} {rng.choice(COMPANY_KINDS)}"
        if base in seen:
            continue
        seen.add(base)
        rows.append((f"{base} {rng.choice(COUNTRIES[country][0])}", country,
                     rng.choice(("ap", "billing", "finance", "accounts", "invoices"))))
    rows = rows[:count]
    rng.shuffle(rows)
    return rows


def _catalog(rng: random.Random, taken: set[str]) -> tuple[list[dict], list[dict], dict[tuple[str, str, str], str]]:
    products: list[dict[str, Any]] = []
    prices: list[dict[str, Any]] = []
    index: dict[tuple[str, str, str], str] = {}
    specs = (
        ("seat", "Route Planner seat", "Route planning for one dispatcher", SEAT, ("month", "year")),
        ("tracking", "Tracking API - Growth tier", "Shipment tracking API, up to 20,000 shipments a month",
         TRACKING, ("month",)),
        ("customs", "Customs Docs add-on", "Customs declarations and commercial invoices", CUSTOMS, ("month",)),
        ("telematics", "Fleet Telematics", "Telematics per vehicle", TELEMATICS, ("month",)),
        ("overage", "Tracking API overage", "Shipments tracked beyond the tier, per shipment", OVERAGE, (None,)),
        ("workshop", "Onboarding workshop", "One-day onboarding workshop, remote", WORKSHOP, (None,)),
        ("legacy", "Route Planner seat (legacy 2023)", "Retired seat plan", {"eur": 3900, "usd": 4300}, ("month",)),
    )
    for key, name, description, amounts, intervals in specs:
        pid = _id(rng, "prod", taken)
        active = key != "legacy"
        products.append({"id": pid, "name": name, "description": description, "active": active})
        for currency, amount in amounts.items():
            for interval in intervals:
                unit = amount * 10 if interval == "year" else amount
                nickname = f"{name} - {'annual' if interval == 'year' else 'monthly' if interval else 'one-time'} {currency.upper()}"
                price: dict[str, Any] = {
                    "id": _id(rng, "price", taken, 24), "product": pid, "unit_amount": unit, "currency": currency,
                    "active": active, "nickname": nickname,
                    "recurring": {"interval": interval, "interval_count": 1} if interval else None}
                prices.append(price)
                index[(key, currency, interval or "once")] = price["id"]
    return products, prices, index


def build(rng: random.Random, size: str) -> dict[str, Any]:
    taken: set[str] = set()
    products, prices, price_ids = _catalog(rng, taken)
    unit = {p["id"]: p["unit_amount"] for p in prices}
    customers: list[dict[str, Any]] = []
    invoices: list[dict[str, Any]] = []
    charges: list[dict[str, Any]] = []
    refunds: list[dict[str, Any]] = []
    window_start = _stamp(*MONTHS[0], 1)  # workshops are sold to customers who signed up since
    for name, country, local in _customer_rows(rng, SIZES[size]):
        currency = COUNTRIES[country][1]
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        domain = f"{_slug(name)}.{COUNTRIES[country][2]}"
        if name == "Cedar Pharma Inc":
            domain = "cedarpharma.fr"
        email = f"{local}@{domain}"
        signup = rng.randint(_stamp(2024, 5, 1), _stamp(2026, 2, 20))
        plan = rng.choices(sorted(PLANS), (2, 4, 3, 1))[0]
        seats = rng.randint(*PLANS[plan])
        annual = plan in ("scale", "enterprise") and rng.random() < 0.3
        metadata = {"crm_id": f"HS-{rng.randint(10_000, 99_999)}", "plan": plan, "seats": str(seats)}
        if rng.random() < 0.25:
            metadata["po_number"] = f"PO-{rng.randint(2025, 2026)}-{rng.randint(100, 9999):04d}"
        if annual:
            metadata["billing"] = "annual"
        cid = _id(rng, "cus", taken)
        customers.append({"id": cid, "email": email, "name": name, "description": f"Billing contact: {first} {last}",
                          "metadata": metadata, "created": signup, "currency": currency})
        addons = [k for k, p in (("tracking", 0.65), ("customs", 0.25), ("telematics", 0.2)) if rng.random() < p]
        vehicles = rng.randint(4, 80)
        prefix = cid[4:12].upper()
        renewal = time.gmtime(signup).tm_mon if time.gmtime(signup).tm_mon in (10, 11, 12, 1, 2, 3) else 10
        seq = 0
        for year, month in MONTHS:
            month_start = _stamp(year, month, 1)
            if signup >= month_start + 28 * 86_400:
                continue
            if annual and month != renewal:
                continue
            interval = "year" if annual else "month"
            lines: list[tuple[str, int, str | None, str]] = [
                ("seat", seats, f"Route Planner seat x {seats} ({_month_name(year, month)})", interval)]
            if not annual:
                lines += [(k, vehicles if k == "telematics" else 1, None, "month") for k in addons]
            created = max(month_start + 6 * 3600 + rng.randint(0, 3600), signup)
            seq += 1
            invoice_lines = []
            for key, qty, description, per in lines:
                pid = price_ids.get((key, currency, per))
                if pid is None:
                    continue
                product = next(p for p in prices if p["id"] == pid)
                invoice_lines.append({"id": _id(rng, "il", taken, 24), "description": description or f"{product['nickname'].rsplit(' - ', 1)[0]} ({_month_name(year, month)})",
                                      "quantity": qty, "amount": unit[pid] * qty, "price": pid})
            total = sum(line["amount"] for line in invoice_lines)
            current = (year, month) == MONTHS[-1]
            roll = rng.random()
            status = ("open" if roll < 0.35 else "paid") if current else (
                "open" if roll < 0.015 else "uncollectible" if roll < 0.022 else "void" if roll < 0.03 else "paid")
            iid = _id(rng, "in", taken, 24)
            invoices.append({"id": iid, "customer": cid, "status": status, "currency": currency,
                             "description": f"Kestrel Freight Systems subscription, {_month_name(year, month)}",
                             "days_until_due": 30, "lines": invoice_lines, "number": f"{prefix}-{seq:04d}",
                             "created": created, "metadata": {}})
            paid_at = created + rng.randint(600, 9 * 86_400)
            if status in ("paid", "uncollectible", "open") and rng.random() < 0.08:
                charges.append({"id": _id(rng, "ch", taken, 24), "amount": total, "currency": currency, "customer": cid,
                                "description": f"Payment for invoice {prefix}-{seq:04d}", "status": "failed",
                                "invoice": iid, "created": created + rng.randint(60, max(61, (paid_at - created) // 2)),
                                "metadata": {},
                                "failure_message": rng.choice(DECLINES)})
            if status == "paid":
                paid_at = min(paid_at, NOW - 3600)
                charge = {"id": _id(rng, "ch", taken, 24), "amount": total, "currency": currency, "customer": cid,
                          "description": f"Payment for invoice {prefix}-{seq:04d}", "status": "succeeded",
                          "invoice": iid, "created": paid_at, "metadata": {}, "failure_message": None}
                charges.append(charge)
                if rng.random() < 0.012:  # the card was charged twice for one invoice
                    twin = {**charge, "id": _id(rng, "ch", taken, 24), "invoice": None,
                            "created": paid_at + rng.randint(40, 900)}
                    charges.append(twin)
                    if twin["created"] < _stamp(2026, 3, 1) and rng.random() < 0.7:
                        refunds.append({"id": _id(rng, "re", taken, 24), "charge": twin["id"], "amount": total,
                                        "reason": "duplicate", "status": "succeeded",
                                        "created": twin["created"] + rng.randint(2, 9) * 86_400, "metadata": {}})
                elif rng.random() < 0.02:  # a service credit after an incident
                    credit = total * rng.choice((10, 20, 25, 50)) // 100
                    if credit:
                        refunds.append({"id": _id(rng, "re", taken, 24), "charge": charge["id"], "amount": credit,
                                        "reason": "requested_by_customer", "status": "succeeded",
                                        "created": min(paid_at + rng.randint(3, 20) * 86_400, NOW - 7200),
                                        "metadata": {"note": "Service credit"}})
            if "tracking" in addons and not annual and (year, month) != MONTHS[-1] and rng.random() < 0.9:
                shipments = rng.randint(200, 9000)
                charges.append({"id": _id(rng, "ch", taken, 24), "amount": shipments * OVERAGE[currency],
                                "currency": currency, "customer": cid,
                                "description": f"Tracking API overage, {_month_name(year, month)}: {shipments:,} shipments",
                                "status": "succeeded", "invoice": None,
                                "created": _stamp(year, month, 1) + 27 * 86_400 + rng.randint(0, 86_400),
                                "metadata": {"usage_month": f"{year}-{month:02d}", "shipments": str(shipments)},
                                "failure_message": None})
        if signup > window_start - 90 * 86_400 and rng.random() < 0.6:
            charges.append({"id": _id(rng, "ch", taken, 24), "amount": WORKSHOP[currency], "currency": currency,
                            "customer": cid, "description": "Onboarding workshop", "status": "succeeded",
                            "invoice": None, "created": min(signup + rng.randint(3, 20) * 86_400, NOW - 3600),
                            "metadata": {}, "failure_message": None})
    customers.sort(key=lambda c: c["created"])
    invoices.sort(key=lambda i: i["created"])
    charges.sort(key=lambda c: c["created"])
    refunds.sort(key=lambda r: r["created"])
    return {"now": NOW, "customers": customers, "products": products, "prices": prices, "invoices": invoices,
            "charges": charges, "refunds": refunds}


def build_v2(rng: random.Random, size: str, org: Organisation) -> dict[str, Any]:
    """Version 2: the organisation's billing as Stripe keeps it: every customer but the prospects (named
    as the CRM names them, billed at the address Stripe was last given), their invoices from October 2025
    to March 2026, the charges that paid them (declined attempts, cards charged twice), and refunds
    (duplicates, goodwill, and the service credits the refund policy gave after incidents, with the
    incident's number in their metadata)."""
    taken: set[str] = set()
    products, prices, price_ids = _catalog(rng, taken)
    stripe_id = {c.key: c.stripe_id for c in org.customers}
    customers = []
    for customer in sorted((c for c in org.customers if c.billed), key=lambda c: (c.signup, c.key)):
        contact = next(x for x in customer.contacts if x.email == customer.stripe_email)
        metadata = {"crm_id": customer.crm_id, "plan": customer.plan, "seats": str(customer.seats)}
        if customer.po_number:
            metadata["po_number"] = customer.po_number
        if customer.annual:
            metadata["billing"] = "annual"
        customers.append({"id": customer.stripe_id, "email": customer.stripe_email, "name": customer.name,
                          "description": f"Billing contact: {contact.name}", "metadata": metadata,
                          "created": customer.signup, "currency": customer.currency})
    invoices: list[dict[str, Any]] = []
    for invoice in org.invoices:
        year, month = int(invoice.period[:4]), int(invoice.period[5:])
        invoices.append({
            "id": invoice.id, "customer": stripe_id[invoice.customer], "status": invoice.status,
            "currency": invoice.currency, "description": f"Kestrel Freight Systems subscription, {_month_name(year, month)}",
            "days_until_due": 30, "number": invoice.number, "created": invoice.created, "metadata": {},
            "lines": [{"id": line.id, "description": line.description, "quantity": line.quantity, "amount": line.amount,
                       "price": price_ids[(line.product, invoice.currency, line.interval)]} for line in invoice.lines]})
    charges = [{"id": c.id, "amount": c.amount, "currency": c.currency, "customer": stripe_id[c.customer],
                "description": c.description, "status": c.status, "invoice": c.invoice, "created": c.created,
                "metadata": dict(c.metadata), "failure_message": c.failure_message} for c in org.charges]
    refunds = [{"id": r.id, "charge": r.charge, "amount": r.amount, "reason": r.reason, "status": "succeeded",
                "created": r.created, "metadata": dict(r.metadata)} for r in org.refunds]
    return {"now": NOW, "customers": customers, "products": products, "prices": prices, "invoices": invoices,
            "charges": charges, "refunds": refunds}


def describe(state: dict[str, Any]) -> dict[str, int]:
    return {kind: len(state[kind]) for kind in ("customers", "products", "prices", "invoices", "charges", "refunds")}


COLLECTIONS = dict.fromkeys(("customers", "products", "prices", "invoices", "charges", "refunds"), "id")
GENERATORS = versions("stripe", COLLECTIONS, describe, build, (build_v2, cast))
GENERATOR = GENERATORS[-1]

__all__ = ["GENERATOR", "GENERATORS"]
