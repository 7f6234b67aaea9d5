"""The calendar world: the Google calendars of Priya Raman, operations manager at Kestrel Freight Systems.

At the default size: 4 calendars (her primary one, the shared "Operations team" calendar, "Travel" and
Portugal's public holidays), about 400 stored events from January to June 2026: weekly and biweekly
recurring series (the ops review, stand-ups, 1:1s, a monthly budget review) with exceptions (moved and
cancelled occurrences, EXDATEs on holidays), customer calls, carrier syncs, interviews, trips, focus time.
Attendees come from the company directory (41 people, with the lookalikes Maria Santos and Maria
Santana, Jon and John Berg, ...) and rooms are booked by inviting them (Lisbon HQ's Tejo and Tejo Annex,
Hamburg's Elbe, ...). Lookalike events occur as they do in real calendars: "Q1 budget review" next to the
monthly "Budget review", a 1:1 with each Maria on the same Thursday, two Hamburg trips. ``now`` is
Monday 16 March 2026, 09:00 Lisbon time.

Version 2 projects the organisation (``servers/org``): its directory (the 113 people who work there
today), its 22 rooms in five offices, Priya's eleven series (the weekly ops review moves from Mondays
to Tuesdays in April: two series) with their moved and cancelled occurrences, her trips, and about 350
one-off meetings from the organisation's facts: reviews and escalations after incidents with the
customers they hit, renewal calls before each renewal date with the account owner and the billing
contact, QBRs with the customer's operations contact, onboardings, interviews of the hiring
pipeline's candidates, vendor reviews, project checkpoints. A held meeting's description says where
its notes are (the ops drive's ``meetings/``; the weekly ops review's in Notion).

Patchable collections: ``calendars``, ``events`` (by ``id``), ``people``, ``rooms`` (by ``email``);
``set`` may change ``now``, ``owner`` and ``time_zone``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import date, datetime, timedelta
from functools import partial
from typing import Any

from servers.calendar.recur import DAYS
from servers.kit.world import versions
from servers.kit.worldtext import CUSTOMERS, DOMAIN, PROJECTS, SERVICES, people
from servers.org import CARRIERS, Organisation, cast, plus
from servers.org import HOLIDAYS as PT_HOLIDAYS
from servers.org import TRIPS as ORG_TRIPS
from servers.org.model import Series

OWNER = f"priya.raman@{DOMAIN}"
OPS = f"c_ops7k2m9q4x@group.calendar.{DOMAIN}"
TRAVEL = f"c_travel3h8w2p@group.calendar.{DOMAIN}"
HOLIDAYS = "en.portuguese#holiday@group.v.calendar.google.com"
NOW = "2026-03-16T09:00"
FIRST = date(2026, 1, 5)
LAST = date(2026, 6, 26)
SIZES = {"default": 345, "small": 30}

ROOMS = (("Tejo", "Lisbon HQ", 8), ("Tejo Annex", "Lisbon HQ", 14), ("Douro", "Lisbon HQ", 6),
         ("Mondego", "Lisbon HQ", 4), ("Sado", "Lisbon HQ", 12), ("Elbe", "Hamburg warehouse", 10),
         ("Alster", "Hamburg warehouse", 4), ("Don", "Toronto office", 6))
HOLIDAY_DAYS = PT_HOLIDAYS  # Portugal's, where the HQ is (the organisation's list)
#: (title, description, minutes, attendees (min, max), room?) for one-off meetings; {customer}, {carrier},
#: {project}, {service}, {person} are filled in.
MEETINGS = (
    ("{customer} QBR", "Quarterly business review: volumes, on-time rate, open escalations, renewal outlook.", 60, (2, 5), True),
    ("{customer} renewal call", "Renewal terms for 2026; pricing, seats and SLA credits.", 45, (1, 3), False),
    ("Carrier sync: {carrier}", "Weekly numbers, claims, capacity for next month.", 30, (1, 3), False),
    ("Carrier scorecard: {carrier}", "Scorecard review: on-time %, damage rate, invoice accuracy.", 60, (2, 4), True),
    ("Interview: shift supervisor Gdansk", "Panel interview. Scorecard in the hiring tracker.", 60, (1, 2), True),
    ("Interview: warehouse planner Hamburg", "Second round, case study on slotting.", 45, (1, 2), False),
    ("Project {project} checkpoint", "Milestone status, risks, decisions needed.", 45, (3, 6), True),
    ("Warehouse capacity planning", "Pallet space forecast for Q2, Hamburg and Rotterdam options.", 60, (3, 6), True),
    ("Vendor review: {vendor}", "Contract, service levels and the price update.", 30, (1, 3), False),
    ("Incident review: {service}", "Blameless review of last week's incident; action items.", 45, (3, 7), True),
    ("Coffee with {person}", "", 30, (1, 1), False),
    ("Board deck review", "Ops slides for the board deck: on-time delivery, costs per shipment, hiring.", 60, (2, 4), True),
    ("Hiring sync", "Open roles, pipeline, offers.", 30, (2, 3), False),
    ("{customer} onboarding", "Onboarding plan, integrations, go-live date.", 60, (2, 4), True),
    ("Customs documentation workshop", "New EU customs rules and the customs-docs service.", 90, (4, 8), True),
    ("Offsite planning", "Agenda, venue and travel for the ops offsite.", 45, (2, 4), False),
    ("Escalation: {customer}", "Late shipments this week; what we tell the customer.", 30, (2, 4), False),
    ("Forecast review", "Volume forecast against actuals, by region.", 45, (2, 4), True),
)
VENDORS = ("Harbour Print Co", "Nimbus Cloud", "FleetFuel", "Lisbon Workspace", "Atlas Catering")
#: (city, first day, days, with a site visit) of Priya's trips, and the airports (the organisation's).
TRIPS = tuple((city, first, days, visit) for city, _, first, days, visit, _ in ORG_TRIPS)
AIRPORTS = {city: code for city, code, *_ in ORG_TRIPS}


def _event_id(rng: random.Random, taken: set[str]) -> str:
    alphabet = "abcdefghijklmnopqrstuv0123456789"
    while True:
        ident = "".join(rng.choice(alphabet) for _ in range(26))
        if ident not in taken:
            taken.add(ident)
            return ident


def _t(day: date, hhmm: str) -> str:
    return f"{day.isoformat()}T{hhmm}"


def _plus(start: str, minutes: int) -> str:
    return (datetime.fromisoformat(start) + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M")


def _guests(rng: random.Random, emails: list[str], lo: int, hi: int, accepted: float = 0.7) -> list[dict[str, Any]]:
    out = []
    for email in rng.sample(emails, k=rng.randint(lo, hi)):
        roll = rng.random()
        status = "accepted" if roll < accepted else "tentative" if roll < accepted + 0.1 else \
            "declined" if roll < accepted + 0.15 else "needsAction"
        out.append({"email": email, "response_status": status})
    return out


class _Calendar:
    """The events being built: ``add`` stores one (its id drawn from ``rng``), ``room`` books a room."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.taken: set[str] = set()
        self.events: list[dict[str, Any]] = []

    def add(self, calendar: str, title: str, start: str, end: str, **extra: Any) -> dict[str, Any]:
        event = {"id": _event_id(self.rng, self.taken), "calendar_id": calendar, "title": title, "start": start,
                 "end": end, "description": "", "location": "", "attendees": [], **extra}
        if "T" in start and calendar != HOLIDAYS:
            event.setdefault("organizer", OWNER)
        self.events.append(event)
        return event

    @staticmethod
    def room(event: dict[str, Any], which: dict[str, Any]) -> None:
        event["location"] = f"{which['building']} · {which['name']}"
        event["attendees"].append({"email": which["email"], "response_status": "accepted", "resource": True})

    def holidays(self, days: tuple[tuple[str, str], ...]) -> None:
        """Public holidays (all-day, on the holidays calendar)."""
        for name, day in days:
            self.add(HOLIDAYS, name, day, (date.fromisoformat(day) + timedelta(days=1)).isoformat(),
                     description="Public holiday in Portugal")

    def series(self, spec: tuple, rooms: list[dict[str, Any]], changes: Callable[[list[datetime]], list]) -> None:
        """One recurring series (``spec``: calendar, title, start, minutes, RRULE, guests, description, room
        name) with EXDATEs on holidays and the exceptions ``changes(kept starts)`` gives: (index of the
        occurrence, its new start or None for a cancelled one)."""
        from servers.calendar import recur

        rng = self.rng
        calendar, title, start, minutes, rule, guests, about, where = spec
        lines = [rule]
        series = self.add(calendar, title, start, _plus(start, minutes), description=about, recurrence=lines,
                          attendees=[{"email": g, "response_status": rng.choice(("accepted", "accepted", "tentative"))}
                                     for g in guests])
        if where:
            self.room(series, next(r for r in rooms if r["name"] == where))
        holidays = {d for _, d in HOLIDAY_DAYS}
        parsed = recur.parse(lines)
        assert parsed is not None, "lines holds the series' RRULE"
        starts = recur.occurrences(datetime.fromisoformat(start), parsed)
        skipped = [s for s in starts if s.date().isoformat() in holidays]
        if skipped:
            lines.append("EXDATE:" + ",".join(s.strftime("%Y%m%dT%H%M%S") for s in skipped))
        kept = [s for s in starts if s not in skipped]
        for index, moved in changes(kept):
            moment = kept[index].strftime("%Y-%m-%dT%H:%M")
            exception = {**{key: series[key] for key in ("calendar_id", "title", "description", "location", "organizer")},
                         "attendees": [dict(a) for a in series["attendees"]],
                         "id": recur.instance_id(series["id"], moment), "recurring_event_id": series["id"],
                         "original_start": moment}
            if moved is None:  # a cancelled occurrence
                exception.update(start=moment, end=_plus(moment, minutes), status="cancelled")
            else:  # moved
                exception.update(start=moved, end=_plus(moved, minutes))
            self.events.append(exception)
            self.taken.add(exception["id"])

    def trip(self, city: str, first: str, days: int, visit: str, code: str, guests: Callable[[], list],
             rooms: list[dict[str, Any]]) -> None:
        """Flights, hotel and a site visit with the local team, on the travel calendar."""
        rng = self.rng
        day = date.fromisoformat(first)
        back = day + timedelta(days=days - 1)
        self.add(TRAVEL, f"Flight LIS → {code} TP {rng.randint(500, 1999)}", _t(day, "07:05"), _t(day, "10:40"),
                 location="Lisbon Airport (LIS)", description=f"Booking ref {rng.choice('BCDFGHJKLMNPQRSTVWXZ')}"
                 f"{rng.randint(10000, 99999)}, seat {rng.randint(3, 30)}C")
        self.add(TRAVEL, f"Hotel: {city}", day.isoformat(), (back + timedelta(days=1)).isoformat(),
                 description=f"{days - 1} night(s), confirmation {rng.randint(100000, 999999)}")
        site = self.add(TRAVEL, visit, _t(day + timedelta(days=1 if days > 2 else 0), "13:00"),
                        _t(day + timedelta(days=1 if days > 2 else 0), "17:00"),
                        attendees=guests(), description=f"Walkthrough with the {city} team.")
        if city == "Hamburg":
            self.room(site, next(r for r in rooms if r["name"] == "Elbe"))
        self.add(TRAVEL, f"Flight {code} → LIS TP {rng.randint(500, 1999)}", _t(back, "18:20"), _t(back, "21:55"),
                 location=f"{city} Airport ({code})")

    def state(self, people: list[dict[str, Any]], rooms: list[dict[str, Any]]) -> dict[str, Any]:
        self.events.sort(key=lambda e: (e["start"], e["id"]))
        calendars = [
            {"id": OWNER, "name": "Priya Raman", "description": "", "primary": True},
            {"id": OPS, "name": "Operations team", "description": "Shared calendar of the operations team", "primary": False},
            {"id": TRAVEL, "name": "Travel", "description": "Flights, hotels and site visits", "primary": False},
            {"id": HOLIDAYS, "name": "Holidays in Portugal", "description": "Public holidays in Portugal", "primary": False},
        ]
        return {"owner": OWNER, "time_zone": "Europe/Lisbon", "now": NOW, "calendars": calendars, "events": self.events,
                "people": people, "rooms": rooms}


