"""The Gmail world: the mailbox of Priya Raman, operations manager at Kestrel Freight Systems.

At the default size: 500 messages in about 190 threads over ten weeks (customers, vendors and their
invoices, colleagues, notifications, newsletters, payslips, travel), replies she sent among them,
10 user labels (some nested, ``Finance/Invoices``), unread, starred and important messages, and
8 drafts. Lookalike senders and subjects occur (two Dana Okafors at two companies, invoice numbers
one digit apart, a renewal thread per customer).

Version 2 projects the organisation (``servers/org``), December 2025 to March 2026, 520 messages: its
customers' contacts write about what happened to them (a card charged twice for an invoice, answered
once refunded; an incident that delayed their shipments, asking for the service credit the refund
policy then in force gives; a new billing contact, whose notice is newer than what Stripe still bills;
a renewal; a question about a real invoice), the account owner in copy; vendors send their bills and
reminders for the overdue ones; colleagues announce each policy's new version, hand over their accounts
before their last day and welcome the new starters; flights follow Priya's trips. Drafts answer the
complaints still open.

Patchable collections: ``labels``, ``messages`` and ``drafts`` (each by ``id``); ``set`` may change
``now`` and ``address``.
"""

from __future__ import annotations

import calendar
import random
from datetime import UTC, datetime, timedelta
from typing import Any

from servers.kit.world import versions
from servers.kit.worldtext import COMPANY, CUSTOMERS, DOMAIN, people
from servers.org import NOW, NOW_UNIX, TODAY, Organisation, cast, money
from servers.org.model import Employee

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


class _Mailbox:
    """The messages being built; ``thread`` stores one conversation (ids from ``rng``, labels as a
    mailbox accumulates them: unread in the last week, some starred or important, a user label often)."""

    def __init__(self, rng: random.Random, start: int, label_id: dict[str, str], owner: str = OWNER) -> None:
        self.rng, self.start, self.label_id, self.owner = rng, start, label_id, owner
        self.taken: set[str] = set()
        self.messages: list[dict[str, Any]] = []

    def thread(self, kind: str, subject: str, turns: list[tuple[bool, str]], other: str, moment: int,
               cc: tuple[str, ...] = (), label: str | None = None, gap: tuple[int, int] = (600, 2 * 86_400)) -> str:
        """``turns`` (sent by the owner?, body) as one thread with ``other``, starting after ``moment``;
        returns the thread id. ``label`` is the user label it gets most of the time (else the kind's)."""
        rng = self.rng
        thread_id = None
        for k, (mine, body) in enumerate(turns):
            ident = _hex_id(rng, self.taken)
            thread_id = thread_id or ident
            moment += rng.randint(*gap)
            when = _iso(moment)
            label_ids = ["SENT"] if mine else ["INBOX"]
            if not mine:
                if moment > self.start + 62 * 86_400 and rng.random() < 0.5 or rng.random() < 0.08:
                    label_ids.append("UNREAD")
                if rng.random() < 0.07:
                    label_ids.append("STARRED")
                if kind in ("customer", "internal") and rng.random() < 0.3:
                    label_ids.append("IMPORTANT")
                label_ids.append({"newsletter": "CATEGORY_PROMOTIONS", "notification": "CATEGORY_UPDATES"}.get(
                    kind, "CATEGORY_PERSONAL"))
            user = label or CATEGORY[kind]
            if user and rng.random() < 0.7:
                label_ids.append(self.label_id[user])
            if kind == "notification" and "Payslip" in subject:
                label_ids.append(self.label_id["Finance/Receipts"])
            if kind == "notification" and "Flight" in subject:
                label_ids.append(self.label_id["Travel"])
            self.messages.append({
                "id": ident, "thread_id": thread_id, "sender": self.owner if mine else other,
                "to": [other] if mine else [self.owner], "cc": list(cc),
                "subject": subject if k == 0 else f"Re: {subject}", "body": body, "date": when, "label_ids": label_ids,
            })
        assert thread_id is not None, f"thread {subject!r} has no turns"
        return thread_id


