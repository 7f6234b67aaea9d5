"""x-t-support-desk-april: April's operations support desk rota, filled in on the team calendar as the
dated policy in Notion says (the 2026 version; the superseded 2025 one staffed the desk by the week). One
person a working day, in the policy's fixed order of eight (five Lisbon coordinators and dispatchers, Maria
Santos and Maria Santana among them, and three Hamburg warehouse planners), carrying on after whoever had
March's last slot; the desk closes on Portugal's holidays (Good Friday: its slot is deleted, nobody's turn);
whoever is away on their turn is passed over for the day and the order carries on after whoever took it.

Who is away is assembled from five partial sources on four servers, no one of which lists it: approved
rows of the Leave register (Notion; pending and declined rows do not count, other teams' rows are noise and
one of Maria Santana's leaves is the lookalike of Maria Santos), out-of-office entries on the team calendar,
Germany's holidays for the Hamburg colleagues (listed in the policy: Easter Monday), a registered leave
cancelled and another moved in #ops (the newer word wins over the register), and a late request approved by
email in Priya's mail beside one she declined. Each of these, misread, changes the rota (checked per case).

The series' occurrences are stored (unchanged exceptions) so each day's slot has an id the predicate names:
every open day must have exactly its person as guest (frame: only that guest added, the wrong prefilled
one removed), Good Friday's slot deleted, the first four days were filled in beforehand from the register
alone (some right, left alone; some wrong, fixed), and the rota posted once in #ops (by the agent: #ops already
mentions April, so the clause names the workspace's viewer as the poster). One attendee update
answers ``unavailable`` (must be retried) and the post answers ``timeout_after_commit`` (a blind retry
posts twice).

Version 2 adds the team's past work: February's and March's rotas were posted in #ops and their desk days
emailed to each person on the desk by Priya (16 emails: a thread a person, February's starting it, March's answering in it), and the goal asks for the team to be told "the way we did
for February and March". What no policy says and no list shows: the emails to the Hamburg warehouse
colleagues (their office is in the policy's order and in the directory) copy the Warehouse lead, their
manager; it shows only in the ``cc`` of the opened emails (``search_emails`` returns no cc; ``get_thread``
and ``read_email`` do), in 4-6 of the 16. Every reading of :data:`COPY_READINGS` (always, never, by month,
by a Monday or Friday among the days, by how many days) is contradicted by an earlier email or copies the
same new emails as the habit (asserted per case, :func:`copy_convention_holds`). Copying the lead on every
email over-applies the habit and passes; leaving the copy out of a Hamburg colleague's email fails."""

from __future__ import annotations

import random
import re
from datetime import date, timedelta
from typing import Any

from servers.calendar import CalendarState, CalendarTools
from tasks_catalog.authoring.cross import cases, on_worlds, org, template, world
from tasks_catalog.authoring.cross._x_t_billing import hex_id, unix, uuid_of, weekdays
from tasks_catalog.authoring.cross._x_t_people import PRIMARY, body, call, solved
from tasks_catalog.authoring.cross._x_t_readings import Always, FlaggedSide, FlaggedWhen, left_open

ID = "x-t-support-desk-april"
TITLE = "Support desk"
REGISTER = "Leave register"
POLICY = "Support desk rota"
OLD_POLICY = "Support desk rota 2025 (superseded)"
#: Germany's public holidays of 2026 (the policy lists them for the Hamburg colleagues).
DE_2026 = ("2026-01-01", "2026-04-03", "2026-04-06", "2026-05-01", "2026-05-14", "2026-05-25", "2026-10-03",
           "2026-10-31", "2026-12-25", "2026-12-26")
DE_TEXT = ("1 January, 3 and 6 April, 1 May, 14 and 25 May, 3 October, 31 October (Reformation Day, Hamburg), "
           "25 and 26 December")
#: How many of April's first open days were filled in beforehand (from the register alone).
PREFILLED = 4
REASONS = ("Annual leave", "Long weekend", "Family visit", "Moving house", "Annual leave", "Wedding")
TRAPS = ("cancel", "move", "pending", "ooo", "declined", "lookalike", "plain")
#: The misreadings whose rota must differ from the right one in every case.
MISREADINGS = ("ignore_slack_cancel", "ignore_slack_move", "ignore_mail", "count_pending", "count_declined",
               "ignore_ooo", "ignore_de", "lookalike", "start_first")
#: What the rota's post and each person's email of their days must name: the month, as the goal's word, as a
#: rota's dates shorten it ("Wed 1 Apr") or as an ISO date gives it.
MONTH = "Apr|2026-04"
SIGNATURE = "Best regards,\nPriya Raman\nOperations manager, Kestrel Freight Systems"


# -- dates ---------------------------------------------------------------------------------------------

def after(day: str, n: int = 1) -> str:
    return (date.fromisoformat(day) + timedelta(days=n)).isoformat()


def short(day: str) -> str:
    d = date.fromisoformat(day)
    return f"{d.strftime('%a')} {d.day} {d.strftime('%b')}"


def long(day: str) -> str:
    d = date.fromisoformat(day)
    return f"{d.strftime('%A')} {d.day} {d.strftime('%B')}"


def span(first: str, last: str) -> str:
    """``Tuesday 14 April``, ``Tuesday 14 and Wednesday 15 April`` or ``Friday 24 to Tuesday 28 April``."""
    if first == last:
        return long(first)
    a = date.fromisoformat(first)
    head = f"{a.strftime('%A')} {a.day}" + ("" if first[:7] == last[:7] else f" {a.strftime('%B')}")
    return f"{head} {'and' if len(weekdays(first, last)) == 2 else 'to'} {long(last)}"


FEBRUARY = weekdays("2026-02-02", "2026-02-27")
MARCH = weekdays("2026-03-02", "2026-03-31")
APRIL = weekdays("2026-04-01", "2026-04-30")


# -- the team's habit (shown by February's and March's emails, written nowhere) ------------------------------

def days_subject(month: str) -> str:
    """Each person's thread of desk days: February's email starts it, each later month answers in it."""
    return "Your support desk days" if month == "February" else "Re: Your support desk days"


