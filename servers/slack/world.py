"""The Slack world: Kestrel Freight Systems' workspace.

At the default size: 60 users (three bots, two deactivated accounts, lookalike names such as
maria.santos and maria.santana), 40 channels (public and private, a few archived incident channels)
and 2,000 messages over ten weeks, a quarter of them threads, some with reactions. The viewer is the
bot ``ops-assistant``, a member of most channels but not of every private one.

Patchable collections: ``users`` (by ``id``), ``channels`` (by ``id``), ``channels.messages`` (by ``ts``).
"""

from __future__ import annotations

import random
from typing import Any

from servers.kit.world import WorldGenerator
from servers.kit.worldtext import fill, people, random_id

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
        "Office will be closed on {day} for the public holiday",
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


def build(rng: random.Random, size: str) -> dict[str, Any]:
    n_users, n_messages = SIZES[size]
    taken: set[str] = set()
    viewer = random_id(rng, "UB", 8, taken)
    users: list[dict[str, Any]] = [
        {"id": viewer, "name": "ops-assistant", "real_name": "Ops Assistant", "title": "Workspace bot", "is_bot": True},
        {"id": random_id(rng, "UB", 8, taken), "name": "deploy-bot", "real_name": "Deploy Bot", "is_bot": True},
        {"id": random_id(rng, "UB", 8, taken), "name": "pagerduty", "real_name": "PagerDuty", "is_bot": True},
    ]
    staff = people(rng, n_users - len(users))
    for i, person in enumerate(staff):
        users.append({"id": random_id(rng, "U", 9, taken), "name": person.handle, "real_name": person.full_name,
                      "title": person.title, "email": person.email, "tz": person.tz,
                      "deleted": i in (7, 23) and size == "default"})
    humans = [u["id"] for u in users[3:] if not u["deleted"]]
    bots = {u["name"]: u["id"] for u in users[:3]}

    channel_rows = CHANNELS if size == "default" else CHANNELS[:8] + CHANNELS[36:39]
    channels = []
    for name, kind, topic, purpose, private, archived in channel_rows:
        members = sorted(rng.sample(humans, k=min(len(humans), rng.randint(4, 24))))
        if name in ("general", "random", "announcements"):
            members = sorted(humans)
        if name != "exec-offsite":
            members = [viewer, *members]
        if kind == "deploy":
            members.append(bots["deploy-bot"])
        if kind in ("sre", "incident"):
            members.append(bots["pagerduty"])
        channels.append({
            "id": random_id(rng, "C", 9, taken), "name": name, "is_private": private, "is_archived": archived,
            "topic": topic, "purpose": purpose, "creator": members[1] if name != "exec-offsite" else members[0],
            "members": members, "messages": [], "_kind": kind,
        })

    weights = [6 if c["_kind"] in ("eng", "sre", "support", "deploy") else 3 for c in channels]
    stamps = sorted(rng.sample(range(0, 70 * 86_400), n_messages))
    for offset in stamps:
        channel = rng.choices(channels, weights)[0]
        ts = f"{START + offset}.{rng.randint(100, 999_999):06d}"
        kind = channel["_kind"]
        authors = [m for m in channel["members"] if m != viewer]
        author = bots["deploy-bot"] if kind == "deploy" and rng.random() < 0.5 else rng.choice(authors)
        tops = [m for m in channel["messages"] if "thread_ts" not in m]
        if tops and rng.random() < 0.28:
            parent = rng.choice(tops[-6:])
            text = fill(rng, rng.choice(REPLIES))
            message: dict[str, Any] = {"ts": ts, "user": author, "text": text, "thread_ts": parent["ts"]}
        else:
            message = {"ts": ts, "user": author, "text": fill(rng, rng.choice(TEMPLATES[kind]))}
        if rng.random() < 0.12:
            reactors = sorted(rng.sample(authors, k=min(len(authors), rng.randint(1, 4))))
            message["reactions"] = [{"name": rng.choice(REACTIONS), "users": reactors}]
        channel["messages"].append(message)
    for channel in channels:
        del channel["_kind"]
    return {"viewer": viewer, "users": users, "channels": channels}


def describe(state: dict[str, Any]) -> dict[str, int]:
    return {"users": len(state["users"]), "channels": len(state["channels"]),
            "messages": sum(len(c.get("messages", [])) for c in state["channels"])}


GENERATOR = WorldGenerator(
    name="slack", version=1, build=build, describe=describe,
    collections={"users": "id", "channels": "id", "channels.messages": "ts"},
)

__all__ = ["GENERATOR"]
