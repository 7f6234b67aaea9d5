"""x-t-outage-credit-asks: this month's service credit requests, by email to Priya and through account
owners in #cs-escalations, each settled by the refund and service credit policy version in force on the
incident's start day.

Hard; Gmail, Notion, Slack and Stripe. Planted: a new version of the refund and service credit policy,
effective 1 March 2026 (Notion's current page; the February version moves under Superseded; its
announcement in Gmail): service credits for incidents from 1 March follow how long the incident lasted
by its postmortem (none under 30 minutes, a lower percentage up to a boundary, a higher one beyond),
of the customer's subscription invoice for that month, capped per currency, refunded on the charge that
paid the invoice or waiting until it is paid, only for the customers the postmortem lists, decided once
the incident is resolved. The requests (the set no single search lists):
- the world's own: the first two customers of every March SEV1/SEV2 incident asked by email whether
  they get a service credit ("Delayed shipments to ..."): those of the resolved incident are decided by
  its duration and their March invoice (credit, wait for payment, or none under 30 minutes); those of
  the incident still monitored wait for its resolution;
- ``dup``: one of them asked again through their account owner in #cs-escalations: one credit, both
  requests answered;
- ``relay``: another customer the postmortem lists, through their account owner, without the word
  "credit": credited;
- ``extra`` (where the world has one more listed customer): by email from their billing contact,
  without the word "credit": credited, or waiting for payment;
- ``already``: a customer of a February SEV1/SEV2 incident writes that they never got their credit (on the
  past answer that told them of it, where the mailbox has one): it was refunded (Stripe) and they are told
  when;
- ``sev3`` (where the world has one): a customer of a February SEV3 incident that lasted over 30
  minutes follows up on its February thread citing the new terms: the February version applies (none
  for SEV3); reading the March terms for it would credit it;
- ``unlisted``: a customer the postmortem does not list claims the March outage hit them: none.
The second refund answers ``timeout_after_commit`` (it applied: a blind retry duplicates), the second
email ``unavailable`` (it did not: retry).

Version 2 adds the team's past outage credits and a habit no page states (``_x_t_outage_credits``): 12-14
past credit asks answered from Priya's mailbox (every credit refunded before March, refusals by the version
then in force, claims the postmortem did not list), whose answers to North American customers (the region in
Customer Accounts), and only those, copy the Sales director, North America. The copy shows only in the
``cc`` of an opened message, in 2-5 of the answers. This month's emailed answers copy the director exactly
for the North American customers (2-3 per case; the unlisted, ``extra``, ``already`` and ``sev3`` customers are
drawn from North America first, and a second unlisted one, ``unlisted2``, writes where one more is needed);
the frame bounds each answer's ``cc`` (the director exactly when the convention copies, the account owner as a
reply to all). The goal asks for answers "the way we have answered
credit requests before"; the written policy still decides every amount and refusal.

Version 3 makes the success need every answer: each emailed answer's clause asks for what Priya's earlier mail to
that address does not say (``_answered``), each reply in #cs-escalations for its own customer's credit amount
(``_given``; and whom it names where both credits are one amount), each asserted false on the initial state.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from itertools import combinations, permutations
from typing import Any

from tasks_catalog.authoring.cross import budget, cases, org, template, world
from tasks_catalog.authoring.cross._x_t_billing import (
    GMAIL_TOOLS,
    NOTION_READ,
    SLACK_TOOLS,
    STRIPE_READ,
    case_task,
    hex_id,
    money,
    notion_page,
    rng_for,
    slack_channel,
    uuid_of,
)
from tasks_catalog.authoring.cross._x_t_outage_credits import (
    REGION,
    convention_holds,
    crm,
    director,
    features,
    owner_on,
    past_examples,
)

ID = "x-t-outage-credit-asks"
#: The most a service credit may be under the March version, per currency (smallest unit).
CAP = {"eur": 25_000, "usd": 27_000, "gbp": 21_500, "cad": 37_000, "jpy": 40_000}
CAP_TEXT = "250 EUR, 270 USD, 215 GBP, 370 CAD or 40,000 JPY"
MIN_MINUTES = 30
MARCH = "2026-03-01"
FEB = "2026-02-01"
#: A reply's subject: the request's own (shipments, outage, invoice) or one of the agent's about the credit.
SUBJECT = "hipments|utage|redit|ncident|equest|efund|olicy|nvoice"
#: What an emailed answer says that the mail Priya sent these customers before does not: the credit, the refund,
#: the policy, the invoice ("Sorry about this. We had an incident ..." says none of them; "incident" and "outage"
#: are not enough, as it says "incident"). An address Priya has already written about a credit gets a sharper
#: clause (:func:`_answered`).
CREDITED = "redit|efund|olicy|ompensat|nvoice"
#: The words a reply in #cs-escalations says beside the amount it gives (the channel's own messages speak of
#: invoices and credits, never with the amount).
REPLY_WORDS = "redit|efund|olicy|nvoice|March|back|paid|Stripe"


def _at(iso: str) -> datetime:
    return datetime.fromisoformat(iso.replace("Z", "+00:00"))


def _minutes(start: str, end: str | None) -> int:
    if end is None:
        raise ValueError(f"the incident that started at {start} is not resolved")
    return int((_at(end) - _at(start)).total_seconds() // 60)


def _spoken(iso: str) -> str:
    return _at(iso).strftime("%-d %B")


def _unix(iso: str) -> int:
    return int(_at(iso).timestamp())


def _amount(amount: int, currency: str) -> str:
    """A pattern for ``amount`` (smallest unit) however it is written: ``250``, ``250.00``, ``250,00``,
    ``€250``, ``58.8``, ``40,000``; the currency is left to the writer."""
    whole, cents = (amount, 0) if currency == "jpy" else divmod(amount, 100)
    digits = f"{whole // 1000}[,. ]?{whole % 1000:03d}" if whole >= 1000 else str(whole)
    if cents == 0:
        return rf"\b{digits}(?![0-9])(?![.,]0*[1-9])"
    tail = f"{cents // 10}0?" if cents % 10 == 0 else f"{cents:02d}"
    return rf"\b{digits}[.,]{tail}(?![0-9])"


def _apart(a: dict, b: dict) -> bool:
    """Whether the amounts credited to ``a`` and ``b`` are told apart by :func:`_amount` (not 250 EUR and 250 USD)."""
    return not re.search(_amount(a["amount"], a["currency"]), b["money"]) and not re.search(
        _amount(b["amount"], b["currency"]), a["money"])


def _given(amount: int, currency: str) -> str:
    """A reply in #cs-escalations that gives ``amount``, beside a word about the credit (either order)."""
    words, number = f"(?:{REPLY_WORDS})", _amount(amount, currency)
    return rf"{words}(?:.|\n)*{number}|{number}(?:.|\n)*{words}"


