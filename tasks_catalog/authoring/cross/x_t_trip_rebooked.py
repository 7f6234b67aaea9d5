"""x-t-trip-rebooked: the travel agency rebooked Priya's March trip to Hamburg one to three weeks later (a
planted mail in her box, beside the agency's confirmation of the February trip to Hamburg). Her travel
calendar's four entries of the March trip move with it: both flights and the hotel stay as the mail says,
and the warehouse visit on the same day of the trip; the February trip's identical entries stay. The
people she meets there are told by email (the room booked for the visit is not a person). Version 2: a
colleague who declined the visit is not someone she meets there, so telling them is allowed, not asked
(version 1 failed a solver who wrote only to those who accepted or were tentative; calibration round 5).

Version 3 (round 10): the goal asks that the people be told as Priya has done before, and the world holds
her six earlier rebooked trips of December and January (:data:`PAST`): each the agency's mail "Your trip to
<city> has been rebooked", its four entries on the Travel calendar at the new dates, and Priya's email to
the visit's colleagues "<visit> moves to <day>". The emails of the three trips whose rebooking charged a fare
difference to the company card copy her manager (the COO); the other three, whose mail says nothing was
charged, copy nobody. The fare line closes the agency's mail, past the snippet a search shows, and the copy
is only in ``cc``, which ``gmail__search_emails`` does not return: both are seen only by opening. The new
rebooking charged a fare difference, so its email copies the manager. :data:`READINGS` holds the other
readings a person might form of when to copy (always, never, by the city, the trip's length, its month, the
size of the team, a colleague on it); a case where one fits every example and would treat the new trip
otherwise is not kept. The reference (22 calls) reads the new mail and all six earlier mails and emails.

Version 4 (round 10, second wave): which three earlier trips were charged (and so copied) is drawn per case
(:func:`_fares`), no longer the same in every case. In version 3 the only earlier Hamburg trip, the example
most like the new one, was uncopied in every case, so a solver who opened just that one was always led to
leave the manager off; now it is copied in some cases and not in others.
"""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta
from typing import Any

from tasks_catalog.authoring.cross import org, world
from tasks_catalog.authoring.cross._x_t_people import PRIMARY, calendar_tools, call, people_template, solved
from tasks_catalog.authoring.cross._x_t_readings import Always, FlaggedSide, FlaggedWhen, left_open

TRIP = ("Hamburg", "HAM", "2026-03-24")
AGENCY = "bookings@skyway.example"
CHARGED = "The fare difference was charged to the company card."
UNCHARGED = "The new fares are the same as the old ones: nothing was charged."

#: Priya's earlier rebooked trips: the city, the trip's first day and length after the rebooking, the agency's
#: mail's time, and which of the case's colleagues (by their place in a shuffled pool) she met. Which of them
#: charged a fare difference (then her email to the visit's colleagues copied her manager) is the case's draw
#: (:func:`_fares`). Cities, lengths, months and team sizes repeat, so that a draw can put each on both sides.
PAST: tuple[tuple[str, str, int, str, tuple[int, ...]], ...] = (
    ("Gdansk", "2025-12-10", 2, "2025-12-02T10:14:00Z", (0, 2, 3)),
    ("Rotterdam", "2025-12-16", 2, "2025-12-05T15:31:00Z", (0, 1)),
    ("Toronto", "2026-01-05", 4, "2025-12-12T11:02:00Z", (2, 3)),
    ("Hamburg", "2026-01-13", 3, "2025-12-18T09:47:00Z", (1, 3, 0)),
    ("Gdansk", "2026-01-20", 3, "2026-01-08T14:26:00Z", (0, 1, 2)),
    ("Rotterdam", "2026-01-28", 2, "2026-01-14T16:55:00Z", (1, 2)),
)
#: How many of :data:`PAST` charged a fare difference, and how many draws a case tries before it is not kept.
CHARGED_TRIPS, DRAWS = 3, 40

