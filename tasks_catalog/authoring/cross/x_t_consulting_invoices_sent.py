"""x-t-consulting-invoices-sent: bill February's consulting hours and send the invoices out the way finance
did for the months before; nobody wrote the conventions down.

Hard, recovery; Gmail, Notion, Postgres and Stripe. The Notion "Professional services log", the Stripe
invoices of November 2025 to January 2026 and the billing conventions they show (scope, rate by the
customer database's segment, rounding up, terms by segment, the invoice's description) are those of
x-t-services-hours-february, whose world-building this module reuses. What is new is the mail: every past
invoice was emailed from Priya's mailbox to the Stripe customer's billing address, and the emails of the
customers whose segment in the customer database (Postgres) is enterprise, and only those, copy the key
accounts mailbox (:data:`KEY_ACCOUNTS`). That copy shows only in the ``cc`` of a message, which
``gmail__search_emails`` does not return: it is seen only by opening the sent invoices, and only 2-4 of
the 12-15 show it (every other one, opened, visibly has no copy). The reference opens every one.

:data:`CC_ALTERNATIVES` holds the readings a person might form of when to copy (always, never, by the
currency, the country, the Stripe plan, the Notion account's plan, region or owner, by the customer, above an
invoice total or an ARR); a case is kept only when each is contradicted by some past email or copies exactly
the February emails the convention copies (the plans are Enterprise exactly for the enterprise segment in
these worlds; February's new customers are not enterprise, so "copy whoever was copied before" sends alike;
an ARR or total threshold must place every February invoice on one side). The billing conventions are
checked as x-t-services-hours-february checks them. The reference (48-54 calls) reads the log, the customer
database, every past customer's invoices and every past email, then bills and sends; the second invoice
created times out after committing (a blind retry duplicates it), the third email is unavailable.

What the judge holds: the invoices as x-t-services-hours-february holds them (field-level frame, a guard
per short total), and one email per February invoice to the customer's billing address with exactly the
copy the convention gives (the frame's ``where`` on ``to`` and ``cc``; an email with another copy, a
second email, or one to anyone else fails), the predicate asking that each was sent.

Each write the goal asks for is needed (version 2): the predicate may not name an invoice's total (the goal
does not), so "the customer has an open invoice" is what asks for each February invoice, and a case is kept
only when no customer billed in February has an open invoice before the run (January's invoices are still
open, and some customers have open subscription invoices: such a customer's invoice could be left out); a
guard stands for every total that leaves some of an invoice's lines out, also where a past paid invoice had
that total (two lines of one amount are then two lines, not one amount); and each email clause asks for
February, which no past email to that address names. :func:`_met_before` checks every asked clause against
the case's initial state, and the case is drawn again when one already holds.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from servers.gmail import GmailState
from servers.stripe import StripeState
from servers.stripe.tools import _prefix
from tasks_catalog.authoring.cross import budget, cases, template, world
from tasks_catalog.authoring.cross._x_t_accounts import crm_rows
from tasks_catalog.authoring.cross._x_t_billing import case_task, hex_id, money
from tasks_catalog.authoring.cross._x_t_people import PRIMARY, call
from tasks_catalog.authoring.cross._x_t_readings import FlaggedSide, FlaggedWhen
from tasks_catalog.authoring.cross.x_t_services_hours_february import (
    NEW,
    PAST,
    bills_of,
    conventions_hold,
    crm_accounts,
    discovery,
    draw_entries,
    draw_plan,
    invoice_writes,
    services_case,
    stripe_state_after,
    world_patches,
)
from tasks_catalog.authoring.cross.x_t_services_hours_february import TOOLS as BILLING_TOOLS
from tasks_catalog.predicates import evaluate

ID = "x-t-consulting-invoices-sent"
SERVERS = ["gmail", "notion", "postgres", "stripe"]
#: The mailbox the enterprise customers' invoices were copied to.
KEY_ACCOUNTS = "key.accounts@kestrelfreight.com"
TOOLS = [*BILLING_TOOLS, "gmail__search_emails", "gmail__read_email", "gmail__get_thread", "gmail__send_email"]
GOAL = ("Our consulting hours for February still have to be invoiced. Bill them in Stripe and send each customer "
        "its invoice by email, the way finance billed and sent the previous months' professional services: "
        "whoever did it before has left, the log is in Notion and the invoice emails went out from this mailbox.")


def _copied(c: dict[str, Any]) -> bool:
    """The convention: an enterprise customer's invoice email copies the key accounts mailbox."""
    return c["segment"] == "enterprise"