def days_thread(seed: int, who: str) -> str:
    return hex_id(ID, "days", seed, "February", who)


def days_body(first: str, month: str, days: list[str]) -> str:
    listed = "\n".join(f"- {long(d)}" for d in days)
    return (f"Hi {first},\n\nyour days on the support desk in {month}:\n{listed}\n\nIf one doesn't work for you, "
            f"swap it with someone and tell me.\n\n{SIGNATURE}")


def copied(item: dict[str, Any]) -> bool:
    """The habit: a Hamburg warehouse colleague's email of desk days copies the Warehouse lead (their manager)."""
    return item["office"] == "hamburg"


#: When a desk-days email copies the Warehouse lead, as a reader of the earlier ones might guess it (each
#: field is one the tools show: the person's office and team, the month, how many days they had, whether
#: their days include a Friday or a Monday). "By the person" predicts what the habit does (the same eight
#: people get April's emails), so it decides nothing apart from it.
COPY_READINGS: dict[str, Any] = {
    "always": Always(True, flag="cc"),
    "never": Always(False, flag="cc"),
    "by the office": FlaggedWhen("office", flag="cc"),
    "by the person": FlaggedWhen("who", flag="cc"),
    "by the month": FlaggedWhen("month", flag="cc"),
    "by whether their days include a Monday": FlaggedWhen("monday", flag="cc"),
    "by whether their days include a Friday": FlaggedWhen("friday", flag="cc"),
    "for few days": FlaggedSide("count", low=True, flag="cc"),
    "for many days": FlaggedSide("count", low=False, flag="cc"),
}


def copy_convention_holds(examples: list[dict[str, Any]], items: list[dict[str, Any]]) -> bool:
    """Whether the earlier emails tell the habit (:func:`copied`) apart from every reading of
    :data:`COPY_READINGS` (each is contradicted by an earlier email or copies exactly the new emails the habit
    copies), the copied ones are a minority, and each earlier email copies the lead exactly when the habit
    says (raises when not: that is the module's error, not the world's)."""
    if any(bool(e["cc"]) != copied(e) for e in examples):
        raise ValueError(f"{ID}: an earlier desk-days email's copy does not follow the habit")
    n = sum(bool(e["cc"]) for e in examples)
    if n < 2 or n * 2 >= len(examples) or not any(copied(i) for i in items):
        return False
    return not left_open(COPY_READINGS, examples, items, copied)


def desk_items(assigned: dict[str, str], month: str, by_key: dict[str, Any], hamburg: set[str]) -> list[dict[str, Any]]:
    """One month's desk-days emails as facts: whose, their days, and what a reading of the habit looks at."""
    out = []
    for k in by_key:
        days = sorted(d for d, who in assigned.items() if who == k)
        out.append({"who": k, "days": days, "month": month, "count": len(days),
                    "office": "hamburg" if k in hamburg else "lisbon",
                    "monday": any(date.fromisoformat(d).weekday() == 0 for d in days),
                    "friday": any(date.fromisoformat(d).weekday() == 4 for d in days)})
    for item in out:
        item["cc"] = copied(item)
    return out


# -- the rule ------------------------------------------------------------------------------------------

def rota(order: list[str], days: list[str], away: set[tuple[str, str]], start: int) -> tuple[dict[str, str], int]:
    """Each day's person by the policy's rule (passed over when away; the order carries on after whoever took
    the slot), and the index whose turn comes next."""
    out: dict[str, str] = {}
    n = len(order)
    for day in days:
        for k in range(n):
            who = order[(start + k) % n]
            if (who, day) not in away:
                break
        else:
            raise ValueError(f"everyone is away on {day}")
        out[day] = who
        start = (order.index(who) + 1) % n
    return out, start


def _leave(who: str, first: str, last: str, status: str, reason: str, logged: str, **extra: Any) -> dict[str, Any]:
    return {"who": who, "from": first, "to": last, "status": status, "reason": reason, "logged": logged, **extra}


def away_of(facts: dict[str, Any], reading: frozenset[str] = frozenset()) -> set[tuple[str, str]]:
    """The (person, day) pairs the sources make away, as ``reading`` (a set of misreadings) takes them."""
    out: set[tuple[str, str]] = set()
    santos, santana = facts["santos"], facts["santana"]
    for row in facts["register"]:
        if row["status"] != "Approved" and not ("count_pending" in reading and row["status"] == "Pending"):
            continue
        first, last = row["from"], row["to"]
        if row.get("cancelled") and "ignore_slack_cancel" not in reading:
            continue
        if row.get("moved") and "ignore_slack_move" not in reading:
            first, last = row["moved"]
        who = row["who"]
        if "lookalike" in reading and who == santana:
            who = santos
        out |= {(who, d) for d in weekdays(first, last)}
    if "ignore_ooo" not in reading:
        out |= {(o["who"], d) for o in facts["ooo"] for d in weekdays(o["from"], o["to"])}
    for mail in facts["mail"]:
        if (mail["approved"] and "ignore_mail" not in reading) or (not mail["approved"] and "count_declined" in reading):
            out.add((mail["who"], mail["day"]))
    if "ignore_de" not in reading:
        out |= {(who, d) for who in facts["hamburg"] for d in DE_2026}
    return out


# -- ids -------------------------------------------------------------------------------------------------

def gcal_id(*parts: object) -> str:
    """A stable id shaped like the calendar's own (26 characters of base32hex, lower case)."""
    digits = "0123456789abcdefghijklmnopqrstuv"
    n = int(hex_id(ID, *parts, n=32), 16)
    return "".join(digits[(n >> (5 * i)) & 31] for i in range(26))


def slot_id(series: str, day: str) -> str:
    return f"{series}_{day.replace('-', '')}"


# -- a case ----------------------------------------------------------------------------------------------

