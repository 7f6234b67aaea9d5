"""x-t-order-db-stripe-audit (medium since version 2, recovery): an import scrambled five of the order database's 400
Stripe links, and only a full comparison with Stripe (four pages of customers) finds them: two lookalike
companies swapped (Harbour Foods Ltd and Harbor Foods Inc, or another such pair), a customer given
another's id, an id with a typo that no Stripe customer has, and a prospect (no Stripe customer, so no
link) given a billed customer's id. Every other link, the duplicate Fjordline records' and the Cedar Pharma
group's included, is right and stays. The first write finds the database unavailable.

Version 3: the team's reports of its five earlier link checks (after the October to February imports) sit in
Priya's mailbox as she sent them: one email each to the financial controller listing the rows she corrected,
and the goal asks for this check to be reported "as we did after the earlier imports". What no page says: a
report whose corrections include an enterprise customer's row (``segment`` in the order database, a column the
check's own query reads) copies the Head of Customer Success (:func:`copied`), seen only in the ``cc`` that
``read_email`` and ``get_thread`` return and ``search_emails`` does not, in 2 or 3 of the 5 reports, which ones
drawn per case (the most recent is copied in some cases, not in others). Every case corrects an enterprise
customer's link (the customer given another's id), so its report copies the head; :data:`READINGS` are the
other readings of when to copy, each asserted per case (:func:`check_copy_convention`) to be contradicted by an
earlier report or to copy this one alike. Strict points: the report goes to the controller with the head in
``cc`` (as every copied report did), once, naming each corrected customer (as every report did) by its name (a last
legal form such as Ltd or Sp. z o.o. may be left off) or its Stripe id; its subject and other wording are free.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

from tasks_catalog.authoring.cross import budget, cases, org, template, world
from tasks_catalog.authoring.cross import world_state as state
from tasks_catalog.authoring.cross._x_t_billing import GMAIL_TOOLS, hex_id
from tasks_catalog.authoring.cross._x_t_data import pg_row, pg_rows
from tasks_catalog.authoring.cross._x_t_readings import Always, FlaggedSide, FlaggedWhen, left_open

ID = "x-t-order-db-stripe-audit"
PAIRS = (("Harbour Foods Ltd", "Harbor Foods Inc"), ("Nordkapp Seafood AS", "Nordkap Marine AS"),
         ("Hanbit Electronics Co", "Hanbit Electronic Co"))
ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
#: The day the people below hold their titles (the worlds' "now").
TODAY = "2026-03-16"
#: The imports whose links the team checked before this one, each reported in one email to the controller.
PAST = ((2025, 10), (2025, 11), (2025, 12), (2026, 1), (2026, 2))
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
#: How many of the earlier reports copy the Head of Customer Success (a minority of the five).
CC_FLAGGED = (2, 3)
SEARCH = 'subject:"Stripe links"'


def copied(e: dict[str, Any]) -> bool:
    """The habit: a report whose corrections include an enterprise customer's row copies the Head of Customer
    Success."""
    return bool(e["enterprise"])


#: When a report copies the Head of Customer Success, as a reader of the earlier ones might guess it (the
#: by-country readings are added per case, one for each country a corrected row is in).
READINGS: dict[str, Any] = {
    "always": Always(True, flag="cc"),
    "never": Always(False, flag="cc"),
    "when a mid-market customer's link is corrected": FlaggedWhen("mid", flag="cc"),
    "when a small customer's link is corrected": FlaggedWhen("smb", flag="cc"),
    "when only small customers' links are corrected": FlaggedWhen("small_only", flag="cc"),
    "when a prospect is unlinked": FlaggedWhen("has_prospect", flag="cc"),
    "when a mistyped id is corrected": FlaggedWhen("has_typo", flag="cc"),
    "when a row had another customer's id": FlaggedWhen("has_other", flag="cc"),
    "above a number of corrections": FlaggedSide("n", low=False, flag="cc"),
    "below a number of corrections": FlaggedSide("n", low=True, flag="cc"),
    "above a corrected customer's credit limit": FlaggedSide("credit", low=False, flag="cc"),
    "in a quarter's last month": FlaggedWhen("quarter_end", flag="cc"),
    "at the turn of the year": FlaggedWhen("new_year", flag="cc"),
    "until some month, no more since": FlaggedSide("month", low=True, flag="cc"),
    "since some month": FlaggedSide("month", low=False, flag="cc"),
    "when a customer in Europe is corrected": FlaggedWhen("europe", flag="cc"),
    "when a customer in the Americas is corrected": FlaggedWhen("americas", flag="cc"),
    "when a customer in Asia is corrected": FlaggedWhen("asia", flag="cc"),
    "when only European customers are corrected": FlaggedWhen("europe_only", flag="cc"),
}
#: The continent of each country the order database's customers are in (for the readings by region).
REGION = {"CA": "americas", "US": "americas", "JP": "asia", "KR": "asia"}


def facts(period: tuple[int, int], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The facts of one report (its corrected rows, each with the row's ``segment``, ``country``,
    ``credit_limit`` and the ``kind`` of its correction) a reader could key the copy on."""
    segs = {r["segment"] for r in rows}
    out = {"period": period, "enterprise": "enterprise" in segs, "mid": "mid-market" in segs, "smb": "smb" in segs,
           "small_only": segs <= {"smb"}, "has_prospect": any(r["kind"] == "prospect" for r in rows),
           "has_typo": any(r["kind"] == "typo" for r in rows), "has_other": any(r["kind"] == "other" for r in rows),
           "n": len(rows), "credit": max(float(r["credit_limit"] or 0) for r in rows),
           "quarter_end": period[1] in (3, 6, 9, 12), "new_year": period[1] in (12, 1),
           "month": period[0] * 12 + period[1]}
    regions = {REGION.get(r["country"], "europe") for r in rows}
    out |= {region: region in regions for region in ("europe", "americas", "asia")}
    out["europe_only"] = regions == {"europe"}
    for r in rows:
        out[f"in {r['country']}"] = True
    return out


