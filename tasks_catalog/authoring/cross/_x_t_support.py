"""The support mailbox family: what x-t-support-inbox-backlog and x-t-support-inbox-new-requests share.

The Support label and its sub-labels, the customers a case may draw (billed in Stripe at the billing
contact, plan and seats agreeing with the CRM, key accounts with their owner), their invoices of this
year, the lookalike key accounts, the texts customers ask with and the patterns a reply's facts are
judged by, and the tools of the mailbox tasks.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

from servers.notion import NotionState, NotionTools
from tasks_catalog.authoring.cross import org, world
from tasks_catalog.authoring.cross._x_t_accounts import crm_rows
from tasks_catalog.authoring.cross._x_t_billing import money
from tasks_catalog.authoring.cross._x_t_people import call

QUEUE = {"id": "Label_11", "name": "Support"}

LABELS = {"billing": {"id": "Label_12", "name": "Support/Billing"},
          "account": {"id": "Label_13", "name": "Support/Account"},
          "cancel": {"id": "Label_14", "name": "Support/Cancellation"},
          "other": {"id": "Label_15", "name": "Support/Other"}}

#: Lookalike key accounts: a letter apart, different companies (the org plants them in every seed).
PAIRS = (("Harbour Foods Ltd", "Harbor Foods Inc"), ("Nordkapp Marine AS", "Nordkap Marine AS"),
         ("Hanbit Electronics Co", "Hanbit Electronic Co"), ("Lumen Group GmbH", "Lumen Retail Ltd"))

PLAN_WORD = {"starter": "[Ss]tarter|STARTER", "growth": "[Gg]rowth|GROWTH", "scale": "[Ss]cale|SCALE",
             "enterprise": "[Ee]nterprise|ENTERPRISE"}

STATUS_WORD = {"paid": "(^|[^Nn])[Pp]aid|PAID|[Ss]ettled",
               "open": "[Oo]pen|OPEN|[Oo]utstanding|[Uu]npaid|not (yet )?(been )?paid|[Dd]ue|[Aa]waiting"}

CANCEL = "[Cc]ancel|CANCEL"

SIGN_OFF = "Best regards,\nPriya Raman\nOperations manager, Kestrel Freight Systems"

ASKS = {
    "billing": [("Invoice {n}", "could you tell me where invoice {n} stands? Our accounts payable team cannot match it, "
                 "and I would like to know whether it has been settled and for what total."),
                ("Question about invoice {n}", "we have invoice {n} in our books. What is its status on your side, and "
                 "what is its total? We are closing our month."),
                ("Status of invoice {n}", "quick one: where are we with invoice {n}, and what total should we have "
                 "for it?")],
    "account": [("Our plan and seats", "for our budget review: which plan are we on with you, and how many seats "
                 "does it have at the moment?"),
                ("Which plan are we on?", "our finance team asked me which of your plans we are on and how many "
                 "seats it covers. Could you confirm?"),
                ("Seat count on our account", "how many seats do we have on our account, and on which plan? I need it "
                 "for next year's budget.")],
    "cancel": [("Cancelling our subscription", "we have decided to stop using Kestrel at the end of the current period. "
                "Please take this as our notice to cancel."),
               ("Notice: we will not renew", "after our internal review we will not renew with Kestrel. Please cancel "
                "our subscription at the end of the period."),
               ("Cancellation", "please cancel our subscription: we are moving our dispatch to another system at the "
                "end of the period.")],
    "other": [("Thank you", "just a note to thank your team: the new tracking dashboard saved us hours this week."),
              ("Suggestion: CSV export", "a suggestion: it would help us a lot if the route planner could export the "
               "day's routes to CSV."),
              ("Automatic reply: out of office", "I am out of the office with limited access to email until 23 March. "
               "For anything urgent, please call our front desk.")],
}

#: The faults of the mailbox tasks: the second batch of labels is refused (retry it), the fourth email sent
#: times out after it went (a blind resend answers twice).
MAILBOX_FAULTS = [{"tool": "gmail__batch_modify_emails", "on_call": 2, "kind": "unavailable"},
                  {"tool": "gmail__send_email", "on_call": 4, "kind": "timeout_after_commit"}]
#: The tools of the mailbox tasks (Gmail, the CRM in Notion, Stripe).
MAILBOX_TOOLS = ["gmail__list_email_labels", "gmail__search_emails", "gmail__read_email", "gmail__get_thread",
         "gmail__send_email", "gmail__draft_email", "gmail__list_drafts", "gmail__update_draft", "gmail__send_draft",
         "gmail__modify_email", "gmail__batch_modify_emails",
         "notion__search", "notion__retrieve_page", "notion__get_block_children", "notion__query_database",
         "notion__retrieve_database", "notion__list_users",
         "stripe__search_customers", "stripe__list_customers", "stripe__list_invoices", "stripe__search_invoices",
         "stripe__list_charges", "stripe__search_charges", "stripe__list_refunds", "stripe__list_products",
         "stripe__list_prices"]


def stamp_day(ts: int) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d")


def invoice_total(invoice: dict[str, Any]) -> int:
    return sum(line["amount"] for line in invoice["lines"])


def support_customers(seed: int) -> dict[str, dict[str, Any]]:
    """The customers a case may draw, by legal name: active, billed in Stripe at their billing contact (whose
    plan and seats Stripe and the CRM agree on), nobody Priya ever wrote to (a reply to them is new), the key
    accounts with their CRM row and owner."""
    o = org(seed)
    stripe = world("stripe", seed)
    gmail = world("gmail", seed)
    by_id = {c["id"]: c for c in stripe["customers"]}
    crm = {r["title"]: r for r in crm_rows(seed)}
    users = {u["id"]: u for u in world("notion", seed)["users"]}
    written = {a for m in gmail["messages"] if "SENT" in m["label_ids"] for a in [*m["to"], *m["cc"]]}
    emails = [c["email"] for c in stripe["customers"]]
    twins = {x.duplicate_of for x in o.customers if x.duplicate_of}
    out = {}
    for c in o.customers:
        s = by_id.get(c.stripe_id or "")
        if (s is None or c.status != "Active" or c.currency == "jpy" or c.group or c.duplicate_of or c.key in twins):
            continue
        contact = c.contact("billing")
        meta = s["metadata"]
        if (s["email"] != contact.email or emails.count(contact.email) != 1 or contact.email in written
                or meta.get("plan") != c.plan or meta.get("seats") != str(c.seats)):
            continue
        item: dict[str, Any] = {"name": c.name, "short": c.short, "stripe": s["id"], "email": contact.email,
                                "first": contact.first, "last": contact.last, "title": contact.title,
                                "plan": c.plan, "seats": c.seats, "currency": c.currency, "key": c.key_account,
                                "invoices": [i for i in stripe["invoices"] if i["customer"] == s["id"]]}
        if c.key_account:
            row = crm.get(c.name)
            if row is None or row["properties"]["Billing email"] != contact.email or \
                    (row["properties"]["Plan"] or "").lower() != c.plan or len(row["properties"]["Owner"]) != 1:
                continue
            owner = users[row["properties"]["Owner"][0]]
            if not owner.get("email"):
                continue
            item |= {"owner": owner["email"], "owner_name": owner["name"], "crm_row": row["id"]}
        out[c.name] = item
    return out


def invoice_pool(cust: dict[str, Any], status: str) -> list[dict[str, Any]]:
    """The customer's invoices of ``status`` issued this year (a customer asks by its number)."""
    return [i for i in cust["invoices"] if i["status"] == status and i["number"] and stamp_day(i["created"]) >= "2026-01-01"
            and invoice_total(i) > 0]


