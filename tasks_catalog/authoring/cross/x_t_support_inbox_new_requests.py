"""x-t-support-inbox-new-requests (hard, recovery; gmail, notion, slack, stripe): 17 new customer emails sit
under Priya's Support label, and she asks for them to be worked "the way we have handled the earlier ones". No
page says how: the rules are what the 17 handled conversations under the same label show (their sub-label,
whether we answered, what our answer said, whether it went to the account owner and whom we copied, and the
posts in #cs-escalations the forwards mention), and they key on facts on the other servers (whether the
customer is a key account in Customer Accounts, the CRM in Notion; its plan there; the invoice and plan in
Stripe; the owner's Slack handle).

The conventions the handled conversations show (``conventions`` below holds each with the alternatives a
reader might form, and ``unruled`` asserts per case that every alternative which would treat a new request
otherwise is contradicted by some handled conversation; the module raises otherwise):
- Label: Support/Billing (an invoice question), Support/Account (plan or seats), Support/Cancellation,
  Support/Other (thanks, a suggestion, an automatic reply).
- Answer: an invoice question gets the invoice's status and total as Stripe shows them; a plan question the
  plan and seats on the Stripe customer; a cancellation from a customer who is not a key account a
  confirmation naming the plan that ends; other mail no answer (not even from a key account).
- A key account's cancellation (any customer in Customer Accounts, on any plan) is forwarded to its account
  owner (Customer Accounts' Owner), flagged in #cs-escalations (naming the customer, mentioning the owner; the
  flag says "key account", not the plan), and not answered. The handled ones forward an Enterprise key
  account's cancellation and one from a key account on the lowest plan the seed has left (Starter or Growth),
  and each new key account's cancellation is on that plan or above, of that ARR and seats or more, in a region
  a forwarded one is in: no reading "only key accounts on Scale or above" (nor of ARR, seats or region) fits
  the handled ones and treats a new one otherwise, and the handled cancellations answered rule out "anyone on
  Enterprise" where a new one would tell it apart (``_special`` holds these readings, for the answer, the
  forward and the flag alike).
- The account owner is copied on an answer to a key account on the Enterprise plan, and on no other (not a
  key account on Scale or Growth; the handled ones include the Enterprise key accounts of least ARR and fewest
  seats, copied, and the other key accounts of most ARR and most seats, not copied, so no threshold reads as
  the rule).
One plan question comes from a key account whose name is a letter away from another's (Harbour and Harbor
Foods, ...), with another plan or seats, owner or tier. The labels go on in four batches (the second answers
``unavailable`` and must be retried); the fourth email sent answers ``timeout_after_commit`` (it went: a
blind resend answers twice, which the frame's ``max`` catches). The reference reads every handled conversation
and makes 58 calls.

The customers, their invoices and the texts of the questions are those of x-t-support-inbox-backlog (both
take them from ``_x_t_support``: one place for what a support question and its facts are).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

from tasks_catalog.authoring.cross import budget, cases, template, world
from tasks_catalog.authoring.cross._x_t_accounts import crm_database_id, crm_rows
from tasks_catalog.authoring.cross._x_t_billing import hex_id, unix
from tasks_catalog.authoring.cross._x_t_people import PRIMARY, body, call
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
    support_customers,
)

ID = "x-t-support-inbox-new-requests"
SERVERS = ["gmail", "notion", "slack", "stripe"]
ESCALATIONS = "cs-escalations"
KINDS = ("billing", "account", "cancel", "other")
#: How many of a convention's alternative readings become wrong solutions (the first that treat a new request
#: otherwise; every one is still asserted against the handled conversations): a template file stays under 4 MB.
WRONG_READINGS = 3
Who = dict[str, Any]
Test = Callable[[Who], bool]


def _ent(c: Who) -> bool:
    return bool(c["key"]) and c["plan"] == "enterprise"


def _key_plan(*plans: str) -> Test:
    return lambda c: bool(c["key"]) and c["plan"] in plans


def _nonkey(c: Who) -> bool:
    return not c["key"]


def _nonkey_ent(c: Who) -> bool:
    return not c["key"] and c["plan"] == "enterprise"


def _anyone(c: Who) -> bool:
    return True


#: The plans from the lowest up (a reading "on Scale or above" keys on this order).
PLANS = ("starter", "growth", "scale", "enterprise")


def _rank(c: Who) -> int:
    return PLANS.index(c["plan"])


def _lowest(pool: list[Who], used: set[str]) -> Test:
    """A key account not on Enterprise, on the lowest plan among those still undrawn (a handled cancellation
    forwarded from it rules out every reading "only key accounts on this plan or above")."""
    def test(c: Who) -> bool:
        left = [_rank(x) for x in pool if x["name"] not in used and x["key"] and x["plan"] != "enterprise"]
        return bool(c["key"]) and c["plan"] != "enterprise" and _rank(c) == min(left)
    return test


def _beyond(past: list[dict[str, Any]], test: Test) -> Test:
    """``test``, of a key account no smaller than every handled forwarded one (plan, ARR and seats) and in a
    region one of them is in: no threshold or region the forwarded ones share sets a new cancellation apart."""
    def fits(c: Who) -> bool:
        fwd = [e["who"] for e in past if forwarded(e["kind"], e["who"])]
        return test(c) and all(c[f] >= min(w[f] for w in fwd) for f in ("arr", "seats")) and \
            _rank(c) >= min(_rank(w) for w in fwd) and c["region"] in {w["region"] for w in fwd}
    return fits


Slots = list[tuple[str, Test, Test | None]]


def _past_slots(pool: list[Who], used: set[str]) -> Slots:
    """The handled conversations: (kind, who writes, a fallback when the seed has nobody of the first kind).
    Four more are drawn first, by ``_extremes``: the Enterprise key accounts of least ARR and fewest seats (an
    invoice and a plan question, their owners copied) and the other key accounts of most ARR and most seats (an
    invoice and a plan question, nobody copied), so that no threshold of ARR or seats reads as the copy rule; a
    Scale key account's invoice question (nobody copied) rules out "Scale or above"; the key accounts'
    cancellations forwarded are an Enterprise one's and one on the lowest plan left."""
    return [
        ("billing", _key_plan("scale"), _key_plan("growth", "starter")), ("billing", _nonkey_ent, _nonkey),
        ("billing", _nonkey, None),
        ("account", _nonkey, None), ("account", _nonkey, None),
        ("cancel", _ent, None), ("cancel", _lowest(pool, used), None),
        ("cancel", _nonkey_ent, _nonkey), ("cancel", _nonkey, None), ("cancel", _nonkey, None),
        ("other", _ent, None), ("other", _nonkey, None), ("other", _anyone, None),
    ]


