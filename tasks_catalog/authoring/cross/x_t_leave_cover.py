"""x-t-leave-cover: Priya goes on two weeks' leave and a colleague covers; the holiday policy in force (in
Notion, the 2026 version; the superseded 2025 one says otherwise) decides which of her recurring meetings
the deputy joins: only the occurrences in the leave of the series with three or more guests besides her
(rooms are not guests), and not where the deputy is already a guest. The occurrences come from two
calendars (the stand-up lives on the shared ops calendar), some were moved already (stored exceptions,
updated in place) and the rest are expanded from their series (a new exception each); the weekly ops
review changes series in April and holidays drop occurrences. The out-of-office event's creation answers
``timeout_after_commit``: it was made, and a blind retry makes a second one.
Version 2 keeps only the organisations where this takes a cross-server hard task's 25-60 calls.

Version 3 adds a convention of the team's past work that only opening shows (docs/templates.md, "Conventions from
past work"): the goal asks for the leave to be prepared "as we did for our earlier leaves", and #ops holds five
earlier leaves (March 2025 to February 2026; 2-3 of them Priya's, the others her team's), each announced in the
words the reference uses and each with one reply from the leaver in its thread, so the channel history counts one
reply on every thread alike and shows no more. On the leaves of two weeks or more (2 of the 5, drawn per case:
the most recent leave is one of them in some cases only) that reply tags the deputy and hands them the carrier
on-call rota; on the shorter ones it is a plain note. The holiday policy says nothing of it. The rota itself is a
Notion page, "Carrier on-call rota" under "Operations" (a search for "rota" finds it beside engineering's
"On-call Rota"): one holder a week, the team in turn, in which each long earlier leave's leaver held one of its
weeks, no short leave's leaver held one of theirs, and Priya holds one of the new leave's two weeks (the page says
nothing of the handover). The new leave is two weeks, so the judge asks for a message in #ops naming or tagging
the deputy with the rota or the on-call ("you take my carrier on-call slots") in one message (in the
announcement's thread as the team wrote it, in the announcement itself or in a message of its own: #ops may get
two messages); a seed where a message of #ops meets that check already gives no case. :data:`READINGS` lists the other readings (always, never, by leaver, Priya's or not, by deputy,
month, quarter, running into the next month, over a public holiday, older or more recent, shorter): a draw
where one fits every earlier leave and would spare the new one is redrawn, and a seed without a fair draw gives
no case. The reference without the handover is a wrong solution, and so are a plain note in the thread and
the rota handed to someone else. 17 cases (18 with the rota page, 24 before the earlier leaves, would pass the 4 MiB
a template may be)."""

from __future__ import annotations

import random
import re
from datetime import date, timedelta
from typing import Any

from servers.calendar import CalendarTools
from servers.org import HOLIDAYS as PT_HOLIDAYS
from servers.slack.state import ts_from_key, ts_key
from tasks_catalog.authoring.cross import cases, on_worlds, org, template, world
from tasks_catalog.authoring.cross._x_t_billing import unix
from tasks_catalog.authoring.cross._x_t_people import (
    PRIMARY,
    body,
    calendar_tools,
    call,
    long_date,
    notion_page,
    slack_channel,
    solved,
    stored_exception,
)
from tasks_catalog.authoring.cross._x_t_readings import Always, FlaggedSide, FlaggedWhen, left_open

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


#: Version 3: the team's earlier leaves (:data:`PAST` of them, Priya's and her team's other organisers', from
#: March 2025 to February 2026) were each announced in #ops in the words the reference uses, and each got one
#: reply in its thread from the leaver (so the channel history counts one reply on every thread alike). On the
#: leaves of :data:`LONG` working days or more (:data:`TAGGED` of them, drawn per case) that reply hands the
#: deputy the carrier on-call rota, tagging them (:func:`_handover`); on the shorter ones it is a plain note
#: (:data:`NOTES`). The holiday policy says nothing of the rota; only opening the threads shows the habit.
PAST = 5
TAGGED = 2
LONG = 10
#: The short leaves' lengths in working days (Monday to Wednesday, Thursday or Friday, or a two-day break).
SHORT = (2, 3, 4, 5)
NOTES = ("Calendar blocked and the out-of-office is on. Back on {back}.",
         "Out-of-office set, calendar blocked. See you all on {back}.",
         "All blocked in my calendar. Back on {back}.")