def _members(seed: int, rng: random.Random) -> tuple[list[Any], list[Any]] | None:
    o = org(seed)
    ops = [e for e in o.employees if e.manager == o.owner.key and e.active and e.started and e.team == "Operations"]
    marias = [e for e in ops if e.name in ("Maria Santos", "Maria Santana")]
    lead = next((e for e in o.employees if e.team == "Warehouse" and e.title == "Warehouse lead" and e.active), None)
    hamburg = [e for e in o.employees if lead and e.manager == lead.key and e.office == "hamburg" and e.active and e.started]
    others = [e for e in ops if e not in marias]
    if len(marias) != 2 or len(others) < 3 or len(hamburg) < 2:
        return None
    return marias + rng.sample(others, 3), rng.sample(hamburg, min(3, len(hamburg)))


def _plant(rng: random.Random, facts: dict[str, Any], current: Any, open_days: list[str], ops_keys: set[str],
           santana: str) -> bool:
    """Plant the month's traps after the prefilled days, each on the turn of a person it suits, in date order
    (``current()`` is the rota the facts so far give); False when the month has no room for one of them."""
    day, = (m["day"] for m in facts["mail"])
    traps = list(TRAPS)
    rng.shuffle(traps)
    # What each person already has (leave, out-of-office, a request): no two of one person's come within three
    # days of each other, so that no source overlaps another of the same person.
    busy: dict[str, list[tuple[str, str]]] = {facts["mail"][0]["who"]: [(day, day)]}

    def free(who: str, first: str, last: str) -> bool:
        return all(last < after(a, -3) or after(b, 3) < first for a, b in busy.get(who, []))

    fits = {"declined": lambda k: k in ops_keys and k != santana, "lookalike": lambda k: k == santana}
    cursor = PREFILLED + 1
    for trap in traps:
        cursor += rng.randint(0, 1)
        now = current()
        length = {"cancel": rng.randint(2, 3), "move": rng.randint(1, 2), "pending": rng.randint(1, 2),
                  "ooo": rng.randint(1, 2), "declined": 1, "lookalike": rng.randint(2, 3), "plain": rng.randint(2, 4)}[trap]
        fit = fits.get(trap, lambda k: k != santana)
        at = next((i for i in range(cursor, len(open_days)) if fit(now[open_days[i]]) and
                   free(now[open_days[i]], open_days[i], open_days[min(i + length - 1, len(open_days) - 1)])), None)
        if at is None:
            return False
        day, holder = open_days[at], now[open_days[at]]
        last = open_days[min(at + length - 1, len(open_days) - 1)]
        busy.setdefault(holder, []).append((day, last))
        logged = f"2026-02-{rng.randint(9, 27):02d}"
        if trap == "cancel":
            facts["register"].append(_leave(holder, day, last, "Approved", rng.choice(REASONS), logged, cancelled=True))
        elif trap == "move":
            facts["register"].append(_leave(holder, "", "", "Approved", rng.choice(REASONS), logged, moved=(day, last)))
        elif trap == "pending":
            facts["register"].append(_leave(holder, day, last, "Pending", rng.choice(REASONS), f"2026-03-{rng.randint(9, 13):02d}"))
        elif trap == "ooo":
            facts["ooo"].append({"who": holder, "from": day, "to": last})
        elif trap == "declined":
            facts["mail"].append({"who": holder, "day": day, "approved": False})
        else:
            facts["register"].append(_leave(holder, day, last, "Approved", rng.choice(REASONS), logged))
        cursor = at + 1
    # The moved leave's registered (old) dates: a turn of the mover's, clear of everything else of theirs.
    final = current()
    moved = next(r for r in facts["register"] if r.get("moved"))
    mover = moved["who"]
    busy[mover].remove(moved["moved"])
    choices = [d for d in open_days[PREFILLED:] if final[d] == mover and free(mover, d, d)
               and (d < after(moved["moved"][0], -3) or after(moved["moved"][1], 3) < d)]
    if not choices:
        return False
    old_first = rng.choice(choices)
    old_last = open_days[min(open_days.index(old_first) + rng.randint(0, 1), len(open_days) - 1)]
    if not free(mover, old_first, old_last):
        old_last = old_first
    moved["from"], moved["to"] = old_first, old_last
    return current() == final and all(a != b for a, b in zip(final.values(), list(final.values())[1:], strict=False))


def _plan(seed: int, rng: random.Random, lisbon: list[Any], hamburg: list[Any], pt: set[str]) -> dict[str, Any] | None:
    """One draw of the month's facts; None when a rule of the case does not hold (the caller draws again)."""
    o = org(seed)
    members = lisbon + hamburg
    order = [e.key for e in members]
    rng.shuffle(order)
    by_key = {e.key: e for e in members}
    ops_keys = {e.key for e in lisbon}
    santos = next(e.key for e in lisbon if e.name == "Maria Santos")
    santana = next(e.key for e in lisbon if e.name == "Maria Santana")
    open_days = [d for d in APRIL if d not in pt]
    facts: dict[str, Any] = {"register": [], "ooo": [], "mail": [], "hamburg": {e.key for e in hamburg},
                             "santos": santos, "santana": santana}
    # March: two members' approved leaves; the rota of March follows from them.
    for who in rng.sample(order, 2):
        first = rng.choice(MARCH[:-3])
        last = MARCH[min(MARCH.index(first) + rng.randint(0, 2), len(MARCH) - 1)]
        facts["register"].append(_leave(who, first, last, "Approved", rng.choice(REASONS), "2026-02-" + f"{rng.randint(2, 20):02d}"))
    march, _ = rota(order, MARCH, away_of(facts), 0)
    start = (order.index(march[MARCH[-1]]) + 1) % len(order)

    def current() -> dict[str, str]:
        return rota(order, open_days, away_of(facts), start)[0]

    # Week one: a late request approved by email for a day the register-only rota gives its asker.
    day = open_days[rng.randint(1, PREFILLED - 1)]
    holder = current()[day]
    if holder not in ops_keys:
        return None
    facts["mail"].append({"who": holder, "day": day, "approved": True})
    # The rest of the month: each trap on the turn of a person it suits, in date order.
    if not _plant(rng, facts, current, open_days, ops_keys, santana):
        return None
    final = current()
    # Every misreading must change the rota, and the prefilled days be partly right and partly wrong.
    for reading in MISREADINGS:
        if reading == "start_first":
            other = rota(order, open_days, away_of(facts), 0)[0]
        else:
            other = rota(order, open_days, away_of(facts, frozenset({reading})), start)[0]
        if other == final:
            return None
    stale = frozenset({"ignore_slack_cancel", "ignore_slack_move", "ignore_mail", "ignore_ooo"})
    prefill = rota(order, open_days, away_of(facts, stale), start)[0]
    first_days = open_days[:PREFILLED]
    if prefill[first_days[0]] != final[first_days[0]] or all(prefill[d] == final[d] for d in first_days):
        return None
    if len(set(final.values())) < len(order) - 1:
        return None
    # February (nobody away) ends with the last of the order, so March starts from the first.
    feb_days = [d for d in FEBRUARY if d not in {h for _, h in o.holidays}]
    february, _ = rota(order, feb_days, set(), (len(order) - len(feb_days)) % len(order))
    if february[feb_days[-1]] != order[-1] or any(set(m.values()) != set(order) for m in (february, march, final)):
        return None
    examples = [*desk_items(february, "February", by_key, facts["hamburg"]),
                *desk_items(march, "March", by_key, facts["hamburg"])]
    items = desk_items(final, "April", by_key, facts["hamburg"])
    if not copy_convention_holds(examples, items):
        return None
    return {"order": order, "by_key": by_key, "facts": facts, "march": march, "final": final, "start": start,
            "prefill": {d: prefill[d] for d in first_days}, "open_days": open_days, "o": o,
            "examples": examples, "items": items, "february": february,
            "feb_closed": [d for d in FEBRUARY if d not in feb_days]}