#: When to copy the manager, as a reader of the earlier emails might take it (``with:<email>``: that colleague
#: was on the trip); the convention is "when the rebooking charged a fare difference".
READINGS: dict[str, Any] = {
    "always": Always(True, flag="cc"), "never": Always(False, flag="cc"),
    "by the city": FlaggedWhen("city", flag="cc"), "by the trip's length": FlaggedWhen("days", flag="cc"),
    "above a trip's length": FlaggedSide("days", low=False, flag="cc"),
    "below a trip's length": FlaggedSide("days", low=True, flag="cc"),
    "by the trip's month": FlaggedWhen("month", flag="cc"), "by the team's size": FlaggedWhen("size", flag="cc"),
    "above a team's size": FlaggedSide("size", low=False, flag="cc"),
    "below a team's size": FlaggedSide("size", low=True, flag="cc"),
}


def _facts(pool: list[str]) -> list[dict[str, Any]]:
    """What a reader weighs of each earlier trip of :data:`PAST`, but for its fare: the city, its length, its
    month, the size of the team met and which of the ``pool``'s colleagues were on it."""
    return [{"city": city, "days": days, "month": first[:7], "size": len(who),
             **{f"with:{p}": i in who for i, p in enumerate(pool)}} for city, first, days, _, who in PAST]


def _fares(seed: int, facts: list[dict[str, Any]], new: dict[str, Any],
           readings: dict[str, Any]) -> tuple[bool, ...] | None:
    """Which earlier trips charged a fare difference in the seed's case: :data:`CHARGED_TRIPS` of them drawn
    by the seed, redrawn while some reading of :data:`READINGS` fits every example and treats the ``new`` trip
    otherwise than the convention (``None`` when no draw of :data:`DRAWS` leaves every reading contradicted).
    Drawn per case so that the earlier Hamburg trip, the one most like the new, is copied in some cases and
    not in others."""
    rng = random.Random(f"x-t-trip-rebooked/fares/{seed}")
    for _ in range(DRAWS):
        charged = set(rng.sample(range(len(PAST)), CHARGED_TRIPS))
        fares = tuple(i in charged for i in range(len(PAST)))
        examples = [{**f, "fare": fare, "cc": fare} for f, fare in zip(facts, fares, strict=True)]
        if not left_open(readings, examples, [new], _copied):
            return fares
    return None


def _check(seed: int, examples: list[dict[str, Any]], new: dict[str, Any], readings: dict[str, Any]) -> None:
    """``ValueError`` when an earlier email written into the seed's world does not follow the convention, or
    when the emails leave a reading of ``readings`` open for the ``new`` trip."""
    if any(e["cc"] != _copied(e) for e in examples):
        raise ValueError(f"x-t-trip-rebooked, seed {seed}: an earlier email does not follow the convention")
    if open_ := left_open(readings, examples, [new], _copied):
        raise ValueError(f"x-t-trip-rebooked, seed {seed}: the earlier emails leave open {', '.join(open_)}")


def _copied(item: dict[str, Any]) -> bool:
    """The convention: the email about a rebooked trip copies the manager when the rebooking cost a fare."""
    return bool(item["fare"])


def _shift(moment: str, days: int) -> str:
    if "T" in moment:
        return (datetime.fromisoformat(moment) + timedelta(days=days)).strftime("%Y-%m-%dT%H:%M")
    return (date.fromisoformat(moment) + timedelta(days=days)).isoformat()


def _long(day: str) -> str:
    d = date.fromisoformat(day[:10])
    return f"{d.strftime('%A')} {d.day} {d.strftime('%B')} {d.year}"


