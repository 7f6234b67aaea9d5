"""The Slack world: Kestrel Freight Systems' workspace.

At the default size: 60 users (three bots, two deactivated accounts, lookalike names such as
maria.santos and maria.santana), 40 channels (public and private, a few archived incident channels)
and 2,000 messages over ten weeks, a quarter of them threads, some with reactions. The viewer is the
bot ``ops-assistant``, a member of most channels but not of every private one.

Version 2 projects the organisation (``servers/org``): every person who works or worked there (about
120; those who left are deactivated and in no channel, their old messages kept), a channel per
department, team, office and project, one ``incident-NNNN`` channel per incident telling its timeline
(page, declaration by the commander, the customers hit, resolution, postmortem owner; the older ones
archived), and 2,400 messages by people who worked there on the day, about the organisation's
customers, services and projects (about 2,470 with the incident timelines).

Version 3 is version 2 drawn from the same random stream (the same users, channels, messages, ids and
times, so a patch written for one applies to the other) with one correction: where version 2 announces
"Office will be closed on <a random weekday> for the public holiday" (in #general, #announcements, #marketing),
version 3 names the organisation's next holiday on a working day by weekday, date and name ("The Lisbon
office will be closed on Friday 3 April for Good Friday, a public holiday in Portugal"), as the calendar's
holidays say.

Patchable collections: ``users`` (by ``id``), ``channels`` (by ``id``), ``channels.messages`` (by ``ts``).
"""

from __future__ import annotations

import calendar
import itertools
import random
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any

from servers.kit.world import versions
from servers.kit.worldtext import POOLS, Words, fill, people, random_id
from servers.org import Organisation, cast
from servers.org.model import Employee, Incident, staffing

#: (name, kind, topic, purpose, private, archived); kind picks the message templates.
CHANNELS = (
    ("general", "general", "Company-wide news", "Announcements and questions for everyone", False, False),
    ("random", "social", "", "Non-work banter", False, False),
    ("announcements", "general", "Read-only news", "Official announcements", False, False),
    ("eng-backend", "eng", "Backend services", "Backend engineering discussion", False, False),
    ("eng-frontend", "eng", "Web and driver app UI", "Frontend engineering", False, False),
    ("eng-platform", "sre", "Kubernetes, CI, observability", "Platform team", False, False),
    ("eng-data", "eng", "Warehouse and pipelines", "Data engineering", False, False),
    ("sre-oncall", "sre", "Current on-call: see pinned rota", "On-call coordination", False, False),
    ("deploys", "deploy", "Production deploys", "Deploy notifications and questions", False, False),
    ("incidents", "sre", "Open an incident-NNNN channel per incident", "Incident index", False, False),
    ("incident-2031", "incident", "Rate engine 500s (resolved)", "Incident 2031", False, True),
    ("incident-2038", "incident", "Tracking gateway latency (resolved)", "Incident 2038", False, False),
    ("incident-2041", "incident", "Payment timeouts (resolved)", "Incident 2041", False, False),
    ("incident-2047", "incident", "Search latency (monitoring)", "Incident 2047", False, False),
    ("release-train", "deploy", "Release 4.x train", "Release coordination", False, False),
    ("proj-atlas", "product", "Route optimisation v2", "Project Atlas", False, False),
    ("proj-harbor-migration", "eng", "Postgres 13 to 16 migration", "Project Harbor", False, False),
    ("proj-billing-v2", "product", "Usage-based billing", "Billing v2", False, False),
    ("product", "product", "Roadmap and specs", "Product team", False, False),
    ("design", "product", "Figma links welcome", "Design critique", False, False),
    ("sales", "sales", "Pipeline and wins", "Sales team", False, False),
    ("sales-emea", "sales", "EMEA deals", "Sales EMEA", False, False),
    ("sales-na", "sales", "North America deals", "Sales NA", False, False),
    ("cs-escalations", "support", "Customer escalations", "Escalations to engineering", False, False),
    ("support", "support", "Support queue", "Support team", False, False),
    ("marketing", "general", "Campaigns and launches", "Marketing", False, False),
    ("events", "social", "Conferences and meetups", "Events", False, False),
    ("finance", "finance", "Month-end close", "Finance team", False, False),
    ("people-ops", "people", "Hiring, onboarding, benefits", "People team", False, False),
    ("hiring-backend", "people", "Backend hiring loop", "Backend hiring", True, False),
    ("it-helpdesk", "people", "Laptops, accounts, VPN", "IT help", False, False),
    ("security", "sre", "Security reviews and alerts", "Security", False, False),
    ("legal-contracts", "finance", "Contract reviews", "Legal", True, False),
    ("office-lisbon", "social", "Lisbon office", "Lisbon office", False, False),
    ("office-toronto", "social", "Toronto office", "Toronto office", False, False),
    ("book-club", "social", "This month: The Goal", "Book club", False, False),
    ("leadership", "finance", "Leadership team", "Leadership", True, False),
    ("exec-offsite", "finance", "Offsite planning", "Exec offsite", True, False),
    ("oncall-handoff", "sre", "Weekly hand-off notes", "On-call hand-offs", True, False),
    ("customer-harbour-foods", "support", "Shared with Harbour Foods", "Harbour Foods shared channel", False, False),
)

