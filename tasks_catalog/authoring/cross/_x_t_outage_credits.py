"""The team's past outage credits for x-t-outage-credit-asks: every service credit the ledger already holds
for an incident before March, and some asks the policy then in force refused, each asked for by email and
answered from Priya's mailbox, and the one habit those answers show that no policy page states.

Private to that template (a leading underscore keeps it out of :func:`modules`). The convention: an answer
to a customer whose account the CRM (Notion's Customer Accounts) places in North America copies the Sales
director, North America; every other answer copies nobody beyond the account owner the customer's own
thread copied. A copy shows only in a message's ``cc``, which ``gmail__search_emails`` does not return: it is
seen by opening the answered asks (``gmail__get_thread``, ``gmail__read_email``), and only 2-5 of 10-16 show
it. :data:`CC_ALTERNATIVES` holds the readings a person might form of when to copy; :func:`convention_holds`
keeps a case only when each is contradicted by some past answer or copies exactly the new answers the
convention copies.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from tasks_catalog.authoring.cross import world
from tasks_catalog.authoring.cross._x_t_billing import hex_id, money

#: The region whose customers' answers copy the regional sales director, and that director's title.
REGION = "North America"
DIRECTOR = "Sales director, North America"
#: How many past answered asks a case shows (at least), and how many of them may carry the copy.
EXAMPLES = 12
MOST = 16
COPIED = range(2, 6)
SIGNATURE = "\n\nBest regards,\nPriya Raman\nOperations manager, Kestrel Freight Systems"


def crm(seed: int) -> tuple[str, dict[str, dict[str, Any]]]:
    """The Customer Accounts database id and its rows' properties by Stripe customer id."""
    notion = world("notion", seed)
    db = next(d for d in notion["databases"] if d["title"] == "Customer Accounts")
    rows = {p["properties"]["Stripe customer"]: {**p["properties"], "title": p["title"]}
            for p in notion["pages"] if p.get("parent_id") == db["id"] and not p.get("archived")}
    return db["id"], rows


def director(o) -> Any | None:
    """The one Sales director, North America, working here from October 2025 to today, or None."""
    found = [e for e in o.employees if e.title == DIRECTOR]
    if len(found) != 1 or not all(found[0].employed_on(d) for d in ("2025-10-01", "2026-03-16")):
        return None
    return found[0]


def owner_on(o, c, day: str):
    """Whom a customer's own email copied on ``day``: its account owner then (their manager once they left),
    as the world's threads do."""
    person = o.employee(c.owner)
    return person if person.employed_on(day[:10]) else o.employee(person.manager)


def features(c, row: dict[str, Any], stripe_customer: dict[str, Any], owner: str) -> dict[str, Any]:
    """What a reader can see of a customer when guessing why an answer was copied."""
    return {"name": c.short, "region": row["Region"], "plan": row["Plan"], "stripe_plan":
            (stripe_customer.get("metadata") or {}).get("plan"), "currency": c.currency,
            "tld": c.domain.rsplit(".", 1)[-1], "owner": owner, "arr": row["ARR"], "emea": row["Region"] == "EMEA"}


def _day(iso: str) -> str:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).strftime("%-d %B %Y")


def _iso(ts: int) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _shift(iso: str, seconds: int) -> str:
    return _iso(int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()) + seconds)


