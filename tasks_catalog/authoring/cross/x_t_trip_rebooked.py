"""x-t-trip-rebooked: the travel agency rebooked Priya's March trip to Hamburg one to three weeks later (a
planted mail in her box, beside the agency's confirmation of the February trip to Hamburg). Her travel
calendar's four entries of the March trip move with it: both flights and the hotel stay as the mail says,
and the warehouse visit on the same day of the trip; the February trip's identical entries stay. The
people she meets there are told by email (the room booked for the visit is not a person). Version 2: a
colleague who declined the visit is not someone she meets there, so telling them is allowed, not asked
(version 1 failed a solver who wrote only to those who accepted or were tentative; calibration round 5)."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from tasks_catalog.authoring.cross import org, world
from tasks_catalog.authoring.cross._x_t_people import calendar_tools, call, people_template, solved

TRIP = ("Hamburg", "HAM", "2026-03-24")
AGENCY = "bookings@skyway.example"


def _shift(moment: str, days: int) -> str:
    if "T" in moment:
        return (datetime.fromisoformat(moment) + timedelta(days=days)).strftime("%Y-%m-%dT%H:%M")
    return (date.fromisoformat(moment) + timedelta(days=days)).isoformat()


def _long(day: str) -> str:
    d = date.fromisoformat(day[:10])
    return f"{d.strftime('%A')} {d.day} {d.strftime('%B')} {d.year}"


def case_of(seed: int) -> dict[str, Any] | None:
    city, code, first = TRIP
    o = org(seed)
    trip = next((t for t in o.trips if t.city == city and t.first == first), None)
    if trip is None or len(trip.team) < 2:
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
    gmail = world("gmail", seed)
    when = "2026-03-13T16:42:00Z"
    mail_id = "19cfa0b7e4d21c58"
    flight_no = lambda e: e.title.rsplit(" TP ", 1)[1]  # noqa: E731 - a one-line lookup
    body = (f"Dear Priya Raman,\n\nat your request your trip to {city} has been rebooked:\n"
            f"- Outbound: Lisbon (LIS) to {city} ({code}), TP {flight_no(out)}, {_long(_shift(out.start, shift))}, "
            f"{out.start[11:]} to {out.end[11:]}\n"
            f"- Return: {city} ({code}) to Lisbon (LIS), TP {flight_no(back)}, {_long(_shift(back.start, shift))}, "
            f"{back.start[11:]} to {back.end[11:]}\n"
            # an all-day event ends the day after its last day: the check-out day is the day before its end
            # (the email once gave the end itself, a day after the flight home; calibration, 2026-12-05)
            f"- Hotel in {city}: check-in {_long(_shift(hotel.start, shift))}, check-out "
            f"{_long(_shift(hotel.end, shift - 1))}, same confirmation number\n\n"
            "Seats and booking references are unchanged. The fare difference was charged to the company card.\n\n"
            "Skyway Business Travel")
    mail = {"id": mail_id, "thread_id": mail_id, "sender": AGENCY, "to": [o.owner.email], "cc": [],
            "subject": f"Your trip to {city} has been rebooked", "body": body, "date": when,
            "label_ids": ["INBOX", "UNREAD", "CATEGORY_UPDATES"]}
    if any(m["id"] == mail_id for m in gmail["messages"]):
        return None

    moves = [(e, _shift(e.start, shift), _shift(e.end, shift)) for e in (out, hotel, visit, back)]
    updates = [call("calendar__update_event", calendarId=travel, eventId=e.id, start=s, end=t) for e, s, t in moves]
    tell = call("gmail__send_email", to=team, subject=f"{trip.visit} moves to {_long(moves[2][1])}",
                body=f"Hi all,\n\nmy {city} trip was rebooked, so our {trip.visit.lower()} moves to "
                     f"{_long(moves[2][1])}, {visit.start[11:]} to {visit.end[11:]}. See you then!\n\nPriya")
    discover = [call("gmail__search_emails", query="from:skyway"),
                call("gmail__read_email", messageId=mail_id),
                call("calendar__list_calendars"),
                call("calendar__list_events", calendarId=travel, timeMin=f"{first}T00:00",
                     timeMax=f"{_shift(last, 1)}T00:00")]
    reference = [*discover, *updates, tell]
    # the hotel's text says how many nights: correcting it to the new stay is natural (calibration, 2026-12-05)
    frame: list[dict[str, Any]] = [{"entity": "calendar.event", "ids": [e.id], "fields": ["start", "end", "description"] if e is hotel
              else ["start", "end"], "values": {"start": {"eq": s}, "end": {"eq": t}}} for e, s, t in moves]
    frame += [{"entity": "gmail.message", "fields": ["label_ids"]},
              {"entity": "gmail.message", "change": ["create"], "max": len(team),
               "values": {"to": {"add": team}, "cc": {"add": team}}}]
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
        *([{"why": "tells only the colleagues who declined the visit", "kind": "other",
            "calls": [*updates, {**tell, "arguments": {**tell["arguments"], "to": [w for w in team if w not in meeting]}}]}]
          if meeting != team else []),
    ]
    alternatives = [
        *([{"why": "tells only those who have not declined the visit",
            "calls": [*discover, *updates, {**tell, "arguments": {**tell["arguments"], "to": meeting}}]}]
          if meeting != team else []),
        {"why": "writes to each colleague separately",
         "calls": [*discover, *updates, *(call("gmail__send_email", to=[who], subject=tell["arguments"]["subject"],
                                               body=tell["arguments"]["body"]) for who in team)]},
        {"why": "finds the entries by searching for the city",
         "calls": [*discover[:2], call("calendar__search_events", query=city, timeMin="2026-03-16T00:00"),
                   *updates, tell]},
    ]
    return solved(
        patch={"calendar": [], "gmail": [{"op": "add", "in": ["messages"], "value": mail}]},
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
             "the people I'm meeting there know.",
        tools=["calendar__list_calendars", "calendar__list_events", "calendar__search_events", "calendar__get_event",
               "calendar__get_freebusy", "calendar__search_people", "calendar__list_rooms", "calendar__create_event",
               "calendar__update_event", "calendar__delete_event", "gmail__search_emails", "gmail__read_email",
               "gmail__get_thread", "gmail__send_email", "gmail__draft_email", "gmail__list_drafts",
               "gmail__send_draft"]), "version": 2}
