"""x-t-support-inbox-backlog (hard, recovery; gmail, notion, stripe): Priya's Support label has piled up,
27 to 30 customer emails in 18 conversations, and each is worked as the support inbox policy in Notion says
(the 2026 version, in force from 2 March; the superseded 2025 one copied Scale owners too and answered every
cancellation itself), answering "the way the team has been answering".

Scale with per-item judgement: every conversation is read and decided on its own, and every decision ends in
its own exact writes.
- The label: exactly one of Support/Billing, Support/Account, Support/Cancellation, Support/Other, on every
  message of the conversation (a reminder the customer sent is a message too).
- The reply, on the customer's conversation, once however many messages they sent: an invoice question gets
  the invoice's status and total as Stripe shows them now (finance's Client Invoices in Notion is a copy of 6
  March, stale for an invoice paid since); a plan question gets the plan and seats on the Stripe customer; a
  cancellation from a customer who is not a key account gets a confirmation naming the plan that ends; "other"
  mail (thanks, a suggestion, an out-of-office reply) gets none.
- The escalation, by the customer's tier in Customer Accounts (the CRM: the key accounts): a key account's
  cancellation is forwarded to its account owner and not answered; an Enterprise key account's reply copies
  its owner; nobody else is copied.
- A conversation whose latest message is our reply is handled (label only); one where the customer wrote again
  after our reply asks about another invoice, and that one is answered.
- One plan question comes from a customer whose name is a letter away from another key account's (Harbour and
  Harbor Foods, Nordkapp and Nordkap Marine, ...), with another plan or seats, owner or tier; one key-account
  cancellation is from such a customer too, where the seed has a second pair.

Version 2 adds the team's earlier work: 12 conversations answered in February (6 invoice questions, 4 plan
questions, 2 other mail; read, archived under Support and their sub-label), and two conventions the policy
does not state that only OPENING those answers shows (each line comes after the greeting, the opening and the
fact, past the 100 characters a search result's snippet holds) and only a minority of them carry:
- an answer to an invoice question quotes the customer's purchase order when Stripe has one on file for the
  customer (metadata ``po_number``): 2-3 of the February invoice answers, and the earlier answer in the
  conversation asked again, whose customer has one;
- an answer to a plan question says the seats are billed yearly when the Stripe customer is billed yearly
  (metadata ``billing: annual``): 2-3 of the February plan answers.
``CONVENTIONS`` holds both, ``readings`` the other readings a careful person could form of each (never; on
every answer to such a customer; only key accounts or only others; only the other trigger or not; a plan or
above or below; a currency; only paid or open invoices; only when the question mentions "accounts payable" or
"budget", or not), and ``unruled`` asserts per case that each reading which would treat a new answer
otherwise is contradicted by an earlier answer (the module raises otherwise): the earlier answers carrying a
line cover every feature value of the new customers it applies to, one asked with the word and one without;
an earlier plan answer to a customer with a purchase order and an earlier invoice answer to one billed
yearly carry neither line. Per case at least two new invoice answers (all on paid invoices) and two new plan
answers carry a line, and others carry none. Wrong solutions: each convention left out (the sampler's
answers), and up to three readings each that carry a line on fewer answers; readings carrying it more widely
harm nobody and are not failed (no frame asks for a line's absence).

The labels go on in four batches (the second answers ``unavailable`` and must be retried); the fourth email
sent answers ``timeout_after_commit`` (it went: a blind resend answers twice, which the frame's ``max``
catches). The reference opens every earlier conversation, finds which new ones we answered from our sent
mail, looks up each invoice and each customer in Stripe, and makes 58 calls (budget 88).

Version 3 judges each answer by its body: the customer who asked again already holds our earlier answer, so
an answer clause naming only the recipient passed without the new one. Each answer's clause now asks for its
fact (with the conventions' lines, as the frame asks of any message to the customer) or the Stripe id of the
invoice or customer it is about, and the module raises when a sent message of the initial mailbox already
meets an answer's or a forward's clause. Wrong solutions: the reference without one of its emails (the
answer asked again for, an invoice answer, a plan answer, a cancellation confirmed, a forward).

Version 4 adds a habit whose reason no line states (independent solvers passed versions 2 and 3 every time:
each convention's line names its own trigger, a purchase order, yearly billing, and is copied without
inference). The earlier answers to customers with an invoice past due in Stripe (open, its due date passed:
one issued before mid-January, past due at every earlier answer and today) copy finance's collections address
(``COLLECTIONS``); the others copy no one but an Enterprise key account's owner. Only the opened thread shows
the copy (a search result lists ``to``, not ``cc``), and nothing names it: the policy's section 4 now says that
no other account owner is copied (it said nobody else is). A reader finds the rule by comparing the copied
answers' customers in Stripe with the others'. 2-4 of the 13 earlier answers carry it, drawn per case: 2-3 of
the February answers not carrying v2's lines, the first handled conversation's answer in half the draws, the
conversation asked again's earlier answer where it is one of the new ones copied (the latest earlier answer is
copied in 3 of the 9 cases, the latest February one in 3). New answers copy it exactly for their customers past
due: an invoice question (of a key account not on Enterprise, or of another customer; sometimes a second one),
a plan question, sometimes the customer who asked again (2-3 of 12). No Enterprise key account, cancellation
or forwarded key account is past due (an answer copying two would be judged in one order; the earlier answers
confirm no cancellation, so they would not say whether one copies), nor a customer whose invoice fell due
between the earlier answers and today or was written off (uncollectible): "past due" would read two ways.
:data:`READINGS` lists the other readings a careful reader could form (every answer, none; by the kind of
question, plan, key account, tier, owner, currency, region, country, purchase order, yearly billing, the
asked invoice's status, the question's wording, the contact's title, the month, any open invoice due or not,
a failed payment, the tracking add-on, the renewal month; below or above some seats, an ARR, the account's age,
the answer's date, days past due; and the habit narrowed to what the copied answers share: past due on the
invoice answers only or the plan answers only, on key accounts only or the others only, by the status of the
invoice asked about, so that a new plan answer to a customer past due is copied only where an earlier plan
answer to one was) and :func:`check_copies` asserts per case that each is contradicted by an
earlier answer or copies every new answer as the habit does, that the copied answers are a minority (2-5) and
not "copied for a while, no more since"; a draw that leaves one open is drawn again (:data:`DRAWS`), and a
seed without a fair draw gives no case. The frame allows each answer with exactly its copies, so copying
collections more widely is not a harmless imitation (it tells a customer in good standing that finance is
chasing them) and fails: wrong solutions copy collections on no answer, on every answer, on the answers to
every customer with an open invoice (due or not), and only on the invoice answers. The reference lists the
open invoices issued more than 30 days ago in one call (59 calls, budget 90). 9 cases (10 would pass the 4 MiB
a template may be).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from itertools import permutations
from typing import Any

from tasks_catalog.authoring.cross import budget, cases, org, template, world
from tasks_catalog.authoring.cross._x_t_accounts import crm_database_id
from tasks_catalog.authoring.cross._x_t_billing import hex_id, unix, uuid_of
from tasks_catalog.authoring.cross._x_t_people import PRIMARY, body, call
from tasks_catalog.authoring.cross._x_t_readings import Always, FlaggedSide, FlaggedWhen, left_open
from tasks_catalog.authoring.cross._x_t_support import (
    ASKS,
    CANCEL,
    LABELS,
    MAILBOX_FAULTS,
    MAILBOX_TOOLS,
    PLAN_WORD,
    QUEUE,
    SIGN_OFF,
    STATUS_WORD,
    amount_pattern,
    both,
    invoice_fact,
    invoice_pool,
    invoice_total,
    lookalike_key_account,
    notion_user_reads,
    pick_unused,
    seats_pattern,
    signature,
    stamp_day,
    support_customers,
)

ID = "x-t-support-inbox-backlog"
SERVERS = ["gmail", "notion", "stripe"]
POLICY = "Support inbox policy"
OLD_POLICY = "Support inbox policy 2025 (superseded)"
#: How many conversations of each kind a case holds, and how many unanswered ones carry a reminder.
KINDS = {"billing": 5, "account": 4, "cancel_key": 2, "cancel": 2, "other": 2, "handled": 2, "again": 1}
REMINDERS = (8, 11)
#: The calendar dates (March 2026) the first messages are sent on, and the reminders' delay.
FIRST_DAYS = range(2, 12)
#: Version 4: finance's collections address, copied on every answer to a customer with an invoice past due.
COLLECTIONS = "collections@kestrelfreight.com"
#: An invoice past due before this (the day of the earliest earlier question) was past due at every earlier
#: answer and is today; one that fell due since would read two ways, and its customer is not drawn.
PAST_DUE_BY = unix("2026-02-09T00:00:00")


# -- the policy ------------------------------------------------------------------------------------------

POLICY_TEXT = [
    ("heading_2", "Effective 2026-03-02"),
    ("paragraph", "Everything customers send to support lands under the Support label in the operations mailbox. "
                  "Work each conversation once, as its latest message stands."),
    ("heading_3", "1. Label"),
    ("paragraph", "Give the conversation (every message of it under Support) exactly one of these labels: "
                  "Support/Billing for a question about an invoice or a payment; Support/Account for a question about "
                  "the customer's plan or seats; Support/Cancellation when the customer wants to cancel or not renew; "
                  "Support/Other for anything else (thanks, feedback, suggestions, automatic replies)."),
    ("paragraph", "A conversation whose latest message is our reply is already handled: it gets its label and "
                  "nothing more."),
    ("heading_3", "2. Reply"),
    ("paragraph", "Reply on the customer's conversation, once, however many messages they sent. Billing: state the "
                  "invoice's status and total as Stripe shows them today (finance's Client Invoices in Notion is a "
                  "weekly copy and lags behind). Account: state the plan and the number of seats on the customer in "
                  "Stripe. Other: no reply; the product team reads that label every Friday."),
    ("heading_3", "3. Cancellations"),
    ("paragraph", "A key account's cancellation (a customer listed in Customer Accounts) goes to its account owner: "
                  "forward it to the owner named there, and do not answer the customer yourself; the owner calls "
                  "them. Any other customer gets a reply confirming we have their request and naming the plan (in "
                  "Stripe) that will end with the current period."),
    ("heading_3", "4. Copying account owners"),
    ("paragraph", "Key accounts on the Enterprise plan in Customer Accounts: copy (cc) the account owner on every "
                  "reply we send them. No other account owner is copied on replies."),
]
OLD_POLICY_TEXT = [
    ("heading_2", "Effective 2025-03-03, superseded on 2026-03-02"),
    ("paragraph", "Label every conversation under Support as Billing, Account, Cancellation or Other."),
    ("paragraph", "Answer every customer, cancellations included (confirm the request and name the plan that ends); "
                  "forward a key account's cancellation to its account owner as well."),
    ("paragraph", "Key accounts on the Scale or Enterprise plan: copy (cc) the account owner on every reply."),
]


# -- the world ---------------------------------------------------------------------------------------------













def _stale_numbers(seed: int) -> set[str]:
    """Invoice numbers finance's Client Invoices (6 March) shows unpaid that Stripe shows paid now."""
    n = world("notion", seed)
    db = next(d for d in n["databases"] if d["title"] == "Client Invoices")
    # a row's title is the invoice's number and the customer's name ("WBK1B75Z-0006 Hanbit Electronics Co")
    return {p["title"].split()[0] for p in n["pages"] if p["parent_id"] == db["id"] and p["properties"].get("Status") in
            ("Sent", "Overdue")}


