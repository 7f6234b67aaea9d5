"""x-t-goodwill-credit-requests: a customer success colleague asks in #finance for goodwill credits for
three customers, each on its March invoice; the refund policy decides which may be issued, and the
answer is written the way finance has answered earlier goodwill credits.

Medium; Slack, Notion and Stripe. Per customer the decision differs: one credit is above the policy's
approval threshold and a finance approver approved it; one is above it and was not approved (a colleague
who is not an approver said it looked fine, the approver said no); one is below the threshold and needs
no approval (the approver does not mention it). The approvers are named in the policy (planted), the
amounts and invoice numbers in the request; each credit is a refund of that amount on the charge that
paid the named invoice (Stripe). The reply in the thread must name the credit left out.

Version 2 adds the team's past work and a habit only opening it shows. Earlier in #finance sit
:data:`PAST` goodwill credit requests (one customer each, on its February invoice, asked 9 February to
6 March), each answered in its thread by us (the Slack viewer) with the refund done, and each refund is in
Stripe. Every earlier thread has two replies (an approver's "Approved." before the answer when the credit
was above the approval limit, the requester's thanks after it otherwise), so the channel history and a
search for the requests show them alike. The habit: an answer about a credit to a customer billed against
a purchase order (the Stripe customer's ``po_number`` metadata) quotes that purchase order
(:func:`quoted`); it shows only in the text of the opened threads' answers, in :data:`PO_PAST` of them,
and the other answers, opened, quote none (their customers have no purchase order in Stripe). Of the two
credits to issue now, exactly one is to a customer with a purchase order, so the answer must quote it;
the refused customer has none.

:data:`PO_READINGS` lists the other readings of when an answer quotes the purchase order (always, never,
by requester, by plan, for credits that needed an approval, for purchase-order customers on one side of
the limit or on some plans only, above or below an amount or an invoice total); :func:`check_po_convention`
raises unless each is contradicted by an earlier answer or treats the new credits as the habit does. A
draw that leaves one open is drawn again (:data:`DRAWS` times). Quoting a purchase order where the habit
does not call for one cannot happen (the other customers have none); leaving the one due out fails.
"""

from __future__ import annotations

import random
import re
from typing import Any

from tasks_catalog.authoring.cross import budget, cases, org, template, world
from tasks_catalog.authoring.cross._x_t_billing import (
    NOTION_READ,
    SLACK_TOOLS,
    STRIPE_READ,
    approvers_paragraph,
    finance_approvers,
    hex_id,
    money,
    notion_page,
    rng_for,
    slack_channel,
    slack_ts,
    weekdays,
    world_ref,
)
from tasks_catalog.authoring.cross._x_t_readings import Always, FlaggedSide, FlaggedWhen, left_open
from tasks_catalog.authoring.cross._x_t_support import both

ID = "x-t-goodwill-credit-requests"
#: How many earlier goodwill credit requests sit in #finance, and how many of them are of customers billed
#: against a purchase order (their answers quote it).
PAST, PO_PAST = 7, 3
#: How many draws of the earlier requests are tried for a seed before it gives no case.
DRAWS = 8
#: The refund policy's approval limit (500 EUR): a credit above it needs a finance approver's approval.
LIMIT = 50_000
#: Why the earlier customers were given a goodwill credit (free text of the requests).
PAST_REASONS = [
    "after the tracking outage hit their peak week",
    "for the week their label printing was down",
    "after our migration dropped their customs documents twice",
    "for the routing errors that sent their drivers the long way in January",
    "after their onboarding slipped by three weeks on our side",
    "for the duplicate shipment notifications their customers got",
    "after the telematics feed went quiet for four days",
]


def quoted(item: dict[str, Any]) -> bool:
    """The habit: an answer about a credit to a customer billed against a purchase order quotes it."""
    return bool(item["po"])


