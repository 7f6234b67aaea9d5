"""The Gmail world: the mailbox of Priya Raman, operations manager at Kestrel Freight Systems.

At the default size: 500 messages in about 190 threads over ten weeks (customers, vendors and their
invoices, colleagues, notifications, newsletters, payslips, travel), replies she sent among them,
10 user labels (some nested, ``Finance/Invoices``), unread, starred and important messages, and
8 drafts. Lookalike senders and subjects occur (two Dana Okafors at two companies, invoice numbers
one digit apart, a renewal thread per customer).

Patchable collections: ``labels``, ``messages`` and ``drafts`` (each by ``id``); ``set`` may change
``now`` and ``address``.
"""

from __future__ import annotations

import random
from typing import Any

from servers.kit.world import WorldGenerator
from servers.kit.worldtext import CUSTOMERS, DOMAIN, people

OWNER = f"priya.raman@{DOMAIN}"
SIZES = {"default": 500, "small": 40}
USER_LABELS = ("Customers", "Vendors", "Finance", "Finance/Invoices", "Finance/Receipts", "Travel", "Hiring",
               "Board", "Projects/Atlas", "Newsletters")
VENDORS = (("Harbour Print Co", "billing@harbourprint.example"), ("Nimbus Cloud", "invoices@nimbuscloud.example"),
           ("Lisbon Workspace", "accounts@lisbonworkspace.example"), ("FleetFuel", "billing@fleetfuel.example"),
           ("Atlas Catering", "hello@atlascatering.example"), ("Harbour Printing Ltd", "ar@harbourprinting.example"))
#: (subject, opening message, replies...); {customer}, {n}, {amount}, {day}, {invoice} are filled in.
THREADS = {
    "customer": (
        ("Contract renewal {customer} 2026", "Hi Priya, our contract ends on 31 March. Could you send the renewal terms for {n} more driver seats?",
         "Thanks Priya, the terms look fine. Can we keep the current price for two years?",
         "Our procurement needs the final quote by {day}."),
        ("Delayed shipments to {customer}", "Hello, {n} shipments to our warehouse were late this week. What happened?",
         "We had a carrier outage on Tuesday; all shipments are moving again.", "Thanks for the quick answer."),
        ("Invoice question {invoice}", "Hi, invoice {invoice} shows {amount} EUR but our PO says less. Can you check?",
         "You are right, we applied the old rate card. A credit note follows.", "Received, thank you."),
        ("Onboarding call for {customer}", "Can we schedule the onboarding call for next {day}?",
         "{day} 10:00 Lisbon time works for us."),
    ),
    "vendor": (
        ("Invoice {invoice} from {vendor}", "Please find attached invoice {invoice} for {amount} EUR, due in 30 days.",),
        ("Payment reminder: invoice {invoice}", "Our records show invoice {invoice} ({amount} EUR) is overdue. Please arrange payment.",
         "Payment was sent on {day}; remittance attached.", "Thank you, we have matched the payment."),
        ("Price update from {vendor}", "From April our rates increase by {n}%. The new price list is attached.",),
    ),
    "internal": (
        ("Weekly ops review notes", "Notes from today: on-time delivery {n}%, {n} open escalations, carrier scorecards due {day}.",
         "Thanks, I added the Harbour Foods escalation.", "Can we move next week's review to {day}?"),
        ("Approval needed: purchase order {invoice}", "Please approve PO {invoice} for {amount} EUR (scanners for Rotterdam).",
         "Approved.", "Ordered, delivery expected {day}."),
        ("Q2 planning: warehouse capacity", "We need {n}% more pallet space in Hamburg by June. Options attached.",
         "Option B looks cheapest.", "Agreed, let's take it to the board deck."),
        ("Hiring: shift supervisor Gdansk", "{n} candidates shortlisted; interviews on {day}.", "I can join the panel."),
        ("Board deck draft", "Draft of the Q1 board deck attached, comments by {day} please.", "Slide 7 numbers need the March close."),
    ),
    "notification": (
        ("[kestrel-freight/route-planner] Issue #{n} opened", "A new issue was opened: ETA shown after update is wrong.",),
        ("Your expense report was approved", "Expense report EXP-{invoice} for {amount} EUR was approved.",),
        ("Payslip for {month} 2026", "Your payslip for {month} 2026 is available in the HR portal.",),
        ("Flight confirmation LIS-HAM {day}", "Your booking is confirmed: Lisbon to Hamburg on {day}, seat {n}C.",),
        ("Security alert: new sign-in", "A new sign-in to your account from Chrome on Windows. If this was you, ignore this message.",),
    ),
    "newsletter": (
        ("Logistics Weekly: port congestion eases", "This week: Rotterdam congestion down {n}%, new EU customs rules, and more.",),
        ("Webinar invitation: cold chain compliance", "Join our webinar on {day} about cold chain compliance.",),
        ("{n}% off conference passes", "Early bird tickets for FreightTech Lisbon end on {day}.",),
    ),
}
CATEGORY = {"customer": "Customers", "vendor": "Finance/Invoices", "internal": None, "notification": None,
            "newsletter": "Newsletters"}
MONTHS = ("January", "February", "March")
DRAFTS = (
    ("Re: Contract renewal {customer} 2026", "Hi, attached are the renewal terms for 2026. Pricing stays at"),
    ("Carrier scorecard Q1", "Team, here is the Q1 carrier scorecard. DHL on-time"),
    ("Re: Invoice question {invoice}", "Hello, thanks for flagging this. We will issue a credit note for"),
    ("Offsite agenda", "Draft agenda for the ops offsite:\n1. Capacity\n2. Carriers\n3. Hiring"),
    ("Hamburg lease", "Hi Jonas, following up on the Hamburg lease renewal"),
    ("Re: Delayed shipments to {customer}", "Hi, a short update on the delayed shipments:"),
    ("Vendor review", "Vendors to review this quarter: Harbour Print Co, FleetFuel"),
    ("Thank you", "Thanks everyone for the help during the carrier outage."),
)


