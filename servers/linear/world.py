"""The Linear world: Kestrel Freight Systems' issue tracker.

At the default size: 3 teams (Engineering ``ENG``, Platform ``PLT``, Driver App ``MOB``) with their own
workflows (Platform triages), 40 users (two deactivated; the lookalikes Maria Santos and Maria Santana,
Jon and John Berg, Alex and Alexa Chen, ...), 20 labels (with near-duplicates such as ``Performance`` and
``perf``), two-week cycles per team from January to April 2026, 6 projects (Atlas, Harbor, Beacon, ...)
and 320 issues with comments, estimates and sub-issues. Lookalike issues occur as in real trackers: the
same symptom reported twice, the same chore in two teams, an alert per replica. ``now`` is Monday
16 March 2026; the viewer is Priya Raman (operations), who files and triages issues.

Patchable collections: ``users``, ``cycles``, ``projects`` (by ``id``), ``labels`` (by ``name``),
``teams`` (by ``key``), ``issues`` (by ``id``, e.g. ``ENG-142``), ``issues.comments`` (by ``id``);
``set`` may change ``viewer`` and ``now``.
"""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta
from typing import Any

from servers.kit.world import WorldGenerator
from servers.kit.worldtext import DOMAIN, fill, people

NOW = "2026-03-16T09:00:00Z"
FIRST_CYCLE = date(2025, 12, 29)
SIZES = {"default": (140, 95, 85), "small": (14, 10, 8)}
#: (key, name, first cycle number, triage?)
TEAMS = (("ENG", "Engineering", 41, False), ("PLT", "Platform", 18, True), ("MOB", "Driver App", 7, False))
LABELS = (("Bug", "#eb5757"), ("Feature", "#bb87fc"), ("Improvement", "#4ea7fc"), ("Regression", "#f2994a"),
          ("Performance", "#f7c8c1"), ("perf", "#f7c8c1"), ("Security", "#e5484d"), ("Tech debt", "#95a2b3"),
          ("Customer-reported", "#26b5ce"), ("Frontend", "#5e6ad2"), ("Backend", "#0f783c"), ("Infra", "#6e79d6"),
          ("iOS", "#000000"), ("Android", "#3ddc84"), ("Safari", "#1e90ff"), ("Docs", "#d4b5f8"),
          ("Needs design", "#f2c94c"), ("bug-bash", "#eb5757"), ("On-call", "#e5484d"), ("Data", "#0b8a7e"))
