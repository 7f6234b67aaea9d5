"""x-t-services-hours-february: bill February's professional-services hours the way finance billed the
months before, conventions nobody wrote down.

Hard, recovery; Notion, Postgres and Stripe. Notion's "Professional services log" holds every consulting entry of
November 2025 to February 2026 (customer, date, consultant, hours in quarter hours, type). Stripe holds the
invoices finance sent for November, December and January: one per customer and month. What they show, and
no page states:

- **scope**: an entry of type "Warranty fix" is never billed; every other type is;
- **rate**: the hourly rate is the customer's segment in the customer database (Postgres ``customers.segment``;
  in these worlds the Stripe plan follows the segment, so reading the plan bills alike), the same
  number in whatever currency the customer is billed in (the Stripe customer's), whatever the Stripe plan,
  the Notion account's plan, the country or the currency;
- **rounding**: one line per entry, its quantity the entry's hours rounded UP to whole hours;
- **invoice**: in the customer's currency, due in the number of days the segment gives, the line's
  description the entry's name exactly, the invoice's description "Professional services, <month>",
  finalized (every past one was sent);
- **the log's comments** (version 2; only opening an entry shows them): finance commented
  "Billed on <invoice number> (<month>)" on every billed entry of a customer whose credit limit in the
  customer database (Postgres ``customers.credit_limit``) is the lowest, 5,000 (:data:`LOW_CREDIT`), and on no
  other entry. ``query_database`` returns no comments: they show only through ``get_comments`` on each entry,
  on 2-7 of the 19-26 past entries (2-4 of the 15 past invoices, of two customers or more); every other
  entry, opened, has none.

The case asserts, from its own examples, that each plausible alternative rule (:data:`ALTERNATIVES`,
:data:`COMMENT_ALTERNATIVES`) is contradicted by at least one past invoice or entry (or treats February
alike), and that every segment February needs was billed before. The template's February is smaller than the
family's (three customers billed before and two new ones, neither on the lowest limit; 1-2 entries per customer
and month) so that the reference (49-56 calls) opens every past entry. No February customer has an open invoice
before the run (the three were not billed in January, whose invoices are still open, and none of the five has an
open invoice in the world as generated), so that the judge's "an open invoice of the customer" is February's. The second invoice created answers
``timeout_after_commit`` (a blind retry duplicates it), the fourth ``unavailable`` (it must be retried).

What the judge holds each invoice to (the predicate may only check what the world names, so the exact
amounts live in the frame): one finalized invoice per customer with something billable, in its currency,
due in its segment's days, described as February 2026's, every line's amount one of that customer's
right line amounts (rate times hours rounded up), and no total that leaves some of them out (a guard per
part of the lines, in this template also the parts whose total an earlier, paid invoice of the customer had);
an open invoice of each is what the predicate asks, which none held before the run (asserted per case, so that
leaving a customer's invoice out fails); no invoice for anyone else; one comment carrying the invoice's number on each February entry
to comment (the predicate asks that it was posted), none anywhere else.

The family's building blocks (:func:`draw_plan`, :func:`draw_entries`, :func:`conventions_hold`,
:func:`bills_of`, :func:`invoice_writes`, :func:`services_case`, :data:`TOOLS`, ...) are the billing alone, as
x-t-consulting-invoices-sent builds on them; this template's own case is :func:`commented_case`.
"""

from __future__ import annotations

import functools
import math
import random
import re
from collections.abc import Callable
from typing import Any

from servers.stripe import StripeState, StripeTools
from servers.stripe.tools import _prefix
from tasks_catalog.authoring.cross import budget, cases, org, template, world
from tasks_catalog.authoring.cross._x_t_accounts import crm_database_id, crm_rows
from tasks_catalog.authoring.cross._x_t_billing import NOTION_READ, STRIPE_READ, case_task, hex_id, unix, uuid_of
from tasks_catalog.authoring.cross._x_t_people import call
from tasks_catalog.authoring.cross._x_t_readings import FlaggedSide, FlaggedWhen

ID = "x-t-services-hours-february"
SERVERS = ["notion", "postgres", "stripe"]
SEGMENTS = ("smb", "mid-market", "enterprise")
CURRENCIES = ("eur", "usd", "gbp")
#: The months finance billed (the examples) and the one to bill, with the day each was invoiced.
PAST = (("2025-11", "November 2025", "2025-12-02T09:00:00"), ("2025-12", "December 2025", "2026-01-05T09:00:00"),
        ("2026-01", "January 2026", "2026-02-03T09:00:00"))
NEW = ("2026-02", "February 2026")
DB_TITLE = "Professional services log"
WARRANTY = "Warranty fix"
TOPICS = {
    "Implementation": ["Route planner rollout", "Depot data import", "Carrier API integration", "SSO set-up",
                       "Custom report build", "Fleet master data load", "Tracking page branding"],
    "Training": ["Dispatcher training", "Admin training session", "Planner workshop", "Reporting training"],
    "Integration support": ["ERP connector support", "Webhook troubleshooting", "EDI mapping support",
                            "API rate limit review"],
    WARRANTY: ["Fix for import mapping defect", "Correction of rate table bug", "Rework of label template defect",
               "Repair of failed depot sync"],
}
#: Hours as logged, in quarter hours; several below the half so that rounding up shows.
HOURS = (0.75, 1.25, 1.5, 2.0, 2.25, 2.5, 3.0, 3.25, 3.75, 4.0, 4.5, 5.25, 6.0)
TOOLS = [*NOTION_READ, "postgres__list_tables", "postgres__describe_table", "postgres__query",
         *STRIPE_READ, "stripe__create_invoice", "stripe__create_invoice_item", "stripe__finalize_invoice",
         "stripe__void_invoice"]
#: The tools of this template: the billing's (:data:`TOOLS`, which x-t-consulting-invoices-sent builds on) and
#: the log's comments.
TEMPLATE_TOOLS = [*TOOLS[:len(NOTION_READ)], "notion__get_comments", "notion__create_comment", *TOOLS[len(NOTION_READ):]]
GOAL = ("Our consulting hours for February still have to be invoiced. Bill them the way finance billed the previous "
        "months' professional services: whoever did it before has left, the log is in Notion and the invoices are "
        "in Stripe.")