TEMPLATES: dict[str, tuple[str, ...]] = {
    "general": (
        "Reminder: all-hands on {day} at 16:00 Lisbon time, agenda in the doc",
        "Welcome to the {n} people who joined this month!",
        "The {project} launch recap is up on the wiki",
        "Office will be closed on {day} for the public holiday",  # CLOSURE; version 3 names the true one
        "Q1 OKR check-in: {pct}% of key results on track",
        "Please complete the security awareness training by {day}",
        "New expense policy takes effect next month; limits for client dinners are going up",
        "We signed {customer}! Huge thanks to everyone involved",
    ),
    "eng": (
        "PR for {ticket} is up: refactors the {service} retry logic, reviews welcome",
        "Anyone seen flaky tests in {service}? {n} failures on main today",
        "Heads up: bumping the pinned Postgres driver in {service} to fix the connection leak",
        "{service} p95 went from {ms}ms to under 100ms after the index change",
        "Design doc for {ticket} ready for comments, mostly about the queue semantics",
        "Who owns the cron that rebuilds the {service} cache? It ran {n} times last night",
        "Proposal: deprecate the v1 endpoints of {service} by end of quarter",
        "Pairing on {ticket} this afternoon if anyone wants to join",
        "The staging database for {service} is full again, cleaning up old fixtures",
        "Migrated {n} tables for {project}, remaining ones need a maintenance window",
    ),
    "sre": (
        "Paging alert: {service} error rate at {pct}% in {region}",
        "Rotated the TLS certificates for {service}, no restarts needed",
        "Disk usage on the {region} replicas at {pct}%, expanding volumes tonight",
        "Runbook for {service} failover updated after last week's drill",
        "CI queue times are back to normal after adding {n} runners",
        "Planned maintenance on {day}: node pool upgrade in {region}",
        "Who acknowledged the {service} page at 03:12? Please add notes to the timeline",
        "Game day on {day}: we will kill the primary of {service} in {region}",
    ),
    "incident": (
        "Declaring incident: {service} returning 500s for about {pct}% of requests in {region}",
        "Mitigation: rolled back {service} to the previous release",
        "Customer impact: {customer} reported failed shipments for {n} minutes",
        "Root cause looks like connection pool exhaustion in {service}",
        "Status page updated; next update in 30 minutes",
        "Resolved. Postmortem owner assigned, draft due {day}",
        "Error rate back under 0.1% in {region}",
    ),
    "deploy": (
        "Deploying {service} {version} to production",
        "{service} {version} is live in {region}",
        "Release {version} branch cut; freeze starts {day} 18:00",
        "Rollback of {service} {version} complete",
        "Canary for {service} {version} at {pct}% traffic, error budget fine",
        "Release notes for {version} drafted, please add your items",
    ),
    "product": (
        "Spec for {project} milestone 2 is ready for review",
        "Customer interviews: {n} of 12 done, strongest theme is ETA accuracy",
        "{customer} asked for bulk label printing again, adding to the backlog",
        "Roadmap review moved to {day}",
        "New mocks for the shipment timeline in Figma",
        "Usage of the rate calculator is up {pct}% since the redesign",
        "Can we scope {ticket} down to the export part for this cycle?",
    ),
    "sales": (
        "{customer} renewal signed: {amount} EUR ARR",
        "Demo with {customer} on {day}, need a solutions engineer",
        "Pipeline review: {n} deals in stage 3, {amount} EUR weighted",
        "{customer} is asking for a discount of {pct}% on the multi-year deal",
        "Lost {customer} to a competitor on price; notes in the CRM",
        "Security questionnaire from {customer} due {day}, who can help?",
    ),
    "support": (
        "{customer} reports tracking updates delayed by {n} minutes",
        "Escalating {ticket}: {customer} double-charged on the March invoice",
        "Ticket volume this week: {n} new, {pct}% solved within SLA",
        "{customer} cannot log in after the SSO change, investigating",
        "Macro for the customs document error updated",
        "{customer} wants an export of all shipments since January",
    ),
    "finance": (
        "Month-end close starts {day}; submit expenses by then",
        "Invoice run for {n} customers scheduled for {day}",
        "Budget for {project} approved at {amount} EUR",
        "Vendor contract with the cloud provider renews next month, {pct}% increase proposed",
        "Please code the {customer} travel costs to the sales cost centre",
        "Audit request: contracts over {amount} EUR signed this year",
    ),
    "people": (
        "Onboarding for {n} new starters on {day}, buddies please confirm",
        "Interview loop for the backend role on {day}, panel needed",
        "Benefits enrolment closes {day}",
        "Laptop refresh: {n} machines arriving next week",
        "VPN client update required by {day}",
        "Offer accepted for the staff engineer role!",
    ),
    "social": (
        "Lunch order closes at noon, {n} people in so far",
        "Who is up for a run along the river on {day}?",
        "Pastries in the kitchen for {customer} week",
        "Book club meets {day}, we are halfway through",
        "Photos from the summer party are in the shared drive",
        "Football on {day}, need {n} more players",
    ),
}
#: Version 2 adds the operations team's channel.
TEMPLATES["ops"] = (
    "{n} pickups late in Rotterdam this morning, carrier says trailers are stuck at the port",
    "{customer} asked for a call about the late pallets, who can join?",
    "Carrier scorecards for this month are on the drive, please check your lanes",
    "Hamburg warehouse at {pct}% capacity, we need overflow space next week",
    "Escalation from {customer}: {n} shipments without tracking updates",
    "Reminder: weekly ops review moved to Tuesdays from April",
    "Customs documents for {customer} were missing again, ticket {ticket}",
)
REPLIES = (
    "Thanks, on it", "Looking now", "+1", "Done", "Can you share the link?", "I can take this",
    "Agreed, let's do it after the freeze", "Tracking in {ticket}", "Confirmed on my side",
    "Not seeing it in {region}", "Fixed in {version}", "Let's discuss at standup", "Merged",
    "Will update the runbook", "Any ETA?", "Customer informed", "Good catch", "Resolved for me",
)
REACTIONS = ("white_check_mark", "eyes", "+1", "tada", "pray", "rocket", "raised_hands", "fire")