@on_worlds(slack=3)
def case_of(seed: int) -> dict[str, Any] | None:
    o = org(seed)
    rng = random.Random(f"{ID}:{seed}")
    members = _members(seed, rng)
    if members is None:
        return None
    lisbon, hamburg = members
    pt = {d for _, d in o.holidays if d in APRIL}
    if pt != {"2026-04-03"}:
        return None
    plan = None
    for _ in range(400):
        plan = _plan(seed, rng, lisbon, hamburg, pt)
        if plan is not None:
            break
    if plan is None:
        return None
    return _case(seed, plan, sorted(pt))


def _case(seed: int, plan: dict[str, Any], closed: list[str]) -> dict[str, Any] | None:  # noqa: PLR0915 - one case, written out
    o = plan["o"]
    order, by_key, facts = plan["order"], plan["by_key"], plan["facts"]
    open_days, prefill = plan["open_days"], plan["prefill"]
    email = {k: e.email for k, e in by_key.items()}
    cal = world("calendar", seed)
    ops_cal = next(c["id"] for c in cal["calendars"] if c["name"] == "Operations team")
    holidays_cal = next(c["id"] for c in cal["calendars"] if c["name"].startswith("Holidays in"))
    series = gcal_id("series", seed)
    good_friday = closed[0]

    # -- calendar: the series, its stored days (March's guests, April's first days), the out-of-office days
    def exception(day: str, guest: str | None) -> dict[str, Any]:
        return {"id": slot_id(series, day), "calendar_id": ops_cal, "title": TITLE, "start": day, "end": after(day),
                "description": DESCRIPTION, "location": "",
                "attendees": [{"email": guest, "response_status": "accepted"}] if guest else [],
                "status": "confirmed", "organizer": PRIMARY, "recurring_event_id": series, "original_start": day}

    events = [{"id": series, "calendar_id": ops_cal, "title": TITLE, "start": MARCH[0], "end": after(MARCH[0]),
               "description": DESCRIPTION, "location": "", "attendees": [], "status": "confirmed", "organizer": PRIMARY,
               "recurrence": ["RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;UNTIL=20260630T235959Z"]}]
    events += [exception(d, email[plan["march"][d]]) for d in MARCH]
    events += [exception(d, email[prefill[d]] if d in prefill else None) for d in APRIL]
    for i, ooo in enumerate(facts["ooo"]):
        who = by_key[ooo["who"]]
        events.append({"id": gcal_id("ooo", seed, i), "calendar_id": ops_cal, "title": f"Out of office: {who.name}",
                       "start": ooo["from"], "end": after(ooo["to"]), "description": "Customs compliance training (off site).",
                       "location": "", "attendees": [{"email": who.email, "response_status": "accepted"}],
                       "status": "confirmed", "organizer": who.email})
    calendar_patch = [{"op": "add", "in": ["events"], "value": e} for e in events]

    # -- notion: the policy (current and superseded) and the Leave register
    notion = world("notion", seed)
    top = {p["id"] for p in notion["pages"] if p["parent_id"] is None}
    pages = {p["title"]: p for p in notion["pages"] if p["parent_id"] is None or p["parent_id"] in top
             or p["title"] == "Superseded"}
    people = pages["People"]["id"]
    users = {u["email"]: u["id"] for u in notion["users"]}
    register_id = uuid_of(ID, "register", seed)
    policy_id, old_id = uuid_of(ID, "policy", seed), uuid_of(ID, "policy-2025", seed)

    def blocks(key: str, items: list[tuple[str, str]]) -> list[dict[str, Any]]:
        return [{"id": uuid_of(ID, key, seed, i), "type": kind, "text": text} for i, (kind, text) in enumerate(items)]

    def place(e: Any) -> str:
        return "Hamburg warehouse" if e.key in facts["hamburg"] else "Lisbon"

    policy_blocks = blocks("policy", [
        ("paragraph", "Effective 2026-03-01. Replaces the 2025 version (effective 2025-01-06)."),
        ("paragraph", f"The operations support desk is staffed by one person each working day, all day. Every working "
                      f"day has its \"{TITLE}\" event on the Operations team calendar, and the person on duty is its "
                      "one guest."),
        ("paragraph", "The order (after the last it starts again from the first):"),
        *[("numbered_list_item", f"{by_key[k].name} ({place(by_key[k])})") for k in order],
        ("paragraph", "Each month carries on from the month before: its first slot is the turn of the person after "
                      "whoever had the last slot of the month before."),
        ("paragraph", "The desk is closed on the public holidays of Portugal (the Holidays in Portugal calendar lists "
                      f"them): delete that day's {TITLE} event. A closed day is nobody's turn."),
        ("paragraph", f"Our Hamburg warehouse colleagues are off on Germany's public holidays; in 2026: {DE_TEXT}."),
        ("paragraph", "Whoever is away on the day of their turn is passed over for that day: the next person in the "
                      "order who is in takes the slot, and the order carries on after whoever took it. Whoever was "
                      "passed over gets no extra day."),
        ("paragraph", f"Away means: approved leave in the {REGISTER} (pending or declined requests do not count), an "
                      "out-of-office entry on the Operations team calendar, or a public holiday of their office."),
        ("paragraph", f"Only HR edits the {REGISTER}, and it lags: whoever cancels or moves a registered leave says so "
                      "in #ops, and a late request their manager approved by email is in the manager's mail. The "
                      "newer word wins over the register."),
        ("paragraph", "When a month's slots are filled in, post its rota in #ops in one message: every working day "
                      "and who is on the desk."),
        ("paragraph", "Owner: Priya Raman"),
    ])
    old_blocks = blocks("policy-2025", [
        ("paragraph", "Effective 2025-01-06. Superseded on 2026-03-01 by the 2026 version."),
        ("paragraph", "One person covers the support desk for a whole week, Monday to Friday, in alphabetical order "
                      "of the operations team."),
        ("paragraph", "Whoever is on leave in their week swaps weeks with the next person."),
        ("paragraph", "Post the quarter's rota in #general."),
    ])
    register_rows = []
    others = [e for e in o.employees if e.active and e.started and e.key not in by_key and e.email in users
               and e.name != "Priya Raman"]
    rng = random.Random(f"{ID}:noise:{seed}")
    noise = []
    for e in rng.sample(others, 7):
        first = rng.choice(MARCH[10:] + APRIL)
        last = (MARCH + APRIL)[min((MARCH + APRIL).index(first) + rng.randint(0, 4), len(MARCH + APRIL) - 1)]
        status = rng.choice(("Approved", "Approved", "Approved", "Pending", "Declined"))
        noise.append(_leave(e.key, first, last, status, rng.choice(REASONS), f"2026-02-{rng.randint(2, 27):02d}"))
    everyone = {e.key: e for e in o.employees}
    rows = sorted(facts["register"] + noise, key=lambda r: (r["logged"], r["from"]))
    for i, row in enumerate(rows):
        who = everyone[row["who"]]
        register_rows.append({"id": uuid_of(ID, "row", seed, i), "title": row["reason"], "parent_id": register_id,
                              "properties": {"Employee": [users[who.email]], "From": row["from"], "To": row["to"],
                                             "Status": row["status"], "Logged": row["logged"]},
                              "content": [], "archived": False, "created_time": f"{row['logged']}T10:00:00Z"})
    database = {"id": register_id, "title": REGISTER, "parent_id": people, "archived": False,
                "properties": {"Request": {"type": "title"}, "Employee": {"type": "people"}, "From": {"type": "date"},
                               "To": {"type": "date"},
                               "Status": {"type": "select", "options": ["Approved", "Pending", "Declined"]},
                               "Logged": {"type": "date"}}}
    notion_patch = [
        {"op": "add", "in": ["pages"], "value": {"id": policy_id, "title": POLICY, "parent_id": pages["Policies"]["id"],
                                                "properties": {}, "content": policy_blocks, "archived": False,
                                                "created_time": "2026-02-20T09:00:00Z"}},
        {"op": "add", "in": ["pages"], "value": {"id": old_id, "title": OLD_POLICY, "parent_id": pages["Superseded"]["id"],
                                                "properties": {}, "content": old_blocks, "archived": False,
                                                "created_time": "2025-01-02T09:00:00Z"}},
        {"op": "add", "in": ["databases"], "value": database},
        *({"op": "add", "in": ["pages"], "value": r} for r in register_rows),
    ]

    # -- slack: the cancelled and the moved leave, said in #ops
    slack = world("slack", seed)
    ops = next(c for c in slack["channels"] if c["name"] == "ops")
    slack_ids = {u.get("email"): u["id"] for u in slack["users"]}
    cancel = next(r for r in facts["register"] if r.get("cancelled"))
    move = next(r for r in facts["register"] if r.get("moved"))
    cancel_text = (f"Change of plan: I'm not going away {span(cancel['from'], cancel['to'])} after all, so I'll be "
                   "in as usual.")
    move_text = (f"Heads-up: my holiday is now {span(*move['moved'])} instead of {span(move['from'], move['to'])} "
                 "(Priya's fine with it). HR still has the old dates.")
    planted = [("2026-03-10T11:05:00", email[move["who"]], move_text),
               ("2026-03-12T16:20:00", email[cancel["who"]], cancel_text)]
    # Beside them, the head of operations (not on the desk) announces days away of their own.
    head = o.employee(o.owner.manager) if o.owner.manager else None
    if head is not None and head.active and slack_ids.get(head.email) in ops["members"]:
        first = random.Random(f"{ID}:head:{seed}").choice(open_days[5:-3])
        last = open_days[open_days.index(first) + 2]
        planted.append(("2026-03-09T09:40:00", head.email,
                        f"FYI I'm away {span(first, last)}; anything urgent goes to Priya."))
    # February's and March's rotas, posted by Priya when the desk-days emails went out
    planted += [("2026-01-29T16:30:00", PRIMARY, _rota_text(plan["february"], by_key, plan["feb_closed"], "February")),
                ("2026-02-26T16:30:00", PRIMARY, _rota_text(plan["march"], by_key, [], "March"))]
    taken = {m["ts"] for m in ops["messages"]}
    slack_patch = []
    for at, who, text in planted:
        ts = f"{unix(at)}.{int(hex_id(ID, at, seed, n=5), 16) % 1_000_000:06d}"
        assert ts not in taken
        slack_patch.append({"op": "add", "in": ["channels", ops["id"], "messages"],
                            "value": {"ts": ts, "user": slack_ids[who], "text": text}})

    # -- gmail: a late request approved, another declined
    gmail_patch = []
    taken_mail = {m["id"] for m in world("gmail", seed)["messages"]}
    for i, mail in enumerate(sorted(facts["mail"], key=lambda m: not m["approved"])):
        who = by_key[mail["who"]]
        asked = f"2026-03-{11 + i:02d}T08:{14 + 7 * i:02d}:00Z"
        answered = f"2026-03-{11 + i:02d}T10:{3 + 9 * i:02d}:00Z"
        subject = f"Day off on {long(mail['day'])}?"
        request_id, reply_id = hex_id(ID, "ask", seed, i), hex_id(ID, "reply", seed, i)
        assert not {request_id, reply_id} & taken_mail
        body = (f"Hi Priya,\n\nsorry for the short notice: could I take {long(mail['day'])} off? I know it's too late "
                f"for the register.\n\nThanks,\n{who.first}")
        answer = (f"Hi {who.first},\n\nthat's fine, approved. Enjoy the day!\n\n{SIGNATURE}" if mail["approved"] else
                  f"Hi {who.first},\n\nsorry, I can't approve that one: we're short that week with the Rotterdam move. "
                  f"Could you pick another day?\n\n{SIGNATURE}")
        gmail_patch += [
            {"op": "add", "in": ["messages"], "value": {
                "id": request_id, "thread_id": request_id, "sender": who.email, "to": [PRIMARY], "cc": [],
                "subject": subject, "body": body, "date": asked, "label_ids": ["INBOX", "CATEGORY_PERSONAL"]}},
            {"op": "add", "in": ["messages"], "value": {
                "id": reply_id, "thread_id": request_id, "sender": PRIMARY, "to": [who.email], "cc": [],
                "subject": f"Re: {subject}", "body": answer, "date": answered, "label_ids": ["SENT"]}},
        ]

    # -- gmail: February's and March's desk days, emailed to each person (the Hamburg ones copy their lead)
    lead = o.employee(by_key[sorted(facts["hamburg"])[0]].manager)
    sent = {"February": "2026-01-29", "March": "2026-02-26"}
    for i, item in enumerate(plan["examples"]):
        who = by_key[item["who"]]
        mail_id = hex_id(ID, "days", seed, item["month"], item["who"])
        assert mail_id not in taken_mail
        gmail_patch.append({"op": "add", "in": ["messages"], "value": {
            "id": mail_id, "thread_id": days_thread(seed, item["who"]), "sender": PRIMARY, "to": [who.email],
            "cc": [lead.email] if item["cc"] else [], "subject": days_subject(item["month"]),
            "body": days_body(who.first, item["month"], item["days"]),
            "date": f"{sent[item['month']]}T16:{10 + i % 8:02d}:00Z", "label_ids": ["SENT"]}})

    # #ops already mentions April (the moved and cancelled leaves, the ops review's reminder), so the post's clause
    # names its poster, the workspace's viewer (the agent): only the new post may meet it, and each person's email
    # clause only the new email. A case where the initial state would already meet one is drawn again.
    viewer = slack["viewer"]
    if any(m["user"] == viewer and re.search(MONTH, m["text"])
           for m in [*ops["messages"], *(op["value"] for op in slack_patch)]):
        return None
    if any("SENT" in m["label_ids"] and e in m["to"] and re.search(MONTH, m["body"])
           for m in [*world("gmail", seed)["messages"], *(op["value"] for op in gmail_patch)] for e in email.values()):
        return None
    patch = {"calendar": calendar_patch, "notion": notion_patch, "slack": slack_patch, "gmail": gmail_patch}
    return _judged(seed, plan, patch, {"series": series, "ops_cal": ops_cal, "holidays_cal": holidays_cal,
                                       "good_friday": good_friday, "ops_channel": ops["id"], "policy": policy_id,
                                       "old_policy": old_id, "register": register_id,
                                       "move_row": register_rows[rows.index(move)]["id"], "lead": lead.email, "viewer": viewer})