#: The two lookalikes version 1 holds weekly and biweekly 1:1s with (``build``).
_ONE_TO_ONES = ("Maria Santos", "Maria Santana")


def build(rng: random.Random, size: str) -> dict[str, Any]:
    """Version 1: a directory drawn from the shared name pools, meetings drawn from templates."""
    drawn = [p for p in people(rng, 41) if p.email != OWNER]
    # 41 drawn without the owner: the last is left out. Where that was one of the two people the 1:1 series
    # below need, the seed had no world (a KeyError: 84 of seeds 0-999 in both sizes); the last of the
    # others is left out instead, so every world this version built before stays as it was.
    spare = max(i for i, p in enumerate(drawn) if p.full_name not in _ONE_TO_ONES)
    staff = [p for i, p in enumerate(drawn) if i != spare] if len(drawn) > 40 else drawn
    directory = [{"email": OWNER, "name": "Priya Raman", "title": "Operations manager", "department": "Operations"}]
    directory += [{"email": p.email, "name": p.full_name, "title": p.title, "department": p.department} for p in staff]
    emails = [p.email for p in staff]
    by_name = {p.full_name: p.email for p in staff}
    rooms = [{"email": f"room-{name.lower().replace(' ', '-')}@resource.{DOMAIN}", "name": name, "building": building,
              "capacity": capacity} for name, building, capacity in ROOMS]
    lisbon = [r for r in rooms if r["building"] == "Lisbon HQ"]
    out = _Calendar(rng)
    add, room = out.add, out.room
    out.holidays(HOLIDAY_DAYS[: len(HOLIDAY_DAYS) if size == "default" else 5])

    # Recurring series, each with a few exceptions.
    team = rng.sample(emails, k=6)
    santos, santana = (by_name[name] for name in _ONE_TO_ONES)
    series_specs = [
        (OWNER, "Weekly ops review", "2026-01-05T10:00", 60, "RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20260629T235959Z",
         team, "On-time delivery, open escalations, carrier issues, staffing. Notes in the ops review doc.", "Sado"),
        (OPS, "Ops stand-up", "2026-01-05T09:30", 15, "RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;UNTIL=20260430T235959Z",
         team[:4], "Yesterday, today, blockers.", None),
        (OWNER, "1:1 Priya / Maria Santos", "2026-01-08T15:00", 30, "RRULE:FREQ=WEEKLY;INTERVAL=1;BYDAY=TH;COUNT=26",
         [santos], "Weekly 1:1. Running notes in the shared doc.", None),
        (OWNER, "1:1 Priya / Maria Santana", "2026-01-08T11:00", 30, "RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TH;COUNT=13",
         [santana], "Biweekly 1:1.", None),
        (OWNER, "Budget review", "2026-01-15T14:00", 60, "RRULE:FREQ=MONTHLY;BYDAY=3TH;COUNT=6",
         rng.sample(emails, k=3), "Monthly ops budget against actuals: carriers, warehouses, headcount.", "Tejo"),
        (OPS, "On-call handover", "2026-01-09T17:00", 30, "RRULE:FREQ=WEEKLY;BYDAY=FR;UNTIL=20260626T235959Z",
         team[2:], "Hand-off notes for the weekend on-call.", None),
        (OPS, "Lunch & learn", "2026-01-16T12:30", 60, "RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=FR;COUNT=12",
         rng.sample(emails, k=8), "Bring your lunch; a colleague presents a topic.", "Tejo Annex"),
        (OWNER, "Focus time", "2026-01-06T14:00", 120, "RRULE:FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20260430T235959Z",
         [], "No meetings please.", None),
        (OWNER, "Carrier scorecard review", "2026-01-06T11:00", 60, "RRULE:FREQ=MONTHLY;BYDAY=1TU;COUNT=6",
         rng.sample(emails, k=4), "Monthly carrier scorecards: on-time, damage, invoice accuracy.", "Douro"),
    ]
    if size == "small":
        series_specs = series_specs[:5]

    def changes(kept: list[datetime]) -> list[tuple[int, str | None]]:
        picks = rng.sample(range(1, len(kept)), k=min(len(kept) - 1, 3 if size == "default" else 1))
        out: list[tuple[int, str | None]] = []
        for k, index in enumerate(sorted(picks)):
            if k == 1:  # a cancelled occurrence
                out.append((index, None))
            else:  # moved later the same day
                moment = kept[index].strftime("%Y-%m-%dT%H:%M")
                out.append((index, _plus(moment, rng.choice((30, 60, 90)))))
        return out

    for spec in series_specs:
        out.series(spec, rooms, changes)

    # Trips on the travel calendar: flights, hotel, a site visit with the local team.
    for city, first, days, visit in TRIPS[: len(TRIPS) if size == "default" else 2]:
        out.trip(city, first, days, visit, AIRPORTS[city], lambda: _guests(rng, emails, 2, 4), rooms)

    # One-off meetings on weekdays, mostly in the primary calendar.
    holidays = {d for _, d in HOLIDAY_DAYS}
    every_day = [FIRST + timedelta(days=k) for k in range((LAST - FIRST).days + 1)]
    weekdays = [d for d in every_day if d.weekday() < 5 and d.isoformat() not in holidays]
    others = [e for e in emails if e not in (santos, santana)]
    for _ in range(SIZES[size]):
        title, about, minutes, (lo, hi), roomy = rng.choice(MEETINGS)
        day = rng.choice(weekdays)
        hhmm = f"{rng.choice((8, 9, 10, 11, 13, 14, 15, 16, 17))}:{rng.choice(('00', '30'))}".zfill(5)
        person = rng.choice(staff)
        values = {"customer": rng.choice(CUSTOMERS), "carrier": rng.choice(CARRIERS), "project": rng.choice(PROJECTS),
                  "service": rng.choice(SERVICES), "vendor": rng.choice(VENDORS), "person": person.full_name}
        start = _t(day, hhmm)
        guests = [{"email": person.email, "response_status": "accepted"}] if "{person}" in title else \
            _guests(rng, others, lo, hi)
        calendar = OPS if rng.random() < 0.15 else OWNER
        event = add(calendar, title.format(**values), start, _plus(start, minutes), description=about.format(**values),
                    attendees=guests, status="tentative" if rng.random() < 0.04 else "confirmed")
        if roomy and rng.random() < 0.8:
            room(event, rng.choice(lisbon))
    # The Q1 budget review, the day before the monthly one's March occurrence.
    q1 = add(OWNER, "Q1 budget review", "2026-03-18T10:00", "2026-03-18T11:30",
             description="Q1 close: ops spend against budget, carrier rates, Q2 asks.",
             attendees=_guests(rng, others, 3, 4, accepted=1.0))
    room(q1, next(r for r in rooms if r["name"] == "Tejo"))
    return out.state(directory, rooms)