SIZES = {"default": (60, 2000), "small": (12, 120)}
#: 2026-01-05 08:00 UTC: the first day of the ten weeks the messages span.
START = 1_767_600_000


def _bots(rng: random.Random, taken: set[str]) -> tuple[str, list[dict[str, Any]], dict[str, str]]:
    viewer = random_id(rng, "UB", 8, taken)
    users: list[dict[str, Any]] = [
        {"id": viewer, "name": "ops-assistant", "real_name": "Ops Assistant", "title": "Workspace bot", "is_bot": True},
        {"id": random_id(rng, "UB", 8, taken), "name": "deploy-bot", "real_name": "Deploy Bot", "is_bot": True},
        {"id": random_id(rng, "UB", 8, taken), "name": "pagerduty", "real_name": "PagerDuty", "is_bot": True},
    ]
    return viewer, users, {u["name"]: u["id"] for u in users}


def _channel(rng: random.Random, row: tuple, members: list[str], taken: set[str], viewer: str,
             bots: dict[str, str]) -> dict[str, Any]:
    """A channel of ``row`` (name, kind, topic, purpose, private, archived) with ``members``: the viewer
    bot joins every channel but the exec offsite's, the deploy bot deploy channels, PagerDuty on-call ones."""
    name, kind, topic, purpose, private, archived = row[:6]
    if name != "exec-offsite":
        members = [viewer, *members]
    if kind == "deploy":
        members.append(bots["deploy-bot"])
    if kind in ("sre", "incident"):
        members.append(bots["pagerduty"])
    return {"id": random_id(rng, "C", 9, taken), "name": name, "is_private": private, "is_archived": archived,
            "topic": topic, "purpose": purpose,
            # the first person in it; the viewer bot when nobody still here is (a channel of leavers)
            "creator": members[1] if name != "exec-offsite" and len(members) > 1 else members[0],
            "members": members, "messages": [], "_kind": kind}


