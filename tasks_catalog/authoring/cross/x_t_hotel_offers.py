"""x-t-hotel-offers: three hotels answered Priya's enquiry for a coming trip (Gdansk or Toronto, planted mails)
and she books the one nearest to where she is going that the travel policy in force allows: the nearest
costs more than the 2026 limit (it would need her manager's approval before booking), the second is within
the 2026 limit (sometimes exactly at it; for a stay of several nights it quotes the total, not the nightly
rate) but above the superseded 2025 one, the third is within both and farthest. One outcome: the reply that
books the second, and no reply that asks another of them for its room (version 2: version 1 passed an agent
that booked two). Declining the others politely, and noting the hotel on the trip's hotel entry, are natural
follow-ups the frame allows.

Version 3 adds a habit of Priya's own past bookings, which the goal asks her to keep ("the way I've booked
before"): seven earlier hotel bookings sit in Gmail (the hotel's offer, her reply booking the room, the hotel's
confirmation; the three trips the calendar already has and four more, each with its "Hotel:" entry), and the
two whose room cost more than the superseded 2025 limit a night copy her manager on the booking reply, a copy
only the opened reply's ``cc`` shows (a search result lists no cc, and the reply's body says nothing of it).
The room she books now always costs more than that, so its booking copies the manager; the frame refuses a
booking without the copy, and copying the manager on the declines too (doing the habit where the examples do
not) is harmless. :data:`COPY_READINGS` lists the other readings a reader of the examples could form, and
:func:`check_copy_convention` raises unless the examples contradict each that would book otherwise.

Version 4 makes the calendar agree with the mail: the "Hotel:" entries of the coming trips (the trip's own and the
other one) are Priya's placeholders ("not booked yet"), no longer the world's "confirmation <n>" of a booking no
mail has, and the late March Hamburg stay keeps the world's one entry (version 3 planted a second with another
confirmation number).

Version 5 draws per case which earlier bookings cost more than the 2025 limit a night (and so copy the manager):
version 4 fixed every rate, the copied bookings always the February Hamburg and early March Rotterdam ones and
the most recent (late March, Hamburg) always uncopied, so the booking a reader most naturally opens pointed away
from the habit in every case. Now 2-3 of the four stays under the 2026 policy are copied, the latest in about
half the cases, one uncopied booking is exactly at the old limit, and a draw that leaves a reading open is
redrawn (:func:`draw_rates`). Readings by the day of the stay join :data:`COPY_READINGS`: where the most recent
booking is uncopied, one between two copied ones is too, so that "copied for a while, no more since" never fits."""

from __future__ import annotations

import hashlib
import random
from datetime import date, timedelta
from typing import Any

from tasks_catalog.authoring.cross import org
from tasks_catalog.authoring.cross._x_t_people import (
    PRIMARY,
    calendar_tools,
    call,
    notion_page,
    people_template,
    solved,
)
from tasks_catalog.authoring.cross._x_t_readings import Always, FlaggedSide, FlaggedWhen, left_open

ID = "x-t-hotel-offers"

#: A reply that asks a hotel for its room (declining, or saying she booked elsewhere, does not match): a booking
#: sent to a hotel she does not choose books two rooms.
BOOKS = (r"\b([Ii][’']?d|I would|[Ww]e[’']?d|[Ww]e would|I want|[Ww]e want) (like |love )?to (book|reserve|take)\b"
         r"|\b[Pp]lease (book|reserve|confirm|hold)\b|\b([Gg]o ahead|[Pp]roceed) with\b|\b[Aa]ccept (your|the) offer\b")

#: (city, the visit's place, hotel names): the nearest, the one the policy allows, the farthest.
CITIES = {
    "Gdansk": ("the Gdansk depot", (("Hotel Motlawa Quay", "motlawaquay"), ("Oliwa Park Hotel", "oliwapark"),
                                    ("Sopot Road Inn", "sopotroadinn"), ("Amber Gate Hotel", "ambergate"),
                                    ("Granary Island Suites", "granaryisland"), ("Hotel Wrzeszcz", "wrzeszcz"))),
    "Toronto": ("our Toronto office", (("King West Tower Hotel", "kingwesttower"), ("Harbourfront Suites", "harbourfrontsuites"),
                                       ("Etobicoke Airport Lodge", "etobicokelodge"), ("Queen Street Rooms", "queenstreetrooms"),
                                       ("Union Square Hotel", "unionsquarehotel"), ("Don Valley Inn", "donvalleyinn"))),
}


