"""The Slack world's holiday closures: version 2's filler announces "Office will be closed on <a random
weekday> for the public holiday" on random days, which a task counting business days (x-t-leave-cover,
x-t-support-desk-april, x-t-advisory-remediation) can read as a holiday the organisation does not have;
version 3 names the organisation's next holiday, and is otherwise version 2 message for message."""

from __future__ import annotations

import re
from datetime import date, timedelta

import pytest

from servers.kit.world import get_generator
from servers.org import organisation
from servers.slack.world import CLOSURE, holiday_notice

#: Words a message states a closure or a holiday with.
CLAIM = re.compile(r"\b(holidays?|closed|closure|shut)\b", re.IGNORECASE)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
DATED = re.compile(rf"\b({'|'.join(WEEKDAYS)}) (\d{{1,2}}) ({'|'.join(MONTHS)})\b")
BARE = re.compile(rf"\b({'|'.join(WEEKDAYS)})\b")


def _posted(ts: str) -> date:
    return date(1970, 1, 1) + timedelta(seconds=int(ts.split(".")[0]))


def closure_day(text: str, posted: date) -> date | None:
    """The day a message that states a closure or holiday names, as a careful reader takes it: its date
    (``Friday 3 April``, the year of the post or the next), or a bare weekday's next occurrence after the
    day it was posted; ``None`` when it names no day."""
    dated = DATED.search(text)
    if dated:
        month = MONTHS.index(dated.group(3)) + 1
        day = date(posted.year, month, int(dated.group(2)))
        if day < posted:
            day = date(posted.year + 1, month, int(dated.group(2)))
        assert WEEKDAYS[day.weekday()] == dated.group(1), f"{text!r}: {day} is not a {dated.group(1)}"
        return day
    bare = BARE.search(text)
    if bare:
        return posted + timedelta(days=(WEEKDAYS.index(bare.group(1)) - posted.weekday() - 1) % 7 + 1)
    return None


def false_closures(version: int, seed: int, size: str = "default") -> list[str]:
    """Every message of the Slack world of ``(version, seed, size)`` that states a closure or holiday on a
    day that is not one of the organisation's holidays (or names no day), with where it is."""
    holidays = {d for _, d in organisation(1, seed, size).holidays}
    world = get_generator("slack", version).generate(seed, size)
    wrong = []
    for channel in world["channels"]:
        for message in channel["messages"]:
            if not CLAIM.search(message["text"]):
                continue
            day = closure_day(message["text"], _posted(message["ts"]))
            if day is None or day.isoformat() not in holidays or day <= _posted(message["ts"]):
                wrong.append(f"#{channel['name']} {message['ts']}: {message['text']!r} (read as {day})")
    return wrong


SEEDS = range(1, 31)


@pytest.mark.parametrize("seed", SEEDS)
def test_every_closure_a_version_3_slack_world_announces_is_one_of_the_organisations_holidays(seed):
    assert false_closures(3, seed) == []
    assert false_closures(3, seed, "small") == []


def test_version_2_announces_closures_on_days_that_are_no_holiday():
    """The defect version 3 corrects, which the check above finds: in every world of these seeds."""
    wrong = {seed: false_closures(2, seed) for seed in SEEDS}
    assert all(wrong.values()), [seed for seed, found in wrong.items() if not found]
    assert any("Office will be closed on" in line for line in wrong[1])


@pytest.mark.parametrize("seed", [1, 2, 7, 88])
@pytest.mark.parametrize("size", ["default", "small"])
def test_version_3_is_version_2_but_for_the_closures(seed, size):
    """The same users, channels, messages (ts, author, thread, reactions) in the same order; only the
    text of the messages version 2 filled from CLOSURE differs, and it is the holiday notice of its day.
    So a template's patch written for version 2 applies to version 3 unchanged."""
    two, three = get_generator("slack", 2).generate(seed, size), get_generator("slack", 3).generate(seed, size)
    org = organisation(1, seed, size)
    assert two["users"] == three["users"] and two["viewer"] == three["viewer"]
    assert len(two["channels"]) == len(three["channels"])
    closure = re.compile("^" + CLOSURE.replace("{day}", "(Monday|Tuesday|Wednesday|Thursday|Friday)") + "$")
    changed = 0
    for a, b in zip(two["channels"], three["channels"], strict=True):
        assert {k: v for k, v in a.items() if k != "messages"} == {k: v for k, v in b.items() if k != "messages"}
        assert len(a["messages"]) == len(b["messages"])
        for m2, m3 in zip(a["messages"], b["messages"], strict=True):
            assert {k: v for k, v in m2.items() if k != "text"} == {k: v for k, v in m3.items() if k != "text"}
            if m2["text"] != m3["text"]:
                changed += 1
                assert closure.match(m2["text"]) and "thread_ts" not in m2, m2
                assert m3["text"] == holiday_notice(org, int(m2["ts"].split(".")[0]))
            else:
                assert not closure.match(m2["text"]), m2
    assert changed or size == "small"


def test_the_holiday_notice_names_the_next_holiday_on_a_working_day():
    org = organisation(1, 1)
    second = lambda day: int((date.fromisoformat(day) - date(1970, 1, 1)).total_seconds()) + 9 * 3600  # noqa: E731
    assert holiday_notice(org, second("2026-01-05")) == ("The Lisbon office will be closed on Tuesday 17 February "
                                                         "for Carnival, a public holiday in Portugal")
    # on the holiday itself, the next one; Easter Sunday and Liberty Day (a Saturday) close no office
    assert "Friday 3 April for Good Friday" in holiday_notice(org, second("2026-02-17"))
    assert "Friday 1 May for Labour Day" in holiday_notice(org, second("2026-04-03"))
