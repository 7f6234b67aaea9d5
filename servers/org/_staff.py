"""The organisation's people: departments, teams, managers, titles, offices, start and leave dates, and
each person's identities in the services (Slack id, Linear id, Notion id, GitHub login)."""

from __future__ import annotations

import random
import uuid
from datetime import date, timedelta

from servers.kit.worldtext import FIRST_NAMES, LAST_NAMES, LOOKALIKES, random_id
from servers.org.model import TODAY, Employee, Office, Room

OFFICES = (
    Office("lisbon", "Lisbon", "Lisbon HQ", "Europe/Lisbon", "PT"),
    Office("berlin", "Berlin", "Berlin office", "Europe/Berlin", "DE"),
    Office("london", "London", "London office", "Europe/London", "GB"),
    Office("toronto", "Toronto", "Toronto office", "America/Toronto", "CA"),
    Office("hamburg", "Hamburg", "Hamburg warehouse", "Europe/Berlin", "DE"),
)
#: Where people without an office work from, and their phone prefix.
REMOTE = (("America/New_York", "+1"), ("Asia/Tokyo", "+81"), ("Africa/Lagos", "+234"), ("Asia/Kolkata", "+91"),
          ("Europe/Warsaw", "+48"))
PHONE = {"PT": "+351", "DE": "+49", "GB": "+44", "CA": "+1"}
#: (office, name, capacity, video); the first two of each office exist at the small size too.
ROOMS = (
    ("lisbon", "Tejo", 8, True), ("lisbon", "Sado", 12, True), ("lisbon", "Tejo Annex", 14, True),
    ("lisbon", "Douro", 6, False), ("lisbon", "Mondego", 4, False),
    ("berlin", "Spree", 10, True), ("berlin", "Mitte", 6, True), ("berlin", "Tempelhof", 16, True),
    ("berlin", "Wannsee", 4, False), ("berlin", "Kreuzberg", 8, False),
    ("london", "Thames", 12, True), ("london", "Camden", 6, True), ("london", "Greenwich", 8, False),
    ("london", "Soho", 4, False), ("london", "Kew", 10, True),
    ("toronto", "Don", 6, True), ("toronto", "Ontario", 14, True), ("toronto", "Distillery", 8, False),
    ("toronto", "Yorkville", 4, True), ("toronto", "Harbourfront", 10, False),
    ("hamburg", "Elbe", 10, True), ("hamburg", "Alster", 4, False),
)