#: What the rota handover must say to count: the deputy (tagged or named) and, in the same message, the rota or
#: the on-call ("you take my carrier on-call slots").
ROTA = "(?:[Rr]ota|[Oo]n[- ]call)"

#: The carrier on-call rota in Notion (under a page "Operations"): one holder a week, Monday to Sunday, from
#: :data:`ROTA_FROM` to :data:`ROTA_TO`, kept by the team (:func:`_rota`). Engineering's "On-call Rota" is a
#: different page; a search for "rota" finds both.
ROTA_PAGE = "Carrier on-call rota"
ROTA_FROM, ROTA_TO = date(2025, 3, 3), date(2026, 6, 29)


#: Cases (version 3; 24 before): each now carries the earlier leaves, the handover, the solutions that judge it and
#: the rota page (about 30 KB a case), and 18 of them would make the template larger than the 4 MiB a template may
#: be.
WANT = 17


def _handover(deputy_id: str, back: str) -> str:
    """The leaver's thread reply on a long leave: the deputy gets the carrier on-call rota."""
    return (f"<@{deputy_id}> the carrier on-call rota is yours while I'm away: you take my slots until I'm back "
            f"on {back}.")


def _working_days_after(start: date, n: int) -> date:
    """The ``n``-th working day (Monday to Friday) counted from ``start`` (the first)."""
    day, left = start, n - 1
    while left:
        day += timedelta(days=1)
        if day.weekday() < 5:
            left -= 1
    return day


#: Portugal's public holidays (where the HQ is) on working days, 2025 (the world's calendar has 2026's), for the
#: reading "a leave over a public holiday".
HOLIDAYS_2025 = ("2025-03-04", "2025-04-18", "2025-04-25", "2025-05-01", "2025-06-10", "2025-06-13", "2025-06-19",
                 "2025-08-15", "2025-12-01", "2025-12-08", "2025-12-25")


def _over_holiday(first: date, last: date) -> bool:
    days = {date.fromisoformat(d) for d in (*HOLIDAYS_2025, *(d for _, d in PT_HOLIDAYS))}
    return any(first <= d <= last and d.weekday() < 5 for d in days)


def _crosses(first: date, last: date) -> bool:
    return first.month != last.month


#: Readings of when the leaver's thread reply hands the deputy the rota, each contradicted by an earlier leave
#: or giving the new leave the reply too (``left_open``): the length of the leave (the habit) is not among them.
READINGS: dict[str, Any] = {
    "always": Always(True, "tagged"), "never": Always(False, "tagged"),
    "the leavers who did it before": FlaggedWhen("leaver", "tagged"),
    "Priya's own leaves, or only the others'": FlaggedWhen("priya", "tagged"),
    "the deputies handed it before": FlaggedWhen("deputy", "tagged"),
    "the months of the leaves that did it": FlaggedWhen("month", "tagged"),
    "the quarters of the leaves that did it": FlaggedWhen("quarter", "tagged"),
    "leaves that run into the next month": FlaggedWhen("crosses", "tagged"),
    "leaves over a public holiday": FlaggedWhen("holiday", "tagged"),
    "the older leaves only": FlaggedSide("order", True, "tagged"),
    "the more recent leaves only": FlaggedSide("order", False, "tagged"),
    "the shorter leaves": FlaggedSide("length", True, "tagged"),
    "the leaves in which the leaver held a week of the carrier on-call rota": FlaggedWhen("slot", "tagged"),
}