def _answered(it: dict, duration: int, before: list[dict]) -> str | None:
    """The body an emailed answer to ``it`` must match, which none of ``before`` (what Priya sent the address
    before) does: the credit's words, or where she has written to them about a credit already, what only this
    answer says (this month's invoice, March, the percentage or duration of a grant; where the credit the
    customer cannot find went). None when nothing is left that only the answer says (the case is drawn again)."""
    pct = it.get("pct")
    month = (rf"nvoice|March|\bMar\b|2026-03|03/2026|{pct}%|{pct} %|{pct} per|{duration} min|lasted|minutes|hour"
             rf"|duration|capped|maximum|ncident {it['incident']}")
    sharper = {
        "grant": month,
        "wait_pay": rf"{month}|unpaid|paid\b|open\b|outstanding",
        "already": rf"nvoice|\bcharge|card|paid\b|payment|ccount|bank|statement|Stripe|check|confirm|found|look"
                   rf"|appear|show|visible|receiv|already|was refunded|been refunded|efund of|efund was|went|days"
                   rf"|earlier|again|apolog|sorry|back to|original|{it.get('charge')}",
    }
    for pattern in (CREDITED, sharper.get(it["outcome"])):
        if pattern is not None and not any(re.search(pattern, m["body"]) for m in before):
            return pattern
    return None


def _span(minutes: int) -> str:
    if minutes % 60 == 0:
        return f"{minutes // 60} hour{'s' if minutes > 60 else ''}"
    return f"{minutes} minutes"


class _World:
    """The worlds of one seed as the agent sees them, and the lookups the template needs."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.o = org(seed)
        self.stripe = world("stripe", seed)
        self.gmail = world("gmail", seed)
        self.slack = world("slack", seed)
        self.by_stripe = {c["id"]: c for c in self.stripe["customers"]}
        self.refunds: dict[str, list[dict]] = {}
        for r in self.stripe["refunds"]:
            self.refunds.setdefault(r["charge"], []).append(r)
        self.users = {u.get("email"): u for u in self.slack["users"] if not u.get("deleted")}
        self.charged = {ch["id"]: ch["customer"] for ch in self.stripe["charges"]}
        self.crm_id, self.crm = crm(seed)
        self.director = director(self.o)

    def north(self, c) -> bool:
        """Whether the CRM places the customer's account in North America."""
        return self.crm.get(c.stripe_id, {}).get("Region") == REGION

    def plain(self, c) -> bool:
        """A customer whose name finds one Stripe customer and who is billed monthly, on one record."""
        if (c.stripe_id not in self.by_stripe or c.annual or c.group or c.duplicate_of or c.status == "Churned"
                or any(x.duplicate_of == c.key for x in self.o.customers)):
            return False
        hits = [s for s in self.stripe["customers"] if c.short.lower() in s["name"].lower()]
        return len(hits) == 1

    def invoice(self, c, month: str) -> dict | None:
        found = [i for i in self.stripe["invoices"] if i["customer"] == c.stripe_id
                 and (i.get("description") or "").endswith(month)]
        return found[0] if len(found) == 1 else None

    def paying(self, inv: dict) -> dict | None:
        found = [ch for ch in self.stripe["charges"] if ch["invoice"] == inv["id"] and ch["status"] == "succeeded"]
        return found[0] if len(found) == 1 else None

    def thread(self, c, contact_email: str, since: str) -> list[dict]:
        """The world's "Delayed shipments" thread of ``c`` begun on or after ``since``, oldest first."""
        subject = f"Delayed shipments to {c.short}"
        first = [m for m in self.gmail["messages"] if m["subject"] == subject and m["sender"] == contact_email
                 and m["date"] >= since[:10]]
        if not first:
            return []
        tid = min(first, key=lambda m: m["date"])["thread_id"]
        return sorted((m for m in self.gmail["messages"] if m["thread_id"] == tid), key=lambda m: m["date"])

    def owner(self, c):
        e = self.o.employee(c.owner)
        return e if e.employed_on("2026-03-16") and e.email in self.users else None


def _policy_text(low: int, high: int, boundary: int) -> tuple[str, str]:
    """The March version's two new paragraphs: the credit by duration, and the cap with the approval rule."""
    credit = (f"Service credits for an incident that started on or after 1 March 2026 follow how long it lasted, "
              f"from its start to its resolution as its postmortem records them: under {MIN_MINUTES} minutes, no "
              f"credit; from {MIN_MINUTES} minutes up to {_span(boundary)}, {low}% of the month's subscription "
              f"invoice; {_span(boundary)} or longer, {high}%. The severity no longer matters. Only the customers "
              f"the postmortem lists as affected get a credit, one per customer and incident, decided once the "
              f"incident is resolved. The month's subscription invoice is the customer's subscription invoice for "
              f"the month the incident started; the credit is refunded on the charge that paid it, and waits until "
              f"that invoice is paid if it is not yet. An incident that started earlier follows the version in "
              f"force on its start day.")
    cap = (f"A service credit is at most {CAP_TEXT}, in the customer's currency. A refund or credit above 500 EUR "
           f"(or its equivalent) needs the approval of a finance approver.")
    return credit, cap