def _post(rng: random.Random, channels: list[dict[str, Any]], stamps: list[int], bots: dict[str, str],
          authors: Callable[[dict[str, Any], int], list[str]], words: Words = POOLS,
          correct: Callable[[str, str, int], str] | None = None) -> None:
    """Messages at ``stamps`` (seconds), each in a channel drawn by weight, by one of ``authors(channel,
    second)``: a quarter replies in a recent thread, some with reactions. ``correct(template, text,
    second)``, when given, may replace a top-level message's filled-in text; it draws nothing, so the
    messages keep their channels, times, authors and every other draw."""
    # cumulative weights once (``choices`` with ``weights`` accumulates them each call, to the same numbers)
    cum_weights = list(itertools.accumulate(6 if c["_kind"] in ("eng", "sre", "support", "deploy") else 3
                                            for c in channels))
    # each channel's top-level messages so far, kept as they are posted rather than filtered again each time
    tops_of: dict[int, list[dict[str, Any]]] = {}
    for second in stamps:
        channel = rng.choices(channels, cum_weights=cum_weights)[0]
        ts = f"{second}.{rng.randint(100, 999_999):06d}"
        kind = channel["_kind"]
        who = authors(channel, second)
        author = bots["deploy-bot"] if kind == "deploy" and rng.random() < 0.5 else rng.choice(who)
        tops = tops_of.get(id(channel))
        if tops is None:
            tops = tops_of[id(channel)] = [m for m in channel["messages"] if "thread_ts" not in m]
        if tops and rng.random() < 0.28:
            parent = rng.choice(tops[-6:])
            text = fill(rng, rng.choice(REPLIES), words)
            message: dict[str, Any] = {"ts": ts, "user": author, "text": text, "thread_ts": parent["ts"]}
        else:
            template = rng.choice(TEMPLATES[kind])
            text = fill(rng, template, words)
            message = {"ts": ts, "user": author, "text": correct(template, text, second) if correct else text}
            tops.append(message)
        if rng.random() < 0.12:
            reactors = sorted(rng.sample(who, k=min(len(who), rng.randint(1, 4))))
            message["reactions"] = [{"name": rng.choice(REACTIONS), "users": reactors}]
        channel["messages"].append(message)


