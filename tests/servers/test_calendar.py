import pytest

from servers.calendar import CalendarState
from servers.kit import StateError

ME = "ana.silva@northwind.example"
STATE = {
    "owner": ME,
    "time_zone": "Europe/Lisbon",
    "calendars": [
        {"id": ME, "name": "Ana Silva", "primary": True},
        {"id": "cal_2", "name": "Sintra Offsite 2026"},
    ],
    "events": [
        {"id": "evt_1", "calendar_id": ME, "title": "Budget review", "start": "2026-03-18T10:00", "end": "2026-03-18T11:00",
         "location": "Room Tejo", "attendees": [{"email": "priya.raman@northwind.example", "response_status": "accepted"}]},
        {"id": "evt_2", "calendar_id": ME, "title": "1:1 with Tomás", "start": "2026-03-19T15:30", "end": "2026-03-19T16:00"},
        {"id": "evt_3", "calendar_id": "cal_2", "title": "Offsite", "start": "2026-05-12", "end": "2026-05-14"},
    ],
}


def titles(listing):
    return [e["summary"] for e in listing["items"]]


def test_calendars_are_listed_created_and_deleted_with_their_events(live):
    cal = live("calendar", STATE)
    listed = cal.ok_json("list_calendars")["items"]
    assert [(c["id"], c["summary"], c["primary"]) for c in listed] == [(ME, "Ana Silva", True), ("cal_2", "Sintra Offsite 2026", False)]
    assert listed[0]["timeZone"] == "Europe/Lisbon"
    assert cal.ok("create_calendar", summary="On-call rota") == "Calendar 'On-call rota' created with id cal_3"
    assert "already exists (id cal_2)" in cal.error("create_calendar", summary="Sintra Offsite 2026")
    assert cal.ok("delete_calendar", calendarId="cal_2") == "Calendar 'Sintra Offsite 2026' deleted with its 1 event(s)"
    state = cal.state()
    assert [c.name for c in state.calendars] == ["Ana Silva", "On-call rota"]
    assert [e.id for e in state.events] == ["evt_1", "evt_2"]
    assert "primary calendar cannot be deleted" in cal.error("delete_calendar", calendarId="primary")


def test_list_events_filters_by_window_and_query_earliest_first(live):
    cal = live("calendar", STATE)
    assert titles(cal.ok_json("list_events", calendarId="primary")) == ["Budget review", "1:1 with Tomás"]
    assert titles(cal.ok_json("list_events", calendarId="primary", timeMin="2026-03-18T11:00")) == ["1:1 with Tomás"]
    assert titles(cal.ok_json("list_events", calendarId=ME, timeMax="2026-03-18T10:30")) == ["Budget review"]
    assert titles(cal.ok_json("list_events", calendarId=ME, query="priya")) == ["Budget review"]
    assert titles(cal.ok_json("list_events", calendarId="cal_2", timeMin="2026-05-13", timeMax="2026-05-14")) == ["Offsite"]
    first = cal.ok_json("list_events", calendarId=ME, maxResults=1)
    assert [e["id"] for e in first["items"]] == ["evt_1"]
    second = cal.ok_json("list_events", calendarId=ME, maxResults=1, pageToken=first["nextPageToken"])
    assert [e["id"] for e in second["items"]] == ["evt_2"] and "nextPageToken" not in second
    assert "invalid_cursor" in cal.error("list_events", calendarId="cal_2", pageToken=first["nextPageToken"])


def test_search_events_looks_in_every_calendar(live):
    cal = live("calendar", STATE)
    assert [e["id"] for e in cal.ok_json("search_events", query="offsite")["items"]] == ["evt_3"]
    assert [e["id"] for e in cal.ok_json("search_events", query="room tejo")["items"]] == ["evt_1"]
    assert cal.ok_json("search_events", query="offsite", timeMax="2026-04-01")["items"] == []


def test_get_event_shows_attendees_and_response(live):
    cal = live("calendar", STATE)
    event = cal.ok_json("get_event", calendarId="primary", eventId="evt_1")
    assert event["attendees"] == [{"email": "priya.raman@northwind.example", "responseStatus": "accepted"}]
    assert event["allDay"] is False
    assert event["start"] == {"dateTime": "2026-03-18T10:00:00+00:00", "timeZone": "Europe/Lisbon"}
    assert cal.ok_json("get_event", calendarId="cal_2", eventId="evt_3")["end"] == {"date": "2026-05-14"}
    assert "it is in 'cal_2'" in cal.error("get_event", calendarId="primary", eventId="evt_3")
    assert "unknown event id 'evt_9'" in cal.error("get_event", calendarId="primary", eventId="evt_9")
    assert "unknown calendar id 'cal_9'" in cal.error("get_event", calendarId="cal_9", eventId="evt_1")


