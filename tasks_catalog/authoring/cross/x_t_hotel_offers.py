"""x-t-hotel-offers: three hotels answered Priya's enquiry for a coming trip (Gdansk or Toronto, planted mails)
and she books the one nearest to where she is going that the travel policy in force allows: the nearest
costs more than the 2026 limit (it would need her manager's approval before booking), the second is within
the 2026 limit (sometimes exactly at it; for a stay of several nights it quotes the total, not the nightly
rate) but above the superseded 2025 one, the third is within both and farthest. One outcome: the reply that
books the second, and no reply that asks another of them for its room (version 2: version 1 passed an agent
that booked two). Declining the others politely, and noting the hotel on the trip's hotel entry, are natural
follow-ups the frame allows."""

from __future__ import annotations

from typing import Any

from tasks_catalog.authoring.cross import org
from tasks_catalog.authoring.cross._x_t_people import calendar_tools, call, notion_page, people_template, solved

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
                "date": f"2026-03-1{3 + n}T1{n}:2{n}:00Z", "label_ids": ["INBOX", "UNREAD"]}

    offers = [offer(1, far, False), offer(2, right, True), offer(3, near, False)]
    patch = [{"op": "add", "in": ["messages"], "value": m} for m in offers]
    current, old = notion_page(seed, "Travel policy"), notion_page(seed, "Travel policy 2025 (superseded)")
    to = {h: f"reservations@{h[1]}.example" for h in (near, right, far)}
    book = lambda hotel: call("gmail__send_email", to=[to[hotel]], subject=f"Re: Your stay in {city}, {d(day_in)} to {d(day_out)}",  # noqa: E731
                              body=f"Dear {hotel[0]},\n\nI'd like to book the room you offered, {d(day_in)} to "
                                   f"{d(day_out)}. Please confirm.\n\nBest regards,\nPriya Raman")
    decline = lambda hotel: call("gmail__send_email", to=[to[hotel]], subject=f"Re: Your stay in {city}",  # noqa: E731
                                 body="Thank you for your offer; I have made other arrangements this time.\n\nPriya Raman")
    discover = [call("gmail__search_emails", query=f"Your stay in {city}"),
                *(call("gmail__read_email", messageId=m["id"]) for m in offers),
                call("notion__search", query="Travel policy"),
                call("notion__get_block_children", block_id=current["id"])]
    reference = [*discover, book(right)]
    frame = [{"entity": "gmail.message", "fields": ["label_ids"]},
             {"entity": "gmail.message", "change": ["create"], "where": {"to": [to[right]]}, "max": 1},
             {"entity": "gmail.message", "change": ["create"], "where": {"to": [to[near]]}, "max": 1},
             {"entity": "gmail.message", "change": ["create"], "where": {"to": [to[far]]}, "max": 1},
             {"entity": "calendar.event", "ids": [hotel_entry.id], "fields": ["location", "description"],
              "values": {"location": {"matches": next(w for w in right[0].split() if w not in ("Hotel", "Inn"))}}}]
    success = {"all": [{"gmail.draftSent": {"to": to[right], "subject_pattern": f"{city}|[Bb]ook|[Rr]oom|[Ss]tay|"
                                            "[Rr]eserv|[Oo]ffer|[Hh]otel"}},
                       *({"not": {"gmail.draftSent": {"to": to[other], "subject_pattern": ".", "body_pattern": BOOKS}}} for other in (near, far))]}
    wrongs = [
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
        {"why": "also declines the other two offers", "calls": [*discover, book(right), decline(near), decline(far)]},
        {"why": "also declines the other two, saying it booked elsewhere",
         "calls": [*discover, book(right), *(call("gmail__send_email", to=[to[h]], subject=f"Re: Your stay in {city}",
                                                    body="Thank you for the quick offer. I've booked another hotel for "
                                                         "this trip, so please don't hold the room.\n\nPriya Raman")
                                               for h in (near, far))]},
        {"why": "also notes the hotel on the trip's hotel entry",
         "calls": [*discover, book(right), call("calendar__update_event", calendarId=hotel_entry.calendar_id,
                                                 eventId=hotel_entry.id, location=f"{right[0]}, {city}",
                                                 description=f"{hotel_entry.description}; booked with {right[0]}")]},
    ]
    return solved(
        city=city,
        patch={"gmail": patch, "notion": [], "calendar": []},
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
             "that our travel policy lets me book.",
        tools=["gmail__search_emails", "gmail__read_email", "gmail__get_thread", "gmail__send_email",
               "gmail__draft_email", "gmail__list_drafts", "gmail__send_draft", "notion__search",
               "notion__retrieve_page", "notion__get_block_children", "notion__query_database",
               "calendar__list_calendars", "calendar__list_events", "calendar__search_events", "calendar__get_event",
               "calendar__update_event"]), "version": 2}