def build(rng: random.Random, size: str) -> dict[str, Any]:
    """Version 1: colleagues and customers' contacts drawn from the shared name pools, threads from
    templates."""
    total = SIZES[size]
    staff = people(rng, 30)
    colleagues = [p for p in staff if p.handle != "priya.raman"]
    contacts = [(c, f"{p.first.lower()}.{p.last.lower()}@{c.split()[0].lower()}.example")
                for c, p in zip(CUSTOMERS, people(rng, len(CUSTOMERS)))]
    contacts.append(("Lumen Group", "dana.okafor@lumen-group.example"))
    contacts.append(("Lumen Retail", "dana.okafor@lumen.example"))
    labels = [{"id": f"Label_{i + 1}", "name": name} for i, name in enumerate(USER_LABELS)]
    label_id = {label["name"]: label["id"] for label in labels}
    start = 1_767_600_000  # 2026-01-05
    box = _Mailbox(rng, start, label_id)
    messages = box.messages
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
        length = min(len(bodies), total - len(messages))
        turns = []
        for k in range(length):
            mine = k % 2 == 1 and kind in ("customer", "vendor", "internal")
            turns.append((mine, bodies[k].format(**values) + ("\n\nBest,\nPriya" if mine else "")))
        box.thread(kind, subject, turns, other, moment)
    drafts = []
    for subject, body in DRAFTS[: 8 if size == "default" else 3]:
        customer = rng.choice(contacts)
        values = {"customer": customer[0], "invoice": f"INV-2026-{rng.randint(100, 999)}"}
        drafts.append({"id": f"r{rng.getrandbits(60):015d}"[:20], "to": [customer[1]] if "Re:" in subject else [],
                       "cc": [], "subject": subject.format(**values), "body": body, "thread_id": None})
    messages.sort(key=lambda m: (m["date"], m["id"]))
    return {"address": OWNER, "now": "2026-03-16T09:00:00Z", "labels": labels, "messages": messages, "drafts": drafts}


SIZES_V2 = {"default": 520, "small": 60}
#: 2025-12-01: how far back version 2's mailbox goes.
START_V2 = 1_764_547_200


def _date(unix: int) -> str:
    return datetime.fromtimestamp(unix, UTC).strftime("%d %B %Y")


def _sign(name: str, title: str, company: str) -> str:
    return f"\n\nBest regards,\n{name}\n{title}, {company}"