def _new_slots(past: list[dict[str, Any]]) -> Slots:
    """The new requests beside the lookalike plan question; the key accounts' cancellations are ``_beyond``
    the handled forwarded ones."""
    return [
        ("billing", _ent, None), ("billing", _ent, None), ("billing", _key_plan("scale", "growth", "starter"), None),
        ("billing", _nonkey, None), ("billing", _nonkey, None),
        ("account", _ent, None), ("account", _nonkey, None), ("account", _anyone, None),
        ("cancel", _beyond(past, _ent), None), ("cancel", _beyond(past, _key_plan("scale", "growth", "starter")), None),
        ("cancel", _nonkey, None), ("cancel", _nonkey, None), ("cancel", _nonkey_ent, _nonkey),
        ("other", _ent, None), ("other", _nonkey, None), ("other", _anyone, None),
    ]


# -- the conventions -----------------------------------------------------------------------------------------

def answered(kind: str, c: Who) -> bool:
    """Whether we answer the customer: invoice and plan questions, a cancellation unless a key account's."""
    return kind in ("billing", "account") or (kind == "cancel" and not c["key"])


def forwarded(kind: str, c: Who) -> bool:
    """Whether the conversation goes to the account owner: a key account's cancellation."""
    return kind == "cancel" and bool(c["key"])


def copied(kind: str, c: Who) -> list[str]:
    """Whom an answer copies: the owner of an Enterprise key account."""
    return [c["owner"]] if answered(kind, c) and _ent(c) else []


def _thresholds(examples: list[dict[str, Any]], field: str) -> list[Any]:
    return sorted({e["who"][field] for e in examples if e["who"]["key"]})


Reading = Callable[[str, Who], bool]


def _on(p: str) -> Test:
    """Anyone on plan ``p`` or above."""
    return lambda c: _rank(c) >= PLANS.index(p)


def _key_and(t: Test) -> Test:
    return lambda c: bool(c["key"]) and t(c)


def _key_or(t: Test) -> Test:
    return lambda c: bool(c["key"]) or t(c)


def _at_least(field: str, t: Any) -> Test:
    """A key account whose ``field`` is ``t`` or more."""
    return lambda c: bool(c["key"]) and c[field] >= t


def _copy_if(t: Test) -> Reading:
    """The reading "copy the owner on an answer to these"."""
    return lambda k, c: answered(k, c) and t(c)


def _cancel_if(t: Test) -> Reading:
    """The reading "forward (or flag) the cancellations of these"."""
    return lambda k, c: k == "cancel" and t(c)


def _answer_unless(t: Test) -> Reading:
    """The reading "answer every question, and the cancellations but these"."""
    return lambda k, c: k in ("billing", "account") or (k == "cancel" and not t(c))


def _from(p: str) -> str:
    return "Enterprise" if p == "enterprise" else f"{p.capitalize()} or above"