def amount_pattern(cents: int) -> str:
    """A total as people write it: 1,234.50 / 1234,50 / 1 234.50 (a whole amount also without its .00)."""
    whole, frac = divmod(cents, 100)
    digits = f"{whole:,}".replace(",", "[,. ]?")
    tail = f"[.,]{frac:02d}" if frac else "([.,]00)?"
    return f"(^|[^0-9]){digits}{tail}([^0-9]|$)"


def both(a: str, b: str) -> str:
    """Text holding a match of ``a`` and one of ``b``, in either order."""
    return f"({a})(.|\\n)*({b})|({b})(.|\\n)*({a})"


def seats_pattern(n: int) -> str:
    return f"(^|[^0-9.,]){n}([^0-9]|$)"


def pick_unused(rng: random.Random, pool: list[dict[str, Any]], used: set[str], ok) -> dict[str, Any] | None:
    found = [c for c in pool if c["name"] not in used and ok(c)]
    if not found:
        return None
    chosen = rng.choice(found)
    used.add(chosen["name"])
    return chosen


def key_account_twin(seed: int, name: str) -> dict[str, Any] | None:
    """What the agent would read of key account ``name`` (a lookalike's twin): its plan and seats in Stripe,
    its owner in Customer Accounts."""
    o = org(seed)
    c = next((x for x in o.customers if x.name == name), None)
    row = next((r for r in crm_rows(seed) if r["title"] == name), None)
    if c is None or row is None or not c.stripe_id or len(row["properties"]["Owner"]) != 1:
        return None
    meta = next(s["metadata"] for s in world("stripe", seed)["customers"] if s["id"] == c.stripe_id)
    owner = next(u for u in world("notion", seed)["users"] if u["id"] == row["properties"]["Owner"][0])
    if not meta.get("plan") or not meta.get("seats") or not owner.get("email"):
        return None
    return {"name": name, "short": c.short, "plan": meta["plan"], "seats": int(meta["seats"]), "key": True,
            "owner": owner["email"]}