def past_examples(w, rng, x, rows: dict[str, dict[str, Any]],  # noqa: C901, PLR0912, PLR0915 - one mailbox
                  avoid: set[str]) -> list[dict[str, Any]] | None:
    """The answered asks of a seed: one per service credit refunded before March (its ask the customer's
    world thread when it has one, else a planted one), then refusals by the version then in force (asks
    from customers of incidents that version gives nothing for) until there are :data:`EXAMPLES`, with
    2-5 of them North American; each with the Gmail messages to plant (``plant``) and its ``cc``. None
    when the world does not allow it."""
    o = w.o
    policy = o.policy("refund")
    by_number = {i.number: i for i in o.incidents}
    by_stripe = {c.stripe_id: c for c in o.customers if c.stripe_id}
    taken = {m["id"] for m in w.gmail["messages"]}
    examples: list[dict[str, Any]] = []

    def example(c, inc, outcome: str, **facts: Any) -> dict[str, Any] | None:
        row = rows.get(c.stripe_id)
        s = w.by_stripe.get(c.stripe_id)
        if row is None or s is None or c.duplicate_of or c.group:
            return None
        contact = c.contact("operations", inc.started)
        owner = owner_on(o, c, inc.started)
        e = {"key": c.key, "incident": inc.number, "severity": inc.severity, "outcome": outcome,
             "email": contact.email, "first": contact.first, "contact": contact, "owner_email": owner.email,
             "c": c, **features(c, row, s, owner.key), **facts}
        e["cc"] = [owner.email, x.email] if e["region"] == REGION else [owner.email]
        return e

    credits = sorted((r for r in w.stripe["refunds"] if "incident" in (r.get("metadata") or {})
                      and _iso(r["created"]) < "2026-03-01"), key=lambda r: r["created"])
    for r in credits:
        c = by_stripe.get(w.charged.get(r["charge"]))
        inc = by_number.get(int(r["metadata"]["incident"]))
        if c is None or inc is None or not inc.resolved:
            return None
        e = example(c, inc, "credited", amount=r["amount"], money=money(r["amount"], c.currency),
                    refunded=_iso(r["created"]))
        if e is not None:  # a customer of a group, or with a duplicate record: its ask is not in the mailbox
            examples.append(e)
    if len({(e["key"], e["incident"]) for e in examples}) != len(examples):
        return None
    # refusals: listed customers of an incident the version then in force gives nothing for, and customers
    # the postmortem of an earlier incident does not list (not affected) who claimed it
    listed, claims = [], []
    hit = {k for i in o.incidents for k in i.customers}
    past = [i for i in o.incidents if i.started < "2026-03-01" and i.resolved and i.customers]
    for inc in past:
        if policy.version_on(inc.started).facts.get(f"credit_{inc.severity.lower()}", 0):
            continue
        for key in inc.customers:
            e = example(o.customer(key), inc, "refused")
            if e is not None:
                listed.append(e)
    credited_incidents = [i for i in past if any(e["incident"] == i.number for e in examples)]
    for c in o.customers:
        if c.key in hit or c.status != "Active" or not credited_incidents:
            continue
        e = example(c, rng.choice(credited_incidents), "not_listed")
        if e is not None:
            claims.append(e)
    rng.shuffle(listed)
    rng.shuffle(claims)
    pool = [e for e in listed + claims if e["key"] not in avoid]
    want = rng.choice((2, 3))
    # one North American answer that credits nothing, so that the copy is not read as the credit's
    if not any(x["region"] == REGION and x["outcome"] != "credited" for x in examples):
        first = next((e for e in pool if e["region"] == REGION), None)
        if first is not None:
            examples.append(first)
    for e in pool:
        north = sum(x["region"] == REGION for x in examples)
        seen = {(x["key"]) for x in examples}
        if e["key"] in seen:
            continue
        if e["region"] == REGION:
            if north < want:
                examples.append(e)
        elif len(examples) - north < EXAMPLES - want:
            examples.append(e)
    # an answer that copies nobody beside each reading still fitting (a claim on the copied incident, a
    # refusal like the copied one, a customer with the copied currency or domain ending...), while there is one
    for reading in CC_ALTERNATIVES.values():
        if not isinstance(reading, _CopyWhen) or not reading(examples) or len(examples) >= MOST:
            continue
        copied = {x[reading.field] for x in examples if x["region"] == REGION}
        seen = {x["key"] for x in examples}
        found = next((e for e in pool if e["region"] != REGION and e[reading.field] in copied
                      and e["key"] not in seen), None)
        if found is not None:
            examples.append(found)
    north = sum(x["region"] == REGION for x in examples)
    if len(examples) < EXAMPLES - 2 or north not in COPIED or len(examples) - north < 6:
        return None
    for n, e in enumerate(examples):
        if not _plant(w, e, by_number[e["incident"]], taken, n, rng):
            return None
    examples.sort(key=lambda e: e["answered"])
    return examples