def _hex_id(rng: random.Random, taken: set[str]) -> str:
    while True:
        ident = f"18{rng.getrandbits(56):014x}"
        if ident not in taken:
            taken.add(ident)
            return ident


def build(rng: random.Random, size: str) -> dict[str, Any]:
    total = SIZES[size]
    staff = people(rng, 30)
    colleagues = [p for p in staff if p.handle != "priya.raman"]
    contacts = [(c, f"{p.first.lower()}.{p.last.lower()}@{c.split()[0].lower()}.example")
                for c, p in zip(CUSTOMERS, people(rng, len(CUSTOMERS)))]
    contacts.append(("Lumen Group", "dana.okafor@lumen-group.example"))
    contacts.append(("Lumen Retail", "dana.okafor@lumen.example"))
    labels = [{"id": f"Label_{i + 1}", "name": name} for i, name in enumerate(USER_LABELS)]
    label_id = {label["name"]: label["id"] for label in labels}
    taken: set[str] = set()
    messages: list[dict[str, Any]] = []
    start = 1_767_600_000  # 2026-01-05
    while len(messages) < total:
        kind = rng.choices(list(THREADS), (30, 20, 25, 15, 10))[0]
        subject, *bodies = rng.choice(THREADS[kind])
        customer, (vendor, vendor_address) = rng.choice(contacts), rng.choice(VENDORS)
        values = {"customer": customer[0], "vendor": vendor, "n": str(rng.randint(2, 40)),
                  "amount": f"{rng.randint(4, 400) * 25:,}", "day": rng.choice(("Monday", "Tuesday", "Thursday", "Friday")),
                  "invoice": f"INV-2026-{rng.randint(100, 999)}", "month": rng.choice(MONTHS)}
        if kind == "customer":
            other = customer[1]
        elif kind == "vendor":
            other = vendor_address
        elif kind == "internal":
            other = rng.choice(colleagues).email
        elif kind == "notification":
            other = rng.choice(("notifications@github.example", "noreply@hr-portal.example",
                                "expenses@kestrelfreight.com", "bookings@skyway.example", "no-reply@accounts.example"))
        else:
            other = rng.choice(("news@logisticsweekly.example", "events@freighttech.example", "hello@coldchain.example"))
        subject = subject.format(**values)
        moment = start + rng.randint(0, 70 * 86_400 - 3 * 86_400)
        thread_id = None
        length = min(len(bodies), total - len(messages))
        for k in range(length):
            mine = k % 2 == 1 and kind in ("customer", "vendor", "internal")
            ident = _hex_id(rng, taken)
            thread_id = thread_id or ident
            moment += rng.randint(600, 2 * 86_400)
            when = _iso(moment)
            label_ids = ["SENT"] if mine else ["INBOX"]
            if not mine:
                if moment > start + 62 * 86_400 and rng.random() < 0.5 or rng.random() < 0.08:
                    label_ids.append("UNREAD")
                if rng.random() < 0.07:
                    label_ids.append("STARRED")
                if kind in ("customer", "internal") and rng.random() < 0.3:
                    label_ids.append("IMPORTANT")
                label_ids.append({"newsletter": "CATEGORY_PROMOTIONS", "notification": "CATEGORY_UPDATES"}.get(
                    kind, "CATEGORY_PERSONAL"))
            user = CATEGORY[kind]
            if user and rng.random() < 0.7:
                label_ids.append(label_id[user])
            if kind == "notification" and "Payslip" in subject:
                label_ids.append(label_id["Finance/Receipts"])
            if kind == "notification" and "Flight" in subject:
                label_ids.append(label_id["Travel"])
            messages.append({
                "id": ident, "thread_id": thread_id, "sender": OWNER if mine else other,
                "to": [other] if mine else [OWNER], "cc": [],
                "subject": subject if k == 0 else f"Re: {subject}",
                "body": bodies[k].format(**values) + ("\n\nBest,\nPriya" if mine else ""),
                "date": when, "label_ids": label_ids,
            })
    drafts = []
    for subject, body in DRAFTS[: 8 if size == "default" else 3]:
        customer = rng.choice(contacts)
        values = {"customer": customer[0], "invoice": f"INV-2026-{rng.randint(100, 999)}"}
        drafts.append({"id": f"r{rng.getrandbits(60):015d}"[:20], "to": [customer[1]] if "Re:" in subject else [],
                       "cc": [], "subject": subject.format(**values), "body": body, "thread_id": None})
    messages.sort(key=lambda m: (m["date"], m["id"]))
    return {"address": OWNER, "now": "2026-03-16T09:00:00Z", "labels": labels, "messages": messages, "drafts": drafts}


def _iso(epoch: int) -> str:
    import datetime as dt

    return dt.datetime.fromtimestamp(min(epoch, 1_773_640_000), dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def describe(state: dict[str, Any]) -> dict[str, int]:
    return {"messages": len(state["messages"]), "threads": len({m["thread_id"] for m in state["messages"]}),
            "labels": len(state["labels"]), "drafts": len(state["drafts"])}


GENERATOR = WorldGenerator(
    name="gmail", version=1, build=build, describe=describe,
    collections={"labels": "id", "messages": "id", "drafts": "id"},
)

__all__ = ["GENERATOR"]
