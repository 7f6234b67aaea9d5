"""Shared material for world generators: one fictional company, its people, customers and vocabulary.

The version-1 generators draw from these pools with their own ``random.Random``, so the slack, gmail
and github worlds of one seed feel like one company (Kestrel Freight Systems, a B2B logistics software
firm) without depending on each other; the version-2 generators project one organisation
(``servers/org``) and fill their texts from its names (``Words``). Edit a pool only with a version bump
of every generator that uses it (their digests are pinned).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

COMPANY = "Kestrel Freight Systems"
DOMAIN = "kestrelfreight.com"

FIRST_NAMES = (
    "Maria", "Kenji", "Olu", "Priya", "Tomasz", "Aisha", "Lukas", "Sofia", "Daniel", "Mei", "Jonas", "Fatima",
    "Carlos", "Hannah", "Ravi", "Elena", "Samuel", "Ingrid", "Mateo", "Yuki", "Noah", "Amara", "Felix", "Leila",
    "Oscar", "Chloe", "Arjun", "Nadia", "Henrik", "Zoe", "Diego", "Sara", "Marcus", "Ana", "Viktor", "Grace",
    "Emeka", "Julia", "Tariq", "Lena", "Pedro", "Claire", "Hiroshi", "Beatriz", "Anton", "Freya", "Idris",
    "Camille", "Rafael", "Noor", "Stefan", "Isabel", "Kwame", "Alice", "Dmitri", "Rosa", "Bruno", "Elif",
)
LAST_NAMES = (
    "Santos", "Ito", "Adeyemi", "Raman", "Kowalski", "Okafor", "Becker", "Rossi", "Murphy", "Chen", "Lindqvist",
    "Haddad", "Mendes", "Fischer", "Menon", "Petrova", "Osei", "Nilsson", "Garcia", "Tanaka", "Walsh", "Diallo",
    "Wagner", "Karimi", "Berg", "Dubois", "Sharma", "Novak", "Hansen", "Moreau", "Alvarez", "Costa", "Keller",
    "Silva", "Horvat", "Bennett", "Eze", "Schmidt", "Rahman", "Vogel", "Ramos", "Laurent", "Sato", "Carvalho",
    "Ivanov", "Larsen", "Bello", "Martin", "Ortega", "Aziz", "Weber", "Navarro", "Mensah", "Clarke", "Sokolov",
)
#: Pairs that differ by a letter or two: real directories have them, and agents must not confuse them.
LOOKALIKES = (
    (("Maria", "Santos"), ("Maria", "Santana")),
    (("Alex", "Chen"), ("Alexa", "Chen")),
    (("Sam", "Patel"), ("Sami", "Patel")),
    (("Jon", "Berg"), ("John", "Berg")),
    (("Nina", "Kovacs"), ("Nina", "Kovac")),
)
DEPARTMENTS = {
    "Engineering": ("Backend engineer", "Senior backend engineer", "Frontend engineer", "Staff engineer",
                    "Engineering manager", "Data engineer", "Mobile engineer"),
    "Platform": ("SRE", "SRE lead", "Platform engineer", "Security engineer"),
    "Product": ("Product manager", "Senior product manager", "Product designer", "UX researcher"),
    "Sales": ("Account executive", "Sales director", "Solutions engineer", "Sales development rep"),
    "Customer Success": ("Customer success manager", "Support engineer", "Support manager"),
    "Finance": ("Financial controller", "Accountant", "FP&A analyst"),
    "People": ("People partner", "Recruiter", "Office manager"),
    "Marketing": ("Content marketer", "Marketing manager", "Events lead"),
    "Legal": ("Legal counsel",),
}
TIMEZONES = ("Europe/Lisbon", "Europe/Berlin", "Europe/London", "America/Toronto", "America/New_York",
             "Asia/Tokyo", "Africa/Lagos", "Asia/Kolkata", "Europe/Warsaw")
CUSTOMERS = (
    "Harbour Foods", "Nordkapp Marine", "Fjordline Ferries", "Hanbit Electronics", "Alder & Vine",
    "Baltic Cold Chain", "Cedar Pharma", "Meridian Retail", "Ostrava Steel", "Pacific Rim Produce",
    "Quarry Lane Builders", "Riverside Medical", "Sable Outdoor", "Tessera Textiles", "Umbra Optics",
    "Vantage Grocers", "Westbrook Paper", "Yellowfin Seafood", "Zenith Auto Parts", "Brightwater Beverages",
)
SERVICES = ("route-planner", "billing-api", "tracking-gateway", "customs-docs", "rate-engine", "notifier",
            "warehouse-sync", "auth-service", "search-indexer", "driver-app-backend")
REGIONS = ("eu-west-1", "eu-central-1", "us-east-1", "ca-central-1", "ap-northeast-1")
PROJECTS = ("Atlas", "Harbor", "Beacon", "Compass", "Tidewater", "Lighthouse")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")


@dataclass(frozen=True)
class Person:
    first: str
    last: str
    department: str
    title: str
    tz: str

    @property
    def full_name(self) -> str:
        return f"{self.first} {self.last}"

    @property
    def handle(self) -> str:
        return f"{self.first}.{self.last}".lower()

    @property
    def email(self) -> str:
        return f"{self.handle}@{DOMAIN}"


def people(rng: random.Random, count: int) -> list[Person]:
    """``count`` distinct employees (the lookalike pairs first), each with a department and title."""
    chosen: list[tuple[str, str]] = []
    for pair in LOOKALIKES:
        chosen.extend(pair)
    seen = set(chosen)
    while len(chosen) < count:
        name = (rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES))
        if name not in seen:
            seen.add(name)
            chosen.append(name)
    chosen = chosen[:count]
    rng.shuffle(chosen)
    departments = sorted(DEPARTMENTS)
    out = []
    for first, last in chosen:
        department = rng.choice(departments)
        out.append(Person(first, last, department, rng.choice(DEPARTMENTS[department]), rng.choice(TIMEZONES)))
    return out


@dataclass(frozen=True)
class Words:
    """The names a filled-in text may mention: the pools above, or an organisation's own (its key
    accounts, services and project code names), so a version-2 world talks about the company it shows."""

    customers: tuple[str, ...] = CUSTOMERS
    services: tuple[str, ...] = SERVICES
    regions: tuple[str, ...] = REGIONS
    projects: tuple[str, ...] = PROJECTS


POOLS = Words()


_MS = (120, 180, 250, 340, 480, 900, 1200, 2100)


def fill(rng: random.Random, template: str, words: Words = POOLS, **fixed: str) -> str:
    """``template`` with ``{customer}``, ``{service}``, ``{region}``, ``{project}``, ``{day}``, ``{n}``
    (a small number), ``{pct}``, ``{ms}``, ``{amount}``, ``{ticket}`` and ``{version}`` filled in, the
    names drawn from ``words``."""
    # The draws of ``rng.choice(seq)`` (``seq[rng._randbelow(len(seq))]``) and ``rng.randint(a, b)``
    # (``a + rng._randbelow(b - a + 1)``), in the same order, without their two extra calls each: a world
    # fills in hundreds of thousands of texts (tests/servers/test_worldtext.py checks the two agree).
    below = rng._randbelow  # type: ignore[attr-defined]
    customers, services, regions, projects = words.customers, words.services, words.regions, words.projects
    if not (customers and services and regions and projects):  # ``_randbelow(0)`` would never return
        raise IndexError(f"fill: a word pool of {words!r} is empty")
    values = {
        "customer": customers[below(len(customers))], "service": services[below(len(services))],
        "region": regions[below(len(regions))], "project": projects[below(len(projects))],
        "day": WEEKDAYS[below(5)],
        "n": str(2 + below(39)),
        "pct": str(2 + below(98)), "ms": str(_MS[below(8)]),
        "amount": f"{(2 + below(179)) * 250:,}", "ticket": f"KFS-{1200 + below(3601)}",
        "version": f"4.{10 + below(15)}.{below(7)}",
    }
    values.update(fixed)
    return template.format(**values)


def random_id(rng: random.Random, prefix: str, length: int, taken: set[str]) -> str:
    """A fresh ``prefix`` + ``length`` uppercase letters and digits, not in ``taken`` (then added)."""
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"
    while True:
        ident = prefix + "".join(rng.choice(alphabet) for _ in range(length))
        if ident not in taken:
            taken.add(ident)
            return ident


__all__ = ["COMPANY", "CUSTOMERS", "DEPARTMENTS", "DOMAIN", "LOOKALIKES", "POOLS", "PROJECTS", "Person", "REGIONS",
           "SERVICES", "Words", "fill", "people", "random_id"]
