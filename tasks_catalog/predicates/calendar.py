"""Calendar primitives. A calendar is identified by its name (unique in the account) or its id; an event
by its title or its id, so a guard written with an id still sees the calendar or event after a rename. Times are the state's canonical strings: ``2026-03-18T10:00``
(local to the account's time zone) or ``2026-03-18`` for an all-day event. A cancelled event (status
``cancelled``: a cancelled occurrence of a recurring series, kept as Google keeps it) counts as no event."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from servers.calendar import CalendarState
from servers.calendar.state import Event
from tasks_catalog.predicates._registry import (
    Args,
    Name,
    Pattern,
    explains,
    listing,
    pattern,
    primitive,
    same,
    search,
    shown,
)

#: An optional regex argument. The Pattern marker sits inside the Optional, where ``goal_literals`` does not
#: look, so the field repeats it: the gate then checks the pattern against the goal as a pattern.
OPTIONAL_PATTERN = Field(default=None, json_schema_extra={"pattern_arg": True})


class EventExists(Args):
    """True when some event's title (or id) equals `title` exactly (case-sensitive) and, if given, it is
    in the calendar whose name or id equals `calendar` exactly, and its start equals `start` exactly as a canonical
    time string (`2026-03-18T10:00`, or `2026-03-18` for an all-day event; no seconds, no offset). A
    cancelled event (status "cancelled") does not count."""

    title: Name
    calendar: Name | None = None
    start: Name | None = None


class EventHasAttendee(Args):
    """True when some event whose id or title equals `event` exactly lists `attendee` (an email
    address, compared exactly and case-sensitively) among its attendees, whatever their response
    status (a declined attendee is still listed). False when no such event exists; a cancelled event
    (status "cancelled") does not count."""

    event: Name
    attendee: Name


class CalendarExists(Args):
    """True when a calendar whose name or id equals `calendar` exactly (case-sensitive) exists."""

    calendar: Name


class EventCount(Args):
    """True when the number of events that are in the calendar whose name or id is `calendar` (if
    given; all calendars otherwise) and whose title matches regex `title_pattern` (if given; search
    semantics, case-sensitive) equals `count` (a number, compared numerically); cancelled events (status
    "cancelled") are not counted. False when `calendar` is given and no calendar has that name or id,
    whatever `count` is."""

    count: Annotated[int | float, Field(ge=0)]
    calendar: Name | None = None
    title_pattern: Pattern | None = OPTIONAL_PATTERN


def _calendar_id(state: CalendarState, ref: str) -> str | None:
    return next((c.id for c in state.calendars if ref in (c.name, c.id)), None)


def _in_calendar(state: CalendarState, event: Event, name: str | None) -> bool:
    return name is None or event.calendar_id == _calendar_id(state, name)


def _live(state: CalendarState) -> list[Event]:
    return [e for e in state.events if e.status != "cancelled"]


@primitive("calendar", "eventExists", EventExists)
def event_exists(state: CalendarState, args: EventExists) -> bool:
    return any(
        args.title in (e.title, e.id) and _in_calendar(state, e, args.calendar) and (args.start is None or e.start == args.start)
        for e in _live(state)
    )


@primitive("calendar", "eventHasAttendee", EventHasAttendee)
def event_has_attendee(state: CalendarState, args: EventHasAttendee) -> bool:
    return any(
        args.event in (e.id, e.title) and any(a.email == args.attendee for a in e.attendees) for e in _live(state)
    )


@primitive("calendar", "calendarExists", CalendarExists)
def calendar_exists(state: CalendarState, args: CalendarExists) -> bool:
    return _calendar_id(state, args.calendar) is not None


@primitive("calendar", "eventCount", EventCount)
def event_count(state: CalendarState, args: EventCount) -> bool:
    if args.calendar is not None and _calendar_id(state, args.calendar) is None:
        return False
    n = sum(
        _in_calendar(state, e, args.calendar) and (args.title_pattern is None or search(args.title_pattern, e.title))
        for e in _live(state)
    )
    return same(args.count, n)


# -- explainers: what each clause asks and what the state held -------------------------------------

def _no_calendar(state: CalendarState, ref: str) -> str:
    return f"no calendar named or with id {ref!r}; calendars: {listing(c.name for c in state.calendars)}"


def _events(state: CalendarState, events: list[Event]) -> str:
    names = {c.id: c.name for c in state.calendars}
    return "; ".join(f"{shown(e.title, 50)} at {e.start} in {names.get(e.calendar_id, e.calendar_id)}"
                     + (" (cancelled)" if e.status == "cancelled" else "") for e in events[:3]) or "none"


@explains("calendar", "eventExists")
def _explain_event_exists(state: CalendarState, args: EventExists) -> tuple[str, str]:
    where = f" in {args.calendar!r}" if args.calendar is not None else ""
    at = f" at {args.start}" if args.start is not None else ""
    expected = f"an event {args.title!r}{where}{at}"
    if args.calendar is not None and _calendar_id(state, args.calendar) is None:
        return expected, _no_calendar(state, args.calendar)
    named = [e for e in state.events if args.title in (e.title, e.id)]
    return expected, f"{len(named)} events titled or with id {args.title!r}: {_events(state, named)}"


@explains("calendar", "eventHasAttendee")
def _explain_event_has_attendee(state: CalendarState, args: EventHasAttendee) -> tuple[str, str]:
    expected = f"{args.attendee} invited to {args.event!r}"
    named = [e for e in _live(state) if args.event in (e.id, e.title)]
    if not named:
        return expected, f"no live event titled or with id {args.event!r}"
    return expected, "; ".join(f"{shown(e.title, 50)} at {e.start} invites {listing((a.email for a in e.attendees), 8)}"
                               for e in named[:3])


@explains("calendar", "calendarExists")
def _explain_calendar_exists(state: CalendarState, args: CalendarExists) -> tuple[str, str]:
    found = _no_calendar(state, args.calendar) if _calendar_id(state, args.calendar) is None else \
        f"calendar {args.calendar!r} exists"
    return f"a calendar {args.calendar!r}", found


@explains("calendar", "eventCount")
def _explain_event_count(state: CalendarState, args: EventCount) -> tuple[str, str]:
    where = f" in {args.calendar!r}" if args.calendar is not None else ""
    titled = f" titled {pattern(args.title_pattern)}" if args.title_pattern is not None else ""
    expected = f"{args.count} events{where}{titled}"
    if args.calendar is not None and _calendar_id(state, args.calendar) is None:
        return expected, _no_calendar(state, args.calendar)
    counted = [e for e in _live(state) if _in_calendar(state, e, args.calendar)
               and (args.title_pattern is None or search(args.title_pattern, e.title))]
    return expected, f"{len(counted)} live events{where}{titled}: {_events(state, counted)}"
