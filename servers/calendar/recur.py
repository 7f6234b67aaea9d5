"""Recurring events: the subset of RFC 5545 recurrence rules Google Calendar's clients write.

A series is an event with ``recurrence`` lines, e.g. ``["RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=12"]`` or
``["RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TH;UNTIL=20260630T235959Z", "EXDATE:20260406T100000"]``. Supported:
``FREQ`` DAILY, WEEKLY or MONTHLY; ``INTERVAL``; ``BYDAY`` (weekdays for WEEKLY and DAILY, an ordinal
weekday such as ``3TH`` or ``-1FR`` for MONTHLY: the third Thursday, the last Friday);
``COUNT`` or ``UNTIL`` (a series with neither is expanded for ``HORIZON_DAYS`` after its start);
``EXDATE`` lines (local times, ``YYYYMMDDTHHMMSS`` or ``YYYYMMDD`` for all-day series).

An occurrence is named like Google names instances: ``<series id>_<YYYYMMDDTHHMM>`` (all-day:
``<series id>_<YYYYMMDD>``) from its original start.
"""

from __future__ import annotations

import calendar as _calendar
from dataclasses import dataclass
from datetime import datetime, timedelta

DAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
HORIZON_DAYS = 400
MAX_OCCURRENCES = 1000


@dataclass(frozen=True)
class Rule:
    freq: str
    interval: int = 1
    byday: tuple[int, ...] = ()
    nth: tuple[int, int] | None = None  # MONTHLY: (ordinal, weekday)
    count: int | None = None
    until: datetime | None = None
    exdates: frozenset[datetime] = frozenset()


def _stamp(text: str, field: str) -> datetime:
    text = text.rstrip("Z")
    for fmt in ("%Y%m%dT%H%M%S", "%Y%m%d"):
        try:
            return datetime.strptime(text, fmt)
        except ValueError:
            continue
    raise ValueError(f"{field} {text!r} must look like 20260406T100000 (or 20260406)")


def parse(lines: list[str]) -> Rule | None:  # noqa: C901, PLR0912 - one branch per RRULE part
    """The rule of ``lines`` (None for no lines), or ``ValueError`` saying what is not supported."""
    if not lines:
        return None
    rule: dict[str, str] | None = None
    exdates: set[datetime] = set()
    for line in lines:
        head, sep, body = line.partition(":")
        name = head.split(";")[0].upper()
        if not sep:
            raise ValueError(f"recurrence line {line!r} must look like 'RRULE:FREQ=WEEKLY;BYDAY=MO'")
        if name == "RRULE":
            if rule is not None:
                raise ValueError("a series has one RRULE line")
            rule = {}
            for part in body.split(";"):
                key, eq, value = part.partition("=")
                if not eq:
                    raise ValueError(f"RRULE part {part!r} must look like KEY=VALUE")
                rule[key.upper()] = value.upper()
        elif name == "EXDATE":
            exdates.update(_stamp(v.strip(), "EXDATE") for v in body.split(","))
        else:
            raise ValueError(f"recurrence line {line!r}: only RRULE and EXDATE lines are supported")
    if rule is None:
        raise ValueError("recurrence needs an RRULE line")
    unknown = set(rule) - {"FREQ", "INTERVAL", "BYDAY", "COUNT", "UNTIL", "WKST"}
    if unknown:
        raise ValueError(f"RRULE part {sorted(unknown)[0]} is not supported (FREQ, INTERVAL, BYDAY, COUNT, UNTIL)")
    freq = rule.get("FREQ")
    if freq not in ("DAILY", "WEEKLY", "MONTHLY"):
        raise ValueError(f"RRULE FREQ {freq!r} is not supported (DAILY, WEEKLY, MONTHLY)")
    try:
        interval = int(rule.get("INTERVAL", "1"))
        count = int(rule["COUNT"]) if "COUNT" in rule else None
    except ValueError:
        raise ValueError("RRULE INTERVAL and COUNT must be whole numbers") from None
    if interval < 1 or (count is not None and count < 1):
        raise ValueError("RRULE INTERVAL and COUNT must be at least 1")
    if count is not None and "UNTIL" in rule:
        raise ValueError("RRULE has COUNT or UNTIL, not both")
    byday: tuple[int, ...] = ()
    nth: tuple[int, int] | None = None
    if "BYDAY" in rule and freq == "MONTHLY":
        text = rule["BYDAY"]
        if text[-2:] not in DAYS or text[:-2] not in ("1", "2", "3", "4", "-1"):
            raise ValueError(f"a MONTHLY BYDAY must be one ordinal weekday like 3TH or -1FR, not {text!r}")
        nth = (int(text[:-2]), DAYS.index(text[-2:]))
    elif "BYDAY" in rule:
        try:
            byday = tuple(sorted({DAYS.index(d) for d in rule["BYDAY"].split(",")}))
        except ValueError:
            raise ValueError(f"RRULE BYDAY {rule['BYDAY']!r} must list days like MO,WE,FR") from None
    until = _stamp(rule["UNTIL"], "UNTIL") if "UNTIL" in rule else None
    return Rule(freq, interval, byday, nth, count, until, frozenset(exdates))


def occurrences(start: datetime, rule: Rule) -> list[datetime]:
    """The original starts of every occurrence of a series starting at ``start``, EXDATEs left out."""
    out: list[datetime] = []
    limit = rule.until or start + timedelta(days=HORIZON_DAYS)
    # n: occurrences generated before this one (COUNT counts EXDATEd ones too, as RFC 5545 does)
    for n, moment in enumerate(_candidates(start, rule)):
        if moment > limit or len(out) >= MAX_OCCURRENCES or (rule.count is not None and n >= rule.count):
            break
        if moment not in rule.exdates and moment.replace(hour=0, minute=0) not in rule.exdates:
            out.append(moment)
    return out


def _candidates(start: datetime, rule: Rule):
    if rule.freq == "MONTHLY":
        k = 0
        while True:
            month = start.month - 1 + k * rule.interval
            year, month = start.year + month // 12, month % 12 + 1
            length = _calendar.monthrange(year, month)[1]
            if rule.nth is not None:
                ordinal, weekday = rule.nth
                days = [d for d in range(1, length + 1) if _calendar.weekday(year, month, d) == weekday]
                moment = start.replace(year=year, month=month, day=days[ordinal - 1 if ordinal > 0 else -1])
                if moment >= start:
                    yield moment
            elif start.day <= length:
                yield start.replace(year=year, month=month)
            k += 1
    elif rule.freq == "DAILY" and not rule.byday:
        k = 0
        while True:
            yield start + timedelta(days=k * rule.interval)
            k += 1
    else:
        weekdays = rule.byday or (start.weekday(),)
        step = 7 * rule.interval if rule.freq == "WEEKLY" else 7
        week = start - timedelta(days=start.weekday())
        while True:
            for d in weekdays:
                moment = week + timedelta(days=d)
                if moment >= start:
                    yield moment
            week += timedelta(days=step)


def instance_id(series_id: str, original_start: str) -> str:
    """Google's instance id: the series id, '_', the original start without separators."""
    return f"{series_id}_{original_start.replace('-', '').replace(':', '')}"


def as_text(moment: datetime, all_day: bool) -> str:
    return moment.date().isoformat() if all_day else moment.strftime("%Y-%m-%dT%H:%M")


__all__ = ["HORIZON_DAYS", "Rule", "as_text", "instance_id", "occurrences", "parse"]
