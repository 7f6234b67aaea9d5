"""x-t-refund-request-queue: four customers' refund requests wait under Priya's "Finance/Refunds"
label; each is decided on its own by the refund policy in force and the ledger.

Hard; Gmail, Notion, Slack and Stripe. The four requests, one per customer (each billed at its billing
contact's address), and what decides each:
- ``window``: the February Tracking API overage (charged 28 February), asked on 10 March: within the
  2026 policy's 30 days and under its 500 EUR approval limit: refunded in full;
- ``late``: the January overage (charged at the end of January), asked on 9 March: over 30 days, outside the window:
  refused (the customer is told why);
- ``approved``: an onboarding workshop of 1,500.00 EUR charged in February, asked on 11 March: within the
  window, above the approval limit, and a finance approver (named in the policy, planted) approved it in
  #finance: refunded in full (the 2025 version's 14 days would refuse it: the stale reading);
- ``done``: a February overage we already refunded on 4 March (a refund in Stripe), asked again on
  12 March: nothing more to refund; the customer is told when it was refunded.
The customers are found by name in Stripe, the charges by description and date; the second refund
answers ``unavailable`` (not applied) and must be retried.

Version 2 adds the team's past work and a habit only opening it shows. Under the same label sit
:data:`PAST` earlier requests (Tracking API overages asked on 2 February to 6 March), each answered by
Priya on its thread the next working day; the granted ones have their refund in Stripe, the two asked over
30 days after the charge were refused. The refund policy decides all of them alike, and says nothing of
whom an answer copies: the habit is that an answer to a customer whose row in the CRM (Notion's Customer
Accounts) has Status **At risk** copies the Head of Customer Success (:func:`copied`). It shows only in the
``cc`` of the opened answers (``search_emails`` returns no cc; ``read_email`` and ``get_thread`` do), in
:data:`AT_RISK_PAST` of the earlier answers; the others, opened, copy nobody. Of the four new requests the
two refunded ones (``window`` and ``approved``) are of At-risk accounts, so their answers copy the head;
``late`` and ``done`` are not. The at-risk statuses are planted (a Notion patch of the CRM row and of the
"Status: ..." sentence of the account's Account plan page, the only other place stating it), and no other
customer the task names is At risk.

:data:`COPY_READINGS` lists the other readings of when an answer copies the head (always, never, by plan,
region, owner, currency, outcome, charge, month asked, "not Active", above or below an amount or an ARR);
:func:`check_copy_convention` raises unless each is contradicted by an earlier answer or copies exactly
the new answers the habit copies. A draw that leaves one open is drawn again (:data:`DRAWS` times).
Copying the account owner as well is allowed (the world's answers to duplicate charges do), copying the
head on an answer the habit does not copy fails, as does an at-risk answer without the copy.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from tasks_catalog.authoring.cross import budget, cases, org, template, world
from tasks_catalog.authoring.cross._x_t_accounts import crm_database_id, crm_rows, notion_user_email
from tasks_catalog.authoring.cross._x_t_billing import (
    GMAIL_TOOLS,
    NOTION_READ,
    SLACK_TOOLS,
    STRIPE_READ,
    approvers_paragraph,
    case_task,
    finance_approvers,
    gmail_message,
    hex_id,
    money,
    notion_page,
    rng_for,
    slack_channel,
    unix,
    weekdays,
)
from tasks_catalog.authoring.cross._x_t_readings import Always, FlaggedSide, FlaggedWhen, left_open

ID = "x-t-refund-request-queue"
LABEL = {"id": "Label_refund_requests", "name": "Finance/Refunds"}
AT_RISK = "At risk"
#: How many earlier requests sit under the label, how many of them are of At-risk accounts (their answers
#: copy the Head of Customer Success), how many were refused (asked over 30 days after the charge).
PAST, AT_RISK_PAST, REFUSED_PAST = 14, 3, 2
#: How many draws of the earlier requests are tried for a seed before it gives no case.
DRAWS = 4
#: Overage charges an earlier request was about, by the month in their description: the day charged
#: and the days the request could be made (the first within 30 days of the charge, the second after).
OVERAGE_MONTHS = {"January": "2026-01-28", "February": "2026-02-28"}
#: Why the earlier customers asked (free text of their requests).
PAST_REASONS = [
    "a misconfigured webhook on our side replayed every shipment event for two days",
    "a test environment was pointed at your production API by mistake",
    "our integration retried every call during a network outage on our side",
    "a partner's system polled your tracking API every few seconds for a week",
    "a deployment of ours sent each label request three times",
    "a bug in our warehouse scanner app repeated its tracking calls",
]


def copied(item: dict[str, Any]) -> bool:
    """The habit: an answer to a customer whose CRM Status is At risk copies the Head of Customer Success."""
    return item["status"] == AT_RISK


#: When an answer copies the Head of Customer Success, as a reader of the earlier answers might guess it
#: (each field is one the tools show: the CRM row's plan, region, owner, ARR and status, the charge's
#: currency, amount and month, whether the refund was granted, the month asked). "Copy for the customers copied before" is
#: not among them: no new request is from a customer with an earlier one, so it decides nothing for them
#: (for them it is "never", which three copied answers contradict).
COPY_READINGS: dict[str, Any] = {
    "always": Always(True, flag="cc"),
    "never": Always(False, flag="cc"),
    "by the account's plan": FlaggedWhen("plan", flag="cc"),
    "by the account's region": FlaggedWhen("region", flag="cc"),
    "by the account's owner": FlaggedWhen("owner", flag="cc"),
    "by the currency": FlaggedWhen("currency", flag="cc"),
    "by the outcome (granted, refused, refunded already)": FlaggedWhen("outcome", flag="cc"),
    "by the charge (the month's overage, the workshop)": FlaggedWhen("charge_kind", flag="cc"),
    "for any account not Active": FlaggedWhen("active", flag="cc"),
    "by the month the request came in": FlaggedWhen("asked_month", flag="cc"),
    "above an amount": FlaggedSide("amount", low=False, flag="cc"),
    "below an amount": FlaggedSide("amount", low=True, flag="cc"),
    "above an ARR": FlaggedSide("arr", low=False, flag="cc"),
    "below an ARR": FlaggedSide("arr", low=True, flag="cc"),
}


def check_copy_convention(examples: list[dict[str, Any]], items: list[dict[str, Any]]) -> None:
    """Raise unless the earlier answers tell the habit (:func:`copied`) apart from every reading of
    :data:`COPY_READINGS`: each is contradicted by an earlier answer or copies exactly the new answers the
    habit copies; the copied earlier answers are a minority of 2-5, of two owners or more; each earlier
    answer copies the head exactly when the habit says; every new item's status was seen in an example."""
    if any(bool(e["cc"]) != copied(e) for e in examples):
        raise ValueError(f"{ID}: an earlier answer's copy does not follow the habit")
    n = sum(bool(e["cc"]) for e in examples)
    if not 2 <= n <= 5 or n * 2 >= len(examples):
        raise ValueError(f"{ID}: {n} of {len(examples)} earlier answers copy the head; a minority of 2-5 should")
    if len({e["owner"] for e in examples if e["cc"]}) < 2:
        raise ValueError(f"{ID}: the copied earlier answers are of one owner's accounts")
    if {i["status"] for i in items} - {e["status"] for e in examples}:
        raise ValueError(f"{ID}: a new item's CRM status is seen in no earlier request")
    for name in left_open(COPY_READINGS, examples, items, copied)[:1]:
        raise ValueError(f"{ID}: the reading {name!r} fits every earlier answer and differs on a new request")


