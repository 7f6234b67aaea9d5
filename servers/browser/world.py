"""The browser world: Kestrel Freight Systems' intranet, signed in as one employee.

At the default size, about 130 pages under ``https://intranet.kestrelfreight.com``: a menu on every
page (Home, News, HR, Finance, IT, Facilities, Procurement, Events, People, Search), a site search
(a ``get`` form on the home page and the search page, answered with paged results), news, HR
policies in their current and archived versions (the 2025 and 2026 holiday and travel policies), a
leave request and an address form, expense and mileage claims, IT tickets and access requests, a
facilities problem report and visitor registration, meeting rooms in four offices (each room's page
lists its bookings and has its own booking form), supplier registration and an approved-supplier
directory over several pages (near-namesake suppliers among them), workshops with a registration form
per run (two runs of one workshop in two cities), and a staff directory with profiles and managers
(the two Maria S. of the company among them). The session starts on the home page, nothing submitted.

Version 2 (``servers/browser/_org.py``) is the organisation's intranet (``servers/org``), signed in as
Priya Raman: every policy version, dated (current first, the replaced ones archived), news from its
facts, service status, the five offices' rooms with this week's bookings, its approved suppliers and
a directory of everyone who works there today with their real managers. Both versions are built
from the section builders of ``servers/browser/_site.py``.

Patchable collections: ``pages`` (by ``url``) and ``pages.forms`` (by ``id``); ``set`` works on
``current_url``.
"""

from __future__ import annotations

import random
from typing import Any

from servers.browser._org import build_v2
from servers.browser._site import (
    HOST,
    SLOTS,
    WEEK,
    Me,
    Person,
    events_pages,
    finance_pages,
    home_pages,
    hr_pages,
    it_pages,
    people_pages,
    procurement_pages,
    room_pages,
    site,
)
from servers.kit.world import versions
from servers.kit.worldtext import CUSTOMERS, DEPARTMENTS, LOOKALIKES, SERVICES, people
from servers.org import cast

#: per size: news articles, rooms per office, suppliers, staff
SIZES = {"default": (8, 5, 24, 30), "small": (3, 2, 6, 12)}
OFFICES = {
    "lisbon": ("Lisbon", ("Tejo", "Alfama", "Belem", "Chiado", "Sintra")),
    "berlin": ("Berlin", ("Spree", "Mitte", "Tempelhof", "Wannsee", "Kreuzberg")),
    "london": ("London", ("Thames", "Camden", "Greenwich", "Soho", "Kew")),
    "toronto": ("Toronto", ("Ontario", "Don Valley", "Distillery", "Yorkville", "Harbourfront")),
}
SUPPLIERS = (
    ("Alder & Vine Catering", "Lisbon", "Catering"), ("Alder and Vine Events", "London", "Events"),
    ("Baltic Pallet Works", "Gdansk", "Packaging"), ("Brightline Couriers", "Berlin", "Courier"),
    ("Cedar Office Supply", "Toronto", "Office supplies"), ("Cedarwood Office Solutions", "Toronto", "Office furniture"),
    ("Dockside Forklifts", "Rotterdam", "Equipment"), ("Eastgate Security", "London", "Security"),
    ("Fjord Fuel Cards", "Oslo", "Fuel"), ("Greenway Cleaning", "Berlin", "Cleaning"),
    ("Harbour Print House", "Lisbon", "Printing"), ("Harbor Print Co", "Toronto", "Printing"),
    ("Iberian Tyres", "Porto", "Vehicle parts"), ("Jade Translation", "Berlin", "Translation"),
    ("Keystone Insurance Brokers", "London", "Insurance"), ("Lumen Lighting", "Lisbon", "Facilities"),
    ("Meridian Telecom", "Berlin", "Telecom"), ("Northwind Labels", "Hamburg", "Labels"),
    ("Orbit Cloud Hosting", "Dublin", "Hosting"), ("Pinewood Furniture", "Toronto", "Office furniture"),
    ("Quayside Catering", "London", "Catering"), ("Redline Vehicle Leasing", "Berlin", "Vehicles"),
    ("Summit Training", "Toronto", "Training"), ("Tidewater Logistics Consulting", "Lisbon", "Consulting"),
)
NEWS = (
    ("holiday-policy-2026", "Holiday policy 2026 published", "The 2026 holiday policy is live: {days} days of annual leave and new carry-over rules. See HR > Policies."),
    ("lisbon-rooms", "New meeting rooms in Lisbon", "The Lisbon office opened its refurbished meeting rooms; book them under Facilities > Meeting rooms."),
    ("cold-chain-workshop", "Cold Chain workshop: registration open", "Two runs this year, Lisbon in May and Berlin in September. Register under Events > Workshops."),
    ("laptop-refresh", "Laptop refresh for Sales", "Sales laptops older than four years are replaced in April. Report faulty hardware through IT > Report a problem."),
    ("all-hands-q1", "Q1 all-hands recording", "The Q1 all-hands recording and slides are on the Events page. Revenue grew {pct}% year on year."),
    ("expense-tool", "Expense claims move to the intranet", "Paper expense forms are retired. Claim expenses and mileage under Finance."),
    ("supplier-onboarding", "Supplier onboarding changes", "New suppliers register through Procurement > Register a supplier; Finance checks bank details within 5 days."),
    ("status-{service}", "Incident review: {service}", "The {service} outage on 9 March lasted {minutes} minutes. The postmortem is linked from IT > Service status."),
)