def _rebooked(city: str, code: str, out: tuple[str, str, str], back: tuple[str, str, str], hotel: tuple[str, str],
              fare: bool) -> str:
    """The agency's mail of a rebooking: each flight (number, start, end) and the hotel stay (start, the
    all-day event's end) at the new dates, and whether a fare difference was charged."""
    # an all-day event ends the day after its last day: the check-out day is the day before its end
    # (the email once gave the end itself, a day after the flight home; calibration, 2026-12-05)
    return (f"Dear Priya Raman,\n\nat your request your trip to {city} has been rebooked:\n"
            f"- Outbound: Lisbon (LIS) to {city} ({code}), TP {out[0]}, {_long(out[1])}, {out[1][11:]} to {out[2][11:]}\n"
            f"- Return: {city} ({code}) to Lisbon (LIS), TP {back[0]}, {_long(back[1])}, {back[1][11:]} to {back[2][11:]}\n"
            f"- Hotel in {city}: check-in {_long(hotel[0])}, check-out {_long(_shift(hotel[1], -1))}, same "
            "confirmation number\n\n"
            f"Seats and booking references are unchanged. {CHARGED if fare else UNCHARGED}\n\nSkyway Business Travel")


def _notice(city: str, visit: str, start: str, end: str) -> tuple[str, str]:
    """Priya's email to the visit's colleagues about a rebooked trip: its subject and body."""
    return (f"{visit} moves to {_long(start)}",
            f"Hi all,\n\nmy {city} trip was rebooked, so our {visit} moves to {_long(start)}, "
            f"{start[11:]} to {end[11:]}. See you then!\n\nPriya")


