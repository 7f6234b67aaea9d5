"""x-t-hotel-offers' habit that only opening the earlier bookings shows: a booking whose nightly rate is above
the superseded 2025 limit copies Priya's manager. The module refuses earlier bookings that leave another
reading open, and every committed case shows the copy on a minority of the earlier booking replies, exactly
those above the old limit, nowhere a search result would show it, and requires it on the new booking. Which
earlier bookings those are differs by case: the most recent one is copied in half the cases. Its calendar holds
one "Hotel:" entry a stay, and a confirmation number only where the hotel's mail has it."""

from __future__ import annotations

import json
from datetime import date

import pytest

from servers.kit.world import resolve
from tasks_catalog.authoring.cross import OUT_DIR, org
from tasks_catalog.authoring.cross import x_t_hotel_offers as hotels

OLD = 160


def _booking(city: str, first: str, nights: int, nightly: int, km: float, *, total: bool = False) -> dict:
    day = date.fromisoformat(first).toordinal()
    return {"city": city, "month": first[:7], "policy": "2026" if first >= "2026-02" else "2025", "day": day,
            "day_in_force": day if first >= "2026-02" else date.max.toordinal(), "nights": nights,
            "total_quoted": total, "over_limit": False, "nightly": nightly, "cost": nightly * nights, "km": km,
            "cc": ["boss@k.com"] if nightly > OLD else []}


def _earlier() -> list[dict]:
    return [_booking("Hamburg", "2025-12-16", 2, 150, 2.0, total=True), _booking("Rotterdam", "2026-01-13", 1, 140, 0.5),
            _booking("Antwerp", "2026-01-27", 2, 130, 1.2), _booking("Hamburg", "2026-02-10", 1, 165, 0.8),
            _booking("Rotterdam", "2026-02-24", 2, 155, 5.0), _booking("Rotterdam", "2026-03-03", 1, 170, 3.0),
            _booking("Hamburg", "2026-03-24", 2, 160, 1.5, total=True)]


def _new() -> list[dict]:
    return [_booking("Gdansk", "2026-04-14", 1, 175, 1.6)]


def test_earlier_bookings_that_tell_the_rate_apart_from_every_other_reading_are_accepted():
    hotels.check_copy_convention(_earlier(), _new(), OLD)


def test_earlier_bookings_that_the_city_explains_as_well_as_the_rate_are_refused_naming_the_reading():
    earlier = _earlier()
    earlier[3]["city"] = earlier[5]["city"] = "Bremen"  # copied only in a city no uncopied booking was in
    with pytest.raises(ValueError, match="by the city"):
        hotels.check_copy_convention(earlier, _new(), OLD)


def test_copies_that_stopped_before_the_latest_booking_are_refused_as_a_habit_dropped_since():
    earlier = _earlier()
    earlier[4]["nightly"], earlier[4]["cc"] = 168, ["boss@k.com"]  # Feb to early March copied, late March not
    with pytest.raises(ValueError, match="no more since"):
        hotels.check_copy_convention(earlier, _new(), OLD)


def test_an_earlier_booking_that_breaks_the_habit_is_refused():
    earlier = _earlier()
    earlier[4]["cc"] = ["boss@k.com"]
    with pytest.raises(ValueError, match="does not follow the habit"):
        hotels.check_copy_convention(earlier, _new(), OLD)


def test_a_new_booking_cheaper_than_every_copied_one_is_refused_as_left_open():
    with pytest.raises(ValueError, match="leave it open"):
        hotels.check_copy_convention(_earlier(), [_booking("Gdansk", "2026-04-14", 1, 162, 1.6)], OLD)


