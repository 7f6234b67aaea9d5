"""x-t-leave-cover: Priya goes on two weeks' leave and a colleague covers; the holiday policy in force (in
Notion, the 2026 version; the superseded 2025 one says otherwise) decides which of her recurring meetings
the deputy joins: only the occurrences in the leave of the series with three or more guests besides her
(rooms are not guests), and not where the deputy is already a guest. The occurrences come from two
calendars (the stand-up lives on the shared ops calendar), some were moved already (stored exceptions,
updated in place) and the rest are expanded from their series (a new exception each); the weekly ops
review changes series in April and holidays drop occurrences. The out-of-office event's creation answers
``timeout_after_commit``: it was made, and a blind retry makes a second one.
Version 2 keeps only the organisations where this takes a cross-server hard task's 25-60 calls."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from servers.calendar import CalendarTools
from tasks_catalog.authoring.cross import org
from tasks_catalog.authoring.cross._x_t_people import (
    PRIMARY,
    calendar_tools,
    call,
    long_date,
    notion_page,
    people_template,
    slack_channel,
    solved,
    stored_exception,
)

#: The leaves (Monday to Friday two weeks later): over the ops review's move to Tuesdays and Good Friday,
#: mid-April, over the end of the stand-up and focus-time series and Labour Day, and into May.
LEAVES = (("2026-03-30", "2026-04-10"), ("2026-04-13", "2026-04-24"), ("2026-04-20", "2026-05-01"),
          ("2026-04-27", "2026-05-08"))
GUESTS = 3
#: The title the policy gives the event that blocks the leave (the goal says it too: "Annual leave from ...").
BLOCK = "Annual leave"
RULE_2026 = ("Meetings while you are on leave: the recurring meetings you organise that have three or more "
             "guests besides you (meeting rooms are not guests) go ahead while you are away. Add your deputy as a "
             "guest to each of their occurrences that falls in your leave (unless they are a guest already), and "
             "to nothing else: your other meetings, one-off or recurring, stay as they are.")
RULE_2026_B = ("Before your leave starts, block it in your primary calendar with one all-day event titled "
               f"\"{BLOCK}\" that covers the whole leave, and tell your team in its Slack channel who "
               "covers for you and when.")
RULE_2025 = ("Meetings while you are on leave: add your deputy to every meeting you organise during your leave, "
             "so that nothing is missed.")


def _block(page: dict[str, Any], n: int, text: str) -> dict[str, Any]:
    stem = page["id"][:-4]
    return {"op": "add", "in": ["pages", page["id"], "content"],
            "value": {"id": f"{stem}{n:04d}", "type": "paragraph", "text": text}}


def _occurrences(tools: CalendarTools, calendar: str, first: str, last: str) -> tuple[list[dict], list[dict]]:
    """The events of ``calendar`` in the leave as an agent lists them, and the reads that list them (pages
    of 25)."""
    day_after = (date.fromisoformat(last) + timedelta(days=1)).isoformat()
    items: list[dict] = []
    reads: list[dict] = []
    token = None
    while True:
        args: dict[str, Any] = {"calendarId": calendar, "timeMin": f"{first}T00:00", "timeMax": f"{day_after}T00:00"}
        if token:
            args["pageToken"] = token
        reads.append(call("calendar__list_events", **args))
        out = tools.list_events(calendar, timeMin=args["timeMin"], timeMax=args["timeMax"], pageToken=token)
        items += out["items"]
        token = out.get("nextPageToken")
        if not token:
            return items, reads


def _guests(item: dict[str, Any]) -> list[str]:
    return [a["email"] for a in item.get("attendees", []) if not a.get("resource") and a["email"] != PRIMARY]


def case_of(seed: int) -> dict[str, Any] | None:
    o = org(seed)
    owner = o.owner
    ops = [e for e in o.employees if e.team == "Operations" and e.active and e is not owner and e.started]
    if len(ops) < 5:
        return None
    deputy = ops[4]
    first, last = LEAVES[seed % len(LEAVES)]
    tools = calendar_tools(seed)
    stored = {e.id: e for e in tools.state.events}
    calendars = [PRIMARY, next(c.id for c in tools.state.calendars if c.name == "Operations team")]
    reads: list[dict] = []
    covered: list[dict] = []
    skipped: list[dict] = []
    mine: list[dict] = []
    for calendar in calendars:
        items, listing = _occurrences(tools, calendar, first, last)
        reads += listing
        for item in items:
            if item.get("organizer", {}).get("email") != PRIMARY or item.get("allDay"):
                continue
            mine.append(item)
            if not item.get("recurringEventId"):
                continue
            guests = _guests(item)
            if len(guests) < GUESTS:
                skipped.append(item)
            elif deputy.email not in guests:
                covered.append(item)
    if len(covered) < 6 or not skipped:
        return None
    # The leave's occurrences, stored as unchanged exceptions of their series (what the agent lists is the
    # same), so that each has an id of the initial state the predicate and the frame can name.
    materialise = [item for item in mine if item.get("recurringEventId") and item["id"] not in stored]
    calendar_patch = [{"op": "add", "in": ["events"], "value": stored_exception(stored[item["recurringEventId"]], item)}
                      for item in materialise]
    day_after = (date.fromisoformat(last) + timedelta(days=1)).isoformat()
    ops_channel = slack_channel(seed, "ops")
    current, old = notion_page(seed, "Holiday policy"), notion_page(seed, "Holiday policy 2025 (superseded)")

    def add_deputy(item: dict[str, Any], who: str) -> dict[str, Any]:
        emails = [a["email"] for a in item.get("attendees", [])]
        return call("calendar__update_event", calendarId=item["calendarId"], eventId=item["id"],
                    attendees=[*emails, who])

    frame: list[dict[str, Any]] = []
    success: list[dict[str, Any]] = []
    frame.append({"entity": "calendar.event", "ids": [item["id"] for item in covered], "fields": ["attendees"],
                  "values": {"attendees": {"add": [deputy.email], "key": "email"}}})
    success += [{"calendar.eventHasAttendee": {"event": item["id"], "attendee": deputy.email}} for item in covered]
    frame.append({"entity": "calendar.event", "change": ["create"], "max": 1,
                  "where": {"calendar_id": PRIMARY, "title": BLOCK, "start": first, "end": day_after}})
    frame.append({"entity": "slack.message", "change": ["create"], "where": {"channel": ops_channel}, "max": 1})
    success.append({"calendar.eventExists": {"title": BLOCK, "calendar": PRIMARY}})
    success.append({"slack.messagePosted": {"channel": "ops", "pattern": deputy.name}})

    ooo = call("calendar__create_event", calendarId=PRIMARY, summary=BLOCK, start=first, end=day_after,
               description=f"On leave; {deputy.name} covers.")
    post = call("slack__post_message", channel_id=ops_channel,
                text=f"I'm on leave from {long_date(first)} to {long_date(last)}. {deputy.name} covers for me "
                     "and joins our team meetings while I'm away.")
    discover = [call("notion__search", query="Holiday policy"),
                call("notion__get_block_children", block_id=current["id"]),
                call("calendar__list_calendars"),
                call("calendar__search_people", query=deputy.name),
                *reads]
    updates = [add_deputy(item, deputy.email) for item in covered]
    check = call("calendar__list_events", calendarId=PRIMARY, timeMin=f"{first}T00:00", timeMax=f"{day_after}T00:00",
                 query=BLOCK)
    channels = call("slack__list_channels", limit=100)
    reference = [*discover, *updates, ooo, check, channels, post]

    lookalike = ops[3] if ops[3] is not deputy else ops[2]
    everything = [add_deputy(item, deputy.email) for item in mine
                  if deputy.email not in [a["email"] for a in item.get("attendees", [])]]
    series = {item["recurringEventId"]: item for item in covered}
    whole_series = [call("calendar__update_event", calendarId=item["calendarId"], eventId=sid,
                         attendees=[*(a["email"] for a in item.get("attendees", [])), deputy.email])
                    for sid, item in series.items()]
    only_deputy = [call("calendar__update_event", calendarId=item["calendarId"], eventId=item["id"],
                        attendees=[deputy.email]) for item in covered]
    # Wrong solutions keep only their writes (reads change nothing the judgement sees).
    wrongs = [
        {"why": "reads the superseded 2025 policy: adds the deputy to every meeting of the leave, the 1:1s, focus "
                "time and one-off meetings too", "kind": "lookalike", "calls": [*everything, ooo, post]},
        {"why": "also adds the deputy to each whole series, so to every occurrence after the leave as well",
         "kind": "collateral", "calls": [*updates, *whole_series, ooo, post]},
        {"why": "passes only the deputy as the attendee list, which replaces the guests of each occurrence",
         "kind": "collateral", "calls": [*only_deputy, ooo, post]},
        {"why": f"adds {lookalike.name} instead of {deputy.name}", "kind": "lookalike",
         "calls": [*(add_deputy(item, lookalike.email) for item in covered), ooo, post]},
        {"why": "retries the leave's event after its timeout without checking: two events",
         "kind": "other", "calls": [*updates, ooo, ooo, post]},
        {"why": "looks only at the primary calendar: the stand-ups on the team calendar keep no deputy",
         "kind": "other", "calls": [*(add_deputy(item, deputy.email) for item in covered
                                      if item["calendarId"] == PRIMARY), ooo, post]},
    ]
    alternatives = [
        {"why": "tells the team first, then blocks the leave and adds the deputy",
         "calls": [*discover, channels, post, ooo, check, *updates]},
        {"why": "reads the superseded version too before acting on the current one",
         "calls": [call("notion__get_block_children", block_id=old["id"]), *discover, *updates, ooo, check, channels,
                   post]},
    ]
    return solved(
        deputy={"name": deputy.name, "email": deputy.email},
        first=first, last=last, first_long=long_date(first), last_long=long_date(last),
        patch={"calendar": calendar_patch, "slack": [],
               "notion": [_block(current, 9001, RULE_2026), _block(current, 9002, RULE_2026_B),
                          _block(old, 9001, RULE_2025)]},
        faults=[{"tool": "calendar__create_event", "on_call": 1, "kind": "timeout_after_commit"}],
        frame=frame, success={"all": success}, reference=reference, wrong=wrongs, alternatives=alternatives)


def build() -> dict[str, Any]:
    return {**people_template(
        id="x-t-leave-cover", servers=["calendar", "notion", "slack"], difficulty="hard", category="recovery",
        case_of=case_of, timeout_s=600,
        goal="Annual leave from {{case.first_long}} to {{case.last_long}}, finally! {{case.deputy.name}} covers for "
             "me while I'm away. Get my calendar and the team ready for it the way our holiday policy says.",
        tools=["calendar__list_calendars", "calendar__list_events", "calendar__search_events", "calendar__get_event",
               "calendar__search_people", "calendar__list_rooms", "calendar__get_freebusy", "calendar__create_event",
               "calendar__update_event", "calendar__delete_event", "notion__search", "notion__retrieve_page",
               "notion__get_block_children", "notion__query_database", "slack__list_channels",
               "slack__get_channel_history", "slack__search_messages", "slack__get_users", "slack__get_user_profile",
               "slack__post_message", "slack__reply_to_thread"]), "version": 2}