def _past_leaves(seed: int, o: Any, ops: list[Any], deputy: Any, channel: dict[str, Any],
                 first: str, last: str) -> list[dict[str, Any]] | None:
    """The earlier leaves of the case (oldest first), drawn until every reading of :data:`READINGS` other
    than the habit is contradicted by one or treats the new leave as the habit does; None when none such."""
    rng = random.Random(f"x-t-leave-cover/past/{seed}")
    owner = o.owner
    people = [e for e in [owner, *ops] if e.slack_id in channel["members"]]
    if len(people) < 4:
        return None
    start, end = date(2025, 3, 3), date(2026, 2, 16)
    mondays = [start + timedelta(weeks=k) for k in range((end - start).days // 7 + 1)]
    new_first, new_last = date.fromisoformat(first), date.fromisoformat(last)
    new = {"leaver": owner.email, "priya": True, "deputy": deputy.email, "month": new_first.month,
           "quarter": (new_first.month - 1) // 3, "crosses": _crosses(new_first, new_last), "order": PAST,
           "holiday": _over_holiday(new_first, new_last),
           "length": LONG, "slot": True}
    for _ in range(3000):
        picks = sorted(rng.sample(range(len(mondays)), PAST))
        if any(b - a < 4 for a, b in zip(picks, picks[1:])):
            continue
        tagged = set(rng.sample(range(PAST), TAGGED))
        hers = set(rng.sample(range(PAST), rng.choice((2, 3))))
        leaves = []
        for n, k in enumerate(picks):
            leaver = owner if n in hers else rng.choice(people[1:])
            # never the new deputy: an earlier message naming them would meet the judge's checks before any write
            cover = rng.choice([e for e in people if e is not leaver and e is not deputy])
            length = LONG if n in tagged else rng.choice(SHORT)
            begin = mondays[k] + timedelta(days=0 if length >= 5 else rng.randrange(6 - length))
            stop = _working_days_after(begin, length)
            leaves.append({"leaver": leaver.email, "priya": leaver is owner, "deputy": cover.email,
                           "month": begin.month, "quarter": (begin.month - 1) // 3, "crosses": _crosses(begin, stop),
                           "holiday": _over_holiday(begin, stop),
                           "order": n, "length": length, "tagged": n in tagged, "slot": n in tagged,
                           "who": leaver, "cover": cover, "first": begin, "last": stop})
        if not left_open(READINGS, leaves, [new], lambda item: True):
            return leaves
    return None


def _announcements(seed: int, channel: str, past: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The earlier leaves in #ops: each announcement and the leaver's one reply in its thread (the post's ts is
    kept on each leave as ``post_ts``)."""
    slack_patch: list[dict[str, Any]] = []
    for n, leave in enumerate(past):
        back = long_date(_working_days_after(leave["last"], 2).isoformat())
        said = unix(f"{leave['first'] - timedelta(days=3 + n % 3)}T{9 + n:02d}:{(13 * n) % 60:02d}:00")
        post_ts = f"{said}.{100000 + 7919 * (n + 1) * (seed + 1) % 900000:06d}"
        text = (f"I'm on leave from {long_date(leave['first'].isoformat())} to {long_date(leave['last'].isoformat())}. "
                f"{leave['cover'].name} covers for me and joins our team meetings while I'm away.")
        reply = (_handover(leave["cover"].slack_id, back) if leave["tagged"]
                 else NOTES[(seed + n) % len(NOTES)].format(back=back))
        slack_patch.append({"op": "add", "in": ["channels", channel, "messages"],
                            "value": {"ts": post_ts, "user": leave["who"].slack_id, "text": text}})
        slack_patch.append({"op": "add", "in": ["channels", channel, "messages"],
                            "value": {"ts": f"{said + 1800 + 60 * n}.{post_ts[-6:]}", "user": leave["who"].slack_id,
                                      "text": reply, "thread_ts": post_ts}})
        leave["post_ts"] = post_ts
    return slack_patch


def _rota(seed: int, people: list[Any], past: list[dict[str, Any]], owner: Any, deputy: Any,
          first: str, last: str) -> list[tuple[date, Any]]:
    """The weeks of the carrier on-call rota (Monday, holder), round the team in turn: on each long earlier
    leave the leaver holds one of its two weeks and neither the leaver nor the deputy the other, on each short
    one the leaver holds none of its weeks, and on the new leave Priya holds one of its two weeks and neither she
    nor the new deputy the other; nobody holds two weeks running."""
    rng = random.Random(f"x-t-leave-cover/rota/{seed}")
    mondays = [ROTA_FROM + timedelta(weeks=k) for k in range((ROTA_TO - ROTA_FROM).days // 7 + 1)]
    forced: dict[int, Any] = {}
    banned: dict[int, set[str]] = {}

    def weeks(begin: date, stop: date) -> list[int]:
        return [k for k, m in enumerate(mondays) if m <= stop and m + timedelta(days=6) >= begin]

    spans = [(x["first"], x["last"], x["who"], x["cover"], x["tagged"]) for x in past]
    spans.append((date.fromisoformat(first), date.fromisoformat(last), owner, deputy, True))
    for begin, stop, who, cover, long in spans:
        held = weeks(begin, stop)
        mine = rng.choice(held) if long else None
        for k in held:
            if k == mine:
                forced[k] = who
            else:
                banned[k] = {who.email, cover.email} if long else {who.email}
    order = list(people)
    rng.shuffle(order)
    out: list[tuple[date, Any]] = []
    turn = 0
    for k, monday in enumerate(mondays):
        holder = forced.get(k)
        if holder is None:
            previous = out[-1][1] if out else None
            for step in range(len(order)):
                c = order[(turn + step) % len(order)]
                if (c.email not in banned.get(k, set()) and c is not previous and c is not forced.get(k + 1)):
                    holder, turn = c, (turn + step + 1) % len(order)
                    break
        assert holder is not None, f"x-t-leave-cover seed {seed}: nobody may hold the rota's week of {monday}"
        out.append((monday, holder))
    return out


def _rota_pages(seed: int, rota: list[tuple[date, Any]]) -> list[dict[str, Any]]:
    """The Notion pages of the rota: "Operations" (top level, like Engineering) and the rota under it."""
    stem = notion_page(seed, "Engineering")["id"][:-4]
    ops_id, rota_id = f"{stem}8001", f"{stem}8002"
    pages = world("notion", seed)["pages"]
    taken = {p["id"] for p in pages} | {b["id"] for p in pages for b in p["content"]}
    blocks: list[tuple[str, str]] = [
        ("paragraph", "Carrier escalations out of hours (a missed pickup, a failed handoff, a customs hold) go to "
                      "whoever holds the week, Monday 00:00 to Sunday 24:00. One person a week, the team in turn."),
        ("paragraph", "Swaps: agree them in #ops and change the week here.")]
    year = None
    for monday, holder in rota:
        if monday.year != year:
            year = monday.year
            blocks.append(("heading_2", str(year)))
        sunday = monday + timedelta(days=6)
        blocks.append(("bulleted_list_item", f"{monday.day} {monday.strftime('%B')} to {sunday.day} "
                                             f"{sunday.strftime('%B')}: {holder.name}"))
    patch: list[dict[str, Any]] = [
        {"op": "add", "in": ["pages"], "value": {
            "id": ops_id, "title": "Operations", "parent_id": None, "properties": {}, "archived": False,
            "created_time": "2024-11-04T09:00:00Z",
            "content": [{"id": f"{stem}81{k:02d}", "type": "paragraph", "text": text} for k, text in enumerate((
                "Operations: carriers, shipments, exceptions. The team's channel is #ops.",))]}},
        {"op": "add", "in": ["pages"], "value": {
            "id": rota_id, "title": ROTA_PAGE, "parent_id": ops_id, "properties": {}, "archived": False,
            "created_time": "2025-02-24T09:00:00Z",
            "content": [{"id": f"{stem}9{k:03d}", "type": t, "text": x} for k, (t, x) in enumerate(blocks)]}},
    ]
    ours = [op["value"]["id"] for op in patch] + [b["id"] for op in patch for b in op["value"]["content"]]
    assert not set(ours) & taken, f"x-t-leave-cover seed {seed}: the rota's page or block ids are taken"
    return patch


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


@on_worlds(slack=3)
def case_of(seed: int) -> dict[str, Any] | None:  # noqa: PLR0915 - one case is many facts of one world
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
    ops_channel = slack_channel(seed, "ops")
    slack = world("slack", seed)
    channel = next(c for c in slack["channels"] if c["id"] == ops_channel)
    if deputy.slack_id not in channel["members"]:
        return None
    past = _past_leaves(seed, o, ops, deputy, channel, first, last)
    if past is None:
        return None
    weeks = _rota(seed, [e for e in [owner, *ops] if e.slack_id in channel["members"]], past, owner, deputy,
                  first, last)
    rota_patch = _rota_pages(seed, weeks)
    # The leave's occurrences, stored as unchanged exceptions of their series (what the agent lists is the
    # same), so that each has an id of the initial state the predicate and the frame can name.
    materialise = [item for item in mine if item.get("recurringEventId") and item["id"] not in stored]
    calendar_patch = [{"op": "add", "in": ["events"], "value": stored_exception(stored[item["recurringEventId"]], item)}
                      for item in materialise]
    day_after = (date.fromisoformat(last) + timedelta(days=1)).isoformat()
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
    # the announcement and the rota handover (a thread reply as the team wrote them, or in the announcement)
    frame.append({"entity": "slack.message", "change": ["create"], "where": {"channel": ops_channel}, "max": 2})
    success.append({"calendar.eventExists": {"title": BLOCK, "calendar": PRIMARY}})
    success.append({"slack.messagePosted": {"channel": "ops", "pattern": deputy.name}})
    who = f"(<@{deputy.slack_id}>|{deputy.name})"
    rota = f"{who}(?:.|\\n)*{ROTA}|{ROTA}(?:.|\\n)*{who}"
    success.append({"slack.messagePosted": {"channel": "ops", "pattern": rota}})

    slack_patch = _announcements(seed, ops_channel, past)
    if any(re.search(rota, m["text"]) or deputy.name in m["text"]
           for m in [*channel["messages"], *(op["value"] for op in slack_patch)]):
        return None  # the world already says it: a check would hold without the announcement or the handover
    # the agent's announcement is the first message it posts: its ts follows the latest of the workspace
    latest = max(ts_key(m["ts"]) for c in slack["channels"] for m in c["messages"])
    announced = ts_from_key(latest + 1_000_000)

    ooo = call("calendar__create_event", calendarId=PRIMARY, summary=BLOCK, start=first, end=day_after,
               description=f"On leave; {deputy.name} covers.")
    post = call("slack__post_message", channel_id=ops_channel,
                text=f"I'm on leave from {long_date(first)} to {long_date(last)}. {deputy.name} covers for me "
                     "and joins our team meetings while I'm away.")
    back = long_date(_working_days_after(date.fromisoformat(last), 2).isoformat())
    handover = call("slack__reply_to_thread", channel_id=ops_channel, thread_ts=announced,
                    text=_handover(deputy.slack_id, back))
    earlier = [call("slack__get_channel_history", channel_id=ops_channel, limit=100),
               *(call("slack__get_thread_replies", channel_id=ops_channel, thread_ts=x["post_ts"]) for x in past)]
    discover = [call("notion__search", query="Holiday policy"),
                call("notion__get_block_children", block_id=current["id"]),
                call("notion__search", query="rota"),
                call("notion__get_block_children", block_id=rota_patch[1]["value"]["id"]),
                call("calendar__list_calendars"),
                call("calendar__search_people", query=deputy.name),
                *reads, *earlier]
    updates = [add_deputy(item, deputy.email) for item in covered]
    check = call("calendar__list_events", calendarId=PRIMARY, timeMin=f"{first}T00:00", timeMax=f"{day_after}T00:00",
                 query=BLOCK)
    channels = call("slack__list_channels", limit=100)
    reference = [*discover, *updates, ooo, check, channels, post, handover]

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
                "time and one-off meetings too", "kind": "lookalike", "calls": [*everything, ooo, post, handover]},
        {"why": "also adds the deputy to each whole series, so to every occurrence after the leave as well",
         "kind": "collateral", "calls": [*updates, *whole_series, ooo, post, handover]},
        {"why": "passes only the deputy as the attendee list, which replaces the guests of each occurrence",
         "kind": "collateral", "calls": [*only_deputy, ooo, post, handover]},
        {"why": f"adds {lookalike.name} instead of {deputy.name}", "kind": "lookalike",
         "calls": [*(add_deputy(item, lookalike.email) for item in covered), ooo, post, handover]},
        {"why": "retries the leave's event after its timeout without checking: two events",
         "kind": "other", "calls": [*updates, ooo, ooo, post, handover]},
        {"why": "looks only at the primary calendar: the stand-ups on the team calendar keep no deputy",
         "kind": "other", "calls": [*(add_deputy(item, deputy.email) for item in covered
                                      if item["calendarId"] == PRIMARY), ooo, post, handover]},
        {"why": "the reference without the rota handover: blocks the leave, adds the deputy and announces it, but "
                "hands the deputy no rota (the short leaves' threads generalised; only opening them shows it)",
         "kind": "other", "calls": [*updates, ooo, post]},
        {"why": "replies in the announcement's thread as on the short leaves, a note without the rota",
         "kind": "other", "calls": [*updates, ooo, post,
                                    call("slack__reply_to_thread", channel_id=ops_channel, thread_ts=announced,
                                         text=NOTES[0].format(back=back))]},
        {"why": f"hands the rota to {lookalike.name} instead of {deputy.name}", "kind": "lookalike",
         "calls": [*updates, ooo, post, call("slack__reply_to_thread", channel_id=ops_channel, thread_ts=announced,
                                             text=_handover(lookalike.slack_id, back))]},
    ]
    alternatives = [
        {"why": "tells the team first, then blocks the leave and adds the deputy",
         "calls": [*discover, channels, post, handover, ooo, check, *updates]},
        {"why": "reads the superseded version too before acting on the current one",
         "calls": [call("notion__get_block_children", block_id=old["id"]), *discover, *updates, ooo, check, channels,
                   post, handover]},
        {"why": "hands the deputy the rota in the announcement itself, one message",
         "calls": [*discover, *updates, ooo, check, channels,
                   call("slack__post_message", channel_id=ops_channel,
                        text=post["arguments"]["text"] + " " + _handover(deputy.slack_id, back))]},
        {"why": "hands the deputy the rota in a message of its own in #ops, after the announcement",
         "calls": [*discover, *updates, ooo, check, channels, post,
                   call("slack__post_message", channel_id=ops_channel, text=_handover(deputy.slack_id, back))]},
        {"why": "hands the deputy the on-call slots in its own words, naming them and not saying \"rota\"",
         "calls": [*discover, *updates, ooo, check, channels, post,
                   call("slack__reply_to_thread", channel_id=ops_channel, thread_ts=announced,
                        text=f"{deputy.name}, you take my carrier on-call slots until I'm back on {back}.")]},
    ]
    return solved(
        deputy={"name": deputy.name, "email": deputy.email},
        first=first, last=last, first_long=long_date(first), last_long=long_date(last),
        patch={"calendar": calendar_patch, "slack": slack_patch,
               "notion": [_block(current, 9001, RULE_2026), _block(current, 9002, RULE_2026_B),
                          _block(old, 9001, RULE_2025), *rota_patch]},
        faults=[{"tool": "calendar__create_event", "on_call": 1, "kind": "timeout_after_commit"}],
        frame=frame, success={"all": success}, reference=reference, wrong=wrongs, alternatives=alternatives)


GOAL = ("Annual leave from {{case.first_long}} to {{case.last_long}}, finally! {{case.deputy.name}} covers for me "
        "while I'm away. Get my calendar and the team ready for it the way our holiday policy says and as we did for "
        "our earlier leaves.")
TOOLS = ["calendar__list_calendars", "calendar__list_events", "calendar__search_events", "calendar__get_event",
         "calendar__search_people", "calendar__list_rooms", "calendar__get_freebusy", "calendar__create_event",
         "calendar__update_event", "calendar__delete_event", "notion__search", "notion__retrieve_page",
         "notion__get_block_children", "notion__query_database", "slack__list_channels", "slack__get_channel_history",
         "slack__search_messages", "slack__get_users", "slack__get_user_profile", "slack__get_thread_replies",
         "slack__post_message", "slack__reply_to_thread"]
SERVERS = ["calendar", "notion", "slack"]


@on_worlds(slack=3)
def build() -> dict[str, Any]:
    return template(id="x-t-leave-cover", version=4, servers=SERVERS, difficulty="hard", category="recovery",
                    case_list=cases(case_of, level="hard", want=WANT),
                    task=body(GOAL, SERVERS, TOOLS, timeout_s=600, faults="{{case.faults}}"))