def _day(ts: int) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d")


def _spoken(day: str) -> str:
    return datetime.fromisoformat(day).strftime("%-d %B")


#: The currencies of the earlier requests and the largest overage in each refunded without an approval
#: (500 EUR or less: the policy's approval limit never comes into it).
_PAST_LIMIT = {"eur": 50_000, "usd": 40_000, "gbp": 40_000, "cad": 60_000}


def _next_weekday(day: str) -> str:
    nxt = datetime.fromisoformat(day) + timedelta(days=1)
    while nxt.weekday() >= 5:
        nxt += timedelta(days=1)
    return nxt.strftime("%Y-%m-%d")


#: The days an earlier request was made: a January overage refunded (6-27 days after 28 January, under the
#: 2026 policy), a February one refunded (2-5 days after 28 February), a January one refused (33-36 days).
_ASKED = {"granted:January": weekdays("2026-02-03", "2026-02-24"),
          "granted:February": weekdays("2026-03-02", "2026-03-05"),
          "refused:January": weekdays("2026-03-02", "2026-03-05")}


def _crm_facts(seed: int, row: dict[str, Any]) -> dict[str, Any]:
    """What the CRM row of a customer shows that a reader might take for the reason of a copy."""
    p = row["properties"]
    return {"status": p["Status"], "plan": p["Plan"], "region": p["Region"], "arr": p["ARR"] or 0,
            "owner": notion_user_email(seed, p["Owner"][0]), "active": p["Status"] == "Active", "row": row["id"]}