#: department -> (head's title, office)
HEADS = {
    "Engineering": ("VP Engineering", "lisbon"), "Platform": ("Head of Platform", "berlin"),
    "Product": ("Head of Product", "lisbon"), "Operations": ("Chief operating officer", "lisbon"),
    "Sales": ("VP Sales", "london"), "Customer Success": ("Head of Customer Success", "lisbon"),
    "Finance": ("Chief financial officer", "lisbon"), "People": ("Head of People", "lisbon"),
    "Marketing": ("Head of Marketing", "london"), "Legal": ("General counsel", "london"),
}
#: (department, team, lead's title (None: the head leads it), members' titles, offices, members at
#: default and small size, Linear team)
TEAMS = (
    ("Engineering", "Backend", "Engineering manager", ("Backend engineer", "Senior backend engineer", "Staff engineer"),
     ("lisbon", "berlin", "remote"), 13, 3),
    ("Engineering", "Frontend", "Engineering manager", ("Frontend engineer", "Senior frontend engineer"),
     ("lisbon", "berlin", "remote"), 7, 2),
    ("Engineering", "Data", "Data engineering lead", ("Data engineer", "Senior data engineer", "Analytics engineer"),
     ("lisbon", "london"), 5, 2),
    ("Engineering", "Mobile", "Mobile lead", ("Mobile engineer", "Senior mobile engineer"),
     ("lisbon", "toronto"), 6, 1),
    ("Platform", "SRE", "SRE lead", ("SRE", "Senior SRE", "Platform engineer"), ("berlin", "lisbon", "remote"), 7, 2),
    ("Platform", "Security", "Security lead", ("Security engineer",), ("berlin", "london"), 2, 1),
    ("Product", "Product management", None, ("Product manager", "Senior product manager"), ("lisbon", "london"), 4, 1),
    ("Product", "Design", "Design lead", ("Product designer", "UX researcher"), ("lisbon", "berlin"), 3, 1),
    ("Operations", "Operations", "Operations manager", ("Operations coordinator", "Carrier manager", "Dispatcher"),
     ("lisbon",), 7, 3),
    ("Operations", "Warehouse", "Warehouse lead", ("Warehouse planner", "Shift supervisor"), ("hamburg",), 5, 1),
    ("Sales", "Sales EMEA", "Sales director, EMEA", ("Account executive", "Solutions engineer", "Sales development rep"),
     ("london", "berlin", "lisbon"), 6, 2),
    ("Sales", "Sales North America", "Sales director, North America", ("Account executive", "Solutions engineer"),
     ("toronto", "remote"), 5, 1),
    ("Sales", "Sales APAC", None, ("Account executive",), ("remote",), 2, 1),
    ("Customer Success", "Customer Success", "Customer success lead", ("Customer success manager",),
     ("lisbon", "london", "toronto"), 6, 2),
    ("Customer Success", "Support", "Support manager", ("Support engineer",), ("lisbon", "toronto"), 5, 1),
    ("Finance", "Finance", "Financial controller", ("Accountant", "FP&A analyst", "Billing specialist"),
     ("lisbon",), 5, 2),
    ("People", "People", None, ("People partner", "Recruiter", "Office manager", "IT administrator"),
     ("lisbon", "toronto"), 4, 3),
    ("Marketing", "Marketing", None, ("Content marketer", "Events lead"), ("london", "lisbon"), 3, 1),
    ("Legal", "Legal", None, ("Legal counsel",), ("london",), 1, 1),
)
#: Linear's teams and the organisation's teams whose engineers work in them.
LINEAR_TEAMS = {"ENG": ("Backend", "Frontend", "Data"), "PLT": ("SRE", "Security"), "MOB": ("Mobile",)}
#: People placed where the worlds need them: (first, last, team, title). The lookalike pairs of every
#: directory are here, and Priya Raman, whose mailbox, calendar and intranet session the worlds show.
PLACED = (
    ("Priya", "Raman", "Operations", "Operations manager"),
    ("Maria", "Santos", "Operations", "Operations coordinator"), ("Maria", "Santana", "Operations", "Carrier manager"),
    ("Jon", "Berg", "Backend", "Senior backend engineer"), ("John", "Berg", "SRE", "SRE"),
    ("Alex", "Chen", "Frontend", "Frontend engineer"), ("Alexa", "Chen", "Sales EMEA", "Account executive"),
    ("Sam", "Patel", "Data", "Data engineer"), ("Sami", "Patel", "Finance", "Accountant"),
    ("Nina", "Kovacs", "Support", "Support engineer"), ("Nina", "Kovac", "Customer Success", "Customer success manager"),
)
TECH = ("Engineering", "Platform", "Product")


def _day(rng: random.Random, first: str, last: str) -> str:
    a, b = date.fromisoformat(first), date.fromisoformat(last)
    day = a + timedelta(days=rng.randint(0, (b - a).days))
    while day.weekday() >= 5:
        day += timedelta(days=1)
    return day.isoformat()


def rooms() -> tuple[Room, ...]:
    return tuple(Room(name, office, capacity, video, f"room-{name.lower().replace(' ', '-')}@resource.kestrelfreight.com")
                 for office, name, capacity, video in ROOMS)


