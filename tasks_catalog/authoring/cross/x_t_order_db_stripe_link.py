"""x-t-order-db-stripe-link (easy): the order database lost one customer's link to Stripe; put back the
Stripe customer id, found in Stripe under the customer's legal name, beside a customer whose name
begins the same way (the lookalike the wrong link would come from)."""

from __future__ import annotations

import random
from typing import Any

from tasks_catalog.authoring.cross import budget, cases, org, template, world
from tasks_catalog.authoring.cross import world_state as state
from tasks_catalog.authoring.cross._x_t_data import pg_row, pg_rows, sql_text

ID = "x-t-order-db-stripe-link"


def case_of(seed: int) -> dict[str, Any] | None:
    """The case of ``seed``: an active, billed customer whose name's first word another billed customer
    shares, its order-database row with the Stripe id emptied, and the calls that restore it."""
    o = org(seed)
    rows = {r["name"]: r for r in pg_rows(seed, "customers")}
    stripe_names = {c["name"]: c for c in world("stripe", seed)["customers"]}
    billed = [c for c in o.customers if c.stripe_id and c.name in stripe_names and not c.group
              and not c.duplicate_of and not any(d.duplicate_of == c.key for d in o.customers)]
    pairs = []
    for c in billed:
        if c.status != "Active" or "'" in c.name:
            continue
        first = c.name.split()[0]
        twins = [d for d in billed if d is not c and d.name.split()[0] == first]
        if len(twins) >= 1 and sum(1 for n in stripe_names if n.split()[0] == first) == 1 + len(twins):
            pairs.append((c, twins[0]))
    if not pairs:
        return None
    c, twin = random.Random(f"{ID}:{seed}").choice(pairs)
    row, twin_row = rows[c.name], rows[twin.name]
    if row["stripe_customer_id"] != c.stripe_id or twin_row["stripe_customer_id"] != twin.stripe_id:
        return None
    first = c.name.split()[0]
    restore = f"UPDATE customers SET stripe_customer_id = '{c.stripe_id}' WHERE id = {row['id']}"
    return {
        "customer": {"name": c.name, "id": row["id"], "stripe": c.stripe_id},
        "twin": {"name": twin.name, "id": twin_row["id"], "stripe": twin.stripe_id},
        "patch": [{"op": "replace", "in": ["tables", "customers", "rows"],
                   "value": pg_row(row, stripe_customer_id=None)}],
        "reference": [
            {"tool": "stripe__search_customers", "arguments": {"query": f"name~'{first}'"}},
            {"tool": "postgres__query", "arguments": {
                "sql": f"SELECT id, name, email, stripe_customer_id FROM customers WHERE name LIKE {sql_text(first + '%')}"}},
            {"tool": "postgres__execute", "arguments": {"sql": restore}},
        ],
        "restore": restore,
        "by_name": f"UPDATE customers SET stripe_customer_id = '{c.stripe_id}' WHERE name = {sql_text(c.name)}",
    }


def build() -> dict[str, Any]:
    """The template document."""
    frame = [{"entity": "postgres.row", "ids": ["customers/{{case.customer.id}}"], "fields": ["stripe_customer_id"]}]
    return template(
        id=ID, version=1, servers=["postgres", "stripe"], difficulty="easy", category="standard",
        case_list=cases(case_of),
        task={
            "goal": ("{{case.customer.name}}'s record in our order database has lost its link to Stripe. "
                     "Put the link back."),
            "initial_state": {"postgres": state("postgres", "{{case.patch}}"), "stripe": state("stripe")},
            "available_tools": ["postgres__list_tables", "postgres__describe_table", "postgres__query",
                                "postgres__execute", "stripe__list_customers", "stripe__search_customers",
                                "stripe__update_customer", "stripe__list_invoices"],
            "max_steps": budget(3),
            "timeout_s": 300,
            "frame": frame,
            "success": {"all": [
                {"postgres.queryReturnsCount": {
                    "query": "SELECT 1 FROM customers WHERE id = {{case.customer.id}} "
                             "AND stripe_customer_id = '{{case.customer.stripe}}'", "count": 1}},
            ]},
            "reference_solution": "{{case.reference}}",
            "wrong_solutions": [
                {"why": "links the record to {{case.twin.name}}'s Stripe customer, the lookalike the search also finds",
                 "kind": "lookalike",
                 "calls": [{"tool": "postgres__execute", "arguments": {
                     "sql": "UPDATE customers SET stripe_customer_id = '{{case.twin.stripe}}' "
                            "WHERE id = {{case.customer.id}}"}}]},
                {"why": "restores the link and also clears {{case.twin.name}}'s link, matching the name too loosely",
                 "kind": "collateral",
                 "calls": [{"tool": "postgres__execute", "arguments": {"sql": "{{case.restore}}"}},
                           {"tool": "postgres__execute", "arguments": {
                               "sql": "UPDATE customers SET stripe_customer_id = NULL WHERE id = {{case.twin.id}}"}}]},
                {"why": "writes the link onto Stripe's customer metadata instead of the order database",
                 "kind": "other",
                 "calls": [{"tool": "stripe__update_customer", "arguments": {
                     "customer": "{{case.customer.stripe}}", "metadata": {"order_db_id": "row {{case.customer.id}}"}}}]},
            ],
            "alternative_solutions": [
                {"why": "finds the customer by its exact legal name and updates the row by name",
                 "calls": [{"tool": "stripe__search_customers", "arguments": {"query": "name:'{{case.customer.name}}'"}},
                           {"tool": "postgres__execute", "arguments": {"sql": "{{case.by_name}}"}}]},
            ],
        })