DESCRIPTION = "Operations support desk: the person on duty is the guest."


def _patched_calendar(seed: int, patch: list[dict[str, Any]]) -> CalendarTools:
    state = dict(world("calendar", seed))
    state["events"] = [*state["events"], *(op["value"] for op in patch)]
    return CalendarTools(CalendarState.model_validate(state))


def _listing(tools: CalendarTools, calendar: str, first: str, end: str) -> list[dict[str, Any]]:
    """The reads that list ``calendar`` from ``first`` to ``end`` page by page (25 a page)."""
    reads, token = [], None
    while True:
        args: dict[str, Any] = {"calendarId": calendar, "timeMin": f"{first}T00:00", "timeMax": f"{end}T00:00"}
        if token:
            args["pageToken"] = token
        reads.append(call("calendar__list_events", **args))
        token = tools.list_events(calendar, timeMin=args["timeMin"], timeMax=args["timeMax"], pageToken=token).get("nextPageToken")
        if not token:
            return reads


def _rota_text(assigned: dict[str, str], by_key: dict[str, Any], closed: list[str], month: str = "April") -> str:
    days = sorted([*assigned, *closed])
    lines = [f"{short(d)}: closed (public holiday)" if d in closed else f"{short(d)}: {by_key[assigned[d]].name}"
             for d in days]
    return f"Support desk rota for {month} (on the Operations team calendar):\n" + "\n".join(lines)


