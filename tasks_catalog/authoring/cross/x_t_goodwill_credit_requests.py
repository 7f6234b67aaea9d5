"""x-t-goodwill-credit-requests: a customer success colleague asks in #finance for goodwill credits for
three customers, each on its March invoice; the refund policy decides which may be issued.

Medium; Slack, Notion and Stripe. Per customer the decision differs: one credit is above the policy's
approval threshold and a finance approver approved it; one is above it and was not approved (a colleague
who is not an approver said it looked fine, the approver said no); one is below the threshold and needs
no approval (the approver does not mention it). The approvers are named in the policy (planted), the
amounts and invoice numbers in the request; each credit is a refund of that amount on the charge that
paid the named invoice (Stripe). The reply in the thread must name the credit left out.
"""

from __future__ import annotations

from typing import Any

from tasks_catalog.authoring.cross import cases, org, template, world
from tasks_catalog.authoring.cross._x_t_billing import (
    NOTION_READ,
    SLACK_TOOLS,
    STRIPE_READ,
    approvers_paragraph,
    finance_approvers,
    money,
    notion_page,
    rng_for,
    slack_channel,
    world_ref,
)

ID = "x-t-goodwill-credit-requests"


def _candidates(seed: int) -> list[dict[str, Any]]:
    """Active EUR customers whose March invoice was paid by exactly one charge, never refunded."""
    o = org(seed)
    stripe = world("stripe", seed)
    by_id = {c["id"]: c for c in stripe["customers"]}
    refunded = {r["charge"] for r in stripe["refunds"]}
    out = []
    for c in o.customers:
        s = by_id.get(c.stripe_id or "")
        if s is None or c.status != "Active" or c.currency != "eur" or c.group or c.duplicate_of:
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
        out.append({"short": c.short, "name": c.name, "owner": c.owner, "invoice": inv["id"], "number": inv["number"],
                    "charge": paid[0]["id"], "total": total, "feb_charge": feb_ch[0]["id"] if len(feb_ch) == 1 else None})
    return out


