"""x-t-advisory-remediation: the security team published two dependency advisories last week (urllib3 and
PyJWT, in #security); the vulnerability remediation policy (Notion, planted with its superseded 2025
version) says which services are affected and what is recorded for each.

Hard; GitHub, Linear, Notion and Slack. Which services are affected is a join no list gives: the Service
Catalog (a planted Notion database) names each service's status, tier, owner and dependency file; each
file (GitHub, planted on the default branch of three repositories; one file serves two services) pins the
two packages at versions the advisories' ranges decide, read as versions (``2.10.0`` is inside
``>= 2.4.0, < 2.10.1``; ``2.2.10`` is outside ``< 2.2.5``). The urllib3 advisory was corrected in its
thread the same day (2.2.4, which a merged pull request brought one service to, is affected too); another
merged pull request brought a service to the complete fix; a retired service still pins affected versions
(out of scope); the driver app pins an unrelated JWT library. The owner today is the catalog's, unless a
handover announced in #announcements since the catalog's last review has taken effect (one has; another
takes effect in April and has not). Per affected service and advisory, one row in the Security Remediation
Tracker (Notion) with the advisory, service, owner, severity (from the CVSS score) and due date (the Nth
business day after publication by severity and tier, Good Friday not a business day); where an open Linear
issue already tracks upgrading that package in that service (a Done one for another service does not
count), it is linked from the row, assigned to the owner with the due date and priority, and commented.
A summary goes to #security; the team's five earlier advisories (version 2) show how: each thread's one reply
lists the services, mentioning (``<@U...>``) the owner of a Tier 1 service (the catalog's Tier) and naming the
others, so the new summaries mention today's owner of every Tier 1 service hit (a habit no page states, seen
only in the replies, which the channel history counts alike on every thread). The second row written answers ``timeout_after_commit`` (it was written: a
blind retry duplicates), the Linear update ``unavailable`` (not applied: retry).

Judged: each expected row exists (predicate: advisory, service, owner, and the linked issue) and every row
written is exactly right (frame: severity, due date, owner, status, link), no row for anything else;
the linked issue's assignee and priority (predicate) and due date (frame); the comment; the summary naming
every affected service. The Linear due date is checked only when it was changed (no predicate reads a
Linear due date).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Any

from servers.kit.pages import make_cursor
from tasks_catalog.authoring.cross import budget, cases, on_worlds, org, template, world
from tasks_catalog.authoring.cross._x_t_billing import (
    NOTION_READ,
    SLACK_TOOLS,
    case_task,
    hex_id,
    notion_page,
    rng_for,
    unix,
    uuid_of,
)
from tasks_catalog.authoring.cross._x_t_eng import OWNER, slack_world_channel
from tasks_catalog.authoring.cross._x_t_people import call
from tasks_catalog.authoring.cross._x_t_people import long_date as day_and_month
from tasks_catalog.authoring.cross._x_t_readings import Always, FlaggedWhen, left_open

ID = "x-t-advisory-remediation"
TODAY = "2026-03-16"
REVIEW = "2026-03-02"  # the catalog's last review and the policy's effective day (first Monday of March)
HOLIDAYS = frozenset({"2026-04-03"})  # Good Friday: the policy names it
MONOREPO = "platform-services"
TRACKER = "Security Remediation Tracker"
CATALOG = "Service Catalog"
POLICY = "Vulnerability remediation policy"
SEVERITIES = ("Critical", "High", "Medium")
#: Linear's priority by severity, as the predicate names it (1 is a number the gate counts as named,
#: the names are values the initial state holds: the tracker's Severity options)
LINEAR_PRIORITY = {"Critical": 1, "High": 2, "Medium": 3}
PRIORITY_NAME = {"Critical": "Urgent", "High": "High", "Medium": "Medium"}
CVSS = {"Critical": ("9.1", "9.8"), "High": ("7.5", "8.2"), "Medium": ("5.3", "6.5")}
#: The advisories the team handled before (id, package, day published), each in #security with one summary reply
#: and its rows in the tracker. Their summaries mention (``<@U...>``) the owner of a Tier 1 service and name the
#: others: the one habit no page writes down, seen only by opening the threads.
PAST = (("KSA-2025-047", "requests", "2025-10-14"), ("KSA-2025-052", "urllib3", "2025-11-18"),
        ("KSA-2026-001", "Jinja2", "2026-01-08"), ("KSA-2026-004", "cryptography", "2026-01-20"),
        ("KSA-2026-009", "certifi", "2026-02-10"))
#: The 2025 policy's calendar days by severity and tier (what the past rows' due dates follow).
OLD_DAYS = {"Critical": (7, 14), "High": (30, 60), "Medium": (90, 90)}
#: Rules a reader of the past summaries might draw for whose owner is mentioned; each is contradicted by a past
#: line or mentions exactly whom the habit (the service's tier in the catalog) mentions in every case kept.
READINGS: dict[str, Any] = {
    "every owner": Always(True, "mentioned"),
    "no owner": Always(False, "mentioned"),
    "by the owner's team": FlaggedWhen("team", "mentioned"),
    "by the repository": FlaggedWhen("repo", "mentioned"),
    "by the advisory's severity": FlaggedWhen("severity", "mentioned"),
    "by the package": FlaggedWhen("package", "mentioned"),
    "by the advisory": FlaggedWhen("advisory", "mentioned"),
    "by the service (whoever was mentioned before)": FlaggedWhen("service", "mentioned"),
    "by the owner (whoever was mentioned before)": FlaggedWhen("owner", "mentioned"),
}
OPEN_STATES = ("Triage", "Backlog", "Todo", "In Progress", "In Review")
TOOLS = [
    "github__search_repositories", "github__list_branches", "github__get_file_contents", "github__list_commits",
    "github__list_pull_requests", "github__list_issues", "github__search_issues",
    "linear__list_teams", "linear__list_users", "linear__list_issues", "linear__get_issue", "linear__list_comments",
    "linear__list_issue_labels", "linear__create_issue", "linear__update_issue", "linear__create_comment",
    *NOTION_READ, "notion__create_page", "notion__update_page",
    *SLACK_TOOLS,
]


def _v(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in version.split("."))


def business_day_after(day: str, n: int) -> str:
    """The ``n``th business day after ``day`` (Monday to Friday, the policy's holidays excluded)."""
    d = dt.date.fromisoformat(day)
    while n:
        d += dt.timedelta(days=1)
        if d.weekday() < 5 and d.isoformat() not in HOLIDAYS:
            n -= 1
    return d.isoformat()


def long_date(day: str) -> str:
    """``Wednesday 11 March 2026``."""
    return f"{day_and_month(day)} {day[:4]}"


class Advisory:
    """One advisory: its id, package, range (as finally corrected), severity and day of publication."""

    def __init__(self, ident: str, package: str, low: str, fixed: str, severity: str, cvss: str, day: str,
                 first_fix: str | None = None) -> None:
        self.id, self.package, self.low, self.fixed = ident, package, low, fixed
        self.severity, self.cvss, self.day = severity, cvss, day
        self.first_fix = first_fix or fixed  # the fix the advisory first named (before a correction)

    def affects(self, version: str | None) -> bool:
        return version is not None and _v(self.low) <= _v(version) < _v(self.fixed)


#: Versions a file may pin, by what the case makes of them.
URLLIB3 = {"aff": ("2.0.7", "2.1.0", "2.2.1", "2.2.2"), "pr224": ("2.2.4",), "pr225": ("2.2.5",),
           "old": ("1.26.20",), "newer": ("2.2.10",), "none": (None,)}
PYJWT = {"aff": ("2.6.0", "2.8.0", "2.9.0"), "aff10": ("2.10.0",), "fixed": ("2.10.1",), "old": ("2.3.0",),
         "none": (None,)}
OTHER_PINS = ("fastapi==0.110.3", "pydantic==2.7.1", "requests==2.32.3", "psycopg==3.1.19", "structlog==24.1.0",
              "httpx==0.27.0", "boto3==1.34.84", "orjson==3.10.3", "tenacity==8.2.3", "redis==5.0.4")


def _requirements(rng, label: str, urllib3: str | None, pyjwt: str | None) -> str:
    pins = rng.sample(OTHER_PINS, 5)
    if urllib3:
        pins.append(f"urllib3=={urllib3}")
    if pyjwt:
        pins.append(f"PyJWT=={pyjwt}")
    pins.sort(key=str.casefold)
    return f"# {label}: pinned with pip-compile, do not edit by hand\n" + "\n".join(pins) + "\n"


def _people(seed: int) -> dict[str, Any]:
    """Who can own a service in this seed: working here today and not leaving, with a Slack, Linear and
    Notion account; keyed by employee key."""
    o = org(seed)
    slack = {u["email"] for u in world("slack", seed)["users"] if u.get("email") and not u.get("deleted")}
    linear = {u["id"] for u in world("linear", seed)["users"] if u.get("active", True)}
    notion = {u["id"] for u in world("notion", seed)["users"]}
    return {e.key: e for e in o.employees if e.leave is None and e.email in slack and e.linear_id in linear
            and e.notion_id in notion}


@on_worlds(slack=3)
def case_of(seed: int) -> dict[str, Any] | None:  # noqa: C901, PLR0912, PLR0915 - one case is one story, told in order
    security = slack_world_channel(seed, "security")
    announcements = slack_world_channel(seed, "announcements")
    if security is None or announcements is None:
        return None
    o = org(seed)
    rng = rng_for(ID, seed)
    people = _people(seed)
    services = list(o.services)
    if any(s.owner not in people for s in services):
        return None
    names = [s.name for s in services]
    notion_w, linear_w, github_w, slack_w = (world(s, seed) for s in ("notion", "linear", "github", "slack"))
    if any(t in {p["title"] for p in notion_w["pages"]} | {d["title"] for d in notion_w["databases"]}
           for t in (TRACKER, CATALOG, POLICY)):
        return None
    slack_users = {u["email"]: u for u in slack_w["users"] if u.get("email")}

    # -- the advisories ---------------------------------------------------------------------------------
    n_a = rng.randint(11, 29)
    n_b = n_a + rng.randint(1, 3)
    day_a = f"2026-03-{rng.choice((10, 11, 12)):02d}"
    day_b = f"2026-03-{rng.randint(int(day_a[-2:]) + 1, 13):02d}"
    sev_a, sev_b = rng.sample(SEVERITIES, 2)
    adv_a = Advisory(f"KSA-2026-{n_a:03d}", "urllib3", "2.0.0", "2.2.5", sev_a, rng.choice(CVSS[sev_a]), day_a,
                     first_fix="2.2.4")
    adv_b = Advisory(f"KSA-2026-{n_b:03d}", "PyJWT", "2.4.0", "2.10.1", sev_b, rng.choice(CVSS[sev_b]), day_b)
    advisories = (adv_a, adv_b)
    days = {"Critical": rng.choice(((2, 5), (3, 7))), "High": rng.choice(((5, 10), (7, 15))),
            "Medium": rng.choice(((15, 25), (20, 30)))}

    # -- the dependency files ---------------------------------------------------------------------------
    mono = [s for s in services if s.repo == MONOREPO]
    if len(mono) != 7 or [s.repo for s in services].count("route-planner") != 2:
        return None
    retired = rng.choice(mono)
    live_files = [s.name for s in mono if s is not retired] + ["route-planner"]  # route-planner: its repo's file
    u_states = ["pr224", "pr225", rng.choice(("old", "newer")), "none", "aff", "aff", "aff"]
    p_states = ["aff10", "fixed", rng.choice(("old", "none")), "none", "aff", "aff", "aff"]
    rng.shuffle(u_states)
    while u_states[-1] in ("pr224", "pr225"):  # the last file is route-planner's: the merged pull requests are
        rng.shuffle(u_states)                  # in the monorepo
    rng.shuffle(p_states)
    pins: dict[str, tuple[str | None, str | None]] = {}
    states: dict[str, tuple[str, str]] = {}
    for f, us, ps in zip(live_files, u_states, p_states, strict=True):
        pins[f] = (rng.choice(URLLIB3[us]), rng.choice(PYJWT[ps]))
        states[f] = (us, ps)
    pins[retired.name] = (rng.choice(URLLIB3["aff"]), rng.choice(PYJWT["aff"]))
    states[retired.name] = ("aff", "aff")

    def file_of(s) -> str:
        return "route-planner" if s.repo == "route-planner" else s.name

    def path_of(s) -> tuple[str, str]:
        if s.repo == MONOREPO:
            return MONOREPO, f"services/{s.name}/requirements.txt"
        if s.repo == "route-planner":
            return "route-planner", "requirements.txt"
        return s.repo, "package.json"

    active = [s for s in services if s is not retired]
    affected: list[tuple[Advisory, Any]] = []
    for adv in advisories:
        for s in active:
            if s.repo == "driver-app":
                continue
            version = pins[file_of(s)][0 if adv is adv_a else 1]
            if adv.affects(version):
                affected.append((adv, s))
    if not 7 <= len(affected) <= 11:
        return None

    # -- owners: one handover in effect, one announced for April ---------------------------------------
    hit = sorted({s.name for _, s in affected})
    h1_name, h2_name = rng.sample(hit, 2)
    h1 = next(s for s in services if s.name == h1_name)
    h2 = next(s for s in services if s.name == h2_name)

    def successor(s, avoid: set[str]):
        pool = [e for k, e in people.items() if e.team == o.employee(s.owner).team and k != s.owner
                and k not in avoid and not any(x.owner == k for x in services)]
        # a name shared with someone else (the lookalike pairs) would make the mention the only key: fine,
        # but keep the pool to people whose full name is unique in the company
        pool = [e for e in pool if sum(x.name == e.name for x in o.employees) == 1]
        return rng.choice(pool) if pool else None

    n1 = successor(h1, set())
    n2 = successor(h2, {n1.key} if n1 else set())
    if n1 is None or n2 is None:
        return None
    owner_today = {s.name: (n1 if s is h1 else o.employee(s.owner)) for s in services}

    # -- Linear: one open issue on an affected (advisory, service), a Done one, maybe an unrelated open one
    eng_max = max(int(i["id"].split("-")[1]) for i in linear_w["issues"] if i["id"].startswith("ENG-"))
    open_adv, open_svc = rng.choice(affected)
    others = [(a, s) for a, s in affected if a is not open_adv and s.name != open_svc.name]
    done_adv, done_svc = rng.choice(others)
    stale_assignee = rng.choice([e for e in people.values() if e.team == o.employee(open_svc.owner).team
                                 and e.key != owner_today[open_svc.name].key])
    open_id, done_id = f"ENG-{eng_max + 1}", f"ENG-{eng_max + 2}"
    open_title = (f"Bump urllib3 in {open_svc.name}" if open_adv is adv_a else f"Upgrade PyJWT in {open_svc.name}")
    done_title = (f"Bump urllib3 in {done_svc.name}" if done_adv is adv_a else f"Upgrade PyJWT in {done_svc.name}")
    linear_patch = [
        {"op": "add", "in": ["issues"], "value": {
            "id": open_id, "title": open_title, "state": "Backlog", "assignee": stale_assignee.linear_id,
            "priority": 4, "labels": ["Tech debt"], "comments": [],
            "description": (f"The pinned {open_adv.package} in {path_of(open_svc)[1]} is behind. Not urgent: "
                            f"take it with the next maintenance window."),
            "creator": stale_assignee.linear_id, "created_at": "2026-02-19T10:20:00Z"}},
        {"op": "add", "in": ["issues"], "value": {
            "id": done_id, "title": done_title, "state": "Done", "assignee": owner_today[done_svc.name].linear_id,
            "priority": 3, "labels": ["Tech debt"], "comments": [],
            "description": f"Moved {done_svc.name} to the then-current {done_adv.package}.",
            "creator": owner_today[done_svc.name].linear_id, "created_at": "2026-01-14T15:05:00Z"}},
    ]
    unrelated = None
    old_u = [f for f, (us, _) in states.items() if us == "old" and f != retired.name and f != "route-planner"]
    if old_u:
        unrelated_svc = next(s for s in services if s.name == old_u[0])
        unrelated = f"ENG-{eng_max + 3}"
        linear_patch.append({"op": "add", "in": ["issues"], "value": {
            "id": unrelated, "title": f"Move {unrelated_svc.name} off urllib3 1.26", "state": "Todo",
            "assignee": owner_today[unrelated_svc.name].linear_id, "priority": 4, "labels": ["Tech debt"],
            "comments": [], "description": "1.26 is in maintenance only; move to the 2.x line when convenient.",
            "creator": owner_today[unrelated_svc.name].linear_id, "created_at": "2026-02-24T09:40:00Z"}})

    # -- Slack ---------------------------------------------------------------------------------------
    sec_people = [e for e in o.employees if "security-group" in e.flags and e.key in people
                  and slack_users[e.email]["id"] in security["members"]]
    if not sec_people:
        return None
    author = sec_people[0]
    author_id = slack_users[author.email]["id"]
    taken = {m["ts"] for c in slack_w["channels"] for m in c["messages"]}

    def ts(day_time: str) -> str:
        stamp = f"{unix(day_time)}.{rng.randint(100000, 999999)}"
        if stamp in taken:
            raise ValueError(f"ts {stamp} taken in slack world {seed}")
        taken.add(stamp)
        return stamp

    ts_a, ts_b = ts(f"{day_a}T09:12:00"), ts(f"{day_b}T10:03:00")
    ts_fix = ts(f"{day_a}T15:41:00")
    text_a = (f"Security advisory {adv_a.id}, published {long_date(day_a)}: urllib3 from 2.0.0 up to but not "
              f"including 2.2.4 can send the Proxy-Authorization header on to another host after a redirect. "
              f"CVSS {adv_a.cvss}. Fixed in 2.2.4. Services pinning an affected version are handled under the "
              f"vulnerability remediation policy.")
    text_fix = (f"Correction to {adv_a.id}: 2.2.4 fixes only part of it. The complete fix is 2.2.5, so the "
                f"affected range is 2.0.0 up to but not including 2.2.5 (2.2.4 is affected too). The rest of "
                f"the advisory stands.")
    text_b = (f"Security advisory {adv_b.id}, published {long_date(day_b)}: PyJWT from 2.4.0 up to but not "
              f"including 2.10.1 accepts some tokens whose issuer check should fail. CVSS {adv_b.cvss}. Fixed in "
              f"2.10.1. Services pinning an affected version are handled under the vulnerability remediation "
              f"policy.")
    replier = next((e for e in sec_people[1:]), None)
    slack_patch = [
        {"op": "add", "in": ["channels", security["id"], "messages"],
         "value": {"ts": ts_a, "user": author_id, "text": text_a}},
        {"op": "add", "in": ["channels", security["id"], "messages"],
         "value": {"ts": ts_fix, "user": author_id, "text": text_fix, "thread_ts": ts_a}},
        {"op": "add", "in": ["channels", security["id"], "messages"],
         "value": {"ts": ts_b, "user": author_id, "text": text_b}},
    ]
    if replier is not None:
        slack_patch.append({"op": "add", "in": ["channels", security["id"], "messages"], "value": {
            "ts": ts(f"{day_b}T11:26:00"), "user": slack_users[replier.email]["id"],
            "text": "Thanks. The driver app is on jsonwebtoken, not PyJWT, if anyone wonders.", "thread_ts": ts_b}})
    weekdays = [f"2026-03-{d:02d}" for d in range(3, 14) if dt.date(2026, 3, d).weekday() < 5]
    h1_day = rng.choice(weekdays[:-1])  # announced on a working day since the catalog's review
    h2_day = rng.choice(weekdays[2:])
    for poster, day, text in (
        (o.employee(h1.owner), h1_day,
         f"Heads-up: from today <@{slack_users[n1.email]['id']}> is the owner of {h1.name} (escalations, reviews "
         f"and its runbook). I'm moving on to other work in {o.employee(h1.owner).team}. The service catalog "
         f"catches up at its next review."),
        (o.employee(h2.owner), h2_day,
         f"Planning ahead: from Wednesday 1 April, <@{slack_users[n2.email]['id']}> takes over {h2.name} from me. "
         f"Until then I stay its owner."),
    ):
        slack_patch.append({"op": "add", "in": ["channels", announcements["id"], "messages"], "value": {
            "ts": ts(f"{day}T08:{rng.randint(10, 55)}:00"), "user": slack_users[poster.email]["id"], "text": text}})

    # -- the team's past advisories: a #security thread each with one summary reply, rows in the tracker --
    # Every Tier 1 service the new advisories hit was in an earlier summary (mentioned), in two of the five;
    # those two name Tier 2 services too (so neither the advisory, its package nor its severity decides).
    by_name = {s.name: s for s in services}
    tier2 = [s for s in active if s.tier == 2]
    flagged_at = rng.sample(range(len(PAST)), 2)
    past_lines: list[list[Any]] = [[] for _ in PAST]
    tier1_hit = [by_name[n] for n in sorted({s.name for _, s in affected if s.tier == 1})]
    rng.shuffle(tier1_hit)
    for k, s in enumerate(tier1_hit):
        past_lines[flagged_at[k % 2]].append(s)
    for k, lines in enumerate(past_lines):
        lines += rng.sample(tier2, min(len(tier2), rng.randint(1, 2) if k in flagged_at else rng.randint(2, 3)))
        rng.shuffle(lines)
    past_sev = [rng.choice(SEVERITIES) for _ in PAST]
    examples = [{"service": s.name, "tier": s.tier, "team": s.team, "repo": s.repo, "owner": s.owner,
                 "severity": past_sev[k], "package": PAST[k][1], "advisory": PAST[k][0], "mentioned": s.tier == 1}
                for k, lines in enumerate(past_lines) for s in lines]
    new_items = [{"service": s.name, "tier": s.tier, "team": s.team, "repo": s.repo,
                  "owner": owner_today[s.name].key, "severity": a.severity, "package": a.package, "advisory": a.id,
                  "mentioned": s.tier == 1} for a, s in affected]
    habit = FlaggedWhen("tier", "mentioned")
    if not habit(examples) or any(habit.predicts(examples, i) != i["mentioned"] for i in new_items):
        raise ValueError(f"{ID}: seed {seed}: the past summaries do not show the tier habit")
    if not 2 <= sum(i["mentioned"] for i in new_items) < len(new_items):
        return None
    if left_open(READINGS, examples, new_items, lambda i: i["mentioned"]):
        return None  # a reading the past summaries leave open would mention other owners: not a fair case
    past_threads = []
    for k, ((adv_id, pkg, day), lines) in enumerate(zip(PAST, past_lines, strict=True)):
        sev = past_sev[k]
        root = ts(f"{day}T09:{rng.randint(10, 55)}:00")
        listed = "; ".join(
            f"{s.name} ({'<@' + slack_users[o.employee(s.owner).email]['id'] + '>' if s.tier == 1 else o.employee(s.owner).name}"
            f", due {(dt.date.fromisoformat(day) + dt.timedelta(days=OLD_DAYS[sev][s.tier - 1])).isoformat()})"
            for s in lines)
        reply_day = business_day_after(day, 1)
        slack_patch += [
            {"op": "add", "in": ["channels", security["id"], "messages"], "value": {
                "ts": root, "user": author_id,
                "text": (f"Security advisory {adv_id}, published {long_date(day)}: a {pkg} vulnerability, CVSS "
                         f"{rng.choice(CVSS[sev])}. Services pinning an affected version are handled under the "
                         f"vulnerability remediation policy.")}},
            {"op": "add", "in": ["channels", security["id"], "messages"], "value": {
                "ts": ts(f"{reply_day}T16:{rng.randint(10, 55)}:00"), "user": author_id, "thread_ts": root,
                "text": f"Rows are in the tracker: {listed}."}},
        ]
        past_threads.append(root)

    # -- GitHub ------------------------------------------------------------------------------------------
    repos = {r["name"]: r for r in github_w["repos"]}
    mono_repo = repos[MONOREPO]
    next_number = max([i["number"] for i in mono_repo["issues"]] + [p["number"] for p in mono_repo["pull_requests"]]) + 1
    github_patch: list[dict[str, Any]] = []
    for s in mono:
        u, p = pins[s.name]
        github_patch.append({"op": "add", "in": ["repos", f"{OWNER}/{MONOREPO}", "branches", "main", "files"],
                             "id": f"services/{s.name}/requirements.txt",
                             "value": _requirements(rng, f"services/{s.name}", u, p)})
    u, p = pins["route-planner"]
    github_patch.append({"op": "add", "in": ["repos", f"{OWNER}/route-planner", "branches", "main", "files"],
                         "id": "requirements.txt", "value": _requirements(rng, "route-planner", u, p)})
    package = repos["driver-app"]["branches"][0]["files"]["package.json"]
    if '"dependencies"' in package:
        return None
    github_patch.append({"op": "replace", "in": ["repos", f"{OWNER}/driver-app", "branches", "main", "files"],
                         "id": "package.json", "value": (
                             '{\n  "name": "driver-app",\n  "version": "4.21.0",\n'
                             '  "scripts": {"test": "jest", "lint": "eslint src"},\n'
                             '  "dependencies": {"axios": "1.6.8", "jsonwebtoken": "9.0.2", "react": "18.2.0", '
                             '"react-native": "0.74.1"}\n}\n')})
    commits, prs = [], []
    for k, (state, version, day) in enumerate((("pr224", "2.2.4", day_a), ("pr225", "2.2.5", day_b))):
        f = next(f for f, (us, _) in states.items() if us == state)
        svc_owner = o.employee(next(s for s in services if s.name == f).owner)
        login = svc_owner.github_login or "kestrel-ops-bot"
        number = next_number + k
        sha = hex_id(ID, seed, "commit", k, n=40)
        title = f"Bump urllib3 to {version} in {f}"
        commits.append({"sha": sha, "message": f"{title} (#{number})", "author": login})
        prs.append({"number": number, "title": title, "body": f"For {adv_a.id}.", "head": f"deps/{f}-urllib3-{version}",
                    "base": "main", "state": "closed", "merged": True, "merge_commit_sha": sha, "author": login,
                    "labels": [], "created_at": f"{day}T16:{20 + k}:00Z"})
    main = next(b for b in mono_repo["branches"] if b["name"] == "main")
    github_patch.append({"op": "update", "in": ["repos", f"{OWNER}/{MONOREPO}", "branches"], "id": "main",
                         "fields": {"commits": [*reversed(commits), *main["commits"]]}})
    github_patch += [{"op": "add", "in": ["repos", f"{OWNER}/{MONOREPO}", "pull_requests"], "value": pr} for pr in prs]

    # -- Notion: the policy (and its superseded version), the catalog, the tracker ---------------------
    policies = notion_page(seed, "Policies")
    superseded = notion_page(seed, "Superseded")
    engineering = notion_page(seed, "Engineering")
    sec_lead = o.employee(author.manager) if author.manager else author

    def pid(*parts: object) -> str:
        return uuid_of(ID, seed, *parts)

    c, h, m = days["Critical"], days["High"], days["Medium"]
    current = [
        ("heading_2", f"Effective {REVIEW}"),
        ("paragraph", "Scope: every service the Service Catalog lists as Active. A Retired service gets no "
                      "remediation, whatever it pins."),
        ("paragraph", "A service is affected by an advisory when the version of the package pinned in its dependency "
                      "file (the catalog's Dependency file, on the repository's default branch) is inside the "
                      "affected range, as the security team last corrected it in the advisory's thread. A fix not "
                      "merged into the default branch does not count."),
        ("paragraph", "Severity follows the advisory's CVSS score: Critical 9.0 to 10.0, High 7.0 to 8.9, Medium "
                      "4.0 to 6.9."),
        ("paragraph", f"Due date: the Nth business day after the day the advisory was published, N by severity and "
                      f"the service's tier. Critical: tier 1 {c[0]}, tier 2 {c[1]}. High: tier 1 {h[0]}, tier 2 "
                      f"{h[1]}. Medium: tier 1 {m[0]}, tier 2 {m[1]}. Business days are Monday to Friday except "
                      f"company holidays (this spring: Good Friday, 3 April 2026); one business day after a Friday "
                      f"is the Monday."),
        ("paragraph", "Owner: the service's owner today. The Service Catalog is reviewed on the first Monday of each "
                      f"month, last on {long_date(REVIEW)}; a change of owner since then is announced in "
                      "#announcements and counts from the day the announcement says it takes effect."),
        ("paragraph", f"Record: one row per affected service and advisory in the {TRACKER}, with the advisory, the "
                      "service, its owner, the severity, the due date and Status Open. Owners work from the "
                      "tracker: do not open Linear issues for advisories."),
        ("paragraph", "Where an open Linear issue (any team; not Done, Canceled or Duplicate) already tracks upgrading "
                      "that package in that service, put its identifier in the row's Linear issue, assign the issue "
                      "to the owner, give it the row's due date and the priority for the severity (Critical: "
                      "Urgent, High: High, Medium: Medium), and comment the advisory on it."),
        ("paragraph", "When the tracker is up to date, post a summary in #security that names each advisory (its "
                      "KSA number) and the services it affects."),
        ("paragraph", f"Owner: {sec_lead.name}"),
    ]
    old = [
        ("heading_2", "Effective 2025-01-01"),
        ("paragraph", "Every service with a vulnerable dependency is fixed within a deadline in calendar days after "
                      "the advisory: Critical 7 (tier 1) or 14 (tier 2), High 30 or 60, Medium 90."),
        ("paragraph", "Open one Linear issue per affected service in the Platform team (PLT), assigned to the owner "
                      "in the Service Catalog, with the deadline as its due date and priority Urgent (Critical), "
                      "Medium (High) or Low (Medium)."),
        ("paragraph", f"Owner: {sec_lead.name}"),
    ]
    catalog_id, tracker_id = pid("catalog"), pid("tracker")
    service_opts = list(names)
    adv_opts = [p[0] for p in PAST] + [adv_a.id, adv_b.id]
    notion_patch: list[dict[str, Any]] = [
        {"op": "add", "in": ["pages"], "value": {
            "id": pid("policy"), "title": POLICY, "parent_id": policies["id"], "properties": {}, "archived": False,
            "created_time": "2026-02-26T10:00:00Z",
            "content": [{"id": pid("policy", k), "type": t, "text": x} for k, (t, x) in enumerate(current)]}},
        {"op": "add", "in": ["pages"], "value": {
            "id": pid("policy-2025"), "title": f"{POLICY} 2025 (superseded)", "parent_id": superseded["id"],
            "properties": {}, "archived": False, "created_time": "2024-12-12T10:00:00Z",
            "content": [{"id": pid("policy-2025", k), "type": t, "text": x} for k, (t, x) in enumerate(old)]}},
        {"op": "add", "in": ["databases"], "value": {
            "id": catalog_id, "title": CATALOG, "parent_id": engineering["id"], "archived": False, "properties": {
                "Service": {"type": "title"},
                "Team": {"type": "select", "options": sorted({s.team for s in services})},
                "Tier": {"type": "select", "options": ["Tier 1", "Tier 2"]},
                "Owner": {"type": "people"},
                "Status": {"type": "select", "options": ["Active", "Retired"]},
                "Repository": {"type": "rich_text"},
                "Dependency file": {"type": "rich_text"},
                "Retired on": {"type": "date"}}}},
        {"op": "add", "in": ["databases"], "value": {
            "id": tracker_id, "title": TRACKER, "parent_id": engineering["id"], "archived": False, "properties": {
                "Item": {"type": "title"},
                "Advisory": {"type": "select", "options": adv_opts},
                "Service": {"type": "select", "options": service_opts},
                "Owner": {"type": "people"},
                "Severity": {"type": "select", "options": ["Critical", "High", "Medium", "Low"]},
                "Due": {"type": "date"},
                "Status": {"type": "status", "options": ["Open", "In progress", "Fixed", "Won't fix"]},
                "Linear issue": {"type": "rich_text"}}}},
    ]
    retired_day = f"2026-02-{rng.randint(16, 27):02d}"
    for k, s in enumerate(services):
        repo, path = path_of(s)
        notion_patch.append({"op": "add", "in": ["pages"], "value": {
            "id": pid("catalog", s.name), "title": s.name, "parent_id": catalog_id, "archived": False,
            "created_time": f"2025-09-{1 + k:02d}T09:00:00Z", "content": [], "properties": {
                "Team": s.team, "Tier": f"Tier {s.tier}", "Owner": [o.employee(s.owner).notion_id],
                "Status": "Retired" if s is retired else "Active", "Repository": f"{OWNER}/{repo}",
                "Dependency file": path, "Retired on": retired_day if s is retired else None}}})
    for k, ((adv_id, pkg, day), lines) in enumerate(zip(PAST, past_lines, strict=True)):
        for j, s in enumerate(lines):
            due = (dt.date.fromisoformat(day) + dt.timedelta(days=OLD_DAYS[past_sev[k]][s.tier - 1])).isoformat()
            notion_patch.append({"op": "add", "in": ["pages"], "value": {
                "id": pid("old-row", k, j), "title": f"{pkg} in {s.name}", "parent_id": tracker_id,
                "archived": False, "created_time": f"{business_day_after(day, 1)}T15:00:00Z",
                "content": [], "properties": {
                    "Advisory": adv_id, "Service": s.name, "Owner": [o.employee(s.owner).notion_id],
                    "Severity": past_sev[k], "Due": due, "Status": "Fixed" if due < TODAY else "In progress",
                    "Linear issue": None}}})
    runbook = notion_page(seed, f"Runbook: {retired.name}")
    notion_patch.append({"op": "add", "in": ["pages", runbook["id"], "content"], "value": {
        "id": pid("retired-note"), "type": "paragraph",
        "text": f"Retired on {retired_day}: no longer deployed; the code stays in the repository until the cleanup."}})

    # -- what the policy decides -------------------------------------------------------------------------
    rows = []
    for adv, s in affected:
        n = days[adv.severity][s.tier - 1]
        due = business_day_after(adv.day, n)
        owner = owner_today[s.name]
        link = open_id if (adv is open_adv and s.name == open_svc.name) else None
        rows.append({"adv": adv, "service": s, "owner": owner, "due": due, "link": link,
                     "calendar_due": (dt.date.fromisoformat(adv.day) + dt.timedelta(days=n)).isoformat(),
                     "no_holiday_due": _weekdays_after(adv.day, n)})
    open_row = next(r for r in rows if r["link"])

    def props_of(r: dict[str, Any], *, owner=None, due=None, link: Any = "keep") -> dict[str, Any]:
        out = {"Advisory": r["adv"].id, "Service": r["service"].name,
               "Owner": [(owner or r["owner"]).notion_id], "Severity": r["adv"].severity,
               "Due": due or r["due"], "Status": "Open"}
        chosen = r["link"] if link == "keep" else link
        if chosen:
            out["Linear issue"] = chosen
        return out

    def create(r: dict[str, Any], **kw: Any) -> dict[str, Any]:
        return call("notion__create_page", parent_id=tracker_id,
                    title=f"{r['adv'].package} in {r['service'].name}", properties=props_of(r, **kw))

    creates = [create(r) for r in rows]
    link_update = call("linear__update_issue", id=open_id, assignee=open_row["owner"].email,
                       priority=LINEAR_PRIORITY[open_row["adv"].severity], dueDate=open_row["due"])
    comment_text = (f"{open_row['adv'].id} ({open_row['adv'].package}, {open_row['adv'].severity}) affects "
                    f"{open_row['service'].name}: this issue is its remediation, due {open_row['due']}.")
    comment = call("linear__create_comment", issueId=open_id, body=comment_text)

    def who(r: dict[str, Any]) -> str:
        """The owner as the past summaries write them: a mention for a Tier 1 service, the name otherwise."""
        return f"<@{slack_users[r['owner'].email]['id']}>" if r["service"].tier == 1 else r["owner"].name

    def summary(adv: Advisory, owner: Callable[[dict[str, Any]], str] = who) -> str:
        """The advisory's summary, each owner written by ``owner`` (the past summaries' way by default)."""
        mine = [r for r in rows if r["adv"] is adv]
        listed = "; ".join(f"{r['service'].name} ({owner(r)}, due {r['due']})" for r in mine)
        return f"{adv.id} ({adv.package}) remediation is in the {TRACKER}: {listed}."

    replies = [call("slack__reply_to_thread", channel_id=security["id"], thread_ts=t, text=summary(a))
               for a, t in ((adv_a, ts_a), (adv_b, ts_b))]

    # -- the reference -------------------------------------------------------------------------------------
    read_files = []
    seen_files: set[tuple[str, str]] = set()
    for s in active:
        repo, path = path_of(s)
        if (repo, path) not in seen_files:
            seen_files.add((repo, path))
            read_files.append(call("github__get_file_contents", owner=OWNER, repo=repo, path=path))
    discover = [
        call("slack__search_messages", query=adv_a.id),
        call("slack__get_thread_replies", channel_id=security["id"], thread_ts=ts_a),
        call("slack__search_messages", query=adv_b.id),
        call("slack__get_thread_replies", channel_id=security["id"], thread_ts=ts_b),
        call("slack__get_channel_history", channel_id=security["id"], limit=50),
        *(call("slack__get_thread_replies", channel_id=security["id"], thread_ts=t) for t in past_threads),
        call("notion__search", query="vulnerability remediation"),
        call("notion__get_block_children", block_id=pid("policy")),
        call("notion__search", query=CATALOG),
        call("notion__query_database", database_id=catalog_id, page_size=20),
        *read_files,
        call("github__list_pull_requests", owner=OWNER, repo=MONOREPO, state="closed"),
        call("slack__get_channel_history", channel_id=announcements["id"], limit=30),
        call("slack__get_user_profile", user_id=slack_users[n1.email]["id"]),
        call("slack__get_user_profile", user_id=slack_users[n2.email]["id"]),
        call("notion__list_users", page_size=100),
        call("notion__list_users", page_size=100, start_cursor=make_cursor("users", 100)),
        call("linear__list_issues", query="urllib3"),
        call("linear__list_issues", query="PyJWT"),
        call("linear__get_issue", id=open_id),
        call("notion__search", query=TRACKER),
        call("notion__query_database", database_id=tracker_id, page_size=20),
    ]
    check = call("notion__query_database", database_id=tracker_id,
                 filter=[{"property": "Service", "equals": rows[1]["service"].name}], page_size=20)
    writes = [creates[0], creates[1], check, *creates[2:], link_update, comment, *replies]
    reference = [*discover, *writes]

    # -- frame and predicate ------------------------------------------------------------------------------
    frame: list[dict[str, Any]] = []
    success: list[dict[str, Any]] = []
    for r in rows:
        values: dict[str, Any] = {"properties.Owner": {"eq": [r["owner"].notion_id]},
                                  "properties.Severity": {"eq": r["adv"].severity},
                                  "properties.Due": {"eq": r["due"]},
                                  "properties.Status": {"in": ["Open", None]},
                                  "properties.Linear issue": ({"eq": r["link"]} if r["link"] else {"in": [None, ""]})}
        frame.append({"entity": "notion.page", "change": ["create"],
                      "where": {"parent_id": tracker_id, "properties.Advisory": r["adv"].id,
                                "properties.Service": r["service"].name}, "values": values, "max": 1})
        where = {"Advisory": r["adv"].id, "Service": r["service"].name, "Owner": [r["owner"].notion_id]}
        if r["link"]:
            where["Linear issue"] = r["link"]
        success.append({"notion.databaseHasRow": {"database": tracker_id, "where": where}})
    frame += [
        {"entity": "linear.issue", "ids": [open_id],
         "fields": ["assignee", "priority", "due_date", "state", "labels", "description", "title"],
         "values": {"title": {"matches": open_svc.name},
                    "assignee": {"eq": open_row["owner"].linear_id},
                    "priority": {"eq": LINEAR_PRIORITY[open_row["adv"].severity]},
                    "due_date": {"eq": open_row["due"]}, "state": {"in": ["Backlog", "Todo", "In Progress"]},
                    "labels": {"add": ["Security"]}}},
        {"entity": "linear.comment", "change": ["create"], "where": {"issue": open_id}, "max": 2},
        {"entity": "slack.message", "change": ["create"], "where": {"channel": security["id"]}, "max": 3},
    ]
    prio = LINEAR_PRIORITY[open_row["adv"].severity]
    success += [
        {"linear.issueAssignee": {"issue": open_id, "assignee": open_row["owner"].linear_id}},
        {"linear.issuePriority": {"issue": open_id, "priority": prio if prio == 1 else PRIORITY_NAME[open_row["adv"].severity]}},
        {"linear.issueHasComment": {"issue": open_id, "pattern": open_row["adv"].id}},
    ]
    for adv in advisories:
        key = f"({adv.id}|{adv.package})"
        for r in rows:
            if r["adv"] is adv:
                name = r["service"].name
                success.append({"slack.messagePosted": {
                    "channel": security["id"], "user": slack_w["viewer"],
                    "pattern": f"{key}(.|\\n)*{name}|{name}(.|\\n)*{key}"}})
    for uid in sorted({slack_users[r["owner"].email]["id"] for r in rows if r["service"].tier == 1}):
        # the habit of the past summaries: a Tier 1 service's owner (today's) is mentioned (<@id>), not just named
        success.append({"slack.messagePosted": {"channel": security["id"], "user": slack_w["viewer"],
                                                "pattern": re.escape(uid)}})

    # -- wrong solutions -------------------------------------------------------------------------------
    h1_rows = [r for r in rows if r["service"] is h1]
    h2_rows = [r for r in rows if r["service"] is h2]
    done_issue_writes = [call("linear__update_issue", id=done_id, assignee=owner_today[done_svc.name].email,
                              priority=LINEAR_PRIORITY[done_adv.severity], state="Todo"),
                         call("linear__create_comment", issueId=done_id, body=f"{done_adv.id} affects {done_svc.name}.")]
    retired_rows = [call("notion__create_page", parent_id=tracker_id, title=f"{a.package} in {retired.name}",
                         properties={"Advisory": a.id, "Service": retired.name,
                                     "Owner": [o.employee(retired.owner).notion_id], "Severity": a.severity,
                                     "Due": business_day_after(a.day, days[a.severity][retired.tier - 1]),
                                     "Status": "Open"}) for a in advisories]
    pr224_file = next(f for f, (us, _) in states.items() if us == "pr224")
    catalog_owner_fix = call("notion__update_page", page_id=pid("catalog", h1.name),
                             properties={"Owner": [n1.notion_id]})
    wrongs = [
        {"why": f"links and comments on the Done {done_id} ({done_title}) as if it were the open issue",
         "kind": "lookalike",
         "calls": [*creates, *done_issue_writes, *replies]},
        {"why": f"does everything right and also updates the catalog's owner of {h1.name}", "kind": "collateral",
         "calls": [*creates, link_update, comment, *replies, catalog_owner_fix]},
        {"why": f"takes {h1.name}'s owner from the catalog, missing the handover announced since its review",
         "kind": "other",
         "calls": [*(create(r, owner=o.employee(h1.owner)) if r in h1_rows else create(r) for r in rows),
                   *([link_update] if open_row not in h1_rows else
                     [call("linear__update_issue", id=open_id, assignee=o.employee(h1.owner).email,
                           priority=prio, dueDate=open_row["due"])]), comment, *replies]},
        {"why": f"hands {h2.name} to its April owner already", "kind": "other",
         "calls": [*(create(r, owner=n2) if r in h2_rows else create(r) for r in rows),
                   *([link_update] if open_row not in h2_rows else
                     [call("linear__update_issue", id=open_id, assignee=n2.email, priority=prio,
                           dueDate=open_row["due"])]), comment, *replies]},
        {"why": f"reads the urllib3 range before its correction: {pr224_file}, on 2.2.4, gets no row",
         "kind": "other",
         "calls": [*(cr for cr, r in zip(creates, rows, strict=True)
                     if not (r["adv"] is adv_a and file_of(r["service"]) == pr224_file)),
                   link_update, comment, *replies]},
        {"why": f"records the retired {retired.name} too", "kind": "other",
         "calls": [*creates, *retired_rows, link_update, comment, *replies]},
        {"why": "writes the second row again after its timeout without looking (a duplicate)", "kind": "other",
         "calls": [*creates[:2], creates[1], *creates[2:], link_update, comment, *replies]},
        {"why": "follows the superseded 2025 policy: calendar-day deadlines", "kind": "other",
         "calls": [*(create(r, due=r["calendar_due"]) for r in rows), link_update, comment, *replies]},
        {"why": "also opens a Linear issue per row in the Platform team, as the superseded policy did",
         "kind": "other",
         "calls": [*creates, link_update, comment, *replies,
                   *(call("linear__create_issue", title=f"{r['adv'].package} in {r['service'].name}", team="PLT",
                          assignee=r["owner"].email, dueDate=r["due"],
                          priority=LINEAR_PRIORITY[r["adv"].severity]) for r in rows)]},
        {"why": "records every row but never updates or comments the open Linear issue", "kind": "other",
         "calls": [*creates, *replies]},
    ]
    if any(r["no_holiday_due"] != r["due"] for r in rows):
        wrongs.append({"why": "counts Good Friday as a business day", "kind": "other",
                       "calls": [*(create(r, due=r["no_holiday_due"]) for r in rows),
                                 call("linear__update_issue", id=open_id, assignee=open_row["owner"].email,
                                      priority=prio, dueDate=open_row["no_holiday_due"]), comment, *replies]})
    aff10 = [r for r in rows if r["adv"] is adv_b and pins[file_of(r["service"])][1] == "2.10.0"]
    if aff10:
        wrongs.append({"why": "compares versions as text: PyJWT 2.10.0 looks older than 2.4.0, so it gets no row",
                       "kind": "other",
                       "calls": [*(cr for cr, r in zip(creates, rows, strict=True) if r not in aff10),
                                 link_update, comment, *replies]})
    if unrelated:
        wrongs.append({"why": f"also comments on {unrelated}, which is about urllib3 1.26, not this advisory",
                       "kind": "other", "calls": [*creates, link_update, comment, *replies,
                                                 call("linear__create_comment", issueId=unrelated,
                                                      body=f"{adv_a.id}: please upgrade.")]})
    def everyone(adv: Advisory) -> str:
        return summary(adv, lambda r: f"<@{slack_users[r['owner'].email]['id']}>")

    alternatives = [
        {"why": "mentions every owner in the summaries, Tier 2 ones too (more than the habit, harmless)",
         "calls": [*creates, link_update, comment,
                   *(call("slack__reply_to_thread", channel_id=security["id"], thread_ts=t, text=everyone(a))
                     for a, t in ((adv_a, ts_a), (adv_b, ts_b)))]},
        {"why": "one summary post in #security for both advisories, the Linear issue first, rows in another order",
         "calls": [link_update, comment, *reversed(creates),
                   call("slack__post_message", channel_id=security["id"],
                        text=summary(adv_a) + "\n" + summary(adv_b))]},
        {"why": "labels the issue Security, moves it to Todo and leaves no status on the rows",
         "calls": [*(call("notion__create_page", parent_id=tracker_id, title=f"{r['adv'].id}: {r['service'].name}",
                          properties={k: v for k, v in props_of(r).items() if k != "Status"}) for r in rows),
                   call("linear__update_issue", id=open_id, assignee=open_row["owner"].linear_id, priority=prio,
                        dueDate=open_row["due"], state="Todo", labels=["Tech debt", "Security"]),
                   comment, *replies]},
    ]

    def plain(adv: Advisory) -> str:
        return summary(adv, lambda r: r["owner"].name)

    named_only = [call("slack__reply_to_thread", channel_id=security["id"], thread_ts=t, text=plain(a))
                  for a, t in ((adv_a, ts_a), (adv_b, ts_b))]
    wrongs.append({"why": "posts the summaries naming every owner, mentioning none (the past Tier 1 habit missed)",
                   "kind": "other", "calls": [*creates, link_update, comment, *named_only]})
    needed = {who(r) for r in rows if r["service"].tier == 1}
    narrow: dict[str, Any] = ({"why": "mentions only the owners whose advisory is Critical or High, naming Tier 1 owners otherwise",
                   "kind": "other", "calls": [*creates, link_update, comment,
                                              *(call("slack__reply_to_thread", channel_id=security["id"], thread_ts=t,
                                                     text=(summary(a) if a.severity != "Medium" else plain(a)))
                                                for a, t in ((adv_a, ts_a), (adv_b, ts_b)))]}
                  if "Medium" in (adv_a.severity, adv_b.severity) else
                  {"why": "mentions the Tier 1 owners in the urllib3 summary only", "kind": "other",
                   "calls": [*creates, link_update, comment,
                             call("slack__reply_to_thread", channel_id=security["id"], thread_ts=ts_a, text=summary(adv_a)),
                             call("slack__reply_to_thread", channel_id=security["id"], thread_ts=ts_b, text=plain(adv_b))]})
    if any(m not in " ".join(str(c["arguments"].get("text", "")) for c in narrow["calls"]) for m in needed):
        wrongs.append(narrow)  # only where the narrower reading leaves a Tier 1 owner unmentioned
    return {
        "advisory_a": adv_a.id, "advisory_b": adv_b.id,
        "github_patch": github_patch, "linear_patch": linear_patch, "notion_patch": notion_patch,
        "slack_patch": slack_patch,
        "frame": frame, "success": success, "reference": reference, "wrongs": wrongs, "alternatives": alternatives,
        "max_steps": budget(len(reference), forced=1),
        "facts": {"affected": [f"{r['adv'].id} {r['service'].name} {r['owner'].name} {r['due']}" for r in rows],
                  "retired": retired.name, "handover": f"{h1.name} -> {n1.name}", "april": f"{h2.name} -> {n2.name}",
                  "open_issue": open_id, "calls": len(reference)},
    }


def _weekdays_after(day: str, n: int) -> str:
    """The ``n``th weekday after ``day``, holidays counted as working days (the error the policy warns of)."""
    d = dt.date.fromisoformat(day)
    while n:
        d += dt.timedelta(days=1)
        if d.weekday() < 5:
            n -= 1
    return d.isoformat()


@on_worlds(slack=3)
def build() -> dict[str, Any]:
    task = case_task(
        goal=("Security published two advisories last week, {{case.advisory_a}} (urllib3) and {{case.advisory_b}} "
              "(PyJWT). Work them through the way our vulnerability remediation policy says, and the way we "
              "handled the earlier ones."),
        servers=["github", "linear", "notion", "slack"], tools=TOOLS,
        faults=[{"tool": "notion__create_page", "on_call": 2, "kind": "timeout_after_commit"},
                {"tool": "linear__update_issue", "on_call": 1, "kind": "unavailable"}],
        timeout_s=1200, patched=("github", "linear", "notion", "slack"))
    return template(id=ID, version=3, servers=["github", "linear", "notion", "slack"], difficulty="hard",
                    category="recovery", case_list=cases(case_of, want=10), task=task)
