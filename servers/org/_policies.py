"""The organisation's policies: the documents that decide what "current", "duplicate" and "allowed" mean.

Most have an older and a newer version, each dated; the newer one wins from its effective day, and
the older one is still found where companies keep old copies (an archive page, a file on the drive).
The numbers a version decides by (a hotel limit, a credit percentage) are drawn per seed and kept in
``facts``."""

from __future__ import annotations

import random

from servers.org.model import Employee, Policy, PolicyVersion


def _owner(staff: tuple[Employee, ...], *titles: str) -> str:
    for title in titles:
        for e in staff:
            if e.title == title and e.active:
                return e.key
    return next(e.key for e in staff if e.active)


def build_policies(rng: random.Random, staff: tuple[Employee, ...]) -> tuple[Policy, ...]:
    def v(label: str, effective: str, superseded: str | None, body: tuple[str, ...], **facts) -> PolicyVersion:
        return PolicyVersion(label, effective, superseded, body, facts)

    people = _owner(staff, "Head of People")
    cfo = _owner(staff, "Chief financial officer")
    controller = _owner(staff, "Financial controller", "Chief financial officer")
    security = _owner(staff, "Security lead", "Head of Platform")
    platform = _owner(staff, "Head of Platform")
    counsel = _owner(staff, "General counsel")
    success = _owner(staff, "Head of Customer Success")

    days_26, carry_26 = rng.choice((26, 27, 28)), rng.choice((3, 4))
    hotel_25, hotel_26 = rng.choice((150, 160)), rng.choice((170, 180))
    dinner_26, receipts_26, mileage_26 = rng.choice((200, 250)), rng.choice((45, 60)), rng.choice((0.34, 0.36))
    sev1_26, sev2_26 = rng.choice((20, 25)), rng.choice((10, 15))
    ack_26, retention_26 = rng.choice((10, 15)), rng.choice((60, 90))
    purchase_26 = rng.choice((5000, 7500))
    holiday = Policy("holiday", "Holiday policy", "HR", people, (
        v("2025", "2025-01-01", "2026-01-01", (
            "25 days of annual leave a year for full-time staff, pro rata for part-time.",
            "Carry over up to 5 unused days; they expire on 31 March 2026.",
            "Public holidays follow the country of your office.",
        ), days=25, carry_over=5, carry_over_until="2026-03-31"),
        v("2026", "2026-01-01", None, (
            f"{days_26} days of annual leave a year for full-time staff, pro rata for part-time.",
            f"Carry over up to {carry_26} unused days; they expire on 31 March 2027.",
            "Requests go through your manager in the leave form on the intranet, at least two weeks ahead for "
            "more than three days.",
        ), days=days_26, carry_over=carry_26, carry_over_until="2027-03-31"),
    ))
    travel = Policy("travel", "Travel policy", "Finance", cfo, (
        v("2025", "2025-01-01", "2026-02-01", (
            f"Hotels up to {hotel_25} EUR per night.",
            "Economy class for every flight.",
            "Taxis only where no public transport runs.",
        ), hotel_eur=hotel_25, premium_economy_after_hours=None, airport_taxi=False),
        v("2026", "2026-02-01", None, (
            f"Hotels up to {hotel_26} EUR per night; more needs your manager's written approval before booking.",
            "Economy class for flights under 6 hours; premium economy above.",
            "Taxis to and from airports are reimbursed.",
        ), hotel_eur=hotel_26, premium_economy_after_hours=6, airport_taxi=True),
    ))
    expenses = Policy("expenses", "Expenses policy", "Finance", controller, (
        v("2025", "2025-01-01", "2026-03-01", (
            "Submit receipts within 30 days of the expense.",
            "Client dinners need pre-approval above 300 EUR.",
            "Mileage is paid at 0.30 EUR per km.",
        ), receipts_days=30, dinner_preapproval_eur=300, mileage_eur_km=0.30),
        v("2026", "2026-03-01", None, (
            f"Submit receipts within {receipts_26} days of the expense; older claims are refused.",
            f"Client dinners need pre-approval above {dinner_26} EUR.",
            f"Mileage is paid at {mileage_26:.2f} EUR per km.",
        ), receipts_days=receipts_26, dinner_preapproval_eur=dinner_26, mileage_eur_km=mileage_26),
    ))
    refund = Policy("refund", "Refund and service credit policy", "Customers", controller, (
        v("2025", "2025-01-01", "2026-02-01", (
            "A customer may ask for a refund of a charge within 14 days of it.",
            "A duplicate charge (the same card charged twice for one invoice) is refunded in full.",
            "Service credits: 10% of the month's subscription invoice for a SEV1 incident that affected the "
            "customer; none for other incidents.",
        ), refund_window_days=14, credit_sev1=10, credit_sev2=0, approval_above_eur=None),
        v("2026", "2026-02-01", None, (
            "A customer may ask for a refund of a charge within 30 days of it.",
            "A duplicate charge (a second successful charge for an invoice already paid, for the same amount, "
            "within a day) is refunded in full within 5 business days of being found; the first charge stays.",
            f"Service credits: {sev1_26}% of the month's subscription invoice for a SEV1 incident and "
            f"{sev2_26}% for a SEV2 incident that affected the customer, refunded on the charge that paid that "
            "invoice; none for SEV3. The incident's start date decides which version of this policy applies.",
            "A refund or credit above 500 EUR (or its equivalent) needs the approval of a finance approver.",
        ), refund_window_days=30, credit_sev1=sev1_26, credit_sev2=sev2_26, approval_above_eur=500),
    ))
    records = Policy("customer-records", "Customer records policy", "Customers", success, (
        v("2025", "2025-01-01", "2026-02-15", (
            "Two customer records are duplicates when their names are the same once legal suffixes "
            "(Ltd, Inc, AS, SA...) are removed.",
            "The billing contact is the address on the Stripe customer.",
        ), duplicate_rule="name"),
        v("2026", "2026-02-15", None, (
            "Two customer records are duplicates only when they share the billing email domain and the country. "
            "Names that differ by a letter (Harbour and Harbor) are different companies unless the domain "
            "matches; one group's entities in two countries are separate customers, each billed on its own.",
            "When duplicates are found, the older record is kept and the newer one is merged into it.",
            "The current billing contact is the one named in the customer's latest written notice; the CRM "
            "(Customer Accounts in Notion) must show it, and Stripe is updated from the CRM.",
            "The account owner of record is the CRM's Owner; when an owner leaves, their accounts are "
            "reassigned before their last day.",
        ), duplicate_rule="domain+country"),
    ))
    access = Policy("access", "Access control policy", "IT", security, (
        v("2025", "2025-01-01", "2026-01-15", (
            "Engineers get production access on request, approved by their manager.",
            "Accounts of people who leave are deactivated within a week of their last day.",
        ), production="on request", deactivate_within_days=7),
        v("2026", "2026-01-15", None, (
            "Production write access is allowed only to members of the security group and to engineers on the "
            "on-call rota; everyone else gets read access.",
            "Accounts of people who leave are deactivated on their last working day, in every tool.",
            "Admin roles need two approvers, one of them from the security group.",
            "Access is reviewed every quarter by each team's manager.",
        ), production="security group or on-call", deactivate_within_days=0),
    ))
    retention = Policy("data-retention", "Data retention policy", "Legal", counsel, (
        v("2025", "2025-01-01", "2026-03-01", (
            "Customer data is deleted 180 days after the contract ends.",
            "Invoices are kept for 10 years.",
        ), customer_data_days=180, invoices_years=10),
        v("2026", "2026-03-01", None, (
            f"Customer data is deleted {retention_26} days after the contract ends (the churn date in the CRM).",
            "Invoices and payment records are kept for 10 years.",
            "Chat messages are kept for 2 years; incident channels are archived, not deleted.",
        ), customer_data_days=retention_26, invoices_years=10),
    ))
    oncall = Policy("on-call", "On-call policy", "Platform", platform, (
        v("2025", "2025-01-01", "2026-01-01", (
            "The primary on-call acknowledges a page within 30 minutes.",
            "Postmortems are written for SEV1 incidents.",
        ), ack_minutes_sev1=30, postmortem_for=("SEV1",)),
        v("2026", "2026-01-01", None, (
            f"The primary on-call acknowledges a SEV1 page within {ack_26} minutes and a SEV2 page within 30.",
            "The primary on-call is the incident commander until they hand over.",
            "A postmortem is written within 5 business days for every SEV1 and SEV2 incident.",
        ), ack_minutes_sev1=ack_26, postmortem_for=("SEV1", "SEV2")),
    ))
    purchasing = Policy("purchasing", "Purchasing policy", "Finance", cfo, (
        v("2025", "2025-01-01", "2026-01-01", (
            "Buy from approved suppliers; new suppliers register first.",
            "Purchases over 10,000 EUR need a second approver.",
        ), second_approver_above_eur=10_000),
        v("2026", "2026-01-01", None, (
            "Buy from approved suppliers; new suppliers register first, and Finance checks their bank details "
            "within 5 working days.",
            f"Purchases over {purchase_26:,} EUR need a second approver.",
        ), second_approver_above_eur=purchase_26),
    ))
    single = (
        ("remote-work", "Remote work policy", "HR", people,
         ("Up to three remote days a week; core hours 10:00-15:00 local time.",)),
        ("parental-leave", "Parental leave policy", "HR", people,
         ("20 weeks of paid parental leave for every parent, taken within two years.",)),
        ("code-of-conduct", "Code of conduct", "HR", people,
         ("Treat colleagues, customers and carriers with respect. Report concerns to People or Legal.",)),
        ("equipment", "IT equipment policy", "IT", security,
         ("Laptops are replaced every four years. Report faults through IT > Report a problem, never to Facilities.",)),
        ("whistleblowing", "Whistleblowing policy", "Legal", counsel,
         ("Report wrongdoing anonymously to the Legal team; retaliation is forbidden.",)),
    )
    out = [holiday, travel, expenses, refund, records, access, retention, oncall, purchasing]
    out += [Policy(slug, title, area, owner, (v("2024", "2024-01-01", None, body),)) for slug, title, area, owner, body in single]
    return tuple(out)


__all__ = ["build_policies"]