#: Priya's earlier bookings (city, the place she visited, hotel name and slug, first night, nights, whether the
#: offer quoted the stay's total, distance in km). The three trips every organisation has before the offers
#: (Hamburg in February, Rotterdam early in March, Hamburg late in March) are among them, their hotels those the
#: calendar's "Hotel:" entries confirm; the other four are planted with their entries. Each one's nightly rate is
#: the case's draw (:func:`draw_rates`): the three stays under the 2025 policy were within its limit, and 2-3 of
#: the four under the 2026 policy cost more than the 2025 limit.
PAST = (
    ("Hamburg", "the Hamburg warehouse", ("Alster Lodge", "alsterlodge"), "2025-12-16", 2, True, 2.0),
    ("Rotterdam", "the Rotterdam cross-dock", ("Maas Bridge Hotel", "maasbridge"), "2026-01-13", 1, False, 0.5),
    ("Antwerp", "the Port of Antwerp", ("Scheldt Quay Hotel", "scheldtquay"), "2026-01-27", 2, False, 1.2),
    ("Hamburg", "the Hamburg warehouse", ("Hotel Speicherstadt", "speicherstadthotel"), "2026-02-10", 1, False, 0.8),
    ("Rotterdam", "the Rotterdam cross-dock", ("Hotel Kop van Zuid", "kopvanzuid"), "2026-02-24", 2, False, 5.0),
    ("Rotterdam", "the Rotterdam cross-dock", ("Delfshaven Inn", "delfshaveninn"), "2026-03-03", 1, False, 3.0),
    ("Hamburg", "the Hamburg warehouse", ("Elbe Harbour Hotel", "elbeharbour"), "2026-03-24", 2, True, 1.5),
)

#: The nightly rates of the earlier bookings less the 2025 limit: those above it (capped at the new room's rate,
#: so that no copied booking cost more than the one she books now) and those at or below it, one of them exactly
#: at it (so that "above", not "at or above", is what the copies show). How many bookings a case copies, and how
#: many draws it tries before it is not kept.
OVER, AT_OR_BELOW = (5, 10, 15), (-5, -10, -15, -20, -30)
COPIED, DRAWS = (2, 3), 60

#: The readings of when a booking copies the manager that a reader of the earlier bookings could form, beside
#: the habit (the nightly rate above the 2025 limit): each that would book the new room otherwise must be
#: contradicted by an earlier booking (:func:`check_copy_convention`).
COPY_READINGS: dict[str, Any] = {
    "always": Always(True, flag="cc"),
    "never": Always(False, flag="cc"),
    "by the city": FlaggedWhen("city", flag="cc"),
    "by the month of the stay": FlaggedWhen("month", flag="cc"),
    "by the policy in force (since 2026)": FlaggedWhen("policy", flag="cc"),
    "by the number of nights": FlaggedWhen("nights", flag="cc"),
    "when the offer quoted the stay's total": FlaggedWhen("total_quoted", flag="cc"),
    "above the limit in force (it never was)": FlaggedWhen("over_limit", flag="cc"),
    "for short stays": FlaggedSide("nights", low=True, flag="cc"),
    "for long stays": FlaggedSide("nights", low=False, flag="cc"),
    "for cheap rooms": FlaggedSide("nightly", low=True, flag="cc"),
    "above a cost of the whole stay": FlaggedSide("cost", low=False, flag="cc"),
    "below a cost of the whole stay": FlaggedSide("cost", low=True, flag="cc"),
    "for hotels near the place": FlaggedSide("km", low=True, flag="cc"),
    "for hotels far from the place": FlaggedSide("km", low=False, flag="cc"),
    "for the stays since some day": FlaggedSide("day", low=False, flag="cc"),
    "for the stays until some day": FlaggedSide("day", low=True, flag="cc"),
    "for a while once the 2026 policy was in force, no more since": FlaggedSide("day_in_force", low=True, flag="cc"),
}