def lookalike_key_account(seed: int, custs: dict[str, dict[str, Any]], rng: random.Random, used: set[str],
               for_cancel: bool) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """A key account of a lookalike pair whose twin reads differently where it matters: another plan or seats
    and another owner or tier (a plan question), another owner (a cancellation)."""
    options = []
    for a, b in PAIRS:
        for x, y in ((a, b), (b, a)):
            if x not in custs or x in used or y in used or not custs[x]["key"]:
                continue
            twin = key_account_twin(seed, y)
            if twin is None:
                continue
            me = custs[x]
            if for_cancel:
                ok = twin["owner"] != me["owner"]
            else:
                ok = (twin["plan"], twin["seats"]) != (me["plan"], me["seats"]) and (
                    twin["owner"] != me["owner"] or (twin["plan"] == "enterprise") != (me["plan"] == "enterprise"))
            if ok:
                options.append((x, y))
    if not options:
        return None
    x, y = rng.choice(sorted(options))
    used.update({x, y})
    return custs[x], key_account_twin(seed, y)  # type: ignore[return-value]


def signature(c: dict[str, Any]) -> str:
    return f"Best regards,\n{c['first']} {c['last']}\n{c['title']}, {c['name']}"


def invoice_fact(inv: dict[str, Any], currency: str) -> str:
    total = money(invoice_total(inv), currency)
    return (f"invoice {inv['number']} is paid in full: {total}." if inv["status"] == "paid" else
            f"invoice {inv['number']} is still open: {total} is due.")


def notion_user_reads(seed: int) -> list[dict[str, Any]]:
    """The reference's reads of Notion's people, page by page (an owner is a person id in Customer Accounts)."""
    tools = NotionTools(NotionState.model_validate(world("notion", seed)))
    first = tools.list_users(page_size=100)
    reads = [call("notion__list_users", page_size=100)]
    if first["has_more"]:
        reads.append(call("notion__list_users", page_size=100, start_cursor=first["next_cursor"]))
    return reads
