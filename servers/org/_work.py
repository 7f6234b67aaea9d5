"""The organisation's work: services and repositories, projects with their workstreams, incidents, and the
hiring pipeline."""

from __future__ import annotations

import calendar
import random
from datetime import datetime, timedelta

from servers.kit.worldtext import FIRST_NAMES, LAST_NAMES, REGIONS
from servers.org._staff import LINEAR_TEAMS
from servers.org.model import (
    TODAY,
    Candidate,
    Customer,
    Employee,
    Incident,
    OnCallWeek,
    Project,
    Repo,
    Service,
    Workstream,
)

REPOS = (
    Repo("route-planner", "Route optimisation service: ETAs, stop sequencing and carrier rates", "routing", "Python"),
    Repo("driver-app", "Driver mobile app (React Native): manifests, proof of delivery, offline sync", "mobile",
         "TypeScript"),
    Repo("infra", "Terraform and Kubernetes manifests for every Kestrel environment", "platform", "HCL"),
    Repo("platform-services", "The backend services behind the web app and the API, one package each", "backend",
         "Python"),
)
#: service -> (owning team, repository, tier)
SERVICES = {
    "route-planner": ("Backend", "route-planner", 1), "rate-engine": ("Backend", "route-planner", 1),
    "billing-api": ("Backend", "platform-services", 1), "tracking-gateway": ("Backend", "platform-services", 1),
    "customs-docs": ("Backend", "platform-services", 2), "notifier": ("SRE", "platform-services", 2),
    "warehouse-sync": ("Data", "platform-services", 2), "auth-service": ("Security", "platform-services", 1),
    "search-indexer": ("Data", "platform-services", 2), "driver-app-backend": ("Mobile", "driver-app", 1),
}
#: (key, codename, name, description, Linear teams, state, start, target, repos, channel, with a pilot customer)
PROJECTS = (
    ("atlas", "Atlas", "Atlas: route optimisation v2", "New solver for multi-stop routes; ETA accuracy target 92%.",
     ("ENG", "PLT"), "started", "2025-10-06", "2026-05-29", ("route-planner", "infra"), "proj-atlas", True),
    ("harbor", "Harbor", "Harbor: Postgres 16 migration",
     "Move every service database from Postgres 13 to 16 with no downtime.", ("PLT",), "started", "2025-11-03",
     "2026-04-30", ("infra", "platform-services"), "proj-harbor-migration", False),
    ("beacon", "Beacon", "Beacon: live tracking page", "Public shipment tracking page and driver location sharing.",
     ("ENG", "MOB"), "started", "2025-12-01", "2026-04-15", ("platform-services", "driver-app"), "proj-beacon", True),
    ("compass", "Compass", "Compass: customs docs automation", "Generate EU customs documents from shipment data.",
     ("ENG",), "planned", "2026-04-06", "2026-06-30", ("platform-services",), "proj-compass", True),
    ("tidewater", "Tidewater", "Tidewater: usage-based billing", "Bill customers per shipment instead of per seat.",
     ("ENG", "PLT"), "paused", "2025-09-15", None, ("platform-services",), "proj-billing-v2", False),
    ("lighthouse", "Lighthouse", "Lighthouse: driver app offline mode",
     "Drivers keep working without signal; sync when back online.", ("MOB",), "started", "2026-01-12", "2026-05-15",
     ("driver-app",), "proj-lighthouse", False),
)
WORKSTREAMS = {
    "atlas": ("ETA model v2", "Solver benchmark", "Carrier rate cards", "Multi-stop sequencing", "Pilot rollout",
              "Dispatcher UI", "Capacity model", "Traffic data feed", "Accuracy dashboard"),
    "harbor": ("Inventory of databases", "Replica upgrade", "Cut-over runbook", "Driver upgrade", "Billing database",
               "Tracking database", "Search database", "Rollback drill", "Decommission Postgres 13"),
    "beacon": ("Public tracking page", "Location sharing", "ETA widget", "Status page", "Notification emails",
               "Privacy review", "Customer branding", "Load test", "Launch"),
    "compass": ("EU customs rules", "Document templates", "Commercial invoices", "Customs API", "Broker integration",
                "Validation rules", "Audit trail", "Pilot", "Launch"),
    "tidewater": ("Usage metering", "Pricing model", "Invoice lines per shipment", "Stripe usage records",
                  "Migration of seat plans", "Finance reports", "Customer comms", "Overage alerts", "Sunset seats"),
    "lighthouse": ("Offline queue", "Photo upload retry", "Conflict resolution", "Sync status UI",
                   "Battery budget", "Background sync", "Field test", "Crash reporting", "Release"),
}
#: service -> (title, cause, follow-ups); every incident of a service is one of these.
SYMPTOMS = {
    "route-planner": ("Route planner returning 500s", "connection pool exhaustion after a deploy raised the worker count",
                      ("Alert on connection pool saturation for route-planner", "Load test route-planner before releases")),
    "rate-engine": ("Rate engine quoting stale fuel surcharges", "a cache key that ignored the rate card version",
                    ("Version the rate card cache keys", "Add a fuel surcharge check to the release checklist")),
    "billing-api": ("Payment timeouts in billing-api", "webhook retries from the payment provider piled up in one queue",
                    ("Split the webhook queue by event type", "Time out payment calls after 10 s")),
    "tracking-gateway": ("Tracking updates delayed", "a queue backlog after the node pool upgrade",
                         ("Autoscale tracking-gateway consumers on queue depth", "Drain nodes one zone at a time")),
    "customs-docs": ("Customs documents not generated", "a template change broke the commercial invoice renderer",
                     ("Render every customs template in CI", "Alert when no documents are generated for 15 minutes")),
    "notifier": ("Duplicate shipment notifications", "a retry without an idempotency key",
                 ("Add idempotency keys to notifier sends", "Deduplicate notifications by shipment and status")),
    "warehouse-sync": ("Warehouse stock out of sync", "a failed nightly job that did not page",
                       ("Page on failed warehouse-sync runs", "Reconcile stock counts every hour")),
    "auth-service": ("Login failures after the SSO change", "an expired SAML signing certificate",
                     ("Monitor SAML certificate expiry", "Document the SSO certificate rotation")),
    "search-indexer": ("Search results stale", "the indexer stopped after a schema change",
                       ("Alert when the search index lags by more than 10 minutes", "Test schema changes against the indexer")),
    "driver-app-backend": ("Driver app sync failing", "an API change that the app version 4.18 could not parse",
                           ("Keep the previous API version for 30 days", "Add contract tests for the driver app API")),
}
ROLES = ("Senior Backend Engineer", "Data Engineer", "Senior Data Engineer", "Frontend Engineer", "SRE",
         "Product Designer", "Account Executive", "Support Engineer", "Customer Success Manager",
         "Shift Supervisor Gdansk", "Warehouse Planner Hamburg", "Operations Coordinator")