def _judged(seed: int, plan: dict[str, Any], patch: dict[str, list], ids: dict[str, str]) -> dict[str, Any]:
    """The case's reference, frame, predicate and solutions; ``ids`` names what the patch planted (the
    series, the calendars, the channel, the policy pages, the register and the moved leave's row)."""
    series, ops_cal, holidays_cal, good_friday = ids["series"], ids["ops_cal"], ids["holidays_cal"], ids["good_friday"]
    ops_channel, policy_id, old_id, register_id = ids["ops_channel"], ids["policy"], ids["old_policy"], ids["register"]
    move_row = ids["move_row"]
    order, by_key, facts, final = plan["order"], plan["by_key"], plan["facts"], plan["final"]
    open_days, prefill, start = plan["open_days"], plan["prefill"], plan["start"]
    email = {k: e.email for k, e in by_key.items()}
    gf_slot = slot_id(series, good_friday)

    def writes(assigned: dict[str, str], *, delete_closed: bool = True) -> list[dict[str, Any]]:
        """The updates that make the calendar show ``assigned`` (a day's person), from the initial state."""
        out = []
        for day in sorted(assigned):
            if prefill.get(day) == assigned[day]:
                continue
            out.append(call("calendar__update_event", calendarId=ops_cal, eventId=slot_id(series, day),
                            attendees=[email[assigned[day]]]))
        if delete_closed and good_friday not in assigned:
            out.append(call("calendar__delete_event", calendarId=ops_cal, eventId=gf_slot))
        return out

    lead = ids["lead"]

    def mails(assigned: dict[str, str], cc: Any = lambda item: item["cc"]) -> list[dict[str, Any]]:
        """Each person's email of their April days (``cc(item)``: whether it copies the Warehouse lead)."""
        out = []
        for item in desk_items(assigned, "April", by_key, facts["hamburg"]):
            if item["days"]:
                out.append(call("gmail__send_email", to=[email[item["who"]]], subject=days_subject("April"),
                                body=days_body(by_key[item["who"]].first, "April", item["days"]),
                                threadId=days_thread(seed, item["who"]),
                                **({"cc": [lead]} if cc(item) else {})))
        return out

    def post(assigned: dict[str, str], closed: list[str]) -> dict[str, Any]:
        return call("slack__post_message", channel_id=ops_channel, text=_rota_text(assigned, by_key, closed))

    updates = writes(final)
    the_post = post(final, [good_friday])
    told = mails(final)
    check = call("slack__get_channel_history", channel_id=ops_channel, limit=5)

    cal_tools = _patched_calendar(seed, patch["calendar"])
    gmail_threads = sorted({op["value"]["thread_id"] for op in patch["gmail"]})
    discover = [
        call("notion__search", query="support desk"),
        call("notion__get_block_children", block_id=policy_id),
        call("notion__search", query="leave register"),
        call("notion__query_database", database_id=register_id, page_size=100),
        call("calendar__list_calendars"),
        call("calendar__list_events", calendarId=ops_cal, timeMin="2026-03-31T00:00", timeMax="2026-04-01T00:00"),
        *_listing(cal_tools, ops_cal, "2026-04-01", "2026-05-01"),
        call("calendar__list_events", calendarId=holidays_cal, timeMin="2026-04-01T00:00", timeMax="2026-05-01T00:00"),
        call("slack__get_users", limit=200),
        call("slack__list_channels", limit=200),
        call("slack__get_channel_history", channel_id=ops_channel, limit=100),
        call("gmail__search_emails", query="April after:2026/02/15", maxResults=50),
        call("gmail__search_emails", query="support desk in:sent", maxResults=50),
        *(call("gmail__get_thread", threadId=t) for t in gmail_threads),
    ]
    reference = [*discover, *updates, the_post, check, *told]

    frame: list[dict[str, Any]] = []
    success: list[dict[str, Any]] = []
    for day in open_days:
        sid = slot_id(series, day)
        allowed: dict[str, Any] = {"add": [email[final[day]]], "key": "email"}
        if day in prefill and prefill[day] != final[day]:
            allowed["remove"] = [email[prefill[day]]]
            success.append({"not": {"calendar.eventHasAttendee": {"event": sid, "attendee": email[prefill[day]]}}})
        frame.append({"entity": "calendar.event", "ids": [sid], "fields": ["attendees", "title", "description"],
                      "values": {"attendees": allowed, "title": {"matches": f"^{TITLE}"}}})
        success.append({"calendar.eventHasAttendee": {"event": sid, "attendee": email[final[day]]}})
    frame.append({"entity": "calendar.event", "ids": [gf_slot], "fields": ["status"],
                  "values": {"status": {"eq": "cancelled"}}})
    frame.append({"entity": "slack.message", "change": ["create"], "where": {"channel": ops_channel}, "max": 1})
    # Each person's email of their days: a Hamburg colleague's copies the lead; copying the lead on the others'
    # too over-applies the habit, harmlessly.
    for k in order:
        for cc in ([[lead]] if k in facts["hamburg"] else [[], [lead]]):
            frame.append({"entity": "gmail.message", "change": ["create"], "where": {"to": [email[k]], "cc": cc},
                          "max": 1})
        success.append({"gmail.draftSent": {"to": email[k], "body_pattern": MONTH}})
    success.append({"not": {"calendar.eventExists": {"title": gf_slot}}})
    success.append({"slack.messagePosted": {"channel": "ops", "pattern": MONTH, "user": ids["viewer"]}})

    # -- wrong solutions: each misreading's rota, written as the right one would be
    def misread(*readings: str, first: bool = False) -> dict[str, str]:
        return rota(order, open_days, away_of(facts, frozenset(readings)), 0 if first else start)[0]

    def as_wrong(assigned: dict[str, str], why: str, kind: str = "other") -> dict[str, Any]:
        return {"why": why, "kind": kind, "calls": [*writes(assigned), *mails(assigned)]}  # the post adds nothing

    santos, santana = by_key[facts["santos"]], by_key[facts["santana"]]
    with_holiday = rota(order, sorted([*open_days, good_friday]), away_of(facts), start)[0]
    no_leave = rota(order, open_days, set(), start)[0]
    # The superseded 2025 version: a week each, in alphabetical order.
    alphabetical = sorted(order, key=lambda k: (by_key[k].last, by_key[k].first))
    weekly = {d: alphabetical[(date.fromisoformat(d).isocalendar()[1] - 14) % len(order)] for d in open_days}
    wrongs = [
        as_wrong(misread("lookalike"), f"takes {santana.name}'s registered leave for {santos.name}'s", "lookalike"),
        {"why": "the right rota, and corrects the Leave register to the moved dates (only HR edits it)",
         "kind": "collateral",
         "calls": [*updates, the_post, *told,
                   call("notion__update_page", page_id=move_row,
                        properties={"From": facts_moved(facts)[0], "To": facts_moved(facts)[1]})]},
        {"why": "the right rota, also putting the first person on the series itself (every later occurrence)",
         "kind": "collateral",
         "calls": [*updates, call("calendar__update_event", calendarId=ops_cal, eventId=series,
                                  attendees=[email[final[open_days[0]]]]), the_post, *told]},
        as_wrong(misread("ignore_slack_cancel", "ignore_slack_move"),
                 "trusts the register over #ops: the cancelled leave still counts, the moved one on its old dates"),
        as_wrong(misread("ignore_mail"), "misses the late request approved by email"),
        as_wrong(misread("count_declined"), "counts the request Priya declined by email as leave"),
        as_wrong(misread("count_pending"), "counts a pending request in the register as leave"),
        as_wrong(misread("ignore_ooo"), "misses the out-of-office entry on the team calendar"),
        as_wrong(misread("ignore_de"), "puts a Hamburg colleague on the desk on Easter Monday"),
        as_wrong(misread(first=True), "starts April from the top of the order, not after March's last slot"),
        {"why": "keeps Good Friday as a working day: a slot and a turn on a closed day", "kind": "other",
         "calls": [*writes(with_holiday, delete_closed=False), *mails(with_holiday)]},
        as_wrong(no_leave, "goes down the order without passing anyone over"),
        as_wrong(weekly, "follows the superseded 2025 version: a week each"),
        {"why": "fills the empty days right but leaves the wrong prefilled ones as they were", "kind": "other",
         "calls": [*(u for u in updates if u["arguments"].get("eventId") not in
                     {slot_id(series, d) for d in prefill}), *told]},
        {"why": "posts the rota again after the post timed out, without checking: two posts", "kind": "other",
         "calls": [*updates, the_post, the_post, *told]},
        {"why": "emails each person their days as February's and March's emails did, but copies nobody: misses that "
                "the Hamburg colleagues' emails copied the Warehouse lead (what sampling a few of them shows)",
         "kind": "other", "calls": [*updates, the_post, *mails(final, cc=lambda item: False)]},
        {"why": "fills in the calendar and emails each person their days but posts no rota in #ops, though February's "
                "and March's were posted there and the policy asks for it", "kind": "other", "calls": [*updates, *told]},
        {"why": "the whole reference but one person's email of their days", "kind": "other",
         "calls": [*updates, the_post, *told[1:]]},
        {"why": "fills in the calendar and posts the rota but emails nobody their days", "kind": "other",
         "calls": [*updates, the_post]},
        {"why": "emails the whole desk one message with everyone's days instead of each person theirs", "kind": "other",
         "calls": [*updates, the_post, call("gmail__send_email", to=[email[k] for k in order], cc=[lead],
                                            subject="Support desk rota for April",
                                            body=_rota_text(final, by_key, [good_friday]))]},
    ]
    alternatives = [
        {"why": "deletes the closed day and posts first, then fills the days latest first",
         "calls": [*discover, updates[-1], the_post, check, *reversed(updates[:-1]), *reversed(told)]},
        {"why": "reads the superseded version and the people through the directory too, and names each slot after its person",
         "calls": [call("notion__get_block_children", block_id=old_id),
                   *(call("calendar__search_people", query=by_key[k].name) for k in order), *discover,
                   *({**u, "arguments": {**u["arguments"], "summary": f"{TITLE}: {name_of(u, by_key, email)}"}}
                     if u["tool"] == "calendar__update_event" else u for u in updates),
                   the_post, check, *told]},
        {"why": "emails everyone their days first, copying the Warehouse lead on every email",
         "calls": [*discover, *mails(final, cc=lambda item: True), *updates, the_post, check]},
    ]
    return solved(
        patch=patch,
        faults=[{"tool": "calendar__update_event", "on_call": 5, "kind": "unavailable"},
                {"tool": "slack__post_message", "on_call": 1, "kind": "timeout_after_commit"}],
        retried=1, frame=frame, success={"all": success}, reference=reference, wrong=wrongs, alternatives=alternatives)


