"""The filesystem world: Kestrel Freight Systems' shared operations drive.

At the default size, 200 text files in 30 directories: meeting notes by month, sales exports as CSV
(one per month and region, a stray ``(1)`` copy among them), invoices, environment configs in YAML,
TOML, INI and ``.env`` form (staging and production differing in a value or two), a small Python
service with tests, runbooks and ADRs in Markdown, HR policies, and an archive of last year.

Version 2 projects the organisation (``servers/org``): its policies as the drive copied them on 20
January (the newer versions are on the intranet and in Notion only), the on-call rota, one invoice
export per month (statuses as of the day it was taken: a payment since shows only in Stripe), the
vendors' bills, a headcount export of 31 January (people who left since are still in it), sales
exports of its key accounts, and the notes of the meetings kept on the drive (incident reviews,
carrier scorecards, budget reviews...), at the paths the calendar names.

Patchable collection: ``files`` (a mapping: path -> text). A patch adds a file with
``{"op": "add", "in": ["files"], "id": "docs/new.md", "value": "text"}``; its directories follow.
"""

from __future__ import annotations

import calendar
import random
from datetime import UTC, datetime
from typing import Any

from servers.kit.world import versions
from servers.kit.worldtext import CUSTOMERS, PROJECTS, REGIONS, SERVICES, people
from servers.org import FX_EUR, Organisation, cast, money

SIZES = {"default": 200, "small": 40}
MONTHS = (("2026-01", "January"), ("2026-02", "February"), ("2026-03", "March"))
SALES_REGIONS = ("emea", "na", "apac")
MEETINGS = ("ops-sync", "carrier-review", "capacity-planning", "incident-review", "hiring-sync")
DECISIONS = ("Move the {customer} pickups to the Rotterdam hub", "Keep the current rate card until Q2",
             "Escalate late deliveries above {n}% to the carrier account manager",
             "Pilot route optimisation with {customer}", "Freeze non-critical deploys during month-end close",
             "Hire {n} seasonal drivers for the Hamburg depot")
ACTIONS = ("Send the updated scorecard to DHL", "Review the {project} budget", "Draft the incident postmortem",
           "Update the failover runbook", "Call {customer} about the delayed pallets", "Book the offsite venue")


def _meeting(rng: random.Random, kind: str, day: str, staff) -> str:
    who = rng.sample(staff, 4)
    fill = {"customer": rng.choice(CUSTOMERS), "n": rng.randint(2, 12), "project": rng.choice(PROJECTS)}
    decisions = "\n".join(f"- {d.format(**fill)}" for d in rng.sample(DECISIONS, 2))
    actions = "\n".join(f"- [ ] {p.handle}: {a.format(**fill)}" for p, a in zip(who, rng.sample(ACTIONS, 3)))
    return (f"# {kind.replace('-', ' ').capitalize()} {day}\n\nAttendees: {', '.join(p.full_name for p in who)}\n\n"
            f"## Notes\nOn-time delivery was {rng.randint(86, 98)}% last week; {rng.randint(1, 9)} open escalations.\n\n"
            f"## Decisions\n{decisions}\n\n## Action items\n{actions}\n")


def _sales_csv(rng: random.Random, month: str, region: str, customers: tuple[str, ...] = CUSTOMERS) -> str:
    rows = ["date,customer,region,orders,revenue_eur"]
    for _ in range(rng.randint(18, 36)):
        rows.append(f"{month}-{rng.randint(1, 28):02d},{rng.choice(customers)},{region},{rng.randint(1, 60)},"
                    f"{rng.randint(800, 90_000)}.{rng.randint(0, 99):02d}")
    return "\n".join(rows) + "\n"