#: When an answer quotes the customer's purchase order, as a reader of the earlier answers might guess it
#: (each field is one the tools show: the requester, the Stripe customer's plan, whether the credit needed
#: an approval, the credit's amount, the invoice's total). The ``po_*`` readings are "quote it for
#: purchase-order customers only when ...": they fit every earlier answer and quote a new credit's
#: purchase order only when an earlier quoted one shared the side of the limit, or the plan.
PO_READINGS: dict[str, Any] = {
    "always": Always(True, flag="quoted"),
    "never": Always(False, flag="quoted"),
    "by the requester": FlaggedWhen("asker", flag="quoted"),
    "by the customer's plan": FlaggedWhen("plan", flag="quoted"),
    "for credits that needed an approval (or did not)": FlaggedWhen("above", flag="quoted"),
    "for purchase-order customers on one side of the approval limit only": FlaggedWhen("po_side", flag="quoted"),
    "for purchase-order customers on some plans only": FlaggedWhen("po_plan", flag="quoted"),
    "above an amount": FlaggedSide("amount", low=False, flag="quoted"),
    "below an amount": FlaggedSide("amount", low=True, flag="quoted"),
    "above an invoice total": FlaggedSide("total", low=False, flag="quoted"),
    "below an invoice total": FlaggedSide("total", low=True, flag="quoted"),
}


def _facts(c: dict[str, Any], asker: str, amount: int, total: int) -> dict[str, Any]:
    """What a reader might take for the reason of a quote: the fields :data:`PO_READINGS` read."""
    above = amount > LIMIT
    return {"po": c["po"], "plan": c["plan"], "asker": asker, "above": above, "amount": amount, "total": total,
            "po_side": (bool(c["po"]), above), "po_plan": (bool(c["po"]), c["plan"])}


def check_po_convention(examples: list[dict[str, Any]], items: list[dict[str, Any]]) -> None:
    """Raise unless the earlier answers tell the habit (:func:`quoted`) apart from every reading of
    :data:`PO_READINGS`: each is contradicted by an earlier answer or treats the new credits as the habit
    does; each earlier answer quotes a purchase order exactly when the habit says; the quoting answers are
    2-3 of the earlier ones; and of the new credits one is due a quote and one is not."""
    if any(e["quoted"] != quoted(e) for e in examples):
        raise ValueError(f"{ID}: an earlier answer's purchase order quote does not follow the habit")
    n = sum(e["quoted"] for e in examples)
    if not 2 <= n <= 3 or n * 2 >= len(examples):
        raise ValueError(f"{ID}: {n} of {len(examples)} earlier answers quote a purchase order; 2-3 should")
    if sorted(quoted(i) for i in items) != [False, True]:
        raise ValueError(f"{ID}: the new credits should be one due a purchase order quote and one not")
    for name in left_open(PO_READINGS, examples, items, quoted)[:1]:
        raise ValueError(f"{ID}: the reading {name!r} fits every earlier answer and differs on a new credit")


def _candidates(seed: int) -> list[dict[str, Any]]:
    """Active EUR customers whose March invoice was paid by exactly one charge, never refunded, with their
    February invoice and its one unrefunded charge when it has one, their plan and purchase order (Stripe)."""
    o = org(seed)
    stripe = world("stripe", seed)
    by_id = {c["id"]: c for c in stripe["customers"]}
    refunded = {r["charge"] for r in stripe["refunds"]}
    out = []
    for c in o.customers:
        s = by_id.get(c.stripe_id or "")
        if s is None or c.status != "Active" or c.currency != "eur" or c.group or c.duplicate_of or "'" in s["name"]:
            continue
        march = [i for i in stripe["invoices"] if i["customer"] == s["id"] and i["number"]
                 and "March 2026" in (i.get("description") or "")]
        if len(march) != 1 or march[0]["status"] != "paid":
            continue
        inv = march[0]
        total = sum(line["amount"] for line in inv["lines"])
        paid = [ch for ch in stripe["charges"] if ch["invoice"] == inv["id"] and ch["status"] == "succeeded"]
        if len(paid) != 1 or paid[0]["id"] in refunded or total < 100_000:
            continue
        feb = [i for i in stripe["invoices"] if i["customer"] == s["id"] and "February 2026" in (i.get("description") or "")]
        feb_ch = [ch for ch in stripe["charges"] if feb and ch["invoice"] == feb[0]["id"] and ch["status"] == "succeeded"
                  and ch["id"] not in refunded]
        one = len(feb) == 1 and len(feb_ch) == 1 and feb[0]["number"]
        out.append({"short": c.short, "name": c.name, "stripe_name": s["name"], "owner": c.owner, "invoice": inv["id"],
                    "number": inv["number"], "charge": paid[0]["id"], "total": total,
                    "feb_charge": feb_ch[0]["id"] if one else None, "feb_amount": feb_ch[0]["amount"] if one else 0,
                    "feb_number": feb[0]["number"] if one else None,
                    "feb_total": sum(line["amount"] for line in feb[0]["lines"]) if one else 0,
                    "po": s["metadata"].get("po_number") or None, "plan": s["metadata"].get("plan")})
    return out