def _past_candidate(c: Any, s: dict[str, Any], row: dict[str, Any], contact: Any,
                    charges: list[dict[str, Any]], refunded: set[str]) -> dict[str, Any]:
    """A customer an earlier request could be from, with its one unrefunded overage charge of each month
    (small enough to refund without an approval)."""
    overages = {}
    for month in OVERAGE_MONTHS:
        found = [ch for ch in charges if ch["invoice"] is None and ch["status"] == "succeeded"
                 and ch["id"] not in refunded and ch["currency"] == c.currency
                 and ch["description"].startswith(f"Tracking API overage, {month} 2026")]
        if len(found) == 1 and found[0]["amount"] <= _PAST_LIMIT[c.currency]:
            overages[month] = found[0]
    return {"c": c, "s": s, "row": row, "contact": contact, "overages": overages}


def _draw_past(seed: int, rng: random.Random, pool: list[dict[str, Any]],
               statuses: set[str]) -> list[dict[str, Any]] | None:
    """:data:`PAST` earlier requests from ``pool``: :data:`REFUSED_PAST` January overages asked too late,
    the others refunded, :data:`AT_RISK_PAST` of the refunded ones of accounts made At risk, each of an owner
    who also owns an account not at risk among them; customers of the CRM ``statuses`` (those of the new
    requests not at risk) drawn first, so that each is seen. Oldest first."""
    cands = [x for x in pool if x["overages"] and x["row"]["properties"]["Owner"]]
    rng.shuffle(cands)
    cands.sort(key=lambda x: x["row"]["properties"]["Status"] not in statuses - {"Active"})
    refused = [x for x in cands if "January" in x["overages"]][:REFUSED_PAST]
    granted = [x for x in cands if x not in refused][:PAST - REFUSED_PAST]
    if len(refused) < REFUSED_PAST or len(granted) < PAST - REFUSED_PAST:
        return None
    owners = [x["row"]["properties"]["Owner"][0] for x in refused + granted]
    shared = [x for x in granted if owners.count(x["row"]["properties"]["Owner"][0]) > 1]
    if len(shared) < AT_RISK_PAST:
        return None
    picks = rng.sample(shared, AT_RISK_PAST)
    if any(sum(o == x["row"]["properties"]["Owner"][0] for o in owners) <= sum(
            y["row"]["properties"]["Owner"] == x["row"]["properties"]["Owner"] for y in picks) for x in picks):
        return None
    at_risk = {id(x) for x in picks}
    days = {k: rng.sample(v, len(v)) for k, v in _ASKED.items()}
    out = []
    for x in refused + granted:
        outcome = "refused" if x in refused else "granted"
        month = "January" if outcome == "refused" else rng.choice(sorted(x["overages"]))
        key = f"{outcome}:{month}"
        asked = days[key].pop() if days[key] else rng.choice(_ASKED[key])
        charge = x["overages"][month]
        facts = _crm_facts(seed, x["row"])
        if id(x) in at_risk:
            facts.update(status=AT_RISK, active=False)
        out.append({"short": x["c"].short, "name": x["c"].name, "customer": x["s"]["id"], "email": x["contact"].email,
                    "first": x["contact"].first, "last": x["contact"].last, "title": x["contact"].title,
                    "currency": x["c"].currency, "charge": charge["id"], "amount": charge["amount"],
                    "money": money(charge["amount"], x["c"].currency), "charged": OVERAGE_MONTHS[month],
                    "charge_kind": month, "outcome": outcome, "asked": asked, "asked_month": asked[:7],
                    "answered": _next_weekday(asked),
                    "reason": rng.choice(PAST_REASONS), "cc": id(x) in at_risk, **facts})
    return sorted(out, key=lambda e: (e["asked"], e["name"]))