# -- the conventions and the alternatives a careful reader must rule out -----------------------------------
class _Keyed:
    """A rule "``value`` is a function of ``key``": it fits the examples when no two of them share the key and
    differ in the value, and then predicts a new item's value from the examples of its key."""

    def __init__(self, key: Callable[[dict], Any], value: Callable[[dict], Any]) -> None:
        self.key, self.value = key, value

    def __call__(self, examples: list[dict]) -> bool:
        seen: dict[Any, Any] = {}
        return all(seen.setdefault(self.key(e), self.value(e)) == self.value(e) for e in examples)

    def predicts(self, examples: list[dict], item: dict) -> Any:
        """What the rule gives ``item`` (None: no example has its key)."""
        return next((self.value(e) for e in examples if self.key(e) == self.key(item)), None)


_keyed = _Keyed


def _rounded(how: Callable[[float], int]) -> Callable[[list[dict]], bool]:
    return lambda lines: all(line["quantity"] == how(line["hours"]) for line in lines)


#: For each convention, the plausible alternatives and the test of whether one still fits every example
#: (an invoice for the rate and due rules, a billed line for rounding, a past entry for scope). The module
#: raises when an alternative fits: the examples would not decide between it and the convention.
ALTERNATIVES: dict[str, dict[str, Callable[[list[dict]], bool]]] = {
    "rate": {
        "one rate for everyone": _keyed(lambda e: 0, lambda e: e["rate"]),
        "by the Stripe plan": _keyed(lambda e: e["stripe_plan"], lambda e: e["rate"]),
        "by the Notion account's plan": _keyed(lambda e: e["notion_plan"], lambda e: e["rate"]),
        "by the currency": _keyed(lambda e: e["currency"], lambda e: e["rate"]),
        "by the country": _keyed(lambda e: e["country"], lambda e: e["rate"]),
    },
    "due": {
        "always 30 days": _keyed(lambda e: 0, lambda e: e["due"]),
        "by the Stripe plan": _keyed(lambda e: e["stripe_plan"], lambda e: e["due"]),
        "by the Notion account's plan": _keyed(lambda e: e["notion_plan"], lambda e: e["due"]),
        "by the currency": _keyed(lambda e: e["currency"], lambda e: e["due"]),
    },
    "rounding": {
        "to the nearest hour": _rounded(lambda h: math.floor(h + 0.5)),
        "down": _rounded(math.floor),
    },
    "scope": {
        "every entry billed": lambda entries: all(e["billed"] for e in entries),
    },
}
#: What the conventions themselves say, checked on the same examples (a convention that misfits is a bug here).
CONVENTIONS: dict[str, Callable[[list[dict]], bool]] = {
    "rate": _keyed(lambda e: e["segment"], lambda e: e["rate"]),
    "due": _keyed(lambda e: e["segment"], lambda e: e["due"]),
    "rounding": _rounded(math.ceil),
    "scope": lambda entries: all(e["billed"] == (e["type"] != WARRANTY) for e in entries),
}


# -- the world ------------------------------------------------------------------------------------------
def crm_accounts(seed: int) -> list[dict[str, Any]]:
    """The customer database's customers that are one company on every server: a Stripe customer of the same name billed in
    EUR, USD or GBP, a segment, and a name no other row shares."""
    pg = next(t for t in world("postgres", seed)["tables"] if t["name"] == "customers")
    cols = [c["name"] for c in pg["columns"]]
    rows = [dict(zip(cols, r, strict=True)) for r in pg["rows"]]
    stripe = {c["id"]: c for c in world("stripe", seed)["customers"]}
    names = [c["name"] for c in stripe.values()]
    accounts = _accounts(seed)
    out = []
    for r in rows:
        s = stripe.get(r["stripe_customer_id"] or "")
        if (s is None or s["name"] != r["name"] or s["currency"] not in CURRENCIES or r["segment"] not in SEGMENTS
                or names.count(r["name"]) != 1 or sum(x["name"] == r["name"] for x in rows) != 1
                or r["name"] not in accounts):
            continue
        out.append({"name": r["name"], "segment": r["segment"], "country": r["country"], "id": s["id"],
                    "currency": s["currency"], "stripe_plan": s["metadata"].get("plan"),
                    "notion_plan": accounts[r["name"]]})
    return out


def _accounts(seed: int) -> dict[str, str | None]:
    """Notion's Customer Accounts: account name -> plan."""
    return {p["title"]: p["properties"].get("Plan") for p in crm_rows(seed)}


def draw_plan(seed: int, rng: random.Random) -> dict[str, Any] | None:
    """Who was billed each month, for which entries, at which rate and terms; None when the draw gives
    examples that do not decide every convention."""
    crm = crm_accounts(seed)
    by_segment = {s: [c for c in crm if c["segment"] == s] for s in SEGMENTS}
    if any(len(v) < 4 for v in by_segment.values()):
        return None
    rates = {"smb": rng.choice([120, 125, 130, 135])}
    rates["mid-market"] = rates["smb"] + rng.choice([20, 25, 30])
    rates["enterprise"] = rates["mid-market"] + rng.choice([25, 30, 35])
    due = {"smb": rng.choice([14, 15]), "mid-market": 30, "enterprise": rng.choice([45, 60])}
    past_pool = [c for s in SEGMENTS for c in rng.sample(by_segment[s], 3)]
    new_only = [c for s in SEGMENTS for c in rng.sample([x for x in by_segment[s] if x not in past_pool], 1)]
    months: dict[str, list[dict[str, Any]]] = {}
    for month, _, _ in PAST:
        months[month] = rng.sample(past_pool, 5)
    months[NEW[0]] = sorted(rng.sample(past_pool, 5) + new_only, key=lambda c: c["name"])
    return {"rates": rates, "due": due, "months": months}


