"""The Notion world: Kestrel Freight Systems' workspace.

At the default size: 45 users (44 people, lookalike names among them, and the integration), 157
free-standing pages in a hierarchy (company handbook and policies, engineering runbooks, ADRs and
postmortems, product specs, account plans, month-end close checklists, weekly meeting notes, board
meetings, an archive of trashed pages) with content blocks, and 6 databases of 50+ rows each with
Notion property types (title, select, multi_select, status, people, date, relation, number, checkbox,
email): Customer Accounts, Projects, Engineering Tasks, Hiring Pipeline, Vendors and Client Invoices.
Lookalikes occur as in a real workspace: "Harbour Foods Ltd" and "Harbor Foods Inc" accounts, "Harbour
Print Co" and "Harbour Printing Ltd" vendors, an "Onboarding" page in Engineering and in People, last
year's holiday policy in the trash, invoice numbers one digit apart. The clock ``now`` is
2026-03-16T09:00:00Z.

Version 2 (``servers/notion/_org.py``) projects the organisation (``servers/org``): its people, its
policies (current and superseded versions, dated), runbooks with owners, a postmortem per resolved
incident, a spec per project, an account plan per key account, the notes of every weekly ops review
held, and the databases filled from it: Customer Accounts (the CRM), Projects (the workstreams),
Hiring Pipeline, Vendors and Client Invoices (finance's copy of the Stripe invoices, as of Friday 6
March).

Patchable collections: ``users``, ``databases``, ``pages`` and ``comments`` (by ``id``),
``pages.content`` (blocks, by ``id``); ``set`` may change ``now``.
"""

from __future__ import annotations

import random
from typing import Any

from servers.kit.world import versions
from servers.kit.worldtext import CUSTOMERS, PROJECTS, SERVICES, fill, people
from servers.notion._org import build_v2
from servers.notion._pages import Builder, account_properties, options, random_date, task_properties
from servers.org import cast

NOW = "2026-03-16T09:00:00Z"
SIZES = {"default": 1, "small": 0}
WEEKS = ("2026-01-05", "2026-01-12", "2026-01-19", "2026-01-26", "2026-02-02", "2026-02-09", "2026-02-16",
         "2026-02-23", "2026-03-02", "2026-03-09")
VENDORS = ("Harbour Print Co", "Harbour Printing Ltd", "Nimbus Cloud", "Lisbon Workspace", "FleetFuel", "Atlas Catering",
           "Brightline Courier", "Oakridge Cleaning", "Northgate Office Supplies", "Keystone Insurance",
           "Datadog", "GitHub", "Slack", "Atlassian", "Figma", "Notion", "Google Workspace", "1Password",
           "PagerDuty", "Sentry", "Cloudflare", "Twilio", "Mapbox", "HERE Technologies", "DocuSign", "Deel",
           "Personio", "Greenhouse", "Lattice", "Ramp", "Brex", "Xero", "Pennylane", "KPMG Advisory",
           "Baker & Lane Legal", "Vale Recruiting", "TalentBridge", "Coffee Collective", "Green Desk Plants",
           "SecureShred", "Blue Harbour IT", "Metro Couriers", "Alfama Events", "CloudKitchen Lunches",
           "Orbit Telecom", "Vodafone Business", "Lisbon Parking Co", "Tagus Facilities", "Pixel Perfect Studio",
           "Quantum Security Audits", "Redline Translations", "Summit Training", "Clearview Windows",
           "Tidewater Logistics Consulting", "Willow HR Advisory", "Zenith Print & Sign")
VENDOR_CATEGORIES = ("Software", "Facilities", "Professional services", "Logistics", "Marketing", "Hardware")
ROLES = ("Senior Backend Engineer", "Data Engineer", "Senior Data Engineer", "Frontend Engineer", "SRE",
         "Product Designer", "Account Executive", "Support Engineer", "Customer Success Manager")
SKILLS = ("Python", "Go", "TypeScript", "Kubernetes", "Postgres", "Airflow", "dbt", "React", "Figma", "Salesforce")
TASK_VERBS = ("Migrate", "Fix", "Add", "Remove", "Document", "Speed up", "Monitor", "Refactor", "Test", "Upgrade")
TASK_OBJECTS = ("retry logic", "rate limits", "the ETA model", "label printing", "customs forms", "SSO login",
                "webhook delivery", "the driver app map", "CSV export", "audit log", "alert routing", "cache warm-up")
PROJECT_TOPICS = ("ETA model v2", "Carrier onboarding", "Usage-based billing", "Postgres 16 upgrade", "Driver app redesign",
                  "Customs automation", "Warehouse sync", "SSO for enterprise", "Status page", "Data warehouse",
                  "Label printing at scale", "EU data residency")
