"""Calendar tools, named after the Google Calendar MCP servers (list_calendars, list_events,
create_event, update_event, delete_event, ...), over in-memory calendars, plus a directory lookup
(search_people) and the room list (list_rooms).

Events answer as Google Calendar's event resources do (``start.dateTime`` with the zone's offset or
``start.date``, ``recurrence``, ``recurringEventId``, ``attendees[].responseStatus``); listings page with
``nextPageToken``/``pageToken``. Recurring series are expanded into occurrences with their own ids
(``<series id>_20260323T1000``); updating or deleting an occurrence id changes that occurrence only.

Times may be given as local wall-clock times (``2026-03-18T10:00``), with an offset
(``2026-03-18T10:00:00+01:00`` or ``...Z``, converted to the account's time zone), or as dates
(``2026-03-18``) for all-day events. ``calendarId`` ``primary`` names the primary calendar.
"""

from __future__ import annotations

from datetime import date, datetime
from functools import lru_cache
from typing import Annotated, Any
from zoneinfo import ZoneInfo

from pydantic import Field, ValidationError

from servers.calendar import recur
from servers.calendar.state import Attendee, Calendar, CalendarState, Event, as_datetime, check_address, is_all_day
from servers.kit import MAX_QUERY_CHARS, ToolError, Toolset, format_validation_error, tool
from servers.kit.pages import Cursor, page
from servers.kit.values import next_id

CalendarId = Annotated[str, Field(min_length=1, description="A calendar id from list_calendars, or 'primary'")]
EventId = Annotated[str, Field(min_length=1, description="An event id from list_events or search_events")]
Time = Annotated[
    str,
    Field(description="Local time '2026-03-18T10:00', with an offset '2026-03-18T10:00:00Z', or a date '2026-03-18' (all-day)"),
]
#: The most attendees an event may have: every occurrence of a series shows them all, so a daily series
#: of 9,000 attendees made one page of list_events 42 MB.
MAX_ATTENDEES = 250
Emails = Annotated[list[str], Field(max_length=MAX_ATTENDEES,
                                    description="Attendee email addresses, e.g. ['priya.raman@kestrelfreight.com']")]
Recurrence = Annotated[list[str], Field(description=(
    "RRULE/EXDATE lines of a recurring series, e.g. ['RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=10']"))]
PageSize = Annotated[int, Field(ge=1, le=100, description="Results per page")]


