"""Calendar state: one account's calendars and their events, the company directory and its rooms.

A recurring series is one event with ``recurrence`` lines (``servers/calendar/recur.py``); an occurrence
that was changed or cancelled is stored as its own event (an *exception*, as Google stores it) whose id is
the occurrence's instance id (``<series id>_20260323T1000``), with ``recurring_event_id`` and
``original_start`` naming the occurrence and ``status`` ``cancelled`` for a cancelled one.

Times are wall-clock times in the account's ``time_zone``, stored in one canonical form so they
compare as strings: ``YYYY-MM-DDTHH:MM`` for timed events, ``YYYY-MM-DD`` for all-day events (whose
``end`` is the day after the last day, as in Google Calendar).
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import date, datetime
from typing import ClassVar, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import ConfigDict, Field, field_validator, model_validator

from servers.calendar import recur
from servers.kit import Model, ServerState
from servers.kit.values import check_address

_TIMED = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$")
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def check_time(value: str) -> str:
    """A canonical time (``2026-03-18T10:00`` or, all-day, ``2026-03-18``), or ``ValueError``."""
    try:
        if _TIMED.match(value):
            datetime.strptime(value, "%Y-%m-%dT%H:%M")
            return value
        if _DAY.match(value):
            date.fromisoformat(value)
            return value
    except ValueError:
        pass
    raise ValueError(f"time {value!r} must look like 2026-03-18T10:00 (or 2026-03-18 for all-day)")


def is_all_day(value: str) -> bool:
    return len(value) == 10


def as_datetime(value: str) -> datetime:
    """A canonical time as a naive datetime (an all-day time is midnight of that day)."""
    return datetime.fromisoformat(value)


class Attendee(Model):
    """A guest, or with ``resource`` a meeting room booked by inviting it."""

    # frozen: no tool changes an attendee (an update makes a new list), so a world's copy shares them
    # (servers.kit.state)
    model_config = ConfigDict(frozen=True)

    email: str
    response_status: Literal["needsAction", "accepted", "declined", "tentative"] = "needsAction"
    resource: bool = False

    @field_validator("email")
    @classmethod
    def _email(cls, value: str) -> str:
        return check_address(value)


class Calendar(Model):
    """A calendar. ``name`` is unique in the account; the one ``primary`` calendar cannot be deleted."""

    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    description: str = ""
    primary: bool = False


class Event(Model):
    """An event of calendar ``calendar_id``; ``end`` is after ``start`` and of the same kind."""

    id: str = Field(min_length=1)
    calendar_id: str
    title: str = Field(min_length=1)
    start: str
    end: str
    description: str = ""
    location: str = ""
    attendees: list[Attendee] = Field(default_factory=list)
    status: Literal["confirmed", "tentative", "cancelled"] = "confirmed"
    organizer: str | None = None
    recurrence: list[str] = Field(default_factory=list, description="RRULE/EXDATE lines of a series")
    recurring_event_id: str | None = Field(default=None, description="The series of an exception occurrence")
    original_start: str | None = Field(default=None, description="The original start of an exception occurrence")

    @field_validator("start", "end")
    @classmethod
    def _time(cls, value: str) -> str:
        return check_time(value)

    @field_validator("original_start")
    @classmethod
    def _original(cls, value: str | None) -> str | None:
        return None if value is None else check_time(value)

    @field_validator("recurrence")
    @classmethod
    def _rule(cls, value: list[str]) -> list[str]:
        recur.parse(value)
        return value

    @model_validator(mode="after")
    def _ends_after_start(self) -> Event:
        if is_all_day(self.start) != is_all_day(self.end):
            raise ValueError(f"event {self.id!r}: start and end must both be all-day dates or both times")
        if self.end <= self.start:
            raise ValueError(f"event {self.id!r}: end {self.end} is not after start {self.start}")
        emails = [a.email for a in self.attendees]
        dupes = sorted({e for e in emails if emails.count(e) > 1})
        if dupes:
            raise ValueError(f"event {self.id!r}: attendee {dupes[0]!r} is listed twice")
        if (self.recurring_event_id is None) != (self.original_start is None):
            raise ValueError(f"event {self.id!r}: an exception needs both recurring_event_id and original_start")
        if self.recurring_event_id is not None and self.recurrence:
            raise ValueError(f"event {self.id!r}: an exception occurrence cannot itself recur")
        return self


class Person(Model):
    """Someone in the company directory (what the account can look people up in)."""

    email: str
    name: str = Field(min_length=1)
    title: str = ""
    department: str = ""

    @field_validator("email")
    @classmethod
    def _email(cls, value: str) -> str:
        return check_address(value)


class Room(Model):
    """A bookable meeting room: invite its ``email`` (as a resource attendee) to book it."""

    email: str
    name: str = Field(min_length=1)
    building: str = ""
    capacity: int = Field(default=0, ge=0)

    @field_validator("email")
    @classmethod
    def _email(cls, value: str) -> str:
        return check_address(value)


class CalendarState(ServerState):
    """The calendars of ``owner``; all times are local to ``time_zone`` (an IANA zone name). ``now`` (a
    canonical time, optional) is the account's present, which 'today' and 'next week' refer to."""

    world_generator: ClassVar[str] = "calendar"

    owner: str = "me@example.com"
    time_zone: str = "Europe/Lisbon"
    now: str | None = None
    calendars: list[Calendar] = Field(default_factory=list)
    events: list[Event] = Field(default_factory=list)
    people: list[Person] = Field(default_factory=list)
    rooms: list[Room] = Field(default_factory=list)

    @field_validator("owner")
    @classmethod
    def _owner(cls, value: str) -> str:
        return check_address(value)

    @field_validator("time_zone")
    @classmethod
    def _zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"unknown time zone {value!r}; use an IANA name like Europe/Lisbon") from None
        return value

    @model_validator(mode="after")
    def _references_resolve(self) -> CalendarState:
        for what, values in (
            ("calendar id", [c.id for c in self.calendars]),
            ("calendar name", [c.name for c in self.calendars]),
            ("event id", [e.id for e in self.events]),
            ("directory email", [p.email for p in self.people] + [r.email for r in self.rooms]),
        ):
            dupes = sorted(v for v, n in Counter(values).items() if n > 1)
            if dupes:
                raise ValueError(f"{what} {dupes[0]!r} is used twice")
        if sum(c.primary for c in self.calendars) > 1:
            raise ValueError("only one calendar can be primary")
        ids = {c.id for c in self.calendars}
        series = {e.id: e for e in self.events if e.recurrence}
        for event in self.events:
            if event.calendar_id not in ids:
                raise ValueError(f"event {event.id!r} is in unknown calendar {event.calendar_id!r}")
            if event.recurring_event_id is not None:
                master = series.get(event.recurring_event_id)
                if master is None:
                    raise ValueError(f"event {event.id!r}: recurring_event_id {event.recurring_event_id!r} is not a series")
                if master.calendar_id != event.calendar_id:
                    raise ValueError(f"event {event.id!r} is not in the calendar of its series {master.id!r}")
        if self.now is not None:
            check_time(self.now)
        return self