def build_v2(rng: random.Random, size: str, org: Organisation) -> dict[str, Any]:
    """Version 2: Priya Raman's mailbox as the organisation's facts fill it. Customers' contacts write
    about what happened to them (a card charged twice, an incident that delayed their shipments, a new
    billing contact, a renewal, an invoice), vendors send their bills and reminders, colleagues announce
    new policy versions, hand over accounts and hire, and notifications follow her trips and the
    repositories; the rest is the everyday mail of version 1, with the organisation's names."""
    me = org.owner
    mine = _sign(me.name, me.title, COMPANY)
    labels = [{"id": f"Label_{i + 1}", "name": name} for i, name in enumerate(USER_LABELS)]
    box = _Mailbox(rng, START_V2, {label["name"]: label["id"] for label in labels}, me.email)
    invoices = {i.id: i for i in org.invoices}
    refunded = {r.charge for r in org.refunds}

    def signed(customer, contact) -> str:
        return _sign(contact.name, contact.title, customer.name)

    def owner_on(customer, day: str):
        person = org.employee(customer.owner)
        if person.employed_on(day):
            return person
        assert person.manager is not None, f"{person.key} has left and has no manager"
        return org.employee(person.manager)

    # A card charged twice: the customer's billing contact complains; answered once refunded.
    for charge in org.charges:
        if charge.duplicate_of is None or charge.created < START_V2:
            continue
        customer = org.customer(charge.customer)
        first = next(c for c in org.charges if c.id == charge.duplicate_of)
        assert first.invoice is not None, f"{first.id}: the charge a twin repeats paid an invoice"
        number = invoices[first.invoice].number
        day = _day(charge.created + 86_400)
        contact = customer.contact("billing", day)
        turns = [(False, f"Hello,\n\nour card was charged twice for invoice {number}: {money(charge.amount, charge.currency)} "
                         f"on {_date(first.created)}, and the same amount again minutes later. Please refund the "
                         f"second charge." + signed(customer, contact))]
        if charge.id in refunded:
            turns += [(True, "Thanks for telling us. The second charge is refunded; it shows on your statement within "
                             "5 to 10 days." + mine), (False, "Received, thank you." + signed(customer, contact))]
        box.thread("customer", f"Charged twice for invoice {number}", turns, contact.email, charge.created + 3600,
                   cc=(owner_on(customer, day).email,))
    # A new billing contact: the newer notice wins over what the older records say.
    for customer in org.customers:
        for new in [c for c in customer.contacts if c.role == "billing" and c.since]:
            assert new.since is not None  # the filter above
            old = next(c for c in customer.contacts if c.role == "billing" and c.until)
            owner = owner_on(customer, new.since)
            turns = [(False, f"Hello,\n\nfrom {datetime.fromisoformat(new.since):%d %B %Y} please send every invoice and "
                             f"payment question to me, {new.name} ({new.email}), the new {new.title.lower()} of "
                             f"{customer.name}. {old.name} has left the company." + signed(customer, new)),
                     (True, f"Thanks {new.first}, noted. I have passed this on to finance and to your account owner, "
                            f"{owner.name}." + mine)]
            box.thread("customer", f"New billing contact for {customer.name}", turns, new.email,
                       _unix(new.since) + 8 * 3600, cc=(owner.email,), gap=(600, 4 * 3600))
    # Incidents seen from the customers they hit; under a policy with credits, they ask for one.
    refund = org.policy("refund")
    for incident in org.incidents:
        started = _unix(incident.started)
        if started < START_V2:
            continue
        percent = refund.version_on(incident.started).facts.get(f"credit_{incident.severity.lower()}", 0)
        for key in incident.customers[:2]:
            customer = org.customer(key)
            contact = customer.contact("operations", incident.started)
            turns = [(False, f"Hello,\n\non {_date(started)} from {incident.started[11:16]} UTC our shipments stopped "
                             f"updating and {rng.randint(3, 40)} deliveries were late. What happened?"
                             + signed(customer, contact)),
                     (True, f"Sorry about this. We had an incident ({incident.number}: {incident.title.lower()}); it is "
                            + (f"resolved since {incident.resolved[11:16]} UTC that day." if incident.resolved else
                               "mitigated and we are monitoring it.") + mine)]
            if percent:
                turns.append((False, "Thanks. Are we entitled to a service credit for this under your SLA?"
                                     + signed(customer, contact)))
            box.thread("customer", f"Delayed shipments to {customer.short}", turns, contact.email, started + 1800,
                       cc=(owner_on(customer, incident.started).email,), gap=(1800, 6 * 3600))
    keyed = [c for c in org.key_accounts if c.billed and c.status != "Churned"]
    # Questions about real invoices, renewals coming up, onboardings.
    window = [i for i in org.invoices if i.created >= START_V2 and org.customer(i.customer).key_account
              and i.status in ("paid", "open")]
    for invoice in rng.sample(window, k=min(len(window), 14 if size == "default" else 3)):
        customer = org.customer(invoice.customer)
        day = _day(invoice.created + 2 * 86_400)
        contact = customer.contact("billing", day)
        reference = f"our PO {customer.po_number}" if customer.po_number else "our records"
        turns = [(False, f"Hi,\n\ninvoice {invoice.number} shows {money(invoice.total, invoice.currency)} but {reference} "
                         f"says less. Can you check the seats on it?" + signed(customer, contact)),
                 (True, f"Thanks, I have asked finance to check invoice {invoice.number} against your plan "
                        f"({customer.seats} seats)." + mine)]
        box.thread("customer", f"Invoice question {invoice.number}", turns, contact.email, invoice.created + 86_400)
    for customer in keyed:
        if customer.renewal and "2026-03-20" <= customer.renewal <= "2026-06-30":
            day = (datetime.fromisoformat(customer.renewal) - timedelta(days=60)).date().isoformat()
            day = min(day, "2026-03-12")
            contact = customer.contact("billing", day)
            turns = [(False, f"Hi Priya,\n\nour contract ends on {datetime.fromisoformat(customer.renewal):%d %B %Y}. "
                             f"Could you send the renewal terms for {customer.seats} seats?" + signed(customer, contact))]
            box.thread("customer", f"Contract renewal {customer.short} {customer.renewal[:4]}", turns, contact.email,
                       _unix(day) + 9 * 3600, cc=(owner_on(customer, day).email,))
        if customer.status == "Onboarding":
            assert customer.signup is not None, f"{customer.key}: an onboarding customer has signed up"
            contact = customer.contact("operations", _day(customer.signup))
            turns = [(False, "Can we schedule the onboarding call for next week?" + signed(customer, contact)),
                     (True, "Of course, I will send an invitation." + mine)]
            box.thread("customer", f"Onboarding call for {customer.short}", turns, contact.email, customer.signup + 86_400)
    # Vendors' bills, and reminders for the overdue ones.
    for bill in org.bills:
        vendor = org.vendor(bill.vendor)
        sign = _sign(vendor.contact, "Accounts receivable", vendor.name)
        turns = [(False, f"Please find attached invoice {bill.number} for {money(bill.amount, 'eur')} ({bill.description}), "
                         f"due on {bill.due}." + sign)]
        box.thread("vendor", f"Invoice {bill.number} from {vendor.name}", turns, vendor.email, _unix(bill.issued) + 7 * 3600)
        if bill.status == "overdue":
            turns = [(False, f"Our records show invoice {bill.number} ({money(bill.amount, 'eur')}) was due on {bill.due} "
                             f"and is not paid. Please arrange payment." + sign)]
            box.thread("vendor", f"Payment reminder: invoice {bill.number}", turns, vendor.email,
                       _unix(bill.due) + 3 * 86_400)
    # Colleagues: new policy versions, a hand-over before a last day, new starters.
    for policy in org.policies:
        for version in policy.versions[1:]:
            if START_V2 <= _unix(version.effective) <= NOW_UNIX:
                author = org.employee(policy.owner)
                body = (f"Hi all,\n\nthe {version.label} {policy.title.lower()} applies from {version.effective}; the "
                        f"earlier version no longer does. What changes:\n- " + "\n- ".join(version.body)
                        + _sign(author.name, author.title, COMPANY))
                box.thread("internal", f"Updated {policy.title.lower()} from {version.effective}", [(False, body)],
                           author.email, _unix(version.effective) - 3 * 86_400)
    for person in [e for e in org.employees if e.leave and e.leave >= TODAY]:
        assert person.manager is not None, f"{person.key} is leaving and has no manager"
        owned = sorted(c.name for c in org.customers if c.owner == person.key and c.key_account)
        body = (f"Hi Priya,\n\nmy last day is {person.leave}. These accounts still need a new owner:\n- "
                + "\n- ".join(owned or ["none"]) + _sign(person.name, person.title, COMPANY))
        box.thread("internal", "Handing over my accounts", [(False, body)], person.email, _unix("2026-03-10") + 9 * 3600,
                   cc=(org.employee(person.manager).email,))
    starters = [e for e in org.employees if not e.started]
    if starters:
        people_lead = next(e for e in org.active if e.department == "People")
        body = "Hi all,\n\nplease welcome our new starters:\n- " + "\n- ".join(
            f"{e.name}, {e.title} ({e.team}), from {e.start}" for e in starters) + _sign(people_lead.name, people_lead.title, COMPANY)
        box.thread("internal", "New starters in April", [(False, body)], people_lead.email, _unix("2026-03-09") + 9 * 3600)
    # Notifications that follow the organisation: flights, payslips, repositories.
    for trip in org.trips:
        if trip.first <= TODAY:
            body = f"Your booking is confirmed: Lisbon to {trip.city} on {trip.first}, seat {rng.randint(3, 30)}C."
            box.thread("notification", f"Flight confirmation LIS-{trip.airport} {trip.first}", [(False, body)],
                       "bookings@skyway.example", _unix(trip.first) - 14 * 86_400)
    for month in ("December 2025", "January 2026", "February 2026"):
        box.thread("notification", f"Payslip for {month}", [(False, f"Your payslip for {month} is available in the HR portal.")],
                   "noreply@hr-portal.example", _unix({"D": "2025-12-25", "J": "2026-01-25", "F": "2026-02-25"}[month[0]]))
    # The everyday mail of version 1, with the organisation's names.
    colleagues = [e for e in org.active if e is not me]
    total = SIZES_V2[size]
    everyday = {kind: [t for t in THREADS[kind] if not t[0].startswith(("Payslip", "Flight"))]
                for kind in ("internal", "notification", "newsletter")}
    working: dict[int, list[Employee]] = {}  # by UTC day: who of ``colleagues`` works then (drawn from, never changed)
    while len(box.messages) < total:
        kind = rng.choices(("internal", "notification", "newsletter"), (50, 25, 25))[0]
        subject, *bodies = rng.choice(everyday[kind])
        moment = START_V2 + rng.randint(0, (NOW_UNIX - START_V2) - 3 * 86_400)
        here = working.get(moment // 86_400)
        if here is None:
            day = _day(moment)
            here = working[moment // 86_400] = [e for e in colleagues if e.employed_on(day)]
        person = rng.choice(here)
        values = {"customer": rng.choice(org.words.customers), "vendor": rng.choice(org.vendors).name,
                  "n": str(rng.randint(2, 40)), "amount": f"{rng.randint(4, 400) * 25:,}",
                  "day": rng.choice(("Monday", "Tuesday", "Thursday", "Friday")),
                  "invoice": f"PO-2026-{rng.randint(100, 999)}", "month": rng.choice(MONTHS)}
        other = {"internal": person.email,
                 "notification": rng.choice(("notifications@github.example", "noreply@hr-portal.example",
                                             "no-reply@expenses.example", "no-reply@accounts.example")),
                 "newsletter": rng.choice(("news@logisticsweekly.example", "events@freighttech.example",
                                           "hello@coldchain.example"))}[kind]
        turns = [(k % 2 == 1 and kind == "internal", bodies[k].format(**values) + (mine if k % 2 == 1 and kind == "internal"
                  else _sign(person.name, person.title, COMPANY) if kind == "internal" else ""))
                 for k in range(min(len(bodies), total - len(box.messages)))]
        box.thread(kind, subject.format(**values).replace("INV-", "PO-"), turns, other, moment)
    drafts = _drafts_v2(rng, org, box, size)
    messages = sorted(box.messages, key=lambda m: (m["date"], m["id"]))
    return {"address": me.email, "now": NOW, "labels": labels, "messages": messages, "drafts": drafts}


def _drafts_v2(rng: random.Random, org: Organisation, box: _Mailbox, size: str) -> list[dict[str, Any]]:
    """Replies Priya started and has not sent: to the complaints still open, to renewals, to colleagues."""
    open_threads: dict[str, list[dict[str, Any]]] = {}
    for message in box.messages:
        open_threads.setdefault(message["thread_id"], []).append(message)
    waiting = [t for t in open_threads.values() if t[0]["subject"].startswith(("Charged twice", "Contract renewal"))
               and not any("SENT" in m["label_ids"] for m in t)]
    drafts = []
    for thread in waiting[: 6 if size == "default" else 2]:
        first = thread[0]
        drafts.append({"id": f"r{rng.getrandbits(60):015d}"[:20], "to": [first["sender"]], "cc": list(first["cc"]),
                       "subject": f"Re: {first['subject']}", "body": "Hi, thanks for your message. We are looking into",
                       "thread_id": first["thread_id"]})
    for subject, body in (("Carrier scorecard Q1", "Team, here is the Q1 carrier scorecard. DHL on-time"),
                          ("Offsite agenda", "Draft agenda for the ops offsite:\n1. Capacity\n2. Carriers\n3. Hiring")):
        drafts.append({"id": f"r{rng.getrandbits(60):015d}"[:20], "to": [], "cc": [], "subject": subject, "body": body,
                       "thread_id": None})
    return drafts


def _unix(day: str) -> int:
    return calendar.timegm(datetime.fromisoformat(day[:10]).timetuple()) + (
        int(day[11:13]) * 3600 + int(day[14:16]) * 60 if len(day) > 10 else 0)


def _day(unix: int) -> str:
    return datetime.fromtimestamp(unix, UTC).date().isoformat()


def _iso(epoch: int) -> str:
    import datetime as dt

    return dt.datetime.fromtimestamp(min(epoch, 1_773_640_000), dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def describe(state: dict[str, Any]) -> dict[str, int]:
    return {"messages": len(state["messages"]), "threads": len({m["thread_id"] for m in state["messages"]}),
            "labels": len(state["labels"]), "drafts": len(state["drafts"])}


COLLECTIONS = {"labels": "id", "messages": "id", "drafts": "id"}
GENERATORS = versions("gmail", COLLECTIONS, describe, build, (build_v2, cast))
GENERATOR = GENERATORS[-1]

__all__ = ["GENERATOR", "GENERATORS"]
