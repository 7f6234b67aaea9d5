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

Patchable collections: ``pages`` (by ``url``) and ``pages.forms`` (by ``id``); ``set`` works on
``current_url``.
"""

from __future__ import annotations

import random
import re
from typing import Any

from servers.kit.world import WorldGenerator
from servers.kit.worldtext import CUSTOMERS, DEPARTMENTS, LOOKALIKES, SERVICES, people

HOST = "https://intranet.kestrelfreight.com"
TODAY = "Monday 16 March 2026"
MENU = (("Home", "/"), ("News", "/news"), ("HR", "/hr"), ("Finance", "/finance"), ("IT", "/it"),
        ("Facilities", "/facilities"), ("Procurement", "/procurement"), ("Events", "/events"),
        ("People", "/people"), ("Search", "/search"))
#: per size: news articles, rooms per office, suppliers, staff
SIZES = {"default": (8, 5, 24, 30), "small": (3, 2, 6, 12)}
OFFICES = {
    "lisbon": ("Lisbon", ("Tejo", "Alfama", "Belem", "Chiado", "Sintra")),
    "berlin": ("Berlin", ("Spree", "Mitte", "Tempelhof", "Wannsee", "Kreuzberg")),
    "london": ("London", ("Thames", "Camden", "Greenwich", "Soho", "Kew")),
    "toronto": ("Toronto", ("Ontario", "Don Valley", "Distillery", "Yorkville", "Harbourfront")),
}
WEEK = ("2026-03-16", "2026-03-17", "2026-03-18", "2026-03-19", "2026-03-20")
SLOTS = tuple(f"{h:02d}:{m:02d}" for h in range(8, 19) for m in (0, 30))
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
WORKSHOPS = (
    ("cold-chain-lisbon", "Cold Chain Logistics", "2026-05-19", "Lisbon", "Tejo auditorium"),
    ("cold-chain-berlin", "Cold Chain Logistics", "2026-09-08", "Berlin", "Spree hall"),
    ("port-automation", "Port Automation", "2026-06-04", "London", "Thames room"),
    ("forklift-safety", "Forklift Safety Refresher", "2026-05-26", "Toronto", "Distillery depot"),
    ("customs-docs", "Customs Documents Basics", "2026-04-22", "Berlin", "Mitte room"),
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


def _page(path: str, title: str, text: str = "", links=(), forms=(), search: bool = False) -> dict[str, Any]:
    page: dict[str, Any] = {"url": HOST + path, "title": title, "text": text,
            "links": [{"text": t, "href": h} for t, h in MENU] + [{"text": t, "href": h} for t, h in links],
            "forms": list(forms)}
    if search:
        page["search"] = True
    return page


def _field(name: str, label: str, kind: str = "text", *, options=(), required: bool = False, value: str = "") -> dict:
    field: dict[str, Any] = {"name": name, "label": label, "type": kind}
    if options:
        field["options"] = list(options)
    if required:
        field["required"] = True
    if value:
        field["value"] = value
    return field


def _form(ident: str, title: str, fields: list[dict], action: str, submit: str = "Submit", method: str = "post") -> dict:
    form = {"id": ident, "title": title, "fields": fields, "submit_label": submit, "action": action}
    if method != "post":
        form["method"] = method
    return form


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")




def _search_form(ident: str) -> dict:
    return _form(ident, "Search the intranet", [_field("q", "Search", required=True)], "/search", "Search", "get")


def _hr(rng: random.Random, me) -> list[dict]:
    days_2025, days_2026 = 25, rng.choice((26, 27, 28))
    carry_2025, carry_2026 = 5, rng.choice((3, 4))
    hotel_2025, hotel_2026 = rng.choice((150, 160)), rng.choice((170, 180))
    policies = [
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
    pages = [
        _page("/hr", "Human resources", "Policies, leave and your profile.",
              [("Policies", "/hr/policies"), ("Request leave", "/hr/leave"), ("My profile", "/hr/profile")]),
        _page("/hr/policies", "HR policies", "Current policies first; archived versions are kept for reference.",
              [(title, f"/hr/policies/{slug}") for slug, title, _ in policies]),
    ]
    pages += [_page(f"/hr/policies/{slug}", title, text, [("All policies", "/hr/policies")]) for slug, title, text in policies]
    pages.append(_page("/hr/leave", "Request leave", f"Signed in as {me.full_name}. Your manager approves the request.",
                       [("Holiday policy 2026", "/hr/policies/holiday-2026")],
                       [_form("leave-request", "Leave request", [
                           _field("kind", "Type of leave", "select", options=("Annual leave", "Sick leave", "Parental leave", "Unpaid leave"), value="Annual leave"),
                           _field("first_day", "First day", "date", required=True), _field("last_day", "Last day", "date", required=True),
                           _field("note", "Note for your manager", "textarea")], "/hr/leave/sent", "Send request")]))
    pages.append(_page("/hr/leave/sent", "Leave request sent", "Your manager will answer by email."))
    pages.append(_page("/hr/profile", "My profile", f"{me.full_name}, {me.title}, {me.department}. Keep your home address up to date for payroll.",
                       forms=[_form("profile-address", "Home address", [
                           _field("street", "Street and number", required=True), _field("postcode", "Postcode", required=True),
                           _field("city", "City", required=True),
                           _field("country", "Country", "select", options=("Canada", "Germany", "Portugal", "United Kingdom"))],
                           "/hr/profile/saved", "Save address")]))
    pages.append(_page("/hr/profile/saved", "Address saved", "Payroll uses the new address from next month."))
    return pages


def _finance(rng: random.Random) -> list[dict]:
    centres = [(f"CC-{100 + 10 * i + rng.randint(0, 9)}", d) for i, d in enumerate(sorted(DEPARTMENTS))]
    names = [d for _, d in centres] + ["Operations Nordics"]
    return [
        _page("/finance", "Finance", "Claims are paid with the next salary.",
              [("Expense claims", "/finance/expenses"), ("Mileage claims", "/finance/mileage"),
               ("Cost centres", "/finance/cost-centres"), ("Payment calendar", "/finance/payment-calendar")]),
        _page("/finance/expenses", "Expense claims", "For receipts: taxis, trains, hotels, meals. For driving your own car use Mileage claims.",
              [("Expenses policy", "/hr/policies/expenses")],
              [_form("expense-claim", "New expense claim", [
                  _field("category", "Category", "select", options=("Taxi", "Train", "Flight", "Hotel", "Meals", "Other"), required=True),
                  _field("amount", "Amount", "number", required=True),
                  _field("currency", "Currency", "select", options=("CAD", "EUR", "GBP", "NOK", "USD"), value="EUR"),
                  _field("spent_on", "Date of expense", "date", required=True),
                  _field("cost_centre", "Cost centre", "select", options=tuple(names)),
                  _field("description", "Description", "textarea"),
                  _field("receipt_attached", "Receipt attached", "checkbox", value="false"),
                  _field("form_version", "", "hidden", value="9")], "/finance/expenses/thanks", "Send claim")]),
        _page("/finance/expenses/thanks", "Claim received", "Thank you. Claims are reviewed within 5 working days."),
        _page("/finance/mileage", "Mileage claims", "Driving your own car for work: 0.30 EUR per km.",
              forms=[_form("mileage-claim", "New mileage claim", [
                  _field("driven_on", "Date", "date", required=True), _field("origin", "From", required=True),
                  _field("destination", "To", required=True), _field("km", "Distance (km)", "number", required=True),
                  _field("purpose", "Purpose", "textarea")], "/finance/mileage/thanks", "Send claim")]),
        _page("/finance/mileage/thanks", "Mileage claim received", "Thank you. Paid with the next salary."),
        _page("/finance/cost-centres", "Cost centres", "\n".join(f"{code} {name}" for code, name in centres)
              + "\nCC-599 Operations Nordics (closed 2025; do not use)"),
        _page("/finance/payment-calendar", "Payment calendar", "Salaries are paid on the 25th. Claims sent by the 15th are paid the same month."),
    ]


def _it(rng: random.Random, me) -> list[dict]:
    status = "\n".join(f"{s}: {rng.choice(('operational', 'operational', 'operational', 'degraded'))}" for s in SERVICES)
    return [
        _page("/it", "IT help desk", "For password resets call extension 4400.",
              [("Report a problem", "/it/tickets/new"), ("Request access", "/it/access"),
               ("Software catalogue", "/it/software"), ("Service status", "/it/status"),
               ("IT equipment policy", "/hr/policies/equipment")]),
        _page("/it/tickets/new", "Report a problem", "Laptops, phones, network, software. Office problems (lights, chairs, heating) go to Facilities.",
              forms=[_form("it-ticket", "New IT ticket", [
                  _field("requester", "Your name", required=True, value=me.full_name),
                  _field("email", "Work email", "email", required=True, value=me.email),
                  _field("category", "Category", "select", options=("Access", "Hardware", "Network", "Printing", "Software"), required=True),
                  _field("urgency", "Urgency", "select", options=("Low", "Normal", "High", "Critical"), value="Normal"),
                  _field("asset_tag", "Asset tag (on the sticker)"),
                  _field("summary", "Summary", required=True),
                  _field("description", "What happened?", "textarea", required=True)], "/it/tickets/received", "Open ticket")]),
        _page("/it/tickets/received", "Ticket received", "We have your ticket and answer by email within one working day."),
        _page("/it/access", "Request access", "Access needs your manager's approval.",
              forms=[_form("access-request", "Access request", [
                  _field("system", "System", "select", options=tuple(sorted(SERVICES)), required=True),
                  _field("role", "Role", "select", options=("read", "write", "admin"), value="read"),
                  _field("justification", "Why do you need it?", "textarea", required=True)], "/it/access/received", "Request")]),
        _page("/it/access/received", "Access request received", "Your manager has been asked to approve it."),
        _page("/it/software", "Software catalogue", "Approved software: Slack, Zoom, VS Code, DBeaver, Tableau Reader, 1Password."),
        _page("/it/status", "Service status", status),
    ]


def _rooms(rng: random.Random, per_office: int) -> list[dict]:
    pages = [_page("/facilities", "Facilities", "Offices, rooms, parking and visitors.",
                   [*((f"Meeting rooms {city}", f"/facilities/rooms/{key}") for key, (city, _) in OFFICES.items()),
                    ("Report an office problem", "/facilities/request"), ("Register a visitor", "/facilities/visitors"),
                    ("Parking", "/facilities/parking")])]
    for key, (city, names) in OFFICES.items():
        listing = []
        for name in names[:per_office]:
            slug = _slug(name)
            capacity, video = rng.choice((4, 6, 8, 10, 12, 14, 16, 20)), rng.random() < 0.6
            bookings: list[tuple[str, int, int, str]] = []  # day, first and last slot, who
            for day in WEEK:
                for _ in range(rng.choice((0, 1, 1, 2))):
                    start = rng.randrange(0, len(SLOTS) - 4)
                    length = rng.choice((2, 3, 4))
                    who = rng.choice(CUSTOMERS)
                    if all(d != day or start + length <= a or b <= start for d, a, b, _ in bookings):
                        bookings.append((day, start, start + length, f"{who} call"))  # a room is never double-booked
            shown = [(d, SLOTS[a], SLOTS[b], t) for d, a, b, t in sorted(bookings)]
            text = (f"{name}, {city} office. Seats {capacity}. Video conferencing: {'yes' if video else 'no'}.\n"
                    "Bookings this week:" + "".join(f"\n{d} {a}-{b} {t}" for d, a, b, t in shown))
            listing.append((name, slug, capacity, video))
            pages.append(_page(f"/facilities/rooms/{key}/{slug}", f"{name} ({city})", text,
                               [(f"All {city} rooms", f"/facilities/rooms/{key}")],
                               [_form(f"book-{key}-{slug}", f"Book {name}", [
                                   _field("date", "Date", "date", required=True),
                                   _field("start", "From", "select", options=SLOTS, required=True),
                                   _field("end", "Until", "select", options=SLOTS, required=True),
                                   _field("attendees", "Attendees", "number", required=True),
                                   _field("title", "Meeting title", required=True)],
                                   "/facilities/rooms/booked", "Book room")]))
        pages.append(_page(f"/facilities/rooms/{key}", f"Meeting rooms {city}",
                           "\n".join(f"{n}: {c} seats, video {'yes' if v else 'no'}" for n, _, c, v in listing),
                           [(n, f"/facilities/rooms/{key}/{s}") for n, s, _, _ in listing]))
    pages += [
        _page("/facilities/rooms/booked", "Room booked", "The booking is confirmed; it shows in the room's list within a minute."),
        _page("/facilities/request", "Report an office problem", "Lights, heating, chairs, cleaning, kitchens. IT equipment goes to the IT help desk.",
              forms=[_form("facilities-request", "Office problem", [
                  _field("office", "Office", "select", options=tuple(c for c, _ in OFFICES.values()), required=True),
                  _field("problem", "What is wrong?", "textarea", required=True),
                  _field("urgent", "Urgent (safety risk)", "checkbox", value="false")], "/facilities/request/received", "Report")]),
        _page("/facilities/request/received", "Problem reported", "Facilities will take a look within two working days."),
        _page("/facilities/visitors", "Register a visitor", "Visitors get a badge at reception.",
              forms=[_form("visitor-registration", "Visitor", [
                  _field("visitor", "Visitor's name", required=True), _field("company", "Company"),
                  _field("visit_on", "Date", "date", required=True),
                  _field("office", "Office", "select", options=tuple(c for c, _ in OFFICES.values()), required=True)],
                  "/facilities/visitors/registered", "Register visitor")]),
        _page("/facilities/visitors/registered", "Visitor registered", "Reception has the badge ready."),
        _page("/facilities/parking", "Parking", "Lisbon and Toronto have staff parking; book a space at reception."),
    ]
    return pages


def _procurement(rng: random.Random, count: int) -> list[dict]:
    suppliers = sorted(SUPPLIERS[:count])
    per_page = 10
    pages = [
        _page("/procurement", "Procurement", "Buy through approved suppliers; new ones register first.",
              [("Approved suppliers", "/procurement/suppliers"), ("Register a supplier", "/procurement/register"),
               ("Purchase request", "/procurement/purchase")]),
        _page("/procurement/register", "Register a supplier", "Finance checks bank details within 5 working days.",
              forms=[_form("supplier-registration", "New supplier", [
                  _field("company", "Company name", required=True), _field("vat_number", "VAT number", required=True),
                  _field("country", "Country", "select", options=("Canada", "Germany", "Netherlands", "Norway", "Portugal", "United Kingdom"), required=True),
                  _field("contact_email", "Contact email", "email", required=True), _field("iban", "IBAN", required=True),
                  _field("category", "Category", "select", options=tuple(sorted({c for _, _, c in SUPPLIERS})))],
                  "/procurement/register/received", "Register")]),
        _page("/procurement/register/received", "Supplier registration received", "Finance will confirm by email."),
        _page("/procurement/purchase", "Purchase request", "Over 5,000 EUR needs a second approver.",
              forms=[_form("purchase-request", "Purchase request", [
                  _field("supplier", "Supplier", "select", options=tuple(n for n, _, _ in suppliers), required=True),
                  _field("amount", "Amount (EUR)", "number", required=True),
                  _field("purpose", "What for?", "textarea", required=True)], "/procurement/purchase/received", "Send request")]),
        _page("/procurement/purchase/received", "Purchase request received", "Your manager approves it next."),
    ]
    chunks = [suppliers[i:i + per_page] for i in range(0, len(suppliers), per_page)]
    for n, chunk in enumerate(chunks, start=1):
        path = "/procurement/suppliers" + ("" if n == 1 else f"/page-{n}")
        links = [(name, f"/procurement/suppliers/{_slug(name)}") for name, _, _ in chunk]
        if n > 1:
            links.append(("Previous page", "/procurement/suppliers" + ("" if n == 2 else f"/page-{n - 1}")))
        if n < len(chunks):
            links.append(("Next page", f"/procurement/suppliers/page-{n + 1}"))
        pages.append(_page(path, f"Approved suppliers (page {n} of {len(chunks)})",
                           "\n".join(f"{name} ({city}): {category}" for name, city, category in chunk), links))
    for name, city, category in suppliers:
        number = f"SUP-{rng.randint(10000, 99999)}"
        pages.append(_page(f"/procurement/suppliers/{_slug(name)}", name,
                           f"Supplier {number}, {city}. Category: {category}. Payment terms: {rng.choice((14, 30, 45))} days.",
                           [("Approved suppliers", "/procurement/suppliers")]))
    return pages


def _events(rng: random.Random) -> list[dict]:
    pages = [
        _page("/events", "Events", "Workshops, talks and the summer party.",
              [("Workshops", "/events/workshops"), ("Summer party", "/events/summer-party")]),
        _page("/events/summer-party", "Summer party", f"Friday 26 June in every office. Sign up with your office manager by {rng.choice(('1', '5', '12'))} June."),
        _page("/events/workshops", "Workshops", "\n".join(f"{t}: {d}, {city} ({venue})" for _, t, d, city, venue in WORKSHOPS),
              [(f"{t} ({city}, {d})", f"/events/workshops/{slug}") for slug, t, d, city, _ in WORKSHOPS]),
        _page("/events/workshops/registered", "Registration received", "You get a calendar invitation a week before."),
    ]
    for slug, title, day, city, venue in WORKSHOPS:
        seats = rng.randint(3, 18)
        pages.append(_page(f"/events/workshops/{slug}", f"{title}, {city}",
                           f"{title} on {day} in {city}, {venue}. {seats} seats left.",
                           [("All workshops", "/events/workshops")],
                           [_form(f"workshop-{slug}", f"Register for {title} ({city})", [
                               _field("meal", "Meal", "select", options=("Standard", "Vegetarian", "Vegan", "Halal"), value="Standard"),
                               _field("accessibility_needs", "I have accessibility needs", "checkbox", value="false"),
                               _field("note", "Note for the organisers", "textarea")], "/events/workshops/registered", "Register")]))
    return pages


def _people(rng: random.Random, count: int) -> tuple[list[dict], Any]:
    staff = people(rng, count)
    twins = {name for pair in LOOKALIKES for name in pair}
    me = next(p for p in staff if (p.first, p.last) not in twins)
    heads: dict[str, Any] = {}
    for person in staff:
        heads.setdefault(person.department, person)
    offices = [c for c, _ in OFFICES.values()]
    pages = [_page("/people", "People directory", "Find colleagues by department, or use Search.",
                   [(d, f"/people/department/{_slug(d)}") for d in sorted(heads)])]
    for department in sorted(heads):
        members = sorted((p for p in staff if p.department == department), key=lambda p: (p.last, p.first))
        pages.append(_page(f"/people/department/{_slug(department)}", f"{department} department",
                           f"{len(members)} people. Head: {heads[department].full_name}.",
                           [(p.full_name, f"/people/{p.handle}") for p in members]))
    for person in staff:
        head = heads[person.department]
        manager = [] if head is person else [(f"Manager: {head.full_name}", f"/people/{head.handle}")]
        pages.append(_page(f"/people/{person.handle}", person.full_name,
                           f"{person.full_name}, {person.title}, {person.department}. Office: {rng.choice(offices)}.\n"
                           f"Email: {person.email}. Phone: +{rng.randint(1, 49)} {rng.randint(200, 999)} {rng.randint(1000, 9999)}."
                           + ("" if manager else f"\nHeads the {person.department} department."),
                           [*manager, (f"{person.department} department", f"/people/department/{_slug(person.department)}")]))
    return pages, me


def build(rng: random.Random, size: str) -> dict[str, Any]:
    n_news, per_office, n_suppliers, n_staff = SIZES[size]
    people_pages, me = _people(rng, n_staff)
    fill = {"days": rng.choice((26, 27, 28)), "pct": rng.randint(4, 19), "service": rng.choice(SERVICES),
            "minutes": rng.randint(12, 95)}
    news = [(slug.format(**fill), title.format(**fill), text.format(**fill)) for slug, title, text in NEWS[:n_news]]
    pages = [
        _page("/", "Kestrel Freight intranet",
              f"Today is {TODAY}. Signed in as {me.full_name} ({me.department}).\nLatest news:"
              + "".join(f"\n{title}" for _, title, _ in news[:5]),
              [(title, f"/news/{slug}") for slug, title, _ in news[:5]], [_search_form("site-search")]),
        _page("/search", "Search", "Search every page of the intranet.", forms=[_search_form("search-page")], search=True),
        _page("/news", "News", "All company news, newest first.", [(title, f"/news/{slug}") for slug, title, _ in news]),
    ]
    pages += [_page(f"/news/{slug}", title, text, [("All news", "/news")]) for slug, title, text in news]
    pages += _hr(rng, me) + _finance(rng) + _it(rng, me) + _rooms(rng, per_office) + _procurement(rng, n_suppliers)
    pages += _events(rng) + people_pages
    return {"pages": pages, "current_url": HOST + "/", "back": [], "visited": [HOST + "/"], "drafts": {},
            "submissions": []}


def describe(state: dict[str, Any]) -> dict[str, int]:
    pages = state["pages"]
    return {"pages": len(pages), "forms": sum(len(p.get("forms", [])) for p in pages),
            "links": sum(len(p.get("links", [])) for p in pages),
            "search_pages": sum(bool(p.get("search")) for p in pages)}


GENERATOR = WorldGenerator(
    name="browser", version=1, build=build, describe=describe,
    collections={"pages": "url", "pages.forms": "id"},
)

__all__ = ["GENERATOR", "HOST"]