def facts_moved(facts: dict[str, Any]) -> tuple[str, str]:
    return next(r for r in facts["register"] if r.get("moved"))["moved"]


def name_of(update: dict[str, Any], by_key: dict[str, Any], email: dict[str, str]) -> str:
    who = update["arguments"]["attendees"][0]
    return next(by_key[k].name for k, e in email.items() if e == who)


#: Cases kept: each carries a month of slots and two months of emails, so eight keep the template file under the size a template may have.
CASES = 8
SERVERS = ["calendar", "gmail", "notion", "slack"]
GOAL = ("April's support desk rota still needs doing. Please get it onto the team calendar the way our support desk "
        "policy says, and let the team know, the way we did for February and March.")
TOOLS = ["calendar__list_calendars", "calendar__list_events", "calendar__search_events", "calendar__get_event",
         "calendar__search_people", "calendar__get_freebusy", "calendar__create_event", "calendar__update_event",
         "calendar__delete_event", "notion__search", "notion__retrieve_page", "notion__get_block_children",
         "notion__query_database", "notion__retrieve_database", "notion__list_users", "notion__update_page",
         "slack__list_channels", "slack__get_channel_history", "slack__get_thread_replies", "slack__search_messages",
         "slack__get_users", "slack__get_user_profile", "slack__post_message", "slack__reply_to_thread",
         "gmail__search_emails", "gmail__read_email", "gmail__get_thread", "gmail__send_email"]


@on_worlds(slack=3)
def build() -> dict[str, Any]:
    return template(id=ID, version=4, servers=SERVERS, difficulty="hard", category="recovery",
                    case_list=cases(case_of, want=CASES),
                    task=body(GOAL, SERVERS, TOOLS, timeout_s=1200, faults="{{case.faults}}"))