def draw_entries(seed: int, rng: random.Random, plan: dict[str, Any], per: tuple[int, int] = (2, 4)) -> list[dict[str, Any]]:
    """The log's entries, month by month: ``per`` (at least, at most) per customer billed that month (in
    February one customer's only work is a warranty fix), numbered PS-<n> in date order."""
    people = [f"{e.first} {e.last}" for e in org(seed).employees if e.department not in ("Executive",)][:40]
    consultants = rng.sample(people, 4)
    raw = []
    for month, customers in plan["months"].items():
        warranty_only = customers[rng.randrange(len(customers))] if month == NEW[0] else None
        for c in customers:
            n = 1 if c is warranty_only else rng.randint(*per)
            for i in range(n):
                kind = WARRANTY if c is warranty_only else (
                    WARRANTY if i == n - 1 and rng.random() < 0.3 else rng.choice(list(TOPICS)[:3]))
                day = f"{month}-{rng.randint(2, 27):02d}"
                raw.append({"customer": c, "month": month, "date": day, "type": kind,
                            "topic": rng.choice(TOPICS[kind]), "hours": rng.choice(HOURS),
                            "consultant": rng.choice(consultants)})
    raw.sort(key=lambda e: (e["date"], e["customer"]["name"]))
    start = rng.randint(1100, 1800)
    for i, e in enumerate(raw):
        e["title"] = f"PS-{start + i} {e['topic']}"
        e["billed"] = e["type"] != WARRANTY
    return raw


def conventions_hold(plan: dict[str, Any], entries: list[dict[str, Any]]) -> bool:
    """Whether the past examples decide every convention: each holds, each alternative is contradicted, and
    February needs no segment the past did not bill."""
    past = [e for e in entries if e["month"] != NEW[0]]
    invoices = []
    for month, customers in plan["months"].items():
        if month == NEW[0]:
            continue
        for c in customers:
            if any(e["billed"] and e["customer"] is c and e["month"] == month for e in past):
                invoices.append({**c, "rate": plan["rates"][c["segment"]], "due": plan["due"][c["segment"]]})
    lines = [{"hours": e["hours"], "quantity": math.ceil(e["hours"])} for e in past if e["billed"]]
    examples = {"rate": invoices, "due": invoices, "rounding": lines, "scope": past}
    for name, rule in CONVENTIONS.items():
        if not rule(examples[name]):
            raise ValueError(f"{ID}: the convention {name!r} does not fit its own examples")
    new = [{**c, "rate": plan["rates"][c["segment"]], "due": plan["due"][c["segment"]]}
           for c in plan["months"][NEW[0]]]
    for name, alts in ALTERNATIVES.items():
        for alt in alts.values():
            if not alt(examples[name]):
                continue  # contradicted by an example
            # an alternative the examples leave standing must give every new item what the convention gives
            # (the segment follows the Stripe plan in these worlds: then both readings bill alike)
            if not isinstance(alt, _Keyed) or any(alt.predicts(examples[name], c) != alt.value(c) for c in new):
                return False
    # a warranty fix of a customer billed that same month: scope is the entry's type, not the customer
    if not any(e["type"] == WARRANTY and any(x["billed"] and x["customer"] is e["customer"] and x["month"] == e["month"]
                                             for x in past) for e in past):
        return False
    # every type February logs was seen before, billed or not
    if not {e["type"] for e in entries if e["month"] == NEW[0]} <= {e["type"] for e in past}:
        return False
    billed_segments = {i["segment"] for i in invoices}
    return all(c["segment"] in billed_segments for c in plan["months"][NEW[0]])


def world_patches(seed: int, plan: dict[str, Any], entries: list[dict[str, Any]]) -> tuple[dict[str, list], str]:
    """The Notion log and the Stripe invoices (and the charges that paid November's and December's)."""
    n = world("notion", seed)
    accounts = next(d for d in n["databases"] if d["title"] == "Customer Accounts")
    db_id = uuid_of(ID, "db", seed)
    database = {"id": db_id, "title": DB_TITLE, "parent_id": accounts["parent_id"], "archived": False, "properties": {
        "Entry": {"type": "title"}, "Customer": {"type": "rich_text"}, "Date": {"type": "date"},
        "Consultant": {"type": "rich_text"}, "Hours": {"type": "number"},
        "Type": {"type": "select", "options": list(TOPICS)}}}
    notion = [{"op": "add", "in": ["databases"], "value": database}]
    for e in entries:
        notion.append({"op": "add", "in": ["pages"], "value": {
            "id": uuid_of(ID, "entry", seed, e["title"]), "title": e["title"], "parent_id": db_id,
            "properties": {"Customer": e["customer"]["name"], "Date": e["date"], "Consultant": e["consultant"],
                           "Hours": e["hours"], "Type": e["type"]},
            "content": [], "archived": False, "created_time": f"{e['date']}T17:00:00Z"}})
    s = world("stripe", seed)
    numbered: dict[str, int] = {}
    for inv in s["invoices"]:
        if inv.get("number"):
            numbered[inv["customer"]] = numbered.get(inv["customer"], 0) + 1
    stripe: list[dict[str, Any]] = []
    for month, label, issued in PAST:
        for c in plan["months"][month]:
            lines = [e for e in entries if e["month"] == month and e["customer"] is c and e["billed"]]
            if not lines:
                continue
            rate = plan["rates"][c["segment"]] * 100
            numbered[c["id"]] = numbered.get(c["id"], 0) + 1
            iid = "in_" + hex_id(ID, seed, month, c["id"], n=24)
            paid = month != PAST[-1][0]
            stripe.append({"op": "add", "in": ["invoices"], "value": {
                "id": iid, "customer": c["id"], "status": "paid" if paid else "open", "currency": c["currency"],
                "description": f"Professional services, {label}", "days_until_due": plan["due"][c["segment"]],
                "number": f"{_prefix(c['id'])}-{numbered[c['id']]:04d}", "created": unix(issued), "metadata": {},
                "lines": [{"id": "il_" + hex_id(ID, seed, e["title"], n=24), "description": e["title"],
                           "quantity": math.ceil(e["hours"]), "amount": rate * math.ceil(e["hours"]), "price": None}
                          for e in lines]}})
            if paid:
                total = sum(rate * math.ceil(e["hours"]) for e in lines)
                stripe.append({"op": "add", "in": ["charges"], "value": {
                    "id": "ch_" + hex_id(ID, seed, "charge", iid, n=24), "amount": total, "currency": c["currency"],
                    "customer": c["id"], "description": f"Payment for invoice {_prefix(c['id'])}-{numbered[c['id']]:04d}",
                    "status": "succeeded", "invoice": iid, "created": unix(issued) + 12 * 86_400, "metadata": {}}})
    return {"notion": notion, "stripe": stripe}, db_id


