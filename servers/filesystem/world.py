"""The filesystem world: Kestrel Freight Systems' shared operations drive.

At the default size, 200 text files in 30 directories: meeting notes by month, sales exports as CSV
(one per month and region, a stray ``(1)`` copy among them), invoices, environment configs in YAML,
TOML, INI and ``.env`` form (staging and production differing in a value or two), a small Python
service with tests, runbooks and ADRs in Markdown, HR policies, and an archive of last year.

Patchable collection: ``files`` (a mapping: path -> text). A patch adds a file with
``{"op": "add", "in": ["files"], "id": "docs/new.md", "value": "text"}``; its directories follow.
"""

from __future__ import annotations

import random
from typing import Any

from servers.kit.world import WorldGenerator
from servers.kit.worldtext import CUSTOMERS, PROJECTS, REGIONS, SERVICES, people

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


def _sales_csv(rng: random.Random, month: str, region: str) -> str:
    rows = ["date,customer,region,orders,revenue_eur"]
    for _ in range(rng.randint(18, 36)):
        rows.append(f"{month}-{rng.randint(1, 28):02d},{rng.choice(CUSTOMERS)},{region},{rng.randint(1, 60)},"
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


def describe(state: dict[str, Any]) -> dict[str, int]:
    dirs = {p.rsplit("/", i)[0] for p in state["files"] for i in range(1, p.count("/") + 1)}
    return {"files": len(state["files"]), "directories": len(dirs | set(state["directories"]))}


GENERATOR = WorldGenerator(
    name="filesystem", version=1, build=build, describe=describe, collections={"files": "path"},
)

__all__ = ["GENERATOR"]