def check_copy_convention(examples: list[dict[str, Any]], items: list[dict[str, Any]], old_limit: int) -> None:
    """Raise unless the earlier bookings follow the habit (the manager copied exactly when the nightly rate is
    above ``old_limit``, the superseded policy's), 2-3 of them copy, and each reading of :data:`COPY_READINGS`
    that would treat a new booking otherwise is contradicted by one of them."""
    habit = lambda e: e["nightly"] > old_limit  # noqa: E731 - the habit, as a reading's predicate
    if any(bool(e["cc"]) != habit(e) for e in examples):
        raise ValueError(f"{ID}: an earlier booking's copy does not follow the habit")
    n = sum(bool(e["cc"]) for e in examples)
    if not 2 <= n <= 3:
        raise ValueError(f"{ID}: {n} of {len(examples)} earlier bookings copy the manager; 2-3 should")
    if not all(habit(i) for i in items):
        raise ValueError(f"{ID}: a new booking the habit does not copy; each case's should")
    if not all(i["nightly"] >= min(e["nightly"] for e in examples if e["cc"]) for i in items):
        raise ValueError(f"{ID}: a new booking's rate is below every copied earlier one's; the examples leave it open")
    for name in left_open(COPY_READINGS, examples, items, habit)[:1]:
        raise ValueError(f"{ID}: the reading {name!r} fits every earlier booking and differs on the new one")


def _day(day: str, shift: int) -> str:
    return (date.fromisoformat(day) + timedelta(days=shift)).isoformat()


def _long(day: str) -> str:
    d = date.fromisoformat(day)
    return f"{d.day} {d.strftime('%B')}"


def _hex(*parts: Any, n: int = 16, alphabet: str = "0123456789abcdef") -> str:
    digest = hashlib.sha256(repr((ID, *parts)).encode()).digest()
    return "".join(alphabet[b % len(alphabet)] for b in digest[:n])


def stay(travel: Any, first: str) -> dict[str, Any]:
    """What the readings weigh of a stay's first night ``first``: its month, the policy in force, its day (an
    ordinal) and, for "copied for a while once the 2026 policy was in force", the day only under the policy in
    force now (a stay under the superseded one lies beyond every such day)."""
    day, version = date.fromisoformat(first).toordinal(), travel.version_on(first)
    return {"month": first[:7], "policy": version.label, "day": day,
            "day_in_force": day if version is travel.versions[-1] else date.max.toordinal()}


def _facts(travel: Any, rates: tuple[int, ...], old_limit: int) -> list[dict[str, Any]]:
    """The earlier bookings as the readings see them, each at its nightly rate of ``rates`` and copying the
    manager exactly when that is above ``old_limit`` (``cc`` True; :func:`past_bookings` puts the address)."""
    return [{"city": city, **stay(travel, first), "nights": nights, "total_quoted": total,
             "over_limit": nightly > travel.version_on(first).facts["hotel_eur"], "nightly": nightly,
             "cost": nightly * nights, "km": km, "cc": nightly > old_limit}
            for (city, _, _, first, nights, total, km), nightly in zip(PAST, rates, strict=True)]