# -- writes, simulated on the patched Stripe so that the ids the server assigns are known -----------------
def bills_of(plan: dict[str, Any], entries: list[dict[str, Any]], *, rate: Callable[[dict], int] | None = None,
             due: Callable[[dict], int] | None = None, qty: Callable[[float], int] = math.ceil,
             billable: Callable[[dict], bool] = lambda e: e["billed"], finalize: bool = True,
             label: str = f"Professional services, {NEW[1]}") -> list[dict[str, Any]]:
    """Per February customer with something to bill: its invoice's terms and lines (title, quantity, unit)."""
    out = []
    for c in plan["months"][NEW[0]]:
        mine = [e for e in entries if e["month"] == NEW[0] and e["customer"] is c and billable(e)]
        if not mine:
            continue
        unit = (rate or (lambda c: plan["rates"][c["segment"]] * 100))(c)
        out.append({"customer": c, "days": (due or (lambda c: plan["due"][c["segment"]]))(c), "finalize": finalize,
                    "label": label, "lines": [(e["title"], qty(e["hours"]), unit) for e in mine]})
    return out


def invoice_writes(stripe_state: dict[str, Any], bills: list[dict[str, Any]], *, after_create: Callable[[int, dict], list]
            = lambda i, b: [], retry_create: int | None = None, merged: bool = False) -> list[dict[str, Any]]:
    """The calls that make ``bills``, each invoice created, filled and finalized in turn, with the ids the
    server gives them (``after_create``: reads after the i-th create; ``retry_create``: that create made twice,
    a blind retry; ``merged``: one line per invoice, all hours summed and rounded once)."""
    tools = StripeTools(StripeState.model_validate(stripe_state))
    calls: list[dict[str, Any]] = []
    for i, b in enumerate(bills):
        c = b["customer"]
        args = {"customer": c["id"], "days_until_due": b["days"], "currency": c["currency"], "description": b["label"]}
        inv = tools.create_invoice(**args)["id"]
        calls.append(call("stripe__create_invoice", **args))
        if i == retry_create:
            inv = tools.create_invoice(**args)["id"]
            calls.append(call("stripe__create_invoice", **args))
        calls.extend(after_create(i, b))
        lines = b["lines"]
        if merged:
            lines = [(f"Professional services {NEW[1]}", sum(q for _, q, _ in lines), lines[0][2])]
        for title, q, unit in lines:
            item = {"customer": c["id"], "invoice": inv, "unit_amount": unit, "quantity": q, "description": title}
            tools.create_invoice_item(**item)
            calls.append(call("stripe__create_invoice_item", **item))
        if b["finalize"]:
            tools.finalize_invoice(invoice=inv)
            calls.append(call("stripe__finalize_invoice", invoice=inv))
    return calls


def stripe_state_after(seed: int, patch: list[dict[str, Any]]) -> dict[str, Any]:
    state = dict(world("stripe", seed))
    for op in patch:
        state[op["in"][0]] = [*state[op["in"][0]], op["value"]]
    return state


def discovery(db_id: str, plan: dict[str, Any], names: list[str], columns: str) -> list[dict[str, Any]]:
    """The reads that find the log, the customer database's ``columns`` of the customers ``names`` and every
    past customer's invoices."""
    quoted = ", ".join("'" + n.replace("'", "''") + "'" for n in names)
    return [
        call("notion__search", query="professional services"),
        call("notion__query_database", database_id=db_id, page_size=100),
        call("postgres__list_tables"),
        call("postgres__query", sql=f"SELECT {columns} FROM customers WHERE name IN ({quoted}) ORDER BY name"),
        *(call("stripe__list_invoices", customer=cid, limit=10)
          for cid in sorted({c["id"] for m, _, _ in PAST for c in plan["months"][m]})),
    ]