def test_create_event_normalises_times_to_the_account_zone(live):
    cal = live("calendar", STATE)
    text = cal.ok("create_event", calendarId="cal_2", summary="Venue visit", start="2026-04-02T08:00:00Z",
                  end="2026-04-02T11:00:00+01:00", location="Sintra", attendees=["tomas.ferreira@northwind.example"])
    assert text.startswith("Event 'Venue visit' created with id evt_4 in calendar cal_2")
    event = cal.state().events[-1]
    assert (event.start, event.end) == ("2026-04-02T09:00", "2026-04-02T11:00")
    assert [a.email for a in event.attendees] == ["tomas.ferreira@northwind.example"]
    cal.ok("create_event", calendarId="primary", summary="Carnival", start="2026-02-17", end="2026-02-18")
    assert cal.state().events[-1].start == "2026-02-17"


def test_create_event_refuses_bad_times_and_attendees(live):
    cal = live("calendar", STATE)
    assert "bad start" in cal.error("create_event", calendarId="primary", summary="x", start="next Tuesday", end="2026-03-18T11:00")
    assert "end 2026-03-18T09:00 must be after start" in cal.error(
        "create_event", calendarId="primary", summary="Standup", start="2026-03-18T10:00", end="2026-03-18T09:00")
    assert "both be dates" in cal.error("create_event", calendarId="primary", summary="Standup", start="2026-03-18", end="2026-03-18T09:00")
    assert "to the minute" in cal.error("create_event", calendarId="primary", summary="Standup", start="2026-03-18T10:00:30", end="2026-03-18T11:00")
    assert "invalid attendee 'priya'" in cal.error(
        "create_event", calendarId="primary", summary="Standup", start="2026-03-18T10:00", end="2026-03-18T10:15", attendees=["priya"])
    assert len(cal.state().events) == 3


def test_update_event_replaces_attendees_and_keeps_known_responses(live):
    cal = live("calendar", STATE)
    cal.ok("update_event", calendarId="primary", eventId="evt_1",
           attendees=["priya.raman@northwind.example", "lena.vogt@kestrel.example"])
    assert [(a.email, a.response_status) for a in cal.state().events[0].attendees] == [
        ("priya.raman@northwind.example", "accepted"), ("lena.vogt@kestrel.example", "needsAction")]
    cal.ok("update_event", calendarId="primary", eventId="evt_1", attendees=["lena.vogt@kestrel.example"])
    assert [a.email for a in cal.state().events[0].attendees] == ["lena.vogt@kestrel.example"]


def test_moving_only_the_start_keeps_the_duration(live):
    cal = live("calendar", STATE)
    cal.ok("update_event", calendarId="primary", eventId="evt_2", start="2026-03-20T09:00", summary="1:1 with Tomás (moved)")
    event = cal.state().events[1]
    assert (event.title, event.start, event.end) == ("1:1 with Tomás (moved)", "2026-03-20T09:00", "2026-03-20T09:30")
    cal.ok("update_event", calendarId="cal_2", eventId="evt_3", start="2026-05-19")
    assert (cal.state().events[2].start, cal.state().events[2].end) == ("2026-05-19", "2026-05-21")
    cal.ok("update_event", calendarId="primary", eventId="evt_2", end="2026-03-20T10:00", description="Quarterly goals", location="Café")
    event = cal.state().events[1]
    assert (event.end, event.description, event.location) == ("2026-03-20T10:00", "Quarterly goals", "Café")


def test_update_event_refuses_an_end_before_the_start(live):
    cal = live("calendar", STATE)
    assert "must be after start" in cal.error("update_event", calendarId="primary", eventId="evt_1", end="2026-03-18T09:00")
    assert "blank" in cal.error("update_event", calendarId="primary", eventId="evt_1", summary="  ")
    assert cal.state().events[0].end == "2026-03-18T11:00"