def draw_rates(seed: int, travel: Any, right_nightly: int, new: dict[str, Any]) -> tuple[int, ...] | None:
    """The earlier bookings' nightly rates in the seed's case: 2-3 of the stays under the policy in force now cost
    more than the 2025 limit (by :data:`OVER`, capped at ``right_nightly``, the room booked now), the others at
    or below it (one exactly at it), the most recent stay among the copied in half the cases (seeds 2-3, 6-7...
    of every four, so in both cities alike). Redrawn while a reading of :data:`COPY_READINGS` fits every earlier booking and treats the ``new``
    booking otherwise than the habit; ``None`` when no draw of :data:`DRAWS` contradicts every reading."""
    rng = random.Random(f"{ID}/rates/{seed}")
    old_limit = travel.versions[0].facts["hotel_eur"]
    latest = len(PAST) - 1
    eligible = [i for i, (*_, first, _, _, _) in enumerate(PAST)
                if travel.version_on(first) is travel.versions[-1] and i != latest]
    latest_copied = seed // 2 % 2 == 1
    for _ in range(DRAWS):
        copied = {*rng.sample(eligible, rng.choice(COPIED) - latest_copied), *([latest] if latest_copied else [])}
        uncopied = [i for i in range(len(PAST)) if i not in copied]
        below = [0, *rng.sample(AT_OR_BELOW, len(uncopied) - 1)]
        rng.shuffle(below)
        offsets = dict(zip(uncopied, below, strict=True))
        offsets |= {i: min(o, right_nightly - old_limit) for i, o in zip(sorted(copied), rng.sample(OVER, len(copied)),
                                                                          strict=True)}
        rates = tuple(old_limit + offsets[i] for i in range(len(PAST)))
        if not left_open(COPY_READINGS, _facts(travel, rates, old_limit), [new], lambda e: e["nightly"] > old_limit):
            return rates
    return None