def build(rng: random.Random, size: str) -> dict[str, Any]:
    """Version 1: a staff drawn from the shared name pools."""
    n_users, n_messages = SIZES[size]
    taken: set[str] = set()
    viewer, users, bots = _bots(rng, taken)
    staff = people(rng, n_users - len(users))
    for i, person in enumerate(staff):
        users.append({"id": random_id(rng, "U", 9, taken), "name": person.handle, "real_name": person.full_name,
                      "title": person.title, "email": person.email, "tz": person.tz,
                      "deleted": i in (7, 23) and size == "default"})
    humans = [u["id"] for u in users[3:] if not u["deleted"]]

    channel_rows = CHANNELS if size == "default" else CHANNELS[:8] + CHANNELS[36:39]
    channels = []
    for row in channel_rows:
        members = sorted(rng.sample(humans, k=min(len(humans), rng.randint(4, 24))))
        if row[0] in ("general", "random", "announcements"):
            members = sorted(humans)
        channels.append(_channel(rng, row, members, taken, viewer, bots))
    stamps = [START + offset for offset in sorted(rng.sample(range(0, 70 * 86_400), n_messages))]
    _post(rng, channels, stamps, bots, lambda channel, _: [m for m in channel["members"] if m != viewer])
    for channel in channels:
        del channel["_kind"]
    return {"viewer": viewer, "users": users, "channels": channels}


#: Version 2's channels: (name, kind, topic, purpose, private, archived, who). ``who`` names the people
#: of the organisation who are in it (a department, a team, a flag, an office, everyone); incident and
#: project channels follow the organisation's incidents and projects.
CHANNELS_V2 = (
    ("general", "general", "Company-wide news", "Announcements and questions for everyone", False, False, "all"),
    ("random", "social", "", "Non-work banter", False, False, "all"),
    ("announcements", "general", "Read-only news", "Official announcements", False, False, "all"),
    ("eng-backend", "eng", "Backend services", "Backend engineering discussion", False, False, "team:Backend"),
    ("eng-frontend", "eng", "Web app UI", "Frontend engineering", False, False, "team:Frontend"),
    ("eng-platform", "sre", "Kubernetes, CI, observability", "Platform team", False, False, "department:Platform"),
    ("eng-data", "eng", "Warehouse and pipelines", "Data engineering", False, False, "team:Data"),
    ("eng-mobile", "eng", "Driver app", "Mobile engineering", False, False, "team:Mobile"),
    ("sre-oncall", "sre", "Current on-call: see pinned rota", "On-call coordination", False, False, "flag:on-call"),
    ("deploys", "deploy", "Production deploys", "Deploy notifications and questions", False, False, "tech"),
    ("incidents", "sre", "Open an incident-NNNN channel per incident", "Incident index", False, False, "tech+cs"),
    ("release-train", "deploy", "Release 4.x train", "Release coordination", False, False, "department:Engineering"),
    ("product", "product", "Roadmap and specs", "Product team", False, False, "department:Product"),
    ("design", "product", "Figma links welcome", "Design critique", False, False, "team:Design"),
    ("ops", "ops", "Carriers, warehouses, escalations", "Operations team", False, False, "department:Operations"),
    ("sales", "sales", "Pipeline and wins", "Sales team", False, False, "department:Sales"),
    ("sales-emea", "sales", "EMEA deals", "Sales EMEA", False, False, "team:Sales EMEA"),
    ("sales-na", "sales", "North America deals", "Sales NA", False, False, "team:Sales North America"),
    ("sales-apac", "sales", "APAC deals", "Sales APAC", False, False, "team:Sales APAC"),
    ("cs-escalations", "support", "Customer escalations", "Escalations to engineering", False, False, "department:Customer Success"),
    ("support", "support", "Support queue", "Support team", False, False, "team:Support"),
    ("marketing", "general", "Campaigns and launches", "Marketing", False, False, "department:Marketing"),
    ("events", "social", "Conferences and meetups", "Events", False, False, "some"),
    ("finance", "finance", "Month-end close", "Finance team", False, False, "department:Finance"),
    ("people-ops", "people", "Hiring, onboarding, benefits", "People team", False, False, "department:People"),
    ("hiring-backend", "people", "Backend hiring loop", "Backend hiring", True, False, "hiring"),
    ("it-helpdesk", "people", "Laptops, accounts, VPN", "IT help", False, False, "some"),
    ("security", "sre", "Security reviews and alerts", "Security", False, False, "flag:security-group"),
    ("legal-contracts", "finance", "Contract reviews", "Legal", True, False, "legal"),
    ("office-lisbon", "social", "Lisbon office", "Lisbon office", False, False, "office:lisbon"),
    ("office-berlin", "social", "Berlin office", "Berlin office", False, False, "office:berlin"),
    ("office-london", "social", "London office", "London office", False, False, "office:london"),
    ("office-toronto", "social", "Toronto office", "Toronto office", False, False, "office:toronto"),
    ("office-hamburg", "social", "Hamburg warehouse", "Hamburg warehouse", False, False, "office:hamburg"),
    ("book-club", "social", "This month: The Goal", "Book club", False, False, "some"),
    ("leadership", "finance", "Leadership team", "Leadership", True, False, "leaders"),
    ("exec-offsite", "finance", "Offsite planning", "Exec offsite", True, False, "leaders"),
    ("oncall-handover", "sre", "Weekly hand-off notes", "On-call hand-offs", True, False, "flag:on-call"),
    ("customer-harbour-foods", "support", "Shared with Harbour Foods", "Harbour Foods shared channel", False, False,
     "harbour"),
)
SIZES_V2 = {"default": 2400, "small": 160}
#: 2025-10-06: the day the oldest incident channel may date from.
HISTORY = 1_759_708_800