def _policies(rng: random.Random) -> list[tuple[str, str, str]]:
    days_2025, days_2026 = 25, rng.choice((26, 27, 28))
    carry_2025, carry_2026 = 5, rng.choice((3, 4))
    hotel_2025, hotel_2026 = rng.choice((150, 160)), rng.choice((170, 180))
    return [
        ("holiday-2025", "Holiday policy 2025 (archived)",
         f"Valid for the calendar year 2025. {days_2025} days of annual leave for full-time staff. "
         f"Carry over up to {carry_2025} days until 31 March 2026. Public holidays follow your office's country."),
        ("holiday-2026", "Holiday policy 2026",
         f"Valid for the calendar year 2026. {days_2026} days of annual leave for full-time staff. "
         f"Carry over up to {carry_2026} days until 31 March 2027. Requests go through your manager in the leave form."),
        ("travel-2025", "Travel policy 2025 (archived)",
         f"Hotels up to {hotel_2025} EUR per night. Economy flights under 6 hours. Taxis only where no public transport runs."),
        ("travel-2026", "Travel policy 2026",
         f"Hotels up to {hotel_2026} EUR per night. Economy flights under 6 hours; premium economy above. "
         "Taxis to and from airports are reimbursed."),
        ("expenses", "Expenses policy", "Submit receipts within 30 days. Client dinners need pre-approval above 300 EUR. "
         "Mileage is paid at 0.30 EUR per km."),
        ("remote-work", "Remote work policy", "Up to three remote days a week; core hours 10:00-15:00 local time."),
        ("parental-leave", "Parental leave policy", "20 weeks of paid parental leave for every parent, taken within two years."),
        ("code-of-conduct", "Code of conduct", "Treat colleagues, customers and carriers with respect. Report concerns to People or Legal."),
        ("equipment", "IT equipment policy", "Laptops are replaced every four years. Report faults through IT > Report a problem, never to Facilities."),
        ("whistleblowing", "Whistleblowing policy", "Report wrongdoing anonymously to the Legal team; retaliation is forbidden."),
    ]


def _people(rng: random.Random, count: int) -> tuple[list[Person], Me]:
    staff = people(rng, count)
    twins = {name for pair in LOOKALIKES for name in pair}
    me = next(p for p in staff if (p.first, p.last) not in twins)
    heads: dict[str, Any] = {}
    for person in staff:
        heads.setdefault(person.department, person)
    offices = [c for c, _ in OFFICES.values()]
    rows = []
    for person in staff:
        head = heads[person.department]
        rows.append(Person(person.full_name, person.handle, person.title, person.department, rng.choice(offices),
                           person.email, f"+{rng.randint(1, 49)} {rng.randint(200, 999)} {rng.randint(1000, 9999)}",
                           None if head is person else (head.full_name, head.handle)))
    return rows, Me(me.full_name, me.title, me.department, me.email)


def _rooms(rng: random.Random, per_office: int) -> list[dict]:
    offices = []
    for key, (city, names) in OFFICES.items():
        rooms = []
        for name in names[:per_office]:
            capacity, video = rng.choice((4, 6, 8, 10, 12, 14, 16, 20)), rng.random() < 0.6
            bookings: list[tuple[str, int, int, str]] = []
            for day in WEEK:
                for _ in range(rng.choice((0, 1, 1, 2))):
                    start = rng.randrange(0, len(SLOTS) - 4)
                    length = rng.choice((2, 3, 4))
                    who = rng.choice(CUSTOMERS)
                    if all(d != day or start + length <= a or b <= start for d, a, b, _ in bookings):
                        bookings.append((day, start, start + length, f"{who} call"))  # a room is never double-booked
            rooms.append((name, capacity, video, [(d, SLOTS[a], SLOTS[b], t) for d, a, b, t in sorted(bookings)]))
        offices.append((key, city, rooms))
    return room_pages(offices)


def build(rng: random.Random, size: str) -> dict[str, Any]:
    """Version 1: a staff drawn from the shared name pools, policies and suppliers of its own."""
    n_news, per_office, n_suppliers, n_staff = SIZES[size]
    staff, me = _people(rng, n_staff)
    people = people_pages(staff)
    fill = {"days": rng.choice((26, 27, 28)), "pct": rng.randint(4, 19), "service": rng.choice(SERVICES),
            "minutes": rng.randint(12, 95)}
    news = [(slug.format(**fill), title.format(**fill), text.format(**fill)) for slug, title, text in NEWS[:n_news]]
    pages = home_pages(me, news)
    pages += hr_pages(me, _policies(rng), "holiday-2026")
    centres = [(f"CC-{100 + 10 * i + rng.randint(0, 9)}", d) for i, d in enumerate(sorted(DEPARTMENTS))]
    pages += finance_pages(centres, "0.30 EUR per km")
    status = "\n".join(f"{s}: {rng.choice(('operational', 'operational', 'operational', 'degraded'))}" for s in SERVICES)
    pages += it_pages(me, list(SERVICES), status) + _rooms(rng, per_office)
    suppliers = [(name, city, category, f"SUP-{rng.randint(10000, 99999)}", rng.choice((14, 30, 45)))
                 for name, city, category in sorted(SUPPLIERS[:n_suppliers])]
    pages += procurement_pages(suppliers, tuple(sorted({c for _, _, c in SUPPLIERS})), "5,000 EUR")
    pages += events_pages(rng) + people
    return site(pages)


def describe(state: dict[str, Any]) -> dict[str, int]:
    pages = state["pages"]
    return {"pages": len(pages), "forms": sum(len(p.get("forms", [])) for p in pages),
            "links": sum(len(p.get("links", [])) for p in pages),
            "search_pages": sum(bool(p.get("search")) for p in pages)}


COLLECTIONS = {"pages": "url", "pages.forms": "id"}
GENERATORS = versions("browser", COLLECTIONS, describe, build, (build_v2, cast))
GENERATOR = GENERATORS[-1]

__all__ = ["GENERATOR", "GENERATORS", "HOST"]