def _past_messages(seed: int, examples: list[dict[str, Any]], head: str, address: str,
                   rng: random.Random) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The Gmail messages of the earlier requests (read, under the label) and Priya's answers on their
    threads (copying ``head`` where the habit does), and the Stripe refunds of the granted ones."""
    taken = {m["id"] for m in world("gmail", seed)["messages"]}
    messages, refunds = [], []
    for n, e in enumerate(examples):
        subject = rng.choice([f"Refund of our {e['charge_kind']} overage charge", f"{e['charge_kind']} overage refund",
                              "Refund request: Tracking API overage"])
        asked_at = f"{e['asked']}T{rng.randint(7, 16):02d}:{rng.randint(0, 59):02d}:00Z"
        request = gmail_message(seed=seed, key=f"{ID}:past:{n}", sender=e["email"], date=asked_at, subject=subject,
                                body=f"Hello Priya,\n\nplease refund our {e['charge_kind']} Tracking API overage charge "
                                     f"of {e['money']} from {_spoken(e['charged'])}: {e['reason']}.\n\nBest regards,\n"
                                     f"{e['first']} {e['last']}\n{e['title']}, {e['name']}")
        request["label_ids"] = ["INBOX", "CATEGORY_PERSONAL", LABEL["id"]]
        answered_at = f"{e['answered']}T{rng.randint(9, 11):02d}:{rng.randint(0, 59):02d}:00"
        if e["outcome"] == "granted":
            text = f"we have refunded the {e['charge_kind']} overage charge of {e['money']} in full."
            refunds.append({"id": "re_" + hex_id(ID, "past", n, seed, n=24), "charge": e["charge"], "amount": e["amount"],
                            "reason": "requested_by_customer", "status": "succeeded", "created": unix(answered_at),
                            "metadata": {}})
        else:
            days = (datetime.fromisoformat(e["asked"]) - datetime.fromisoformat(e["charged"])).days
            text = (f"I am sorry: our refund policy lets us refund a charge only within 30 days of it, and the "
                    f"{e['charge_kind']} overage charge of {e['money']} was made on {_spoken(e['charged'])}, {days} days "
                    f"before your request, so we cannot refund it.")
        answer_id = hex_id("x-t-billing", ID, "answer", n, seed)
        if {request["id"], answer_id} & taken:
            raise ValueError(f"{ID}: planted message id already in gmail world {seed}")
        answer = {"id": answer_id, "thread_id": request["id"], "sender": address, "to": [e["email"]],
                  "cc": [head] if e["cc"] else [], "subject": f"Re: {subject}",
                  "body": f"Hello {e['first']},\n\n{text}\n\nBest regards,\nPriya", "date": answered_at + "Z",
                  "label_ids": ["SENT"]}
        e["message"] = request["id"]
        messages += [request, answer]
    return messages, refunds


def _at_risk(seed: int, item: dict[str, Any]) -> list[dict[str, Any]]:
    """The Notion patch that makes ``item``'s account At risk wherever Notion states its status: its CRM row
    and the "Status: ..." sentence of its Account plan page (when it has one)."""
    row = next(r for r in crm_rows(seed) if r["id"] == item["row"])
    ops: list[dict[str, Any]] = [{"op": "update", "in": ["pages"], "id": row["id"],
                                  "fields": {"properties": {**row["properties"], "Status": AT_RISK}}}]
    was = f"Status: {row['properties']['Status']}."
    for page in world("notion", seed)["pages"]:
        if page["title"] == f"Account plan: {item['name']}" and not page.get("archived"):
            for block in page["content"]:
                if was in block.get("text", ""):
                    ops.append({"op": "replace", "in": ["pages", page["id"], "content"],
                                "value": {**block, "text": block["text"].replace(was, f"Status: {AT_RISK}.")}})
    return ops


def _customers(seed: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The customers a new request can be from (EUR, no incident, their charges) and those an earlier one
    can be from (:func:`_past_candidate`): each with a CRM row (its Status decides the copy) and one billing
    address in Stripe, the organisation and the CRM, none of a group or entered twice."""
    o = org(seed)
    stripe = world("stripe", seed)
    by_id = {c["id"]: c for c in stripe["customers"]}
    refunded = {r["charge"] for r in stripe["refunds"]}
    # a customer an incident hit might be owed a service credit under the same policy: left out
    hit = {k for inc in o.incidents for k in inc.customers}
    rows = {r["properties"]["Stripe customer"]: r for r in crm_rows(seed)}
    charges_of: dict[str, list[dict[str, Any]]] = {}
    for ch in stripe["charges"]:
        charges_of.setdefault(ch["customer"], []).append(ch)
    custs, pool = [], []
    for c in o.customers:
        s = by_id.get(c.stripe_id or "")
        row = rows.get(c.stripe_id or "")
        if (s is None or row is None or c.status not in ("Active", "Onboarding") or c.group or c.duplicate_of
                or row["properties"]["Status"] != c.status or any(x.duplicate_of == c.key for x in o.customers)):
            continue
        contact = c.contact("billing")
        if not s["email"] == contact.email == row["properties"]["Billing email"]:
            continue
        if c.currency in _PAST_LIMIT:  # an earlier request (an incident does not matter: overages only)
            pool.append(_past_candidate(c, s, row, contact, charges_of.get(s["id"], []), refunded))
        if c.currency != "eur" or c.key in hit:
            continue
        mine = [ch for ch in charges_of.get(s["id"], []) if ch["invoice"] is None
                and ch["status"] == "succeeded" and ch["id"] not in refunded and ch["currency"] == "eur"]
        feb = [ch for ch in mine if ch["description"].startswith("Tracking API overage, February 2026")
               and ch["amount"] <= 50_000]
        jan = [ch for ch in mine if ch["description"].startswith("Tracking API overage, January 2026")]
        onboarding = [ch for ch in mine if ch["description"] == "Onboarding workshop"
                      and "2026-02-10" <= _day(ch["created"]) <= "2026-02-24"]
        custs.append({"c": c, "s": s, "row": row, "contact": contact, "feb": feb, "jan": jan, "onboarding": onboarding})
    return custs, pool