#: When to copy, as a reader might guess it from the emails: each must be contradicted by a past email or
#: copy exactly the February emails the convention copies (the Stripe plan and the Notion account's plan
#: are Enterprise exactly for the enterprise segment in these worlds: those readings send alike).
CC_ALTERNATIVES: dict[str, Callable[[list[dict[str, Any]]], bool]] = {
    "always": lambda examples: all(e["cc"] for e in examples),
    "never": lambda examples: not any(e["cc"] for e in examples),
    "by the currency": FlaggedWhen("currency", flag="cc"),
    "by the country": FlaggedWhen("country", flag="cc"),
    "by the Stripe plan": FlaggedWhen("stripe_plan", flag="cc"),
    "by the Notion account's plan": FlaggedWhen("notion_plan", flag="cc"),
    "by the customer (copy whoever was copied before)": FlaggedWhen("name", flag="cc"),
    "by the account's region": FlaggedWhen("region", flag="cc"),
    "by the account's owner": FlaggedWhen("owner", flag="cc"),
    "above an invoice total": FlaggedSide("total", low=False, flag="cc"),
    "above an ARR": FlaggedSide("arr", low=False, flag="cc"),
}


def _plan(seed: int, rng: random.Random) -> dict[str, Any] | None:
    """x-t-services-hours-february's plan with a smaller February (three customers billed before and two new
    ones, neither enterprise) so that the reference can open every past email within a hard task's length,
    its customers drawn among those without an open invoice where there are enough."""
    plan = draw_plan(seed, rng)
    if plan is None:
        return None
    past_pool = list({id(c): c for month, _, _ in PAST for c in plan["months"][month]}.values())
    known = {c["id"] for c in past_pool}
    # February's customers have no open invoice yet where the world allows it (January's are still open, and
    # some customers have open subscription invoices): their invoice's clause must need the February one
    busy = {c["id"] for c in plan["months"][PAST[-1][0]]} | {
        inv["customer"] for inv in world("stripe", seed)["invoices"] if inv["status"] == "open"}

    def free(pool: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [c for c in pool if c["id"] not in busy] or pool

    # the new customers are not enterprise: "copy the customers copied before" then copies as the convention does
    new_only = [rng.choice(free([c for c in crm_accounts(seed) if c["segment"] == s and c["id"] not in known]))
                for s in ("smb", "mid-market")]
    past = free(past_pool) if len(free(past_pool)) >= 3 else past_pool
    plan["months"][NEW[0]] = sorted(rng.sample(past, 3) + new_only, key=lambda c: c["name"])
    return plan


def _emails(seed: int, crm: dict[str, dict[str, Any]], stripe_patch: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One sent email per past invoice: the examples of the mail convention."""
    out = []
    labels = {f"Professional services, {label}": label for _, label, _ in PAST}
    taken = {m["id"] for m in world("gmail", seed)["messages"]}
    for op in stripe_patch:
        inv = op["value"]
        if op["in"] != ["invoices"]:
            continue
        c = crm[inv["customer"]]
        total = sum(line["amount"] for line in inv["lines"])
        mid = hex_id(ID, seed, inv["id"])
        if mid in taken:
            raise ValueError(f"{ID}: planted message id {mid} already in gmail world {seed}")
        month = labels[inv["description"]]
        body = (f"Hello,\n\nPlease find below invoice {inv['number']} for the professional services we delivered in "
                f"{month}: {money(total, inv['currency'])}, due within {inv['days_until_due']} days.\n\n"
                "Thank you,\nKestrel Freight Systems")
        sent = inv["created"] + 3600
        out.append({**c, "cc": [KEY_ACCOUNTS] if _copied(c) else [], "total": total, "message": {
                        "id": mid, "thread_id": mid, "sender": PRIMARY, "to": [c["email"]],
                        "cc": [KEY_ACCOUNTS] if _copied(c) else [],
                        "subject": f"Invoice {inv['number']}: Professional services, {month}", "body": body,
                        "date": datetime.fromtimestamp(sent, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), "label_ids": ["SENT"]}})
    return out


def case_of(seed: int) -> dict[str, Any] | None:
    """The facts of seed ``seed``, or None when no draw of it gives examples that decide every convention."""
    emails_of = {c["id"]: c["email"] for c in world("stripe", seed)["customers"]}
    accounts = {p["properties"]["Stripe customer"]: p["properties"] for p in crm_rows(seed)}
    pg = next(t for t in world("postgres", seed)["tables"] if t["name"] == "customers")
    pg_email = {r[-1]: r[2] for r in pg["rows"]}
    if [c["name"] for c in pg["columns"]][2] != "email" or [c["name"] for c in pg["columns"]][-1] != "stripe_customer_id":
        raise ValueError(f"{ID}: the customers table's columns changed")
    for attempt in range(150):
        rng = random.Random(f"{ID}:{seed}:{attempt}")
        plan = _plan(seed, rng)
        if plan is None:
            return None
        entries = draw_entries(seed, rng, plan)
        if not conventions_hold(plan, entries):
            continue
        crm = {c["id"]: {**c, "email": emails_of[c["id"]], "region": accounts[c["id"]]["Region"],
                         "owner": tuple(accounts[c["id"]]["Owner"] or ()), "arr": accounts[c["id"]]["ARR"]}
               for m in plan["months"].values() for c in m}
        # one billing address on every server: the customer database, Stripe and Customer Accounts agree
        if any(pg_email.get(cid) != c["email"] or accounts[cid]["Billing email"] != c["email"] for cid, c in crm.items()):
            continue
        patch, db_id = world_patches(seed, plan, entries)
        sent = _emails(seed, crm, patch["stripe"])
        copies = sum(bool(e["cc"]) for e in sent)
        bills = bills_of(plan, entries)
        if not 2 <= copies <= 4 or len(sent) < 12:
            continue
        if not any(_copied(b["customer"]) for b in bills) or all(_copied(b["customer"]) for b in bills):
            continue
        # an open invoice of a customer billed in February would meet that customer's invoice clause (the
        # predicate cannot name the new one's total): only the February invoice may
        billed = {b["customer"]["id"] for b in bills}
        if any(inv["customer"] in billed and inv["status"] == "open"
               for inv in stripe_state_after(seed, patch["stripe"])["invoices"]):
            continue
        feb = [{**crm[b["customer"]["id"]], "cc": _copied(b["customer"]),
                "total": sum(q * u for _, q, u in b["lines"])} for b in bills]
        if any(alt(sent) and (not isinstance(alt, FlaggedWhen | FlaggedSide) or any(alt.predicts(sent, c) != c["cc"] for c in feb))
               for alt in CC_ALTERNATIVES.values()):
            continue
        case = _case(seed, plan, entries, patch, db_id, sent, crm)
        if _met_before(seed, case) is None:
            return case
    return None


def _met_before(seed: int, case: dict[str, Any]) -> dict[str, Any] | None:
    """The first clause of the case's success that asks for a write (every clause outside a ``not``) and
    already holds on its initial state, or None: a write such a clause stands for could be left out."""
    gmail = world("gmail", seed)
    states = {"stripe": StripeState.model_validate(stripe_state_after(seed, case["stripe_patch"])),
              "gmail": GmailState.model_validate({**gmail, "messages": [
                  *gmail["messages"], *(op["value"] for op in case["gmail_patch"])]})}
    return next((c for c in case["success"] if "not" not in c and evaluate(c, states)), None)


def _case(seed: int, plan: dict[str, Any], entries: list[dict[str, Any]], patch: dict[str, list], db_id: str,
          sent: list[dict[str, Any]], crm: dict[str, dict[str, Any]]) -> dict[str, Any]:
    state = stripe_state_after(seed, patch["stripe"])
    bills = bills_of(plan, entries)
    everyone = sorted({c["name"] for m in plan["months"].values() for c in m})
    discover = [
        *discovery(db_id, plan, everyone, "name, segment, country, email, stripe_customer_id"),
        call("gmail__search_emails", query="in:sent subject:invoice \"Professional services\"", maxResults=20),
        *(call("gmail__read_email", messageId=e["message"]["id"]) for e in sent),
    ]

    def found(i: int, b: dict[str, Any]) -> list[dict[str, Any]]:
        """After the second create timed out: look for the draft it made before adding lines."""
        return [call("stripe__list_invoices", customer=b["customer"]["id"], status="draft", limit=10)] if i == 1 else []

    numbered = {cid: sum(1 for inv in state["invoices"] if inv["customer"] == cid and inv.get("number"))
                for cid in {b["customer"]["id"] for b in bills}}

    def mail(b: dict[str, Any], cc: list[str]) -> dict[str, Any]:
        c = b["customer"]
        number = f"{_prefix(c['id'])}-{numbered[c['id']] + 1:04d}"
        total = sum(q * u for _, q, u in b["lines"])
        args: dict[str, Any] = {
            "to": [crm[c["id"]]["email"]], "subject": f"Invoice {number}: Professional services, {NEW[1]}",
            "body": (f"Hello,\n\nPlease find below invoice {number} for the professional services we delivered in "
                     f"{NEW[1]}: {money(total, c['currency'])}, due within {b['days']} days.\n\n"
                     "Thank you,\nKestrel Freight Systems")}
        if cc:
            args["cc"] = cc
        return call("gmail__send_email", **args)

    def copy(b: dict[str, Any]) -> list[str]:
        return [KEY_ACCOUNTS] if _copied(b["customer"]) else []

    writes = invoice_writes(state, bills, after_create=found)
    sends = [mail(b, copy(b)) for b in bills]
    reference = [*discover, *writes, *sends]

    # the invoices are judged as x-t-services-hours-february judges them (its frame and its guards per short
    # total); each email by its address and exactly the copy the convention gives
    billing = services_case(seed, plan, entries)
    frame: list[dict[str, Any]] = list(billing["frame"])
    success: list[dict[str, Any]] = list(billing["success"])
    # a guard for every total that leaves lines out, also those a past (paid) invoice of the customer had,
    # which x-t-services-hours-february leaves unguarded: no billed customer has an open invoice before the run
    for b in bills:
        amounts = [q * u for _, q, u in b["lines"]]
        for total in sorted({sum(a for i, a in enumerate(amounts) if mask >> i & 1)
                             for mask in range(1, 2 ** len(amounts) - 1)}):
            guard = {"not": {"stripe.invoiceExists": {"customer": b["customer"]["id"], "status": "open",
                                                      "amount": total}}}
            if guard not in success:
                success.append(guard)
    for b in bills:
        email = crm[b["customer"]["id"]]["email"]
        frame.append({"entity": "gmail.message", "change": ["create"], "where": {"to": [email], "cc": copy(b)},
                      "max": 1})
        # the past emails to this address are sent too: the new one is the one that speaks of February
        success.append({"any": [{"gmail.draftSent": {"to": email, "subject_pattern": "Feb"}},
                                {"gmail.draftSent": {"to": email, "body_pattern": "Feb"}}]})

    def wrong(why: str, kind: str, **how: Any) -> dict[str, Any]:
        return {"why": why, "kind": kind, "calls": invoice_writes(state, bills_of(plan, entries, **how))}

    rates = plan["rates"]
    first = bills[0]["customer"]
    copied_bill = next(b for b in bills if _copied(b["customer"]))
    plain_bill = next(b for b in bills if not _copied(b["customer"]))
    # the writes left out one at a time: a line of an invoice (one of two of one amount where there are such),
    # the last customer's invoice (its email still sent), one customer's email
    line_bill, line = next(((b, i) for b in bills for i, (_, q, u) in enumerate(b["lines"])
                            if sum(q2 * u2 == q * u for _, q2, u2 in b["lines"]) > 1),
                           (max(bills, key=lambda b: len(b["lines"])), -1))
    short_line = [{**b, "lines": [ln for i, ln in enumerate(b["lines"]) if i != line % len(b["lines"])]}
                  if b is line_bill else b for b in bills]
    wrongs = [
        {"why": "bills everything but one line of one invoice" + (
            ", one of two lines of the same amount" if line >= 0 else "") + ", and sends every email",
         "kind": "other", "calls": [*invoice_writes(state, short_line, after_create=found), *sends]},
        {"why": "bills every customer but the last, yet sends every customer its email", "kind": "other",
         "calls": [*invoice_writes(state, bills[:-1], after_create=found), *sends]},
        {"why": "bills everyone but does not email one customer its invoice", "kind": "other",
         "calls": [*writes, *(m for m, b in zip(sends, bills, strict=True) if b is not plain_bill)]},
        {"why": "bills and sends right but copies nobody (the copy shows only in the opened enterprise emails)",
         "kind": "other", "calls": [*writes, *(mail(b, []) for b in bills)]},
        {"why": "copies the key accounts mailbox on every invoice email", "kind": "other",
         "calls": [*writes, *(mail(b, [KEY_ACCOUNTS]) for b in bills)]},
        {"why": "addresses the enterprise customer's email to the key accounts mailbox too instead of copying it",
         "kind": "other", "calls": [*writes, *({**m, "arguments": {"to": [*m["arguments"]["to"], KEY_ACCOUNTS],
                                                                   "subject": m["arguments"]["subject"],
                                                                   "body": m["arguments"]["body"]}}
                                              if "cc" in m["arguments"] else m for m in sends)]},
        {"why": "bills right but sends no emails", "kind": "other", "calls": writes},
        {"why": "sends the enterprise customer's email twice", "kind": "other",
         "calls": [*writes, *sends, mail(copied_bill, copy(copied_bill))]},
        {**wrong("bills the warranty fixes too", "other", billable=lambda e: True)},
        {**wrong("rounds each entry to the nearest hour instead of up", "other", qty=lambda h: math.floor(h + 0.5))},
        {**wrong("gives every invoice 30 days to pay", "other", due=lambda c: 30)},
        {**wrong("bills one customer at the next segment's rate, as if it were its look-alike", "lookalike",
                 rate=lambda c: rates[{"smb": "mid-market", "mid-market": "enterprise", "enterprise": "mid-market"}[
                     c["segment"]] if c is first else c["segment"]] * 100)},
        {"why": "creates the invoice again after the create timed out, without looking: two invoices",
         "kind": "other", "calls": [*invoice_writes(state, bills, retry_create=1), *sends]},
        {"why": "sends the invoices and also emails the key accounts mailbox a summary", "kind": "collateral",
         "calls": [*writes, *sends, call("gmail__send_email", to=[KEY_ACCOUNTS], subject="February invoices sent",
                                         body="All February professional services invoices went out.")]},
    ]
    alternatives = [
        {"why": "sends each invoice right after finalizing it, the copied ones with the key accounts mailbox in "
                "'to' order after the customer, and reads the threads instead of single emails",
         "calls": [*discover[:-len(sent)], *(call("gmail__get_thread", threadId=e["message"]["id"]) for e in sent),
                   *_interleaved(writes, sends)]},
    ]
    return {
        "customers": [b["customer"]["name"] for b in bills], "copied": [copied_bill["customer"]["name"]],
        "plain_example": plain_bill["customer"]["name"], "database_id": db_id,
        "notion_patch": patch["notion"], "stripe_patch": patch["stripe"], "postgres_patch": [],
        "gmail_patch": [{"op": "add", "in": ["messages"], "value": e["message"]} for e in sent],
        "frame": frame, "success": success, "reference": reference, "wrongs": wrongs, "alternatives": alternatives,
        "max_steps": budget(len(reference), 1),
    }


def _interleaved(writes: list[dict[str, Any]], sends: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The writes with each invoice's email right after the call that finalized it."""
    out, left = [], list(sends)
    for c in writes:
        out.append(c)
        if c["tool"] == "stripe__finalize_invoice":
            out.append(left.pop(0))
    return out + left


def build() -> dict[str, Any]:
    """The template document."""
    task = case_task(GOAL, SERVERS, TOOLS,
                     [{"tool": "stripe__create_invoice", "on_call": 2, "kind": "timeout_after_commit"},
                      {"tool": "gmail__send_email", "on_call": 3, "kind": "unavailable"}],
                     1800, ("gmail", "notion", "stripe"))
    return template(id=ID, version=2, servers=SERVERS, difficulty="hard", category="recovery",
                    case_list=cases(case_of, want=10, level="hard"), task=task)