def services_case(seed: int, plan: dict[str, Any], entries: list[dict[str, Any]]) -> dict[str, Any]:
    patch, db_id = world_patches(seed, plan, entries)
    state = stripe_state_after(seed, patch["stripe"])
    bills = bills_of(plan, entries)
    feb = plan["months"][NEW[0]]
    discover = discovery(db_id, plan, [c["name"] for c in feb], "name, segment, country, stripe_customer_id")
    if len(entries) > 100:
        raise ValueError(f"{ID}: seed {seed} logs {len(entries)} entries, more than one page")

    def found(i: int, b: dict[str, Any]) -> list[dict[str, Any]]:
        """After the second create timed out: look for the draft it made before adding lines."""
        return [call("stripe__list_invoices", customer=b["customer"]["id"], status="draft", limit=10)] if i == 1 else []

    writes = invoice_writes(state, bills, after_create=found)
    reference = [*discover, *writes]

    frame: list[dict[str, Any]] = []
    success: list[dict[str, Any]] = []
    for b in bills:
        c = b["customer"]
        frame.append({"entity": "stripe.invoice", "change": ["create"],
                      "where": {"customer": c["id"], "currency": c["currency"], "days_until_due": b["days"],
                                "status": "open"},
                      "values": {"description": {"matches": "[Ff]ebruary 2026"}, "metadata": {"keys": []},
                                 "lines": {"add": sorted({q * u for _, q, u in b["lines"]}), "key": "amount"}},
                      "max": 1})
        success.append({"stripe.invoiceExists": {"customer": c["id"], "status": "open"}})
        # the exact total is the goal's to name, not the predicate's: what it can rule out is an invoice that
        # left entries out (every total of a part of the lines), unless the customer already had one of that total
        amounts = [q * u for _, q, u in b["lines"]]
        had = {sum(line["amount"] for line in inv["lines"]) for inv in state["invoices"] if inv["customer"] == c["id"]}
        short = {sum(amounts[i] for i in range(len(amounts)) if mask >> i & 1) for mask in range(1, 2 ** len(amounts) - 1)}
        success.extend({"not": {"stripe.invoiceExists": {"customer": c["id"], "status": "open", "amount": total}}}
                       for total in sorted(short - had - {sum(amounts)}))

    def wrong(why: str, kind: str, **how: Any) -> dict[str, Any]:
        merged = how.pop("merged", False)
        return {"why": why, "kind": kind, "calls": invoice_writes(state, bills_of(plan, entries, **how), merged=merged)}

    rates = plan["rates"]
    lookalike_rate = {"smb": "mid-market", "mid-market": "enterprise", "enterprise": "mid-market"}
    by_plan = {"starter": rates["smb"], "growth": rates["mid-market"], "scale": rates["enterprise"],
               "enterprise": rates["enterprise"]}
    never_billed = next(c for c in feb if not any(b["customer"] is c for b in bills))
    warranty_only = [e for e in entries if e["month"] == NEW[0] and e["customer"] is never_billed]
    most = max((b["lines"] for b in bills), key=len)
    wrongs = [
        wrong("bills the warranty fixes too", "other", billable=lambda e: True),
        wrong("rounds each entry to the nearest hour instead of up", "other", qty=lambda h: math.floor(h + 0.5)),
        wrong("charges one rate to everyone (the mid-market one)", "other", rate=lambda c: rates["mid-market"] * 100),
        wrong("takes the rate from the Stripe plan, not the segment", "other",
              rate=lambda c: by_plan.get(c["stripe_plan"] or "", rates["smb"]) * 100),
        wrong("gives every invoice 30 days to pay", "other", due=lambda c: 30),
        wrong("leaves the invoices as drafts", "other", finalize=False),
        wrong("misses one entry of the customer with the most lines", "other",
              billable=lambda e: e["billed"] and e["title"] != most[-1][0]),
        wrong("bills each customer's hours as one summed line", "other", merged=True),
        wrong("bills one customer at the next segment's rate, as if it were its look-alike", "lookalike",
              rate=lambda c: rates[lookalike_rate[c["segment"]] if c is bills[0]["customer"] else c["segment"]] * 100),
        {"why": "creates the invoice again after the create timed out, without looking: two invoices",
         "kind": "other", "calls": invoice_writes(state, bills, retry_create=1)},
        {"why": "bills February and also voids January's open invoice of the first customer", "kind": "collateral",
         "calls": [*writes, call("stripe__void_invoice", invoice=next(
             op["value"]["id"] for op in patch["stripe"] if op["in"] == ["invoices"] and op["value"]["status"] == "open"))]},
    ]
    reversed_bills = list(reversed(bills))
    alternatives = [
        {"why": "reads the accounts and every customer in Stripe too, bills the customers in reverse order and "
                "words the description its own way",
         "calls": [*discover, call("notion__query_database", database_id=crm_database_id(seed), page_size=100),
                   *(call("stripe__search_customers", query=f"name:'{c['name']}'") for c in feb),
                   *invoice_writes(state, [{**b, "label": f"Consulting hours February 2026 - {b['customer']['name']}"}
                                    for b in reversed_bills],
                            after_create=lambda i, b: [call("stripe__list_invoices", customer=b["customer"]["id"],
                                                            status="draft", limit=10)] if i == 1 else []),
                   call("stripe__list_invoices", status="open", limit=20)]},
    ]
    return {
        "customers": [c["name"] for c in feb], "database_id": db_id,
        "notion_patch": patch["notion"], "stripe_patch": patch["stripe"], "postgres_patch": [],
        "frame": frame, "success": success, "reference": reference, "wrongs": wrongs, "alternatives": alternatives,
        "max_steps": budget(len(reference), 1),
        "warranty_only": {"customer": never_billed["name"], "entries": [e["title"] for e in warranty_only]},
    }


# -- the comments finance left on the log: the convention only opening an entry shows (version 2) ---------
#: The lowest credit limit the customer database gives: finance commented "Billed on <number> (<month>)" on
#: every billed log entry of a customer with this limit, and on no other entry.
LOW_CREDIT = 5000
#: When to comment, as a reader might guess it from the opened entries (each example a past billed entry):
#: each must be contradicted by an example or comment on exactly the February entries the convention does.
COMMENT_ALTERNATIVES: dict[str, Callable[[list[dict[str, Any]]], bool]] = {
    "on every billed entry": lambda examples: all(e["commented"] for e in examples),
    "never": lambda examples: not any(e["commented"] for e in examples),
    "by the segment": FlaggedWhen("segment"),
    "by the currency": FlaggedWhen("currency"),
    "by the country": FlaggedWhen("country"),
    "by the Stripe plan": FlaggedWhen("stripe_plan"),
    "by the Notion account's plan": FlaggedWhen("notion_plan"),
    "by the account's region": FlaggedWhen("region"),
    "by the account's owner": FlaggedWhen("owner"),
    "by the customer (comment whoever was commented before)": FlaggedWhen("name"),
    "by the entry's type": FlaggedWhen("type"),
    "by the consultant": FlaggedWhen("consultant"),
    "by the month": FlaggedWhen("month"),
    "below a credit limit other than the lowest": FlaggedSide("credit_limit", low=True),
    "below an ARR": FlaggedSide("arr", low=True),
    "above an ARR": FlaggedSide("arr", low=False),
    "above an invoice total": FlaggedSide("total", low=False),
    "below an invoice total": FlaggedSide("total", low=True),
    "above a number of hours": FlaggedSide("hours", low=False),
}
#: The convention itself, checked on the same examples.
COMMENT_CONVENTION: Callable[[dict[str, Any]], bool] = lambda e: e["credit_limit"] == LOW_CREDIT  # noqa: E731