def _draw_past(rng: random.Random, pool: list[dict[str, Any]], asker_of: dict[str, str], approvers: list[str],
               new_asker: str) -> list[dict[str, Any]] | None:
    """:data:`PAST` earlier requests from ``pool`` (customers whose February invoice can take the credit):
    :data:`PO_PAST` of customers with a purchase order, the others of customers without; a customer of one
    owner among both kinds, and one of the new requester among both, where they can be found. Oldest first."""
    pos = [c for c in pool if c["po"]]
    nos = [c for c in pool if not c["po"]]
    rng.shuffle(pos)
    rng.shuffle(nos)
    if len(pos) < PO_PAST or len(nos) < PAST - PO_PAST:
        return None
    po_picks = pos[:PO_PAST]
    owners = {asker_of[c["owner"]] for c in po_picks}
    nos.sort(key=lambda c: asker_of[c["owner"]] not in owners | {new_asker})
    picks = po_picks + nos[:PAST - PO_PAST]
    # the amounts: the purchase-order credits on both sides of the approval limit, the others too
    sides = [True, False, rng.random() < 0.5] + [i % 2 == 0 for i in range(PAST - PO_PAST)]
    days = sorted(rng.sample(weekdays("2026-02-09", "2026-03-06"), PAST))
    out = []
    for c, above, day in zip(picks, sides, rng.sample(days, PAST), strict=True):
        amount = rng.randrange(510, 900) * 100 if above else rng.randrange(150, 490) * 100
        if amount > c["feb_amount"]:
            return None
        asker = asker_of[c["owner"]]
        out.append({"c": c, "day": day, "approver": rng.choice(approvers) if above else None, "quoted": bool(c["po"]),
                    "reason": rng.choice(PAST_REASONS), **_facts(c, asker, amount, c["feb_total"])})
    return sorted(out, key=lambda e: (e["day"], e["c"]["name"]))


def _po_pattern(po: str) -> str:
    """Text quoting the purchase order ``po`` as written (PO-2026-0847), or by its number alone (2026-0847)."""
    return "(^|[^0-9])" + "[- ]?".join(re.escape(x) for x in po.removeprefix("PO-").split("-")) + "([^0-9]|$)"


def _past_answer(e: dict[str, Any]) -> str:
    """Our answer in an earlier request's thread: the refund done, and the purchase order where there is one."""
    c = e["c"]
    text = f"Done: refunded {money(e['amount'], 'eur')} on the payment of invoice {c['feb_number']}."
    return text[:-1] + f" (their purchase order: {c['po']})." if e["quoted"] else text