SKILLS = ("Python", "Go", "TypeScript", "Kubernetes", "Postgres", "Airflow", "dbt", "React", "Figma", "Salesforce")
STAGES = ("Applied", "Phone screen", "Onsite", "Offer", "Hired", "Rejected", "Withdrew")
#: role -> the team whose people interview for it
ROLE_TEAMS = {"Senior Backend Engineer": "Backend", "Data Engineer": "Data", "Senior Data Engineer": "Data",
              "Frontend Engineer": "Frontend", "SRE": "SRE", "Product Designer": "Design",
              "Account Executive": "Sales EMEA", "Support Engineer": "Support",
              "Customer Success Manager": "Customer Success", "Shift Supervisor Gdansk": "Warehouse",
              "Warehouse Planner Hamburg": "Warehouse", "Operations Coordinator": "Operations"}


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def build_services(rng: random.Random, staff: tuple[Employee, ...]) -> tuple[Service, ...]:
    out = []
    for name, (team, repo, tier) in SERVICES.items():
        owners = [e for e in staff if e.team == team and e.active] or [e for e in staff if e.department == "Engineering"
                                                                         and e.active]
        out.append(Service(name, team, repo, rng.choice(owners).key, tier))
    return tuple(out)


def build_projects(rng: random.Random, staff: tuple[Employee, ...], customers: tuple[Customer, ...]) -> tuple[Project, ...]:
    pilots = [c for c in customers if c.key_account and c.status == "Active" and c.duplicate_of is None]
    out = []
    for key, codename, name, about, teams, state, start, target, repos, channel, pilot in PROJECTS:
        engineers = [e for e in staff if e.active and any(e.team in LINEAR_TEAMS[t] for t in teams)]
        product = [e for e in staff if e.active and e.department == "Product"]
        lead = rng.choice([e for e in engineers if e.title.startswith(("Senior", "Staff", "Engineering manager",
                                                                          "SRE lead", "Mobile lead"))] or engineers)
        members = [lead] + rng.sample([e for e in engineers if e is not lead], k=min(len(engineers) - 1, rng.randint(4, 7)))
        members += rng.sample(product, k=min(1, len(product)))
        customer = rng.choice(pilots).key if pilot else None
        streams = []
        for n, title in enumerate(WORKSTREAMS[key]):
            begin = datetime.fromisoformat(start) + timedelta(days=14 * n + rng.randint(0, 10))
            end = begin + timedelta(days=rng.randint(20, 70))
            status = ("Done" if end.date().isoformat() < TODAY else "In progress") if begin.date().isoformat() < TODAY \
                else "Not started"
            if state == "paused" and status == "In progress":
                status = "Paused"
            streams.append(Workstream(f"{codename}: {title}", rng.choice(members).key, status,
                                      begin.date().isoformat(), end.date().isoformat(),
                                      customer if customer and rng.random() < 0.4 else None))
        out.append(Project(key, codename, name, about, teams, state, start, target, lead.key,
                           tuple(m.key for m in members), repos, channel, customer, tuple(streams)))
    return tuple(out)