def test_events_are_moved_between_calendars_and_deleted(live):
    cal = live("calendar", STATE)
    cal.ok("move_event", calendarId="primary", eventId="evt_2", destinationCalendarId="cal_2")
    assert cal.state().events[1].calendar_id == "cal_2"
    assert "already in calendar" in cal.error("move_event", calendarId="cal_2", eventId="evt_2", destinationCalendarId="cal_2")
    assert "unknown calendar id" in cal.error("move_event", calendarId="cal_2", eventId="evt_2", destinationCalendarId="cal_7")
    cal.ok("delete_event", calendarId="cal_2", eventId="evt_2")
    assert [e.id for e in cal.state().events] == ["evt_1", "evt_3"]
    assert "unknown event id" in cal.error("delete_event", calendarId="cal_2", eventId="evt_2")


def test_freebusy_reports_busy_intervals_per_calendar(live):
    cal = live("calendar", STATE)
    busy = cal.ok_json("get_freebusy", timeMin="2026-03-18T00:00", timeMax="2026-03-20T00:00")
    assert busy == {ME: [{"start": "2026-03-18T10:00", "end": "2026-03-18T11:00"},
                         {"start": "2026-03-19T15:30", "end": "2026-03-19T16:00"}], "cal_2": []}
    assert list(cal.ok_json("get_freebusy", timeMin="2026-05-01", timeMax="2026-06-01", calendarIds=["cal_2"])) == ["cal_2"]
    assert "timeMax must be after timeMin" in cal.error("get_freebusy", timeMin="2026-03-20", timeMax="2026-03-18")


def test_without_a_primary_calendar_primary_is_an_error(live):
    cal = live("calendar", {"calendars": [{"id": "cal_1", "name": "Shared"}]})
    assert "no primary calendar" in cal.error("list_events", calendarId="primary")


def test_dump_and_reload_keep_the_digest(live):
    cal = live("calendar", STATE)
    cal.ok("create_event", calendarId="primary", summary="Almoço com a Joana", start="2026-03-21T13:00", end="2026-03-21T14:00")
    state = cal.state()
    assert CalendarState.load(state.dump()).digest() == state.digest()
    assert CalendarState.load(STATE).digest() != state.digest()


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"time_zone": "Mars/Olympus"}, "unknown time zone"),
        ({"events": [{**STATE["events"][0], "start": "18/03/2026 10:00"}]}, "must look like"),
        ({"events": [{**STATE["events"][0], "end": "2026-03-18T09:00"}]}, "is not after start"),
        ({"events": [{**STATE["events"][0], "calendar_id": "cal_9"}]}, "unknown calendar 'cal_9'"),
        ({"calendars": STATE["calendars"] + [{"id": "cal_5", "name": "Ana Silva"}]}, "calendar name 'Ana Silva'"),
        ({"agenda": []}, "agenda"),
    ],
)
def test_a_bad_state_names_the_problem(change, problem):
    with pytest.raises(StateError, match=problem):
        CalendarState.load({**STATE, **change})


SERIES = {
    **STATE,
    "events": STATE["events"] + [
        {"id": "ops", "calendar_id": ME, "title": "Weekly ops review", "start": "2026-03-02T10:00", "end": "2026-03-02T11:00",
         "recurrence": ["RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=4", "EXDATE:20260316T100000"],
         "attendees": [{"email": "jonas.berg@kestrelfreight.com", "response_status": "accepted"}]},
        {"id": "ops_20260309T1000", "calendar_id": ME, "title": "Weekly ops review", "start": "2026-03-09T11:00",
         "end": "2026-03-09T12:00", "recurring_event_id": "ops", "original_start": "2026-03-09T10:00"},
    ],
}


def occurrences(listing):
    return [(e["id"], e["start"]["dateTime"][:16]) for e in listing["items"] if e["summary"] == "Weekly ops review"]


def test_a_recurring_series_lists_as_occurrences_with_exceptions_and_exdates(live):
    cal = live("calendar", SERIES)
    listed = cal.ok_json("list_events", calendarId="primary", timeMin="2026-03-01", timeMax="2026-04-01")
    assert occurrences(listed) == [("ops_20260302T1000", "2026-03-02T10:00"), ("ops_20260309T1000", "2026-03-09T11:00"),
                                   ("ops_20260323T1000", "2026-03-23T10:00")]
    assert all(e["recurringEventId"] == "ops" for e in listed["items"] if e["summary"] == "Weekly ops review")
    moved = cal.ok_json("get_event", calendarId="primary", eventId="ops_20260309T1000")
    assert moved["originalStartTime"]["dateTime"].startswith("2026-03-09T10:00")
    series = cal.ok_json("list_events", calendarId="primary", singleEvents=False, query="ops review")["items"]
    assert [(e["id"], e.get("recurrence", [""])[0]) for e in series] == [
        ("ops", "RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=4"), ("ops_20260309T1000", "")]
    assert "unknown event id 'ops_20260316T1000'" in cal.error("get_event", calendarId="primary", eventId="ops_20260316T1000")


