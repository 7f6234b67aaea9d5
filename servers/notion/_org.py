"""The Notion world's version 2: the organisation's workspace (``servers/org``).

Where a company keeps its facts: the policies (each current version under Policies, the versions it
replaced under Policies > Superseded, each with its dates), the runbooks of its services with their
owners, a postmortem per resolved incident (commander, owner, customers hit, cause, follow-ups), a
spec per project, an account plan per key account, the notes of every weekly ops review that took
place, and six databases: Customer Accounts (the CRM: owner, billing email, Stripe customer),
Projects (the projects' workstreams), Engineering Tasks, Hiring Pipeline, Vendors and Client Invoices
(finance's copy of the key accounts' Stripe invoices, as of its last update on Friday 6 March).
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

from servers.notion._pages import Builder, account_properties, options, random_date, task_properties
from servers.org import NOW, Organisation, money
from servers.org.model import Invoice

#: Finance updates the Client Invoices database every other Friday; the last update was 6 March.
INVOICES_AS_OF = 1_772_798_400  # 2026-03-06 12:00 UTC
TASK_VERBS = ("Migrate", "Fix", "Add", "Remove", "Document", "Speed up", "Monitor", "Refactor", "Test", "Upgrade")
TASK_OBJECTS = ("retry logic", "rate limits", "the ETA model", "label printing", "customs forms", "SSO login",
                "webhook delivery", "the driver app map", "CSV export", "audit log", "alert routing", "cache warm-up")
ADR_TOPICS = ("Use OR-Tools for sequencing", "Postgres 16 everywhere", "One queue per event type",
              "Idempotency keys on every write", "EU data residency", "Feature flags in the database",
              "Contract tests for the driver app API", "Usage metering in the billing-api", "SSO with SAML only",
              "Structured logging", "Blue-green deploys", "Customs templates as code")
SKILLS = ("Python", "Go", "TypeScript", "Kubernetes", "Postgres", "Airflow", "dbt", "React", "Figma", "Salesforce")


def _iso_day(unix: int) -> str:
    return datetime.fromtimestamp(unix, UTC).date().isoformat()


def _invoice_status(invoice: Invoice) -> str:
    """The status finance recorded at its last update (a payment since then still shows as Sent)."""
    if invoice.status == "void":
        return "Void"
    if invoice.status == "uncollectible":
        return "Written off"
    if invoice.status == "paid" and invoice.paid_at is not None and invoice.paid_at <= INVOICES_AS_OF:
        return "Paid"
    return "Overdue" if invoice.due < INVOICES_AS_OF else "Sent"


def build_v2(rng: random.Random, size: str, org: Organisation) -> dict[str, Any]:
    b = Builder(rng, org.words)
    staff = org.staff
    users: list[dict[str, str | None]] = [{"id": e.notion_id, "name": e.name, "type": "person", "email": e.email}
                                          for e in staff]
    users.append({"id": b.new_id(), "name": "Kestrel Ops Assistant", "type": "bot", "email": None})
    b.names = [e.name for e in org.active]
    nid = {e.key: e.notion_id for e in org.employees}
    name = {e.key: e.name for e in org.employees}

    def para(*lines: str) -> list[tuple[str, str]]:
        return [("paragraph", line) for line in lines]

    # -- the page tree ---------------------------------------------------------------------------------
    home = b.page("Kestrel Freight Systems", None, texts=[("heading_1", "Welcome to Kestrel"),
                                                          ("paragraph", "Start here: handbook, policies, teams.")], n=0)
    heads = [e for e in org.active if e.manager is None or org.employee(e.manager).manager is None]
    b.page("Company Handbook", home, n=2, texts=[("heading_2", "Who leads what")]
           + [("bulleted_list_item", f"{e.department}: {e.name}, {e.title}") for e in heads])
    policies = b.page("Policies", home, n=0, texts=para("Every policy in force; the versions they replaced are kept "
                                                        "under Superseded. The newer version wins from its effective date."))
    superseded = b.page("Superseded", policies, n=0, texts=para("Older versions, kept for reference."))
    for policy in org.policies:
        for version in policy.versions:
            current = version is policy.current
            title = policy.title if current else f"{policy.title} {version.label} (superseded)"
            texts = [("heading_2", f"Effective {version.effective}" + ("" if current else f", superseded on {version.superseded}")),
                     *para(*policy.text(version).split("\n\n")[1:]), ("paragraph", f"Owner: {name[policy.owner]}")]
            b.page(title, policies if current else superseded, n=0, texts=texts,
                   when=f"{version.effective}T08:00:00Z" if version.effective <= NOW[:10] else None)
    for office in org.offices:
        rooms = [r for r in org.rooms if r.office == office.key]
        b.page(f"Office: {office.city}", home, n=1, texts=[("heading_2", office.building)]
               + [("bulleted_list_item", f"{r.name}: {r.capacity} seats, video {'yes' if r.video else 'no'}") for r in rooms])

    eng = b.page("Engineering", None, n=2)
    runbooks = b.page("Runbooks", eng, n=1)
    for service in org.services:
        b.page(f"Runbook: {service.name}", runbooks, n=3, texts=para(
            f"Owner: {name[service.owner]} ({service.team}). Repository: kestrel-freight/{service.repo}. Tier {service.tier}."))
    adrs = b.page("Architecture Decisions", eng, n=1)
    for i in range(1, (28 if size == "default" else 6) + 1):
        b.page(f"ADR-{i:03d}: {rng.choice(ADR_TOPICS)}", adrs, n=3)
    postmortems = b.page("Postmortems", eng, n=1)
    for incident in org.incidents:
        if incident.resolved is None:
            continue
        hit = ", ".join(org.customer(k).name for k in incident.customers) or "none"
        b.page(f"Postmortem: incident {incident.number} ({incident.service})", postmortems, n=1, texts=[
            ("heading_2", f"Incident {incident.number}: {incident.title}"),
            *para(f"Severity: {incident.severity}. Region: {incident.region}.",
                  f"Started {incident.started[:16].replace('T', ' ')} UTC, resolved {incident.resolved[:16].replace('T', ' ')} UTC.",
                  f"Incident commander: {name[incident.commander]}. Postmortem owner: {name[incident.postmortem_owner]}.",
                  f"Customers affected: {hit}.", f"Summary: {incident.summary}", f"Root cause: {incident.cause}."),
            ("heading_2", "Follow-ups (in Linear)"),
            *[("to_do", f"Incident {incident.number}: {f}") for f in incident.followups]],
            when=f"{incident.resolved[:10]}T17:00:00Z")
    b.page("Onboarding", eng, n=6)
    oncall = [e for e in org.active if "on-call" in e.flags]
    b.page("On-call Rota", eng, n=1, texts=[("heading_2", "Who is on the rota")]
           + [("bulleted_list_item", f"{e.name} ({e.team})") for e in oncall])
    for team in ("Backend", "Frontend", "Data", "Mobile", "SRE", "Security"):
        people = org.team(team)
        b.page(f"Team: {team}", eng, n=1, texts=[("bulleted_list_item", f"{e.name}, {e.title}") for e in people])
    product = b.page("Product", None, n=2)
    specs = b.page("Specs", product, n=1)
    for project in org.projects:
        b.page(f"Spec: {project.name}", specs, n=2, texts=para(
            project.description, f"Lead: {name[project.lead]}. Team: {', '.join(name[k] for k in project.members)}.",
            f"Repositories: {', '.join(project.repos)}. Slack: #{project.channel}. Linear project: {project.name}."))
    b.page("Roadmap 2026", product, n=4)
    sales = b.page("Sales", None, n=2)
    plans = b.page("Account Plans", sales, n=1)
    crm = list(org.key_accounts)
    for customer in crm:
        contact = customer.contact("operations")
        b.page(f"Account plan: {customer.name}", plans, n=2, texts=para(
            f"Owner: {name[customer.owner]}. Plan: {customer.plan}, {customer.seats} seats. Status: {customer.status}.",
            f"Main contact: {contact.name}, {contact.title} ({contact.email}).")
            + ([("paragraph", f"Renewal: {customer.renewal}.")] if customer.renewal else []))
    finance, procurement = b.back_office(sales, 3)
    people_page = b.page("People", None, n=2)
    hiring = b.page("Hiring", people_page, n=2)
    b.page("Onboarding", people_page, n=4)
    starter_items = []
    for e in org.employees:
        if not e.started:
            assert e.manager is not None, f"{e.key} starts soon and has no manager"
            starter_items.append(("bulleted_list_item", f"{e.name}, {e.title} ({e.team}), starts {e.start}, "
                                                        f"manager {name[e.manager]}"))
    b.page("New starters", people_page, n=0, texts=starter_items or para("None planned."))
    b.page("Benefits 2026", people_page, n=3)
    meetings = b.page("Meeting Notes", None, n=1)
    for series in org.series:
        if series.notes != "notion":
            continue
        attendees = ", ".join(org.name_of(a) for a in series.attendees)
        for start in series.held(before="2026-03-16T09:00"):
            week = [i for i in org.incidents if i.started[:10] <= start[:10] and
                    (datetime.fromisoformat(start[:10]) - datetime.fromisoformat(i.started[:10])).days < 7]
            texts = [("heading_2", "Attendees"), ("paragraph", f"Priya Raman, {attendees}"), ("heading_2", "Notes")]
            texts += [("bulleted_list_item", f"Incident {i.number} ({i.severity}, {i.service}): "
                                             f"{', '.join(org.customer(k).short for k in i.customers) or 'no customers'} affected")
                      for i in week]
            notes_title = series.notes_at(start)
            assert notes_title is not None, "notes kept in Notion have a page title"
            b.page(notes_title, meetings, n=3, texts=texts, when=f"{start[:10]}T{start[11:16]}:00Z")
    board = b.page("Board Meetings", meetings, n=1)
    for day in ("2025-04-09", "2025-07-10", "2025-10-08", "2026-01-14"):
        b.page(f"Quarterly Board Meeting {day}", board, texts=[("heading_2", "Agenda")], n=3, when=f"{day}T09:00:00Z")
    archive = b.page("Archive", None, n=1)
    for title in ("Roadmap 2025", "Weekly Ops Sync 2025-12-22", "Office: Porto (closed)", "Old Hiring Pipeline notes"):
        b.page(title, archive, n=2, archived=True)

    # -- the databases ---------------------------------------------------------------------------------
    accounts = b.database("Customer Accounts", sales, account_properties(**{
        "Domain": {"type": "url"}, "Stripe customer": {"type": "rich_text"}, "CRM ID": {"type": "rich_text"},
        "Churned on": {"type": "date"}}))
    row_of: dict[str, str] = {}
    for customer in crm:
        row_of[customer.key] = b.row(accounts, customer.name, {
            "Status": customer.status, "Plan": customer.plan.capitalize(), "Owner": [nid[customer.owner]],
            "Renewal date": customer.renewal, "ARR": customer.arr_eur, "Region": customer.region,
            "Billing email": customer.billing_email, "Domain": f"https://{customer.domain}",
            "Stripe customer": customer.stripe_id, "CRM ID": customer.crm_id, "Churned on": customer.churned,
        }, when=f"{_iso_day(customer.signup) if customer.signup else '2025-09-01'}T10:00:00Z")
    teams = ("Backend", "Frontend", "Data", "Mobile", "SRE", "Security", "Product management", "Design")
    projects = b.database("Projects", eng, {
        "Project": {"type": "title"},
        "Status": {"type": "status", **options("Not started", "In progress", "Paused", "Done")},
        "Lead": {"type": "people"}, "Team": {"type": "select", **options(*teams)},
        "Start": {"type": "date"}, "Target": {"type": "date"},
        "Account": {"type": "relation", "database_id": accounts}, "Linear project": {"type": "rich_text"},
    })
    stream_rows = []
    for project in org.projects:
        for stream in project.workstreams:
            lead = org.employee(stream.lead)
            stream_rows.append(b.row(projects, stream.name, {
                "Status": stream.status, "Lead": [lead.notion_id], "Team": lead.team if lead.team in teams else None,
                "Start": stream.start, "Target": stream.target,
                "Account": [row_of[stream.customer]] if stream.customer in row_of else [],
                "Linear project": project.name}, n=1, when=f"{min(stream.start, NOW[:10])}T09:00:00Z"))
    tasks = b.database("Engineering Tasks", eng, task_properties(projects))
    engineers = [e for e in org.active if e.department in ("Engineering", "Platform")]
    for _ in range(120 if size == "default" else 24):
        b.row(tasks, f"{rng.choice(TASK_VERBS)} {rng.choice(TASK_OBJECTS)} in {rng.choice(org.services).name}", {
            "Status": rng.choice(("Backlog", "Todo", "In progress", "In review", "Done", "Done")),
            "Assignee": [e.notion_id for e in rng.sample(engineers, k=rng.choice((0, 1, 1, 1, 2)))],
            "Priority": rng.choice(("P0", "P1", "P2", "P2", "P3")),
            "Due": random_date(rng, (2026, 1), (2026, 6)) if rng.random() < 0.8 else None,
            "Project": [rng.choice(stream_rows)],
            "Tags": sorted(rng.sample(("backend", "frontend", "infra", "data", "security", "bug"), k=rng.randint(1, 2))),
        }, archived=rng.random() < 0.04)
    roles = sorted({c.role for c in org.candidates})
    pipeline = b.database("Hiring Pipeline", hiring, {
        "Candidate": {"type": "title"}, "Role": {"type": "select", **options(*roles)},
        "Stage": {"type": "status", **options("Applied", "Phone screen", "Onsite", "Offer", "Hired", "Rejected", "Withdrew")},
        "Recruiter": {"type": "people"}, "Interviewers": {"type": "people"}, "Applied": {"type": "date"},
        "Salary ask": {"type": "number"}, "Referral": {"type": "checkbox"}, "Referred by": {"type": "people"},
        "Skills": {"type": "multi_select", **options(*SKILLS)},
    })
    for candidate in org.candidates:
        b.row(pipeline, candidate.name, {
            "Role": candidate.role, "Stage": candidate.stage, "Recruiter": [nid[candidate.recruiter]],
            "Interviewers": [nid[k] for k in candidate.interviewers], "Applied": candidate.applied,
            "Salary ask": candidate.salary_ask, "Referral": candidate.referred_by is not None,
            "Referred by": [nid[candidate.referred_by]] if candidate.referred_by else [], "Skills": list(candidate.skills),
        }, when=f"{candidate.applied}T10:00:00Z")
    categories = sorted({v.category for v in org.vendors})
    vendors = b.database("Vendors", procurement, {
        "Vendor": {"type": "title"},
        "Status": {"type": "select", **options("Active", "Under review", "Renewed", "Terminated")},
        "Owner": {"type": "people"}, "Category": {"type": "select", **options(*categories)},
        "Annual cost": {"type": "number"}, "Renewal": {"type": "date"}, "Contact": {"type": "email"},
        "Supplier number": {"type": "rich_text"},
    })
    for vendor in org.vendors:
        b.row(vendors, vendor.name, {
            "Status": vendor.status, "Owner": [nid[vendor.owner]], "Category": vendor.category,
            "Annual cost": vendor.annual_cost, "Renewal": vendor.renewal, "Contact": vendor.email,
            "Supplier number": vendor.supplier_number})
    ledger = b.database("Client Invoices", finance, {
        "Invoice": {"type": "title"}, "Account": {"type": "relation", "database_id": accounts},
        "Status": {"type": "status", **options("Draft", "Sent", "Paid", "Overdue", "Void", "Written off")},
        "Amount": {"type": "number"}, "Currency": {"type": "select", **options("EUR", "USD", "GBP", "CAD", "JPY")},
        "Issued": {"type": "date"}, "Due": {"type": "date"}, "Stripe invoice": {"type": "rich_text"},
    })
    for invoice in org.invoices:
        if invoice.customer not in row_of or invoice.created > INVOICES_AS_OF:
            continue
        customer = org.customer(invoice.customer)
        amount = invoice.total if invoice.currency == "jpy" else round(invoice.total / 100, 2)
        b.row(ledger, f"{invoice.number} {customer.name}", {
            "Account": [row_of[invoice.customer]], "Status": _invoice_status(invoice), "Amount": amount,
            "Currency": invoice.currency.upper(), "Issued": _iso_day(invoice.created), "Due": _iso_day(invoice.due),
            "Stripe invoice": invoice.id}, when=f"{_iso_day(invoice.created)}T12:00:00Z",
            texts=[("paragraph", f"{line.description}: {money(line.amount, invoice.currency)}") for line in invoice.lines])

    comments = []
    free = [p for p in b.pages if p["parent_id"] not in {d["id"] for d in b.databases} and not p["archived"]]
    for page in rng.sample(free, k=min(len(free), 30 if size == "default" else 6)):
        comments.append({"id": b.new_id(), "page_id": page["id"], "author": rng.choice(b.names),
                         "text": rng.choice(("Updated after the Monday review", "Can we revisit this before Friday?",
                                             "Numbers checked against the contract", "Moved the open items to Linear"))})
    return {"now": NOW, "users": users, "databases": b.databases, "pages": b.pages, "comments": comments}


__all__ = ["INVOICES_AS_OF", "build_v2"]