def _past(seed: int, travel: str, label: str, visits: dict[str, Any], pool: list[str], fares: tuple[bool, ...],
          manager: str, taken: set[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """The earlier rebooked trips of :data:`PAST` in the seed's world: each as an example (the facts a reader
    weighs and whether its email copied), its four Travel entries and its two mails (the agency's, under the
    mailbox's Travel ``label`` as the agency's confirmations are, and Priya's, copying ``manager`` where the
    case's ``fares`` say the rebooking charged one)."""
    rng = random.Random(f"x-t-trip-rebooked/{seed}")

    def fresh(alphabet: str, n: int) -> str:
        while (value := "".join(rng.choice(alphabet) for _ in range(n))) in taken:
            pass
        taken.add(value)
        return value

    examples, events, mails = [], [], []
    for (city, first, days, when, who), fare in zip(PAST, fares, strict=True):
        visit = visits[city]
        code = visit["code"]
        team = [pool[i] for i in who]
        last = _shift(first, days - 1)
        on = _shift(first, 1 if days > 2 else 0)
        out = (str(rng.randint(500, 1999)), f"{first}T07:05", f"{first}T10:40")
        back = (str(rng.randint(500, 1999)), f"{last}T18:20", f"{last}T21:55")
        hotel = (first, _shift(first, days))
        room = [{"email": visit["room"], "response_status": "accepted", "resource": True}] if visit["room"] else []
        entry = {"calendar_id": travel, "attendees": [], "organizer": PRIMARY}
        events += [
            {**entry, "id": fresh("abcdefghijklmnopqrstuv0123456789", 26), "title": f"Hotel: {city}",
             "start": hotel[0], "end": hotel[1], "location": "",
             "description": f"{days - 1} night(s), confirmation {rng.randint(200000, 999999)}"},
            {**entry, "id": fresh("abcdefghijklmnopqrstuv0123456789", 26), "title": f"Flight LIS → {code} TP {out[0]}",
             "start": out[1], "end": out[2], "location": "Lisbon Airport (LIS)",
             "description": f"Booking ref {rng.choice('BCGHLNPSW')}{rng.randint(10000, 99999)}, seat {rng.randint(3, 28)}C"},
            {**entry, "id": fresh("abcdefghijklmnopqrstuv0123456789", 26), "title": visit["title"],
             "start": f"{on}T13:00", "end": f"{on}T17:00", "location": visit["location"],
             "description": f"Walkthrough with the {city} team.",
             "attendees": [*({"email": w, "response_status": "accepted"} for w in team), *room]},
            {**entry, "id": fresh("abcdefghijklmnopqrstuv0123456789", 26), "title": f"Flight {code} → LIS TP {back[0]}",
             "start": back[1], "end": back[2], "location": f"{city} Airport ({code})", "description": ""},
        ]
        agency_id, note_id = fresh("0123456789abcdef", 16), fresh("0123456789abcdef", 16)
        subject, body = _notice(city, visit["title"], f"{on}T13:00", f"{on}T17:00")
        sent = (datetime.fromisoformat(when) + timedelta(minutes=rng.randint(20, 90))).strftime("%Y-%m-%dT%H:%M:%SZ")
        mails += [
            {"id": agency_id, "thread_id": agency_id, "sender": AGENCY, "to": [PRIMARY], "cc": [],
             "subject": f"Your trip to {city} has been rebooked", "body": _rebooked(city, code, out, back, hotel, fare),
             "date": when, "label_ids": ["INBOX", "CATEGORY_UPDATES", label]},
            {"id": note_id, "thread_id": note_id, "sender": PRIMARY, "to": team,
             "cc": [manager] if fare else [], "subject": subject, "body": body, "date": sent, "label_ids": ["SENT"]},
        ]
        examples.append({"city": city, "days": days, "month": first[:7], "size": len(team), "fare": fare,
                         "cc": bool(mails[-1]["cc"]), "agency": agency_id, "notice": note_id,
                         **{f"with:{p}": p in team for p in pool}})
    return examples, events, mails


def case_of(seed: int) -> dict[str, Any] | None:
    city, code, first = TRIP
    o = org(seed)
    trip = next((t for t in o.trips if t.city == city and t.first == first), None)
    if trip is None or len(trip.team) < 2 or o.owner.manager is None:
        return None
    shift = 7 * (1 + seed % 3)
    tools = calendar_tools(seed)
    travel = next(c.id for c in tools.state.calendars if c.name == "Travel")
    last = _shift(first, trip.days - 1)
    mine = [e for e in tools.state.events if e.calendar_id == travel and first <= e.start[:10] <= last]
    out = next(e for e in mine if e.title.startswith(f"Flight LIS → {code}"))
    back = next(e for e in mine if e.title.startswith(f"Flight {code} → LIS"))
    hotel = next(e for e in mine if e.title == f"Hotel: {city}")
    visit = next(e for e in mine if e.title == trip.visit)
    earlier = [e for e in tools.state.events if e.calendar_id == travel and e.title in (hotel.title, visit.title)
               and e.start[:10] < first]
    if len(mine) != 4 or not earlier:
        return None
    team = [a.email for a in visit.attendees if "@resource." not in a.email]
    meeting = [a.email for a in visit.attendees if a.email in team and a.response_status != "declined"]
    if not set(team) <= set(trip.team) or len(team) < 2 or not meeting:
        return None
    manager = o.employee(o.owner.manager).email
    if manager in team:
        return None
    # the earlier trips' colleagues: people of the organisation's other visits, none of this trip's (a past
    # email to one of them would already say the visit moves) and not the manager
    pool = sorted({p for t in o.trips for p in t.team} - {*team, manager, o.owner.email})
    random.Random(f"x-t-trip-rebooked/pool/{seed}").shuffle(pool)
    if len(pool) < 4:
        return None
    visits: dict[str, Any] = {}
    for t in o.trips:
        seen = next((e for e in tools.state.events if e.calendar_id == travel and e.title == t.visit), None)
        if seen is not None and t.city not in visits:
            visits[t.city] = {"title": t.visit, "code": t.airport, "location": seen.location,
                              "room": next((a.email for a in seen.attendees if a.resource), None)}
    if not {c for c, *_ in PAST} <= set(visits):
        return None
    gmail = world("gmail", seed)
    when = "2026-03-13T16:42:00Z"
    mail_id = "19cfa0b7e4d21c58"
    taken = {m["id"] for m in gmail["messages"]} | {e.id for e in tools.state.events}
    if mail_id in taken:
        return None
    taken.add(mail_id)
    label = next(lb["id"] for lb in gmail["labels"] if lb["name"] == "Travel")
    new: dict[str, Any] = {"city": city, "days": trip.days, "month": first[:7], "size": len(team), "fare": True,
                           **{f"with:{p}": False for p in pool}}
    readings = {**READINGS, **{f"when {p} was on the trip": FlaggedWhen(f"with:{p}", flag="cc") for p in pool}}
    fares = _fares(seed, _facts(pool), new, readings)
    if fares is None:
        return None
    examples, past_events, past_mails = _past(seed, travel, label, visits, pool, fares, manager, taken)
    flight_no = lambda e: e.title.rsplit(" TP ", 1)[1]  # noqa: E731 - a one-line lookup
    _check(seed, examples, new, readings)
    body = _rebooked(city, code, (flight_no(out), _shift(out.start, shift), _shift(out.end, shift)),
                     (flight_no(back), _shift(back.start, shift), _shift(back.end, shift)),
                     (_shift(hotel.start, shift), _shift(hotel.end, shift)), new["fare"])
    mail = {"id": mail_id, "thread_id": mail_id, "sender": AGENCY, "to": [o.owner.email], "cc": [],
            "subject": f"Your trip to {city} has been rebooked", "body": body, "date": when,
            "label_ids": ["INBOX", "UNREAD", "CATEGORY_UPDATES"]}

    moves = [(e, _shift(e.start, shift), _shift(e.end, shift)) for e in (out, hotel, visit, back)]
    updates = [call("calendar__update_event", calendarId=travel, eventId=e.id, start=s, end=t) for e, s, t in moves]
    subject, text = _notice(city, trip.visit, moves[2][1], moves[2][2])
    copy = [manager] if _copied(new) else []
    tell = call("gmail__send_email", to=team, cc=copy, subject=subject, body=text)
    # the careful path opens every earlier rebooking and every email about one: the fare line closes the
    # agency's mail (past a search's snippet), the copy is only in the email's cc
    discover = [call("gmail__search_emails", query="from:skyway"),
                call("gmail__read_email", messageId=mail_id),
                *(call("gmail__read_email", messageId=e["agency"]) for e in examples),
                call("gmail__search_emails", query="in:sent rebooked"),
                *(call("gmail__read_email", messageId=e["notice"]) for e in examples),
                call("calendar__list_calendars"),
                call("calendar__list_events", calendarId=travel, timeMin=f"{first}T00:00",
                     timeMax=f"{_shift(last, 1)}T00:00")]
    reference = [*discover, *updates, tell]
    # the hotel's text says how many nights: correcting it to the new stay is natural (calibration, 2026-12-05)
    frame: list[dict[str, Any]] = [{"entity": "calendar.event", "ids": [e.id], "fields": ["start", "end", "description"] if e is hotel
              else ["start", "end"], "values": {"start": {"eq": s}, "end": {"eq": t}}} for e, s, t in moves]
    frame += [{"entity": "gmail.message", "fields": ["label_ids"]},
              # every email about the move copies exactly the manager, as the earlier ones did when a fare was
              # charged (the cc is how the convention is judged: the predicate sees only `to`)
              {"entity": "gmail.message", "change": ["create"], "max": len(team), "where": {"cc": copy},
               "values": {"to": {"add": team}}}]
    success = []
    for e, _, _ in moves:
        success += [{"calendar.eventExists": {"title": e.id}},
                    {"not": {"calendar.eventExists": {"title": e.id, "start": e.start}}}]
    success += [{"gmail.draftSent": {"to": who, "subject_pattern": f"{city}|[Vv]isit|[Tt]rip|[Rr]eschedul|[Mm]ove|"
                                     "[Cc]hange|[Pp]ostpone|[Dd]ate"}} for who in meeting]
    early_visit = next(e for e in earlier if e.title == visit.title)
    wrongs = [
        {"why": "moves the February trip's warehouse visit instead of March's", "kind": "lookalike",
         "calls": [*updates[:2], call("calendar__update_event", calendarId=travel, eventId=early_visit.id,
                                      start=moves[2][1], end=moves[2][2]), updates[3], tell]},
        {"why": "moves the March trip and the February trip's visit as well", "kind": "collateral",
         "calls": [*updates, call("calendar__update_event", calendarId=travel, eventId=early_visit.id,
                                  start=_shift(early_visit.start, shift), end=_shift(early_visit.end, shift)), tell]},
        {"why": "moves the trip and writes to the travel agency as well as the team", "kind": "other",
         "calls": [*updates, call("gmail__send_email", to=[*team, AGENCY], subject=tell["arguments"]["subject"],
                                   body=tell["arguments"]["body"])]},
        {"why": "moves the flights and the hotel but leaves the visit on the old date", "kind": "other",
         "calls": [updates[0], updates[1], updates[3], tell]},
        {"why": "moves the hotel to end on the last night instead of the check-out day", "kind": "other",
         "calls": [updates[0], call("calendar__update_event", calendarId=travel, eventId=hotel.id, start=moves[1][1],
                                    end=_shift(moves[1][2], -1)), updates[2], updates[3], tell]},
        {"why": "moves everything but tells nobody", "kind": "other", "calls": updates},
        # what a reader who opens a few earlier emails, none copied, does: the manager is left out
        {"why": "tells the colleagues without copying the manager (a fare difference was charged)", "kind": "other",
         "calls": [*discover, *updates, {**tell, "arguments": {**tell["arguments"], "cc": []}}]},
        {"why": "tells the colleagues and writes to the manager separately instead of copying", "kind": "other",
         "calls": [*updates, {**tell, "arguments": {**tell["arguments"], "cc": []}},
                   call("gmail__send_email", to=[manager], subject=subject, body=text)]},
        {"why": "puts the manager among the addressees instead of copying", "kind": "other",
         "calls": [*updates, {**tell, "arguments": {**tell["arguments"], "to": [*team, manager], "cc": []}}]},
        *([{"why": "tells only the colleagues who declined the visit", "kind": "other",
            "calls": [*updates, {**tell, "arguments": {**tell["arguments"], "to": [w for w in team if w not in meeting]}}]}]
          if meeting != team else []),
    ]
    alternatives = [
        *([{"why": "tells only those who have not declined the visit",
            "calls": [*discover, *updates, {**tell, "arguments": {**tell["arguments"], "to": meeting}}]}]
          if meeting != team else []),
        {"why": "writes to each colleague separately",
         "calls": [*discover, *updates, *(call("gmail__send_email", to=[who], cc=copy, subject=subject, body=text)
                                          for who in team)]},
        {"why": "finds the entries by searching for the city",
         "calls": [*discover[:2], call("calendar__search_events", query=city, timeMin="2026-03-16T00:00"),
                   *updates, tell]},
    ]
    return solved(
        patch={"calendar": [{"op": "add", "in": ["events"], "value": e} for e in past_events],
               "gmail": [{"op": "add", "in": ["messages"], "value": m} for m in [*past_mails, mail]]},
        frame=frame,
        success={"all": success},
        reference=reference,
        wrong=wrongs,
        alternatives=alternatives)


def build() -> dict[str, Any]:
    return {**people_template(
        id="x-t-trip-rebooked", servers=["calendar", "gmail"], difficulty="medium", category="standard",
        case_of=case_of, timeout_s=300,
        goal="The travel agency has rebooked my Hamburg trip. Bring my calendar in line with the new booking and let "
             "the people I'm meeting there know, the way I did when my earlier trips were rebooked.",
        tools=["calendar__list_calendars", "calendar__list_events", "calendar__search_events", "calendar__get_event",
               "calendar__get_freebusy", "calendar__search_people", "calendar__list_rooms", "calendar__create_event",
               "calendar__update_event", "calendar__delete_event", "gmail__search_emails", "gmail__read_email",
               "gmail__get_thread", "gmail__send_email", "gmail__draft_email", "gmail__list_drafts",
               "gmail__send_draft"]), "version": 4}