def test_deleting_or_changing_an_occurrence_touches_that_occurrence_only(live):
    cal = live("calendar", SERIES)
    assert "cancelled" in cal.ok("delete_event", calendarId="primary", eventId="ops_20260323T1000")
    cal.ok("update_event", calendarId="primary", eventId="ops_20260302T1000", summary="Ops review (short)",
           attendees=["jonas.berg@kestrelfreight.com", "lena.vogt@kestrelfreight.com"])
    state = cal.state()
    cancelled = next(e for e in state.events if e.id == "ops_20260323T1000")
    assert (cancelled.status, cancelled.recurring_event_id, cancelled.original_start) == ("cancelled", "ops", "2026-03-23T10:00")
    changed = next(e for e in state.events if e.id == "ops_20260302T1000")
    assert (changed.title, changed.start, [a.response_status for a in changed.attendees]) == (
        "Ops review (short)", "2026-03-02T10:00", ["accepted", "needsAction"])
    listed = cal.ok_json("list_events", calendarId="primary", timeMin="2026-03-01", timeMax="2026-04-01")
    assert occurrences(listed) == [("ops_20260309T1000", "2026-03-09T11:00")]
    assert "already deleted" in cal.error("delete_event", calendarId="primary", eventId="ops_20260323T1000")
    cal.ok("delete_event", calendarId="primary", eventId="ops")
    assert not [e for e in cal.state().events if e.id.startswith("ops")]


def test_a_series_is_created_with_a_recurrence_and_bad_rules_are_refused(live):
    cal = live("calendar", STATE)
    cal.ok("create_event", calendarId="primary", summary="Budget review", start="2026-01-15T14:00", end="2026-01-15T15:00",
           recurrence=["RRULE:FREQ=MONTHLY;BYDAY=3TH;COUNT=3"])
    listed = cal.ok_json("list_events", calendarId="primary", query="budget", timeMin="2026-01-01")
    assert [e["start"]["dateTime"][:10] for e in listed["items"]] == ["2026-01-15", "2026-02-19", "2026-03-18", "2026-03-19"]
    assert "FREQ 'YEARLY' is not supported" in cal.error(
        "create_event", calendarId="primary", summary="x", start="2026-01-15T14:00", end="2026-01-15T15:00",
        recurrence=["RRULE:FREQ=YEARLY"])


def test_the_directory_and_rooms_are_searchable(live):
    cal = live("calendar", {**STATE, "people": [
        {"email": "maria.santos@kestrelfreight.com", "name": "Maria Santos", "department": "Sales"},
        {"email": "maria.santana@kestrelfreight.com", "name": "Maria Santana", "department": "Finance"}],
        "rooms": [{"email": "room-tejo@resource.kestrelfreight.com", "name": "Tejo", "building": "Lisbon HQ", "capacity": 8}]})
    assert [p["email"] for p in cal.ok_json("search_people", query="maria")["people"]] == [
        "maria.santana@kestrelfreight.com", "maria.santos@kestrelfreight.com"]
    assert cal.ok_json("search_people", query="maria finance")["totalSize"] == 1
    assert cal.ok_json("list_rooms", building="lisbon")["items"][0]["capacity"] == 8


def test_the_calendar_world_pages_its_listings_and_keeps_lookalikes(live):
    cal = live("calendar", {"world": {"generator": "calendar", "version": 1, "seed": 1, "size": "default"}})
    week = cal.ok_json("list_events", calendarId="primary", timeMin="2026-03-16", timeMax="2026-03-28")
    assert len(week["items"]) == 25 and week["nextPageToken"]
    more = cal.ok_json("list_events", calendarId="primary", timeMin="2026-03-16", timeMax="2026-03-28",
                       pageToken=week["nextPageToken"])
    assert {e["id"] for e in more["items"]}.isdisjoint(e["id"] for e in week["items"])
    budget = {e["summary"] for e in cal.ok_json("search_events", query="budget review", timeMin="2026-03-16",
                                                 timeMax="2026-03-21")["items"]}
    assert budget == {"Q1 budget review", "Budget review"}
    marias = cal.ok_json("search_people", query="maria")["people"]
    assert {"Maria Santos", "Maria Santana"} <= {p["name"] for p in marias}


