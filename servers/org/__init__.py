"""One organisation: a seeded generator of a whole company, Kestrel Freight Systems, from which every
server's version-2 world is projected.

``organisation(version, seed, size)`` builds the company from one ``random.Random`` seeded by
``"org:<version>:<seed>:<size>"`` (no clock, no global generator, no set order), so the same arguments
always give the same company, byte for byte; it is cached per process. It holds people with one
identity across services (name, email, handle, Slack id, GitHub login, Linear and Notion ids, manager,
team, office, start and leave dates, role flags), customers with their contacts, account owners and
billing, vendors and their bills, services, repositories, projects, incidents, invoices, charges and
refunds, meetings (recurring series with their exceptions, one-offs, room bookings, trips), dated
policies and the hiring pipeline (``servers/org/model.py``). docs/tasks.md, "The organisation world",
says which server shows what.

A change of what a version builds needs a new version here and new versions of the generators that
project it (their digests are pinned).
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
from functools import lru_cache

from servers.kit import canonical
from servers.org._accounts import build_customers, build_vendors
from servers.org._ledger import FX_EUR, PRICES, build_bills, build_ledger
from servers.org._meetings import (
    CARRIERS,
    HOLIDAYS,
    TRIPS,
    build_bookings,
    build_meetings,
    build_series,
    build_trips,
    plus,
    rooms_book,
)
from servers.org._policies import build_policies
from servers.org._staff import LINEAR_TEAMS, OFFICES, build_staff, rooms
from servers.org._work import REPOS, build_candidates, build_incidents, build_projects, build_rota, build_services
from servers.org.model import NOW, NOW_UNIX, TODAY, Organisation, money

#: The versions of the organisation this code builds.
VERSIONS = (1,)
SIZES = ("default", "small")


@lru_cache(maxsize=8)
def organisation(version: int, seed: int, size: str = "default") -> Organisation:
    """The company of ``(version, seed, size)`` (cached: its records are frozen)."""
    if version not in VERSIONS:
        raise ValueError(f"organisation version {version} is not available in this code (versions: {VERSIONS})")
    if size not in SIZES:
        raise ValueError(f"organisation size {size!r} is not one of {', '.join(SIZES)}")
    rng = random.Random(f"org:{version}:{seed}:{size}")
    all_rooms = rooms() if size == "default" else tuple(r for i, r in enumerate(rooms()) if i % 5 < 2 or r.office == "hamburg")
    staff = build_staff(rng, size)
    customers = build_customers(rng, size, staff)
    vendors = build_vendors(rng, size, staff, customers)
    services = build_services(rng, staff)
    projects = build_projects(rng, staff, customers)
    rota = build_rota(rng, staff)
    incidents = build_incidents(rng, size, staff, services, customers, rota)
    policies = build_policies(rng, staff)
    refund = next(p for p in policies if p.slug == "refund")
    invoices, charges, refunds = build_ledger(rng, customers, incidents, refund)
    bills = build_bills(rng, vendors)
    candidates = build_candidates(rng, size, staff)
    book = rooms_book(all_rooms)
    series = build_series(rng, size, staff, book)
    meetings = build_meetings(rng, size, staff, customers, vendors, projects, incidents, candidates, book)
    bookings = build_bookings(rng, staff, customers, book)
    trips = build_trips(rng, size, staff)
    return Organisation(
        version=version, seed=seed, size=size, offices=OFFICES, rooms=all_rooms, holidays=HOLIDAYS, employees=staff,
        customers=customers, vendors=vendors, bills=bills, services=services, repos=REPOS, projects=projects,
        incidents=incidents, invoices=invoices, charges=charges, refunds=refunds, series=series, meetings=meetings,
        bookings=bookings, trips=trips, policies=policies, candidates=candidates, carriers=CARRIERS, rota=rota)


def digest(org: Organisation) -> str:
    """SHA-256 of the RFC 8785 canonical JSON of every record of ``org`` (what the tests pin)."""
    return hashlib.sha256(canonical.dumps(dataclasses.asdict(org))).hexdigest()


def cast(seed: int, size: str) -> Organisation:
    """The organisation a version-2 world of ``seed`` and ``size`` projects (``WorldGenerator.cast``)."""
    return organisation(1, seed, size)


__all__ = ["CARRIERS", "FX_EUR", "HOLIDAYS", "LINEAR_TEAMS", "NOW", "NOW_UNIX", "Organisation", "PRICES", "SIZES", "TODAY", "TRIPS", "VERSIONS",
           "cast", "digest", "money", "organisation", "plus"]