def case_of(seed: int) -> dict[str, Any] | None:  # noqa: C901, PLR0912, PLR0915 - one world, many checks
    w = _World(seed)
    o = w.o
    rng = rng_for(ID, seed)
    refund_policy = o.policy("refund")
    feb_version = refund_policy.version_on("2026-02-15")
    march = [i for i in o.incidents if i.started >= MARCH]
    resolved = [i for i in march if i.resolved]
    if len(resolved) != 1:
        return None
    inc = resolved[0]
    duration = _minutes(inc.started, inc.resolved)
    if duration < MIN_MINUTES + 10 or not inc.customers:
        return None
    choices = [b for b in (60, 90, 120, 180, 240) if abs(b - duration) >= 12]
    boundary = rng.choice(choices)
    low, high = rng.choice((10, 15)), rng.choice((20, 25, 30))
    pct = low if duration < boundary else high

    items: list[dict[str, Any]] = []
    used: set[str] = set()

    def customer_item(c, role: str, channel: str) -> dict[str, Any]:
        s = w.by_stripe[c.stripe_id]
        return {"role": role, "channel": channel, "key": c.key, "short": c.short, "name": c.name,
                "customer": s["id"], "currency": c.currency}

    def march_outcome(item: dict, c) -> bool:
        """Decide a listed customer of the resolved March incident; False when the world leaves it unclear."""
        inv = w.invoice(c, "March 2026")
        if inv is None or inv["status"] not in ("paid", "open"):
            return False
        total = sum(line["amount"] for line in inv["lines"])
        item.update(incident=inc.number, invoice=inv["id"], number=inv["number"], total=total, pct=pct)
        amount = total * pct // 100
        item["amount"] = min(amount, CAP[c.currency])
        item["capped"] = amount > CAP[c.currency]
        item["money"] = money(item["amount"], c.currency)
        if inv["status"] == "open":
            item["outcome"] = "wait_pay"
            return True
        ch = w.paying(inv)
        if ch is None or ch["id"] in w.refunds:
            return False
        item["outcome"] = "grant"
        item["charge"] = ch["id"]
        feb = w.invoice(c, "February 2026")
        feb_ch = w.paying(feb) if feb and feb["status"] == "paid" else None
        item["feb_charge"] = feb_ch["id"] if feb_ch and feb_ch["id"] not in w.refunds else None
        sev = feb_version.facts.get(f"credit_{inc.severity.lower()}", 0)
        item["stale_amount"] = total * sev // 100
        return True

    # The world's requests: the first two customers of each March SEV1/SEV2 incident ask by email.
    asked: list[dict] = []
    for i in march:
        if not refund_policy.version_on(i.started).facts.get(f"credit_{i.severity.lower()}", 0):
            continue
        for key in i.customers[:2]:
            c = o.customer(key)
            if not w.plain(c) or key in used:
                return None
            contact = c.contact("operations", i.started)
            thread = w.thread(c, contact.email, i.started)
            if len(thread) != 3 or "service credit" not in thread[-1]["body"]:
                return None
            item = customer_item(c, "asked", "gmail")
            item.update(email=contact.email, first=contact.first, thread=thread[0]["thread_id"],
                        subject=thread[0]["subject"], incident=i.number)
            if i.resolved:
                if not march_outcome(item, c):
                    return None
            else:
                item["outcome"] = "wait_resolve"
                inv = w.invoice(c, "March 2026")
                ch = w.paying(inv) if inv and inv["status"] == "paid" else None
                item["charge"] = ch["id"] if ch else None
            used.add(key)
            asked.append(item)
    # Nothing else this month asks for a credit in the mailbox.
    mine = {it["thread"] for it in asked}
    if any(m["date"] >= MARCH and "credit" in m["body"].lower() and m["thread_id"] not in mine
           for m in w.gmail["messages"]):
        return None
    items += asked
    grants = [it for it in asked if it["outcome"] == "grant"]
    if not grants:
        return None
    # Listed customers of the resolved incident who did not write.
    rest = []
    for key in inc.customers[2:]:
        c = o.customer(key)
        if key in used or not w.plain(c) or w.owner(c) is None:
            continue
        item = customer_item(c, "relay", "slack")
        if march_outcome(item, c):
            rest.append((c, item))
    # the customer who asks twice and the relay are credited different amounts where the world allows it, so
    # that each reply in #cs-escalations is told by its amount (else by whom it names: _judge)
    told = [g for g in grants if any(it["outcome"] == "grant" and _apart(g, it) for _, it in rest)]
    dup = rng.choice(told or grants)
    relay = next(((c, it) for c, it in rest if it["outcome"] == "grant" and _apart(dup, it)), None) or next(
        ((c, it) for c, it in rest if it["outcome"] == "grant"), None)
    if relay is None or w.owner(o.customer(dup["key"])) is None:
        return None
    items.append(relay[1])
    used.add(relay[0].key)
    # this month's emailed asks include North American customers where the world has them (the copy's cases)
    rest.sort(key=lambda ci: not w.north(ci[0]))
    extra = next(((c, it) for c, it in rest if c.key not in used), None)
    if extra is not None:
        c, it = extra
        contact = c.contact("billing", "2026-03-16")
        it.update(role="extra", channel="gmail", email=contact.email, first=contact.first, last=contact.last,
                  title=contact.title)
        items.append(it)
        used.add(c.key)
    # A February SEV1/SEV2 customer whose credit the ledger already holds.
    feb_inc = [i for i in o.incidents if FEB <= i.started < MARCH and i.resolved]
    hit_march = {k for i in march for k in i.customers}
    candidates = []
    for i in feb_inc:
        if not feb_version.facts.get(f"credit_{i.severity.lower()}", 0):
            continue
        for key in i.customers:
            c = o.customer(key)
            if key in used or key in hit_march or not w.plain(c) or c.stripe_id not in w.crm:
                continue
            if sum(1 for j in feb_inc if key in j.customers) != 1:
                continue
            credit = [r for r in w.stripe["refunds"] if r.get("metadata", {}).get("incident") == str(i.number)
                      and w.charged.get(r["charge"]) == c.stripe_id]
            if len(credit) == 1:
                r = credit[0]
                it = customer_item(c, "already", "gmail")
                it.update(outcome="already", incident=i.number, incident_day=i.started, charge=r["charge"],
                          refunded=datetime.fromtimestamp(r["created"], UTC).strftime("%-d %B"),
                          money=money(r["amount"], c.currency))
                candidates.append((c, it))
    candidates.sort(key=lambda ci: not w.north(ci[0]))
    if not candidates:
        return None
    already = candidates[0][1]
    items.append(already)
    used.add(already["key"])
    # A February SEV3 customer (who wrote about it then) citing the new terms.
    sev3s = []
    for i in feb_inc:
        if i.severity != "SEV3" or _minutes(i.started, i.resolved) < MIN_MINUTES + 5:
            continue
        for key in i.customers[:2]:
            c = o.customer(key)
            if key in used or key in hit_march or not w.plain(c) or c.stripe_id not in w.crm:
                continue
            contact = c.contact("operations", i.started)
            thread = w.thread(c, contact.email, i.started)
            feb = w.invoice(c, "February 2026")
            ch = w.paying(feb) if feb and feb["status"] == "paid" else None
            if len(thread) != 2 or feb is None or ch is None or ch["id"] in w.refunds:
                continue
            candidate = customer_item(c, "sev3", "gmail")
            total = sum(line["amount"] for line in feb["lines"])
            mins = _minutes(i.started, i.resolved)
            candidate.update(outcome="none_sev3", incident=i.number, incident_day=i.started, minutes=mins,
                        email=contact.email, first=contact.first, last=contact.last, title=contact.title,
                        thread=thread[0]["thread_id"], subject=f"Re: {thread[0]['subject']}", charge=ch["id"],
                        stale_amount=min(total * (low if mins < boundary else high) // 100, CAP[c.currency]))
            sev3s.append((c, candidate))
    sev3s.sort(key=lambda ci: not w.north(ci[0]))
    sev3 = sev3s[0][1] if sev3s else None
    if sev3 is not None:
        items.append(sev3)
        used.add(sev3["key"])
    # A customer no incident this year listed, claiming the March outage.
    hit = {k for i in o.incidents for k in i.customers}
    pool = [c for c in o.customers if c.key not in hit and c.key not in used and c.status == "Active" and w.plain(c)
            and c.stripe_id in w.crm]
    rng.shuffle(pool)
    # the unlisted customer is North American when fewer than two other emailed asks are (the copy's new cases)
    north = sum(w.crm[it["customer"]]["Region"] == REGION for it in items if it["channel"] == "gmail")
    pool.sort(key=lambda c: w.north(c) != (north < 2))
    unlisted = None
    for c in pool:
        inv = w.invoice(c, "March 2026")
        ch = w.paying(inv) if inv and inv["status"] == "paid" else None
        contact = c.contact("operations", "2026-03-16")
        if (c.key in used or inv is None or ch is None or ch["id"] in w.refunds
                or contact.first in {it.get("first") for it in items}):
            continue
        unlisted = customer_item(c, "unlisted" if unlisted is None else "unlisted2", "gmail")
        total = sum(line["amount"] for line in inv["lines"])
        unlisted.update(outcome="none_unlisted", incident=inc.number, email=contact.email, first=contact.first,
                        last=contact.last, title=contact.title, charge=ch["id"],
                        stale_amount=min(total * pct // 100, CAP[c.currency]))
        items.append(unlisted)
        used.add(unlisted["key"])
        # a second North American customer the postmortem does not list, where one more is needed
        if north + w.north(c) >= 2 or unlisted["role"] == "unlisted2" or not w.north(c):
            break
        north += 1
    if unlisted is None:
        return None
    grants = [it for it in items if it["outcome"] == "grant"]
    if len(grants) < 2:
        return None
    terms = {"inc": inc, "duration": duration, "boundary": boundary, "low": low, "high": high}
    return _assemble(w, rng, terms, items, dup)


def _assemble(w: _World, rng, terms: dict[str, Any], items: list[dict],  # noqa: C901, PLR0912, PLR0915
              dup: dict) -> dict[str, Any] | None:
    """The requests planted in Slack and Gmail, then the case's policy patches and judgement."""
    seed, o, inc = w.seed, w.o, terms["inc"]
    cs = slack_channel(seed, "cs-escalations")
    taken_ts = {m["ts"] for m in cs["messages"]}
    taken_ids = {m["id"] for m in w.gmail["messages"]}
    start_day = max(_at(inc.resolved).day + 1, 9)
    if start_day > 13:
        return None
    days = [f"2026-03-{d:02d}" for d in range(start_day, 16)]

    def when(k: int) -> str:
        day = days[k % len(days)]
        return f"{day}T{rng.randint(8, 17):02d}:{rng.randint(0, 59):02d}:00Z"

    slack_patch: list[dict] = []
    gmail_patch: list[dict] = []
    inc_day = _spoken(inc.started)
    # The team's past answers (the customer who never got their credit follows up on theirs).
    if w.director is None:
        return None
    examples = past_examples(w, rng, w.director, w.crm, {it["key"] for it in items})
    if examples is None:
        return None
    already = next(it for it in items if it["role"] == "already")
    past = [e for e in examples if e["key"] == already["key"] and e["incident"] == already["incident"]]
    if past:  # they follow up on the answer that told them of the credit
        already.update(email=past[0]["email"], first=past[0]["first"], last=past[0]["contact"].last,
                       title=past[0]["contact"].title, thread=past[0]["thread"],
                       subject=past[0]["plant"][-1]["subject"])
    else:  # the credit was refunded without an answer in the mailbox: they write anew
        contact = o.customer(already["key"]).contact("operations", "2026-03-16")
        already.update(email=contact.email, first=contact.first, last=contact.last, title=contact.title,
                       thread=None, subject=f"Service credit for the outage of {_spoken(already['incident_day'])}")
    # Slack relays by the account owners.
    relays = [{**dup, "role": "dup"}, *[it for it in items if it["role"] == "relay"]]
    for k, it in enumerate(relays):
        owner = w.owner(o.customer(it["key"]))
        ts = f"{_unix(when(k))}.{rng.randint(100000, 999999)}"
        if ts in taken_ts:
            return None
        taken_ts.add(ts)
        if it["role"] == "dup":
            text = (f"{it['short']} asked me whether they get a service credit for the incident on {inc_day}. Can "
                    f"finance look at it and tell me here what to pass on?")
        else:
            text = (f"{it['short']} asked me whether some of what they paid for March comes back to them after the "
                    f"outage on {inc_day}: their dispatchers worked by phone most of that time. What can I tell them?")
        it["slack_ts"] = ts
        it["owner_id"] = w.users[owner.email]["id"]
        it["owner_first"] = owner.first
        slack_patch.append({"op": "add", "in": ["channels", cs["id"], "messages"],
                            "value": {"ts": ts, "user": it["owner_id"], "text": text}})
    dup["slack_ts"], dup["owner_id"], dup["owner_first"] = relays[0]["slack_ts"], relays[0]["owner_id"], \
        relays[0]["owner_first"]
    # Planted emails.
    priya = w.gmail["address"]
    k = len(relays)
    for it in items:
        if it["role"] not in ("extra", "already", "sev3", "unlisted", "unlisted2"):
            continue
        k += 1
        date = when(k)
        mid = hex_id(ID, it["role"], seed)
        if mid in taken_ids:
            return None
        sign = f"\n\nBest regards,\n{it['first']} {it['last']}\n{it['title']}, {it['name']}"
        if it["role"] == "extra":
            subject = f"Our March invoice after the outage of {inc_day}"
            body = (f"Hello Priya,\n\nthe outage of {inc_day} left our planners without routes for most of the "
                    f"afternoon. We would expect that to show in what we pay you for March: please let us know what "
                    f"you can do.{sign}")
            thread = mid
        elif it["role"] == "already":
            subject = it["subject"]
            body = (f"Hello Priya,\n\nour accounts team cannot find the service credit for the outage of "
                    f"{_spoken(it['incident_day'])}" + (" that you wrote us about" if it["thread"] else "") +
                    f". Can you check what happened to it?{sign}")
            thread = it["thread"] or mid
        elif it["role"] == "sev3":
            subject = it["subject"]
            body = (f"Hello Priya,\n\nwe have read your new service credit terms from 1 March. The outage on "
                    f"{_spoken(it['incident_day'])} held up our shipments for {it['minutes']} minutes: what do we get "
                    f"back for it?{sign}")
            thread = it["thread"]
        elif it["role"] == "unlisted2":
            subject = f"Service credit for {inc_day}"
            body = (f"Hello Priya,\n\nwe lost most of the afternoon of {inc_day} to your outage: our dispatchers "
                    f"could not plan a single route. Please credit our March invoice for it.{sign}")
            thread = mid
        else:
            subject = f"Outage on {inc_day}"
            body = (f"Hello Priya,\n\nyour outage on {inc_day} from {inc.started[11:16]} UTC hit us too: our "
                    f"drivers could not get their routes. We expect a service credit on our March invoice for it."
                    f"{sign}")
            thread = mid
        it["message"], it["thread"], it["subject"] = mid, thread, subject
        gmail_patch.append({"op": "add", "in": ["messages"], "value": {
            "id": mid, "thread_id": thread, "sender": it["email"], "to": [priya], "cc": [], "subject": subject,
            "body": body, "date": date, "label_ids": ["INBOX", "UNREAD", "CATEGORY_PERSONAL"]}})
    policy = _policy_patches(w, terms)
    if policy is None:
        return None
    page, notion_patch, announcement = policy
    gmail_patch.append(announcement)
    # The past answers, and whom this month's emailed answers copy by the habit they show.
    gmail_patch += [{"op": "add", "in": ["messages"], "value": m} for e in examples for m in e["plant"]]
    mailed = [it for it in items if it["channel"] == "gmail"]
    for it in mailed:
        c = o.customer(it["key"])
        since = it.get("incident_day") or (inc.started if it["role"] == "asked" else "2026-03-16")
        owners = {owner_on(o, c, since).email, owner_on(o, c, "2026-03-16").email}
        it.update(features(c, w.crm[it["customer"]], w.by_stripe[it["customer"]], owner_on(o, c, since).key))
        it["copied"] = it["region"] == REGION
        it["owners"] = sorted(owners)
    copied = sum(it["copied"] for it in mailed)
    if copied < 2 or copied == len(mailed) or not convention_holds(examples, mailed):
        return None
    terms["director"] = w.director.email
    return _judge(w, terms, items, dup, cs, page, {"gmail": gmail_patch, "notion": notion_patch, "slack": slack_patch},
                  examples)


def _policy_patches(w: _World, terms: dict[str, Any]) -> tuple[dict, list[dict], dict] | None:
    """The March version of the refund and service credit policy: Notion's current page rewritten, the
    February version kept under Superseded, and its announcement in Gmail (the policy page, the Notion
    patch, the Gmail patch operation)."""
    seed, o = w.seed, w.o
    taken_ids = {m["id"] for m in w.gmail["messages"]}
    page = notion_page(seed, "Refund and service credit policy")
    superseded = notion_page(seed, "Superseded")
    blocks = page["content"]
    heading = blocks[0]
    credit_block = next(b for b in blocks if b["text"].startswith("Service credits:"))
    approval_block = next(b for b in blocks if b["text"].startswith("A refund or credit above"))
    credit_text, cap_text = _policy_text(terms["low"], terms["high"], terms["boundary"])
    old_page = {"id": uuid_of(ID, "february", seed), "title": "Refund and service credit policy February 2026 "
                "(superseded)", "parent_id": superseded["id"], "properties": {}, "archived": False,
                "created_time": "2026-02-01T08:00:00Z",
                "content": [{"id": uuid_of(ID, "february", seed, n), "type": b["type"],
                             "text": "Effective 2026-02-01, superseded on 2026-03-01" if n == 0 else b["text"]}
                            for n, b in enumerate(blocks)]}
    notion_patch = [
        {"op": "update", "in": ["pages"], "id": page["id"], "fields": {"created_time": "2026-03-01T08:00:00Z"}},
        {"op": "update", "in": ["pages", page["id"], "content"], "id": heading["id"],
         "fields": {"text": "Effective 2026-03-01"}},
        {"op": "update", "in": ["pages", page["id"], "content"], "id": credit_block["id"],
         "fields": {"text": credit_text}},
        {"op": "update", "in": ["pages", page["id"], "content"], "id": approval_block["id"],
         "fields": {"text": cap_text}},
        {"op": "add", "in": ["pages"], "value": old_page},
    ]
    owner = o.employee(o.policy("refund").owner)
    announce = hex_id(ID, "announce", seed)
    if announce in taken_ids or not owner.employed_on("2026-02-26"):
        return None
    announcement = {"op": "add", "in": ["messages"], "value": {
        "id": announce, "thread_id": announce, "sender": owner.email, "to": [w.gmail["address"]], "cc": [],
        "subject": "Updated refund and service credit policy from 2026-03-01",
        "body": ("Hi all,\n\nthe March 2026 refund and service credit policy applies from 2026-03-01; the earlier "
                 "version no longer does. What changes:\n- " + credit_text + "\n- " + cap_text +
                 f"\n\nBest regards,\n{owner.first} {owner.last}\n{owner.title}, Kestrel Freight Systems"),
        "date": "2026-02-26T10:12:00Z", "label_ids": ["INBOX", "CATEGORY_PERSONAL"]}}
    return page, notion_patch, announcement


def _answer(it: dict, inc, duration: int) -> str:
    """What a careful agent tells the customer about ``it`` (the substance the frame and predicate judge
    is elsewhere; this is the reference's text)."""
    outcome = it["outcome"]
    if outcome == "grant":
        how = f"{it['pct']}% of invoice {it['number']}" + (", capped at the policy's maximum" if it["capped"] else "")
        return (f"we have refunded a service credit of {it['money']} ({how}) for incident {inc.number}, which lasted "
                f"{duration} minutes, on the payment of your March invoice.")
    if outcome == "wait_pay":
        return (f"incident {inc.number} lasted {duration} minutes, which gives you a service credit of {it['money']} "
                f"({it['pct']}% of invoice {it['number']}). Our policy refunds it on the payment of that invoice, "
                f"which is still open: we will refund the credit as soon as it is paid.")
    if outcome == "wait_resolve":
        return (f"incident {it['incident']} is not resolved yet (we are still monitoring it). Under our policy the "
                f"service credit is decided once it is resolved, from its postmortem; we will come back to you then.")
    if outcome == "already":
        return (f"the service credit of {it['money']} for incident {it['incident']} was refunded on {it['refunded']}, "
                f"on the charge that paid your February invoice.")
    if outcome == "none_sev3":
        return (f"incident {it['incident']} started on {_spoken(it['incident_day'])}, so the policy version in force "
                f"then applies, and it gives no service credit for a SEV3 incident; the new terms cover incidents "
                f"from 1 March.")
    return (f"the postmortem of incident {inc.number} does not list your company among the customers it affected, "
            f"and our policy gives a service credit only to those, so we cannot refund anything for it.")


def _judge(w: _World, terms: dict[str, Any], items: list[dict], dup: dict, cs: dict, page: dict,  # noqa: C901
           patches: dict[str, list], examples: list[dict]) -> dict[str, Any] | None:
    """The reference, judgement, wrong and alternative solutions of one case (None when a clause an answer
    must meet is already met by the initial state: the case is drawn again)."""
    seed, inc, duration, x = w.seed, terms["inc"], terms["duration"], terms["director"]
    grants = [it for it in items if it["outcome"] == "grant"]
    mailed = [it for it in items if it["channel"] == "gmail"]
    relayed = [{**dup, "role": "dup"}, *[it for it in items if it["channel"] == "slack"]]
    pm_search = {"tool": "notion__search", "arguments": {"query": f"Postmortem: incident {inc.number}"}}

    def postmortem_id(number: int) -> str:
        found = [p for p in world("notion", seed)["pages"] if p["title"].startswith(f"Postmortem: incident {number}")]
        return found[0]["id"]

    def refund(it: dict, amount: int | None = None, charge: str | None = None) -> dict:
        return {"tool": "stripe__create_refund", "arguments": {
            "charge": charge or it["charge"], "amount": amount or it["amount"], "reason": "requested_by_customer",
            "metadata": {"incident": str(it["incident"])}}}

    def mail(it: dict, cc: list[str] | None = None) -> dict:
        """The answer on the request's thread, copying whom the past answers copy (or ``cc``)."""
        args = {"to": [it["email"]],
                "subject": it["subject"] if it["subject"].startswith("Re: ") else f"Re: {it['subject']}",
                "threadId": it["thread"],
                "body": f"Hello {it['first']},\n\n{_answer(it, inc, duration)}\n\nBest regards,\nPriya"}
        copy = ([x] if it["copied"] else []) if cc is None else cc
        return {"tool": "gmail__send_email", "arguments": {**args, "cc": copy} if copy else args}

    def post(it: dict) -> dict:
        text = _answer(it, inc, duration)
        if it["outcome"] != "already":
            text = f"For {it['short']}: " + text.replace("your March invoice", "their March invoice").replace(
                "you a service", "them a service")
        return {"tool": "slack__reply_to_thread", "arguments": {
            "channel_id": cs["id"], "thread_ts": it["slack_ts"], "text": f"<@{it['owner_id']}> {text}"}}

    # Discovery: the policy, the requests, the incidents, then each customer's ledger.
    reference: list[dict] = [
        {"tool": "notion__search", "arguments": {"query": "Refund and service credit policy"}},
        {"tool": "notion__get_block_children", "arguments": {"block_id": page["id"]}},
        {"tool": "gmail__search_emails", "arguments": {"query": "after:2026/03/01 in:inbox -from:kestrelfreight.com",
                                                        "maxResults": 60}},
        {"tool": "slack__get_channel_history", "arguments": {"channel_id": cs["id"], "limit": 40}},
        {"tool": "slack__get_users", "arguments": {"limit": 200}},
        # how the team answered credit asks before: every past answer opened (whom it copied shows only there)
        {"tool": "gmail__search_emails", "arguments": {"query": 'in:sent "service credit" before:2026/03/01',
                                                        "maxResults": 50}},
    ]
    threads = list(dict.fromkeys([*(it["thread"] for it in mailed), *(e["thread"] for e in examples)]))
    reference += [{"tool": "gmail__get_thread", "arguments": {"threadId": t}} for t in threads]
    reference += [{"tool": "notion__search", "arguments": {"query": "Customer Accounts"}},
                  {"tool": "notion__query_database", "arguments": {"database_id": w.crm_id, "page_size": 100}}]
    reference += [pm_search, {"tool": "notion__get_block_children", "arguments": {"block_id": postmortem_id(inc.number)}}]
    for i in {it["incident"]: it for it in items if it["outcome"] == "wait_resolve"}:
        reference.append({"tool": "slack__search_messages", "arguments": {"query": f"incident {i} in:#incident-{i}"}})
    for it in items:
        if it["outcome"] in ("already", "none_sev3"):
            reference += [{"tool": "notion__search", "arguments": {"query": f"Postmortem: incident {it['incident']}"}},
                          {"tool": "notion__get_block_children", "arguments": {"block_id": postmortem_id(it["incident"])}}]
    # each customer's invoices (the CRM gives its Stripe id), and the credits the ledger already holds
    reference += [{"tool": "stripe__list_invoices", "arguments": {"customer": it["customer"], "limit": 3}}
                  for it in items]
    reference.append({"tool": "stripe__list_refunds", "arguments": {"limit": 100}})
    # Writes: the credits (the second one times out after committing: look, do not retry), then answers.
    reference += [refund(grants[0]), refund(grants[1]),
                  {"tool": "stripe__list_refunds", "arguments": {"charge": grants[1]["charge"]}},
                  *(refund(it) for it in grants[2:])]
    answers = [mail(it) for it in mailed] + [post(it) for it in relayed]
    reference += answers

    success: list[dict] = [{"stripe.refundIssued": {"charge": it["charge"]}} for it in grants]
    for it in items:
        if it["outcome"] in ("none_sev3", "none_unlisted") or (it["outcome"] == "wait_resolve" and it.get("charge")):
            success.append({"not": {"stripe.refundIssued": {"charge": it["charge"]}}})
    # Each answer's clause is one only that answer meets: asserted false on the initial state, so that leaving
    # an answer out fails the task (the mailbox holds Priya's earlier mail to most of these addresses, and the
    # channel speaks of credits and invoices).
    mail_before = [*w.gmail["messages"], *(op["value"] for op in patches["gmail"] if op["op"] == "add")]
    for it in mailed:
        before = [m for m in mail_before if "SENT" in m["label_ids"] and it["email"] in m["to"]
                  and re.search(SUBJECT, m["subject"])]
        body = _answered(it, duration, before)
        if body is None:
            return None
        success.append({"gmail.draftSent": {"subject_pattern": SUBJECT, "to": it["email"], "body_pattern": body}})
    channel_before = [*(m["text"] for m in cs["messages"]), *(op["value"]["text"] for op in patches["slack"])]
    for it in relayed:
        given = _given(it["amount"], it["currency"])
        others = [r for r in relayed if r is not it]
        if any(not _apart(it, r) for r in others):
            # both credits are one amount: the reply gives it and names whom it is about (the customer, a word of
            # its name, the account owner or their mention, the invoice, the Stripe customer)
            theirs = {word for r in others for word in r["short"].split()}
            who = [it["short"], *(x for x in it["short"].split() if len(x) >= 4 and x not in theirs),
                   it["owner_id"], it["owner_first"], it["number"], it["customer"]]
            if not all(re.fullmatch(r"[\w &'-]{3,}", x) for x in who):
                return None
            number = _amount(it["amount"], it["currency"])
            given = rf"(?:{'|'.join(who)})(?:.|\n)*{number}|{number}(?:.|\n)*(?:{'|'.join(who)})"
        if any(re.search(given, text) for text in channel_before):
            return None
        success.append({"slack.messagePosted": {"channel": cs["id"], "pattern": given}})
    frame: list[dict] = [
        *({"entity": "stripe.refund", "change": ["create"], "where": {"charge": it["charge"], "amount": it["amount"]},
           "max": 1} for it in grants),
        {"entity": "gmail.message", "fields": ["label_ids"]},
        *({"entity": "gmail.message", "change": ["create"], "where": {"to": [it["email"]]},
           "values": {"cc": {"in": _copies(it, x)}}, "max": 2} for it in mailed),
        # a word to the director beside the copies (a relayed North American customer, a summary) does no harm
        {"entity": "gmail.message", "change": ["create"], "where": {"to": [x]}, "max": 2},
        {"entity": "gmail.draft", "change": ["create", "delete"]},
        {"entity": "slack.message", "change": ["create"], "where": {"channel": cs["id"]}, "max": 2 * len(relayed) + 1},
    ]
    right = [refund(it) for it in grants] + answers
    wrongs = _wrongs(items, grants, dup, right, answers, refund)
    alternatives = [
        {"why": "answers every request first, then credits, and sums up in #cs-escalations",
         "calls": [*answers, *(refund(it) for it in grants),
                   {"tool": "slack__post_message", "arguments": {
                       "channel_id": cs["id"],
                       "text": "Service credits for this month's requests are done: "
                               + "; ".join(f"{g['short']} {g['money']}" for g in grants) + "."}}]},
        {"why": "answers the emails in new messages of its own rather than on their threads",
         "calls": [*(refund(it) for it in grants),
                   *({"tool": "gmail__send_email", "arguments": {
                       "to": [it["email"]], "subject": "Your service credit request",
                       "body": f"Hello {it['first']},\n\n{_answer(it, inc, duration)}\n\nBest regards,\nPriya",
                       **({"cc": [x]} if it["copied"] else {})}}
                     for it in mailed),
                   *(post(it) for it in relayed)]},
        {"why": "answers every email to all, as the past answers did: the account owner copied, and the director "
                "too where the customer is North American",
         "calls": [*(refund(it) for it in grants), *(mail(it, _copies(it, x)[-1]) for it in mailed),
                   *(post(it) for it in relayed)]},
    ]
    posts = [post(it) for it in relayed]
    # leaving any one answer out fails: the email of the customer who cannot find their credit, the first
    # asked by email, and each reply in #cs-escalations
    already = next(it for it in items if it["outcome"] == "already")
    for left, call in [(f"the answer to {already['short']}, who cannot find their February credit",
                        mail(already)),
                       (f"the answer to {mailed[0]['short']}'s email", mail(mailed[0])),
                       *((f"the reply in {it['short']}'s thread in #cs-escalations", post(it)) for it in relayed)]:
        wrongs.append({"why": f"the reference without {left}", "kind": "other",
                       "calls": [c for c in right if c != call]})
    wrongs += [
        {"why": "settles every request but copies nobody: the director's copy shows only in the opened past answers",
         "kind": "other", "calls": [*(refund(it) for it in grants), *(mail(it, []) for it in mailed), *posts]},
        {"why": "copies the director on every emailed answer", "kind": "other",
         "calls": [*(refund(it) for it in grants), *(mail(it, [x]) for it in mailed), *posts]},
        {"why": "copies the director on the answers to customers credited this month only", "kind": "other",
         "calls": [*(refund(it) for it in grants),
                   *(mail(it, [x] if it["copied"] and it["outcome"] == "grant" else []) for it in mailed), *posts]},
    ]
    return {
        "gmail_patch": patches["gmail"], "notion_patch": patches["notion"], "slack_patch": patches["slack"],
        "reference": reference, "success": success, "frame": frame, "wrongs": wrongs, "alternatives": alternatives,
        "max_steps": budget(len(reference), forced=1),
        "summary": {it["short"]: it["outcome"] for it in items},
    }


def _copies(it: dict, director_email: str) -> list[list[str]]:
    """The copies an answer to ``it`` may carry: the director exactly when the convention copies it, and
    the account owner the customer's thread copied (a reply to all), in any order."""
    lists: list[list[str]] = []
    owners = it["owners"]
    for n in range(len(owners) + 1):
        for chosen in combinations(owners, n):
            group = [*chosen, director_email] if it["copied"] else list(chosen)
            lists += [list(p) for p in permutations(group)]
    return lists


def _wrongs(items: list[dict], grants: list[dict], dup: dict, right: list[dict], answers: list[dict],
            refund: Callable[..., dict]) -> list[dict]:
    """The wrong solutions of one case: the lookalike charge and the superseded version, the customer not
    listed, the blind retry, the double credit, the misapplied terms, the request without the word."""
    stale = [g for g in grants if g["stale_amount"] and g["stale_amount"] != g["amount"]]
    wrongs: list[dict] = []
    feb = next((g for g in grants if g.get("feb_charge")), None)
    if feb is not None:
        wrongs.append({"why": f"credits {feb['short']} on the charge that paid its February invoice, not March's",
                       "kind": "lookalike", "calls": [refund(feb, charge=feb["feb_charge"]),
                                                      *(refund(g) for g in grants if g is not feb), *answers]})
    if stale:
        wrongs.append({"why": "reads the superseded February version for the March incident: a credit by severity, "
                              "without the cap",
                       "kind": "lookalike", "calls": [refund(g, amount=g["stale_amount"] or g["amount"]) for g in grants]
                       + answers})
    unlisted = next(it for it in items if it["outcome"] == "none_unlisted")
    wrongs.append({"why": "also credits the customer the postmortem does not list",
                   "kind": "collateral", "calls": [*right, refund(unlisted, amount=unlisted["stale_amount"])]})
    wrongs.append({"why": "retries the credit whose call timed out without looking: the customer is credited twice",
                   "kind": "other", "calls": [refund(grants[0]), refund(grants[1]), refund(grants[1]),
                                              *(refund(g) for g in grants[2:]), *answers]})
    wrongs.append({"why": "credits the customer who asked twice once per request",
                   "kind": "other", "calls": [*right[:len(grants)], refund(dup), *answers]})
    sev3 = next((it for it in items if it["outcome"] == "none_sev3"), None)
    if sev3 is not None:
        wrongs.append({"why": "applies the March terms to the February SEV3 incident",
                       "kind": "other", "calls": [*right, refund(sev3, amount=sev3["stale_amount"])]})
    relay = next(it for it in items if it["role"] == "relay")
    wrongs.append({"why": "settles only the requests that say 'credit': the account owner's relay without the word "
                          "is left unanswered and uncredited",
                   "kind": "other", "calls": [refund(g) for g in grants if g is not relay]
                   + [a for a in answers if a["arguments"].get("thread_ts") != relay["slack_ts"]]})
    return wrongs


def build() -> dict[str, Any]:
    task = case_task(
        "Customers have been asking for service credits since the start of March: some wrote to me, others asked their "
        "account owners, who passed it on in #cs-escalations. Settle every request as our refund and service credit policy "
        "says: give in Stripe exactly what it allows, and answer each request where it was made, saying what we "
        "credited or why not, the way we have answered credit requests before.",
        ["gmail", "notion", "slack", "stripe"],
        [*GMAIL_TOOLS, "gmail__list_email_labels", *NOTION_READ, *SLACK_TOOLS, *STRIPE_READ, "stripe__create_refund"],
        [{"tool": "stripe__create_refund", "on_call": 2, "kind": "timeout_after_commit"},
         {"tool": "gmail__send_email", "on_call": 2, "kind": "unavailable"}], 1200,
        ("gmail", "notion", "slack"))
    return template(id=ID, version=3, servers=["gmail", "notion", "slack", "stripe"], difficulty="hard",
                    category="recovery", case_list=cases(case_of, level="hard"), task=task)