def _configs(rng: random.Random, env: str) -> dict[str, str]:
    level = {"dev": "debug", "staging": "info", "prod": "warning"}[env]
    replicas = {"dev": 1, "staging": 2, "prod": rng.randint(3, 6)}[env]
    return {
        f"config/environments/{env}/app.yaml": (
            f"environment: {env}\nlog_level: {level}\nreplicas: {replicas}\nregion: {rng.choice(REGIONS)}\n"
            f"features:\n  route_optimisation: {str(env != 'prod').lower()}\n  bulk_labels: true\n"
            f"database:\n  host: db.{env}.internal\n  pool_size: {replicas * 5}\n"),
        f"config/environments/{env}/worker.toml": (
            f"[worker]\nconcurrency = {replicas * 4}\nqueue = \"shipments-{env}\"\nretry_limit = {rng.choice((3, 5))}\n"),
        f"config/environments/{env}/.env.example": (
            f"APP_ENV={env}\nDATABASE_URL=postgres://app@db.{env}.internal/kestrel\nSENTRY_DSN=\nFEATURE_FLAGS=bulk_labels\n"),
    }


def _service(rng: random.Random, name: str) -> dict[str, str]:
    module = name.replace("-", "_")
    timeout = rng.choice((5, 10, 30))
    return {
        f"services/{name}/README.md": f"# {name}\n\nPart of the Kestrel platform. Run `make dev`.\n",
        f"services/{name}/pyproject.toml": f"[project]\nname = \"{name}\"\nversion = \"1.{rng.randint(0, 9)}.0\"\n",
        f"services/{name}/src/{module}/__init__.py": f"\"\"\"{name}.\"\"\"\n",
        f"services/{name}/src/{module}/config.py": (
            f"import os\n\nTIMEOUT_S = int(os.environ.get(\"TIMEOUT_S\", \"{timeout}\"))\nLOG_LEVEL = os.environ.get(\"LOG_LEVEL\", \"info\")\n"),
        f"services/{name}/src/{module}/handlers.py": (
            "from .config import TIMEOUT_S\n\n\ndef handle(event: dict) -> dict:\n"
            "    \"\"\"Process one shipment event.\"\"\"\n    return {\"status\": \"ok\", \"timeout\": TIMEOUT_S, **event}\n"),
        f"services/{name}/tests/test_handlers.py": (
            f"from {module}.handlers import handle\n\n\ndef test_handle_echoes_the_event():\n"
            "    assert handle({\"id\": 1})[\"id\"] == 1\n"),
    }


