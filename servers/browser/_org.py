"""The intranet's version 2: the organisation's intranet (``servers/org``), signed in as Priya Raman.

Every policy with every dated version (current ones first, the versions they replaced kept as
archived pages), news from the organisation's facts (each new policy version, the last incident
reviews, the April starters), the service status (degraded where an incident is still monitored),
cost centres per department, the meeting rooms of the five offices with this week's bookings (Priya's
meetings, her series and everyone else's), the approved suppliers (the organisation's active vendors,
ten a page) and the staff directory: everyone who works here today, with their real manager, office
and phone.
"""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

from servers.browser._site import (
    WEEK,
    Me,
    Person,
    events_pages,
    finance_pages,
    home_pages,
    hr_pages,
    it_pages,
    people_pages,
    procurement_pages,
    room_pages,
    site,
)
from servers.org import Organisation, plus


def _policies(org: Organisation) -> tuple[list[tuple[str, str, str]], str]:
    """(slug, title, text) of every policy version, the current ones first; and the holiday policy's slug."""
    current: list[tuple[str, str, str]] = []
    archived: list[tuple[str, str, str]] = []
    for policy in org.policies:
        for version in policy.versions:
            several = len(policy.versions) > 1
            slug = f"{policy.slug}-{version.label}" if several else policy.slug
            now = version is policy.current
            title = (f"{policy.title} {version.label}" if several else policy.title) + ("" if now else " (archived)")
            (current if now else archived).append((slug, title, policy.text(version)))
    holiday = org.policy("holiday")
    return current + archived, f"holiday-{holiday.current.label}"


def _news(org: Organisation) -> list[tuple[str, str, str]]:
    dated = []
    for policy in org.policies:
        for version in policy.versions[1:]:
            if "2026-01-01" <= version.effective <= org.now[:10]:
                dated.append((version.effective, f"{policy.slug}-{version.label}", f"{policy.title} {version.label} published",
                              f"The {version.label} {policy.title.lower()} applies from {version.effective}; the earlier "
                              f"version is archived. See HR > Policies."))
    for incident in [i for i in org.incidents if i.resolved][-2:]:
        assert incident.resolved is not None  # the filter above
        minutes = int((datetime.fromisoformat(incident.resolved[:16]) - datetime.fromisoformat(incident.started[:16]))
                      .total_seconds() // 60)
        dated.append((incident.resolved[:10], f"incident-{incident.number}", f"Incident review: {incident.service}",
                      f"The {incident.service} outage on {incident.started[:10]} ({incident.severity}) lasted {minutes} "
                      f"minutes. The postmortem is in Notion: Postmortem: incident {incident.number}."))
    starters = [e for e in org.employees if not e.started]
    if starters:
        dated.append(("2026-03-09", "april-starters", "Welcome to our April starters",
                      "Joining in April: " + "; ".join(f"{e.name}, {e.title} ({e.team}), from {e.start}" for e in starters)
                      + "."))
    dated += [("2026-02-02", "lisbon-rooms", "New meeting rooms in Lisbon",
               "The Lisbon office opened its refurbished meeting rooms; book them under Facilities > Meeting rooms."),
              ("2026-01-20", "cold-chain-workshop", "Cold Chain workshop: registration open",
               "Two runs this year, Lisbon in May and Berlin in September. Register under Events > Workshops."),
              ("2026-01-12", "expense-tool", "Expense claims move to the intranet",
               "Paper expense forms are retired. Claim expenses and mileage under Finance.")]
    return [(slug, title, text) for _, slug, title, text in sorted(dated, reverse=True)]


def _rooms(org: Organisation) -> list[dict]:
    """Each room's bookings this week: Priya's meetings and series occurrences there, and everyone else's."""
    held: dict[str, list[tuple[str, str, str, str]]] = {r.email: [] for r in org.rooms}
    for booking in org.bookings:
        held[booking.room].append((booking.start[:10], booking.start[11:], booking.end[11:], booking.title))
    for meeting in org.meetings:
        if meeting.room and meeting.start[:10] in WEEK:
            end = plus(meeting.start, meeting.minutes)
            held[meeting.room].append((meeting.start[:10], meeting.start[11:], end[11:], meeting.title))
    for series in org.series:
        if series.room:
            for start in series.held(before="2026-03-21"):
                if start[:10] in WEEK:
                    held[series.room].append((start[:10], start[11:], plus(start, series.minutes)[11:], series.title))
    offices = []
    for office in org.offices:
        rooms = [(r.name, r.capacity, r.video, sorted(held[r.email])) for r in org.rooms if r.office == office.key]
        offices.append((office.key, office.city, rooms))
    return room_pages(offices)


def _staff(org: Organisation) -> list[Person]:
    rows = []
    for e in org.active:
        manager = org.employee(e.manager) if e.manager else None
        office = org.office(e.office)
        head = manager is not None and manager.manager is None and e.department != manager.department
        rows.append(Person(e.name, e.handle, e.title, e.department, office.city if office else f"Remote ({e.tz})",
                           e.email, e.phone, (manager.name, manager.handle) if manager else None,
                           "head" if head else ""))
    return rows


def build_v2(rng: random.Random, size: str, org: Organisation) -> dict[str, Any]:
    owner = org.owner
    me = Me(owner.name, owner.title, owner.department, owner.email)
    policies, holiday = _policies(org)
    pages = home_pages(me, _news(org)) + hr_pages(me, policies, holiday)
    departments = sorted({e.department for e in org.active})
    centres = [(f"CC-{100 + 10 * i + rng.randint(0, 9)}", d) for i, d in enumerate(departments)]
    mileage = org.policy("expenses").current.facts["mileage_eur_km"]
    pages += finance_pages(centres, f"{mileage:.2f} EUR per km")
    monitored = {i.service: i.number for i in org.incidents if i.resolved is None}
    status = "\n".join(f"{s.name}: degraded (incident {monitored[s.name]})" if s.name in monitored else
                       f"{s.name}: operational" for s in org.services)
    pages += it_pages(me, [s.name for s in org.services], status) + _rooms(org)
    suppliers = [(v.name, v.city, v.category, v.supplier_number, v.terms_days)
                 for v in sorted(org.vendors, key=lambda v: v.name) if v.approved]
    second = org.policy("purchasing").current.facts["second_approver_above_eur"]
    pages += procurement_pages(suppliers, tuple(sorted({v.category for v in org.vendors})), f"{second:,} EUR")
    pages += events_pages(rng) + people_pages(_staff(org))
    return site(pages)


__all__ = ["build_v2"]