# -- patterns --------------------------------------------------------------------------------------------










# -- the case ------------------------------------------------------------------------------------------------










def _customers(seed: int) -> dict[str, dict[str, Any]]:
    """The family's customers (``support_customers``), each with what its Stripe customer's metadata says
    beside plan and seats: its purchase order number (``po``, or None) and whether it is billed yearly; and
    (version 4) whether it has an invoice past due (``overdue``: open, due before :data:`PAST_DUE_BY`, so past
    due at every earlier answer and today; ``due``: the oldest such due date) with the other facts a reader
    could take for the copy's reason (any open invoice, a failed payment, region, country, ARR, signup,
    renewal month, the tracking add-on). A customer whose invoice fell due only between the earlier answers
    and today, or who has an invoice written off (uncollectible), is left out: "past due" would read two ways."""
    stripe = world("stripe", seed)
    meta = {c["id"]: c["metadata"] for c in stripe["customers"]}
    created = {c["id"]: c["created"] for c in stripe["customers"]}
    failed = {ch["customer"] for ch in stripe["charges"] if ch["status"] == "failed"}
    now = stripe["now"]
    orgs = {c.name: c for c in org(seed).customers}
    out = {}
    for name, c in support_customers(seed).items():
        dues = [i["created"] + i["days_until_due"] * 86_400 for i in c["invoices"] if i["status"] == "open"]
        if any(i["status"] == "uncollectible" for i in c["invoices"]) or \
                (any(PAST_DUE_BY <= d < now for d in dues) and not any(d < PAST_DUE_BY for d in dues)):
            continue
        o = orgs[name]
        c["po"] = meta[c["stripe"]].get("po_number")
        c["annual"] = meta[c["stripe"]].get("billing") == "annual"
        c["due"] = min((d for d in dues if d < PAST_DUE_BY), default=None)
        c |= {"overdue": c["due"] is not None, "open_any": bool(dues), "failed": c["stripe"] in failed,
              "region": o.region, "country": o.country, "arr": o.arr_eur or 0, "signup": created[c["stripe"]],
              "renewal": (o.renewal or "")[5:7], "tracking": "tracking" in o.addons}
        out[name] = c
    return out


def _ent(c: dict[str, Any]) -> bool:
    return bool(c["key"]) and c["plan"] == "enterprise"


def _key_other(c: dict[str, Any]) -> bool:
    return bool(c["key"]) and c["plan"] != "enterprise"


def _nonkey(c: dict[str, Any]) -> bool:
    return not c["key"]


def _anyone(c: dict[str, Any]) -> bool:
    return True


def _with_po(test: Any) -> Any:
    return lambda c: test(c) and bool(c["po"])


def _annual(test: Any) -> Any:
    return lambda c: test(c) and c["annual"]


def _without_po(test: Any) -> Any:
    return lambda c: test(c) and not c["po"]


def _overdue(test: Any, want: bool) -> Any:
    """``test`` and an invoice past due (``want``) or none: an Enterprise key account never has one (its
    answer would copy two, in an order the frame's exact ``cc`` would judge)."""
    return lambda c: test(c) and c["overdue"] == want and not (want and _ent(c))


def _billing_roles(rng: random.Random, pool: list[dict[str, Any]], used: set[str],
                   stale: set[str], overdue: set[int]) -> list[dict[str, Any]] | None:
    """Five invoice questions: two Enterprise key accounts (one about an invoice paid since finance's copy,
    where the seed has one), a key account on another plan, two other customers; two paid, two open, one
    either. A customer with a purchase order on file asks about a paid invoice (the other customers', and
    where the seed has one the first one's, is paid): the earlier answers quote theirs on paid invoices, all
    of this year's they answered in February. The questions at the indexes ``overdue`` come from customers
    with an invoice past due, the others from customers without."""
    out = []
    wants = [(_ent, "paid", True), (_without_po(_ent), "open", False), (_key_other, "paid", False),
             (_without_po(_nonkey), "open", False), (_with_po(_nonkey), "paid", False)]
    for n, (plain, status, stale_first) in enumerate(wants):
        test = _overdue(plain, n in overdue)
        who = None
        if stale_first:
            who = pick_unused(rng, pool, used, lambda c, t=test: t(c) and any(i["number"] in stale
                                                                         for i in invoice_pool(c, "paid")))
        who = who or pick_unused(rng, pool, used, lambda c, t=test, st=status: t(c) and bool(invoice_pool(c, st)))
        if who is None:
            return None
        invoices = invoice_pool(who, status)
        fresh = [i for i in invoices if i["number"] in stale] if stale_first else []
        out.append({"who": who, "invoice": rng.choice(fresh or invoices), "stale": bool(fresh)})
    return out


def _plain_roles(rng: random.Random, pool: list[dict[str, Any]], used: set[str],
                 roles: dict[str, list[dict[str, Any]]], overdue: set[int]) -> bool:
    """The plan questions, cancellations, other mail and handled conversations beside the lookalikes (False:
    the seed has too few customers of a kind). The plan questions at the indexes ``overdue`` come from
    customers with an invoice past due; no cancellation does (the earlier answers confirm none, so they
    would not say whether one copies collections); the first handled conversation does in half the draws."""
    owners = {r["who"]["owner"] for r in roles["cancel_key"]}
    # two plan questions from customers billed yearly (the earlier answers say so to such customers)
    draws: list[tuple[str, Any]] = [("account", _overdue(t, n in overdue)) for n, t in
                                    enumerate((_annual(_ent), _annual(_nonkey), _anyone))]
    draws += [("cancel_key", None)] * (KINDS["cancel_key"] - len(roles["cancel_key"]))
    draws += [("cancel", _overdue(_nonkey, False))] * KINDS["cancel"] + [("other", _anyone)] * KINDS["other"]
    # one handled conversation (answered in March, so often the latest answer a reader opens) is from a
    # customer past due in half the draws
    draws += [("handled", _overdue(_anyone, n == 0 and rng.random() < 0.5)) for n in range(KINDS["handled"])]
    for role, test in draws:
        if test is None:  # a key account whose owner no other forwarded cancellation has
            test = lambda c: c["key"] and c["owner"] not in owners and not c["overdue"]  # noqa: E731
        who = pick_unused(rng, pool, used, test)
        if who is None:
            return False
        if role == "cancel_key":
            owners.add(who["owner"])
        roles[role].append({"who": who})
    return True