def _commented_plan(seed: int, rng: random.Random) -> dict[str, Any] | None:
    """The plan with a smaller February (three customers billed before and two new ones, neither on the lowest
    credit limit) so that the reference can open every past entry within a hard task's length."""
    plan = draw_plan(seed, rng)
    if plan is None:
        return None
    limits = _credit_limits(seed)
    past_pool = list({id(c): c for month, _, _ in PAST for c in plan["months"][month]}.values())
    known = {c["id"] for c in past_pool}
    # February's customers have no open invoice before the run (January's are still open, and so are some of the
    # world's own), so that "an open invoice of the customer" asks for February's: see :func:`_open_before`
    unpaid = _open_in_world(seed) | {c["id"] for c in plan["months"][PAST[-1][0]]}
    pools = [[c for c in crm_accounts(seed) if c["segment"] == s and c["id"] not in known | unpaid
              and limits[c["id"]] != LOW_CREDIT] for s in ("smb", "mid-market")]
    settled = [c for c in past_pool if c["id"] not in unpaid]
    if not all(pools) or len(settled) < 3:
        return None
    new_only = [rng.choice(pool) for pool in pools]
    plan["months"][NEW[0]] = sorted(rng.sample(settled, 3) + new_only, key=lambda c: c["name"])
    return plan


@functools.cache
def _open_in_world(seed: int) -> frozenset[str]:
    """The Stripe customers with an open invoice in the world as generated (before the log's invoices)."""
    return frozenset(inv["customer"] for inv in world("stripe", seed)["invoices"] if inv["status"] == "open")


def _open_before(state: dict[str, Any], customer: str) -> list[str]:
    """The ids of ``customer``'s open invoices in the Stripe state ``state`` (the case's initial one)."""
    return [inv["id"] for inv in state["invoices"] if inv["customer"] == customer and inv["status"] == "open"]


@functools.cache
def _credit_limits(seed: int) -> dict[str, int]:
    """Stripe customer id -> the customer database's credit limit."""
    pg = next(t for t in world("postgres", seed)["tables"] if t["name"] == "customers")
    cols = [c["name"] for c in pg["columns"]]
    rows = [dict(zip(cols, r, strict=True)) for r in pg["rows"]]
    if min(r["credit_limit"] for r in rows) != LOW_CREDIT:
        raise ValueError(f"{ID}: the customer database's lowest credit limit is no longer {LOW_CREDIT}")
    return {r["stripe_customer_id"]: int(r["credit_limit"]) for r in rows if r["stripe_customer_id"]}


def _numbers(stripe_patch: list[dict[str, Any]], state: dict[str, Any],
             bills: list[dict[str, Any]]) -> dict[tuple[str, str], str]:
    """(month, customer id) -> the number of the invoice that billed it, past and February."""
    out = {}
    labels = {f"Professional services, {label}": month for month, label, _ in PAST}
    for op in stripe_patch:
        if op["in"] == ["invoices"]:
            out[(labels[op["value"]["description"]], op["value"]["customer"])] = op["value"]["number"]
    for b in bills:
        cid = b["customer"]["id"]
        numbered = sum(1 for inv in state["invoices"] if inv["customer"] == cid and inv.get("number"))
        out[(NEW[0], cid)] = f"{_prefix(cid)}-{numbered + 1:04d}"
    return out


def _comment_text(number: str, month: str) -> str:
    labels = {m: label for m, label, _ in PAST} | {NEW[0]: NEW[1]}
    return f"Billed on {number} ({labels[month]})."


def _examples(seed: int, plan: dict[str, Any], entries: list[dict[str, Any]], months: set[str]) -> list[dict[str, Any]]:
    """The billed entries of ``months`` with every fact a reader might key the comment on."""
    limits = _credit_limits(seed)
    accounts = {p["properties"]["Stripe customer"]: p["properties"] for p in crm_rows(seed)}
    out = []
    for e in entries:
        if not e["billed"] or e["month"] not in months:
            continue
        c = e["customer"]
        total = sum(math.ceil(x["hours"]) * plan["rates"][c["segment"]] for x in entries
                    if x["billed"] and x["customer"] is c and x["month"] == e["month"])
        acct = accounts[c["id"]]
        out.append({**c, "credit_limit": limits[c["id"]], "region": acct["Region"], "owner": tuple(acct["Owner"] or ()),
                    "arr": acct["ARR"], "type": e["type"], "consultant": e["consultant"], "month": e["month"],
                    "hours": e["hours"], "total": total, "title": e["title"],
                    "commented": COMMENT_CONVENTION({"credit_limit": limits[c["id"]]})})
    return out


def case_of(seed: int) -> dict[str, Any] | None:
    """The facts of seed ``seed``, or None when no draw of it gives examples that decide every convention."""
    for attempt in range(200):
        rng = random.Random(f"{ID}:{seed}:{attempt}")
        plan = _commented_plan(seed, rng)
        if plan is None:
            continue
        entries = draw_entries(seed, rng, plan, per=(1, 2))
        if not conventions_hold(plan, entries):
            continue
        past = _examples(seed, plan, entries, {m for m, _, _ in PAST})
        new = _examples(seed, plan, entries, {NEW[0]})
        invoices = {(e["month"], e["id"]): e["commented"] for e in past}
        # a minority of the past invoices show the comment, of two customers or more (so that what they share
        # is to be found); February has entries to comment and entries not to
        if not 2 <= sum(invoices.values()) <= 4 or not 2 <= sum(e["commented"] for e in new) < len(new):
            continue
        if len({e["id"] for e in past if e["commented"]}) < 2:
            continue
        # "every entry of such a customer, warranty fixes too": a past warranty fix of one, uncommented, rules it
        # out, or February has no warranty fix of one
        low = {e["id"] for e in past if e["commented"]} | {e["id"] for e in new if e["commented"]}
        if (any(e["type"] == WARRANTY and e["month"] == NEW[0] and e["customer"]["id"] in low for e in entries)
                and not any(e["type"] == WARRANTY and e["month"] != NEW[0] and e["customer"]["id"] in low
                            for e in entries)):
            continue
        if any(alt(past) and (not isinstance(alt, FlaggedWhen | FlaggedSide) or any(alt.predicts(past, e) != e["commented"]
                                                                       for e in new))
               for alt in COMMENT_ALTERNATIVES.values()):
            continue
        if not _wrong_bills_caught(seed, plan, entries):
            continue
        return commented_case(seed, plan, entries, past, new)
    return None