def build_staff(rng: random.Random, size: str) -> tuple[Employee, ...]:
    """Everyone who works here, worked here in the last months, or starts soon."""
    small = size == "small"
    names: set[tuple[str, str]] = {(first, last) for first, last, _, _ in PLACED} | {n for pair in LOOKALIKES for n in pair}

    def fresh_name() -> tuple[str, str]:
        while True:
            name = (rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES))
            if name not in names:
                names.add(name)
                return name

    # (first, last, department, team, title, role, office)
    rows: list[tuple[str, str, str, str, str, str, str]] = []
    first, last = fresh_name()
    rows.append((first, last, "Executive", "Leadership", "Chief executive officer", "ceo", "lisbon"))
    for department, (title, office) in HEADS.items():
        first, last = fresh_name()
        rows.append((first, last, department, department, title, "head", office))
    placed = {team: [(first, last, t) for first, last, tm, t in PLACED if tm == team] for _, team, *_ in TEAMS}
    for department, team, lead, titles, offices, n_default, n_small in TEAMS:
        wanted = n_small if small else n_default
        members = list(placed[team])
        if lead is not None:
            lead_row = next((m for m in members if m[2] == lead), None)
            if lead_row is not None:
                members.remove(lead_row)
            else:
                lead_row = (*fresh_name(), lead)
            rows.append((lead_row[0], lead_row[1], department, team, lead, "lead", offices[0]))
        while len(members) < wanted:
            members.append((*fresh_name(), rng.choice(titles)))
        for first, last, title in members:
            rows.append((first, last, department, team, title, "member", rng.choice(offices)))
    # Two people start soon (hired, not yet here): a backend engineer and an operations coordinator.
    starters = [(*fresh_name(), "Engineering", "Backend", "Backend engineer", "starter", "lisbon"),
                (*fresh_name(), "Operations", "Operations", "Operations coordinator", "starter", "lisbon")]
    rows += starters[:1] if small else starters

    keys = [f"e{i + 1:03d}" for i in range(len(rows))]
    ceo = keys[0]
    head_of = {rows[i][2]: keys[i] for i in range(len(rows)) if rows[i][5] == "head"}
    lead_of = {rows[i][3]: keys[i] for i in range(len(rows)) if rows[i][5] == "lead"}
    placed_names = {(first, last) for first, last, _, _ in PLACED}

    # Who left, and who leaves soon: members who manage no one and are not placed on purpose. Among
    # those who left are always an account owner and an on-call engineer; a customer success manager
    # leaves at the end of the month (still here today, their accounts to hand over).
    candidates = [i for i, r in enumerate(rows) if r[5] == "member" and (r[0], r[1]) not in placed_names]
    upcoming = rng.choice([i for i in candidates if rows[i][3] == "Customer Success"])
    left = [rng.choice([i for i in candidates if rows[i][4] in ("Account executive", "Customer success manager")
                        and i != upcoming]),
            rng.choice([i for i in candidates if rows[i][3] == "SRE"])]
    left += rng.sample([i for i in candidates if i not in (upcoming, *left)], k=(2 if small else 8) - len(left))
    slack_taken: set[str] = set()
    logins: set[str] = set()
    out = []
    for i, (first, last, department, team, title, role, office) in enumerate(rows):
        if role == "ceo":
            start = "2016-03-01"
        elif role == "head":
            start = _day(rng, "2016-06-01", "2021-06-30")
        elif role == "lead":
            start = _day(rng, "2017-01-01", "2023-06-30")
        elif role == "starter":
            start = "2026-04-01" if department == "Engineering" else "2026-04-13"
        elif (first, last) in placed_names:
            start = _day(rng, "2018-01-01", "2024-12-31")
        else:
            start = _day(rng, "2018-01-01", "2026-02-27")
        leave = None
        if i == upcoming:
            leave = "2026-03-31"
            start = min(start, "2025-06-02")
        elif i in left:
            leave = _day(rng, "2025-09-01", "2026-03-11")
            latest = (date.fromisoformat(leave) - timedelta(days=180)).isoformat()
            start = min(start, latest)
        manager = None if role == "ceo" else ceo if role == "head" else \
            head_of.get(department, ceo) if role == "lead" else lead_of.get(team, head_of.get(department, ceo))
        if office == "remote":
            tz, prefix = rng.choice(REMOTE)
        else:
            where = next(o for o in OFFICES if o.key == office)
            tz, prefix = where.tz, PHONE[where.country]
        flags = []
        if team == "SRE" or (team == "Backend" and title.startswith(("Senior", "Staff"))) or title == "Mobile lead":
            flags.append("on-call")
        if team == "Security" or title in ("SRE lead", "Head of Platform", "VP Engineering"):
            flags.append("security-group")
        if title in ("Chief financial officer", "Financial controller"):
            flags.append("finance-approver")
        if title in ("IT administrator", "SRE lead"):
            flags.append("admin")
        if role in ("lead", "head", "ceo"):
            flags.append("hiring-manager")
        login = None
        if department in TECH:
            login = f"{first[0]}{last}".lower()
            n = 2
            while login in logins:
                login = f"{first[0]}{last}{n}".lower()
                n += 1
            logins.add(login)
        out.append(Employee(
            key=keys[i], first=first, last=last, department=department, team=team, title=title, manager=manager,
            office=office, tz=tz, start=start, leave=leave, flags=tuple(sorted(flags)),
            slack_id=random_id(rng, "U", 9, slack_taken), linear_id=f"usr_{rng.getrandbits(40):010x}",
            notion_id=str(uuid.UUID(int=rng.getrandbits(128), version=4)), github_login=login,
            phone=f"{prefix} {rng.randint(200, 999)} {rng.randint(100, 999)} {rng.randint(1000, 9999)}"))
    assert all(e.leave is None or e.leave >= e.start for e in out)
    assert sum(e.leave is not None and e.leave < TODAY for e in out) == len(left)
    return tuple(out)


__all__ = ["LINEAR_TEAMS", "OFFICES", "build_staff", "rooms"]
