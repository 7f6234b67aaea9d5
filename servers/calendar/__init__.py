"""The calendar server: one account's calendars and events, after Google Calendar."""

from servers.calendar.state import CalendarState
from servers.calendar.tools import CalendarTools
from servers.kit import ServerSpec

SPEC = ServerSpec(
    name="calendar",
    description=(
        "The Google-style calendars of one account: list and create calendars, and find, create, update, "
        "move and delete events and their attendees; recurring series expand into occurrences with their own "
        "ids (changing or deleting one changes only that occurrence). Look colleagues up with search_people and "
        "book a room by inviting its email (list_rooms). Event times are local to the account's time zone "
        "(list_calendars shows it and the present); 'primary' names the primary calendar."
    ),
    toolset=CalendarTools,
)

__all__ = ["SPEC", "CalendarState", "CalendarTools"]