def _invoice_pairs(c: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Two invoices of a customer that read differently (another status or total), so that an answer about
    the first is no answer about the second."""
    mine = invoice_pool(c, "paid") + invoice_pool(c, "open")
    return [(a, b) for a in mine for b in mine if (a["status"], invoice_total(a)) != (b["status"], invoice_total(b))]


def _choose(seed: int, rng: random.Random) -> dict[str, Any] | None:
    """Who writes about what: one customer a conversation, the lookalikes first."""
    custs = _customers(seed)
    pool = list(custs.values())
    used: set[str] = set()
    # which new answers go to customers with an invoice past due: an invoice question (of a key account on
    # another plan than Enterprise, or of another customer), a plan question, and sometimes the conversation
    # asked again or a second invoice question
    od_billing, od_account = {rng.choice((2, 3, 4))}, {2}
    extra = rng.choice(("again", "billing", "none"))
    if extra == "billing":
        od_billing.add(rng.choice(sorted({2, 3, 4} - od_billing)))
    calm = {k: v for k, v in custs.items() if not v["overdue"]}
    look = lookalike_key_account(seed, calm, rng, used, for_cancel=False)
    if look is None:
        return None
    roles: dict[str, list[dict[str, Any]]] = {"account": [], "billing": [], "cancel_key": [], "cancel": [],
                                              "other": [], "handled": [], "again": []}
    roles["account"].append({"who": look[0], "twin": look[1]})
    look2 = lookalike_key_account(seed, calm, rng, used, for_cancel=True)
    if look2 is not None:
        roles["cancel_key"].append({"who": look2[0], "twin": look2[1]})
    billing = _billing_roles(rng, pool, used, _stale_numbers(seed), od_billing)
    if billing is None or not _plain_roles(rng, pool, used, roles, od_account):
        return None
    roles["billing"] = billing
    # handled: an invoice question we answered, a plan question we answered
    invoiced = lambda c: bool(invoice_pool(c, "paid") or invoice_pool(c, "open"))  # noqa: E731
    h_billing = next((r for r in roles["handled"] if invoiced(r["who"])), None)
    if h_billing is None:
        return None
    h_billing["kind"] = "billing"
    st = "paid" if invoice_pool(h_billing["who"], "paid") else "open"
    h_billing["invoice"] = rng.choice(invoice_pool(h_billing["who"], st))
    for r in roles["handled"]:
        r.setdefault("kind", "account")
    # asked again after our answer: two invoices of one customer, the first answered, the second not
    # (a customer with a purchase order on file, asking now about a paid invoice)
    who = pick_unused(rng, pool, used, _overdue(lambda c: bool(c["po"]) and any(
        b["status"] == "paid" for _, b in _invoice_pairs(c)), extra == "again"))
    if who is None:
        return None
    first, second = rng.choice([(a, b) for a, b in _invoice_pairs(who) if b["status"] == "paid"])
    roles["again"].append({"who": who, "invoice": first, "second": second})
    past = _past_roles(seed, rng, pool, used, {"billing": [r["who"] for r in [*roles["billing"], *roles["again"]]],
                                               "account": [r["who"] for r in roles["account"]]})
    if past is None:
        return None
    roles["past"] = past
    return roles


# -- the team's earlier answers ------------------------------------------------------------------------------

#: The team's earlier answered conversations (9 to 26 February, archived under their sub-label), by kind.
PAST = {"billing": 6, "account": 4, "other": 2}
#: How many February answers go to customers with an invoice past due (version 4; drawn per case).
PAST_OVERDUE = (2, 3)
#: The opening of every answer the team writes (the first 100 characters a search result shows are alike).
OPENING = "Thank you for your message, and sorry to keep you waiting."
#: How many readings of the earlier answers per convention become wrong solutions (every one is asserted):
#: the template file stays small.
WRONG_READINGS = 3
PLANS = ("starter", "growth", "scale", "enterprise")
#: What a customer's yes/no fields are called in a reading.
FLAGS = {"key": ("key accounts", "customers who are not key accounts"),
         "po": ("customers with a purchase order on file", "customers without one"),
         "annual": ("customers billed yearly", "customers billed monthly")}


@dataclass(frozen=True)
class Convention:
    """A line the team's answers of one kind carry for customers whose Stripe record has ``trigger`` (a
    purchase order on file, yearly billing); it comes after the greeting and the fact, past the first 100
    characters a search result shows, so only opening an answer shows it. ``word``: a word some customers'
    questions hold, which a reader could take for the trigger; ``features``: the customer's fields a reader
    could take for a condition of it; ``shown``: how many earlier answers carry it (at least, at most)."""
    name: str
    kind: str
    trigger: str
    line: str
    marker: str
    word: str
    features: tuple[str, ...]
    shown: tuple[int, int]
    what: str

    def applies(self, kind: str, w: dict[str, Any]) -> bool:
        return kind == self.kind and bool(w.get(self.trigger))

    def pattern(self, w: dict[str, Any]) -> str:
        """What an answer must hold to carry the line: the purchase order's number as written (PO-2026-0847,
        or just 2026-0847); a word for yearly billing."""
        if self.trigger == "po":
            parts = [re.escape(x) for x in w["po"].removeprefix("PO-").split("-")]
            return f"(^|[^0-9]){'[- ]?'.join(parts)}([^0-9]|$)"
        return "[Aa]nnual|ANNUAL|[Yy]early|YEARLY|[Pp]er year|a year|[Ee](ach|very) year|12 months|twelve months"


CONVENTIONS = (
    Convention("purchase order", "billing", "po",
               "For your accounts payable: this invoice is billed against your purchase order {po}.",
               "purchase order", "accounts payable", ("key", "plan", "currency", "annual"), (2, 3),
               "quotes the purchase order"),
    Convention("yearly billing", "account", "annual",
               "Your seats are billed yearly, so a change of seats takes effect at your next renewal.",
               "billed yearly", "budget", ("key", "plan", "currency", "po"), (2, 3),
               "says the seats are billed yearly"),
)


def _fit_past(c: dict[str, Any]) -> bool:
    """Who an earlier (February) conversation may come from: anyone but a key account on Scale, whose owner
    the 2025 policy then in force copied and the 2026 one does not (its answer would read against one)."""
    return not (c["key"] and c["plan"] == "scale")


def _features(c: dict[str, Any], conv: Convention) -> set[tuple[str, Any]]:
    return {(f, bool(c[f]) if f in FLAGS else c[f]) for f in conv.features}


def _past_invoices(seed: int, c: dict[str, Any]) -> list[dict[str, Any]]:
    """The customer's invoices of this year issued and paid before 9 February: what an answer in February
    said of it is what Stripe says today."""
    paid_at: dict[str, int] = {}
    for ch in world("stripe", seed)["charges"]:
        if ch["invoice"] and ch["status"] == "succeeded":
            paid_at[ch["invoice"]] = min(paid_at.get(ch["invoice"], ch["created"]), ch["created"])
    cut = "2026-02-09"
    return [i for i in invoice_pool(c, "paid") if stamp_day(i["created"]) < cut and i["id"] in paid_at
            and stamp_day(paid_at[i["id"]]) < cut]


def _shown(rng: random.Random, cands: list[dict[str, Any]], asking: list[dict[str, Any]],
           conv: Convention) -> list[dict[str, Any]] | None:
    """Customers of ``cands`` (with the trigger) whose earlier answers carry the line: between them every
    feature value of the customers with the trigger who ask now (key account or not, plan, currency, the
    other trigger: no reading "only for these" sets a new one apart); None when no few do."""
    need = set().union(*(_features(c, conv) for c in asking if conv.applies(conv.kind, c)))
    cands = list(cands)
    rng.shuffle(cands)
    shown: list[dict[str, Any]] = []
    while len(shown) < conv.shown[1] and cands and (need or len(shown) < conv.shown[0]):
        best = max(cands, key=lambda c: len(_features(c, conv) & need))
        shown.append(best)
        cands.remove(best)
        need -= _features(best, conv)
    return None if need or len(shown) < conv.shown[0] else shown


def _variants(rng: random.Random, conv: Convention, n: int) -> list[int]:
    """The questions' texts of ``n`` earlier conversations of the convention's kind: the first holds its
    ``word``, the second does not (no reading "only when they mention it", or "only when they do not")."""
    texts = ASKS[conv.kind]
    yes = [i for i, (_, text) in enumerate(texts) if conv.word in text]
    no = [i for i in range(len(texts)) if i not in yes]
    return [rng.choice(yes), rng.choice(no), *(rng.randrange(len(texts)) for _ in range(n - 2))]


def _past_roles(seed: int, rng: random.Random, pool: list[dict[str, Any]], used: set[str],
                asking: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]] | None:
    """The earlier answered conversations (``asking``: the customers asking now, by kind): invoice questions
    about paid invoices, those from customers with a purchase order on file quoting it (``_shown``), one from
    a customer billed yearly without one (its answer says nothing of yearly billing), the rest from customers
    without one; plan questions, those from customers billed yearly saying so (``_shown``), one from a customer
    with a purchase order billed monthly (its answer quotes none); other mail. None when the seed has too few
    such customers."""
    invoiced = {c["name"]: _past_invoices(seed, c) for c in pool if c["name"] not in used and _fit_past(c)
                and not (_ent(c) and c["overdue"])}
    po, annual = CONVENTIONS
    shown_po = _shown(rng, [c for c in pool if c["name"] in invoiced and invoiced[c["name"]] and c["po"]
                            and not c["overdue"]],
                      asking["billing"], po)
    if shown_po is None:
        return None
    used.update(c["name"] for c in shown_po)
    shown_annual = _shown(rng, [c for c in pool if c["name"] in invoiced and c["name"] not in used and c["annual"]
                                and not c["overdue"]],
                          asking["account"], annual)
    if shown_annual is None:
        return None
    used.update(c["name"] for c in shown_annual)
    out: list[dict[str, Any]] = []
    for kind, shown, conv in (("billing", shown_po, po), ("account", shown_annual, annual)):
        for c, variant in zip(shown, _variants(rng, conv, len(shown)), strict=True):
            out.append({"kind": kind, "who": c, "variant": variant})
    fill: list[tuple[str, Any]] = [("billing", lambda x: not x["po"] and x["annual"])]
    fill += [("billing", lambda x: not x["po"])] * (PAST["billing"] - len(shown_po) - 1)
    fill += [("account", lambda x: x["po"] and not x["annual"])]
    fill += [("account", lambda x: not x["annual"])] * (PAST["account"] - len(shown_annual) - 1)
    # version 4: some of the other answers (drawn, and so their dates) go to customers with an invoice past
    # due (their answers copy collections), the rest to customers without
    answered = [n for n, (kind, _) in enumerate(fill) if kind != "other"]
    late = set(rng.sample(answered, min(len(answered), rng.choice(PAST_OVERDUE))))
    fill = [(kind, _overdue(test, n in late)) if kind != "other" else (kind, test)
            for n, (kind, test) in enumerate(fill)]
    fill += [("other", _anyone)] * PAST["other"]
    for kind, test in fill:
        who = pick_unused(rng, pool, used, lambda x, t=test, k=kind: x["name"] in invoiced and t(x) and
                          (k != "billing" or bool(invoiced[x["name"]])))
        if who is None:
            return None
        out.append({"kind": kind, "who": who, "variant": rng.randrange(len(ASKS[kind]))})
    for e in out:
        if e["kind"] == "billing":
            e["invoice"] = rng.choice(invoiced[e["who"]["name"]])
    return out


# -- texts ---------------------------------------------------------------------------------------------------








REMIND = ["following up on my message below: could someone get back to me, please?",
          "any news on this? I still need an answer.",
          "sorry to chase: did you see my email below?"]


def _message(seed: int, key: str, head: tuple[str, str, str], text: str, when: str, labels: list[str],
             thread: str | None = None, cc: list[str] | None = None) -> dict[str, Any]:
    """A planted message: ``head`` is its sender, recipient and subject."""
    sender, to, subject = head
    mid = hex_id(ID, seed, key)
    return {"id": mid, "thread_id": thread or mid, "sender": sender, "to": [to], "cc": cc or [], "subject": subject,
            "body": text, "date": when, "label_ids": labels}


def _answer_body(first: str, fact: str, lines: list[str] = ()) -> str:  # type: ignore[assignment]
    """An answer as the team writes it: the greeting, the opening and the fact (all a search result's first
    100 characters show), the lines of the conventions that apply, the sign-off."""
    return "\n\n".join([f"Hello {first},", f"{OPENING} {fact[0].upper()}{fact[1:]}", *lines, SIGN_OFF])


def _lines(kind: str, w: dict[str, Any], keep: Any = None) -> list[str]:
    """The lines of the conventions that apply to an answer of ``kind`` to ``w`` (``keep``: a test of each
    convention, for a reading that carries fewer)."""
    return [c.line.format(po=w["po"]) for c in CONVENTIONS if c.applies(kind, w) and (keep is None or keep(c))]


def _fact(kind: str, w: dict[str, Any], invoice: dict[str, Any] | None, currency: str) -> str:
    if kind == "billing":
        return invoice_fact(invoice, currency)  # type: ignore[arg-type]
    if kind == "account":
        return f"you are on our {w['plan'].capitalize()} plan, with {w['seats']} seats."
    return f"we have your cancellation request: your {w['plan'].capitalize()} plan will end with the current period."


def case_of(seed: int) -> dict[str, Any] | None:
    """The seed's case: the first of :data:`DRAWS` draws whose earlier answers tell the collections copy
    apart from every reading of :data:`READINGS` (None: none does, or the seed lacks the customers)."""
    gmail = world("gmail", seed)
    if any(lab["id"] in {QUEUE["id"], *(v["id"] for v in LABELS.values())} or lab["name"].startswith("Support")
           for lab in gmail["labels"]):
        return None
    for attempt in range(DRAWS):
        drawn = _draw(seed, random.Random(f"{ID}:{seed}" + (f":{attempt}" if attempt else "")))
        if drawn is None:
            continue
        threads, messages, examples = drawn
        try:
            check_copies(_copy_items(seed, examples, threads))
        except ValueError:
            continue
        return _judged(seed, threads, messages, examples)
    return None


def _draw(seed: int, rng: random.Random) -> tuple[list[dict[str, Any]], list[dict[str, Any]],
                                                  list[dict[str, Any]]] | None:
    """One draw of the case's conversations (the new ones, each a thread), its planted messages and the
    earlier answers as examples."""
    gmail = world("gmail", seed)
    roles = _choose(seed, rng)
    if roles is None:
        return None
    taken = {m["id"] for m in gmail["messages"]}
    messages: list[dict[str, Any]] = []
    threads: list[dict[str, Any]] = []  # each: kind, who, ids (queue messages), ours (our messages), facts
    unread = ["INBOX", "UNREAD", "CATEGORY_PERSONAL", QUEUE["id"]]
    read = ["INBOX", "CATEGORY_PERSONAL", QUEUE["id"]]
    days = iter(rng.sample(list(FIRST_DAYS) * 3, 24))
    n = 0

    def when(day: int) -> str:
        nonlocal n
        n += 1
        return f"2026-03-{day:02d}T{7 + n % 10:02d}:{(n * 17) % 60:02d}:00Z"

    def ask(kind: str, who: dict[str, Any], number: str = "") -> tuple[str, str]:
        subject, text = rng.choice(ASKS[kind])
        return subject.format(n=number), f"Hello,\n\n{text.format(n=number)}\n\n{signature(who)}"

    order = [(k, r) for k in ("billing", "account", "cancel_key", "cancel", "other") for r in roles[k]]
    for k, r in order:
        who = r["who"]
        kind = "cancel" if k == "cancel_key" else k
        subject, text = ask(kind, who, r.get("invoice", {}).get("number", ""))
        day = next(days)
        m = _message(seed, f"{k}:{who['name']}", (who["email"], PRIMARY, subject), text, when(day), list(unread))
        messages.append(m)
        threads.append({"kind": kind, "role": k, "who": who, "ids": [m["id"]], "ours": [], "day": day,
                        "subject": subject, "text": text, **{x: r[x] for x in ("invoice", "twin", "stale") if x in r}})
    # reminders on some unanswered conversations
    for t in rng.sample(threads, rng.randint(*REMINDERS)):
        m = _message(seed, f"remind:{t['who']['name']}", (t["who"]["email"], PRIMARY, f"Re: {t['subject']}"),
                     f"Hello again,\n\n{rng.choice(REMIND)}\n\n{t['who']['first']}", when(min(t["day"] + rng.randint(2, 4), 13)),
                     list(unread), thread=t["ids"][0])
        messages.append(m)
        t["ids"].append(m["id"])
    # handled conversations: the question, our answer (one still lacks its label)
    for i, r in enumerate(roles["handled"]):
        who = r["who"]
        kind = r["kind"]
        subject, text = ask(kind, who, r.get("invoice", {}).get("number", ""))
        day = next(days)
        labels = read + ([LABELS[kind]["id"]] if i == 0 else [])
        q = _message(seed, f"handled:{who['name']}", (who["email"], PRIMARY, subject), text, when(min(day, 12)), labels)
        a = _message(seed, f"handled-answer:{who['name']}", (PRIMARY, who["email"], f"Re: {subject}"),
                     _answer_body(who["first"], _fact(kind, who, r.get("invoice"), who["currency"]), _lines(kind, who)),
                     when(min(day, 12) + 1), ["SENT"], thread=q["id"], cc=_cc(who))
        messages += [q, a]
        threads.append({"kind": kind, "role": "handled", "who": who, "ids": [q["id"]], "ours": [a["id"]], "day": day,
                        "subject": subject, **({"invoice": r["invoice"]} if "invoice" in r else {})})
    # asked again after our answer, about another invoice
    r = roles["again"][0]
    who, first, second = r["who"], r["invoice"], r["second"]
    subject, text = ask("billing", who, first["number"])
    q = _message(seed, f"again:{who['name']}", (who["email"], PRIMARY, subject), text, when(3), read + [LABELS["billing"]["id"]])
    a = _message(seed, f"again-answer:{who['name']}", (PRIMARY, who["email"], f"Re: {subject}"),
                 _answer_body(who["first"], invoice_fact(first, who["currency"]), _lines("billing", who)), when(4), ["SENT"],
                 thread=q["id"], cc=_cc(who))
    q2 = _message(seed, f"again-2:{who['name']}", (who["email"], PRIMARY, f"Re: {subject}"),
                  f"Hello Priya,\n\nthank you. And invoice {second['number']}: has that one been settled, and for what "
                  f"total?\n\n{signature(who)}", when(12), list(unread), thread=q["id"])
    messages += [q, a, q2]
    examples = [{"kind": "billing", "who": who, "invoice": first, "text": text, "answer": a},
                *({"kind": t["kind"], "who": t["who"], "invoice": t.get("invoice"), "text": "",
                   "answer": next(m for m in messages if m["id"] == t["ours"][0])}
                  for t in threads if t["role"] == "handled")]
    past, examples_past = _plant_past(seed, rng, roles["past"])
    messages += past
    examples += examples_past
    threads.append({"kind": "billing", "role": "again", "who": who, "ids": [q["id"], q2["id"]], "ours": [a["id"]], "text": q2["body"],
                    "invoice": second, "answered": first, "subject": subject, "day": 3})
    if len({m["id"] for m in messages}) != len(messages) or {m["id"] for m in messages} & taken:
        return None
    return threads, messages, examples


def _plant_past(seed: int, rng: random.Random, past: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The earlier conversations, 9 to 26 February: the question (read, archived, under Support and its
    sub-label) and, but for other mail, the team's answer the next day (an Enterprise key account's copying
    its owner, as both policies say); and each as an example (its kind, customer, question and answer)."""
    messages, examples = [], []
    days = sorted(rng.sample(range(9, 26), len(past)))
    for n, (e, day) in enumerate(zip(rng.sample(past, len(past)), days, strict=True)):
        w, kind = e["who"], e["kind"]
        number = e.get("invoice", {}).get("number", "")
        subject, text = ASKS[kind][e["variant"]]
        subject, text = subject.format(n=number), f"Hello,\n\n{text.format(n=number)}\n\n{signature(w)}"
        q = _message(seed, f"past:{w['name']}", (w["email"], PRIMARY, subject), text,
                     f"2026-02-{day:02d}T{8 + n % 9:02d}:{(n * 23) % 60:02d}:00Z",
                     ["CATEGORY_PERSONAL", QUEUE["id"], LABELS[kind]["id"]])
        messages.append(q)
        answer = None
        if kind != "other":
            answer = _message(seed, f"past-answer:{w['name']}", (PRIMARY, w["email"], f"Re: {subject}"),
                              _answer_body(w["first"], _fact(kind, w, e.get("invoice"), w["currency"]), _lines(kind, w)),
                              f"2026-02-{day + 1:02d}T{9 + n % 8:02d}:{(n * 29) % 60:02d}:00Z", ["SENT"],
                              thread=q["id"], cc=_cc(w))
            messages.append(answer)
        examples.append({"kind": kind, "who": w, "invoice": e.get("invoice"), "text": text, "answer": answer,
                         "ids": [q["id"]] + ([answer["id"]] if answer else [])})
    return messages, examples