PROJECTS = (
    ("Atlas: route optimisation v2", "New solver for multi-stop routes; ETA accuracy target 92%.", ("ENG", "PLT"), "started", "2026-05-29"),
    ("Harbor: Postgres 16 migration", "Move every service database from Postgres 13 to 16 with no downtime.", ("PLT",), "started", "2026-04-30"),
    ("Beacon: live tracking page", "Public shipment tracking page and driver location sharing.", ("ENG", "MOB"), "started", "2026-04-15"),
    ("Compass: customs docs automation", "Generate EU customs documents from shipment data.", ("ENG",), "planned", "2026-06-30"),
    ("Tidewater: usage-based billing", "Bill customers per shipment instead of per seat.", ("ENG", "PLT"), "paused", None),
    ("Lighthouse: driver app offline mode", "Drivers keep working without signal; sync when back online.", ("MOB",), "started", "2026-05-15"),
)
#: Issue titles per team, with labels they usually carry.
TITLES: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "ENG": (
        ("{service}: 500s when {customer} uploads a manifest over 10 MB", ("Bug", "Backend", "Customer-reported")),
        ("Checkout button unresponsive on Safari 17", ("Bug", "Frontend", "Safari")),
        ("Shipment timeline renders twice after refresh", ("Bug", "Frontend")),
        ("{customer} dashboard shows yesterday's shipments as late", ("Bug", "Customer-reported")),
        ("Add {customer} to the EDI integration", ("Feature", "Backend")),
        ("Retry logic in {service} ignores 429 responses", ("Bug", "Backend")),
        ("Export shipments as CSV for {customer}", ("Feature", "Customer-reported")),
        ("Rate calculator rounds fuel surcharge down", ("Bug", "Backend")),
        ("Add bulk label printing", ("Feature", "Frontend")),
        ("{service} p95 latency above {ms} ms", ("Performance", "Backend")),
        ("Deprecate v1 endpoints of {service}", ("Tech debt", "Backend")),
        ("ETA shown after route update is wrong", ("Bug", "Backend", "Regression")),
        ("Invoice PDF missing VAT number for {customer}", ("Bug", "Customer-reported")),
        ("Upgrade the Postgres driver in {service}", ("Tech debt", "Backend")),
        ("Search results ignore the warehouse filter", ("Bug", "Frontend")),
        ("Customs document preview in the web app", ("Feature", "Frontend", "Needs design")),
        ("Flaky test in {service} CI", ("Tech debt",)),
        ("Date picker off by one day in Toronto time zone", ("Bug", "Frontend")),
        ("Add audit log for rate card changes", ("Feature", "Security", "Backend")),
        ("Document the {service} webhook payloads", ("Docs",)),
        ("Speed up the shipments list for large accounts", ("Performance", "Frontend")),
    ),
    "PLT": (
        ("Disk usage alert on db-replica-{n}", ("Infra", "On-call")),
        ("Memory leak in {service} pods in {region}", ("Bug", "Infra")),
        ("Alert fatigue: {service} pages for warnings", ("On-call",)),
        ("Migrate {service} database to Postgres 16", ("Infra",)),
        ("Rotate TLS certificates for {service}", ("Security", "Infra")),
        ("CI runners out of disk", ("Infra",)),
        ("Upgrade the Postgres driver in {service}", ("Tech debt",)),
        ("{service} error rate above {pct}% in {region}", ("On-call", "Bug")),
        ("Node pool upgrade in {region}", ("Infra",)),
        ("Add alerting on queue depth for {service}", ("Infra", "On-call")),
        ("Backups of {service} not verified since January", ("Infra", "Security")),
        ("Terraform drift in {region}", ("Tech debt", "Infra")),
        ("Connection pool exhaustion in {service}", ("Bug", "Performance")),
        ("Runbook for {service} failover", ("Docs", "On-call")),
        ("Cost report per service", ("Data",)),
    ),
    "MOB": (
        ("App crashes when scanning a damaged barcode on {device}", ("Bug", "Android")),
        ("Offline queue loses proof-of-delivery photos on {device}", ("Bug", "iOS", "Android")),
        ("Battery drain with location sharing on ({device})", ("Performance", "Android")),
        ("Sign-in loop after password reset on iOS {ios}", ("Bug", "iOS")),
        ("Show the next stop on the lock screen", ("Feature", "iOS", "Needs design")),
        ("Route list does not refresh after a dispatch change in {region}", ("Bug",)),
        ("Upgrade React Native to 0.{rn}", ("Tech debt",)),
        ("Dark mode for night shifts", ("Feature", "Needs design")),
        ("Signature pad laggy on {device}", ("Performance", "Android")),
        ("Translate the app to {language}", ("Feature",)),
        ("{customer} drivers cannot upload delivery photos", ("Bug", "Customer-reported")),
        ("Push notifications arrive late on {device}", ("Bug", "Android")),
    ),
}
DESCRIPTIONS = (
    "Reported by {customer} on {day}. Steps to reproduce are in the support ticket {ticket}.",
    "Seen in {region} since the {version} release. Logs attached in the incident channel.",
    "Happens for about {pct}% of requests. Workaround: retry after a minute.",
    "Part of the Q2 plan. Acceptance: covered by tests, documented, behind a flag.",
    "Customer impact is low but support asks about it every week ({n} tickets this month).",
    "We agreed in the planning meeting to take this on before the freeze.",
    "",
)
COMMENTS = (
    "I can reproduce this on staging.", "Looks related to {ticket}.", "Fixed in {version}, please verify.",
    "Moving to next cycle, blocked on the migration.", "Customer confirmed the workaround helps.",
    "PR is up, reviews welcome.", "Can we get logs from {region}?", "Not seeing it anymore after the rollback.",
    "Adding this to the on-call handover.", "This needs a design pass first.", "Duplicate of an older report, I think.",
    "Estimated at {n} points after pairing.", "Still happening for {customer}.",
)