def build(rng: random.Random, size: str) -> dict[str, Any]:
    full = SIZES[size] == 1
    b = Builder(rng)
    staff = people(rng, 44 if full else 12)
    users = [{"id": b.new_id(), "name": p.full_name, "type": "person", "email": p.email} for p in staff]
    users.append({"id": b.new_id(), "name": "Kestrel Ops Assistant", "type": "bot", "email": None})
    b.names = [u["name"] for u in users[:-1]]
    person = [u["id"] for u in users[:-1]]
    scale = 1 if full else 0.2

    def count(n: int) -> int:
        return max(3, int(n * scale))

    # -- the page tree -------------------------------------------------------------------------------
    home = b.page("Kestrel Freight Systems", None, texts=[("heading_1", "Welcome to Kestrel"),
                                                          ("paragraph", "Start here: handbook, policies, teams.")])
    for title in ("Company Handbook", "Holiday Policy 2026", "Expense Policy", "Office: Lisbon", "Office: Toronto",
                  "Security Policy", "Travel Policy"):
        b.page(title, home, n=4)
    eng = b.page("Engineering", None, n=2)
    runbooks = b.page("Runbooks", eng, n=1)
    for service in SERVICES[:count(10)]:
        b.page(f"Runbook: {service}", runbooks, n=5)
    b.page("Runbook: billing-api (draft)", runbooks, n=2)
    adrs = b.page("Architecture Decisions", eng, n=1)
    for i in range(1, count(28) + 1):
        b.page(f"ADR-{i:03d}: {rng.choice(PROJECT_TOPICS)}", adrs, n=4)
    postmortems = b.page("Postmortems", eng, n=1)
    for i in range(count(14)):
        b.page(f"Postmortem: incident {2020 + i * 2} ({rng.choice(SERVICES)})", postmortems, n=5)
    b.page("Onboarding", eng, n=6)
    b.page("On-call Rota", eng, n=3)
    for team in ("Backend", "Frontend", "Platform", "Data", "Mobile"):
        b.page(f"Team: {team}", eng, n=4)
    product = b.page("Product", None, n=2)
    specs = b.page("Specs", product, n=1)
    for topic in PROJECT_TOPICS[:count(10)]:
        b.page(f"Spec: {topic}", specs, n=5)
    b.page("Roadmap 2026", product, n=6)
    sales = b.page("Sales", None, n=2)
    plans = b.page("Account Plans", sales, n=1)
    for customer in CUSTOMERS[:count(20)]:
        b.page(f"Account plan: {customer}", plans, n=4)
    finance, procurement = b.back_office(sales, 4)
    people_page = b.page("People", None, n=2)
    hiring = b.page("Hiring", people_page, n=2)
    b.page("Onboarding", people_page, n=6)
    b.page("Benefits 2026", people_page, n=4)
    b.page("Performance reviews 2026", people_page, n=3)
    meetings = b.page("Meeting Notes", None, n=1)
    for week in WEEKS[:count(10)]:
        b.page(f"Weekly Ops Sync {week}", meetings, texts=[("heading_2", "Agenda"), ("heading_2", "Notes")], n=4,
               when=f"{week}T08:30:00Z")
    board = b.page("Board Meetings", meetings, n=1)
    for day in ("2025-04-09", "2025-07-10", "2025-10-08", "2026-01-14"):
        b.page(f"Quarterly Board Meeting {day}", board, texts=[("heading_2", "Agenda")], n=4, when=f"{day}T09:00:00Z")
    b.page("Leadership Offsite 2026", meetings, n=5)
    for day in ("2026-01-21", "2026-02-04", "2026-02-18", "2026-03-04"):
        b.page(f"Product Review {day}", meetings, texts=[("heading_2", "Demos"), ("heading_2", "Decisions")], n=3,
               when=f"{day}T15:00:00Z")
    archive = b.page("Archive", None, n=1)
    for title in ("Holiday Policy 2025", "Roadmap 2025", "Weekly Ops Sync 2025-12-22", "Office: Porto (closed)",
                  "Spec: ETA model v1", "Old Hiring Pipeline notes"):
        b.page(title, archive, n=3, archived=True)

    # -- the databases -------------------------------------------------------------------------------
    accounts = b.database("Customer Accounts", sales, account_properties())
    account_names = [f"{c} Ltd" if c == "Harbour Foods" else c for c in CUSTOMERS] + ["Harbor Foods Inc", "Nordkap Marine"]
    words = ("Atlas", "Borealis", "Cobalt", "Delta", "Falcon", "Granite", "Horizon", "Juniper", "Keystone", "Lumen",
             "Marlin", "Orchard", "Quill", "Redwood", "Summit", "Trident", "Willow", "Zephyr")
    kinds = ("Logistics", "Retail", "Pharma", "Grocers", "Textiles", "Medical", "Paper", "Optics")
    while len(account_names) < count(70):
        name = f"{rng.choice(words)} {rng.choice(kinds)}"
        if name not in account_names:
            account_names.append(name)
    account_ids = []
    for name in account_names:
        slug = "".join(ch for ch in name.lower() if ch.isalnum())
        account_ids.append(b.row(accounts, name, {
            "Status": rng.choices(("Prospect", "Onboarding", "Active", "At risk", "Churned"), (1, 1, 6, 1, 1))[0],
            "Plan": rng.choice(("Starter", "Growth", "Scale", "Enterprise")), "Owner": [rng.choice(person)],
            "Renewal date": random_date(rng, (2026, 3), (2027, 2)), "ARR": rng.randint(4, 240) * 500,
            "Region": rng.choice(("EMEA", "EMEA", "North America", "APAC")), "Billing email": f"ap@{slug}.example",
        }))

    projects = b.database("Projects", eng, {
        "Project": {"type": "title"},
        "Status": {"type": "status", **options("Not started", "In progress", "Paused", "Done")},
        "Lead": {"type": "people"}, "Team": {"type": "select", **options("Backend", "Frontend", "Platform", "Data", "Mobile")},
        "Start": {"type": "date"}, "Target": {"type": "date"},
        "Account": {"type": "relation", "database_id": accounts},
    })
    project_ids = []
    for i in range(count(54)):
        name = f"{PROJECTS[i % len(PROJECTS)]}: {PROJECT_TOPICS[i % len(PROJECT_TOPICS)]}" + (f" ({i // 36 + 1})" if i >= 36 else "")
        project_ids.append(b.row(projects, name, {
            "Status": rng.choice(("Not started", "In progress", "In progress", "Paused", "Done")),
            "Lead": [rng.choice(person)], "Team": rng.choice(("Backend", "Frontend", "Platform", "Data", "Mobile")),
            "Start": random_date(rng, (2025, 6), (2026, 2)), "Target": random_date(rng, (2026, 3), (2026, 12)),
            "Account": [rng.choice(account_ids)] if rng.random() < 0.4 else [],
        }, n=2))

    tasks = b.database("Engineering Tasks", eng, task_properties(projects))
    for _i in range(count(120)):
        service = rng.choice(SERVICES)
        b.row(tasks, f"{rng.choice(TASK_VERBS)} {rng.choice(TASK_OBJECTS)} in {service}", {
            "Status": rng.choice(("Backlog", "Todo", "In progress", "In review", "Done", "Done")),
            "Assignee": rng.sample(person, k=rng.choice((0, 1, 1, 1, 2))), "Priority": rng.choice(("P0", "P1", "P2", "P2", "P3")),
            "Due": random_date(rng, (2026, 1), (2026, 6)) if rng.random() < 0.8 else None,
            "Project": [rng.choice(project_ids)], "Tags": sorted(rng.sample(("backend", "frontend", "infra", "data", "security", "bug"),
                                                                         k=rng.randint(1, 2))),
        }, archived=rng.random() < 0.04)

    pipeline = b.database("Hiring Pipeline", hiring, {
        "Candidate": {"type": "title"}, "Role": {"type": "select", **options(*ROLES)},
        "Stage": {"type": "status", **options("Applied", "Phone screen", "Onsite", "Offer", "Hired", "Rejected", "Withdrew")},
        "Recruiter": {"type": "people"}, "Interviewers": {"type": "people"}, "Applied": {"type": "date"},
        "Salary ask": {"type": "number"},
        "Referral": {"type": "checkbox"}, "Skills": {"type": "multi_select", **options(*SKILLS)},
    })
    recruiters = [u["id"] for u, p in zip(users, staff) if p.department == "People"] or person[:2]
    staff_names = set(b.names)
    candidates = [p.full_name for p in people(random.Random(rng.random()), 120) if p.full_name not in staff_names]
    candidates = candidates[:count(58)]
    for name in candidates:
        b.row(pipeline, name, {
            "Role": rng.choice(ROLES),
            "Stage": rng.choices(("Applied", "Phone screen", "Onsite", "Offer", "Hired", "Rejected", "Withdrew"),
                                 (4, 3, 2, 1, 1, 3, 1))[0],
            "Recruiter": [rng.choice(recruiters)], "Interviewers": rng.sample(person, k=rng.choice((0, 1, 2, 2, 3))),
            "Applied": random_date(rng, (2025, 11), (2026, 3)),
            "Salary ask": rng.randint(45, 140) * 1000, "Referral": rng.random() < 0.2,
            "Skills": sorted(rng.sample(SKILLS, k=rng.randint(1, 3))),
        })

    vendors = b.database("Vendors", procurement, {
        "Vendor": {"type": "title"},
        "Status": {"type": "select", **options("Active", "Under review", "Renewed", "Terminated")},
        "Owner": {"type": "people"}, "Category": {"type": "select", **options(*VENDOR_CATEGORIES)},
        "Annual cost": {"type": "number"}, "Renewal": {"type": "date"}, "Contact": {"type": "email"},
    })
    for name in VENDORS[:count(56)]:
        slug = "".join(ch for ch in name.lower() if ch.isalnum())
        b.row(vendors, name, {
            "Status": rng.choices(("Active", "Under review", "Renewed", "Terminated"), (6, 2, 2, 1))[0],
            "Owner": [rng.choice(person)], "Category": rng.choice(VENDOR_CATEGORIES),
            "Annual cost": rng.randint(6, 600) * 100, "Renewal": random_date(rng, (2026, 3), (2027, 3)),
            "Contact": f"accounts@{slug}.example",
        })

    invoices = b.database("Client Invoices", finance, {
        "Invoice": {"type": "title"}, "Account": {"type": "relation", "database_id": accounts},
        "Status": {"type": "status", **options("Draft", "Sent", "Paid", "Overdue", "Void")},
        "Amount": {"type": "number"}, "Currency": {"type": "select", **options("EUR", "USD", "GBP", "CAD", "JPY")},
        "Issued": {"type": "date"}, "Due": {"type": "date"},
    })
    number = 300
    for month_index in range(6):
        year, month = (2025, 10 + month_index) if month_index < 3 else (2026, month_index - 2)
        for _ in range(count(25)):
            number += rng.randint(1, 3)
            account = rng.randrange(len(account_ids))
            issued = f"{year}-{month:02d}-{rng.randint(1, 5):02d}"
            due_month = (year + (month == 12), month % 12 + 1)
            status = ("Paid" if rng.random() < 0.85 else rng.choice(("Overdue", "Void"))) if month_index < 5 else \
                rng.choice(("Draft", "Sent", "Sent", "Paid"))
            b.row(invoices, f"INV-{year}-{number:04d} {account_names[account]}", {
                "Account": [account_ids[account]], "Status": status,
                "Amount": round(rng.randint(800, 60_000) + rng.choice((0, 0.5, 0.25, 0.9)), 2),
                "Currency": rng.choice(("EUR", "EUR", "USD", "GBP")), "Issued": issued,
                "Due": f"{due_month[0]}-{due_month[1]:02d}-{issued[-2:]}",
            })

    comments = []
    for p in rng.sample([p for p in b.pages if p["parent_id"] not in {d["id"] for d in b.databases}], k=count(30)):
        comments.append({"id": b.new_id(), "page_id": p["id"], "author": rng.choice(b.names),
                         "text": fill(rng, rng.choice(("Updated after the {day} review", "Can we revisit this before {day}?",
                                                       "Numbers checked against {customer}'s contract",
                                                       "Moved the open items to {ticket}")))})
    return {"now": NOW, "users": users, "databases": b.databases, "pages": b.pages, "comments": comments}


def describe(state: dict[str, Any]) -> dict[str, int]:
    in_db = {d["id"] for d in state["databases"]}
    rows: dict[str, int] = {}
    for p in state["pages"]:
        if p["parent_id"] in in_db:
            rows[p["parent_id"]] = rows.get(p["parent_id"], 0) + 1
    return {"users": len(state["users"]), "pages": sum(p["parent_id"] not in in_db for p in state["pages"]),
            "databases": len(state["databases"]), "rows": sum(rows.values()),
            "smallest_database": min(rows.values(), default=0),
            "archived": sum(p["archived"] for p in state["pages"]),
            "blocks": sum(len(p["content"]) for p in state["pages"]), "comments": len(state["comments"])}


COLLECTIONS = {"users": "id", "databases": "id", "pages": "id", "pages.content": "id", "comments": "id"}
GENERATORS = versions("notion", COLLECTIONS, describe, build, (build_v2, cast))
GENERATOR = GENERATORS[-1]

__all__ = ["GENERATOR", "GENERATORS"]