def _answers(rng: random.Random, emails: tuple[str, ...]) -> list[dict[str, Any]]:
    """How the invited answered: mostly accepted, some tentative, declined or not yet."""
    out = []
    for email in emails:
        roll = rng.random()
        status = "accepted" if roll < 0.7 else "tentative" if roll < 0.8 else "declined" if roll < 0.85 else "needsAction"
        out.append({"email": email, "response_status": status})
    return out


def _rrule(series: Series) -> str:
    rule = series.rule
    days = ",".join(f"{rule.nth}{DAYS[d]}" if rule.nth else DAYS[d] for d in rule.days)
    line = f"RRULE:FREQ={rule.freq};" + (f"INTERVAL={rule.interval};" if rule.interval > 1 else "") + f"BYDAY={days}"
    if rule.count:
        return line + f";COUNT={rule.count}"
    assert rule.until is not None, f"{series.key}: a rule without a count ends on a day"
    return line + f";UNTIL={rule.until.replace('-', '')}T235959Z"


def _exceptions(series: Series) -> Callable[[list[datetime]], list[tuple[int, str | None]]]:
    """The changed occurrences of ``series`` as ``_Calendar.series`` takes them: (index of the original
    start, the new start or None for a cancelled one)."""
    at = {start: i for i, start in enumerate(series.occurrences)}
    changed = [(at[e.original], e.start) for e in series.exceptions]
    return lambda kept: changed


