"""x-t-one-on-one-moved: Priya moves one occurrence of her weekly 1:1 with Maria Santos to a later time that
day and tells Maria by email. Only that occurrence moves (the series stays), the other Maria (Santana, a
biweekly 1:1 on Thursdays too) is left alone, and the day's occurrence may already have been moved once
(it is then a stored exception). The occurrence is stored in the initial state as an exception that changes
nothing (what the agent lists is the same) so that the predicate and the frame can name it."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from tasks_catalog.authoring.cross import org
from tasks_catalog.authoring.cross._x_t_people import (
    PRIMARY,
    calendar_tools,
    call,
    local,
    people_template,
    solved,
    stored_exception,
)

#: Thursday of this week and of the next (now is Monday 16 March 2026), each named with its date: on a Monday
#: "next Thursday" is read as either (a solver took it for the 19th; calibration, 2026-12-05).
THURSDAYS = (("2026-03-19", "this Thursday, 19 March"), ("2026-03-26", "on Thursday of next week, 26 March"))
#: The later times the goal may ask for, tried from a place that depends on the seed.
TIMES = ("16:00", "16:30", "17:00", "17:30", "12:00", "12:30", "13:30", "11:30")


def _plus(start: str, minutes: int) -> str:
    return (datetime.fromisoformat(start) + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M")


def _on(tools, title: str, day: str) -> dict[str, Any] | None:
    out = tools.search_events(title, timeMin=f"{day}T00:00", timeMax=f"{day}T23:59")
    return next((i for i in out["items"] if i["summary"] == title), None)


def case_of(seed: int) -> dict[str, Any] | None:
    o = org(seed)
    santos = next(e for e in o.employees if e.name == "Maria Santos")
    santana = next(e for e in o.employees if e.name == "Maria Santana")
    title = "1:1 Priya / Maria Santos"
    tools = calendar_tools(seed)
    stored = {e.id: e for e in tools.state.events}
    found = [(day, when, _on(tools, title, day)) for day, when in THURSDAYS[seed % 2:] + THURSDAYS[:seed % 2]]
    day, when, item = next(((d, w, i) for d, w, i in found if i is not None), (None, None, None))
    if item is None or day is None:
        return None
    start = local(item["start"])
    busy = tools.get_freebusy(f"{day}T00:00", f"{day}T23:59",
                              calendarIds=[c.id for c in tools.state.calendars if "holiday" not in c.id])
    taken = [(b["start"], b["end"]) for spans in busy.values() for b in spans if "T" in b["start"]]
    new = None
    for k in range(len(TIMES)):
        at = f"{day}T{TIMES[(seed + k) % len(TIMES)]}"
        end = _plus(at, 30)
        if at > start and all(end <= a or b <= at for a, b in taken):
            new = at
            break
    if new is None:
        return None
    new_end = _plus(new, 30)
    patch = [] if item["id"] in stored else [
        {"op": "add", "in": ["events"], "value": stored_exception(stored[item["recurringEventId"]], item)}]
    find = call("calendar__search_events", query="Maria Santos", timeMin=f"{day}T00:00", timeMax=f"{day}T23:59")
    move = call("calendar__update_event", calendarId=PRIMARY, eventId=item["id"], start=new, end=new_end)
    hhmm = new[11:]
    mail = call("gmail__send_email", to=[santos.email], subject=f"Our 1:1 on Thursday moves to {hhmm}",
                body=f"Hi Maria,\n\nsomething came up, so I moved our 1:1 on Thursday to {hhmm}. See you then!\n\nPriya")
    other = _on(tools, "1:1 Priya / Maria Santana", day)
    if other is not None:
        lookalike = [call("calendar__update_event", calendarId=PRIMARY, eventId=other["id"], start=new,
                          end=_plus(new, 30)),
                     call("gmail__send_email", to=[santana.email], subject=mail["arguments"]["subject"],
                          body=mail["arguments"]["body"])]
        why = "moves the 1:1 with Maria Santana that day and writes to her"
    else:
        week_after = (datetime.fromisoformat(day) + timedelta(days=7)).date().isoformat()
        later = _on(tools, title, week_after)
        if later is None:
            return None
        lookalike = [call("calendar__update_event", calendarId=PRIMARY, eventId=later["id"],
                          start=f"{week_after}T{hhmm}", end=f"{week_after}T{_plus(new, 30)[11:]}"), mail]
        why = "moves the 1:1 of the Thursday after instead"
    h, m = hhmm[:2], hhmm[3:]
    t = int(h) - 12 if int(h) > 12 else int(h)
    said = [f"{h}:{m}", f"{h}\\.{m}", f"{h}h{m}", f"{t}:{m} ?[pP][mM]", f"{t}\\.{m} ?[pP][mM]"]
    said += [f"{t}{gap}{pm}" for gap in ("", " ") for pm in ("pm", "PM")] if m == "00" else []
    return solved(
        day=day, when=when, time=hhmm,
        patch={"calendar": patch, "gmail": []},
        frame=[
            {"entity": "calendar.event", "ids": [item["id"]], "fields": ["start", "end"],
             "values": {"start": {"eq": new}, "end": {"eq": new_end}}},
            {"entity": "gmail.message", "fields": ["label_ids"]},
            {"entity": "gmail.message", "change": ["create"], "where": {"to": [santos.email]}, "max": 1},
        ],
        success={"all": [
            {"calendar.eventExists": {"title": item["id"]}},
            {"not": {"calendar.eventExists": {"title": item["id"], "start": start}}},
            {"gmail.draftSent": {"to": santos.email, "subject_pattern": "1:1|[Mm]ove|[Mm]eeting|[Rr]eschedul|"
                                 "[Cc]atch|[Tt]hursday|[Cc]hange|[Tt]ime",
                                 "body_pattern": "|".join(dict.fromkeys(said))}},
        ]},
        reference=[find, move, mail],
        wrong=[
            {"why": why, "kind": "lookalike", "calls": lookalike},
            {"why": "moves the whole series, so every later 1:1 too", "kind": "collateral",
             "calls": [move, call("calendar__update_event", calendarId=PRIMARY, eventId=item["recurringEventId"],
                                  start=f"{local(item['originalStartTime'])[:10]}T{hhmm}"), mail]},
            {"why": "cancels the 1:1 instead of moving it", "kind": "other",
             "calls": [call("calendar__delete_event", calendarId=PRIMARY, eventId=item["id"]), mail]},
            {"why": "tells Maria but leaves the meeting where it was", "kind": "other", "calls": [mail]},
        ],
        alternatives=[
            {"why": "looks Maria up in the directory and reads the occurrence first",
             "calls": [call("calendar__search_people", query="Maria Santos"), find,
                       call("calendar__get_event", calendarId=PRIMARY, eventId=item["id"]), move, mail]},
        ])


def build() -> dict[str, Any]:
    return people_template(
        id="x-t-one-on-one-moved", servers=["calendar", "gmail"], difficulty="easy", category="standard",
        case_of=case_of, timeout_s=300,
        goal="Something came up {{case.when}}: move my 1:1 with Maria Santos that day to {{case.time}} and let her "
             "know by email.",
        tools=["calendar__list_calendars", "calendar__list_events", "calendar__search_events", "calendar__get_event",
               "calendar__get_freebusy", "calendar__search_people", "calendar__create_event",
               "calendar__update_event", "calendar__delete_event", "gmail__search_emails", "gmail__read_email",
               "gmail__get_thread", "gmail__send_email", "gmail__draft_email", "gmail__list_drafts",
               "gmail__send_draft"])