@pytest.mark.parametrize(("seed", "size"), [(13, "small"), (0, "default"), (489, "default"), (627, "default")])
def test_every_seed_of_version_1_has_a_world_with_both_marias_1_1s(seed, size):
    """Version 1 drew 41 people and left out the last one after the owner; where that was Maria Santos or Maria
    Santana, whom its 1:1 series need, the seed raised a KeyError instead of giving a world (84 of seeds 0-999 in
    both sizes; at 489 and 627 both are the last two drawn). Those seeds now have one: a directory of 40 beside
    the owner, and both series."""
    from servers.kit.world import get_generator

    state = CalendarState.load(get_generator("calendar", 1).generate(seed, size))
    assert len(state.people) == 41
    series = {e.title: e.attendees for e in state.events if e.title.startswith("1:1 Priya / Maria") and e.recurrence}
    assert [a.email for a in series["1:1 Priya / Maria Santos"]] == ["maria.santos@kestrelfreight.com"]
    assert [a.email for a in series["1:1 Priya / Maria Santana"]] == ["maria.santana@kestrelfreight.com"]


@pytest.mark.parametrize(("seed", "size", "digest"), [
    (1, "default", "a331e4b1542e249495eb73875fb33b3ae0b69995be307fe53f698dcc1c1dbdbf"),
    (2, "default", "8d0448e747b6b05fc0f32e208501168a558dca53cf2188216e26581844c53b35"),  # the single-server templates' world
    (2, "small", "ad9ad556817cb7d88f7bd6eadfb881251155467558a334e91b9465c7ba914c1c"),
])
def test_a_version_1_world_that_built_before_the_fix_is_the_same(seed, size, digest):
    """Tasks name worlds by version and seed, so the fix above gives a world only where there was none: these
    digests were taken before it (and every one of the 1,916 other worlds of seeds 0-999 was compared then)."""
    from servers.kit.world import digest as world_digest
    from servers.kit.world import get_generator

    assert world_digest(get_generator("calendar", 1).generate(seed, size)) == digest


@pytest.mark.parametrize(("rule", "start", "expected"), [
    (["RRULE:FREQ=MONTHLY;BYDAY=-1FR;COUNT=3"], "2026-01-30T16:00", ["2026-01-30", "2026-02-27", "2026-03-27"]),
    (["RRULE:FREQ=DAILY;INTERVAL=3;COUNT=3"], "2026-03-30T09:00", ["2026-03-30", "2026-04-02", "2026-04-05"]),
    (["RRULE:FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=20260311T000000Z"], "2026-03-02T09:00", ["2026-03-02", "2026-03-04", "2026-03-09"]),
    (["RRULE:FREQ=WEEKLY;COUNT=3", "EXDATE:20260309T090000"], "2026-03-02T09:00", ["2026-03-02", "2026-03-16"]),
    (["RRULE:FREQ=MONTHLY;COUNT=3"], "2026-01-31T09:00", ["2026-01-31", "2026-03-31", "2026-05-31"]),  # no 31 Feb
])
def test_recurrence_rules_expand_as_rfc_5545_says(rule, start, expected):
    from datetime import datetime

    from servers.calendar import recur

    moments = recur.occurrences(datetime.fromisoformat(start), recur.parse(rule))
    assert [m.date().isoformat() for m in moments] == expected


@pytest.mark.parametrize(("rule", "problem"), [
    (["RRULE:FREQ=WEEKLY;COUNT=2;UNTIL=20260101T000000Z"], "not both"),
    (["RRULE:FREQ=MONTHLY;BYDAY=MO,TU"], "one ordinal weekday"),
    (["RRULE:FREQ=WEEKLY;BYDAY=XX"], "days like MO,WE,FR"),
    (["RRULE:FREQ=WEEKLY;BYSETPOS=1"], "BYSETPOS is not supported"),
    (["EXDATE:20260101T000000"], "needs an RRULE"),
    (["RDATE:20260101"], "only RRULE and EXDATE"),
])
def test_an_unsupported_recurrence_is_refused_saying_why(rule, problem):
    from servers.calendar import recur

    with pytest.raises(ValueError, match=problem):
        recur.parse(rule)
