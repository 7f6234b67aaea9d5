"""x-t-order-db-stripe-audit (medium since version 2, recovery): an import scrambled five of the order database's 400
Stripe links, and only a full comparison with Stripe (four pages of customers) finds them: two lookalike
companies swapped (Harbour Foods Ltd and Harbor Foods Inc, or another such pair), a customer given
another's id, an id with a typo that no Stripe customer has, and a prospect (no Stripe customer, so no
link) given a billed customer's id. Every other link, the duplicate Fjordline records' and the Cedar Pharma
group's included, is right and stays. The first write finds the database unavailable."""

from __future__ import annotations

import random
from typing import Any

from tasks_catalog.authoring.cross import budget, cases, org, template, world
from tasks_catalog.authoring.cross import world_state as state
from tasks_catalog.authoring.cross._x_t_data import pg_row, pg_rows

ID = "x-t-order-db-stripe-audit"
PAIRS = (("Harbour Foods Ltd", "Harbor Foods Inc"), ("Nordkapp Seafood AS", "Nordkap Marine AS"),
         ("Hanbit Electronics Co", "Hanbit Electronic Co"))
ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def _set(row_id: int, stripe: str | None) -> dict[str, Any]:
    value = "NULL" if stripe is None else f"'{stripe}'"
    return {"tool": "postgres__execute",
            "arguments": {"sql": f"UPDATE customers SET stripe_customer_id = {value} WHERE id = {row_id}"}}