def readings(examples: list[dict[str, Any]], new: dict[str, Any]) -> dict[str, Any]:
    """:data:`READINGS` and one "when a customer in <country> is corrected" for each country of a corrected row;
    every example and the new report get the country facts they lack as False."""
    countries = sorted({k for e in [*examples, new] for k in e if k.startswith("in ")})
    for e in [*examples, new]:
        for k in countries:
            e.setdefault(k, False)
    return {**READINGS, **{f"when a customer {k} is corrected": FlaggedWhen(k, flag="cc") for k in countries}}


def check_copy_convention(examples: list[dict[str, Any]], new: dict[str, Any]) -> None:
    """Raise unless every earlier report follows the habit, the copied ones are a minority, and every other
    reading is contradicted by an earlier report or copies the new report as the habit does."""
    if any(bool(e["cc"]) != copied(e) for e in examples):
        raise ValueError(f"{ID}: an earlier report breaks the habit")
    if not CC_FLAGGED[0] <= sum(bool(e["cc"]) for e in examples) <= CC_FLAGGED[1]:
        raise ValueError(f"{ID}: the copied earlier reports are not a minority")
    if not copied(new):
        raise ValueError(f"{ID}: the new report corrects no enterprise customer's link")
    for name in left_open(readings(examples, new), examples, [new], copied)[:1]:
        raise ValueError(f"{ID}: the reading {name!r} fits every earlier report")


def _set(row_id: int, stripe: str | None) -> dict[str, Any]:
    value = "NULL" if stripe is None else f"'{stripe}'"
    return {"tool": "postgres__execute",
            "arguments": {"sql": f"UPDATE customers SET stripe_customer_id = {value} WHERE id = {row_id}"}}


def _typo(rng: random.Random, stripe_id: str, known: set[str]) -> str:
    typo = stripe_id
    while typo in known:
        i = rng.randrange(4, len(typo))
        typo = typo[:i] + rng.choice(ALPHABET) + typo[i + 1:]
    return typo


def _named(row: dict[str, Any], stripe_id: str) -> str:
    """A body pattern met when the text names the customer of ``row``: by its name (its legal form such
    as Ltd or Sp. z o.o. may be left off: its first two words suffice) or by ``stripe_id``, the Stripe customer its
    link is corrected to (a prospect's: the one it was wrongly linked to)."""
    stem = " ".join(row["name"].split()[:2])
    return "".join("\\" + ch if ch in ".^$*+?()[]{}|\\" else ch for ch in stem) + "|" + stripe_id


def _line(r: dict[str, Any]) -> str:
    if r["kind"] == "prospect":
        return f"- {r['name']} (customer {r['id']}): a prospect, was linked to {r['was']}; link removed"
    return f"- {r['name']} (customer {r['id']}): was linked to {r['was']}, now {r['stripe_customer_id']}"