def _unix(iso: str) -> int:
    return calendar.timegm(datetime.strptime(iso, "%Y-%m-%dT%H:%M:%SZ").timetuple())


def _day(second: int) -> str:
    return datetime.fromtimestamp(second, UTC).date().isoformat()


def build_v2(rng: random.Random, size: str, org: Organisation) -> dict[str, Any]:
    """Version 2: the organisation's people (leavers deactivated), channels per department, team,
    office, project and incident, and messages by people who worked here that day."""
    return _build_org(rng, size, org)


#: The filler version 2 posts in the channels of kind ``general`` (#general, #announcements, #marketing),
#: naming a random weekday and no date, whatever the organisation's holiday calendar says.
CLOSURE = "Office will be closed on {day} for the public holiday"


def holiday_notice(org: Organisation, second: int) -> str:
    """What version 3 posts where version 2 drew :data:`CLOSURE`: the organisation's next holiday (its
    holiday calendar, Portugal's, where the HQ is) on a working day after the day of ``second``, by
    weekday, date and name."""
    today = _day(second)
    day, name = min((d, n) for n, d in org.holidays if d > today and date.fromisoformat(d).weekday() < 5)
    when = date.fromisoformat(day)
    return (f"The Lisbon office will be closed on {when.strftime('%A')} {when.day} {when.strftime('%B')} for "
            f"{name}, a public holiday in Portugal")


def build_v3(rng: random.Random, size: str, org: Organisation) -> dict[str, Any]:
    """Version 3: version 2 (the same random stream, so the same ids, times, authors and draws), but the
    holiday closures it announces are the organisation's (:func:`holiday_notice`), not a random weekday."""

    def correct(template: str, text: str, second: int) -> str:
        return holiday_notice(org, second) if template == CLOSURE else text

    return _build_org(rng, size, org, correct)