class CalendarTools(Toolset[CalendarState]):
    state_model = CalendarState

    # -- lookups -----------------------------------------------------------------------------
    def _calendar(self, calendar_id: str) -> Calendar:
        for calendar in self.state.calendars:
            if calendar.id == calendar_id or (calendar_id == "primary" and calendar.primary):
                return calendar
        if calendar_id == "primary":
            raise ToolError("this account has no primary calendar; pass a calendar id from list_calendars")
        raise ToolError(f"unknown calendar id {calendar_id!r}; list calendars with list_calendars")

    def _time(self, value: str, field: str) -> str:
        text = value.strip()
        try:
            if len(text) == 10:
                return date.fromisoformat(text).isoformat()
            moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise ToolError(f"bad {field} {value!r}: use 2026-03-18T10:00, 2026-03-18T10:00:00+01:00 or 2026-03-18") from None
        if moment.tzinfo is not None:
            moment = moment.astimezone(ZoneInfo(self.state.time_zone)).replace(tzinfo=None)
        if moment.second or moment.microsecond:
            raise ToolError(f"bad {field} {value!r}: times are to the minute")
        return moment.strftime("%Y-%m-%dT%H:%M")

    def _bounds(self, time_min: str | None, time_max: str | None) -> tuple[datetime | None, datetime | None]:
        low = as_datetime(self._time(time_min, "timeMin")) if time_min else None
        high = as_datetime(self._time(time_max, "timeMax")) if time_max else None
        if low and high and high <= low:
            raise ToolError("timeMax must be after timeMin")
        return low, high

    def _attendees(self, emails: list[str], keep: list[Attendee]) -> list[Attendee]:
        known = {a.email: a for a in keep}
        out: dict[str, Attendee] = {}
        for email in emails:
            try:
                check_address(email)
            except ValueError:
                raise ToolError(f"invalid attendee {email!r}: give a bare email address like name@example.com") from None
            out[email] = known.get(email) or Attendee(email=email)
        return list(out.values())

    def _zoned(self, value: str) -> dict[str, str]:
        """Google's time object: {"date"} for all-day, {"dateTime" with offset, "timeZone"} otherwise."""
        if is_all_day(value):
            return {"date": value}
        moment = as_datetime(value).replace(tzinfo=ZoneInfo(self.state.time_zone))
        return {"dateTime": moment.isoformat(), "timeZone": self.state.time_zone}

    def _show(self, view: View) -> dict[str, Any]:
        """An event resource shaped like Google Calendar's (plus calendarId and allDay)."""
        event, start, end, ident, original = view
        out: dict[str, Any] = {
            "id": ident,
            "calendarId": event.calendar_id,
            "status": event.status,
            "summary": event.title,
            "start": self._zoned(start),
            "end": self._zoned(end),
            "allDay": is_all_day(start),
            "location": event.location,
            "description": event.description,
            "attendees": [{"email": a.email, "responseStatus": a.response_status, **({"resource": True} if a.resource else {})}
                          for a in event.attendees],
        }
        if event.organizer:
            out["organizer"] = {"email": event.organizer}
        if event.recurrence and original is None:
            out["recurrence"] = list(event.recurrence)
        series = event.recurring_event_id or (event.id if original is not None else None)
        if series is not None:
            out["recurringEventId"] = series
            original_start = original or event.original_start
            assert original_start is not None  # an exception has both (Event._ends_after_start), an occurrence its own
            out["originalStartTime"] = self._zoned(original_start)
        return out

    def _views(self, events: list[Event], low: datetime | None = None, high: datetime | None = None,
               single: bool = True) -> list[View]:
        """What a listing shows, earliest first: single events, stored exceptions and (``single``) every
        occurrence of a series not replaced by an exception; cancelled ones left out."""
        stored = {e.id for e in self.state.events}
        out: list[View] = []
        for e in events:
            if e.status == "cancelled":
                continue
            if not e.recurrence or not single:
                view = (e, e.start, e.end, e.id, e.original_start)
                if _overlaps(view, low, high):
                    out.append(view)
                continue
            duration = as_datetime(e.end) - as_datetime(e.start)
            all_day = is_all_day(e.start)
            for moment in _starts(e.start, tuple(e.recurrence)):
                if high is not None and moment >= high:
                    break
                original = recur.as_text(moment, all_day)
                ident = recur.instance_id(e.id, original)
                if ident in stored:
                    continue
                view = (e, original, recur.as_text(moment + duration, all_day), ident, original)
                if _overlaps(view, low, high):
                    out.append(view)
        out.sort(key=lambda v: (as_datetime(v[1]), v[3]))
        return out

    def _occurrence(self, series: Event, ident: str) -> str | None:
        """The original start of the occurrence of ``series`` called ``ident``, if it has one."""
        stamp = ident[len(series.id) + 1:]
        all_day = is_all_day(series.start)
        try:
            moment = datetime.strptime(stamp, "%Y%m%d" if all_day else "%Y%m%dT%H%M")
        except ValueError:
            return None
        if moment not in _starts(series.start, tuple(series.recurrence)):
            return None
        return recur.as_text(moment, all_day)

    def _find(self, calendar_id: str, event_id: str) -> tuple[Event | None, Event, str | None]:
        """(stored event or None, the event or series it shows, original start of an occurrence)."""
        calendar = self._calendar(calendar_id)
        for event in self.state.events:
            if event.id == event_id:
                if event.calendar_id != calendar.id:
                    raise ToolError(f"event {event_id!r} is not in calendar {calendar.id!r} (it is in {event.calendar_id!r})")
                return event, event, event.original_start
        head = event_id.rpartition("_")[0]
        series = next((e for e in self.state.events if e.id == head and e.recurrence), None)
        if series is not None and series.calendar_id == calendar.id:
            original = self._occurrence(series, event_id)
            if original is not None:
                return None, series, original
        raise ToolError(f"unknown event id {event_id!r} in calendar {calendar.id!r}")

    def _view_of(self, stored: Event | None, shown: Event, original: str | None, event_id: str) -> View:
        if stored is not None:
            return (stored, stored.start, stored.end, stored.id, stored.original_start)
        assert original is not None  # an occurrence that is not stored is known by its original start
        duration = as_datetime(shown.end) - as_datetime(shown.start)
        end = recur.as_text(as_datetime(original) + duration, is_all_day(original))
        return (shown, original, end, event_id, original)

    # -- calendars ---------------------------------------------------------------------------
    @tool(read_only=True)
    def list_calendars(self) -> dict:
        """Every calendar of the account: id, summary (its name), description and whether it is primary.
        Also gives the account's time zone, which all event times are in, and its present time ('now')."""
        return {"kind": "calendar#calendarList", "timeZone": self.state.time_zone, "now": self.state.now,
                "items": [{"id": c.id, "summary": c.name, "description": c.description, "primary": c.primary,
                           "timeZone": self.state.time_zone} for c in self.state.calendars]}

    @tool()
    def create_calendar(
        self,
        summary: Annotated[str, Field(min_length=1, max_length=200, description="The calendar's name")],
        description: str = "",
    ) -> str:
        """Create a secondary calendar. Calendar names are unique in the account. Returns its id."""
        name = summary.strip()
        if not name:
            raise ToolError("a calendar name cannot be blank")
        for c in self.state.calendars:
            if c.name == name:
                raise ToolError(f"a calendar named {name!r} already exists (id {c.id})")
        calendar_id = next_id("cal_", {c.id for c in self.state.calendars})
        self.state.calendars.append(Calendar(id=calendar_id, name=name, description=description))
        return f"Calendar {name!r} created with id {calendar_id}"

    @tool(destructive=True)
    def delete_calendar(self, calendarId: CalendarId) -> str:
        """Delete a secondary calendar and every event in it. The primary calendar cannot be deleted."""
        calendar = self._calendar(calendarId)
        if calendar.primary:
            raise ToolError("the primary calendar cannot be deleted")
        gone = sum(e.calendar_id == calendar.id for e in self.state.events)
        self.state.events[:] = [e for e in self.state.events if e.calendar_id != calendar.id]
        self.state.calendars[:] = [c for c in self.state.calendars if c.id != calendar.id]
        return f"Calendar {calendar.name!r} deleted with its {gone} event(s)"

    # -- the directory -----------------------------------------------------------------------
    @tool(read_only=True)
    def search_people(
        self,
        query: Annotated[str, Field(min_length=1, max_length=200, description="Words of a name, email, title or department")],
        pageSize: PageSize = 20,
        pageToken: Cursor | None = None,
    ) -> dict:
        """Look colleagues up in the company directory: everyone whose name, email, title or department contains
        all the query's words (case-insensitive), by name, with their email address to invite them."""
        words = query.lower().split()
        found = [p for p in sorted(self.state.people, key=lambda p: (p.name, p.email))
                 if all(w in f"{p.name} {p.email} {p.title} {p.department}".lower() for w in words)]
        chunk, token = page(found, f"people:{query}", pageToken, pageSize)
        return {"people": [p.model_dump() for p in chunk], "totalSize": len(found), "nextPageToken": token}

    @tool(read_only=True)
    def list_rooms(self, building: Annotated[str | None, Field(description="Only rooms of this building")] = None) -> dict:
        """The bookable meeting rooms: name, building, capacity and the email to invite to book one."""
        rooms = [r for r in self.state.rooms if building is None or building.lower() in r.building.lower()]
        return {"items": [r.model_dump() for r in rooms]}

    # -- events ------------------------------------------------------------------------------
    @tool(read_only=True)
    def list_events(
        self,
        calendarId: CalendarId,
        timeMin: Annotated[str | None, Field(description="Only events ending after this time")] = None,
        timeMax: Annotated[str | None, Field(description="Only events starting before this time")] = None,
        query: Annotated[str | None, Field(max_length=MAX_QUERY_CHARS,
                                           description="Words to find in title, description, location or attendees")] = None,
        maxResults: Annotated[int, Field(ge=1, le=250, description="Events per page")] = 25,
        pageToken: Cursor | None = None,
        singleEvents: Annotated[bool, Field(description=(
            "Expand recurring series into their occurrences (default); false lists each series once"))] = True,
    ) -> dict:
        """The events of one calendar, earliest first, optionally within [timeMin, timeMax) and matching a
        free-text query (case-insensitive), one page at a time: pass nextPageToken back as pageToken for the
        next page (absent on the last page). Occurrences of a recurring series have their own ids and carry
        recurringEventId; cancelled occurrences are left out."""
        calendar = self._calendar(calendarId)
        low, high = self._bounds(timeMin, timeMax)
        words = _words(query)
        events = [e for e in self.state.events if e.calendar_id == calendar.id and _matches(e, words)]
        views = self._views(events, low, high, single=singleEvents)
        listing = f"events:{calendar.id}:{timeMin}:{timeMax}:{query}:{singleEvents}"
        chunk, token = page(views, listing, pageToken, maxResults)
        out: dict[str, Any] = {"kind": "calendar#events", "summary": calendar.name, "timeZone": self.state.time_zone,
                               "items": [self._show(v) for v in chunk]}
        if token:
            out["nextPageToken"] = token
        return out

    @tool(read_only=True)
    def search_events(
        self,
        query: Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS,
                                    description="Words to find in title, description, location or attendees")],
        timeMin: str | None = None,
        timeMax: str | None = None,
        maxResults: Annotated[int, Field(ge=1, le=250, description="Events per page")] = 25,
        pageToken: Cursor | None = None,
    ) -> dict:
        """Find events in every calendar whose title, description, location or attendee emails contain all
        the query's words (case-insensitive), earliest first, occurrences of recurring series included, one
        page at a time (nextPageToken)."""
        low, high = self._bounds(timeMin, timeMax)
        words = _words(query)
        views = self._views([e for e in self.state.events if _matches(e, words)], low, high)
        chunk, token = page(views, f"search:{query}:{timeMin}:{timeMax}", pageToken, maxResults)
        out: dict[str, Any] = {"kind": "calendar#events", "timeZone": self.state.time_zone,
                               "items": [self._show(v) for v in chunk]}
        if token:
            out["nextPageToken"] = token
        return out

    @tool(read_only=True)
    def get_event(self, calendarId: CalendarId, eventId: EventId) -> dict:
        """One event (or one occurrence of a recurring series) with its attendees and their response status."""
        stored, shown, original = self._find(calendarId, eventId)
        return self._show(self._view_of(stored, shown, original, eventId))

    @tool()
    def create_event(
        self,
        calendarId: CalendarId,
        summary: Annotated[str, Field(min_length=1, max_length=500, description="The event's title")],
        start: Time,
        end: Time,
        description: str = "",
        location: str = "",
        attendees: Emails | None = None,
        recurrence: Recurrence | None = None,
    ) -> str:
        """Create an event (or, with recurrence, a recurring series). start and end are both times or both
        dates (all-day; end is the day after the last day). Invite a room's email to book it. Returns the new
        event's id."""
        calendar = self._calendar(calendarId)
        event_id = next_id("evt_", {e.id for e in self.state.events})
        event = self._build(id=event_id, calendar_id=calendar.id, title=summary.strip() or summary,
                            start=self._time(start, "start"), end=self._time(end, "end"), description=description,
                            location=location, attendees=self._attendees(attendees or [], []),
                            recurrence=list(recurrence or []), organizer=self.state.owner)
        self.state.events.append(event)
        return f"Event {event.title!r} created with id {event_id} in calendar {calendar.id}, {event.start} to {event.end}"

    def _build(self, **fields: Any) -> Event:
        start, end = fields["start"], fields["end"]
        if is_all_day(start) != is_all_day(end):
            raise ToolError("start and end must both be dates (all-day) or both be times")
        if end <= start:
            raise ToolError(f"end {end} must be after start {start}")
        try:
            return Event(**fields)
        except ValidationError as exc:
            raise ToolError(format_validation_error(exc, prefix="event")) from None

    @tool(destructive=True)
    def update_event(
        self,
        calendarId: CalendarId,
        eventId: EventId,
        summary: str | None = None,
        start: Time | None = None,
        end: Time | None = None,
        description: str | None = None,
        location: str | None = None,
        attendees: Annotated[
            list[str] | None,
            Field(max_length=MAX_ATTENDEES,
                  description="The complete new attendee list: it REPLACES the current one (include everyone to keep)"),
        ] = None,
        recurrence: Recurrence | None = None,
    ) -> str:
        """Change fields of an event; fields left out keep their value. Moving only the start keeps the
        event's duration. attendees replaces the whole list (kept attendees keep their response). Given an
        occurrence's id, only that occurrence changes; given the series' id, every occurrence does."""
        stored, shown, original = self._find(calendarId, eventId)
        if stored is None:  # an occurrence becomes an exception of its series
            base = self._view_of(None, shown, original, eventId)
            fields = shown.model_dump(exclude={"recurrence"})
            fields.update(id=eventId, start=base[1], end=base[2], recurring_event_id=shown.id, original_start=original)
        else:
            fields = stored.model_dump()
        fields["attendees"] = (stored or shown).attendees
        current = (fields["start"], fields["end"])
        if recurrence is not None:
            if fields.get("recurring_event_id"):
                raise ToolError(f"{eventId!r} is one occurrence of series {fields['recurring_event_id']!r}; "
                                "change the recurrence on the series")
            fields["recurrence"] = list(recurrence)
        if summary is not None:
            if not summary.strip():
                raise ToolError("summary cannot be blank")
            fields["title"] = summary
        if start is not None:
            new_start = self._time(start, "start")
            if end is None and is_all_day(new_start) == is_all_day(current[0]):
                duration = as_datetime(current[1]) - as_datetime(current[0])
                moved = as_datetime(new_start) + duration
                fields["end"] = moved.date().isoformat() if is_all_day(new_start) else moved.strftime("%Y-%m-%dT%H:%M")
            fields["start"] = new_start
        if end is not None:
            fields["end"] = self._time(end, "end")
        if description is not None:
            fields["description"] = description
        if location is not None:
            fields["location"] = location
        if attendees is not None:
            fields["attendees"] = self._attendees(attendees, (stored or shown).attendees)
        updated = self._build(**fields)
        if stored is None:
            self.state.events.append(updated)
            return f"Occurrence {eventId} of series {shown.id} updated"
        at = next(i for i, e in enumerate(self.state.events) if e.id == stored.id)
        self.state.events[at] = updated  # in place: reassigning the list would revalidate the whole state
        return f"Event {eventId} updated"

    @tool(destructive=True)
    def move_event(self, calendarId: CalendarId, eventId: EventId, destinationCalendarId: CalendarId) -> str:
        """Move an event (a whole series with its changed occurrences) to another calendar, keeping its id."""
        stored, shown, _ = self._find(calendarId, eventId)
        if stored is None or stored.recurring_event_id is not None:
            raise ToolError(f"{eventId!r} is one occurrence of series {shown.id if stored is None else stored.recurring_event_id!r}; "
                            "move the series")
        target = self._calendar(destinationCalendarId)
        if target.id == stored.calendar_id:
            raise ToolError(f"event {eventId!r} is already in calendar {target.id!r}")
        for e in self.state.events:
            if e.id == stored.id or e.recurring_event_id == stored.id:
                e.calendar_id = target.id
        return f"Event {eventId} moved to calendar {target.id}"

    @tool(destructive=True)
    def delete_event(self, calendarId: CalendarId, eventId: EventId) -> str:
        """Delete an event. Given an occurrence's id, only that occurrence is cancelled; given a series' id,
        the whole series goes."""
        stored, shown, original = self._find(calendarId, eventId)
        if stored is None:
            base = self._view_of(None, shown, original, eventId)
            fields = shown.model_dump(exclude={"recurrence"})
            fields.update(id=eventId, start=base[1], end=base[2], recurring_event_id=shown.id, original_start=original,
                          status="cancelled", attendees=shown.attendees)
            self.state.events.append(self._build(**fields))
            return f"Occurrence {eventId} of series {shown.id} cancelled"
        if stored.status == "cancelled":
            raise ToolError(f"event {eventId!r} was already deleted")
        if stored.recurring_event_id is not None:
            stored.status = "cancelled"
            return f"Occurrence {eventId} of series {stored.recurring_event_id} cancelled"
        self.state.events[:] = [e for e in self.state.events if e.id != stored.id and e.recurring_event_id != stored.id]
        return f"Event {eventId} deleted" + (" with every occurrence" if stored.recurrence else "")

    @tool(read_only=True)
    def get_freebusy(
        self,
        timeMin: Time,
        timeMax: Time,
        calendarIds: Annotated[list[str] | None, Field(description="Calendars to check (default: all)")] = None,
    ) -> dict:
        """Busy intervals per calendar within [timeMin, timeMax): each {start, end}, earliest first
        (occurrences of recurring series included, cancelled ones not)."""
        low, high = self._bounds(timeMin, timeMax)
        calendars = [self._calendar(i) for i in calendarIds] if calendarIds else self.state.calendars
        return {c.id: [{"start": v[1], "end": v[2]} for v in
                       self._views([e for e in self.state.events if e.calendar_id == c.id], low, high)]
                for c in calendars}


#: (event or series shown, start, end, id, original start of an occurrence or None)
View = tuple[Event, str, str, str, str | None]


@lru_cache(maxsize=256)
def _starts(start: str, recurrence: tuple[str, ...]) -> tuple[datetime, ...]:
    """The original starts of a series' occurrences (pure, so shared by every backend of a world)."""
    rule = recur.parse(list(recurrence))
    assert rule is not None  # called for a series only: it has a rule
    return tuple(recur.occurrences(as_datetime(start), rule))


def _overlaps(view: View, low: datetime | None, high: datetime | None) -> bool:
    return (low is None or as_datetime(view[2]) > low) and (high is None or as_datetime(view[1]) < high)


def _words(query: str | None) -> list[str]:
    """The words of a search query, lower-cased (none: everything matches)."""
    return query.lower().split() if query else []


def _matches(event: Event, words: list[str]) -> bool:
    """Whether the event's title, description, location or attendee emails contain every word (a word
    has no space, so it is found within one of them or not at all)."""
    if not words:
        return True
    text = " ".join([event.title, event.description, event.location, *(a.email for a in event.attendees)]).lower()
    return all(word in text for word in words)