def build_rota(rng: random.Random, staff: tuple[Employee, ...]) -> tuple[OnCallWeek, ...]:
    """The on-call rota, a week at a time from 29 September 2025 to the end of June 2026: everyone with
    the on-call flag in turn (a fixed order), primary then secondary, skipping who does not work here
    that week."""
    order = [e for e in staff if "on-call" in e.flags]
    rng.shuffle(order)
    out, turn = [], 0
    week = datetime(2025, 9, 29)
    while week < datetime(2026, 7, 1):
        monday, sunday = week.date().isoformat(), (week + timedelta(days=6)).date().isoformat()
        here = [e for e in order if e.employed_on(monday) and e.employed_on(sunday)]
        primary = here[turn % len(here)]
        secondary = here[(turn + 1) % len(here)]
        out.append(OnCallWeek(monday, primary.key, secondary.key))
        turn += 1
        week += timedelta(days=7)
    return tuple(out)


def build_incidents(rng: random.Random, size: str, staff: tuple[Employee, ...], services, customers,
                    rota: tuple[OnCallWeek, ...]) -> tuple[Incident, ...]:
    count = 5 if size == "small" else 15
    # Spread over the winter; the last two are recent: one resolved last week (its service credits not
    # issued yet), one still being monitored.
    first, last = datetime(2025, 10, 6, 8), datetime(2026, 2, 27, 8)
    span = int((last - first).total_seconds() // 60)
    starts = sorted(rng.sample(range(0, span, 7), count - 2))
    starts += [int((datetime(2026, 3, 3, 8) - first).total_seconds() // 60) + rng.randint(0, 4 * 24 * 60),
               int((datetime(2026, 3, 12, 8) - first).total_seconds() // 60) + rng.randint(0, 24 * 60)]
    severities = ["SEV1"] * (1 if count < 10 else 2) + ["SEV2"] * (count * 2 // 5)
    severities += ["SEV3"] * (count - len(severities))
    rng.shuffle(severities)
    affected_pool = [c for c in customers if c.key_account and c.status in ("Active", "At risk") and c.billed
                     and not c.annual and c.duplicate_of is None]
    out = []
    for k, (offset, severity) in enumerate(zip(starts, severities)):
        service = rng.choice(services)
        started = first + timedelta(minutes=offset)
        day = started.date().isoformat()
        week = [w for w in rota if w.start <= day][-1]  # the primary on call commands
        owners = [e for e in staff if e.team == service.team and e.active] or [e for e in staff if e.active and
                                                                               e.department == "Engineering"]
        minutes = {"SEV1": (60, 240), "SEV2": (30, 180), "SEV3": (20, 90)}[severity]
        resolved = None if k == count - 1 else started + timedelta(minutes=rng.randint(*minutes))
        hits = {"SEV1": (3, 5), "SEV2": (2, 3), "SEV3": (0, 1)}[severity]
        cutoff = calendar.timegm(started.timetuple()) - 40 * 86_400
        signed = [c for c in affected_pool if c.signup is not None and c.signup < cutoff]
        title, cause, followups = SYMPTOMS[service.name]
        region = rng.choice(REGIONS)
        out.append(Incident(
            number=2020 + 2 * k, title=title, service=service.name, severity=severity, started=_iso(started),
            resolved=_iso(resolved) if resolved else None, commander=week.primary,
            postmortem_owner=rng.choice(owners).key,
            customers=tuple(c.key for c in rng.sample(signed, k=min(len(signed), rng.randint(*hits)))),
            region=region,
            summary=f"{title} in {region}; about {rng.randint(3, 60)}% of requests failed.",
            cause=cause, followups=followups))
    return tuple(out)


def build_candidates(rng: random.Random, size: str, staff: tuple[Employee, ...]) -> tuple[Candidate, ...]:
    count = 12 if size == "small" else 58
    taken = {(e.first, e.last) for e in staff}
    recruiters = [e for e in staff if e.title == "Recruiter" and e.active] or [e for e in staff if
                                                                              e.department == "People" and e.active]
    out = []
    for starter in (e for e in staff if not e.started):  # hired, starting soon
        role = "Senior Backend Engineer" if starter.team == "Backend" else "Operations Coordinator"
        out.append(Candidate(starter.name, role, "Hired", rng.choice(recruiters).key,
                             tuple(e.key for e in rng.sample(_panel(staff, role), k=2)),
                             (datetime.fromisoformat(starter.start) - timedelta(days=rng.randint(60, 100))).date().isoformat(),
                             rng.randint(45, 140) * 1000, None, tuple(sorted(rng.sample(SKILLS, k=2))), starter.key))
    while len(out) < count:
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        if (first, last) in taken:
            continue
        taken.add((first, last))
        role = rng.choice(ROLES)
        panel = _panel(staff, role)
        stage = rng.choices(STAGES, (4, 3, 2, 1, 0, 3, 1))[0]
        referrer = rng.choice([e for e in staff if e.active]).key if rng.random() < 0.2 else None
        out.append(Candidate(f"{first} {last}", role, stage, rng.choice(recruiters).key,
                             tuple(e.key for e in rng.sample(panel, k=min(len(panel), rng.choice((0, 1, 2, 2, 3))))),
                             (datetime(2025, 11, 1) + timedelta(days=rng.randint(0, 132))).date().isoformat(),
                             rng.randint(45, 140) * 1000, referrer,
                             tuple(sorted(rng.sample(SKILLS, k=rng.randint(1, 3))))))
    return tuple(out)


def _panel(staff: tuple[Employee, ...], role: str) -> list[Employee]:
    team = ROLE_TEAMS[role]
    return [e for e in staff if e.team == team and e.active] or [e for e in staff if e.active][:3]


__all__ = ["REPOS", "build_candidates", "build_incidents", "build_projects", "build_rota", "build_services"]
