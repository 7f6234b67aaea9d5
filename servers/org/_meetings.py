"""The organisation's meetings: Priya Raman's recurring series (with their moved and cancelled occurrences
and the holidays they skip), one-off meetings about the organisation's customers, projects, incidents,
vendors and candidates, her trips, and the room bookings of everyone else in the week of 16 March.

Times are local to Lisbon (``2026-03-16T10:00``). Rooms are never double-booked."""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta

from servers.org.model import (
    Booking,
    Candidate,
    Customer,
    Employee,
    Exception_,
    Incident,
    Meeting,
    Project,
    Room,
    Rule,
    Series,
    Trip,
    Vendor,
    staffing,
)

FIRST = date(2026, 1, 5)
LAST = date(2026, 6, 26)
NOW_LOCAL = "2026-03-16T09:00"
WEEK = ("2026-03-16", "2026-03-17", "2026-03-18", "2026-03-19", "2026-03-20")
HOLIDAYS = (("New Year's Day", "2026-01-01"), ("Carnival", "2026-02-17"), ("Good Friday", "2026-04-03"),
            ("Easter Sunday", "2026-04-05"), ("Liberty Day", "2026-04-25"), ("Labour Day", "2026-05-01"),
            ("Corpus Christi", "2026-06-04"), ("Portugal Day", "2026-06-10"), ("St Anthony's Day (Lisbon)", "2026-06-13"),
            ("Assumption Day", "2026-08-15"), ("Republic Day", "2026-10-05"), ("All Saints' Day", "2026-11-01"),
            ("Restoration of Independence", "2026-12-01"), ("Immaculate Conception", "2026-12-08"),
            ("Christmas Day", "2026-12-25"))
CARRIERS = ("DHL", "DB Schenker", "Kuehne+Nagel", "DSV", "Maersk", "GLS")
TRIPS = (("Hamburg", "HAM", "2026-02-10", 2, "Hamburg warehouse visit", "hamburg"),
         ("Rotterdam", "RTM", "2026-03-03", 2, "Rotterdam cross-dock visit", None),
         ("Hamburg", "HAM", "2026-03-24", 3, "Hamburg warehouse visit", "hamburg"),
         ("Gdansk", "GDN", "2026-04-21", 2, "Gdansk depot visit", None),
         ("Toronto", "YYZ", "2026-05-12", 4, "Toronto office visit", "toronto"))
#: kind -> (title, description, minutes, wants a room, notes kept where)
KINDS = {
    "qbr": ("{customer} QBR", "Quarterly business review with {customer}: volumes, on-time rate, open escalations, "
            "renewal outlook. Account owner: {owner}.", 60, True, None),
    "renewal": ("{customer} renewal call", "Renewal terms; the contract renews on {renewal}. Pricing, seats and SLA "
                "credits.", 45, False, None),
    "onboarding": ("{customer} onboarding", "Onboarding plan, integrations, go-live date.", 60, True, None),
    "escalation": ("Escalation: {customer}", "{customer} was hit by incident {incident}; what we tell the "
                   "customer.", 30, False, None),
    "incident-review": ("Incident review: {incident}", "Blameless review of incident {incident} ({service}); action "
                        "items. Postmortem owner: {owner}.", 45, True, "drive"),
    "interview": ("Interview: {candidate}", "Panel interview for the {role} role. Scorecard in the hiring tracker.",
                  60, True, None),
    "carrier-sync": ("Carrier sync: {carrier}", "Weekly numbers, claims, capacity for next month.", 30, False, None),
    "carrier-scorecard": ("Carrier scorecard: {carrier}", "Scorecard review: on-time %, damage rate, invoice "
                          "accuracy.", 60, True, "drive"),
    "project": ("Project {project} checkpoint", "Milestone status, risks, decisions needed. Lead: {owner}.", 45, True,
                None),
    "vendor-review": ("Vendor review: {vendor}", "Contract, service levels and the price update.", 30, False, None),
    "coffee": ("Coffee with {person}", "", 30, False, None),
    "capacity": ("Warehouse capacity planning", "Pallet space forecast for Q2, Hamburg and Rotterdam options.", 60,
                 True, "drive"),
    "board-deck": ("Board deck review", "Ops slides for the board deck: on-time delivery, costs per shipment, "
                   "hiring.", 60, True, None),
    "hiring-sync": ("Hiring sync", "Open roles, pipeline, offers.", 30, False, "drive"),
    "customs-workshop": ("Customs documentation workshop", "New EU customs rules and the customs-docs service.", 90,
                         True, None),
    "offsite": ("Offsite planning", "Agenda, venue and travel for the ops offsite.", 45, False, None),
    "forecast": ("Forecast review", "Volume forecast against actuals, by region.", 45, True, "drive"),
}
#: the random kinds and their weights (the others are placed from the organisation's facts)
RANDOM_KINDS = (("qbr", 8), ("carrier-sync", 8), ("carrier-scorecard", 4), ("project", 6), ("vendor-review", 4),
                ("coffee", 4), ("capacity", 3), ("board-deck", 2), ("hiring-sync", 3), ("customs-workshop", 1),
                ("offsite", 1), ("forecast", 3))