# -- the convention the earlier answers show ---------------------------------------------------------------

Reading = Any  # (kind, customer, the question's text, the invoice's status) -> whether the answer carries the line


def readings(conv: Convention, currencies: set[str]) -> dict[str, Reading]:
    """The readings of the earlier answers a careful person could form in place of ``conv``: never; on every
    answer to a customer with the trigger (other kinds too); only for some of them (key accounts or not, the
    other trigger or not, a plan or above or below, a currency), only on paid or only on open invoices, only
    when the customer's question mentions the convention's ``word`` or only when it does not."""
    def rule(k: str, w: dict[str, Any]) -> bool:
        return conv.applies(k, w)

    out: dict[str, Reading] = {
        "never": lambda k, w, text, st: False,
        f"on every answer to {FLAGS[conv.trigger][0]}, whatever they ask":
            lambda k, w, text, st: k in ("billing", "account", "cancel") and bool(w.get(conv.trigger)),
        f"only when the customer mentions {conv.word!r}": lambda k, w, text, st: rule(k, w) and conv.word in text,
        f"only when the customer does not mention {conv.word!r}":
            lambda k, w, text, st: rule(k, w) and conv.word not in text,
    }
    for f in conv.features:
        if f in FLAGS:
            out[f"only for {FLAGS[f][0]}"] = lambda k, w, text, st, f=f: rule(k, w) and bool(w[f])
            out[f"only for {FLAGS[f][1]}"] = lambda k, w, text, st, f=f: rule(k, w) and not w[f]
    if conv.kind == "billing":
        out["only on paid invoices"] = lambda k, w, text, st: rule(k, w) and st == "paid"
        out["only on open invoices"] = lambda k, w, text, st: rule(k, w) and st == "open"
    for i, p in enumerate(PLANS):
        out[f"only for customers on {p.capitalize()} or above"] = \
            lambda k, w, text, st, i=i: rule(k, w) and PLANS.index(w["plan"]) >= i
        out[f"only for customers on {p.capitalize()} or below"] = \
            lambda k, w, text, st, i=i: rule(k, w) and PLANS.index(w["plan"]) <= i
    for cur in sorted(currencies):
        out[f"only for customers billed in {cur.upper()}"] = \
            lambda k, w, text, st, cur=cur: rule(k, w) and w["currency"] == cur
    return out