def _special(everyone: list[dict[str, Any]], examples: list[dict[str, Any]]) -> dict[str, Test]:
    """The readings of which customers' cancellations are a key account's matter (forwarded to the owner,
    flagged, not answered) a reader could form in place of "a customer in Customer Accounts" (name -> whom it
    takes): a plan or above (only key accounts, anyone, or key accounts and anyone), ARR or seats of a
    threshold or more (every value a customer of ``everyone`` has), the regions of the forwarded ones."""
    regions = {e["who"]["region"] for e in examples if e["forwarded"]}
    out = {f"key accounts on {_from(p)}": _key_and(_on(p)) for p in PLANS[1:]}
    out |= {f"anyone on {_from(p)}": _on(p) for p in PLANS}
    out |= {f"key accounts, and anyone on {_from(p)}": _key_or(_on(p)) for p in PLANS[1:]}
    for field, unit in (("arr", "of ARR {t} or more"), ("seats", "of {t} seats or more")):
        out |= {f"key accounts {unit.format(t=t)}": _at_least(field, t) for t in _thresholds(everyone, field)}
    out[f"key accounts in {sorted(regions)}"] = _key_and(lambda c: c["region"] in regions)
    return out


def conventions(everyone: list[dict[str, Any]], examples: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each convention: what a handled conversation shows of it (``seen``), the rule, and the alternatives a
    careful reader could form from fewer examples (name -> what it predicts); the thresholds of ARR and seats
    range over every customer of ``everyone`` (the handled and the new). The plan readings come first (the
    wrong solutions take the first that treat a new request otherwise)."""
    regions = {e["who"]["region"] for e in examples if e["cc"]}
    cc_alts: dict[str, Reading] = {
        **{f"copy owners of key accounts on {_from(p)}": _copy_if(_key_and(_on(p))) for p in PLANS[:-1]},
        "copy nobody": lambda k, c: False,
        f"copy owners of key accounts in {sorted(regions)}": _copy_if(_key_and(lambda c: c["region"] in regions)),
        **{f"copy owners of key accounts of ARR {t} or more": _copy_if(_at_least("arr", t))
           for t in _thresholds(everyone, "arr")},
        **{f"copy owners of key accounts of {t} seats or more": _copy_if(_at_least("seats", t))
           for t in _thresholds(everyone, "seats")},
    }
    special = _special(everyone, examples)
    return {
        "answer": {"seen": lambda e: e["replied"], "rule": answered, "alternatives": {
            "answer every conversation": lambda k, c: True,
            "answer everything but other mail": lambda k, c: k != "other",
            "answer other mail from key accounts": lambda k, c: answered(k, c) or (k == "other" and bool(c["key"])),
            "answer no cancellation": lambda k, c: k in ("billing", "account"),
            **{f"answer cancellations except those of {who}": _answer_unless(t) for who, t in special.items()},
        }},
        "forward": {"seen": lambda e: e["forwarded"], "rule": forwarded, "alternatives": {
            **{f"forward the cancellations of {who} only": _cancel_if(t) for who, t in special.items()},
            "forward every key account's request": lambda k, c: k != "other" and bool(c["key"]),
            "forward every key account's mail": lambda k, c: bool(c["key"]),
            "forward no cancellation": lambda k, c: False,
        }},
        "copy": {"seen": lambda e: bool(e["cc"]), "rule": lambda k, c: bool(copied(k, c)),
                 "alternatives": cc_alts},
        "escalate": {"seen": lambda e: e["posted"], "rule": forwarded, "alternatives": {
            **{f"post the cancellations of {who} in #{ESCALATIONS} only": _cancel_if(t)
               for who, t in special.items()},
            "post every key account's request": lambda k, c: k != "other" and bool(c["key"]),
            "post no cancellation": lambda k, c: False,
        }},
    }


def unruled(examples: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[str]:
    """What the handled conversations leave open: a rule they contradict, or an alternative that fits every one
    of them and would treat a new request otherwise (one that fits them and agrees on every new request
    decides nothing). Empty when the examples decide every new request."""
    out = []
    everyone = [*examples, *new]
    for name, conv in conventions(everyone, examples).items():
        seen = conv["seen"]
        if any(conv["rule"](e["kind"], e["who"]) != seen(e) for e in examples):
            out.append(f"{name}: the rule itself")
        out += [f"{name}: {alt}" for alt, pred in conv["alternatives"].items()
                if all(pred(e["kind"], e["who"]) == seen(e) for e in examples)
                and any(pred(i["kind"], i["who"]) != conv["rule"](i["kind"], i["who"]) for i in new)]
    return out


# -- the world -------------------------------------------------------------------------------------------

def _settled(seed: int) -> dict[str, str]:
    """Invoice number -> status in finance's Client Invoices (a weekly copy in Notion)."""
    n = world("notion", seed)
    db = next(d for d in n["databases"] if d["title"] == "Client Invoices")
    return {p["title"].split()[0]: p["properties"].get("Status") for p in n["pages"] if p["parent_id"] == db["id"]}


def _agrees(inv: dict[str, Any], copy: dict[str, str]) -> bool:
    """Whether finance's copy reads an invoice as Stripe does (so only Stripe's status can be meant)."""
    status = copy.get(inv["number"])
    return status is None or (status == "Paid") == (inv["status"] == "paid")


def _people(seed: int) -> dict[str, Who]:
    """The customers a case may draw, with their CRM region and ARR (key accounts)."""
    rows = {r["title"]: r["properties"] for r in crm_rows(seed)}
    out = support_customers(seed)
    for name, c in out.items():
        row = rows.get(name) if c["key"] else None
        c["region"] = row["Region"] if row else None
        c["arr"] = row["ARR"] if row else None
    return out


def _draw(rng: random.Random, pool: list[Who], used: set[str], kind: str, test: Test, fallback: Test | None,
          copy: dict[str, str]) -> dict[str, Any] | None:
    def fits(t: Test) -> Callable[[Who], bool]:
        if kind != "billing":
            return t
        return lambda c: t(c) and any(_agrees(i, copy) for st in ("paid", "open") for i in invoice_pool(c, st))

    who = pick_unused(rng, pool, used, fits(test)) or (fallback and pick_unused(rng, pool, used, fits(fallback)))
    if not who:
        return None
    item: dict[str, Any] = {"kind": kind, "who": who}
    if kind == "billing":
        item["invoice"] = _invoice_for(rng, who, copy)
    return item


def _invoice_for(rng: random.Random, who: Who, copy: dict[str, str]) -> dict[str, Any]:
    """An invoice of this year the customer asks about: paid or open (either, as the customer has them),
    one finance's copy reads as Stripe does."""
    pools = [p for p in ([i for i in invoice_pool(who, st) if _agrees(i, copy)] for st in ("paid", "open")) if p]
    return rng.choice(rng.choice(pools))


def _extremes(rng: random.Random, pool: list[Who], used: set[str], copy: dict[str, str]) -> list[dict[str, Any]] | None:
    """The four handled questions from key accounts at the edges of ARR and seats (``PAST``)."""
    out = []
    for kind, test, field, low in (("billing", _ent, "arr", True), ("account", _ent, "seats", True),
                                   ("billing", _key_plan("scale", "growth", "starter"), "arr", False),
                                   ("account", _key_plan("scale", "growth", "starter"), "seats", False)):
        fit = [c for c in pool if c["name"] not in used and test(c) and (kind != "billing" or any(
            _agrees(i, copy) for st in ("paid", "open") for i in invoice_pool(c, st)))]
        if not fit:
            return None
        edge = (min if low else max)(c[field] for c in fit)
        who = next(c for c in fit if c[field] == edge)
        used.add(who["name"])
        item: dict[str, Any] = {"kind": kind, "who": who}
        if kind == "billing":
            item["invoice"] = _invoice_for(rng, who, copy)
        out.append(item)
    return out


def _message(seed: int, key: str, head: tuple[str, list[str], str], text: str, when: str, labels: list[str],
             thread: str | None = None, cc: list[str] | None = None) -> dict[str, Any]:
    sender, to, subject = head
    mid = hex_id(ID, seed, key)
    return {"id": mid, "thread_id": thread or mid, "sender": sender, "to": to, "cc": cc or [], "subject": subject,
            "body": text, "date": when, "label_ids": labels}


def _answer_text(kind: str, first: str, w: Who, invoice: dict[str, Any] | None = None, currency: str = "") -> str:
    if kind == "billing":
        fact = invoice_fact(invoice, currency)  # type: ignore[arg-type]
    elif kind == "account":
        fact = f"you are on our {w['plan'].capitalize()} plan, with {w['seats']} seats."
    else:
        fact = f"we have your cancellation request: your {w['plan'].capitalize()} plan will end with the current period."
    return f"Hello {first},\n\n{fact[0].upper()}{fact[1:]}\n\n{SIGN_OFF}"


def _forward_text(w: Who, subject: str) -> str:
    return (f"Hi {w['owner_name'].split()[0]},\n\n{w['name']} ({w['first']} {w['last']}) asks to cancel; as a key "
            f"account it is yours to call them. Their email:\n\nFrom: {w['first']} {w['last']} <{w['email']}>\n"
            f"Subject: {subject}\n\nI have flagged it in #{ESCALATIONS} too.\n\n{SIGN_OFF}")


def _fact_pattern(item: dict[str, Any], w: Who | None = None) -> str:
    w = w or item["who"]
    if item["kind"] == "billing":
        return both(amount_pattern(invoice_total(item["invoice"])), STATUS_WORD[item["invoice"]["status"]])
    if item["kind"] == "account":
        return both(PLAN_WORD[w["plan"]], seats_pattern(w["seats"]))
    return PLAN_WORD[w["plan"]]


def case_of(seed: int) -> dict[str, Any] | None:
    gmail = world("gmail", seed)
    if any(lab["id"] in {QUEUE["id"], *(v["id"] for v in LABELS.values())} or lab["name"].startswith("Support")
           for lab in gmail["labels"]):
        return None
    rng = random.Random(f"{ID}:{seed}")
    custs = _people(seed)
    pool = list(custs.values())
    used: set[str] = set()
    copy = _settled(seed)
    look = lookalike_key_account(seed, custs, rng, used, for_cancel=False)
    if look is None:
        return None
    past = _extremes(rng, pool, used, copy)
    if past is None:
        return None
    new: list[dict[str, Any]] = [{"kind": "account", "who": look[0], "twin": look[1]}]
    for slots, out in ((lambda: _past_slots(pool, used), past), (lambda: _new_slots(past), new)):
        for kind, test, fallback in slots():
            item = _draw(rng, pool, used, kind, test, fallback, copy)
            if item is None:
                return None
            out.append(item)
    # a key account's cancellation goes to its owner: two forwards to one owner could not be told apart
    owners = [i["who"]["owner"] for i in new if forwarded(i["kind"], i["who"])]
    if len(set(owners)) != len(owners):
        return None
    if not _on_slack(seed, [i["who"] for i in [*past, *new]]):
        return None
    for e in past:
        e.update(replied=answered(e["kind"], e["who"]), forwarded=forwarded(e["kind"], e["who"]),
                 cc=copied(e["kind"], e["who"]), posted=forwarded(e["kind"], e["who"]))
    if unruled(past, new):
        return None
    messages = _plant(seed, rng, past, new)
    if {m["id"] for m in messages} & {m["id"] for m in gmail["messages"]} or len({m["id"] for m in messages}) != len(messages):
        return None
    channel = next(c for c in world("slack", seed)["channels"] if c["name"] == ESCALATIONS)
    posts = [{"op": "add", "in": ["channels", channel["id"], "messages"],
              "value": {"ts": f"{unix(e['forward_at'][:19])}.{n:06d}", "user": world("slack", seed)["viewer"],
                        "text": _post_text(e["who"])}}
             for n, e in enumerate(sorted((e for e in past if e["posted"]), key=lambda e: e["forward_at"]), 1)]
    return _judged(seed, past, new, messages, posts, channel["id"])


def _on_slack(seed: int, people: list[Who]) -> bool:
    """Whether the seed's Slack world has #cs-escalations, the bot that posts there, and every key account's
    owner (whose handle a post mentions); each key account's ``owner_slack`` is set on the way."""
    try:
        slack = world("slack", seed)
    except Exception:  # the version-2 Slack generator fails on a few seeds: no case there  # noqa: BLE001
        return False
    channel = next((c for c in slack["channels"] if c["name"] == ESCALATIONS), None)
    if channel is None or slack["viewer"] not in channel["members"]:
        return False
    ids = {u["email"]: u["id"] for u in slack["users"] if u.get("email") and not u.get("deleted")}
    for c in people:
        if c["key"]:
            if c["owner"] not in ids:
                return False
            c["owner_slack"] = ids[c["owner"]]
    return True


def _post_text(w: Who) -> str:
    """The post that flags a cancellation (a customer who is not a key account has no owner to mention: the
    wrong readings that post theirs too)."""
    if not w["key"]:
        return f"Cancellation: {w['name']} asks to cancel at the end of the period."
    return (f"Cancellation: {w['name']} (key account) asks to cancel at the end of the period. "
            f"<@{w['owner_slack']}>, yours to call; I have forwarded you their email.")


def _plant(seed: int, rng: random.Random, past: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The handled conversations (February to 6 March: the question labelled and read, our answer or forward
    in its thread) and the new requests (9 to 13 March, unread, under Support only), in a shuffled order."""
    messages: list[dict[str, Any]] = []
    n = 0

    def when(day: str) -> str:
        nonlocal n
        n += 1
        return f"{day}T{7 + n % 10:02d}:{(n * 17) % 60:02d}:00Z"

    past_days = [f"2026-02-{d:02d}" for d in range(2, 28)] + [f"2026-03-0{d}" for d in range(1, 5)]
    days = sorted(rng.sample(past_days, len(past)))
    order = rng.sample(past, len(past))
    for day, e in zip(days, order, strict=True):
        w = e["who"]
        subject, text = rng.choice(ASKS[e["kind"]])
        subject = subject.format(n=e.get("invoice", {}).get("number", ""))
        text = f"Hello,\n\n{text.format(n=e.get('invoice', {}).get('number', ''))}\n\n{signature(w)}"
        q = _message(seed, f"past:{w['name']}", (w["email"], [PRIMARY], subject), text, when(day),
                     ["INBOX", "CATEGORY_PERSONAL", QUEUE["id"], LABELS[e["kind"]]["id"]])
        e.update(subject=subject, ids=[q["id"]])
        messages.append(q)
        later = f"{day[:8]}{int(day[8:]) + 1:02d}"
        if e["replied"]:
            messages.append(_message(seed, f"past-answer:{w['name']}", (PRIMARY, [w["email"]], f"Re: {subject}"),
                                     _answer_text(e["kind"], w["first"], w, e.get("invoice"), w["currency"]),
                                     when(later), ["SENT"], thread=q["id"], cc=e["cc"]))
        if e["forwarded"]:
            e["forward_at"] = when(later)
            messages.append(_message(seed, f"past-forward:{w['name']}", (PRIMARY, [w["owner"]], f"Fwd: {subject}"),
                                     _forward_text(w, subject), e["forward_at"], ["SENT"], thread=q["id"]))
    new_days = [f"2026-03-{d:02d}" for d in (9, 10, 11, 12, 13)]
    for e in rng.sample(new, len(new)):
        w = e["who"]
        subject, text = rng.choice(ASKS[e["kind"]])
        number = e.get("invoice", {}).get("number", "")
        q = _message(seed, f"new:{w['name']}", (w["email"], [PRIMARY], subject.format(n=number)),
                     f"Hello,\n\n{text.format(n=number)}\n\n{signature(w)}", when(rng.choice(new_days)),
                     ["INBOX", "UNREAD", "CATEGORY_PERSONAL", QUEUE["id"]])
        e.update(subject=q["subject"], ids=[q["id"]])
        messages.append(q)
    return messages


# -- judgement ---------------------------------------------------------------------------------------------

def _reply(item: dict[str, Any], *, who: Who | None = None, cc: list[str] | None = None) -> dict[str, Any]:
    w = who or item["who"]
    args: dict[str, Any] = {"to": [item["who"]["email"]], "subject": f"Re: {item['subject']}",
                            "body": _answer_text(item["kind"], item["who"]["first"], w, item.get("invoice"),
                                                 item["who"]["currency"]),
                            "threadId": item["ids"][0]}
    copy = copied(item["kind"], w) if cc is None else cc
    if copy:
        args["cc"] = copy
    return call("gmail__send_email", **args)


def _forward(item: dict[str, Any]) -> dict[str, Any]:
    w = item["who"]
    return call("gmail__send_email", to=[w["owner"]], subject=f"Fwd: {item['subject']}",
                body=_forward_text(w, item["subject"]), threadId=item["ids"][0])


def _labels(new: list[dict[str, Any]], label_of: Callable[[dict[str, Any]], str] | None = None) -> list[dict[str, Any]]:
    of = label_of or (lambda i: i["kind"])
    return [call("gmail__batch_modify_emails", messageIds=[i["ids"][0] for i in new if of(i) == kind],
                 addLabelIds=[LABELS[kind]["id"]], removeLabelIds=["UNREAD"])
            for kind in KINDS if any(of(i) == kind for i in new)]


def _sends(new: list[dict[str, Any]], answer: Callable[[str, Who], bool] = answered,
           forward: Callable[[str, Who], bool] = forwarded,
           cc: Callable[[str, Who], list[str]] = copied) -> list[dict[str, Any]]:
    """Every email the new requests get under the given rules, answers first (invoice questions lead)."""
    out = [_reply(i, cc=cc(i["kind"], i["who"])) for kind in KINDS for i in new
           if i["kind"] == kind and answer(kind, i["who"])]
    return out + [_forward(i) for i in new if forward(i["kind"], i["who"])]


def _post(item: dict[str, Any], channel: str) -> dict[str, Any]:
    return call("slack__post_message", channel_id=channel, text=_post_text(item["who"]))


def _judged(seed: int, past: list[dict[str, Any]], new: list[dict[str, Any]], messages: list[dict[str, Any]],
            slack_patch: list[dict[str, Any]], channel: str) -> dict[str, Any]:
    observed = _observed(past, messages, [p["value"] for p in slack_patch])
    if unruled(observed, new):
        raise ValueError(f"{ID}, seed {seed}: the handled conversations leave open {unruled(observed, new)}")
    discover = [
        call("gmail__list_email_labels"),
        call("gmail__search_emails", query="label:Support", maxResults=50),
        call("notion__search", query="Customer Accounts"),
        call("notion__query_database", database_id=crm_database_id(seed), page_size=100),
        *notion_user_reads(seed),
    ]
    reads = [call("gmail__get_thread", threadId=e["ids"][0]) for e in sorted(past, key=lambda e: e["ids"][0])]
    reads += [call("slack__search_messages", query=f"cancel in:#{ESCALATIONS}"), call("slack__get_users", limit=200)]
    lookups = []
    for i in new:
        if i["kind"] == "billing":
            lookups.append(call("stripe__search_invoices", query=f"number:'{i['invoice']['number']}'"))
        elif i["kind"] == "account" or (i["kind"] == "cancel" and not i["who"]["key"]):
            lookups.append(call("stripe__search_customers", query=f"email:'{i['who']['email']}'"))
    labels = _labels(new)
    sends = _sends(new)
    fourth = sends[3]
    check = call("gmail__get_thread", threadId=fourth["arguments"]["threadId"])
    posts = [_post(i, channel) for i in new if forwarded(i["kind"], i["who"])]
    reference = [*discover, *reads, *lookups, *labels, *sends[:4], check, *sends[4:], *posts]

    success: list[dict[str, Any]] = []
    frame: list[dict[str, Any]] = []
    for kind in KINDS:
        ids = [i["ids"][0] for i in new if i["kind"] == kind]
        success += [{"gmail.messageLabelApplied": {"message": m, "label": LABELS[kind]["name"]}} for m in ids]
        frame.append({"entity": "gmail.message", "ids": ids, "fields": ["label_ids"],
                      "values": {"label_ids": {"add": [LABELS[kind]["id"]], "remove": ["UNREAD", "INBOX", QUEUE["id"]]}}})
    for i in new:
        w = i["who"]
        if answered(i["kind"], w):
            success.append({"gmail.draftSent": {"to": w["email"]}})
            frame.append({"entity": "gmail.message", "change": ["create"], "where": {"to": [w["email"]], "cc": copied(i["kind"], w)},
                          "values": {"body": {"matches": _fact_pattern(i)}}, "max": 1})
        if forwarded(i["kind"], w):
            name = f"{re.escape(w['short'])}|{re.escape(w['name'])}"
            success.append({"gmail.draftSent": {"to": w["owner"], "body_pattern": both(name, CANCEL)}})
            frame.append({"entity": "gmail.message", "change": ["create"], "where": {"to": [w["owner"]]},
                          "values": {"body": {"matches": name}, "cc": {"add": []}}, "max": 1})
            success.append({"slack.messagePosted": {"channel": channel, "pattern": both(name, CANCEL)}})
    frame.append({"entity": "gmail.draft", "change": ["create", "update", "delete"], "max": 3 * len(sends)})
    frame.append({"entity": "slack.message", "change": ["create"], "where": {"channel": channel}, "max": len(posts)})

    # -- wrong solutions: each alternative convention, the lookalike, the blind resend, damage
    look = new[0]
    twin = look["twin"]
    writes = [*labels, *sends, *posts]
    wrong_look = [_reply(look, who=twin, cc=copied("account", twin)) if c is sends[_index(sends, look)] else c
                  for c in writes]
    key_cancel = next(i for i in new if forwarded(i["kind"], i["who"]))
    other_key = next(i for i in new if i["kind"] == "other" and i["who"]["key"])
    convs = conventions([*past, *new], past)
    wrongs: list[dict[str, Any]] = [
        {"why": f"answers {look['who']['name']}'s plan question with {twin['name']}'s plan and seats", "kind": "lookalike",
         "calls": wrong_look},
        {"why": f"does everything right and also answers {key_cancel['who']['name']}'s cancellation itself (a key "
                f"account's: it went to its owner in the earlier ones)", "kind": "collateral",
         "calls": [*writes, _reply(key_cancel, cc=[])]},
        {"why": f"answers {other_key['who']['name']}'s {other_key['subject']!r} too (other mail was never answered)",
         "kind": "other", "calls": [*writes, _reply({**other_key, "kind": "account"}, cc=[])]},
        {"why": "sends the fourth email again after it timed out, without looking: two answers", "kind": "other",
         "calls": [*writes, fourth]},
        {"why": "labels the cancellations Support/Account", "kind": "other",
         "calls": [*_labels(new, lambda i: "account" if i["kind"] == "cancel" else i["kind"]), *sends, *posts]},
        {"why": f"forwards the key accounts' cancellations but does not flag them in #{ESCALATIONS}", "kind": "other",
         "calls": [*labels, *sends]},
    ]
    seen: set[str] = set()
    for conv, key in (("answer", "answer"), ("forward", "forward"), ("copy", "cc"), ("escalate", "post")):
        kept = 0
        for alt, pred in convs[conv]["alternatives"].items():
            if kept == WRONG_READINGS:
                break
            calls = (_alternative_sends(new, key, pred) + posts if key != "post" else
                     sends + [_post(i, channel) for i in new if pred(i["kind"], i["who"])])
            text = repr(calls)
            if calls == [*sends, *posts] or text in seen:
                continue  # this reading predicts the same for every new request: nothing to tell apart
            seen.add(text)
            kept += 1
            wrongs.append({"why": f"follows another reading of the earlier ones: {alt}", "kind": "other",
                           "calls": [*labels, *calls]})

    per_message = [call("gmail__modify_email", messageId=i["ids"][0], addLabelIds=[LABELS[i["kind"]]["id"]],
                        removeLabelIds=["UNREAD", "INBOX"]) for i in new]
    draft_id = f"r-{len(world('gmail', seed)['drafts']) + 1}"

    def drafted(c: dict[str, Any]) -> list[dict[str, Any]]:
        return [call("gmail__draft_email", **c["arguments"]), call("gmail__send_draft", draftId=draft_id)]

    alternatives = [
        {"why": "labels message by message (marking each read and archiving it), writing in another order",
         "calls": [*discover, *per_message, *reversed(posts), *reversed(sends)]},
        {"why": f"flags both key accounts' cancellations in one post in #{ESCALATIONS}",
         "calls": [*labels, *sends, call("slack__post_message", channel_id=channel,
                                         text="\n".join(p["arguments"]["text"] for p in posts))]},
        {"why": "drafts each answer and forward before sending it, and takes the requests out of the Support label "
                "as it labels them",
         "calls": [*(call("gmail__batch_modify_emails", messageIds=c["arguments"]["messageIds"],
                          addLabelIds=c["arguments"]["addLabelIds"], removeLabelIds=["UNREAD", QUEUE["id"]])
                     for c in labels),
                   *(x for c in sends for x in drafted(c)), *posts]},
    ]
    gmail_patch = [*({"op": "add", "in": ["labels"], "value": v} for v in [QUEUE, *LABELS.values()]),
                   *({"op": "add", "in": ["messages"], "value": m} for m in messages)]
    return {
        "patch": {"gmail": gmail_patch, "notion": [], "slack": slack_patch, "stripe": []},
        "faults": MAILBOX_FAULTS,
        "frame": frame,
        "success": {"all": success},
        "reference": reference,
        "wrong": wrongs,
        "alternatives": alternatives,
        "max_steps": budget(len(reference), 1),
        "handled": len(past),
        "new": len(new),
    }


def _observed(past: list[dict[str, Any]], messages: list[dict[str, Any]],
              posts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The handled conversations as the planted mail and posts show them: whether our answer, a forward to the
    owner and whom the answer copied are in each thread, whether #cs-escalations has a post naming the
    customer."""
    out = []
    for e in past:
        w = e["who"]
        ours = [m for m in messages if m["thread_id"] == e["ids"][0] and m["sender"] == PRIMARY]
        answer = [m for m in ours if m["to"] == [w["email"]]]
        out.append({"kind": e["kind"], "who": w, "replied": bool(answer),
                    "forwarded": any(m["to"] == [w.get("owner")] for m in ours),
                    "cc": answer[0]["cc"] if answer else [],
                    "posted": any(w["name"] in p["text"] for p in posts)})
    return out


def _index(sends: list[dict[str, Any]], item: dict[str, Any]) -> int:
    return next(n for n, c in enumerate(sends) if c["arguments"].get("threadId") == item["ids"][0]
                and c["arguments"]["to"] == [item["who"]["email"]])


def _alternative_sends(new: list[dict[str, Any]], key: str, pred: Callable[[str, Who], bool]) -> list[dict[str, Any]]:
    if key == "answer":
        return _sends(new, answer=pred)
    if key == "forward":
        return _sends(new, forward=lambda k, c: pred(k, c) and bool(c["key"]),
                      answer=lambda k, c: k in ("billing", "account") or (k == "cancel" and not pred(k, c)))
    return _sends(new, cc=lambda k, c: [c["owner"]] if pred(k, c) and c["key"] else [])


GOAL = ("New requests keep coming in under my Support label: invoice and plan questions, cancellations, the odd "
        "thank-you. Please work through the ones nobody has handled yet, the way we have handled the earlier ones "
        "there.")
#: The backlog template's tools (mail, the CRM and finance's pages, Stripe's reads) and Slack's.
TOOLS = [*MAILBOX_TOOLS, "slack__list_channels", "slack__get_channel_history", "slack__get_thread_replies",
         "slack__search_messages", "slack__get_users", "slack__get_user_profile", "slack__post_message",
         "slack__reply_to_thread"]
CASES = 10


def build() -> dict[str, Any]:
    found = cases(lambda s: case_of(s) or None, want=CASES)
    return template(id=ID, version=1, servers=SERVERS, difficulty="hard", category="recovery", case_list=found,
                    task=body(GOAL, SERVERS, TOOLS, timeout_s=1800, faults="{{case.faults}}"))