DEVICES = ("Zebra TC52", "Samsung Galaxy XCover 6", "Pixel 7", "iPhone 12", "iPhone SE", "Honeywell CT40",
           "Samsung Galaxy A14", "Android 12 devices")
LANGUAGES = ("Polish", "Portuguese", "German", "Dutch", "Ukrainian")
#: (weights of Todo, In Progress, In Review, Done) for issues of the cycle running now.
CURRENT = (25, 30, 15, 30)


def _title(rng: random.Random, templates: tuple[tuple[str, tuple[str, ...]], ...],
           used: set[str]) -> tuple[str, tuple[str, ...]]:
    """A title and its usual labels; re-drawn a few times when the team already has that title (real
    trackers repeat a title now and then, not every other issue)."""
    for _ in range(8):
        template, labels = rng.choice(templates)
        title = fill(rng, template, n=str(rng.randint(1, 6)), device=rng.choice(DEVICES),
                     ios=f"{rng.randint(16, 18)}.{rng.randint(0, 4)}", rn=str(rng.randint(74, 80)),
                     language=rng.choice(LANGUAGES))
        if title not in used:
            break
    used.add(title)
    return title, labels


def _team_states(triage: bool) -> list[dict[str, str]]:
    states = [("Backlog", "backlog"), ("Todo", "unstarted"), ("In Progress", "started"), ("In Review", "started"),
              ("Done", "completed"), ("Canceled", "canceled"), ("Duplicate", "canceled")]
    if triage:
        states.insert(0, ("Triage", "triage"))
    return [{"name": n, "type": t} for n, t in states]


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def build(rng: random.Random, size: str) -> dict[str, Any]:  # noqa: C901, PLR0912, PLR0915 - a seeded world drawn in one pass: its order fixes the random stream, a split must keep every draw in order
    staff = people(rng, 40)
    users = [{"id": f"usr_{rng.getrandbits(40):010x}", "name": p.full_name, "email": p.email,
              "active": i not in (11, 29)} for i, p in enumerate(staff)]
    viewer = {"id": f"usr_{rng.getrandbits(40):010x}", "name": "Priya Raman", "email": f"priya.raman@{DOMAIN}",
              "active": True}
    if viewer["email"] in {u["email"] for u in users}:
        users = [u for u in users if u["email"] != viewer["email"]]
    users.insert(0, viewer)
    active = [u["id"] for u in users if u["active"]]
    engineers = [u["id"] for u, p in zip(users[1:], staff) if p.department in ("Engineering", "Platform", "Product")
                 and u["active"]] or active
    teams: list[dict[str, Any]] = []
    cycles: list[dict[str, Any]] = []
    today = NOW[:10]
    for key, name, first, triage in TEAMS:
        teams.append({"key": key, "name": name, "states": _team_states(triage)})
        for k in range(8):
            starts = FIRST_CYCLE + timedelta(days=14 * k)
            cycles.append({"id": f"cyc_{key.lower()}_{first + k}", "team": key, "number": first + k,
                           "name": "", "starts_at": starts.isoformat(), "ends_at": (starts + timedelta(days=14)).isoformat()})
    projects: list[dict[str, Any]] = []
    for name, about, keys, state, target in PROJECTS:
        projects.append({"id": f"prj_{name.split(':')[0].lower()}", "name": name, "description": about, "state": state,
                         "lead": rng.choice(engineers), "teams": list(keys), "target_date": target})
    issues: list[dict[str, Any]] = []
    start = datetime(2025, 11, 3, 9, 0)
    for (key, _, _first, triage), count in zip(TEAMS, SIZES[size]):
        team_cycles = [c for c in cycles if c["team"] == key]
        team_projects = [p["id"] for p in projects if key in p["teams"]]
        number = rng.randint(90, 140)
        stamps = sorted(rng.sample(range(0, (datetime(2026, 3, 15) - start).days * 24 * 60), count))
        used: set[str] = set()
        now_at = next(k for k, c in enumerate(team_cycles) if c["starts_at"] <= today < c["ends_at"])
        for offset in stamps:
            number += rng.randint(1, 3)
            created = start + timedelta(minutes=offset)
            title, labels = _title(rng, TITLES[key], used)
            at = next((k for k, c in enumerate(team_cycles) if c["starts_at"] <= created.date().isoformat() < c["ends_at"]), None)
            roll = rng.random()
            if at is None or roll > 0.8:
                cycle = None
            elif roll < 0.5:
                cycle = team_cycles[at]
            else:  # planned into a later cycle, at most the next one
                cycle = team_cycles[rng.randint(at, min(now_at + 1, len(team_cycles) - 1)) if at <= now_at else at]
            age = (datetime(2026, 3, 16) - created).days
            if cycle is None and at is not None and at >= now_at - 3 and rng.random() < 0.3:
                cycle = team_cycles[now_at]  # pulled into this cycle from the backlog
            if cycle is not None and cycle["ends_at"] <= today:
                state = rng.choices(("Done", "Canceled", "Duplicate", "rolled"), (80, 5, 3, 12))[0]
                if state == "rolled":  # unfinished work rolls over into the running cycle
                    cycle = team_cycles[now_at]
                    state = rng.choices(("Todo", "In Progress", "In Review"), CURRENT[:3])[0]
            elif cycle is not None and cycle["starts_at"] <= today:
                state = rng.choices(("Todo", "In Progress", "In Review", "Done"), CURRENT)[0]
            elif cycle is not None:
                state = rng.choices(("Todo", "Backlog"), (80, 20))[0]
            else:
                state = rng.choices(("Backlog", "Todo", "Canceled", "Done", "Triage" if triage else "Backlog"),
                                    (50, 10, 8, 12 if age > 30 else 2, 20))[0]
            assignee = rng.choice(engineers) if state not in ("Backlog", "Triage") or rng.random() < 0.3 else None
            if assignee is not None and rng.random() < 0.03:
                assignee = rng.choice([u["id"] for u in users if not u["active"]])
            chosen = list(labels[: rng.randint(1, len(labels))])
            if rng.random() < 0.05:
                chosen.append(rng.choice(("perf", "bug-bash")))
            issue: dict[str, Any] = {
                "id": f"{key}-{number}", "title": title, "description": fill(rng, rng.choice(DESCRIPTIONS)),
                "state": state, "assignee": assignee, "priority": rng.choices((0, 1, 2, 3, 4), (15, 5, 25, 35, 20))[0],
                "labels": sorted(set(chosen), key=chosen.index), "comments": [],
                "cycle": cycle["id"] if cycle else None,
                "project": rng.choice(team_projects) if team_projects and rng.random() < 0.45 else None,
                "estimate": rng.choice((None, 1, 2, 3, 5, 8)), "creator": rng.choice(active),
                "created_at": _stamp(created),
            }
            if issues and rng.random() < 0.06:
                parents = [i["id"] for i in issues[-20:] if i["id"].startswith(key + "-") and i.get("parent") is None]
                if parents:
                    issue["parent"] = rng.choice(parents)
            moment = created
            for c in range(rng.choice((0, 0, 0, 1, 1, 2, 3, 4))):
                moment += timedelta(minutes=rng.randint(20, 5 * 24 * 60))
                if moment >= datetime(2026, 3, 16, 9):
                    break
                issue["comments"].append({"id": f"{issue['id']}-c{c + 1}", "author": rng.choice(active),
                                          "body": fill(rng, rng.choice(COMMENTS)), "created_at": _stamp(moment)})
            issues.append(issue)
    label_rows = [{"name": n, "color": c} for n, c in LABELS]
    return {"viewer": viewer["id"], "now": NOW, "teams": teams, "users": users, "labels": label_rows, "cycles": cycles,
            "projects": projects, "issues": issues}


def describe(state: dict[str, Any]) -> dict[str, int]:
    return {"teams": len(state["teams"]), "issues": len(state["issues"]), "users": len(state["users"]),
            "labels": len(state["labels"]), "cycles": len(state["cycles"]), "projects": len(state["projects"]),
            "comments": sum(len(i.get("comments", [])) for i in state["issues"])}


GENERATOR = WorldGenerator(
    name="linear", version=1, build=build, describe=describe,
    collections={"users": "id", "labels": "name", "teams": "key", "cycles": "id", "projects": "id", "issues": "id",
                 "issues.comments": "id"},
)

__all__ = ["GENERATOR"]