def _plant(w, e: dict[str, Any], inc, taken: set[str], n: int, rng) -> bool:
    """The messages of example ``e``: the customer's ask (their world thread's when it has one) and Priya's
    answer in its thread, copying whom the convention copies."""
    c, contact = e["c"], e["contact"]
    day = _day(inc.started)
    own = w.thread(c, contact.email, inc.started)
    asked = (len(own) == 3 and own[0]["date"][:10] == inc.started[:10] and "service credit" in own[-1]["body"])
    mids = [hex_id("x-t-outage-credit-asks", "past", w.seed, e["key"], e["incident"], k) for k in (0, 1)]
    if any(m in taken for m in mids):
        return False
    taken.update(mids)
    plant: list[dict[str, Any]] = []
    if asked:
        thread, subject, ask_date = own[0]["thread_id"], f"Re: {own[0]['subject']}", own[-1]["date"]
    else:
        thread, subject = mids[0], f"Service credit for the outage of {day}"
        ask_date = _shift(inc.resolved, 3600 * rng.randint(20, 40))
        plant.append({"id": mids[0], "thread_id": thread, "sender": contact.email, "to": [w.gmail["address"]],
                      "cc": [e["owner_email"]], "subject": subject,
                      "body": (f"Hello Priya,\n\nyour outage of {day} held up our deliveries for most of it. Are we "
                               f"entitled to a service credit for it?\n\nBest regards,\n{contact.first} {contact.last}"
                               f"\n{contact.title}, {c.name}"),
                      "date": ask_date, "label_ids": ["INBOX", "CATEGORY_PERSONAL"]})
        subject = f"Re: {subject}"
    if e["outcome"] == "credited":
        if e["refunded"] <= ask_date:
            return False
        answered = _shift(e["refunded"], 60 * rng.randint(20, 180))
        text = (f"yes: incident {inc.number} on {day} gives you a service credit under our refund and service "
                f"credit policy. We refunded {e['money']} on {_day(e['refunded'])}.")
    elif e["outcome"] == "refused":
        answered = _shift(ask_date, 60 * rng.randint(90, 600))
        text = (f"incident {inc.number} on {day} was a {inc.severity} incident, and the version of our refund and "
                f"service credit policy in force that day gives no service credit for it, so there is nothing we "
                f"can refund for it.")
    else:
        answered = _shift(ask_date, 60 * rng.randint(90, 600))
        text = (f"the postmortem of incident {inc.number} on {day} does not list your company among the customers "
                f"it affected, and our refund and service credit policy gives a service credit only for an incident "
                f"that affected the customer, so there is nothing we can refund for it.")
    if answered >= "2026-03-01":
        return False
    plant.append({"id": mids[1], "thread_id": thread, "sender": w.gmail["address"], "to": [contact.email],
                  "cc": e["cc"], "subject": subject, "body": f"Hello {contact.first},\n\n{text}{SIGNATURE}",
                  "date": answered, "label_ids": ["SENT"]})
    e.update(thread=thread, answered=answered, plant=plant)
    return True


class _CopyWhen:
    """The reading "copy when ``field`` is one of the values the copied answers have": it fits the examples
    when no answer without the copy shares such a value, and then copies a new answer exactly when its value
    is one of them."""

    def __init__(self, field: str) -> None:
        self.field = field

    def _values(self, examples: list[dict[str, Any]]) -> set[Any]:
        return {e[self.field] for e in examples if len(e["cc"]) > 1}

    def __call__(self, examples: list[dict[str, Any]]) -> bool:
        return not any(e[self.field] in self._values(examples) for e in examples if len(e["cc"]) == 1)

    def predicts(self, examples: list[dict[str, Any]], item: dict[str, Any]) -> bool | None:
        return item[self.field] in self._values(examples) if self.field in item else None


