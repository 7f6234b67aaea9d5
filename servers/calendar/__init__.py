"""The calendar server: one account's calendars and events, after Google Calendar."""

from servers.kit import ServerSpec
from servers.calendar.state import CalendarState
from servers.calendar.tools import CalendarTools

SPEC = ServerSpec(
    name="calendar",
    description=(
        "The Google-style calendars of one account: list and create calendars, and find, create, update, "
        "move and delete events and their attendees. Event times are local to the account's time zone "
        "(list_calendars shows it); 'primary' names the primary calendar."
    ),
    toolset=CalendarTools,
)

__all__ = ["SPEC", "CalendarState", "CalendarTools"]