def _shows(example: dict[str, Any], conv: Convention) -> bool:
    """Whether an earlier answer, as planted, carries the convention's line."""
    return example["answer"] is not None and conv.marker in example["answer"]["body"]


def _status(x: dict[str, Any]) -> str:
    return (x.get("invoice") or {}).get("status", "")


def unruled(examples: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[str]:
    """For each convention, the readings no example contradicts that would treat a new conversation
    otherwise (empty when the examples decide every new answer); "the rule itself" when an example does not
    follow it."""
    out = []
    answered = [e for e in examples if e["answer"] is not None]
    for conv in CONVENTIONS:
        out += [f"{conv.name}: the rule itself ({e['who']['name']})" for e in answered
                if conv.applies(e["kind"], e["who"]) != _shows(e, conv)]
        for name, read in readings(conv, {x["who"]["currency"] for x in [*examples, *new]}).items():
            if all(read(e["kind"], e["who"], e["text"], _status(e)) == _shows(e, conv) for e in answered) and \
                    any(read(t["kind"], t["who"], t["text"], _status(t)) != conv.applies(t["kind"], t["who"]) for t in new):
                out.append(f"{conv.name}: {name}")
    return out


# -- version 4: the copy to collections the earlier answers show ------------------------------------------

#: How many draws of a seed's case are tried for earlier answers that leave no reading of the copy open.
DRAWS = 12
#: Where the copy to collections on an earlier answer could be read to depend on (each on what the earlier
#: answer's customer showed at the time, in Stripe, the CRM or the email itself). The habit is "the customer
#: has an invoice past due in Stripe" (``HABIT``); every other reading must be contradicted by an earlier
#: answer or copy each new answer as the habit does (``check_copies``).
READINGS: dict[str, Any] = {
    "on every answer": Always(True, flag="cc"),
    "on no answer": Always(False, flag="cc"),
    "by the kind of question (invoice or plan)": FlaggedWhen("kind", flag="cc"),
    "by the customer's plan": FlaggedWhen("plan", flag="cc"),
    "key accounts or not": FlaggedWhen("key", flag="cc"),
    "by tier (key account and plan)": FlaggedWhen("tier", flag="cc"),
    "by the account owner": FlaggedWhen("owner", flag="cc"),
    "by the customer's currency": FlaggedWhen("currency", flag="cc"),
    "by the customer's region": FlaggedWhen("region", flag="cc"),
    "by the customer's country": FlaggedWhen("country", flag="cc"),
    "customers with a purchase order on file or not": FlaggedWhen("po", flag="cc"),
    "customers billed yearly or not": FlaggedWhen("annual", flag="cc"),
    "by the status of the invoice asked about": FlaggedWhen("status", flag="cc"),
    "by the question's wording": FlaggedWhen("ask", flag="cc"),
    "by the customer's contact (their title)": FlaggedWhen("title", flag="cc"),
    "by the month answered": FlaggedWhen("month", flag="cc"),
    "customers with any open invoice, due or not": FlaggedWhen("open_any", flag="cc"),
    "customers with a failed payment": FlaggedWhen("failed", flag="cc"),
    "customers with the tracking add-on": FlaggedWhen("tracking", flag="cc"),
    "by the customer's renewal month": FlaggedWhen("renewal", flag="cc"),
    "below some seats": FlaggedSide("seats", low=True, flag="cc"),
    "above some seats": FlaggedSide("seats", low=False, flag="cc"),
    "below an ARR": FlaggedSide("arr", low=True, flag="cc"),
    "above an ARR": FlaggedSide("arr", low=False, flag="cc"),
    "the older accounts": FlaggedSide("signup", low=True, flag="cc"),
    "the newer accounts": FlaggedSide("signup", low=False, flag="cc"),
    "the earlier answers": FlaggedSide("day", low=True, flag="cc"),
    "the later answers": FlaggedSide("day", low=False, flag="cc"),
    "past due by more than some days": FlaggedSide("late", low=False, flag="cc"),
    # the habit's trigger narrowed to what the copied answers happen to share: collections is finance's, so a
    # reader may take the copy for the invoice answers' alone, or for the customers no account owner looks
    # after, unless a copied earlier answer of the other kind shows otherwise
    "past due, on the invoice answers only (or the plan answers only)": FlaggedWhen(("overdue", "kind"), flag="cc"),
    "past due, key accounts only or the others only": FlaggedWhen(("overdue", "key"), flag="cc"),
    "past due, by the status of the invoice asked about": FlaggedWhen(("overdue", "status"), flag="cc"),
}
HABIT = FlaggedWhen("overdue", flag="cc")


def _ask(kind: str, subject: str) -> tuple[str, int]:
    """Which of the customers' wordings (``ASKS``) a question's subject is."""
    subject = subject.removeprefix("Re: ")
    return kind, next(n for n, (s, _) in enumerate(ASKS[kind]) if subject.startswith(s.split("{n}")[0]))


def _copy_item(kind: str, w: dict[str, Any], invoice: dict[str, Any] | None, subject: str, at: int,
               cc: bool) -> dict[str, Any]:
    """An answer as the readings see it: its kind, its customer's facts at ``at`` (the answer's time), and
    whether it copies collections (``cc``: as planted, or as the habit asks of a new one)."""
    late = (at - w["due"]) // 86_400 if w["due"] is not None and w["due"] < at else 0
    return {"cc": cc, "kind": kind, "plan": w["plan"], "key": bool(w["key"]),
            "tier": (bool(w["key"]), w["plan"]), "owner": w.get("owner", ""), "currency": w["currency"],
            "region": w["region"], "country": w["country"], "po": bool(w["po"]), "annual": w["annual"],
            "status": (invoice or {}).get("status", ""), "ask": _ask(kind, subject), "title": w["title"],
            "month": stamp_day(at)[:7], "open_any": w["open_any"], "failed": w["failed"], "tracking": w["tracking"],
            "renewal": w["renewal"], "seats": w["seats"], "arr": w["arr"], "signup": w["signup"], "day": at,
            "late": late, "overdue": late > 0, "name": w["name"]}


def _copy_items(seed: int, examples: list[dict[str, Any]],
                threads: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The earlier answers (as planted) and the new ones (as the habit asks, answered today) as items."""
    now = world("stripe", seed)["now"]
    earlier = [_copy_item(e["kind"], e["who"], e.get("invoice"), e["answer"]["subject"],
                          unix(e["answer"]["date"].removesuffix("Z")), COLLECTIONS in e["answer"]["cc"])
               for e in examples if e["answer"] is not None]
    new = [_copy_item(t["kind"], t["who"], t.get("invoice"), t["subject"], now, bool(t["who"]["overdue"]))
           for t in threads if _needs_reply(t)]
    return earlier, new


def check_copies(items: tuple[list[dict[str, Any]], list[dict[str, Any]]]) -> None:
    """Raise unless the earlier answers (``items[0]``) tell the habit, copying collections when the customer
    has an invoice past due, apart from every reading of :data:`READINGS` for the new answers (``items[1]``):
    2 to 5 earlier answers copied, a minority, exactly those to customers past due; not "copied for a while,
    no more since"; no reading that fits every earlier answer yet treats a new one otherwise."""
    examples, new = items
    copied = [e for e in examples if e["cc"]]
    if not 2 <= len(copied) <= 5 or 2 * len(copied) >= len(examples):
        raise ValueError(f"{ID}: {len(copied)} of {len(examples)} earlier answers copy collections")
    if not HABIT(examples) or any(HABIT.predicts(examples, i) is not i["cc"] for i in new):
        raise ValueError(f"{ID}: the earlier answers do not show that answers to customers past due copy collections")
    days = sorted((e["day"], e["cc"]) for e in examples)
    first, last = min(e["day"] for e in copied), max(e["day"] for e in copied)
    if not days[-1][1] and not any(first < day < last and not cc for day, cc in days):
        raise ValueError(f"{ID}: the earlier answers read as copying collections for a while and no more since")
    for name in left_open(READINGS, examples, new, lambda i: i["cc"])[:1]:
        raise ValueError(f"{ID}: the reading {name!r} fits every earlier answer and differs on a new one")


def _cc(who: dict[str, Any], *, scale_too: bool = False, collections: bool | None = None) -> list[str]:
    """Who an answer to ``who`` copies: an Enterprise key account's owner (the policy; ``scale_too``: the
    2025 one), and finance's collections address when the customer has an invoice past due (the team's
    habit; ``collections``: a reading's instead)."""
    tier = ("enterprise", "scale") if scale_too else ("enterprise",)
    owner = [who["owner"]] if who["key"] and who["plan"] in tier else []
    return owner + ([COLLECTIONS] if (who.get("overdue") if collections is None else collections) else [])


def _reply_text(t: dict[str, Any], who: dict[str, Any] | None = None, keep: Any = None) -> str:
    """Our answer on conversation ``t`` (with ``who``'s facts: the lookalike reading; ``keep``: which
    conventions' lines it carries, a reading's)."""
    w = who or t["who"]
    return _answer_body(t["who"]["first"], _fact(t["kind"], w, t.get("invoice"), t["who"]["currency"]),
                        _lines(t["kind"], t["who"], keep))


def _all_of(*patterns: str) -> str:
    """Text holding a match of every pattern, in any order."""
    return "|".join("".join(f"({p})(.|\\n)*" for p in order)[: -len("(.|\\n)*")]
                    for order in permutations(patterns))


def _fact_pattern(t: dict[str, Any]) -> str:
    w = t["who"]
    if t["kind"] == "billing":
        parts = [amount_pattern(invoice_total(t["invoice"])), STATUS_WORD[t["invoice"]["status"]]]
    elif t["kind"] == "account":
        parts = [PLAN_WORD[w["plan"]], seats_pattern(w["seats"])]
    else:
        return PLAN_WORD[w["plan"]]
    return _all_of(*parts, *(c.pattern(w) for c in CONVENTIONS if c.applies(t["kind"], w)))


def _answered(t: dict[str, Any]) -> str:
    """What our new answer on conversation ``t`` holds: its fact (the asked invoice's status and total; the
    plan and seats; the plan that ends) with the conventions' lines, as the frame asks of every message to
    the customer, or the Stripe id of the invoice or customer it is about (the stable id that names the
    pattern, tasks_catalog/literals.py). No earlier answer holds either (``_check_needed``)."""
    about = t["invoice"]["id"] if t["kind"] == "billing" else t["who"]["stripe"]
    return f"{_fact_pattern(t)}|{re.escape(about)}"


def _check_needed(seed: int, success: list[dict[str, Any]], messages: list[dict[str, Any]]) -> None:
    """``ValueError`` naming each email clause of ``success`` that a sent message of the initial mailbox (the
    world's and the planted ones: our earlier answers, the answer in the conversation asked again) already
    meets: only the new answer or forward may meet it."""
    sent = [m for m in [*world("gmail", seed)["messages"], *messages] if "SENT" in m["label_ids"]]
    met = [c["gmail.draftSent"] for c in success if "gmail.draftSent" in c and any(
        c["gmail.draftSent"]["to"] in m["to"] and re.search(c["gmail.draftSent"]["body_pattern"], m.get("body") or "")
        for m in sent)]
    if met:
        raise ValueError(f"{ID}, seed {seed}: a sent message already meets the success clause gmail.draftSent "
                         f"to {', '.join(c['to'] for c in met)}: only the new email may")


def _reply(t: dict[str, Any], *, who: dict[str, Any] | None = None, cc: list[str] | None = None,
           keep: Any = None) -> dict[str, Any]:
    args: dict[str, Any] = {"to": [t["who"]["email"]], "subject": f"Re: {t['subject']}",
                            "body": _reply_text(t, who, keep), "threadId": t["ids"][0]}
    copy = _cc(t["who"]) if cc is None else cc
    if copy:
        args["cc"] = copy
    return call("gmail__send_email", **args)


def _forward(t: dict[str, Any], owner: str | None = None) -> dict[str, Any]:
    w = t["who"]
    original = f"From: {w['first']} {w['last']} <{w['email']}>\nSubject: {t['subject']}"
    return call("gmail__send_email", to=[owner or w["owner"]], subject=f"Fwd: {t['subject']}",
                body=(f"Hi,\n\n{w['name']} ({w['first']} {w['last']}) asks to cancel; as a key account it is yours "
                      f"to call them. Their email:\n\n{original}\n\n{SIGN_OFF}"))


def _labels(threads: list[dict[str, Any]], *, latest_only: bool = False) -> list[dict[str, Any]]:
    out = []
    for kind in ("billing", "account", "cancel", "other"):
        ids = [i for t in threads if t["kind"] == kind for i in (t["ids"][-1:] if latest_only else t["ids"])]
        out.append(call("gmail__batch_modify_emails", messageIds=ids, addLabelIds=[LABELS[kind]["id"]],
                        removeLabelIds=["UNREAD"]))
    return out


def _needs_reply(t: dict[str, Any]) -> bool:
    return t["role"] in ("billing", "account", "cancel", "again")


def _check_examples(seed: int, examples: list[dict[str, Any]], messages: list[dict[str, Any]]) -> None:
    """``ValueError`` when a convention's line shows in a search result's snippet of an earlier answer, or
    in fewer than 2 or more than 5 of them, or when the Support label holds more than a page of 50."""
    for conv in CONVENTIONS:
        snippets = [e["who"]["name"] for e in examples if e["answer"] and conv.marker in e["answer"]["body"][:100]]
        shown = sum(_shows(e, conv) for e in examples)
        if snippets or not 2 <= shown <= 5:
            raise ValueError(f"{ID}, seed {seed}: {conv.name} shows in a search result's snippet ({snippets}) or in "
                             f"{shown} earlier answers (2-5 wanted)")
    if sum(1 for m in messages if QUEUE["id"] in m["label_ids"]) > 50:
        raise ValueError(f"{ID}, seed {seed}: more than 50 messages under Support (the reference reads one page)")


def _convention_wrongs(writes: list[dict[str, Any]], replies: dict[int, dict[str, Any]], new: list[dict[str, Any]],
                       examples: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The team's way missed: for each convention the answers without its line (a reader who opened too few
    earlier answers), and the readings of the earlier answers that carry it on fewer answers than it does
    (those that carry it as widely or more widely change nothing a frame minds: left out)."""
    def carrying(conv: Convention, read: Reading) -> list[dict[str, Any]]:
        swapped = {id(replies[id(t)]): _reply(t, keep=lambda c, t=t: c is not conv or read(
            t["kind"], t["who"], t["text"], _status(t))) for t in new if conv.applies(t["kind"], t["who"])}
        return [swapped.get(id(c), c) for c in writes]

    out: list[dict[str, Any]] = []
    seen = {repr(writes)}
    for conv in CONVENTIONS:
        which = ", ".join(t["who"]["name"] for t in new if conv.applies(t["kind"], t["who"]))
        out.append({"why": f"answers as the policy says but without the line the earlier answers carry for "
                           f"{FLAGS[conv.trigger][0]} ({conv.name}: {which})",
                    "kind": "other", "calls": carrying(conv, lambda k, w, text, st: False)})
        seen.add(repr(out[-1]["calls"]))
        kept = 0
        for name, read in readings(conv, {x["who"]["currency"] for x in [*examples, *new]}).items():
            calls = carrying(conv, read)
            if kept == WRONG_READINGS or repr(calls) in seen:
                continue
            seen.add(repr(calls))
            kept += 1
            out.append({"why": f"reads the earlier answers otherwise: {conv.what} {name}", "kind": "other",
                        "calls": calls})
    return out


def _copy_wrongs(writes: list[dict[str, Any]], replies: dict[int, dict[str, Any]],
                 new: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The copy to collections misread: on no answer (a reader who opened too few earlier answers, or read
    them in a search result, which lists ``to`` and not ``cc``), on every answer, on the answers to customers
    with any open invoice (due or not), on the invoice answers to customers past due only. Copying collections
    more widely is no harmless imitation: it tells a customer in good standing that finance is chasing them
    (the frame allows each answer with exactly its copies)."""
    readings: list[tuple[str, Any]] = [
        ("copies collections on no answer", lambda t: False),
        ("copies collections on every answer", lambda t: True),
        ("copies collections on the answers to every customer with an open invoice, due or not",
         lambda t: t["who"]["open_any"]),
        ("copies collections only on the invoice answers to customers past due",
         lambda t: t["who"]["overdue"] and t["kind"] == "billing"),
    ]
    out: list[dict[str, Any]] = []
    seen = {repr(writes)}
    for why, copies in readings:
        swapped = {id(replies[id(t)]): _reply(t, cc=_cc(t["who"], collections=copies(t))) for t in new}
        calls = [swapped.get(id(c), c) for c in writes]
        if repr(calls) not in seen:
            seen.add(repr(calls))
            out.append({"why": f"answers as the policy says but {why}", "kind": "other", "calls": calls})
    return out


def _left_out_wrongs(writes: list[dict[str, Any]], replies: dict[int, dict[str, Any]],
                     forwards: dict[int, dict[str, Any]],
                     by_role: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """The reference's writes without one of its emails, each one the goal asks for: the answer in the
    conversation asked again (our earlier answer there is to the same customer), an invoice answer, a plan
    answer, a cancellation confirmed, a key account's cancellation forwarded."""
    again, bill, cancel, key_cancel = by_role["again"][0], by_role["billing"][0], by_role["cancel"][0], by_role["cancel_key"][0]
    plan = next(t for t in by_role["account"] if "twin" not in t)
    left_out = [(replies[id(again)], f"the answer to {again['who']['name']} about invoice {again['invoice']['number']}, "
                                     f"asked after our answer about {again['answered']['number']}"),
                (replies[id(bill)], f"the answer to {bill['who']['name']} about invoice {bill['invoice']['number']}"),
                (replies[id(plan)], f"the answer to {plan['who']['name']}'s plan question"),
                (replies[id(cancel)], f"the confirmation of {cancel['who']['name']}'s cancellation"),
                (forwards[id(key_cancel)], f"the forward of {key_cancel['who']['name']}'s cancellation to its owner")]
    return [{"why": f"works the queue as the policy says but leaves out {what}", "kind": "other",
             "calls": [c for c in writes if c is not gone]} for gone, what in left_out]


def _policy_pages(seed: int, policy_id: str) -> list[dict[str, Any]]:
    """Notion's patch: the 2026 policy under Policies, the 2025 one under Superseded."""
    n = world("notion", seed)
    policies = next(p["id"] for p in n["pages"] if p["title"] == "Policies")
    superseded = next(p["id"] for p in n["pages"] if p["title"] == "Superseded")

    def page(pid: str, title: str, parent: str, blocks: list[tuple[str, str]], created: str) -> dict[str, Any]:
        return {"op": "add", "in": ["pages"], "value": {
            "id": pid, "title": title, "parent_id": parent, "properties": {}, "archived": False, "created_time": created,
            "content": [{"id": uuid_of(ID, pid, i), "type": kind, "text": text} for i, (kind, text) in enumerate(blocks)]}}

    return [page(uuid_of(ID, "old", seed), OLD_POLICY, superseded, OLD_POLICY_TEXT, "2025-02-20T10:00:00Z"),
            page(policy_id, POLICY, policies, POLICY_TEXT, "2026-02-25T10:00:00Z")]


def _judged(seed: int, threads: list[dict[str, Any]], messages: list[dict[str, Any]],
            examples: list[dict[str, Any]]) -> dict[str, Any]:
    new = [t for t in threads if _needs_reply(t)]
    if unruled(examples, new):
        raise ValueError(f"{ID}, seed {seed}: the earlier answers leave open {unruled(examples, new)}")
    _check_examples(seed, examples, messages)
    policy_id = uuid_of(ID, "policy", seed)
    notion_patch = _policy_pages(seed, policy_id)
    gmail_patch = [*({"op": "add", "in": ["labels"], "value": v} for v in [QUEUE, *LABELS.values()]),
                   *({"op": "add", "in": ["messages"], "value": m} for m in messages)]

    # the reference: read the queue, the policy, the CRM and its people, every earlier conversation (opened:
    # their answers are the team's way), which conversations we have answered (our sent mail), each fact in
    # Stripe (an invoice asked about, and its customer: a purchase order on file)
    discover = [
        call("gmail__list_email_labels"),
        call("gmail__search_emails", query="label:Support", maxResults=50),
        call("notion__search", query="support inbox policy"),
        call("notion__get_block_children", block_id=policy_id),
        call("notion__search", query="Customer Accounts"),
        call("notion__query_database", database_id=crm_database_id(seed), page_size=100),
        *notion_user_reads(seed),
    ]
    per_thread = [call("gmail__get_thread", threadId=e["ids"][0]) for e in sorted(
        (e for e in examples if "ids" in e), key=lambda e: e["ids"][0])]
    per_thread.append(call("gmail__search_emails", query="in:sent after:2026/03/01", maxResults=50))
    # the invoices past due today (open, issued more than 30 days ago): whose answers copy collections
    per_thread.append(call("stripe__list_invoices", status="open",
                           created={"lt": world("stripe", seed)["now"] - 30 * 86_400}, limit=100))
    for t in threads:
        if t["role"] in ("billing", "again"):
            per_thread.append(call("stripe__search_invoices", query=f"number:'{t['invoice']['number']}'"))
        if t["role"] in ("billing", "again", "account", "cancel"):
            per_thread.append(call("stripe__search_customers", query=f"email:'{t['who']['email']}'"))
    labels = _labels(threads)
    replies = {id(t): _reply(t) for t in threads if _needs_reply(t)}
    forwards = {id(t): _forward(t) for t in threads if t["role"] == "cancel_key"}
    sends = [replies.get(id(t)) or forwards[id(t)] for t in threads if id(t) in replies or id(t) in forwards]
    # the fourth email sent (an invoice answer: they come first) times out having gone: read its conversation
    fourth = sends[3]
    fourth_thread = next(t for t in threads if replies.get(id(t)) is fourth)
    check = call("gmail__get_thread", threadId=fourth_thread["ids"][0])
    reference = [*discover, *per_thread, *labels, *sends[:4], check, *sends[4:]]

    # -- the judgement
    success: list[dict[str, Any]] = []
    frame: list[dict[str, Any]] = []
    for kind in ("billing", "account", "cancel", "other"):
        mine = [t for t in threads if t["kind"] == kind]
        ids = [i for t in mine for i in t["ids"]]
        success += [{"gmail.messageLabelApplied": {"message": i, "label": LABELS[kind]["name"]}} for i in ids]
        earlier = [i for e in examples if e["kind"] == kind and "ids" in e for i in e["ids"]]
        # the earlier conversations already carry their label: labelling (or tidying) them again is no harm
        frame.append({"entity": "gmail.message", "ids": ids + [i for t in mine for i in t["ours"]] + earlier,
                      "fields": ["label_ids"],
                      "values": {"label_ids": {"add": [LABELS[kind]["id"]], "remove": ["UNREAD", "INBOX", QUEUE["id"]]}}})
    for t in threads:
        if id(t) in replies:
            # any subject (the reply's to choose); the body is what tells this answer from ours already sent
            # (the conversation asked again holds our answer about the other invoice)
            success.append({"gmail.draftSent": {"to": t["who"]["email"], "body_pattern": _answered(t)}})
            frame.append({"entity": "gmail.message", "change": ["create"],
                          "where": {"to": [t["who"]["email"]], "cc": _cc(t["who"])},
                          "values": {"body": {"matches": _fact_pattern(t)}}, "max": 1})
        if id(t) in forwards:
            w = t["who"]
            # Priya has written to every owner before: the forward is the one that names the customer and the
            # cancellation (the customer's own words say "cancel", and the goal does)
            name = f"{re.escape(w['short'])}|{re.escape(w['name'])}"
            success.append({"gmail.draftSent": {"to": w["owner"],
                                                "body_pattern": both(name, CANCEL)}})
            frame.append({"entity": "gmail.message", "change": ["create"], "where": {"to": [w["owner"]]},
                          "values": {"body": {"matches": name}, "cc": {"add": []}}, "max": 1})
    frame.append({"entity": "gmail.draft", "change": ["create", "update", "delete"], "max": 3 * len(sends)})
    _check_needed(seed, success, messages)

    # -- wrong solutions (their writes only)
    by_role = {r: [t for t in threads if t["role"] == r] for r in ("billing", "account", "cancel_key", "cancel", "other",
                                                                   "handled", "again")}
    look = next(t for t in by_role["account"] if "twin" in t)
    twin = look["twin"]
    writes = [*labels, *sends]

    def swap(old: dict[str, Any], new: dict[str, Any]) -> list[dict[str, Any]]:
        return [new if c is old else c for c in writes]

    wrong_look = swap(replies[id(look)], _reply(look, who=twin, cc=_cc(twin)))
    look_cancel = next((t for t in by_role["cancel_key"] if "twin" in t), None)
    if look_cancel is not None:
        wrong_look = [_forward(look_cancel, look_cancel["twin"]["owner"]) if c is forwards[id(look_cancel)] else c
                      for c in wrong_look]
    key_cancel = by_role["cancel_key"][0]
    ent_reply = next(t for t in threads if id(t) in replies and _cc(t["who"]))
    again = by_role["again"][0]
    stale_bill = by_role["billing"][0]
    wrongs = [
        {"why": f"answers {look['who']['name']}'s plan question with {twin['name']}'s plan and seats"
                + (" (and copies its owner)" if _cc(twin) else " (and copies nobody)") + (f"; forwards {look_cancel['who']['name']}'s cancellation to {look_cancel['twin']['name']}'s "
                             f"owner" if look_cancel else ""),
         "kind": "lookalike", "calls": wrong_look},
        {"why": f"does everything right and also answers {key_cancel['who']['name']}'s cancellation itself (a key "
                f"account: its owner answers)",
         "kind": "collateral",
         "calls": [*writes, _reply({**key_cancel, "kind": "cancel"}, cc=[])]},
        {"why": "answers every conversation, the handled ones and the other mail too",
         "kind": "other",
         "calls": [*labels, *sends, *(_reply({**t, "kind": t["kind"] if t["kind"] != "other" else "cancel"}, cc=[])
                                      for t in threads if t["role"] in ("other", "handled"))]},
        {"why": "follows the superseded 2025 version: copies Scale owners too and answers key accounts' cancellations",
         "kind": "other",
         "calls": [*labels, *(_reply(t, cc=_cc(t["who"], scale_too=True)) for t in threads if id(t) in replies),
                   *forwards.values(), *(_reply({**t, "kind": "cancel"}, cc=[]) for t in by_role["cancel_key"])]},
        {"why": "labels only the latest message of each conversation", "kind": "other",
         "calls": [*_labels(threads, latest_only=True), *sends]},
        {"why": "sends the fourth email again after it timed out, without looking: two answers", "kind": "other",
         "calls": [*writes, fourth]},
        {"why": f"does not copy the account owner of {ent_reply['who']['name']} (an Enterprise key account)",
         "kind": "other", "calls": swap(replies[id(ent_reply)], _reply(ent_reply, cc=[]))},
        {"why": f"answers {again['who']['name']} about invoice {again['answered']['number']} again, not about "
                f"{again['invoice']['number']} they asked about since",
         "kind": "other", "calls": swap(replies[id(again)], _reply({**again, "invoice": again["answered"]}))},
        {"why": f"gives {stale_bill['who']['name']} invoice {stale_bill['invoice']['number']} as still open"
                + (" (as finance's Client Invoices of 6 March has it)" if stale_bill["stale"] else ""),
         "kind": "other",
         "calls": swap(replies[id(stale_bill)], _reply({**stale_bill, "invoice": {**stale_bill["invoice"],
                                                                                 "status": "open"}}))},
    ]
    wrongs += [*_left_out_wrongs(writes, replies, forwards, by_role), *_copy_wrongs(writes, replies, new),
               *_convention_wrongs(writes, replies, new, examples)]
    # -- natural variants
    per_message = [call("gmail__modify_email", messageId=i, addLabelIds=[LABELS[t["kind"]]["id"]],
                        removeLabelIds=["UNREAD", "INBOX"]) for t in threads for i in t["ids"]]

    # a draft takes the first free id after the world's drafts (each is sent before the next is written)
    draft_id = f"r-{len(world('gmail', seed)['drafts']) + 1}"

    def drafted(c: dict[str, Any]) -> list[dict[str, Any]]:
        return [call("gmail__draft_email", **c["arguments"]), call("gmail__send_draft", draftId=draft_id)]

    alternatives = [
        {"why": "labels message by message (marking each read and archiving it), answering as it goes, the "
                "conversations in another order",
         "calls": [*discover, *per_message, *reversed(sends)]},
        {"why": "drafts each answer and forward before sending it, and takes the conversations out of the queue "
                "label as it labels them",
         "calls": [*(call("gmail__batch_modify_emails", messageIds=c["arguments"]["messageIds"],
                          addLabelIds=c["arguments"]["addLabelIds"], removeLabelIds=["UNREAD", QUEUE["id"]])
                     for c in labels),
                   *(x for c in sends for x in drafted(c))]},
    ]
    return {
        "patch": {"gmail": gmail_patch, "notion": notion_patch, "stripe": []},
        "faults": MAILBOX_FAULTS,
        "frame": frame,
        "success": {"all": success},
        "reference": reference,
        "wrong": wrongs,
        "alternatives": alternatives,
        "max_steps": budget(len(reference), 1),
        "queue": len([i for t in threads for i in t["ids"]]),
        "conversations": len(threads),
    }


GOAL = ("My Support label has piled up while I was away: customers' questions, cancellations and the rest. Please "
        "work through all of it as our support inbox policy says, answering the way the team has been answering.")

CASES = 9


def build() -> dict[str, Any]:
    return template(id=ID, version=4, servers=SERVERS, difficulty="hard", category="recovery",
                    case_list=cases(case_of, want=CASES),
                    task=body(GOAL, SERVERS, MAILBOX_TOOLS, timeout_s=1800, faults="{{case.faults}}"))