ONE_OFFS = {"default": 345, "small": 30}


def _dt(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _fmt(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M")


def plus(start: str, minutes: int) -> str:
    return _fmt(_dt(start) + timedelta(minutes=minutes))


def expand(start: str, rule: Rule, limit_days: int = 400) -> list[str]:
    """Every original start of a series (holidays not yet excluded), as RFC 5545 expands its rule."""
    first = _dt(start)
    horizon = first + timedelta(days=limit_days)
    until = datetime.fromisoformat(rule.until + "T23:59:59") if rule.until else horizon
    out: list[str] = []
    k = 0
    while len(out) < (rule.count or 10_000):
        if rule.freq == "WEEKLY":
            monday = first - timedelta(days=first.weekday()) + timedelta(weeks=k * rule.interval)
            candidates = [monday + timedelta(days=d) for d in sorted(rule.days)]
        else:
            year, month = divmod(first.month - 1 + k * rule.interval, 12)
            day1 = first.replace(year=first.year + year, month=month + 1, day=1)
            assert rule.nth is not None, "a MONTHLY rule names its nth weekday"
            offset = (rule.days[0] - day1.weekday()) % 7
            candidates = [day1 + timedelta(days=offset + 7 * (rule.nth - 1))]
        k += 1
        if candidates[0] > until or candidates[0] > horizon:
            break
        for moment in candidates:
            if moment < first or moment > until or len(out) == (rule.count or 10_000):
                continue
            out.append(_fmt(moment))
    return out


class _Rooms:
    """Who holds which room when: a new meeting gets a room only where it is free."""

    def __init__(self, rooms: tuple[Room, ...]) -> None:
        self.rooms = rooms
        self.held: dict[str, list[tuple[str, str]]] = {r.email: [] for r in rooms}

    def free(self, room: Room, start: str, end: str) -> bool:
        return all(end <= a or b <= start for a, b in self.held[room.email])

    def take(self, room: Room, start: str, end: str) -> None:
        self.held[room.email].append((start, end))

    def pick(self, rng: random.Random, office: str, people: int, start: str, end: str) -> Room | None:
        fits = [r for r in self.rooms if r.office == office and r.capacity >= people and self.free(r, start, end)]
        if not fits:
            return None
        room = rng.choice(fits)
        self.take(room, start, end)
        return room


def build_series(rng: random.Random, size: str, staff: tuple[Employee, ...], rooms: _Rooms) -> tuple[Series, ...]:
    owner = next(e for e in staff if e.name == "Priya Raman")
    by_name = {e.name: e for e in staff}
    ops = [e for e in staff if e.team == "Operations" and e.active and e is not owner and e.started]
    coo = next(e for e in staff if e.title == "Chief operating officer")
    leads = [e for e in staff if e.title in ("Warehouse lead", "Customer success lead") and e.active]
    team = [e.email for e in ops[:4]] + [e.email for e in leads]
    finance = [e for e in staff if e.department == "Finance" and e.active]
    oncall = [e for e in staff if "on-call" in e.flags and e.team == "SRE" and e.active]
    lisbon = [e for e in staff if e.office == "lisbon" and e.active and e is not owner]
    santos, santana = by_name["Maria Santos"], by_name["Maria Santana"]
    notes_line = "Notes in Notion: Meeting Notes > Weekly Ops Review <date>."
    specs = [
        ("ops-review", "primary", "Weekly ops review", "2026-01-05T10:00", 60, Rule("WEEKLY", (0,), until="2026-03-30"),
         team, "On-time delivery, open escalations, carrier issues, staffing. " + notes_line, "Sado", "notion"),
        ("ops-review-tuesdays", "primary", "Weekly ops review", "2026-04-07T10:00", 60,
         Rule("WEEKLY", (1,), until="2026-06-30"), team,
         "Moved to Tuesdays from April. On-time delivery, open escalations, carrier issues, staffing. " + notes_line,
         "Sado", "notion"),
        ("stand-up", "ops", "Ops stand-up", "2026-01-05T09:30", 15, Rule("WEEKLY", (0, 1, 2, 3, 4), until="2026-04-30"),
         [e.email for e in ops[:4]], "Yesterday, today, blockers.", None, None),
        ("one-on-one-santos", "primary", "1:1 Priya / Maria Santos", "2026-01-08T15:00", 30, Rule("WEEKLY", (3,), count=26),
         [santos.email], "Weekly 1:1. Running notes in the shared doc.", None, None),
        ("one-on-one-santana", "primary", "1:1 Priya / Maria Santana", "2026-01-08T11:00", 30,
         Rule("WEEKLY", (3,), interval=2, count=13), [santana.email], "Biweekly 1:1.", None, None),
        ("budget-review", "primary", "Budget review", "2026-01-15T14:00", 60, Rule("MONTHLY", (3,), nth=3, count=6),
         [coo.email] + [e.email for e in finance[:2]],
         "Monthly ops budget against actuals: carriers, warehouses, headcount. Notes on the ops drive (meetings/).",
         "Tejo", "drive"),
        ("on-call-handover", "ops", "On-call handover", "2026-01-09T17:00", 30, Rule("WEEKLY", (4,), until="2026-06-26"),
         [e.email for e in oncall[:4]], "Hand-off notes for the weekend on-call.", None, None),
        ("lunch-and-learn", "ops", "Lunch & learn", "2026-01-16T12:30", 60, Rule("WEEKLY", (4,), interval=2, count=12),
         [e.email for e in rng.sample(lisbon, k=min(8, len(lisbon)))], "Bring your lunch; a colleague presents a topic.",
         "Tejo Annex", None),
        ("focus-time", "primary", "Focus time", "2026-01-06T14:00", 120, Rule("WEEKLY", (1, 3), until="2026-04-30"),
         [], "No meetings please.", None, None),
        ("carrier-scorecards", "primary", "Carrier scorecard review", "2026-01-06T11:00", 60,
         Rule("MONTHLY", (1,), nth=1, count=6), [e.email for e in ops[:4]],
         "Monthly carrier scorecards: on-time, damage, invoice accuracy. Notes on the ops drive (meetings/).",
         "Douro", "drive"),
        ("one-on-one-coo", "primary", f"1:1 Priya / {coo.first}", "2026-01-07T16:00", 30,
         Rule("WEEKLY", (2,), interval=2, until="2026-06-24"), [coo.email], "Biweekly 1:1 with my manager.", None, None),
    ]
    if size == "small":
        specs = specs[:6]
    holidays = {d for _, d in HOLIDAYS}
    out = []
    for key, cal, title, start, minutes, rule, guests, about, where, notes in specs:
        starts = expand(start, rule)
        exdates = tuple(s for s in starts if s[:10] in holidays)
        kept = [s for s in starts if s not in exdates]
        picks = sorted(rng.sample(range(1, len(kept)), k=min(len(kept) - 1, 3 if size == "default" else 1)))
        exceptions = []
        for k, index in enumerate(picks):
            original = kept[index]
            exceptions.append(Exception_(original, None if k == 1 else plus(original, rng.choice((30, 60, 90)))))
        room = None
        if where:
            room = next(r for r in rooms.rooms if r.name == where)
            changed = {e.original: e.start for e in exceptions}
            for s in kept:
                actual = changed.get(s, s)
                if actual is not None:
                    rooms.take(room, actual, plus(actual, minutes))
        out.append(Series(key, title, cal, owner.email, tuple(guests), start, minutes, rule,
                          room.email if room else None, about, notes, exdates, tuple(exceptions), tuple(kept)))
    return tuple(out)


def build_meetings(rng: random.Random, size: str, staff: tuple[Employee, ...], customers: tuple[Customer, ...],
                   vendors: tuple[Vendor, ...], projects: tuple[Project, ...], incidents: tuple[Incident, ...],
                   candidates: tuple[Candidate, ...], rooms: _Rooms) -> tuple[Meeting, ...]:
    owner = next(e for e in staff if e.name == "Priya Raman")
    by_key = {e.key: e for e in staff}
    holidays = {d for _, d in HOLIDAYS}
    every_day = [FIRST + timedelta(days=k) for k in range((LAST - FIRST).days + 1)]
    days = [d.isoformat() for d in every_day if d.weekday() < 5 and d.isoformat() not in holidays]
    twins = {"Maria Santos", "Maria Santana"}
    meetings: list[Meeting] = []
    busy: dict[str, list[tuple[str, str]]] = {"2026-03-18": [("2026-03-18T10:00", "2026-03-18T11:30")]}
    noted: set[tuple[str, str]] = set()

    working: dict[tuple[int, int], list[Employee]] = {}
    staffed = staffing(staff)

    def colleagues(day: str) -> list[Employee]:
        """Who else works on ``day`` (computed once for the days the same people work: the callers only draw
        from it, never change it)."""
        key = staffed(day)
        found = working.get(key)
        if found is None:
            found = working[key] = [e for e in staff if e is not owner and e.employed_on(day) and e.name not in twins]
        return found

    def stand_in(key: str, day: str) -> Employee:
        """The employee ``key``, or after their last day (a hand-over not yet made) their manager."""
        person = by_key[key]
        if person.employed_on(day):
            return person
        assert person.manager is not None, f"{key} has left and has no manager"
        return by_key[person.manager]

    def host(customer: Customer, day: str) -> Employee:
        """The account owner on ``day``, or their ``stand_in``."""
        return stand_in(customer.owner, day)

    def weekday_on_or_after(day: date) -> str:
        while day.weekday() >= 5 or day.isoformat() in holidays:
            day += timedelta(days=1)
        return day.isoformat()

    def add(kind: str, day: str, guests: list[str], subject: str | None, **values: str) -> None:
        title, about, minutes, roomy, notes = KINDS[kind]
        for _ in range(8):  # a time Priya has no other one-off meeting at, if there is one
            hour = rng.choice((8, 9, 10, 11, 13, 14, 15, 16, 17))
            start = f"{day}T{hour:02d}:{rng.choice(('00', '30'))}"
            end = plus(start, minutes)
            if all(end <= a or b <= start for a, b in busy.get(day, ())):
                break
        busy.setdefault(day, []).append((start, end))
        room = rooms.pick(rng, "lisbon", len(guests) + 1, start, end) if roomy and rng.random() < 0.8 else None
        if notes and (day, kind) in noted:  # one notes file per kind and day: the later meeting has none
            notes = None
        noted.add((day, kind))
        calendar = "ops" if rng.random() < 0.15 else "primary"
        meetings.append(Meeting(
            key=f"m{len(meetings) + 1:03d}", kind=kind, title=title.format(**values),
            description=about.format(**values), calendar=calendar, start=start, minutes=minutes,
            organizer=owner.email, attendees=tuple(dict.fromkeys(guests)), room=room.email if room else None,
            tentative=rng.random() < 0.04, notes=notes, subject=subject))

    # The Q1 budget review, the day before the monthly budget review's March occurrence.
    coo = next(e for e in staff if e.title == "Chief operating officer")
    finance = [e for e in staff if e.title in ("Chief financial officer", "Financial controller") and e.active]
    tejo = next(r for r in rooms.rooms if r.name == "Tejo")
    rooms.take(tejo, "2026-03-18T10:00", "2026-03-18T11:30")
    meetings.append(Meeting("m000", "q1-budget", "Q1 budget review", "Q1 close: ops spend against budget, carrier "
                            "rates, Q2 asks.", "primary", "2026-03-18T10:00", 90, owner.email,
                            tuple(e.email for e in [coo, *finance]), tejo.email, False, None, None))
    # From the organisation's facts: reviews and escalations after incidents, renewals before the
    # renewal date, onboardings after a signup, interviews for the operations roles.
    for incident in incidents:
        if incident.resolved and incident.severity in ("SEV1", "SEV2"):
            day = weekday_on_or_after(date.fromisoformat(incident.resolved[:10]) + timedelta(days=rng.randint(3, 6)))
            pm = by_key[incident.postmortem_owner]
            guests = [by_key[incident.commander].email, pm.email]
            guests += [e.email for e in rng.sample(colleagues(day), k=2)]
            add("incident-review", day, guests, str(incident.number), incident=str(incident.number),
                service=incident.service, owner=pm.name)
        for key in incident.customers[:2]:
            customer = next(c for c in customers if c.key == key)
            day = weekday_on_or_after(date.fromisoformat(incident.started[:10]) + timedelta(days=1))
            add("escalation", day, [host(customer, day).email] + [e.email for e in rng.sample(colleagues(day), k=1)],
                customer.key, customer=customer.short, incident=str(incident.number))
    keyed = [c for c in customers if c.key_account and c.duplicate_of is None]
    for customer in keyed:
        if customer.renewal and "2026-01-20" <= customer.renewal <= "2026-07-20" and rng.random() < 0.6:
            day = weekday_on_or_after(date.fromisoformat(customer.renewal) - timedelta(days=rng.randint(14, 35)))
            if str(FIRST) <= day <= str(LAST):
                guests = [host(customer, day).email, customer.contact("billing", day).email]
                add("renewal", day, guests, customer.key, customer=customer.short, renewal=customer.renewal)
        if customer.status == "Onboarding":
            assert customer.signup is not None, f"{customer.key}: an onboarding customer has signed up"
            signed = _day_of(customer.signup)
            day = weekday_on_or_after(max(signed + timedelta(days=rng.randint(5, 20)), FIRST))
            guests = [host(customer, day).email, customer.contact("operations", day).email,
                      customer.contact("it", day).email]
            add("onboarding", day, guests, customer.key, customer=customer.short)
    for candidate in candidates:
        if candidate.role in ("Shift Supervisor Gdansk", "Warehouse Planner Hamburg", "Operations Coordinator") \
                and candidate.stage in ("Onsite", "Offer", "Hired"):
            day = weekday_on_or_after(max(date.fromisoformat(candidate.applied) + timedelta(days=rng.randint(14, 30)),
                                          FIRST))
            guests = [by_key[k].email for k in candidate.interviewers if by_key[k].employed_on(day)]
            add("interview", day, guests or [by_key[candidate.recruiter].email], candidate.name,
                candidate=candidate.name, role=candidate.role)
    # The rest of the calendar: customer reviews, carriers, projects, vendors, colleagues.
    weights = [w for _, w in RANDOM_KINDS]
    billed_vendors = [v for v in vendors if v.status != "Terminated"][:12]
    kinds = [k for k, _ in RANDOM_KINDS]
    reviewed = [c for c in keyed if c.status in ("Active", "At risk")]
    while len(meetings) < ONE_OFFS[size]:
        kind = rng.choices(kinds, weights)[0]
        day = rng.choice(days)
        others = colleagues(day)
        if kind == "qbr":
            customer = rng.choice(reviewed)
            guests = [host(customer, day).email, customer.contact("operations", day).email]
            guests += [e.email for e in rng.sample(others, k=rng.randint(0, 2))]
            add(kind, day, guests, customer.key, customer=customer.short, owner=host(customer, day).name)
        elif kind == "project":
            project = rng.choice(projects)
            team = [by_key[k] for k in project.members if by_key[k].employed_on(day)]
            guests = [e.email for e in rng.sample(team, k=min(len(team), rng.randint(2, 4)))]
            add(kind, day, guests, project.key, project=project.codename, owner=by_key[project.lead].name)
        elif kind == "vendor-review":
            vendor = rng.choice(billed_vendors)
            keeper = stand_in(vendor.owner, day)
            add(kind, day, [keeper.email, vendor.email], vendor.key, vendor=vendor.name)
        elif kind == "coffee":
            person = rng.choice(others)
            add(kind, day, [person.email], person.key, person=person.name)
        elif kind in ("carrier-sync", "carrier-scorecard"):
            guests = [e.email for e in rng.sample(others, k=rng.randint(1, 3))]
            carrier = rng.choice(CARRIERS)
            add(kind, day, guests, carrier, carrier=carrier)
        else:
            guests = [e.email for e in rng.sample(others, k=rng.randint(2, 5))]
            add(kind, day, guests, None)
    meetings.sort(key=lambda m: (m.start, m.key))
    return tuple(meetings)


def _day_of(unix: int) -> date:
    return date(1970, 1, 1) + timedelta(days=unix // 86_400)


def build_bookings(rng: random.Random, staff: tuple[Employee, ...], customers: tuple[Customer, ...],
                   rooms: _Rooms) -> tuple[Booking, ...]:
    """Everyone else's bookings of every room in the week of 16 March, in the slots still free."""
    slots = [f"{h:02d}:{m:02d}" for h in range(8, 19) for m in (0, 30)]
    shorts = [c.short for c in customers if c.key_account]
    out = []
    for room in rooms.rooms:
        local = [e for e in staff if e.office == room.office and e.active] or [e for e in staff if e.active]
        for day in WEEK:
            for _ in range(rng.choice((0, 1, 1, 2))):
                at = rng.randrange(0, len(slots) - 4)
                start, end = f"{day}T{slots[at]}", f"{day}T{slots[at + rng.choice((2, 3, 4))]}"
                title = rng.choice((f"{rng.choice(shorts)} call", "Team sync", "Interview", "Planning", "1:1"))
                if rooms.free(room, start, end):
                    rooms.take(room, start, end)
                    out.append(Booking(room.email, start, end, title, rng.choice(local).key))
    return tuple(out)


def build_trips(rng: random.Random, size: str, staff: tuple[Employee, ...]) -> tuple[Trip, ...]:
    out = []
    for city, airport, first, days, visit, office in TRIPS[: len(TRIPS) if size == "default" else 2]:
        local = [e for e in staff if (e.office == office if office else e.team == "Warehouse")
                 and e.employed_on(first) and e.name != "Priya Raman"]
        team = rng.sample(local, k=min(len(local), rng.randint(2, 4)))
        out.append(Trip(city, airport, first, days, visit, tuple(e.email for e in team)))
    return tuple(out)


def rooms_book(rooms: tuple[Room, ...]) -> _Rooms:
    return _Rooms(rooms)


__all__ = ["CARRIERS", "HOLIDAYS", "KINDS", "NOW_LOCAL", "WEEK", "build_bookings", "build_meetings", "build_series",
           "build_trips", "expand", "plus", "rooms_book"]
