"""The Postgres world: Kestrel Freight Systems' order database.

At the default size, 8 tables joined by foreign keys and about 10,000 rows: warehouses (8), customers
(400, among them lookalike company names), products (150), orders (2,000 over Jan-Mar 2026), order_items
(about 3,600), payments (one captured payment per paid order, failed attempts before some, and a few
charged twice), shipments (one per shipped order) and refunds.

Version 2 projects the organisation (``servers/org``): ``customers`` holds its 400 customers (legal
names, the current billing contact's address, country, a segment from the plan, the signup time, and a
new ``stripe_customer_id`` column, null for prospects), and every order is placed by a customer who
had signed up and had not churned on the day.

Patchable collections: ``tables`` (by ``name``) and ``tables.rows`` (by primary key value; a composite
key is its values joined by ``,``).
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from servers.kit.world import versions
from servers.kit.worldtext import CUSTOMERS
from servers.org import Organisation, cast

SIZES = {"default": (400, 150, 2200), "small": (20, 12, 60)}

WAREHOUSES = (
    ("LIS1", "Lisbon", "PT", 4200), ("ROT1", "Rotterdam", "NL", 9800), ("HAM1", "Hamburg", "DE", 7600),
    ("GDN1", "Gdansk", "PL", 5100), ("TOR1", "Toronto", "CA", 6300), ("NJ01", "Newark", "US", 8800),
    ("OSA1", "Osaka", "JP", 3900), ("LAG1", "Lagos", "NG", 2700),
)
COMPANY_WORDS = ("Atlas", "Borealis", "Cobalt", "Delta", "Evergreen", "Falcon", "Granite", "Horizon", "Ironwood",
                 "Juniper", "Keystone", "Lumen", "Marlin", "Northstar", "Orchard", "Pinnacle", "Quill", "Redwood",
                 "Summit", "Trident", "Unity", "Valley", "Willow", "Zephyr", "Aurora", "Beacon", "Crescent")
COMPANY_KINDS = ("Foods", "Logistics", "Retail", "Pharma", "Marine", "Textiles", "Electronics", "Beverages",
                 "Builders", "Medical", "Outdoor", "Paper", "Auto Parts", "Grocers", "Optics", "Seafood")
SUFFIXES = ("Ltd", "GmbH", "Inc", "BV", "SA", "AB", "Co", "KK")
COUNTRIES = ("PT", "NL", "DE", "PL", "CA", "US", "JP", "NG", "FR", "ES", "SE", "GB")
SEGMENTS = ("enterprise", "mid-market", "smb")
CATEGORIES = {
    "packaging": ("Pallet wrap 500mm", "Corner board", "Strapping kit", "Bubble roll 1m", "Shipping carton L",
                  "Shipping carton M", "Void fill paper", "Tamper tape"),
    "cold-chain": ("Insulated liner", "Gel pack 1kg", "Dry ice box", "Temperature logger", "Reefer curtain"),
    "hardware": ("Barcode scanner", "Label printer", "Handheld terminal", "RFID gate", "Dock sensor"),
    "labels": ("Thermal labels 100x150", "Hazmat label set", "Fragile labels", "Pallet labels A5"),
    "subscription": ("Route planner seat", "Tracking API tier", "Customs docs add-on", "Fleet telematics seat"),
}
CARRIERS = ("DHL", "UPS", "DB Schenker", "Kuehne+Nagel", "Maersk", "FedEx", "DPD")
METHODS = ("card", "sepa_debit", "wire", "card", "card")
REFUND_REASONS = ("duplicate", "damaged in transit", "order cancelled", "wrong item shipped", "late delivery")


def _customer_names(rng: random.Random, count: int) -> list[str]:
    names = [f"{c} {rng.choice(SUFFIXES)}" for c in CUSTOMERS]
    # Lookalikes a real CRM accumulates: same company in two spellings, two firms with near names.
    names += ["Harbor Foods Inc", "Nordkap Marine AS", "Fjordline Ferry AS", "Hanbit Electronic Co"]
    seen = set(names)
    while len(names) < count:
        name = f"{rng.choice(COMPANY_WORDS)} {rng.choice(COMPANY_KINDS)} {rng.choice(SUFFIXES)}"
        if name not in seen:
            seen.add(name)
            names.append(name)
    names = names[:count]
    rng.shuffle(names)
    return names


def _stamp(rng: random.Random, day: int) -> str:
    month, dom = (1, day + 1) if day < 31 else ((2, day - 30) if day < 59 else (3, day - 58))
    return f"2026-{month:02d}-{dom:02d} {rng.randint(7, 19):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"


def _table(name: str, columns: list[tuple[str, str, bool]], rows: list[list[Any]],
           fks: Sequence[tuple[str, str]] = ()) -> dict[str, Any]:
    return {"name": name, "columns": [{"name": c, "type": t, "nullable": n} for c, t, n in columns],
            "primary_key": ["id"], "rows": rows,
            "foreign_keys": [{"columns": [c], "references": t, "referenced_columns": ["id"]} for c, t in fks]}


def _products(rng: random.Random, n_products: int) -> list[list[Any]]:
    products = []
    flat = [(cat, name) for cat, names in sorted(CATEGORIES.items()) for name in names]
    for i in range(n_products):
        category, base = flat[i % len(flat)]
        variant = "" if i < len(flat) else f" ({('S', 'M', 'L', 'XL', 'EU', 'US')[i // len(flat) % 6]})"
        price = round(rng.uniform(3, 400) if category != "hardware" else rng.uniform(150, 2400), 2)
        products.append([i + 1, f"{category[:3].upper()}-{1000 + i}", base + variant, category, price,
                         round(rng.uniform(0.1, 25), 2), rng.random() > 0.08])
    return products


def _orders(rng: random.Random, n_orders: int, products: list[list[Any]], warehouses: list[list[Any]],
            customer: Callable[[random.Random, str], int]) -> tuple[list, list, list, list, list]:
    """Orders from January to March 2026 with their items, payments (failed attempts, a few charged
    twice), shipments and refunds; ``customer(rng, ordered_at)`` picks who ordered."""
    orders: list[list[Any]] = []
    items: list[list[Any]] = []
    payments: list[list[Any]] = []
    shipments: list[list[Any]] = []
    refunds: list[list[Any]] = []
    for oid in range(1, n_orders + 1):
        day = (oid - 1) * 88 // n_orders
        at = _stamp(rng, day)
        chosen = rng.sample(products, k=rng.choice((1, 1, 2, 2, 3)))
        total = 0.0
        for product in chosen:
            qty = rng.choice((1, 2, 5, 10, 20, 50))
            items.append([len(items) + 1, oid, product[0], qty, product[4]])
            total += qty * product[4]
        status = rng.choices(("delivered", "shipped", "paid", "pending", "cancelled"), (55, 15, 12, 12, 6))[0]
        orders.append([oid, customer(rng, at), rng.randint(1, len(warehouses)), status, at, round(total, 2), "EUR"])
        if status in ("delivered", "shipped", "paid"):
            method = rng.choice(METHODS)
            if rng.random() < 0.05:
                payments.append([len(payments) + 1, oid, round(total, 2), method, "failed", at, f"py_{rng.getrandbits(40):010x}"])
            payments.append([len(payments) + 1, oid, round(total, 2), method, "captured", at, f"py_{rng.getrandbits(40):010x}"])
            if rng.random() < 0.006:  # charged twice: a real support case
                payments.append([len(payments) + 1, oid, round(total, 2), method, "captured", at, f"py_{rng.getrandbits(40):010x}"])
            if rng.random() < 0.015:
                refunds.append([len(refunds) + 1, len(payments), round(total * rng.choice((1, 0.5, 0.2)), 2),
                                rng.choice(REFUND_REASONS[1:]), _stamp(rng, min(88, day + rng.randint(1, 10)))])
        if status in ("delivered", "shipped"):
            shipped = _stamp(rng, min(88, day + rng.randint(0, 2)))
            delivered = _stamp(rng, min(88, day + rng.randint(2, 6))) if status == "delivered" else None
            shipments.append([len(shipments) + 1, oid, rng.choice(CARRIERS), f"1Z{rng.getrandbits(48):012X}",
                              shipped, delivered, "delivered" if delivered else "in_transit"])
    return orders, items, payments, shipments, refunds


def _tables(customers: list, customer_columns: list, products: list, warehouses: list, orders: list, items: list,  # noqa: PLR0913 - the tables, each built before
            payments: list, shipments: list, refunds: list) -> dict[str, Any]:
    money, text, stamp = "DECIMAL(12,2)", "VARCHAR", "TIMESTAMP"
    tables = [
        _table("customers", customer_columns, customers),
        _table("order_items", [("id", "INTEGER", False), ("order_id", "INTEGER", False),
                               ("product_id", "INTEGER", False), ("quantity", "INTEGER", False),
                               ("unit_price", "DECIMAL(10,2)", False)], items,
               [("order_id", "orders"), ("product_id", "products")]),
        _table("orders", [("id", "INTEGER", False), ("customer_id", "INTEGER", False),
                          ("warehouse_id", "INTEGER", False), ("status", text, False), ("ordered_at", stamp, False),
                          ("total", money, False), ("currency", text, False)], orders,
               [("customer_id", "customers"), ("warehouse_id", "warehouses")]),
        _table("payments", [("id", "INTEGER", False), ("order_id", "INTEGER", False), ("amount", money, False),
                            ("method", text, False), ("status", text, False), ("paid_at", stamp, False),
                            ("reference", text, False)], payments, [("order_id", "orders")]),
        _table("products", [("id", "INTEGER", False), ("sku", text, False), ("name", text, False),
                            ("category", text, False), ("unit_price", "DECIMAL(10,2)", False),
                            ("weight_kg", "DECIMAL(8,2)", True), ("active", "BOOLEAN", False)], products),
        _table("refunds", [("id", "INTEGER", False), ("payment_id", "INTEGER", False), ("amount", money, False),
                           ("reason", text, False), ("created_at", stamp, False)], refunds, [("payment_id", "payments")]),
        _table("shipments", [("id", "INTEGER", False), ("order_id", "INTEGER", False), ("carrier", text, False),
                             ("tracking_number", text, False), ("shipped_at", stamp, False),
                             ("delivered_at", stamp, True), ("status", text, False)], shipments,
               [("order_id", "orders")]),
        _table("warehouses", [("id", "INTEGER", False), ("code", text, False), ("city", text, False),
                              ("country", text, False), ("capacity_pallets", "INTEGER", False)], warehouses),
    ]
    for table in tables:
        if not table["foreign_keys"]:
            del table["foreign_keys"]
    return {"tables": tables}


CUSTOMER_COLUMNS = [("id", "INTEGER", False), ("name", "VARCHAR", False), ("email", "VARCHAR", True),
                    ("country", "VARCHAR", True), ("segment", "VARCHAR", True), ("created_at", "TIMESTAMP", True),
                    ("credit_limit", "DECIMAL(12,2)", True)]


def build(rng: random.Random, size: str) -> dict[str, Any]:
    """Version 1: customers of its own (company names drawn from word lists)."""
    n_customers, n_products, n_orders = SIZES[size]
    warehouses = [[i + 1, *w] for i, w in enumerate(WAREHOUSES)]
    customers = []
    for i, name in enumerate(_customer_names(rng, n_customers)):
        slug = "".join(ch for ch in name.lower().split(" ")[0] if ch.isalnum())
        customers.append([i + 1, name, f"ap@{slug}{i + 1}.example", rng.choice(COUNTRIES), rng.choice(SEGMENTS),
                          _stamp(rng, rng.randint(0, 20)).replace("2026-", "2025-"),
                          float(rng.choice((5, 10, 20, 50, 100)) * 1000)])
    products = _products(rng, n_products)
    orders = _orders(rng, n_orders, products, warehouses, lambda r, _: r.randint(1, n_customers))
    return _tables(customers, CUSTOMER_COLUMNS, products, warehouses, *orders)


SEGMENT_OF_PLAN = {"starter": "smb", "growth": "smb", "scale": "mid-market", "enterprise": "enterprise"}


def build_v2(rng: random.Random, size: str, org: Organisation) -> dict[str, Any]:
    """Version 2: the organisation's customers (every one, prospects included, with the billing contact's
    address and the Stripe customer id), ordering only while they are customers."""
    _, n_products, n_orders = SIZES[size]
    warehouses = [[i + 1, *w] for i, w in enumerate(WAREHOUSES)]
    customers, ordering = [], []
    for i, customer in enumerate(org.customers):
        created = (datetime.fromtimestamp(customer.signup, UTC).strftime("%Y-%m-%d %H:%M:%S") if customer.signup
                   else None)
        customers.append([i + 1, customer.name, customer.billing_email, customer.country,
                          SEGMENT_OF_PLAN[customer.plan], created, float(rng.choice((5, 10, 20, 50, 100)) * 1000),
                          customer.stripe_id])
        ordering.append((i + 1, created, customer.churned))

    # Who may order at ``at`` changes only where a signup or a churn date is passed: the list is built once
    # for each (signups up to ``at``, churns before its day) and drawn from as it was built each call.
    signups = sorted(since for _, since, _ in ordering if since is not None)
    churns = sorted(churned for _, _, churned in ordering if churned is not None)
    eligible: dict[tuple[int, int], list[int]] = {}

    def who(r: random.Random, at: str) -> int:
        key = (bisect.bisect_right(signups, at), bisect.bisect_left(churns, at[:10]))
        found = eligible.get(key)
        if found is None:
            found = eligible[key] = [cid for cid, since, churned in ordering
                                     if since is not None and since <= at and (churned is None or at[:10] <= churned)]
        return r.choice(found)

    products = _products(rng, n_products)
    orders = _orders(rng, n_orders, products, warehouses, who)
    columns = CUSTOMER_COLUMNS + [("stripe_customer_id", "VARCHAR", True)]
    return _tables(customers, columns, products, warehouses, *orders)


def row_key(row: list[Any], table: dict[str, Any]) -> str:
    """A row's stable id: its primary key values, joined by ','."""
    names = [c["name"] for c in table["columns"]]
    return ",".join(str(row[names.index(k)]) for k in table.get("primary_key") or names)


def describe(state: dict[str, Any]) -> dict[str, int]:
    return {"tables": len(state["tables"]), "rows": sum(len(t.get("rows", [])) for t in state["tables"])}


GENERATORS = versions("postgres", {"tables": "name", "tables.rows": row_key}, describe, build, (build_v2, cast))
GENERATOR = GENERATORS[-1]

__all__ = ["GENERATOR", "GENERATORS", "row_key"]