class _Above:
    """The reading "copy when ``field`` (the account's ARR) is above some amount": it fits when every copied
    answer's value is above every other's; between the two, the examples do not say (None)."""

    def __init__(self, field: str) -> None:
        self.field = field

    def __call__(self, examples: list[dict[str, Any]]) -> bool:
        copied = [e[self.field] for e in examples if len(e["cc"]) > 1]
        plain = [e[self.field] for e in examples if len(e["cc"]) == 1]
        return bool(copied) and (not plain or max(plain) < min(copied))

    def predicts(self, examples: list[dict[str, Any]], item: dict[str, Any]) -> bool | None:
        low = min(e[self.field] for e in examples if len(e["cc"]) > 1)
        high = max((e[self.field] for e in examples if len(e["cc"]) == 1), default=None)
        value = item[self.field]
        return True if value >= low else False if high is not None and value <= high else None


#: This month's outcomes that credit (a refund now) and that do not (nothing, or not yet decided); telling a
#: customer of a credit to come or of one already refunded is neither, for a reader of the past answers.
CREDITS_NOW = {"grant": True, "none_unlisted": False, "none_sev3": False, "wait_resolve": False}


class _OnlyWhen:
    """The reading "copy a North American customer's answer only when it credits" (or only when it does not):
    it fits when no copied past answer is of the other kind, and then copies a new answer of a North American
    customer whose outcome is of its kind (an outcome of neither kind: None, the examples do not say)."""

    def __init__(self, *, credited: bool) -> None:
        self.credited = credited

    def __call__(self, examples: list[dict[str, Any]]) -> bool:
        return not any(len(e["cc"]) > 1 and (e["outcome"] == "credited") != self.credited for e in examples)

    def predicts(self, examples: list[dict[str, Any]], item: dict[str, Any]) -> bool | None:
        if item["region"] != REGION:
            return False
        kind = CREDITS_NOW.get(item["outcome"])
        return None if kind is None else kind == self.credited


#: When to copy the director, as a reader of the past answers might guess it. Each must be contradicted by
#: some past answer, or copy exactly the new answers the convention copies (a reading of the incident or of
#: the outcome cannot be carried over to this month's asks, so those must be contradicted). "Copy the
#: customers copied before" is not a reading of a habit: the copies go to 2-5 different customers who share
#: the region the copied director's title names and nothing else a reader can see.
CC_ALTERNATIVES: dict[str, Callable[[list[dict[str, Any]]], bool]] = {
    "always": lambda examples: all(len(e["cc"]) > 1 for e in examples),
    "never": lambda examples: not any(len(e["cc"]) > 1 for e in examples),
    "by the currency": _CopyWhen("currency"),
    "by the CRM plan": _CopyWhen("plan"),
    "by the Stripe plan": _CopyWhen("stripe_plan"),
    "by the email domain's country code": _CopyWhen("tld"),
    "by the account owner": _CopyWhen("owner"),
    "outside EMEA": _CopyWhen("emea"),
    "above an ARR": _Above("arr"),
    "by the incident": _CopyWhen("incident"),
    "by the incident's severity": _CopyWhen("severity"),
    "by the outcome (credited or refused)": _CopyWhen("outcome"),
    "North American customers, only when credited": _OnlyWhen(credited=True),
    "North American customers, only when not credited": _OnlyWhen(credited=False),
}


def convention_holds(examples: list[dict[str, Any]], new: list[dict[str, Any]]) -> bool:
    """Whether the examples fit the convention, and every other reading is contradicted by an example or
    copies exactly the new answers (``new``: each with the features and ``copied``) that the convention does."""
    if any((len(e["cc"]) > 1) != (e["region"] == REGION) for e in examples):
        raise ValueError("a past answer does not follow the convention")
    for name, reading in CC_ALTERNATIVES.items():
        if not reading(examples):
            continue
        if name in ("always", "never"):
            if any(it["copied"] != (name == "always") for it in new):
                return False
            continue
        predict = getattr(reading, "predicts", None)
        if predict is None or any(predict(examples, it) != it["copied"] for it in new):
            return False
    return True