def build(rng: random.Random, size: str) -> dict[str, Any]:
    staff = people(rng, 24)
    files: dict[str, str] = {
        "README.md": "# Operations drive\n\nShared files of the Kestrel operations team. See docs/handbook.md.\n",
        "docs/handbook.md": "# Operations handbook\n\n1. Escalations go to #cs-escalations.\n2. Month-end close starts on the 25th.\n",
        "docs/runbooks/failover.md": f"# Database failover\n\n1. Page on-call\n2. Promote the replica in {rng.choice(REGIONS)}\n",
        "docs/runbooks/carrier-outage.md": "# Carrier outage\n\n1. Switch affected lanes to the backup carrier\n2. Notify customers\n",
        "docs/adr/0001-shared-drive-layout.md": "# 1. Shared drive layout\n\nStatus: accepted\n\nOne folder per function.\n",
        "docs/adr/0002-csv-exports.md": "# 2. CSV exports\n\nStatus: accepted\n\nSales exports are UTF-8 CSV, one per month and region.\n",
        "hr/policies/travel.md": f"# Travel policy\n\nHotels up to {rng.choice((140, 160, 180))} EUR per night. Economy flights under 6 hours.\n",
        "hr/policies/expenses.md": "# Expenses\n\nSubmit receipts within 30 days. Client dinners need pre-approval above 300 EUR.\n",
        "hr/policies/remote-work.md": "# Remote work\n\nUp to three remote days a week; core hours 10:00-15:00 local time.\n",
        "scripts/export_sales.py": "import csv\nimport sys\n\n\ndef main(path):\n    with open(path) as f:\n        return sum(1 for _ in csv.DictReader(f))\n\n\nif __name__ == '__main__':\n    print(main(sys.argv[1]))\n",
        "scripts/rotate_logs.sh": "#!/bin/sh\nfind /var/log/kestrel -name '*.log' -mtime +14 -delete\n",
        "ops/k8s/route-planner.yaml": f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: route-planner\nspec:\n  replicas: {rng.randint(2, 6)}\n",
        "ops/terraform/main.tf": f"module \"cluster\" {{\n  source = \"./modules/cluster\"\n  region = \"{rng.choice(REGIONS)}\"\n}}\n",
        "config/logging.ini": "[loggers]\nkeys=root\n\n[logger_root]\nlevel=INFO\nhandlers=console\n",
    }
    for env in ("dev", "staging", "prod"):
        files.update(_configs(rng, env))
    for name in ("route-planner", "notifier"):
        files.update(_service(rng, name))
    for month, label in MONTHS:
        for region in SALES_REGIONS:
            files[f"sales/exports/sales_{month}_{region}.csv"] = _sales_csv(rng, month, region)
        files[f"finance/reports/close_{month}.md"] = (
            f"# Month-end close {label} 2026\n\nRevenue: {rng.randint(900, 1600)}k EUR\nOpen invoices: {rng.randint(10, 40)}\n")
    files["sales/exports/sales_2026-03_emea (1).csv"] = files["sales/exports/sales_2026-03_emea.csv"]
    for year in ("2024", "2025"):
        for region in SALES_REGIONS:
            files[f"archive/{year}/sales_{year}_{region}.csv"] = _sales_csv(rng, f"{year}-12", region)
    # Fill up to the size with meeting notes and invoices, the bulk of a real drive.
    target = SIZES[size]
    invoice = rng.randint(100, 200)
    while len(files) < target:
        month, label = rng.choice(MONTHS)
        if rng.random() < 0.6:
            kind, day = rng.choice(MEETINGS), f"{month}-{rng.randint(1, 28):02d}"
            path = f"meetings/{month}/{day}-{kind}.md"
            if path not in files:
                files[path] = _meeting(rng, kind, day, staff)
        else:
            invoice += rng.randint(1, 3)
            customer = rng.choice(CUSTOMERS)
            files[f"finance/invoices/{month}/INV-2026-{invoice}.md"] = (
                f"# Invoice INV-2026-{invoice}\n\nCustomer: {customer}\nDate: {month}-{rng.randint(1, 28):02d}\n"
                f"Service: {rng.choice(SERVICES)} subscription\nAmount due: {rng.randint(4, 400) * 25:,}.00 EUR\n"
                f"Status: {rng.choice(('paid', 'paid', 'open', 'overdue'))}\n")
    if size == "small":
        files = dict(sorted(files.items())[:target])
    return {"files": dict(sorted(files.items())), "directories": []}


#: The drive's copies of the policies were last refreshed on this day: newer versions are not here.
POLICIES_COPIED = "2026-01-20"
REGION_EXPORTS = {"emea": "EMEA", "na": "North America", "apac": "APAC"}
#: When each month's invoice export was taken, a few days after the invoice run (its statuses are as of
#: then: what was paid later shows as open).
EXPORTED = {"2025-10": "2025-10-06", "2025-11": "2025-11-06", "2025-12": "2025-12-05", "2026-01": "2026-01-07",
            "2026-02": "2026-02-06", "2026-03": "2026-03-06"}


def _status_on(invoice, day: str) -> str:
    """An invoice's status as an export taken on ``day`` saw it."""
    if invoice.status == "paid":
        return "paid" if invoice.paid_at <= calendar.timegm(datetime.fromisoformat(day).timetuple()) + 86_399 else "open"
    return invoice.status


def _notes(rng: random.Random, org: Organisation, title: str, start: str, attendees: tuple[str, ...],
           facts: list[str]) -> str:
    people = [org.by_email[a] for a in attendees if a in org.by_email] or [org.owner]
    actions = "\n".join(f"- [ ] {p.handle}: {a}" for p, a in zip(rng.sample(people, k=min(3, len(people))),
                                                              rng.sample(ACTIONS, 3)))
    fill = {"customer": rng.choice(org.words.customers), "n": rng.randint(2, 12), "project": rng.choice(org.words.projects)}
    decisions = "\n".join(f"- {d.format(**fill)}" for d in rng.sample(DECISIONS, 2))
    names = ", ".join(["Priya Raman"] + [org.name_of(a) for a in attendees if a != org.owner.email])
    body = "\n".join(f"- {f}" for f in facts)
    return (f"# {title} {start[:10]}\n\nAttendees: {names}\n\n## Notes\n{body}\n\n## Decisions\n{decisions}\n\n"
            f"## Action items\n{actions.format(**fill)}\n")