def _wrong_bills_caught(seed: int, plan: dict[str, Any], entries: list[dict[str, Any]]) -> bool:
    """Whether this smaller February still tells the billing's wrong solutions apart: four invoices (the fourth
    create is the one that is unavailable), an entry that rounding to the nearest hour bills at an amount no
    line of its invoice has, and a guard for the total that leaves out the last line of the invoice with the most."""
    bills = bills_of(plan, entries)
    if len(bills) < 4:
        return False
    if not any(math.floor(h + 0.5) * u not in {q * u for _, q, _ in b["lines"]}
               for b in bills for h, u in ((e["hours"], b["lines"][0][2]) for e in entries
                                          if e["month"] == NEW[0] and e["billed"] and e["customer"] is b["customer"])):
        return False
    most = max(bills, key=lambda b: len(b["lines"]))
    amounts = [q * u for _, q, u in most["lines"]]
    state = stripe_state_after(seed, world_patches(seed, plan, entries)[0]["stripe"])
    had = {sum(line["amount"] for line in inv["lines"]) for inv in state["invoices"]
           if inv["customer"] == most["customer"]["id"]}
    return len(amounts) > 1 and sum(amounts[:-1]) not in had | {sum(amounts)}


def commented_case(seed: int, plan: dict[str, Any], entries: list[dict[str, Any]], past: list[dict[str, Any]],
                   new: list[dict[str, Any]]) -> dict[str, Any]:
    """x-t-services-hours-february's billing (its frame, guards and wrong bills) with the log's comments:
    past ones planted, February's to write."""
    billing = services_case(seed, plan, entries)
    patch, db_id = world_patches(seed, plan, entries)
    state = stripe_state_after(seed, patch["stripe"])
    bills = bills_of(plan, entries)
    numbers = _numbers(patch["stripe"], state, bills)
    page = {e["title"]: uuid_of(ID, "entry", seed, e["title"]) for e in entries}
    finance = [f"{e.first} {e.last}" for e in org(seed).employees if e.department == "Finance"]
    author = finance[0] if finance else "Finance"
    comments = [{"op": "add", "in": ["comments"], "value": {
        "id": uuid_of(ID, "comment", seed, e["title"]), "page_id": page[e["title"]], "author": author,
        "text": _comment_text(numbers[(e["month"], e["id"])], e["month"])}} for e in past if e["commented"]]
    to_comment = [e for e in new if e["commented"]]
    comment_calls = [call("notion__create_comment", page_id=page[e["title"]],
                          text=_comment_text(numbers[(NEW[0], e["id"])], NEW[0])) for e in to_comment]

    everyone = sorted({c["name"] for m in plan["months"].values() for c in m})
    discover = [*discovery(db_id, plan, everyone, "name, segment, country, credit_limit, stripe_customer_id"),
                *(call("notion__get_comments", page_id=page[e["title"]]) for e in entries if e["month"] != NEW[0])]

    def found(i: int, b: dict[str, Any]) -> list[dict[str, Any]]:
        """After the second create timed out: look for the draft it made before adding lines."""
        return [call("stripe__list_invoices", customer=b["customer"]["id"], status="draft", limit=10)] if i == 1 else []

    writes = invoice_writes(state, bills, after_create=found)
    reference = [*discover, *writes, *comment_calls]

    frame = list(billing["frame"])
    success = list(billing["success"])
    # "an open invoice of the customer" is met only by February's: none was open before the run (asserted here,
    # as a world change could make it vacuous again); and so every part of an invoice's lines is guarded, a
    # total an earlier (paid) invoice of the customer happened to have too, which the billing's guards leave out
    for b in bills:
        cid = b["customer"]["id"]
        if _open_before(state, cid):
            raise ValueError(f"{ID}: seed {seed}: the clause stripe.invoiceExists {{customer: {cid}, status: open}} "
                             f"already holds before the run (open: {', '.join(_open_before(state, cid))})")
        amounts = [q * u for _, q, u in b["lines"]]
        guarded = {c["not"]["stripe.invoiceExists"]["amount"] for c in success
                   if c.get("not", {}).get("stripe.invoiceExists", {}).get("customer") == cid}
        short = {sum(amounts[i] for i in range(len(amounts)) if mask >> i & 1) for mask in range(1, 2 ** len(amounts) - 1)}
        success.extend({"not": {"stripe.invoiceExists": {"customer": cid, "status": "open", "amount": total}}}
                       for total in sorted(short - guarded - {sum(amounts)}))
    for e in to_comment:
        number = numbers[(NEW[0], e["id"])]
        frame.append({"entity": "notion.comment", "change": ["create"], "where": {"page_id": page[e["title"]]},
                      "values": {"text": {"matches": re.escape(number)}}, "max": 1})
        # the number is the frame's to hold; the predicate asks that the entry got its comment
        success.append({"notion.commentPosted": {"page": page[e["title"]], "pattern": f"{re.escape(number)}|[Ff]ebruary"}})

    def commenting(entries_: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [call("notion__create_comment", page_id=page[e["title"]],
                     text=_comment_text(numbers[(NEW[0], e["id"])], NEW[0])) for e in entries_]

    # the billing's wrong solutions, each with the right comments, so that each fails on its billing alone
    wrongs = [{**w, "calls": [*w["calls"], *comment_calls]} for w in billing["wrongs"]]
    plain = [e for e in new if not e["commented"]]
    low_side = [e for e in new if e["credit_limit"] <= min(x["credit_limit"] for x in past if not x["commented"])]
    wrongs += [
        {"why": "bills right but leaves no comment on the log (the comment shows only in the opened entries of the "
                "customers on the lowest credit limit)", "kind": "other", "calls": writes},
        {"why": "comments 'Billed on' on every billed February entry", "kind": "other",
         "calls": [*writes, *commenting(new)]},
        {"why": "comments on the entries to comment and on one more customer's", "kind": "other",
         "calls": [*writes, *comment_calls, *commenting(plain[:1])]},
        {"why": "comments on only one of the entries to comment", "kind": "other",
         "calls": [*writes, *comment_calls[:1]]},
        {"why": "comments on the right entries without the invoice number", "kind": "other",
         "calls": [*writes, *(call("notion__create_comment", page_id=page[e["title"]], text="Billed (February 2026).")
                              for e in to_comment)]},
        {"why": "comments twice on an entry", "kind": "other", "calls": [*writes, *comment_calls, comment_calls[0]]},
        _without_invoice(state, bills, comment_calls, found),
        *_without_line(state, bills, comment_calls, found),
    ]
    if low_side != to_comment:
        wrongs.append({"why": "comments on the entries of every customer at or below the lowest uncommented credit limit",
                       "kind": "other", "calls": [*writes, *commenting(low_side)]})
    reversed_bills = list(reversed(bills))
    alternatives = [
        {"why": "reads the accounts and the customers in Stripe too, reads the entries' pages, bills in reverse order "
                "with its own description, and comments on each entry right after its invoice is finalized",
         "calls": [*discover, call("notion__query_database", database_id=crm_database_id(seed), page_size=100),
                   *(call("stripe__search_customers", query=f"name:'{c['name']}'") for c in plan["months"][NEW[0]]),
                   *_commented_after(invoice_writes(
                       state, [{**b, "label": f"Consulting hours February 2026 - {b['customer']['name']}"}
                               for b in reversed_bills],
                       after_create=lambda i, b: [call("stripe__list_invoices", customer=b["customer"]["id"],
                                                       status="draft", limit=10)] if i == 1 else []),
                       reversed_bills, to_comment, lambda e: call(
                           "notion__create_comment", page_id=page[e["title"]],
                           text=f"Billed on {numbers[(NEW[0], e['id'])]} (February 2026): {e['hours']} h")),
                   call("stripe__list_invoices", status="open", limit=20)]},
    ]
    return {
        "customers": [c["name"] for c in plan["months"][NEW[0]]], "database_id": db_id,
        "commented": sorted({e["name"] for e in to_comment}),
        "notion_patch": [*patch["notion"], *comments], "stripe_patch": patch["stripe"], "postgres_patch": [],
        "frame": frame, "success": success, "reference": reference, "wrongs": wrongs, "alternatives": alternatives,
        "max_steps": budget(len(reference), 1),
    }


def _without_invoice(state: dict[str, Any], bills: list[dict[str, Any]], comment_calls: list[dict[str, Any]],
                     found: Callable[[int, dict], list]) -> dict[str, Any]:
    """The reference without the last customer's invoice (its create, its lines and its finalize)."""
    left = bills[-1]["customer"]["name"]
    return {"why": f"the reference without the invoice of {left} (its create, lines and finalize)", "kind": "other",
            "calls": [*invoice_writes(state, bills[:-1], after_create=found), *comment_calls]}


def _without_line(state: dict[str, Any], bills: list[dict[str, Any]], comment_calls: list[dict[str, Any]],
                  found: Callable[[int, dict], list]) -> list[dict[str, Any]]:
    """The reference without one line of an invoice: the first line whose invoice, without it, totals what an
    earlier invoice of the customer did (else the first line of the first invoice of two lines or more); none
    when every invoice has one line."""
    had = {(inv["customer"], sum(line["amount"] for line in inv["lines"])) for inv in state["invoices"]}
    options = [(i, j) for i, b in enumerate(bills) if len(b["lines"]) > 1 for j in range(len(b["lines"]))]
    if not options:
        return []
    i, j = next(((i, j) for i, j in options if (bills[i]["customer"]["id"], sum(
        q * u for k, (_, q, u) in enumerate(bills[i]["lines"]) if k != j)) in had), options[0])
    short = [{**b, "lines": [line for k, line in enumerate(b["lines"]) if k != j]} if n == i else b
             for n, b in enumerate(bills)]
    return [{"why": f"the reference without the line {bills[i]['lines'][j][0]} of {bills[i]['customer']['name']}'s "
                    f"invoice", "kind": "other", "calls": [*invoice_writes(state, short, after_create=found),
                                                           *comment_calls]}]


def _commented_after(writes: list[dict[str, Any]], bills: list[dict[str, Any]], to_comment: list[dict[str, Any]],
                     comment: Callable[[dict[str, Any]], dict[str, Any]]) -> list[dict[str, Any]]:
    """``writes`` (of ``bills``, in order) with each customer's comments right after its invoice is finalized."""
    out, done = [], 0
    for c in writes:
        out.append(c)
        if c["tool"] == "stripe__finalize_invoice":
            cid = bills[done]["customer"]["id"]
            out.extend(comment(e) for e in to_comment if e["id"] == cid)
            done += 1
    return out


def build() -> dict[str, Any]:
    """The template document."""
    task = case_task(GOAL, SERVERS, TEMPLATE_TOOLS,
                     [{"tool": "stripe__create_invoice", "on_call": 2, "kind": "timeout_after_commit"},
                      {"tool": "stripe__create_invoice", "on_call": 4, "kind": "unavailable"}],
                     1800, ("notion", "stripe"))
    return template(id=ID, version=3, servers=SERVERS, difficulty="hard", category="recovery",
                    case_list=cases(case_of, want=10, level="hard"), task=task)