def _build_org(rng: random.Random, size: str, org: Organisation,
               correct: Callable[[str, str, int], str] | None = None) -> dict[str, Any]:
    """The organisation's workspace (versions 2 and 3); ``correct`` as :func:`_post` takes it."""
    taken: set[str] = {e.slack_id for e in org.employees}
    viewer, users, bots = _bots(rng, taken)
    staff = org.staff
    for e in staff:
        users.append({"id": e.slack_id, "name": e.handle, "real_name": e.name, "title": e.title, "email": e.email,
                      "tz": e.tz, "deleted": e.left})
    by_id = {e.slack_id: e for e in staff}
    rows = list(CHANNELS_V2 if size == "default" else CHANNELS_V2[:9] + CHANNELS_V2[14:15] + CHANNELS_V2[-4:])
    projects = [(p.channel, "product" if p.state != "started" else "eng", p.name, f"Project {p.codename}", False,
                 p.state == "paused", f"project:{p.key}") for p in org.projects]
    incidents = [(i.channel, "incident", f"{i.title} ({i.status})", f"Incident {i.number} ({i.severity})", False,
                  i.resolved is not None and i.resolved < "2026-01-01", f"incident:{i.number}") for i in org.incidents]
    rows[11:11] = incidents + projects  # after #incidents, as a sidebar sorts them
    channels, pools = [], {}
    for row in rows:
        pool = _pool(rng, org, row[6], staff)
        members = sorted(e.slack_id for e in pool if not e.left)
        channel = _channel(rng, row[:6], members, taken, viewer, bots)
        pools[channel["id"]] = [e.slack_id for e in pool]
        channels.append(channel)
    for channel in channels:
        if channel["name"].startswith("incident-"):
            _incident_timeline(rng, channel, org.incident(int(channel["name"].split("-")[1])), org, bots)
        if channel["name"] == "sre-oncall":
            week = org.on_call(org.now)
            channel["topic"] = (f"On call this week: {org.employee(week.primary).name} (primary), "
                                f"{org.employee(week.secondary).name} (secondary). Rota: ops drive, ops/on-call/rota-2026.csv")

    found: dict[tuple[str, int], list[str]] = {}
    by_staffing: dict[tuple[str, tuple[int, int]], list[str]] = {}
    staffed = staffing(staff)

    def authors(channel: dict[str, Any], second: int) -> list[str]:
        # the same for a channel all day, and on every day the same people work: built once a (channel,
        # staffing); ``_post`` only draws from it
        key = (channel["id"], second // 86_400)
        here = found.get(key)
        if here is None:
            day = _day(second)
            same = (channel["id"], staffed(day))
            here = by_staffing.get(same)
            if here is None:
                here = by_staffing[same] = [u for u in pools[channel["id"]] if by_id[u].employed_on(day)] or \
                    [m for m in channel["members"] if m in by_id and by_id[m].employed_on(day)] or \
                    [e.slack_id for e in staff if e.employed_on(day)]
            found[key] = here
        return here

    chatty = [c for c in channels if not c["name"].startswith("incident-")]
    stamps = [START + offset for offset in sorted(rng.sample(range(0, 70 * 86_400), SIZES_V2[size]))]
    _post(rng, chatty, stamps, bots, authors, org.words, correct)
    for channel in channels:
        del channel["_kind"]
        channel["messages"].sort(key=lambda m: m["ts"])
    return {"viewer": viewer, "users": users, "channels": channels}


def _pool(rng: random.Random, org: Organisation, who: str, staff: list[Employee]) -> list[Employee]:
    """The people of the organisation a channel is for (leavers among them: they wrote there once)."""
    kind, _, value = who.partition(":")
    if kind == "all":
        return list(staff)
    if kind in ("department", "team", "office"):
        found = [e for e in staff if getattr(e, kind) == value]
    elif kind == "flag":
        found = [e for e in staff if value in e.flags]
    elif kind == "tech":
        found = [e for e in staff if e.department in ("Engineering", "Platform")]
    elif kind == "tech+cs":
        found = [e for e in staff if e.department in ("Engineering", "Platform", "Customer Success")]
    elif kind == "leaders":
        found = [e for e in staff if e.manager is None or org.employee(e.manager).manager is None]
    elif kind == "hiring":
        found = [e for e in staff if (e.team == "Backend" and "hiring-manager" in e.flags) or e.title == "Recruiter"]
    elif kind == "legal":
        found = [e for e in staff if e.department in ("Legal", "Finance") or e.title == "VP Sales"]
    elif kind == "project":
        found = [org.employee(k) for k in org.project(value).members]
    elif kind == "incident":
        incident = org.incident(int(value))
        keys = [incident.commander, incident.postmortem_owner]
        keys += [org.customer(c).owner for c in incident.customers]
        service = next(s for s in org.services if s.name == incident.service)
        keys += [e.key for e in staff if e.team == service.team and e.employed_on(incident.started)]
        found = [org.employee(k) for k in dict.fromkeys(keys)]
    elif kind == "harbour":
        harbour = next(c for c in org.customers if c.name == "Harbour Foods Ltd")
        found = [org.employee(harbour.owner)] + [e for e in staff if e.team in ("Support", "Operations")]
    else:  # some: a handful of people from anywhere
        found = rng.sample(staff, k=min(len(staff), rng.randint(6, 24)))
    return sorted(dict.fromkeys(found), key=lambda e: e.key)


def _incident_timeline(rng: random.Random, channel: dict[str, Any], incident: Incident, org: Organisation,
                       bots: dict[str, str]) -> None:
    """The incident as its channel tells it, at the incident's own times: the page, the declaration by
    the commander, the customers hit, the mitigation, the resolution and the postmortem owner."""
    start = _unix(incident.started)
    end = _unix(incident.resolved) if incident.resolved else start + 3 * 3600
    commander, owner = org.employee(incident.commander), org.employee(incident.postmortem_owner)
    hit = [org.customer(k) for k in incident.customers]
    lines = [(start - 120, bots["pagerduty"], f"Triggered: {incident.service} error rate above threshold in "
                                              f"{incident.region}"),
             (start, commander.slack_id, f"Declaring incident {incident.number}: {incident.title} in {incident.region}. "
                                        f"Severity {incident.severity}. I am the incident commander.")]
    if hit:
        reporter = org.employee(hit[0].owner)
        names = ", ".join(c.short for c in hit)
        lines.append((start + 900, reporter.slack_id if reporter.employed_on(incident.started[:10]) else
                      commander.slack_id, f"Customer impact: {names} reported failures"))
    lines.append((start + (end - start) // 2, owner.slack_id, f"Looks like {incident.cause}; mitigating now"))
    if incident.resolved:
        lines.append((end, commander.slack_id, f"Resolved. {incident.summary} Postmortem owner: <@{owner.slack_id}>, "
                                               f"draft in Notion (Postmortem: incident {incident.number})."))
    else:
        lines.append((end, commander.slack_id, "Mitigated; error rate back under 0.1%. Monitoring, keeping the "
                                               "channel open."))
    for second, user, text in lines:
        channel["messages"].append({"ts": f"{second}.{rng.randint(100, 999_999):06d}", "user": user, "text": text})


def describe(state: dict[str, Any]) -> dict[str, int]:
    return {"users": len(state["users"]), "channels": len(state["channels"]),
            "messages": sum(len(c.get("messages", [])) for c in state["channels"])}


COLLECTIONS = {"users": "id", "channels": "id", "channels.messages": "ts"}
GENERATORS = versions("slack", COLLECTIONS, describe, build, (build_v2, cast), (build_v3, cast, 2))
GENERATOR = GENERATORS[-1]

__all__ = ["GENERATOR", "GENERATORS"]