def case_of(seed: int) -> dict[str, Any] | None:
    """The case of ``seed``: the five scrambled links, what each must be, and the calls that find them."""
    o = org(seed)
    rows = pg_rows(seed, "customers")
    stripe = world("stripe", seed)["customers"]
    by_name: dict[str, list[str]] = {}
    for c in stripe:
        by_name.setdefault(c["name"], []).append(c["id"])
    if any(len(v) > 1 for v in by_name.values()):
        return None
    # The world itself must be consistent: each row linked to the Stripe customer of its name, or to none.
    if any(r["stripe_customer_id"] != next(iter(by_name.get(r["name"]) or []), None) for r in rows):
        return None
    row = {r["name"]: r for r in rows}
    status = {c.name: c.status for c in o.customers}
    rng = random.Random(f"{ID}:{seed}")
    pairs = [p for p in PAIRS if all(n in row and row[n]["stripe_customer_id"] for n in p)]
    if not pairs:
        return None
    a, b = (row[n] for n in rng.choice(pairs))
    protected = {r["name"] for r in rows if any(w in r["name"] for w in ("Fjordline", "Cedar", "Lumen"))}
    protected |= {n for p in PAIRS for n in p}
    billed = sorted((r for r in rows if r["stripe_customer_id"] and r["name"] not in protected
                     and status.get(r["name"]) in ("Active", "At risk")), key=lambda r: r["id"])
    prospects = sorted((r for r in rows if r["stripe_customer_id"] is None and status.get(r["name"]) == "Prospect"),
                       key=lambda r: r["id"])
    if len(billed) < 4 or not prospects:
        return None
    x, y, t, z = rng.sample(billed, 4)
    p = rng.choice(prospects)
    known = {c["id"] for c in stripe}
    typo = t["stripe_customer_id"]
    while typo in known:
        i = rng.randrange(4, len(typo))
        typo = typo[:i] + rng.choice(ALPHABET) + typo[i + 1:]
    planted = {a["id"]: b["stripe_customer_id"], b["id"]: a["stripe_customer_id"], x["id"]: y["stripe_customer_id"],
               t["id"]: typo, p["id"]: z["stripe_customer_id"]}
    right = {a["id"]: a["stripe_customer_id"], b["id"]: b["stripe_customer_id"], x["id"]: x["stripe_customer_id"],
             t["id"]: t["stripe_customer_id"], p["id"]: None}
    by_id = {r["id"]: r for r in rows}
    patch = [{"op": "replace", "in": ["tables", "customers", "rows"],
              "value": pg_row(by_id[i], stripe_customer_id=v)} for i, v in planted.items()]
    fixes = [_set(i, right[i]) for i in sorted(right)]
    reference = [
        {"tool": "postgres__list_tables", "arguments": {}},
        {"tool": "postgres__query", "arguments": {"sql": (
            "SELECT id, name, country, stripe_customer_id FROM customers ORDER BY name")}},
        {"tool": "postgres__query", "arguments": {"sql": (
            "SELECT stripe_customer_id, count(*) AS n FROM customers WHERE stripe_customer_id IS NOT NULL "
            "GROUP BY 1 HAVING count(*) > 1")}},
        {"tool": "stripe__list_customers", "arguments": {"limit": 100}},
    ]
    newest = sorted(stripe, key=lambda c: (-c["created"], c["id"]))
    for k in range(100, len(newest), 100):
        reference.append({"tool": "stripe__list_customers",
                          "arguments": {"limit": 100, "starting_after": newest[k - 1]["id"]}})
    reference += [
        {"tool": "stripe__search_customers", "arguments": {"query": f"name:'{t['name']}'"}},
        {"tool": "stripe__search_customers", "arguments": {"query": f"name:'{p['name']}'"}},
        fixes[0], *fixes,
        {"tool": "postgres__query", "arguments": {"sql": (
            f"SELECT id, name, stripe_customer_id FROM customers WHERE id IN ({', '.join(str(i) for i in sorted(right))})")}},
    ]
    success = {"all": [
        {"postgres.queryReturnsCount": {"query": (
            f"SELECT 1 FROM customers WHERE id = {i} AND "
            + ("stripe_customer_id IS NULL" if v is None else f"stripe_customer_id = '{v}'")), "count": 1}}
        for i, v in sorted(right.items())]}
    frame = [{"entity": "postgres.row", "ids": [f"customers/{i}" for i in sorted(right)], "fields": ["stripe_customer_id"]}]
    cedar: list[Any] = [row.get("Cedar Pharma SA"), row.get("Cedar Pharma Inc")]
    if None in cedar:
        return None
    others = [f for f in fixes if f["arguments"]["sql"] not in (_set(a["id"], right[a["id"]])["arguments"]["sql"],
                                                               _set(b["id"], right[b["id"]])["arguments"]["sql"])]
    return {
        "patch": patch,
        "reference": reference,
        "max_steps": budget(len(reference) - 1, forced=1),
        "success": success,
        "frame": frame,
        "wrong": [
            {"why": f"treats {a['name']} and {b['name']} as one company, linking both to {a['name']}'s Stripe customer",
             "kind": "lookalike",
             "calls": [*others, _set(a["id"], right[a["id"]]), _set(b["id"], right[a["id"]])]},
            {"why": "fixes the five links and also points Cedar Pharma Inc at Cedar Pharma SA's Stripe customer, "
                    "as if the group were billed once",
             "kind": "collateral",
             "calls": [*fixes, _set(cedar[1]["id"], cedar[0]["stripe_customer_id"])]},
            {"why": f"leaves the prospect {p['name']} linked to {z['name']}'s Stripe customer",
             "kind": "other",
             "calls": [f for f in fixes if f != _set(p["id"], None)]},
            {"why": f"trusts the order database where it disagrees with Stripe and links {z['name']}'s row to nothing, "
                    f"seeing its id twice",
             "kind": "other",
             "calls": [*[f for f in fixes if f != _set(p["id"], None)], _set(z["id"], None)]},
        ],
    }


def build() -> dict[str, Any]:
    """The template document."""
    return template(
        id=ID, version=2, servers=["postgres", "stripe"], difficulty="medium", category="recovery",
        case_list=cases(case_of),
        task={
            "goal": ("Last week's import scrambled some of the Stripe links in our order database. Check every "
                     "customer's link against Stripe and put right the ones that are wrong."),
            "initial_state": {"postgres": state("postgres", "{{case.patch}}"), "stripe": state("stripe")},
            "available_tools": ["postgres__list_tables", "postgres__describe_table", "postgres__query",
                                "postgres__execute", "stripe__list_customers", "stripe__search_customers",
                                "stripe__update_customer", "stripe__list_invoices", "stripe__search_invoices"],
            "faults": [{"tool": "postgres__execute", "on_call": 1, "kind": "unavailable"}],
            "max_steps": "{{case.max_steps}}",
            "timeout_s": 900,
            "frame": "{{case.frame}}",
            "success": "{{case.success}}",
            "reference_solution": "{{case.reference}}",
            "wrong_solutions": "{{case.wrong}}",
        })