def case_of(seed: int) -> dict[str, Any] | None:
    o = org(seed)
    rng = rng_for(ID, seed)
    pool = [c for c in _candidates(seed) if c["feb_charge"]]
    firsts: set[str] = set()
    picked = []
    for c in rng.sample(pool, len(pool)):
        if c["short"].split()[0] not in firsts:
            firsts.add(c["short"].split()[0])
            picked.append(c)
        if len(picked) == 3:
            break
    if len(picked) < 3:
        return None
    approved, refused, small = picked
    approved["amount"] = rng.randrange(520, 900) * 100
    refused["amount"] = rng.randrange(520, 900) * 100
    small["amount"] = rng.randrange(120, 450) * 100
    for c in picked:
        c["money"] = money(c["amount"], "eur")
    approvers = finance_approvers(seed)
    users = {u.get("email"): u for u in world("slack", seed)["users"] if not u.get("deleted")}
    by_key = {e.key: e for e in o.employees}
    asker = by_key.get(approved["owner"])
    others = [e for e in o.employees if e.team == approvers[0].team and "finance-approver" not in e.flags
              and e.employed_on("2026-03-16") and e.email in users]
    if (len(approvers) < 2 or asker is None or asker.email not in users or "finance-approver" in asker.flags
            or not others or any(a.email not in users for a in approvers)):
        return None
    approver, other = rng.choice(approvers), rng.choice(others)
    finance = slack_channel(seed, "finance")
    root, r1, r2 = "1773390600.402100", "1773394200.417300", "1773401400.433900"
    if {root, r1, r2} & {m["ts"] for m in finance["messages"]}:
        return None
    listing = "; ".join(f"{c['short']} {c['money']} on invoice {c['number']}" for c in picked)
    slack_patch = [
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
    refund_page = notion_page(seed, "Refund and service credit policy")
    notion_patch = [approvers_paragraph(seed, ID, approvers, " A goodwill credit is a refund of its amount on the "
                                                             "charge that paid the invoice it is given on.")]

    def refund(c: dict, amount: int | None = None, charge: str | None = None) -> dict:
        return {"tool": "stripe__create_refund", "arguments": {"charge": charge or c["charge"],
                                                               "amount": amount or c["amount"],
                                                               "reason": "requested_by_customer"}}

    answer = {"tool": "slack__reply_to_thread", "arguments": {
        "channel_id": finance["id"], "thread_ts": root,
        "text": f"Issued the goodwill credits for {approved['short']} ({approved['money']}, approved) and "
                f"{small['short']} ({small['money']}, under the 500 EUR approval limit). Not {refused['short']}: "
                f"a finance approver did not approve it."}}
    reference = [
        {"tool": "slack__search_messages", "arguments": {"query": "goodwill credits in:#finance"}},
        {"tool": "slack__get_thread_replies", "arguments": {"channel_id": finance["id"], "thread_ts": root}},
        {"tool": "slack__get_users", "arguments": {"limit": 200}},
        {"tool": "notion__search", "arguments": {"query": "refund and service credit policy"}},
        {"tool": "notion__get_block_children", "arguments": {"block_id": refund_page["id"]}},
        {"tool": "stripe__search_invoices", "arguments": {"query": f"number:'{approved['number']}'"}},
        {"tool": "stripe__search_invoices", "arguments": {"query": f"number:'{small['number']}'"}},
        refund(approved), refund(small), answer,
    ]
    return {
        "asker": {"first": asker.first},
        "approved": approved, "refused": refused, "small": small,
        "channel": finance["id"], "root": root,
        "slack_patch": slack_patch, "notion_patch": notion_patch,
        "reference": reference,
        "wrongs": [
            {"why": "credits the approved customer on its February invoice's charge instead of March's",
             "kind": "lookalike", "calls": [refund(approved, charge=approved["feb_charge"]), refund(small), answer]},
            {"why": "issues all three credits, the one the approver refused too",
             "kind": "collateral", "calls": [refund(approved), refund(small), refund(refused), answer]},
            {"why": "issues only the credit the approver named, missing the one below the approval limit",
             "kind": "other", "calls": [refund(approved), answer]},
            {"why": "credits the whole March invoice of the approved customer",
             "kind": "other", "calls": [refund(approved, amount=approved["total"]), refund(small), answer]},
        ],
        "alternatives": [
            {"why": "answers first that it is on it, then reports in the thread", "calls": [
                {"tool": "slack__reply_to_thread", "arguments": {"channel_id": finance["id"], "thread_ts": root,
                                                                 "text": "On it."}},
                refund(small), refund(approved), answer]},
        ],
    }


def build() -> dict[str, Any]:
    task = {
        "goal": "{{case.asker.first}} asked in #finance for goodwill credits for {{case.approved.short}}, "
                "{{case.refused.short}} and {{case.small.short}}. Issue the ones our refund policy allows, and "
                "answer in the thread which you issued and which not.",
        "initial_state": {
            "notion": {"world": world_ref("notion"), "patch": "{{case.notion_patch}}"},
            "slack": {"world": world_ref("slack"), "patch": "{{case.slack_patch}}"},
            "stripe": {"world": world_ref("stripe"), "patch": []},
        },
        "available_tools": [*NOTION_READ, *SLACK_TOOLS, *STRIPE_READ, "stripe__create_refund"],
        "faults": [],
        "max_steps": 15,
        "timeout_s": 600,
        "frame": [
            {"entity": "stripe.refund", "change": ["create"],
             "where": {"charge": "{{case.approved.charge}}", "amount": "{{case.approved.amount}}"}, "max": 1},
            {"entity": "stripe.refund", "change": ["create"],
             "where": {"charge": "{{case.small.charge}}", "amount": "{{case.small.amount}}"}, "max": 1},
            {"entity": "slack.message", "change": ["create"], "where": {"channel": "{{case.channel}}"}, "max": 2},
        ],
        "success": {"all": [
            {"stripe.refundIssued": {"charge": "{{case.approved.charge}}"}},
            {"stripe.refundIssued": {"charge": "{{case.small.charge}}"}},
            {"not": {"stripe.refundIssued": {"charge": "{{case.refused.charge}}"}}},
            {"slack.messagePosted": {"channel": "{{case.channel}}", "pattern": "{{case.refused.short}}"}},
        ]},
        "reference_solution": "{{case.reference}}",
        "wrong_solutions": "{{case.wrongs}}",
        "alternative_solutions": "{{case.alternatives}}",
    }
    return template(id=ID, version=1, servers=["notion", "slack", "stripe"], difficulty="medium",
                    category="standard", case_list=cases(case_of), task=task)