def _past_for(seed: int, rng: random.Random, pool: list[dict[str, Any]], firsts: set[str],
              items: dict[str, dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The earlier requests of a case: up to :data:`DRAWS` draws from ``pool`` (no customer whose first word
    is a new one's), the first that :func:`check_copy_convention` accepts; ``None`` if none does."""
    mine = [x for x in pool if x["c"].short.split()[0] not in firsts]
    for _ in range(DRAWS):
        drawn = _draw_past(seed, rng, mine, {items["late"]["status"], items["done"]["status"]})
        if drawn is None:
            continue
        try:
            check_copy_convention(drawn, list(items.values()))
        except ValueError:
            continue
        return drawn
    return None


def case_of(seed: int) -> dict[str, Any] | None:  # noqa: C901, PLR0915 - one case is one story, told in order
    o = org(seed)
    rng = rng_for(ID, seed)
    if any(lab["id"] == LABEL["id"] or lab["name"] == LABEL["name"] for lab in world("gmail", seed)["labels"]):
        return None
    custs, pool = _customers(seed)
    rng.shuffle(custs)
    picked: dict[str, dict] = {}
    firsts: set[str] = set()
    need = {"approved": lambda x: len(x["onboarding"]) == 1, "late": lambda x: len(x["jan"]) == 1,
            "window": lambda x: len(x["feb"]) == 1 and len(x["jan"]) == 1, "done": lambda x: len(x["feb"]) == 1}
    for role, ok in need.items():
        for x in custs:
            first = x["c"].short.split()[0]
            if ok(x) and first not in firsts and x not in picked.values():
                picked[role] = x
                firsts.add(first)
                break
        else:
            return None
    approvers = finance_approvers(seed)
    users = {u.get("email"): u for u in world("slack", seed)["users"] if not u.get("deleted")}
    others = [e for e in o.employees if approvers and e.team == approvers[0].team
              and "finance-approver" not in e.flags and e.employed_on("2026-03-16") and e.email in users]
    if len(approvers) < 2 or not others or any(a.email not in users for a in approvers):
        return None
    approver, asker = rng.choice(approvers), rng.choice(others)
    finance = slack_channel(seed, "finance")
    root, reply_ts = "1773226800.508100", "1773237600.519700"
    if {root, reply_ts} & {m["ts"] for m in finance["messages"]}:
        return None

    items: dict[str, dict] = {}
    for role, x in picked.items():
        charge = {"window": x["feb"], "late": x["jan"], "approved": x["onboarding"], "done": x["feb"]}[role][0]
        items[role] = {"short": x["c"].short, "name": x["c"].name, "customer": x["s"]["id"],
                       "first": x["contact"].first, "last": x["contact"].last, "email": x["contact"].email,
                       "title": x["contact"].title, "charge": charge["id"], "amount": charge["amount"],
                       "money": money(charge["amount"], "eur"), "charged": _day(charge["created"]),
                       "description": charge["description"]}
    w, late, ap, done = items["window"], items["late"], items["approved"], items["done"]
    w["jan_charge"] = picked["window"]["jan"][0]["id"]
    heads = [e for e in o.employees if e.title == "Head of Customer Success" and e.employed_on("2026-03-16")]
    if len(heads) != 1 or any(not x["row"]["properties"]["Owner"] for x in picked.values()):
        return None
    head = heads[0].email
    for role, x in picked.items():
        items[role].update(_crm_facts(seed, x["row"]), currency="eur",
                           charge_kind={"approved": "workshop", "late": "January"}.get(role, "February"),
                           outcome={"late": "refused", "done": "already"}.get(role, "granted"), asked_month="2026-03")
    for it in (w, ap):  # the two refunded ones are of At-risk accounts
        it.update(status=AT_RISK, active=False)
    past = _past_for(seed, rng, pool, firsts, items)
    if past is None:
        return None
    past_messages, past_refunds = _past_messages(seed, past, head, world("gmail", seed)["address"], rng)
    for it in items.values():
        it["cc"] = [head] if copied(it) else []

    def email(role: str, date: str, subject: str, text: str) -> dict:
        it = items[role]
        m = gmail_message(seed=seed, key=f"{ID}:{role}", sender=it["email"], date=date, subject=subject,
                          body=f"Hello Priya,\n\n{text}\n\nBest regards,\n{it['first']} {it['last']}\n{it['title']}, "
                               f"{it['name']}")
        m["label_ids"] = [*m["label_ids"], LABEL["id"]]
        it["message"] = m["id"]
        it["subject"] = subject
        return m

    messages = [
        email("late", "2026-03-09T08:12:00Z", "Refund of our January overage charge",
              f"we were charged {late['money']} for Tracking API overage in January ({_spoken(late['charged'])}). "
              f"Most of those calls were retries caused by your API, so please refund that charge."),
        email("window", "2026-03-10T14:03:00Z", "Refund of our February overage charge",
              f"please refund the Tracking API overage charge of {w['money']} from {_spoken(w['charged'])}: our "
              f"integration sent every shipment twice in February, which we have since fixed."),
        email("approved", "2026-03-11T09:47:00Z", "Refund request: onboarding workshop",
              f"we paid {ap['money']} for an onboarding workshop on {_spoken(ap['charged'])}, but the workshop was "
              f"cancelled on your side and we will not reschedule it. Please refund the charge."),
        email("done", "2026-03-12T16:20:00Z", "Refund of our February overage charge",
              f"on 2 March we asked you to refund our February Tracking API overage charge of {done['money']}. "
              f"We cannot see it yet: can you please refund it?"),
    ]
    done_refund = {"id": "re_" + hex_id(ID, "done", seed, n=24), "charge": done["charge"], "amount": done["amount"],
                   "reason": "requested_by_customer", "status": "succeeded", "created": unix("2026-03-04T11:30:00"),
                   "metadata": {}}
    slack_patch = [
        {"op": "add", "in": ["channels", finance["id"], "messages"], "value": {
            "ts": root, "user": users[asker.email]["id"],
            "text": f"{ap['short']} wants the {ap['money']} onboarding workshop of {_spoken(ap['charged'])} refunded "
                    f"(we cancelled it). Above the approval limit: can a finance approver confirm?"}},
        {"op": "add", "in": ["channels", finance["id"], "messages"], "value": {
            "ts": reply_ts, "user": users[approver.email]["id"], "thread_ts": root,
            "text": f"Approved, refund {ap['short']} in full."}},
    ]
    refund_page = notion_page(seed, "Refund and service credit policy")
    notion_patch = [approvers_paragraph(seed, ID, approvers)]

    def refund(it: dict, charge: str | None = None) -> dict:
        return {"tool": "stripe__create_refund", "arguments": {"charge": charge or it["charge"],
                                                               "reason": "requested_by_customer"}}

    def answer(it: dict, text: str, cc: list[str] | None = None) -> dict:
        args: dict[str, Any] = {"to": [it["email"]], "subject": f"Re: {it['subject']}", "threadId": it["message"],
                                "body": f"Hello {it['first']},\n\n{text}\n\nBest regards,\nPriya"}
        copy = it["cc"] if cc is None else cc
        if copy:
            args["cc"] = copy
        return {"tool": "gmail__send_email", "arguments": args}

    texts = {
        "window": f"we have refunded the February overage charge of {w['money']} in full.",
        "late": f"I am sorry: our refund policy lets us refund a charge only within 30 days of it, and the "
                f"January overage charge of {late['money']} was made on {_spoken(late['charged'])}, "
                f"{(datetime(2026, 3, 9, tzinfo=UTC) - datetime.fromisoformat(late['charged']).replace(tzinfo=UTC)).days} "
                f"days before your request, so we cannot refund it.",
        "approved": f"we have refunded the onboarding workshop charge of {ap['money']} in full.",
        "done": f"we refunded the February overage charge of {done['money']} in full on 4 March; it should "
                f"reach your account within a few days of that.",
    }
    order = ("window", "late", "approved", "done")

    def answers_with(cc: Callable[[dict[str, Any]], list[str]] | None = None) -> list[dict[str, Any]]:
        return [answer(items[r], texts[r], None if cc is None else cc(items[r])) for r in order]

    answers = answers_with()
    lookups = []
    for it in (late, w, ap, done):
        lookups += [{"tool": "gmail__read_email", "arguments": {"messageId": it["message"]}},
                    {"tool": "stripe__search_customers", "arguments": {"query": f"name~'{it['short']}'"}},
                    {"tool": "stripe__list_charges", "arguments": {"customer": it["customer"], "limit": 20}}]
    reference = [
        {"tool": "gmail__list_email_labels", "arguments": {}},
        {"tool": "gmail__search_emails", "arguments": {"query": f"label:{LABEL['name']}", "maxResults": 50}},
        *({"tool": "gmail__get_thread", "arguments": {"threadId": e["message"]}} for e in reversed(past)),
        {"tool": "notion__search", "arguments": {"query": "refund and service credit policy"}},
        {"tool": "notion__get_block_children", "arguments": {"block_id": refund_page["id"]}},
        {"tool": "notion__search", "arguments": {"query": "Customer Accounts", "filter": "database"}},
        {"tool": "notion__query_database", "arguments": {"database_id": crm_database_id(seed), "page_size": 100}},
        *lookups,
        {"tool": "stripe__list_refunds", "arguments": {"charge": done["charge"]}},
        {"tool": "slack__search_messages", "arguments": {"query": f"{ap['short'].split()[0]} in:#finance"}},
        {"tool": "slack__get_thread_replies", "arguments": {"channel_id": finance["id"], "thread_ts": root}},
        {"tool": "slack__get_user_profile", "arguments": {"user_id": users[approver.email]["id"]}},
        refund(w), refund(ap),
        *answers,
    ]
    everyone = [w, late, ap, done]
    # the answer's copy as the habit gives it; the account owner copied as well is allowed (the world's
    # answers to duplicate charges copy the owner), in either order
    ccs = {it["email"]: [it["cc"], *([it["cc"] + [it["owner"]], [it["owner"]] + it["cc"]]
                                     if it["owner"] not in it["cc"] else [])] for it in everyone}
    ccs = {k: [v for n, v in enumerate(vs) if v not in vs[:n]] for k, vs in ccs.items()}
    at_risk_status = [op for it in (*(e for e in past if e["cc"]), w, ap) for op in _at_risk(seed, it)]
    plain = answers_with(lambda it: [])
    everyone_copied = answers_with(lambda it: [head])
    return {
        "gmail_patch": [{"op": "add", "in": ["labels"], "value": LABEL},
                        *({"op": "add", "in": ["messages"], "value": m} for m in [*past_messages, *messages])],
        "notion_patch": [*notion_patch, *at_risk_status],
        "slack_patch": slack_patch,
        "stripe_patch": [{"op": "add", "in": ["refunds"], "value": r} for r in [*past_refunds, done_refund]],
        "reference": reference,
        "success": [
            {"stripe.refundIssued": {"charge": w["charge"]}},
            {"stripe.refundIssued": {"charge": ap["charge"]}},
            *({"gmail.draftSent": {"subject_pattern": "efund|harge|equest", "to": it["email"]}} for it in everyone),
            {"not": {"stripe.refundIssued": {"charge": late["charge"]}}},
        ],
        "frame": [
            {"entity": "stripe.refund", "change": ["create"], "where": {"charge": w["charge"], "amount": w["amount"]},
             "max": 1},
            {"entity": "stripe.refund", "change": ["create"], "where": {"charge": ap["charge"], "amount": ap["amount"]},
             "max": 1},
            {"entity": "gmail.message", "fields": ["label_ids"]},
            *({"entity": "gmail.message", "change": ["create"], "where": {"to": [it["email"]], "cc": cc}, "max": 2}
              for it in everyone for cc in ccs[it["email"]]),
            {"entity": "gmail.draft", "change": ["create", "delete"]},
            {"entity": "slack.message", "change": ["create"], "where": {"channel": finance["id"]}, "max": 2},
        ],
        "wrongs": [
            {"why": "refunds the January overage of the customer who asked about February",
             "kind": "lookalike", "calls": [refund(w, w["jan_charge"]), refund(w, w["jan_charge"]), refund(ap),
                                            *answers]},
            {"why": "refunds every request it can, the one asked over 30 days after the charge too",
             "kind": "collateral", "calls": [refund(w), refund(ap), refund(ap), refund(late), *answers]},
            {"why": "reads the superseded 2025 policy (14 days): refuses the onboarding workshop refund",
             "kind": "other", "calls": [refund(w), refund(w), *answers]},
            {"why": "refunds without answering the customers whose requests it refuses",
             "kind": "other", "calls": [refund(w), refund(ap), refund(ap), answers[0], answers[2]]},
            {"why": "answers as the policy says but copies nobody: misses that answers to At-risk accounts copy the "
                    "Head of Customer Success (what sampling a few earlier answers shows)",
             "kind": "other", "calls": [refund(w), refund(ap), refund(ap), *plain]},
            {"why": "copies the Head of Customer Success on every answer",
             "kind": "other", "calls": [refund(w), refund(ap), refund(ap), *everyone_copied]},
            {"why": "copies each account's owner instead of the Head of Customer Success",
             "kind": "other", "calls": [refund(w), refund(ap), refund(ap), *answers_with(
                 lambda it: [it["owner"]] if it["owner"] != head else [])]},
        ],
        "alternatives": [
            {"why": "answers each customer right after deciding their request, and notes the approved refund "
                    "in the #finance thread",
             "calls": [answers[1], refund(w), refund(ap), answers[0], answers[2], answers[3],
                       {"tool": "slack__reply_to_thread", "arguments": {
                           "channel_id": finance["id"], "thread_ts": root,
                           "text": f"Refunded {ap['short']}'s onboarding workshop ({ap['money']})."}}]},
            {"why": "copies each account's owner on its answer as well (as the answers to duplicate charges do)",
             "calls": [refund(w), refund(ap), *answers_with(
                 lambda it: it["cc"] + ([it["owner"]] if it["owner"] not in it["cc"] else []))]},
        ],
        "facts": {"past": [{k: e[k] for k in ("short", "status", "plan", "outcome", "charge_kind", "cc")}
                           for e in past]},
        "max_steps": budget(len(reference), forced=1),
    }


GOAL = ("Customers' refund requests have piled up under my Finance/Refunds label. Decide each new one as our refund "
        "policy says, do what it allows in Stripe, and answer every customer on their thread the way we answered "
        "the earlier requests there.")


def build() -> dict[str, Any]:
    task = case_task(
        GOAL,
        ["gmail", "notion", "slack", "stripe"],
        [*GMAIL_TOOLS, "gmail__list_email_labels", *NOTION_READ, *SLACK_TOOLS, *STRIPE_READ, "stripe__create_refund"],
        [{"tool": "stripe__create_refund", "on_call": 2, "kind": "unavailable"}], 900,
        ("gmail", "notion", "slack", "stripe"))
    return template(id=ID, version=2, servers=["gmail", "notion", "slack", "stripe"], difficulty="hard",
                    category="recovery", case_list=cases(case_of, want=10, level="hard"), task=task)