def build_v2(rng: random.Random, size: str, org: Organisation) -> dict[str, Any]:
    """Version 2: the operations drive as the organisation fills it: its policies as copied in January
    (the newer versions are only on the intranet and in Notion), the on-call rota, monthly invoice
    exports (each month's statuses as of the day it was taken) and the vendors' bills, a headcount
    export of 31 January, sales exports of its customers, and the notes of the meetings kept on the drive."""
    files: dict[str, str] = {
        "README.md": "# Operations drive\n\nShared files of the Kestrel operations team. See docs/handbook.md.\n",
        "docs/handbook.md": ("# Operations handbook\n\n1. Escalations go to #cs-escalations.\n2. Month-end close starts on "
                             "the 25th.\n3. The on-call rota is ops/on-call/rota-2026.csv.\n4. Policies: the intranet "
                             "(HR > Policies) has the current versions; the copies under policies/ are from "
                             f"{POLICIES_COPIED}.\n"),
        "docs/runbooks/failover.md": f"# Database failover\n\n1. Page on-call\n2. Promote the replica in {rng.choice(REGIONS)}\n",
        "docs/runbooks/carrier-outage.md": "# Carrier outage\n\n1. Switch affected lanes to the backup carrier\n2. Notify customers\n",
        "docs/adr/0001-shared-drive-layout.md": "# 1. Shared drive layout\n\nStatus: accepted\n\nOne folder per function.\n",
        "docs/adr/0002-csv-exports.md": "# 2. CSV exports\n\nStatus: accepted\n\nExports are UTF-8 CSV, one per month.\n",
        "scripts/rotate_logs.sh": "#!/bin/sh\nfind /var/log/kestrel -name '*.log' -mtime +14 -delete\n",
        "config/logging.ini": "[loggers]\nkeys=root\n\n[logger_root]\nlevel=INFO\nhandlers=console\n",
    }
    for policy in org.policies:
        version = policy.version_on(POLICIES_COPIED)
        files[f"policies/{policy.slug}.md"] = f"# {policy.title} ({version.label})\n\n{policy.text(version)}\n"
    for env in ("dev", "staging", "prod"):
        files.update(_configs(rng, env))
    for name in ("route-planner", "notifier"):
        files.update(_service(rng, name))
    rota = ["week_start,primary,primary_email,secondary,secondary_email"]
    for week in org.rota:
        if week.start >= "2025-12-29":
            first, second = org.employee(week.primary), org.employee(week.secondary)
            rota.append(f"{week.start},{first.name},{first.email},{second.name},{second.email}")
    files["ops/on-call/rota-2026.csv"] = "\n".join(rota) + "\n"
    for month, _label in MONTHS:
        for region, name in REGION_EXPORTS.items():
            shorts = tuple(dict.fromkeys(c.short for c in org.key_accounts if c.region == name)) or org.words.customers
            files[f"sales/exports/sales_{month}_{region}.csv"] = _sales_csv(rng, month, region, shorts)
    files["sales/exports/sales_2026-03_emea (1).csv"] = files["sales/exports/sales_2026-03_emea.csv"]
    names = {c.key: c for c in org.customers}
    for period, day in EXPORTED.items():
        rows = ["number,customer,stripe_customer,currency,amount,status,issued,due"]
        eur = 0.0
        for invoice in (i for i in org.invoices if i.period == period):
            customer = names[invoice.customer]
            amount = str(invoice.total) if invoice.currency == "jpy" else f"{invoice.total / 100:.2f}"
            rows.append(f"{invoice.number},\"{customer.name}\",{customer.stripe_id},{invoice.currency.upper()},{amount},"
                        f"{_status_on(invoice, day)},{_day(invoice.created)},{_day(invoice.due)}")
            eur += invoice.total * FX_EUR[invoice.currency]
        files[f"finance/exports/invoices_{period}.csv"] = "\n".join(rows) + "\n"
        label = datetime.fromisoformat(period + "-01").strftime("%B %Y")
        files[f"finance/reports/close_{period}.md"] = (f"# Month-end close {label}\n\nInvoiced: {eur / 1000:,.0f}k EUR "
                                                       f"(rates of the day)\nExport: finance/exports/invoices_{period}.csv, "
                                                       f"taken {day}\n")
    bills = ["number,vendor,amount_eur,issued,due,status,paid_on"]
    for bill in org.bills:
        bills.append(f"{bill.number},\"{org.vendor(bill.vendor).name}\",{bill.amount / 100:.2f},{bill.issued},{bill.due},"
                     f"{bill.status},{bill.paid_on or ''}")
    files["finance/payables/bills_2026-Q1.csv"] = "\n".join(bills) + "\n"
    heads = ["name,email,title,department,team,manager_email,office,start_date"]
    for e in org.employees:
        if e.employed_on("2026-01-31"):
            manager = org.employee(e.manager).email if e.manager else ""
            heads.append(f"{e.name},{e.email},{e.title},{e.department},{e.team},{manager},{e.office},{e.start}")
    files["hr/exports/headcount_2026-01-31.csv"] = "\n".join(heads) + "\n"
    for year in ("2024", "2025"):
        for region in SALES_REGIONS:
            files[f"archive/{year}/sales_{year}_{region}.csv"] = _sales_csv(rng, f"{year}-12", region, org.words.customers)
    # The notes of the meetings kept on the drive, for those that took place.
    for meeting in org.meetings:
        if meeting.notes_path and meeting.start < "2026-03-16T09:00":
            facts = [meeting.description]
            if meeting.kind == "incident-review":
                assert meeting.subject is not None, f"{meeting.key}: an incident review names its incident"
                incident = org.incident(int(meeting.subject))
                facts += [f"Incident {incident.number} ({incident.severity}, {incident.service}), commander "
                          f"{org.employee(incident.commander).name}", f"Root cause: {incident.cause}"]
            elif meeting.subject in org.carriers:
                facts.append(f"{meeting.subject} on-time delivery was {rng.randint(86, 98)}% last month")
            files[meeting.notes_path] = _notes(rng, org, meeting.title, meeting.start, meeting.attendees, facts)
    for series in org.series:
        if series.notes == "drive":
            for start in series.held("2026-03-16T09:00"):
                path = series.notes_at(start)
                assert path is not None, "notes kept on the drive have a path"
                files[path] = _notes(rng, org, series.title, start, series.attendees, [series.description])
    # Invoices of the key accounts, as sent, until the drive has its size.
    target = SIZES_V2[size]
    for invoice in (i for i in org.invoices if names[i.customer].key_account):
        if len(files) >= target:
            break
        customer = names[invoice.customer]
        lines = "\n".join(f"- {line.description}: {money(line.amount, invoice.currency)}" for line in invoice.lines)
        files[f"finance/invoices/{invoice.period}/{invoice.number}.md"] = (
            f"# Invoice {invoice.number}\n\nCustomer: {customer.name}\nStripe customer: {customer.stripe_id}\n"
            f"Date: {_day(invoice.created)}\nDue: {_day(invoice.due)}\n\n{lines}\n\nAmount due: "
            f"{money(invoice.total, invoice.currency)}\n")
    return {"files": dict(sorted(files.items())), "directories": []}


def _day(unix: int) -> str:
    return datetime.fromtimestamp(unix, UTC).date().isoformat()


def describe(state: dict[str, Any]) -> dict[str, int]:
    dirs = {p.rsplit("/", i)[0] for p in state["files"] for i in range(1, p.count("/") + 1)}
    return {"files": len(state["files"]), "directories": len(dirs | set(state["directories"]))}


SIZES_V2 = {"default": 240, "small": 70}
GENERATORS = versions("filesystem", {"files": "path"}, describe, build, (build_v2, cast))
GENERATOR = GENERATORS[-1]

__all__ = ["GENERATOR", "GENERATORS"]