def test_every_case_copies_the_manager_on_the_earlier_bookings_above_the_old_limit_only_and_requires_it_now():
    doc = json.loads((OUT_DIR / "x-t-hotel-offers.json").read_text(encoding="utf-8"))
    assert doc["version"] == 5 and "the way I've booked my hotels before" in doc["task"]["goal"]
    assert len(doc["params"]["case"]["choice"]) >= 8
    for case in doc["params"]["case"]["choice"]:
        messages = [op["value"] for op in case["patch"]["gmail"]]
        replies = [m for m in messages if m["label_ids"] == ["SENT"]]
        copied = [m for m in replies if m["cc"]]
        assert len(replies) == len(hotels.PAST) and 2 <= len(copied) <= 3, case["seed"]
        (manager,) = {c for m in copied for c in m["cc"]}
        old_limit = org(case["seed"]).policy("travel").versions[0].facts["hotel_eur"]
        offers = {m["thread_id"]: m for m in messages if m["id"] == m["thread_id"]}
        for reply in replies:  # the copy is exactly on the replies to an offer above the old limit
            rate = int(offers[reply["thread_id"]]["body"].split("single room at ")[1].split(" EUR")[0])
            nights = int(offers[reply["thread_id"]]["body"].split("(")[1].split(" night")[0])
            per_night = rate if "per night" in offers[reply["thread_id"]]["body"] else rate // nights
            assert bool(reply["cc"]) == (per_night > old_limit), case["seed"]
            assert manager not in reply["body"] and "manager" not in reply["body"], case["seed"]
        # the new booking: the frame allows it only copying the manager
        bookings = [f for f in case["frame"] if f.get("change") == ["create"] and "cc" in f.get("where", {})]
        assert [f["where"]["cc"] for f in bookings] == [[manager]], case["seed"]
        booked = case["reference"][-1]["arguments"]
        assert booked["cc"] == [manager] and booked["to"] == bookings[0]["where"]["to"], case["seed"]
        # the reference opens every earlier booking's thread
        opened = {c["arguments"]["threadId"] for c in case["reference"] if c["tool"] == "gmail__get_thread"}
        assert opened == {m["thread_id"] for m in replies}, case["seed"]


def test_which_earlier_bookings_are_copied_varies_and_the_most_recent_one_is_copied_in_about_half_the_cases():
    doc = json.loads((OUT_DIR / "x-t-hotel-offers.json").read_text(encoding="utf-8"))
    cases = doc["params"]["case"]["choice"]
    patterns, latest = set(), 0
    for case in cases:
        replies = sorted((op["value"] for op in case["patch"]["gmail"] if op["value"]["label_ids"] == ["SENT"]),
                         key=lambda m: m["date"])
        pattern = tuple(bool(m["cc"]) for m in replies)
        patterns.add(pattern)
        latest += pattern[-1]
    assert len(patterns) >= 3, patterns
    assert 0.4 * len(cases) <= latest <= 0.6 * len(cases), (latest, len(cases))


def test_every_case_calendar_has_one_hotel_entry_a_stay_and_no_confirmation_its_mail_does_not_have():
    doc = json.loads((OUT_DIR / "x-t-hotel-offers.json").read_text(encoding="utf-8"))
    for case in doc["params"]["case"]["choice"]:
        state = {server: resolve({"world": {"generator": server, "version": 2, "seed": case["seed"], "size": "default"},
                                  "patch": case["patch"][server]})[1] for server in ("calendar", "gmail")}
        hotel = [e for e in state["calendar"]["events"] if e["title"].startswith("Hotel: ")]
        stays = [(e["title"], e["start"]) for e in hotel]
        assert len(stays) == len(set(stays)), (case["seed"], sorted(stays))
        mail = "\n".join(m["body"] for m in state["gmail"]["messages"])
        for e in hotel:  # a confirmation number only where the hotel's mail confirmed it
            if "confirmation" in e["description"]:
                assert f"confirmation {e['description'].rsplit(' ', 1)[-1]}." in mail, (case["seed"], e)
            else:
                assert "not booked yet" in e["description"], (case["seed"], e)
        trip = next(t for t in org(case["seed"]).trips if t.city == case["city"])
        (own,) = [e for e in hotel if e["title"] == f"Hotel: {case['city']}" and e["start"] == trip.first]
        assert own["description"].endswith("not booked yet (asked hotels for offers)"), case["seed"]
