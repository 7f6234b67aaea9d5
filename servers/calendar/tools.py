"""Calendar tools, named after the Google Calendar MCP servers (list_calendars, list_events,
create_event, update_event, delete_event, ...), over in-memory calendars.

Times may be given as local wall-clock times (``2026-03-18T10:00``), with an offset
(``2026-03-18T10:00:00+01:00`` or ``...Z``, converted to the account's time zone), or as dates
(``2026-03-18``) for all-day events. ``calendarId`` ``primary`` names the primary calendar.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Annotated, Any
from zoneinfo import ZoneInfo

from pydantic import Field, ValidationError

from servers.kit import ToolError, Toolset, format_validation_error, tool
from servers.kit.values import next_id
from servers.calendar.state import Attendee, Calendar, CalendarState, Event, as_datetime, check_address, is_all_day

CalendarId = Annotated[str, Field(min_length=1, description="A calendar id from list_calendars, or 'primary'")]
EventId = Annotated[str, Field(min_length=1, description="An event id from list_events or search_events")]
Time = Annotated[
    str,
    Field(description="Local time '2026-03-18T10:00', with an offset '2026-03-18T10:00:00Z', or a date '2026-03-18' (all-day)"),
]
Emails = Annotated[list[str], Field(description="Attendee email addresses, e.g. ['priya.raman@northwind.example']")]


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

    def _event(self, calendar_id: str, event_id: str) -> Event:
        calendar = self._calendar(calendar_id)
        for event in self.state.events:
            if event.id == event_id:
                if event.calendar_id != calendar.id:
                    raise ToolError(f"event {event_id!r} is not in calendar {calendar.id!r} (it is in {event.calendar_id!r})")
                return event
        raise ToolError(f"unknown event id {event_id!r} in calendar {calendar.id!r}")

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

    def _window(self, time_min: str | None, time_max: str | None):
        low = as_datetime(self._time(time_min, "timeMin")) if time_min else None
        high = as_datetime(self._time(time_max, "timeMax")) if time_max else None
        if low and high and high <= low:
            raise ToolError("timeMax must be after timeMin")
        return lambda e: (low is None or as_datetime(e.end) > low) and (high is None or as_datetime(e.start) < high)

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

    def _show(self, event: Event) -> dict[str, Any]:
        return {
            "id": event.id,
            "calendarId": event.calendar_id,
            "summary": event.title,
            "start": event.start,
            "end": event.end,
            "allDay": is_all_day(event.start),
            "location": event.location,
            "description": event.description,
            "attendees": [{"email": a.email, "responseStatus": a.response_status} for a in event.attendees],
        }

    def _sorted(self, events: list[Event]) -> list[Event]:
        return sorted(events, key=lambda e: (as_datetime(e.start), e.id))

    # -- calendars ---------------------------------------------------------------------------
    @tool(read_only=True)
    def list_calendars(self) -> list:
        """Every calendar of the account: id, summary (its name), description and whether it is primary.
        Also gives the account's time zone, which all event times are in."""
        return [{"id": c.id, "summary": c.name, "description": c.description, "primary": c.primary,
                 "timeZone": self.state.time_zone} for c in self.state.calendars]

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
        self.state.events = [e for e in self.state.events if e.calendar_id != calendar.id]
        self.state.calendars = [c for c in self.state.calendars if c.id != calendar.id]
        return f"Calendar {calendar.name!r} deleted with its {gone} event(s)"

    # -- events ------------------------------------------------------------------------------
    @tool(read_only=True)
    def list_events(
        self,
        calendarId: CalendarId,
        timeMin: Annotated[str | None, Field(description="Only events ending after this time")] = None,
        timeMax: Annotated[str | None, Field(description="Only events starting before this time")] = None,
        query: Annotated[str | None, Field(description="Words to find in title, description, location or attendees")] = None,
        maxResults: Annotated[int, Field(ge=1, le=250)] = 50,
    ) -> list:
        """The events of one calendar, earliest first, optionally within [timeMin, timeMax) and matching a
        free-text query (case-insensitive)."""
        calendar = self._calendar(calendarId)
        within = self._window(timeMin, timeMax)
        found = [e for e in self.state.events if e.calendar_id == calendar.id and within(e) and self._matches(e, query)]
        return [self._show(e) for e in self._sorted(found)[:maxResults]]

    @tool(read_only=True)
    def search_events(
        self,
        query: Annotated[str, Field(min_length=1, description="Words to find in title, description, location or attendees")],
        timeMin: str | None = None,
        timeMax: str | None = None,
    ) -> list:
        """Find events in every calendar whose title, description, location or attendee emails contain all
        the query's words (case-insensitive), earliest first."""
        within = self._window(timeMin, timeMax)
        return [self._show(e) for e in self._sorted([e for e in self.state.events if within(e) and self._matches(e, query)])]

    def _matches(self, event: Event, query: str | None) -> bool:
        if not query:
            return True
        text = " ".join([event.title, event.description, event.location, *(a.email for a in event.attendees)]).lower()
        return all(word in text for word in query.lower().split())

    @tool(read_only=True)
    def get_event(self, calendarId: CalendarId, eventId: EventId) -> dict:
        """One event with its attendees and their response status."""
        return self._show(self._event(calendarId, eventId))

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
    ) -> str:
        """Create an event. start and end are both times or both dates (all-day; end is the day after the
        last day). Returns the new event's id."""
        calendar = self._calendar(calendarId)
        event_id = next_id("evt_", {e.id for e in self.state.events})
        event = self._build(id=event_id, calendar_id=calendar.id, title=summary.strip() or summary,
                            start=self._time(start, "start"), end=self._time(end, "end"), description=description,
                            location=location, attendees=self._attendees(attendees or [], []))
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
            Field(description="The complete new attendee list: it REPLACES the current one (include everyone to keep)"),
        ] = None,
    ) -> str:
        """Change fields of an event; fields left out keep their value. Moving only the start keeps the
        event's duration. attendees replaces the whole list (kept attendees keep their response)."""
        event = self._event(calendarId, eventId)
        fields = event.model_dump()
        fields["attendees"] = event.attendees
        if summary is not None:
            if not summary.strip():
                raise ToolError("summary cannot be blank")
            fields["title"] = summary
        if start is not None:
            new_start = self._time(start, "start")
            if end is None and is_all_day(new_start) == is_all_day(event.start):
                duration = as_datetime(event.end) - as_datetime(event.start)
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
            fields["attendees"] = self._attendees(attendees, event.attendees)
        updated = self._build(**fields)
        self.state.events = [updated if e.id == event.id else e for e in self.state.events]
        return f"Event {event.id} updated"

    @tool(destructive=True)
    def move_event(self, calendarId: CalendarId, eventId: EventId, destinationCalendarId: CalendarId) -> str:
        """Move an event to another calendar, keeping its id."""
        event = self._event(calendarId, eventId)
        target = self._calendar(destinationCalendarId)
        if target.id == event.calendar_id:
            raise ToolError(f"event {eventId!r} is already in calendar {target.id!r}")
        event.calendar_id = target.id
        return f"Event {eventId} moved to calendar {target.id}"

    @tool(destructive=True)
    def delete_event(self, calendarId: CalendarId, eventId: EventId) -> str:
        """Delete an event."""
        event = self._event(calendarId, eventId)
        self.state.events = [e for e in self.state.events if e.id != event.id]
        return f"Event {eventId} deleted"

    @tool(read_only=True)
    def get_freebusy(
        self,
        timeMin: Time,
        timeMax: Time,
        calendarIds: Annotated[list[str] | None, Field(description="Calendars to check (default: all)")] = None,
    ) -> dict:
        """Busy intervals per calendar within [timeMin, timeMax): each {start, end}, earliest first."""
        within = self._window(timeMin, timeMax)
        calendars = [self._calendar(i) for i in calendarIds] if calendarIds else self.state.calendars
        return {c.id: [{"start": e.start, "end": e.end} for e in self._sorted(self.state.events)
                       if e.calendar_id == c.id and within(e)] for c in calendars}