def past_bookings(seed: int, travel: Any, manager: str, rates: tuple[int, ...], entries: dict[str, Any],
                  calendar_id: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """Priya's earlier bookings at the case's nightly ``rates`` (:func:`draw_rates`) as the readings see them,
    their Gmail messages (offer, booking reply, the hotel's confirmation: one thread each) and the calendar's
    "Hotel:" entries planted for the four stays the world has none for (``entries``: the existing ones by first
    day, whose confirmation numbers are kept)."""
    old_limit = travel.versions[0].facts["hotel_eur"]
    facts = _facts(travel, rates, old_limit)
    examples, messages, events = [], [], []
    for n, ((city, place, (name, slug), first, nights, total, km), nightly) in enumerate(zip(PAST, rates, strict=True)):
        version = travel.version_on(first)
        copied = nightly > old_limit
        last = _day(first, nights)
        subject = f"Your stay in {city}, {_long(first)} to {_long(last)}"
        price = f"{nightly * nights} EUR for the {nights} nights" if total else f"{nightly} EUR per night"
        hotel, thread = f"reservations@{slug}.example", _hex(seed, n)
        entry = entries.get(first)
        confirmation = entry.description.rsplit(" ", 1)[-1] if entry is not None else str(300000 + int(_hex(seed, n, "c"), 16) % 600000)
        # asked and booked 12 days ahead, a stay under the 2026 policy not before it took effect (the 2025 limit
        # in force on the day of booking would otherwise read as the reason for a copy)
        asked = max(_day(first, -12), _day(version.effective, 1)) if version is travel.versions[-1] else _day(first, -12)
        messages += [
            {"id": thread, "thread_id": thread, "sender": hotel, "to": [PRIMARY], "cc": [], "subject": subject,
             "body": f"Dear Ms Raman,\n\nthank you for your enquiry. For {_long(first)} to {_long(last)} ({nights} "
                     f"night{'s' if nights > 1 else ''}) we can offer a single room at {price}, breakfast included, free "
                     f"cancellation until 48 hours before arrival. We are {km:.1f} km from {place}.\n\nTo book, simply "
                     f"reply to this email.\n\nKind regards,\nReservations, {name}",
             "date": f"{asked}T09:1{n}:00Z", "label_ids": ["INBOX"]},
            {"id": _hex(seed, n, "reply"), "thread_id": thread, "sender": PRIMARY, "to": [hotel],
             "cc": [manager] if copied else [], "subject": f"Re: {subject}",
             "body": f"Dear {name},\n\nI'd like to book the room you offered, {_long(first)} to {_long(last)}. Please "
                     f"confirm.\n\nBest regards,\nPriya Raman",
             "date": f"{asked}T11:4{n}:00Z", "label_ids": ["SENT"]},
            {"id": _hex(seed, n, "confirmed"), "thread_id": thread, "sender": hotel, "to": [PRIMARY], "cc": [],
             "subject": f"Re: {subject}",
             "body": f"Dear Ms Raman,\n\nyour single room for {_long(first)} to {_long(last)} is booked, confirmation "
                     f"{confirmation}. We look forward to welcoming you.\n\nReservations, {name}",
             "date": f"{asked}T15:0{n}:00Z", "label_ids": ["INBOX"]}]
        if entry is None:
            events.append({"id": _hex(seed, n, "entry", n=26, alphabet="0123456789abcdefghijklmnopqrstuv"),
                           "calendar_id": calendar_id, "title": f"Hotel: {city}", "start": first,
                           "end": _day(first, nights + 1), "description": f"{nights} night(s), confirmation {confirmation}",
                           "location": "", "attendees": []})
        examples.append({**facts[n], "cc": [manager] if copied else [], "thread": thread})
    return examples, messages, events


def case_of(seed: int) -> dict[str, Any] | None:
    o = org(seed)
    city = ("Gdansk", "Toronto")[seed % 2]
    trip = next(t for t in o.trips if t.city == city)
    nights = trip.days - 1
    travel = o.policy("travel")
    limit, old_limit = travel.version_on(trip.first).facts["hotel_eur"], travel.versions[0].facts["hotel_eur"]
    place, hotels = CITIES[city]
    k = seed % 3
    near, right, far = hotels[k], hotels[k + 3], hotels[(k + 1) % 3]
    if len({near, right, far}) < 3:
        return None
    nightly = {near: limit + 20 + 5 * (seed % 3), right: limit - 5 * (seed % 2), far: old_limit - 15}
    if not old_limit < nightly[right] <= limit:
        return None
    distance = {near: "400 m", right: "1.6 km", far: "9 km"}
    tools = calendar_tools(seed)
    hotel_entry = next(e for e in tools.state.events if e.title == f"Hotel: {city}" and e.start == trip.first)
    day_in = trip.first
    day_out = f"{trip.first[:8]}{int(trip.first[8:]) + nights:02d}"  # the trips stay within their month
    d = lambda day: f"{int(day[8:])} {('April' if day[5:7] == '04' else 'May')}"  # noqa: E731 - the trips' months
    if o.owner.manager is None:
        raise ValueError(f"{ID}: seed {seed}: Priya has no manager to copy")
    manager = o.employee(o.owner.manager).email
    # every "Hotel:" entry the world has for an earlier booking's city and first day is that booking's (the late
    # March Hamburg stay is still to come but booked): planting another would show two confirmations for one stay
    entries = {e.start: e for e in tools.state.events for c, _, _, first, *_ in PAST
               if e.title == f"Hotel: {c}" and e.start == first}
    if any(entries[first].description.split(" ")[0] != str(n) for _, _, _, first, n, *_ in PAST if first in entries):
        raise ValueError(f"{ID}: seed {seed}: an earlier booking's nights differ from its calendar entry's")
    # the world's other "Hotel:" entries (the coming trips') say "confirmation <n>" of a booking no mail has: they
    # are Priya's placeholders instead, the trip's own one saying she has asked hotels
    placeholder = f"{nights} night(s), hotel not booked yet (asked hotels for offers)"
    booked = {e.id for e in entries.values()}
    unbooked = {e.id: f"{e.description.split(' ')[0]} night(s), hotel not booked yet" for e in tools.state.events
                if e.title.startswith("Hotel: ") and e.id not in booked}
    unbooked[hotel_entry.id] = placeholder
    new = {"city": city, **stay(travel, trip.first), "nights": nights, "total_quoted": nights > 1, "over_limit": False,
           "nightly": nightly[right], "cost": nightly[right] * nights, "km": 1.6}
    rates = draw_rates(seed, travel, nightly[right], new)
    if rates is None:
        return None
    examples, past_messages, past_entries = past_bookings(seed, travel, manager, rates, entries, hotel_entry.calendar_id)
    check_copy_convention(examples, [new], old_limit)

    def offer(n: int, hotel: tuple[str, str], total: bool) -> dict[str, Any]:
        name, slug = hotel
        price = (f"{nightly[hotel] * nights} EUR for the {nights} nights" if total and nights > 1
                 else f"{nightly[hotel]} EUR per night")
        mid = f"19d0c4e{seed % 10}a7b{n}f3{k}{n}"
        body = (f"Dear Ms Raman,\n\nthank you for your enquiry. For {d(day_in)} to {d(day_out)} ({nights} "
                f"night{'s' if nights > 1 else ''}) we can offer a single room at {price}, breakfast included, free "
                f"cancellation until 48 hours before arrival. We are {distance[hotel]} from {place}.\n\nTo book, "
                f"simply reply to this email.\n\nKind regards,\nReservations, {name}")
        return {"id": mid, "thread_id": mid, "sender": f"reservations@{slug}.example", "to": [o.owner.email],
                "cc": [], "subject": f"Your stay in {city}, {d(day_in)} to {d(day_out)}", "body": body,
                "date": f"2026-03-1{2 + n}T1{n}:2{n}:00Z", "label_ids": ["INBOX", "UNREAD"]}

    offers = [offer(1, far, False), offer(2, right, True), offer(3, near, False)]
    patch = [{"op": "add", "in": ["messages"], "value": m} for m in [*past_messages, *offers]]
    current, old = notion_page(seed, "Travel policy"), notion_page(seed, "Travel policy 2025 (superseded)")
    to = {h: f"reservations@{h[1]}.example" for h in (near, right, far)}
    book = lambda hotel, cc=True: call(  # noqa: E731
        "gmail__send_email", to=[to[hotel]], subject=f"Re: Your stay in {city}, {d(day_in)} to {d(day_out)}",
        body=f"Dear {hotel[0]},\n\nI'd like to book the room you offered, {d(day_in)} to {d(day_out)}. Please "
             f"confirm.\n\nBest regards,\nPriya Raman", **({"cc": [manager]} if cc else {}))
    decline = lambda hotel: call("gmail__send_email", to=[to[hotel]], subject=f"Re: Your stay in {city}",  # noqa: E731
                                 body="Thank you for your offer; I have made other arrangements this time.\n\nPriya Raman")
    discover = [call("gmail__search_emails", query="Your stay in", maxResults=50),
                *(call("gmail__read_email", messageId=m["id"]) for m in offers),
                *(call("gmail__get_thread", threadId=e["thread"]) for e in examples),
                call("notion__search", query="Travel policy"),
                call("notion__get_block_children", block_id=current["id"])]
    reference = [*discover, book(right)]
    frame = [{"entity": "gmail.message", "fields": ["label_ids"]},
             {"entity": "gmail.message", "change": ["create"], "where": {"to": [to[right]], "cc": [manager]}, "max": 1},
             {"entity": "gmail.message", "change": ["create"], "where": {"to": [manager]}, "max": 1},
             {"entity": "gmail.message", "change": ["create"], "where": {"to": [to[near]]}, "max": 1},
             {"entity": "gmail.message", "change": ["create"], "where": {"to": [to[far]]}, "max": 1},
             {"entity": "calendar.event", "ids": [hotel_entry.id], "fields": ["location", "description"],
              "values": {"location": {"matches": next(w for w in right[0].split() if w not in ("Hotel", "Inn"))}}}]
    success = {"all": [{"gmail.draftSent": {"to": to[right], "subject_pattern": f"{city}|[Bb]ook|[Rr]oom|[Ss]tay|"
                                            "[Rr]eserv|[Oo]ffer|[Hh]otel"}},
                       *({"not": {"gmail.draftSent": {"to": to[other], "subject_pattern": ".", "body_pattern": BOOKS}}} for other in (near, far))]}
    wrongs = [
        {"why": "books the right hotel without copying the manager: the habit of the earlier bookings whose rate "
                "was above the old limit, which only their opened replies' cc shows (what a sampler of a few does)",
         "kind": "other", "calls": [*discover, book(right, cc=False)]},
        {"why": "books the right hotel without the copy and tells the manager in a separate email",
         "kind": "other", "calls": [book(right, cc=False), call("gmail__send_email", to=[manager], subject=f"Hotel in {city}",
                                                                  body=f"FYI, I booked {right[0]} for the {city} trip.")]},
        {"why": "reads the superseded 2025 policy and books the farthest hotel, the only one within its limit",
         "kind": "lookalike", "calls": [call("notion__get_block_children", block_id=old["id"]), book(far)]},
        {"why": "books the nearest hotel although it is above the limit", "kind": "other", "calls": [book(near)]},
        {"why": "books the right hotel and the nearest one too", "kind": "other", "calls": [book(right), book(near)]},
        {"why": "books the right hotel and the farthest one too", "kind": "other", "calls": [book(far), book(right)]},
        {"why": "books the right hotel and deletes the trip's hotel entry", "kind": "collateral",
         "calls": [book(right), call("calendar__delete_event", calendarId=hotel_entry.calendar_id,
                                     eventId=hotel_entry.id)]},
        {"why": "books the right hotel and notes the wrong one on the trip's hotel entry", "kind": "collateral",
         "calls": [book(right), call("calendar__update_event", calendarId=hotel_entry.calendar_id,
                                     eventId=hotel_entry.id, location=near[0])]},
    ]
    alternatives = [
        {"why": "books in the offer's thread", "calls": [*discover, {**book(right), "arguments": {
            **book(right)["arguments"], "threadId": offers[1]["thread_id"]}}]},
        {"why": "also copies the manager on the declines (the habit where the earlier bookings do not show it)",
         "calls": [*discover, book(right), *(call("gmail__send_email", to=[to[h]], cc=[manager], subject=f"Re: Your stay in {city}",
                                                  body="Thank you for your offer; I have made other arrangements this "
                                                       "time.\n\nPriya Raman") for h in (near, far))]},
        {"why": "also tells the manager in a separate email", "calls": [
            *discover, book(right), call("gmail__send_email", to=[manager], subject=f"Hotel in {city}",
                                         body=f"FYI, I booked {right[0]} for the {city} trip, {nightly[right]} EUR a night.")]},
        {"why": "also declines the other two offers", "calls": [*discover, book(right), decline(near), decline(far)]},
        {"why": "also declines the other two, saying it booked elsewhere",
         "calls": [*discover, book(right), *(call("gmail__send_email", to=[to[h]], subject=f"Re: Your stay in {city}",
                                                    body="Thank you for the quick offer. I've booked another hotel for "
                                                         "this trip, so please don't hold the room.\n\nPriya Raman")
                                               for h in (near, far))]},
        {"why": "also notes the hotel on the trip's hotel entry",
         "calls": [*discover, book(right), call("calendar__update_event", calendarId=hotel_entry.calendar_id,
                                                 eventId=hotel_entry.id, location=f"{right[0]}, {city}",
                                                 description=f"{placeholder}; booked with {right[0]}")]},
        {"why": "also replaces the placeholder on the trip's hotel entry with the booking, confirmation to follow",
         "calls": [*discover, book(right), call("calendar__update_event", calendarId=hotel_entry.calendar_id,
                                                 eventId=hotel_entry.id, description=f"{nights} night(s), booked with "
                                                 f"{right[0]} ({nightly[right]} EUR a night), confirmation to follow")]},
    ]
    return solved(
        city=city,
        patch={"gmail": patch, "notion": [], "calendar": [
            *({"op": "update", "in": ["events"], "id": i, "fields": {"description": text}} for i, text in unbooked.items()),
            *({"op": "add", "in": ["events"], "value": e} for e in past_entries)]},
        frame=frame,
        success=success,
        reference=reference,
        wrong=wrongs,
        alternatives=alternatives)


def build() -> dict[str, Any]:
    return {**people_template(
        id="x-t-hotel-offers", servers=["calendar", "gmail", "notion"], difficulty="medium", category="standard",
        case_of=case_of, timeout_s=300,
        goal="Hotels have answered my enquiry for the {{case.city}} trip. Book the one closest to where I'm going "
             "that our travel policy lets me book, the way I've booked my hotels before.",
        tools=["gmail__search_emails", "gmail__read_email", "gmail__get_thread", "gmail__send_email",
               "gmail__draft_email", "gmail__list_drafts", "gmail__send_draft", "notion__search",
               "notion__retrieve_page", "notion__get_block_children", "notion__query_database",
               "calendar__list_calendars", "calendar__list_events", "calendar__search_events", "calendar__get_event",
               "calendar__update_event"]), "version": 5}
