"""The Linear world: Kestrel Freight Systems' issue tracker.

At the default size: 3 teams (Engineering ``ENG``, Platform ``PLT``, Driver App ``MOB``) with their own
workflows (Platform triages), 40 users (two deactivated; the lookalikes Maria Santos and Maria Santana,
Jon and John Berg, Alex and Alexa Chen, ...), 20 labels (with near-duplicates such as ``Performance`` and
``perf``), two-week cycles per team from January to April 2026, 6 projects (Atlas, Harbor, Beacon, ...)
and 320 issues with comments, estimates and sub-issues. Lookalike issues occur as in real trackers: the
same symptom reported twice, the same chore in two teams, an alert per replica. ``now`` is Monday
16 March 2026; the viewer is Priya Raman (operations), who files and triages issues.

Version 2 projects the organisation (``servers/org``): its engineers, product, operations and customer
success people (about 85; those who left deactivated), its six projects with their leads, and 350
issues (default size) filed by people who worked here on the day, each team's issues assigned to its
own engineers who work here today; customer-reported issues name the customer, its contact and its
account owner on that day, and every incident's follow-ups are issues (``Incident 2046: ...``) filed
by its commander and assigned to its postmortem owner.

Patchable collections: ``users``, ``cycles``, ``projects`` (by ``id``), ``labels`` (by ``name``),
``teams`` (by ``key``), ``issues`` (by ``id``, e.g. ``ENG-142``), ``issues.comments`` (by ``id``);
``set`` may change ``viewer`` and ``now``.
"""

from __future__ import annotations

import calendar
import random
from datetime import date, datetime, timedelta
from typing import Any