def build_v2(rng: random.Random, size: str, org: Organisation) -> dict[str, Any]:
    """Version 2: Priya Raman's calendars as the organisation holds them: its directory (everyone who
    works here today), its rooms in every office, her series with their moved and cancelled occurrences,
    her trips, and her one-off meetings with the organisation's customers' contacts, colleagues,
    candidates and vendors; a held meeting's description says where its notes are."""
    me = org.owner
    directory = [{"email": e.email, "name": e.name, "title": e.title, "department": e.department}
                 for e in [me] + [e for e in org.active if e is not me]]
    buildings = {o.key: o.building for o in org.offices}
    rooms = [{"email": r.email, "name": r.name, "building": buildings[r.office], "capacity": r.capacity}
             for r in org.rooms]
    by_email = {r["email"]: r for r in rooms}
    calendars = {"primary": OWNER, "ops": OPS}
    out = _Calendar(rng)
    out.holidays(org.holidays[: len(org.holidays) if size == "default" else 5])
    for series in org.series:
        spec = (calendars[series.calendar], series.title, series.start, series.minutes, _rrule(series),
                list(series.attendees), series.description, by_email[series.room]["name"] if series.room else None)
        out.series(spec, rooms, _exceptions(series))
    for trip in org.trips:
        out.trip(trip.city, trip.first, trip.days, trip.visit, trip.airport, partial(_answers, rng, trip.team), rooms)
    for meeting in org.meetings:
        about = meeting.description
        if meeting.notes_path and meeting.start < NOW:
            about += f" Notes: ops drive, {meeting.notes_path}"
        event = out.add(calendars[meeting.calendar], meeting.title, meeting.start, plus(meeting.start, meeting.minutes),
                        description=about, attendees=_answers(rng, meeting.attendees),
                        status="tentative" if meeting.tentative else "confirmed")
        if meeting.room:
            out.room(event, by_email[meeting.room])
    return out.state(directory, rooms)


def describe(state: dict[str, Any]) -> dict[str, int]:
    events = state["events"]
    return {"calendars": len(state["calendars"]), "events": len(events),
            "series": sum(bool(e.get("recurrence")) for e in events),
            "exceptions": sum(e.get("recurring_event_id") is not None for e in events),
            "people": len(state["people"]), "rooms": len(state["rooms"])}


COLLECTIONS = {"calendars": "id", "events": "id", "people": "email", "rooms": "email"}
GENERATORS = versions("calendar", COLLECTIONS, describe, build, (build_v2, cast))
GENERATOR = GENERATORS[-1]

__all__ = ["GENERATOR", "GENERATORS"]