def _past_work(seed: int, examples: list[dict[str, Any]], users: dict[str, dict[str, Any]],
               viewer: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The Slack messages of the earlier requests (root, two replies each) and their refunds in Stripe."""
    messages, refunds = [], []
    for n, e in enumerate(examples):
        c, day = e["c"], e["day"]
        root = slack_ts(day, 9, 5 + n, ID, f"past:{n}:root:{seed}")
        asked = (f"Goodwill credit for {c['short']}, {e['reason']}: {money(e['amount'], 'eur')} on their February "
                 f"invoice {c['feb_number']}. Can finance issue it?")
        answer_ts = slack_ts(day, 11, 20 + n, ID, f"past:{n}:answer:{seed}")
        answer = {"ts": answer_ts, "user": viewer, "thread_ts": root, "text": _past_answer(e)}
        if e["approver"]:
            replies = [{"ts": slack_ts(day, 10, 10 + n, ID, f"past:{n}:approval:{seed}"), "user": users[e["approver"]]["id"],
                        "thread_ts": root, "text": "Approved."}, answer]
        else:
            replies = [answer, {"ts": slack_ts(day, 11, 45 + n, ID, f"past:{n}:thanks:{seed}"), "user": users[e["asker"]]["id"],
                                "thread_ts": root, "text": "Thanks!"}]
        messages += [{"ts": root, "user": users[e["asker"]]["id"], "text": asked}, *replies]
        e["root"] = root
        refunds.append({"id": "re_" + hex_id(ID, "past", n, seed, n=24), "charge": c["feb_charge"], "amount": e["amount"],
                        "reason": "requested_by_customer", "status": "succeeded",
                        "created": int(answer_ts.split(".")[0]), "metadata": {}})
    return messages, refunds


def _pick_new(rng: random.Random, pool: list[dict[str, Any]]) -> dict[str, dict[str, Any]] | None:
    """The three customers of the new request, by role, of three different first words: the one refused has
    no purchase order; of the two issued (``approved``, ``small``) exactly one has."""
    firsts: set[str] = set()
    picked: dict[str, dict[str, Any]] = {}
    for c in rng.sample(pool, len(pool)):
        first = c["short"].split()[0]
        if first in firsts:
            continue
        role = ("refused" if not c["po"] and "refused" not in picked else
                next((r for r, twin in (("approved", "small"), ("small", "approved"))
                      if r not in picked and (twin not in picked or bool(c["po"]) != bool(picked[twin]["po"]))), None))
        if role is not None:
            firsts.add(first)
            picked[role] = c
        if len(picked) == 3:
            return picked
    return None


def _fair(examples: list[dict[str, Any]], items: list[dict[str, Any]]) -> bool:
    """Whether :func:`check_po_convention` accepts ``examples`` for the new credits ``items``."""
    try:
        check_po_convention(examples, items)
    except ValueError:
        return False
    return True


def case_of(seed: int) -> dict[str, Any] | None:
    o = org(seed)
    rng = rng_for(ID, seed)
    approvers = finance_approvers(seed)
    slack = world("slack", seed)
    users = {u.get("email"): u for u in slack["users"] if not u.get("deleted")}
    viewer = slack["viewer"]
    by_key = {e.key: e for e in o.employees}
    # the customers' owners as requesters: in Slack, not a finance approver, not us
    asker_of = {k: e.email for k, e in by_key.items() if e.email in users and "finance-approver" not in e.flags
                and users[e.email]["id"] != viewer}
    pool = [c for c in _candidates(seed) if c["feb_charge"] and c["owner"] in asker_of]
    if len(approvers) < 2 or any(a.email not in users or users[a.email]["id"] == viewer for a in approvers):
        return None
    picked = _pick_new(rng, pool)
    if picked is None:
        return None
    approved, refused, small = picked["approved"], picked["refused"], picked["small"]
    approved["amount"] = rng.randrange(520, 900) * 100
    refused["amount"] = rng.randrange(520, 900) * 100
    small["amount"] = rng.randrange(120, 450) * 100
    for c in picked.values():
        c["money"] = money(c["amount"], "eur")
    asker = by_key.get(approved["owner"])
    others = [e for e in o.employees if e.team == approvers[0].team and "finance-approver" not in e.flags
              and e.employed_on("2026-03-16") and e.email in users and users[e.email]["id"] != viewer]
    if asker is None or approved["owner"] not in asker_of or not others:
        return None
    approver, other = rng.choice(approvers), rng.choice(others)
    items = [_facts(c, asker.email, c["amount"], c["total"]) for c in (approved, small)]
    firsts = {c["short"].split()[0] for c in picked.values()}
    rest = [c for c in pool if c["short"].split()[0] not in firsts]
    examples = next((drawn for drawn in (_draw_past(rng, rest, asker_of, [a.email for a in approvers], asker.email)
                                         for _ in range(DRAWS)) if drawn is not None and _fair(drawn, items)), None)
    if examples is None:
        return None
    finance = slack_channel(seed, "finance")
    root, r1, r2 = "1773390600.402100", "1773394200.417300", "1773401400.433900"
    past_messages, past_refunds = _past_work(seed, examples, users, viewer)
    if {root, r1, r2, *(m["ts"] for m in past_messages)} & {m["ts"] for m in finance["messages"]}:
        return None
    listing = "; ".join(f"{c['short']} {c['money']} on invoice {c['number']}" for c in (approved, refused, small))
    slack_patch = [{"op": "add", "in": ["channels", finance["id"], "messages"], "value": m} for m in past_messages] + [
        {"op": "add", "in": ["channels", finance["id"], "messages"], "value": {
            "ts": root, "user": users[asker.email]["id"],
            "text": f"Goodwill credits for three customers who had a rough February with us, each on their March "
                    f"invoice: {listing}. Can finance issue them?"}},
        {"op": "add", "in": ["channels", finance["id"], "messages"], "value": {
            "ts": r1, "user": users[other.email]["id"], "thread_ts": root,
            "text": "All three look fine to me."}},
        {"op": "add", "in": ["channels", finance["id"], "messages"], "value": {
            "ts": r2, "user": users[approver.email]["id"], "thread_ts": root,
            "text": f"Approved for {approved['short']}. Not {refused['short']}: their credit waits for the renewal "
                    f"talks."}},
    ]
    stripe_patch = [{"op": "add", "in": ["refunds"], "value": r} for r in past_refunds]
    refund_page = notion_page(seed, "Refund and service credit policy")
    notion_patch = [approvers_paragraph(seed, ID, approvers, " A goodwill credit is a refund of its amount on the "
                                                             "charge that paid the invoice it is given on.")]
    po_item = approved if approved["po"] else small

    def refund(c: dict, amount: int | None = None, charge: str | None = None) -> dict:
        return {"tool": "stripe__create_refund", "arguments": {"charge": charge or c["charge"],
                                                               "amount": amount or c["amount"],
                                                               "reason": "requested_by_customer"}}

    def po(c: dict[str, Any], quote: bool) -> str:
        return f", purchase order {c['po']}" if quote and c["po"] else ""

    def answer(quote: bool = True) -> dict[str, Any]:
        return {"tool": "slack__reply_to_thread", "arguments": {
            "channel_id": finance["id"], "thread_ts": root,
            "text": f"Issued the goodwill credits for {approved['short']} ({approved['money']}, approved"
                    f"{po(approved, quote)}) and {small['short']} ({small['money']}, under the 500 EUR approval "
                    f"limit{po(small, quote)}). Not {refused['short']}: a finance approver did not approve it."}}

    names = [c["stripe_name"] for c in (approved, refused, small)] + [e["c"]["stripe_name"] for e in examples]
    reference = [
        {"tool": "slack__search_messages", "arguments": {"query": "goodwill in:#finance"}},
        {"tool": "slack__get_thread_replies", "arguments": {"channel_id": finance["id"], "thread_ts": root}},
        *({"tool": "slack__get_thread_replies", "arguments": {"channel_id": finance["id"], "thread_ts": e["root"]}}
          for e in examples),
        {"tool": "slack__get_users", "arguments": {"limit": 200}},
        {"tool": "notion__search", "arguments": {"query": "refund and service credit policy"}},
        {"tool": "notion__get_block_children", "arguments": {"block_id": refund_page["id"]}},
        {"tool": "stripe__search_invoices", "arguments": {"query": f"number:'{approved['number']}'"}},
        {"tool": "stripe__search_invoices", "arguments": {"query": f"number:'{small['number']}'"}},
        {"tool": "stripe__search_customers", "arguments": {
            "query": " OR ".join(f"name:'{n}'" for n in names), "limit": 20}},
        refund(approved), refund(small), answer(),
    ]
    return {
        "asker": {"first": asker.first},
        "approved": approved, "refused": refused, "small": small,
        "channel": finance["id"], "root": root,
        "po_pattern": both(re.escape(po_item["short"]), _po_pattern(po_item["po"])),
        "slack_patch": slack_patch, "notion_patch": notion_patch, "stripe_patch": stripe_patch,
        "reference": reference, "max_steps": budget(len(reference)),
        "wrongs": [
            {"why": "credits the approved customer on its February invoice's charge instead of March's",
             "kind": "lookalike", "calls": [refund(approved, charge=approved["feb_charge"]), refund(small), answer()]},
            {"why": "issues all three credits, the one the approver refused too",
             "kind": "collateral", "calls": [refund(approved), refund(small), refund(refused), answer()]},
            {"why": "issues only the credit the approver named, missing the one below the approval limit",
             "kind": "other", "calls": [refund(approved), answer()]},
            {"why": "credits the whole March invoice of the approved customer",
             "kind": "other", "calls": [refund(approved, amount=approved["total"]), refund(small), answer()]},
            {"why": "answers as the earlier answers without a purchase order do, leaving out the purchase order of "
                    "the customer billed against one (what reading a few earlier threads gives)",
             "kind": "other", "calls": [refund(approved), refund(small), answer(quote=False)]},
        ],
        "alternatives": [
            {"why": "answers first that it is on it, then reports in the thread", "calls": [
                {"tool": "slack__reply_to_thread", "arguments": {"channel_id": finance["id"], "thread_ts": root,
                                                                 "text": "On it."}},
                refund(small), refund(approved), answer()]},
            {"why": "answers each credit in its own reply, as the earlier threads answer one credit each", "calls": [
                *(c for x in (approved, small) for c in (refund(x), {
                    "tool": "slack__reply_to_thread", "arguments": {
                        "channel_id": finance["id"], "thread_ts": root,
                        "text": f"{x['short']}: done, refunded {x['money']} on the payment of invoice "
                                f"{x['number']}{po(x, True)}."}})),
                {"tool": "slack__reply_to_thread", "arguments": {
                    "channel_id": finance["id"], "thread_ts": root,
                    "text": f"Not {refused['short']}: a finance approver did not approve it."}}]},
        ],
        "facts": {"examples": [{k: e[k] for k in ("day", "amount", "quoted", "asker", "plan")} for e in examples],
                  "po_item": po_item["short"]},
    }


def build() -> dict[str, Any]:
    task = {
        "goal": "{{case.asker.first}} asked in #finance for goodwill credits for {{case.approved.short}}, "
                "{{case.refused.short}} and {{case.small.short}}. Issue the ones our refund policy allows, and "
                "answer in the thread which you issued and which not, as we have answered earlier goodwill credits.",
        "initial_state": {
            "notion": {"world": world_ref("notion"), "patch": "{{case.notion_patch}}"},
            "slack": {"world": world_ref("slack"), "patch": "{{case.slack_patch}}"},
            "stripe": {"world": world_ref("stripe"), "patch": "{{case.stripe_patch}}"},
        },
        "available_tools": [*NOTION_READ, *SLACK_TOOLS, *STRIPE_READ, "stripe__create_refund"],
        "faults": [],
        "max_steps": "{{case.max_steps}}",
        "timeout_s": 600,
        "frame": [
            {"entity": "stripe.refund", "change": ["create"],
             "where": {"charge": "{{case.approved.charge}}", "amount": "{{case.approved.amount}}"}, "max": 1},
            {"entity": "stripe.refund", "change": ["create"],
             "where": {"charge": "{{case.small.charge}}", "amount": "{{case.small.amount}}"}, "max": 1},
            {"entity": "slack.message", "change": ["create"], "where": {"channel": "{{case.channel}}"}, "max": 3},
        ],
        "success": {"all": [
            {"stripe.refundIssued": {"charge": "{{case.approved.charge}}"}},
            {"stripe.refundIssued": {"charge": "{{case.small.charge}}"}},
            {"not": {"stripe.refundIssued": {"charge": "{{case.refused.charge}}"}}},
            {"slack.messagePosted": {"channel": "{{case.channel}}", "pattern": "{{case.refused.short}}"}},
            {"slack.messagePosted": {"channel": "{{case.channel}}", "pattern": "{{case.po_pattern}}"}},
        ]},
        "reference_solution": "{{case.reference}}",
        "wrong_solutions": "{{case.wrongs}}",
        "alternative_solutions": "{{case.alternatives}}",
    }
    return template(id=ID, version=2, servers=["notion", "slack", "stripe"], difficulty="medium",
                    category="standard", case_list=cases(case_of, want=10, level="medium"), task=task)