from servers.kit.world import versions
from servers.kit.worldtext import DOMAIN, POOLS, Words, fill, people
from servers.org import LINEAR_TEAMS, Organisation, cast
from servers.org.model import Employee

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
           used: set[str], words: Words = POOLS) -> tuple[str, tuple[str, ...]]:
    """A title and its usual labels; re-drawn a few times when the team already has that title (real
    trackers repeat a title now and then, not every other issue)."""
    for _ in range(8):
        template, labels = rng.choice(templates)
        title = fill(rng, template, words, n=str(rng.randint(1, 6)), device=rng.choice(DEVICES),
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


def _teams_and_cycles() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    teams, cycles = [], []
    for key, name, first, triage in TEAMS:
        teams.append({"key": key, "name": name, "states": _team_states(triage)})
        for k in range(8):
            starts = FIRST_CYCLE + timedelta(days=14 * k)
            cycles.append({"id": f"cyc_{key.lower()}_{first + k}", "team": key, "number": first + k,
                           "name": "", "starts_at": starts.isoformat(), "ends_at": (starts + timedelta(days=14)).isoformat()})
    return teams, cycles


class _Cast:
    """Who works on the issues of version 1: people drawn from the shared pools, any engineer assigned
    (a few issues to a deactivated user), anyone active files and comments."""

    words = POOLS

    def __init__(self, engineers: list[str], active: list[str], inactive: list[str]) -> None:
        self.engineers, self.active, self.inactive = engineers, active, inactive

    def assignee(self, rng: random.Random, team: str, created: datetime) -> str:
        return rng.choice(self.engineers)

    def stray(self, rng: random.Random, assignee: str) -> str:
        return rng.choice(self.inactive) if rng.random() < 0.03 else assignee

    def description(self, rng: random.Random, title: str, labels: tuple[str, ...], created: datetime) -> str:
        return fill(rng, rng.choice(DESCRIPTIONS), self.words)

    def creator(self, rng: random.Random, labels: tuple[str, ...], created: datetime) -> str:
        return rng.choice(self.active)

    def commenter(self, rng: random.Random, moment: datetime) -> str:
        return rng.choice(self.active)


def _issues(rng: random.Random, counts: tuple[int, ...], cycles: list[dict[str, Any]], projects: list[dict[str, Any]],
            cast: Any, planned: dict[str, list[dict[str, Any]]] | None = None) -> list[dict[str, Any]]:
    """Every team's issues over the months up to ``now``: numbered in the order they were filed, in
    cycles (the past ones mostly done, unfinished work rolled into the running one), with labels,
    comments and sub-issues. ``planned`` adds issues of known title, time and assignee to a team's
    stream (the organisation's incident follow-ups)."""
    issues: list[dict[str, Any]] = []
    start = datetime(2025, 11, 3, 9, 0)
    today = NOW[:10]
    for (key, _, _first, triage), count in zip(TEAMS, counts):
        team_cycles = [c for c in cycles if c["team"] == key]
        team_projects = [p["id"] for p in projects if key in p["teams"]]
        number = rng.randint(90, 140)
        stamps: list[Any] = sorted(rng.sample(range(0, (datetime(2026, 3, 15) - start).days * 24 * 60), count))
        known = (planned or {}).get(key, [])
        if known:
            stamps = sorted([(start + timedelta(minutes=m), None) for m in stamps] + [(p["created"], p) for p in known],
                            key=lambda pair: pair[0])
        used: set[str] = set()
        now_at = next(k for k, c in enumerate(team_cycles) if c["starts_at"] <= today < c["ends_at"])
        for stamp in stamps:
            preset = stamp[1] if known else None
            number += rng.randint(1, 3)
            created = stamp[0] if known else start + timedelta(minutes=stamp)
            title, labels = (preset["title"], preset["labels"]) if preset else _title(rng, TITLES[key], used, cast.words)
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
            if preset:
                assignee = preset["assignee"]
                if state in ("Canceled", "Duplicate", "Triage"):
                    state = "Backlog"
            else:
                assignee = cast.assignee(rng, key, created) if state not in ("Backlog", "Triage") or rng.random() < 0.3 \
                    else None
                if assignee is not None:
                    assignee = cast.stray(rng, assignee)
            chosen = list(labels[: rng.randint(1, len(labels))])
            if rng.random() < 0.05:
                chosen.append(rng.choice(("perf", "bug-bash")))
            issue: dict[str, Any] = {
                "id": f"{key}-{number}", "title": title,
                "description": preset["description"] if preset else cast.description(rng, title, labels, created),
                "state": state, "assignee": assignee, "priority": rng.choices((0, 1, 2, 3, 4), (15, 5, 25, 35, 20))[0],
                "labels": sorted(set(chosen), key=chosen.index), "comments": [],
                "cycle": cycle["id"] if cycle else None,
                "project": rng.choice(team_projects) if team_projects and rng.random() < 0.45 else None,
                "estimate": rng.choice((None, 1, 2, 3, 5, 8)),
                "creator": preset["creator"] if preset else cast.creator(rng, labels, created),
                "created_at": _stamp(created),
            }
            if preset:
                issue["project"] = None
            if issues and rng.random() < 0.06:
                parents = [i["id"] for i in issues[-20:] if i["id"].startswith(key + "-") and i.get("parent") is None]
                if parents:
                    issue["parent"] = rng.choice(parents)
            moment = created
            for c in range(rng.choice((0, 0, 0, 1, 1, 2, 3, 4))):
                moment += timedelta(minutes=rng.randint(20, 5 * 24 * 60))
                if moment >= datetime(2026, 3, 16, 9):
                    break
                issue["comments"].append({"id": f"{issue['id']}-c{c + 1}", "author": cast.commenter(rng, moment),
                                          "body": fill(rng, rng.choice(COMMENTS), cast.words), "created_at": _stamp(moment)})
            issues.append(issue)
    return issues


def build(rng: random.Random, size: str) -> dict[str, Any]:
    """Version 1: forty people drawn from the shared name pools."""
    staff = people(rng, 40)
    users: list[dict[str, Any]] = [{"id": f"usr_{rng.getrandbits(40):010x}", "name": p.full_name, "email": p.email,
                                    "active": i not in (11, 29)} for i, p in enumerate(staff)]
    viewer = {"id": f"usr_{rng.getrandbits(40):010x}", "name": "Priya Raman", "email": f"priya.raman@{DOMAIN}",
              "active": True}
    if viewer["email"] in {u["email"] for u in users}:
        users = [u for u in users if u["email"] != viewer["email"]]
    users.insert(0, viewer)
    active = [u["id"] for u in users if u["active"]]
    engineers = [u["id"] for u, p in zip(users[1:], staff) if p.department in ("Engineering", "Platform", "Product")
                 and u["active"]] or active
    teams, cycles = _teams_and_cycles()
    projects = []
    for _k, (name, about, keys, state, target) in enumerate(PROJECTS):
        projects.append({"id": f"prj_{name.split(':')[0].lower()}", "name": name, "description": about, "state": state,
                         "lead": rng.choice(engineers), "teams": list(keys), "target_date": target})
    cast = _Cast(engineers, active, [u["id"] for u in users if not u["active"]])
    issues = _issues(rng, SIZES[size], cycles, projects, cast)
    labels = [{"name": n, "color": c} for n, c in LABELS]
    return {"viewer": viewer["id"], "now": NOW, "teams": teams, "users": users, "labels": labels, "cycles": cycles,
            "projects": projects, "issues": issues}


SIZES_V2 = {"default": (150, 110, 90), "small": (14, 10, 8)}
#: The organisation's departments whose people use Linear.
LINEAR_DEPARTMENTS = ("Engineering", "Platform", "Product", "Operations", "Customer Success")


class _OrgCast(_Cast):
    """Who works on the issues of version 2: each team's own engineers (working here today) are
    assigned, customer success files the customer-reported issues and names the customer and its account
    owner, and everyone files and comments only while they work here."""

    def __init__(self, org: Organisation, users: list[Employee]) -> None:
        self.org, self.users, self.words = org, users, org.words
        self.team_engineers = {key: [e for e in org.active if e.team in teams] for key, teams in LINEAR_TEAMS.items()}
        self._working: dict[str, list[Employee]] = {}  # by day: ``users`` working then (drawn from, never changed)
        self._success: dict[str, list[Employee]] = {}  # by day: those of them in Customer Success, else all

    def working(self, day: str) -> list[Employee]:
        here = self._working.get(day)
        if here is None:
            here = self._working[day] = [e for e in self.users if e.employed_on(day)]
        return here

    def assignee(self, rng: random.Random, team: str, created: datetime) -> str:
        return rng.choice(self.team_engineers[team]).linear_id

    def stray(self, rng: random.Random, assignee: str) -> str:
        return assignee

    def description(self, rng: random.Random, title: str, labels: tuple[str, ...], created: datetime) -> str:
        if "Customer-reported" not in labels:
            return fill(rng, rng.choice(DESCRIPTIONS), self.words)
        day = created.date().isoformat()
        named = [c for c in self.org.key_accounts if c.short in title]
        customer = max(named, key=lambda c: len(c.short)) if named else rng.choice(
            [c for c in self.org.key_accounts if c.billed and c.status != "Churned"])
        owner = self.org.employee(customer.previous_owner if customer.previous_owner and day < customer.owner_since
                                  else customer.owner)
        contact = customer.contact("operations", day)
        ticket = f"KFS-{rng.randint(1200, 4800)}"
        if customer.signup is None or customer.signup > calendar.timegm(created.timetuple()):
            return (f"Raised in the {customer.name} trial by {contact.name} ({contact.email}) on {created:%d %B %Y}. "
                    f"Account owner: {owner.name}. Support ticket {ticket}.")
        return (f"Reported by {contact.name} ({contact.email}) of {customer.name} on {created:%d %B %Y}. "
                f"Account owner: {owner.name}. Support ticket {ticket}.")

    def creator(self, rng: random.Random, labels: tuple[str, ...], created: datetime) -> str:
        day = created.date().isoformat()
        here = self.working(day)
        if "Customer-reported" in labels:
            success = self._success.get(day)
            if success is None:
                success = self._success[day] = [e for e in here if e.department == "Customer Success"] or here
            here = success
        return rng.choice(here).linear_id

    def commenter(self, rng: random.Random, moment: datetime) -> str:
        return rng.choice(self.working(moment.date().isoformat())).linear_id


def _follow_ups(rng: random.Random, org: Organisation) -> dict[str, list[dict[str, Any]]]:
    """One issue per follow-up of every incident, filed by its commander when it was resolved (or a few
    hours in, while it is monitored) in the team that owns the service, assigned to the postmortem owner."""
    team_of = {t: key for key, teams in LINEAR_TEAMS.items() for t in teams}
    out: dict[str, list[dict[str, Any]]] = {}
    for incident in org.incidents:
        service = next(s for s in org.services if s.name == incident.service)
        key = team_of.get(service.team, "PLT")
        when = datetime.strptime(incident.resolved or incident.started, "%Y-%m-%dT%H:%M:%SZ")
        when += timedelta(hours=rng.randint(1, 20) if incident.resolved else 4)
        for title in incident.followups:
            when += timedelta(minutes=rng.randint(2, 30))
            out.setdefault(key, []).append({
                "created": when, "title": f"Incident {incident.number}: {title}", "labels": ("On-call", "Bug"),
                "assignee": org.employee(incident.postmortem_owner).linear_id,
                "creator": org.employee(incident.commander).linear_id,
                "description": f"Follow-up from incident {incident.number} ({incident.service}, {incident.severity}): "
                               f"{incident.cause}. Postmortem in Notion: Postmortem: incident {incident.number}."})
    return out


def build_v2(rng: random.Random, size: str, org: Organisation) -> dict[str, Any]:
    """Version 2: the organisation's engineers, product, operations and customer success people (those
    who left deactivated), its projects, and issues filed by people who worked here on the day, the
    incidents' follow-ups among them."""
    members = [e for e in org.staff if e.department in LINEAR_DEPARTMENTS]
    me = org.owner
    members = [me] + [e for e in members if e is not me]
    users = [{"id": e.linear_id, "name": e.name, "email": e.email, "active": not e.left} for e in members]
    teams, cycles = _teams_and_cycles()
    projects = [{"id": f"prj_{p.key}", "name": p.name, "description": p.description, "state": p.state,
                 "lead": org.employee(p.lead).linear_id, "teams": list(p.teams), "target_date": p.target}
                for p in org.projects]
    issues = _issues(rng, SIZES_V2[size], cycles, projects, _OrgCast(org, members), _follow_ups(rng, org))
    labels = [{"name": n, "color": c} for n, c in LABELS]
    return {"viewer": me.linear_id, "now": NOW, "teams": teams, "users": users, "labels": labels, "cycles": cycles,
            "projects": projects, "issues": issues}


def describe(state: dict[str, Any]) -> dict[str, int]:
    return {"teams": len(state["teams"]), "issues": len(state["issues"]), "users": len(state["users"]),
            "labels": len(state["labels"]), "cycles": len(state["cycles"]), "projects": len(state["projects"]),
            "comments": sum(len(i.get("comments", [])) for i in state["issues"])}


COLLECTIONS = {"users": "id", "labels": "name", "teams": "key", "cycles": "id", "projects": "id", "issues": "id",
               "issues.comments": "id"}
GENERATORS = versions("linear", COLLECTIONS, describe, build, (build_v2, cast))
GENERATOR = GENERATORS[-1]

__all__ = ["GENERATOR", "GENERATORS"]