def _past_reports(seed: int, pool: list[dict[str, Any]], prospects: list[dict[str, Any]],
                  known: set[str], new: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The earlier reports: the rows each corrected (with what they were linked to) and their facts; the first
    draw whose examples :func:`check_copy_convention` accepts, or ``None``."""
    by_seg = {s: [r for r in pool if r["segment"] == s] for s in ("smb", "mid-market", "enterprise")}
    if min(len(v) for v in by_seg.values()) < 6 or len(prospects) < 3:
        return None
    linked = [r["stripe_customer_id"] for r in pool if r["stripe_customer_id"]]
    # Whether the most recent report, the one a reader opens first, is copied: drawn once per case, so it is in
    # about half the cases (a reader of that one alone generalises either way).
    recent = random.Random(f"{ID}:recent:{seed}").random() < 0.5
    last = len(PAST) - 1
    for attempt in range(80):
        rng = random.Random(f"{ID}:past:{seed}:{attempt}")
        k = rng.randint(*CC_FLAGGED)
        flagged = set(rng.sample(range(last), k - 1)) | {last} if recent else set(rng.sample(range(last), k))
        used: set[int] = set()
        examples: list[dict[str, Any]] = []
        for m, period in enumerate(PAST):
            n = rng.choice([1, 2, 2, 3, 3, 4])
            segs = ["enterprise"] + [rng.choice(["smb", "mid-market", "enterprise"]) for _ in range(n - 1)] \
                if m in flagged else [rng.choice(["smb", "smb", "mid-market"]) for _ in range(n)]
            rng.shuffle(segs)
            sent = datetime(*period, rng.randint(8, 13), rng.randint(9, 16), rng.randint(0, 59), tzinfo=UTC)
            corrected: list[dict[str, Any]] = []
            for seg in segs:
                kind = rng.choice(["other", "other", "typo", "prospect"])
                source = [p for p in prospects if p["segment"] == seg] if kind == "prospect" else by_seg[seg]
                choices = [r for r in source if r["id"] not in used and (r["created_at"] or "") < f"{period[0]}-{period[1]:02d}-01"]
                if not choices:
                    break
                r = rng.choice(choices)
                used.add(r["id"])
                if kind == "typo":
                    was = _typo(rng, r["stripe_customer_id"], known)
                else:
                    was = rng.choice([s for s in linked if s != r["stripe_customer_id"]])
                corrected.append({**r, "kind": kind, "was": was})
            if len(corrected) != len(segs):
                break
            examples.append({**facts(period, corrected), "cc": m in flagged, "rows": corrected, "sent": sent})
        if len(examples) != len(PAST):
            continue
        try:
            check_copy_convention(examples, new)
        except ValueError:
            continue
        return examples
    return None


def case_of(seed: int) -> dict[str, Any] | None:  # noqa: PLR0915 - one case is many facts of one world
    """The case of ``seed``: the five scrambled links, what each must be, the earlier reports, and the calls that
    find them and report them."""
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
    heads = [e for e in o.employees if e.title == "Head of Customer Success" and e.employed_on(TODAY)]
    controllers = [e for e in o.employees if e.title == "Financial controller" and e.employed_on(TODAY)]
    if len(heads) != 1 or len(controllers) != 1:
        return None
    head, controller = heads[0], controllers[0]
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
    enterprise = [r for r in billed if r["segment"] == "enterprise"]
    if len(billed) < 4 or not prospects or not enterprise:
        return None
    x = rng.choice(enterprise)
    y, t, z = rng.sample([r for r in billed if r is not x], 3)
    p = rng.choice(prospects)
    known = {c["id"] for c in stripe}
    typo = _typo(rng, t["stripe_customer_id"], known)
    planted = {a["id"]: b["stripe_customer_id"], b["id"]: a["stripe_customer_id"], x["id"]: y["stripe_customer_id"],
               t["id"]: typo, p["id"]: z["stripe_customer_id"]}
    right = {a["id"]: a["stripe_customer_id"], b["id"]: b["stripe_customer_id"], x["id"]: x["stripe_customer_id"],
             t["id"]: t["stripe_customer_id"], p["id"]: None}
    by_id = {r["id"]: r for r in rows}
    new_rows = [{**by_id[i], "kind": "other" if i != t["id"] else "typo", "was": planted[i]} for i in right]
    new_rows[-1]["kind"] = "prospect"
    new = {**facts((2026, 3), new_rows), "cc": True}

    # -- the earlier checks' reports, and the copy they show ---------------------------------------------------
    involved = {a["id"], b["id"], x["id"], y["id"], t["id"], z["id"], p["id"]}
    pool = [r for r in billed if r["id"] not in involved]
    examples = _past_reports(seed, pool, [r for r in prospects if r["id"] not in involved], known, new)
    if examples is None:
        return None
    gmail = world("gmail", seed)
    address, taken = gmail["address"], {m["id"] for m in gmail["messages"]}
    sender = next((e for e in o.employees if e.email == address), None)
    if sender is None:
        return None
    past_mail = []
    for e in examples:
        y_, mo = e["period"]
        ident = hex_id(ID, "report", y_, mo, seed)
        if ident in taken:
            return None
        lines = "\n".join(_line(r) for r in e["rows"])
        past_mail.append({
            "id": ident, "thread_id": ident, "sender": address, "to": [controller.email],
            "cc": [head.email] if e["cc"] else [],
            "subject": f"Stripe links after the {MONTHS[mo - 1]} {y_} import",
            "body": f"Hello {controller.first},\n\nI checked every customer's Stripe link in the order database against "
                    f"Stripe after the {MONTHS[mo - 1]} import. I corrected these:\n{lines}\nEvery other link matched.\n\n"
                    f"{sender.first}",
            "date": e["sent"].strftime("%Y-%m-%dT%H:%M:%SZ"), "label_ids": ["SENT"]})
    gmail_patch = [{"op": "add", "in": ["messages"], "value": m} for m in past_mail]

    patch = [{"op": "replace", "in": ["tables", "customers", "rows"],
              "value": pg_row(by_id[i], stripe_customer_id=v)} for i, v in planted.items()]
    fixes = [_set(i, right[i]) for i in sorted(right)]
    lines = "\n".join(_line({**by_id[i], "kind": r["kind"], "was": planted[i], "stripe_customer_id": right[i]})
                      for i, r in zip(right, new_rows, strict=True))
    email: dict[str, Any] = {"tool": "gmail__send_email", "arguments": {
        "to": [controller.email], "cc": [head.email], "subject": "Stripe links after the March 2026 import",
        "body": f"Hello {controller.first},\n\nI checked every customer's Stripe link in the order database against "
                f"Stripe after the March import. I corrected these:\n{lines}\nEvery other link matched.\n\n{sender.first}"}}
    reference = [
        {"tool": "postgres__list_tables", "arguments": {}},
        {"tool": "postgres__query", "arguments": {"sql": (
            "SELECT id, name, country, segment, stripe_customer_id FROM customers ORDER BY name")}},
        {"tool": "gmail__search_emails", "arguments": {"query": SEARCH, "maxResults": 20}},
        *({"tool": "gmail__read_email", "arguments": {"messageId": m["id"]}} for m in reversed(past_mail)),
        {"tool": "stripe__list_customers", "arguments": {"limit": 100}},
    ]
    newest = sorted(stripe, key=lambda c: (-c["created"], c["id"]))
    for k in range(100, len(newest), 100):
        reference.append({"tool": "stripe__list_customers",
                          "arguments": {"limit": 100, "starting_after": newest[k - 1]["id"]}})
    reference += [
        {"tool": "stripe__search_customers", "arguments": {"query": f"name:'{t['name']}'"}},
        {"tool": "stripe__search_customers", "arguments": {"query": f"name:'{p['name']}'"}},
        fixes[0], *fixes, email,
    ]
    success = {"all": [
        *({"postgres.queryReturnsCount": {"query": (
            f"SELECT 1 FROM customers WHERE id = {i} AND "
            + ("stripe_customer_id IS NULL" if v is None else f"stripe_customer_id = '{v}'")), "count": 1}}
          for i, v in sorted(right.items())),
        *({"gmail.draftSent": {"to": controller.email, "body_pattern": _named(by_id[i], right[i] or planted[i])}}
          for i in sorted(right))]}
    frame = [{"entity": "postgres.row", "ids": [f"customers/{i}" for i in sorted(right)], "fields": ["stripe_customer_id"]},
             {"entity": "gmail.message", "change": ["create"], "where": {"to": [controller.email], "cc": [head.email]},
              "max": 1},
             {"entity": "gmail.draft", "change": ["create", "delete"]}]
    cedar: list[Any] = [row.get("Cedar Pharma SA"), row.get("Cedar Pharma Inc")]
    if None in cedar:
        return None
    others = [f for f in fixes if f["arguments"]["sql"] not in (_set(a["id"], right[a["id"]])["arguments"]["sql"],
                                                               _set(b["id"], right[b["id"]])["arguments"]["sql"])]
    bare = {**email, "arguments": {k: v for k, v in email["arguments"].items() if k != "cc"}}
    drafts = {d["id"] for d in gmail["drafts"]}
    draft_id = next(f"r-{n}" for n in range(len(drafts) + 1, len(drafts) + 100) if f"r-{n}" not in drafts)
    return {
        "head": head.email,
        "controller": controller.email,
        "past": [{"period": list(e["period"]), "cc": e["cc"], "enterprise": e["enterprise"], "n": e["n"]}
                 for e in examples],
        "patch": patch,
        "gmail_patch": gmail_patch,
        "reference": reference,
        "max_steps": budget(len(reference) - 1, forced=1),
        "success": success,
        "frame": frame,
        "wrong": [
            {"why": f"treats {a['name']} and {b['name']} as one company, linking both to {a['name']}'s Stripe customer",
             "kind": "lookalike",
             "calls": [*others, _set(a["id"], right[a["id"]]), _set(b["id"], right[a["id"]]), email]},
            {"why": "fixes the five links and also points Cedar Pharma Inc at Cedar Pharma SA's Stripe customer, "
                    "as if the group were billed once",
             "kind": "collateral",
             "calls": [*fixes, _set(cedar[1]["id"], cedar[0]["stripe_customer_id"]), email]},
            {"why": f"leaves the prospect {p['name']} linked to {z['name']}'s Stripe customer",
             "kind": "other",
             "calls": [*(f for f in fixes if f != _set(p["id"], None)), email]},
            {"why": f"trusts the order database where it disagrees with Stripe and links {z['name']}'s row to nothing, "
                    f"seeing its id twice",
             "kind": "other",
             "calls": [*(f for f in fixes if f != _set(p["id"], None)), _set(z["id"], None), email]},
            {"why": "fixes the five links but reports them to the controller alone, as most earlier reports were sent, "
                    "not copying the Head of Customer Success as the reports correcting an enterprise customer's "
                    "link did",
             "kind": "other", "calls": [*fixes, bare]},
            {"why": "fixes the five links but sends the report to the controller and the Head of Customer Success both "
                    "as recipients, not copying the head as the earlier reports did",
             "kind": "other",
             "calls": [*fixes, {**bare, "arguments": {**bare["arguments"], "to": [controller.email, head.email]}}]},
            {"why": "fixes the five links and reports nothing, as if the earlier reports were not how a check ends",
             "kind": "other", "calls": list(fixes)},
            {"why": "fixes the five links and sends the report twice",
             "kind": "other", "calls": [*fixes, email, email]},
        ],
        "alternatives": [
            {"why": "makes the five fixes in one statement and sends the report from a draft",
             "calls": [{"tool": "postgres__execute",
                        "arguments": {"sql": "; ".join(f["arguments"]["sql"] for f in fixes)}},
                       {"tool": "gmail__draft_email", "arguments": email["arguments"]},
                       {"tool": "gmail__send_draft", "arguments": {"draftId": draft_id}}]},
        ],
    }


def build() -> dict[str, Any]:
    """The template document."""
    return template(
        id=ID, version=3, servers=["gmail", "postgres", "stripe"], difficulty="medium", category="recovery",
        case_list=cases(case_of, want=10),
        task={
            "goal": ("Last week's import scrambled some of the Stripe links in our order database. Check every "
                     "customer's link against Stripe, put right the ones that are wrong, and report it as we did "
                     "after the earlier imports."),
            "initial_state": {"gmail": state("gmail", "{{case.gmail_patch}}"),
                              "postgres": state("postgres", "{{case.patch}}"), "stripe": state("stripe")},
            "available_tools": [*GMAIL_TOOLS, "postgres__list_tables", "postgres__describe_table", "postgres__query",
                                "postgres__execute", "stripe__list_customers", "stripe__search_customers",
                                "stripe__update_customer", "stripe__list_invoices", "stripe__search_invoices"],
            "faults": [{"tool": "postgres__execute", "on_call": 1, "kind": "unavailable"}],
            "max_steps": "{{case.max_steps}}",
            "timeout_s": 900,
            "frame": "{{case.frame}}",
            "success": "{{case.success}}",
            "reference_solution": "{{case.reference}}",
            "wrong_solutions": "{{case.wrong}}",
            "alternative_solutions": "{{case.alternatives}}",
        })
