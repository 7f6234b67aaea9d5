"""What both versions of the intranet are built from: the page, form and field shapes, and one builder
per section (HR, finance, IT, facilities, procurement, events, people, the home page and news) that
takes the section's facts: drawn by version 1, the organisation's in version 2."""

from __future__ import annotations

import random
import re
from typing import Any, NamedTuple

HOST = "https://intranet.kestrelfreight.com"
TODAY = "Monday 16 March 2026"
MENU = (("Home", "/"), ("News", "/news"), ("HR", "/hr"), ("Finance", "/finance"), ("IT", "/it"),
        ("Facilities", "/facilities"), ("Procurement", "/procurement"), ("Events", "/events"),
        ("People", "/people"), ("Search", "/search"))
WEEK = ("2026-03-16", "2026-03-17", "2026-03-18", "2026-03-19", "2026-03-20")
SLOTS = tuple(f"{h:02d}:{m:02d}" for h in range(8, 19) for m in (0, 30))
WORKSHOPS = (
    ("cold-chain-lisbon", "Cold Chain Logistics", "2026-05-19", "Lisbon", "Tejo auditorium"),
    ("cold-chain-berlin", "Cold Chain Logistics", "2026-09-08", "Berlin", "Spree hall"),
    ("port-automation", "Port Automation", "2026-06-04", "London", "Thames room"),
    ("forklift-safety", "Forklift Safety Refresher", "2026-05-26", "Toronto", "Distillery depot"),
    ("customs-docs", "Customs Documents Basics", "2026-04-22", "Berlin", "Mitte room"),
)


class Me(NamedTuple):
    """The signed-in employee."""

    name: str
    title: str
    department: str
    email: str


class Person(NamedTuple):
    """A staff directory entry; ``manager`` is (name, handle) or None for a department's head."""

    name: str
    handle: str
    title: str
    department: str
    office: str
    email: str
    phone: str
    manager: tuple[str, str] | None
    extra: str = ""


def page(path: str, title: str, text: str = "", links=(), forms=(), search: bool = False) -> dict[str, Any]:
    page: dict[str, Any] = {
        "url": HOST + path, "title": title, "text": text,
        "links": [{"text": t, "href": h} for t, h in MENU] + [{"text": t, "href": h} for t, h in links],
        "forms": list(forms)}
    if search:
        page["search"] = True
    return page


def field(name: str, label: str, kind: str = "text", *, options=(), required: bool = False, value: str = "") -> dict:
    field: dict[str, Any] = {"name": name, "label": label, "type": kind}
    if options:
        field["options"] = list(options)
    if required:
        field["required"] = True
    if value:
        field["value"] = value
    return field


def form(ident: str, title: str, fields: list[dict], action: str, submit: str = "Submit", method: str = "post") -> dict:
    form = {"id": ident, "title": title, "fields": fields, "submit_label": submit, "action": action}
    if method != "post":
        form["method"] = method
    return form


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")




def searchform(ident: str) -> dict:
    return form(ident, "Search the intranet", [field("q", "Search", required=True)], "/search", "Search", "get")


def hr_pages(me: Me, policies: list[tuple[str, str, str]], holiday: str) -> list[dict]:
    """HR: the policies (slug, title, text; current ones first), the leave form (linking ``holiday``, the
    current holiday policy's slug) and the profile form."""
    pages = [
        page("/hr", "Human resources", "Policies, leave and your profile.",
              [("Policies", "/hr/policies"), ("Request leave", "/hr/leave"), ("My profile", "/hr/profile")]),
        page("/hr/policies", "HR policies", "Current policies first; archived versions are kept for reference.",
              [(title, f"/hr/policies/{slug}") for slug, title, _ in policies]),
    ]
    pages += [page(f"/hr/policies/{slug}", title, text, [("All policies", "/hr/policies")]) for slug, title, text in policies]
    pages.append(page("/hr/leave", "Request leave", f"Signed in as {me.name}. Your manager approves the request.",
                       [(next(t for s, t, _ in policies if s == holiday), f"/hr/policies/{holiday}")],
                       [form("leave-request", "Leave request", [
                           field("kind", "Type of leave", "select", options=("Annual leave", "Sick leave", "Parental leave", "Unpaid leave"), value="Annual leave"),
                           field("first_day", "First day", "date", required=True), field("last_day", "Last day", "date", required=True),
                           field("note", "Note for your manager", "textarea")], "/hr/leave/sent", "Send request")]))
    pages.append(page("/hr/leave/sent", "Leave request sent", "Your manager will answer by email."))
    pages.append(page("/hr/profile", "My profile", f"{me.name}, {me.title}, {me.department}. Keep your home address up to date for payroll.",
                       forms=[form("profile-address", "Home address", [
                           field("street", "Street and number", required=True), field("postcode", "Postcode", required=True),
                           field("city", "City", required=True),
                           field("country", "Country", "select", options=("Canada", "Germany", "Portugal", "United Kingdom"))],
                           "/hr/profile/saved", "Save address")]))
    pages.append(page("/hr/profile/saved", "Address saved", "Payroll uses the new address from next month."))
    return pages


def finance_pages(centres: list[tuple[str, str]], mileage: str) -> list[dict]:
    """Finance: expense and mileage claims (``mileage``: "0.30 EUR per km"), cost centres (code, name)."""
    names = [d for _, d in centres] + ["Operations Nordics"]
    return [
        page("/finance", "Finance", "Claims are paid with the next salary.",
              [("Expense claims", "/finance/expenses"), ("Mileage claims", "/finance/mileage"),
               ("Cost centres", "/finance/cost-centres"), ("Payment calendar", "/finance/payment-calendar")]),
        page("/finance/expenses", "Expense claims", "For receipts: taxis, trains, hotels, meals. For driving your own car use Mileage claims.",
              [("Expenses policy", "/hr/policies/expenses")],
              [form("expense-claim", "New expense claim", [
                  field("category", "Category", "select", options=("Taxi", "Train", "Flight", "Hotel", "Meals", "Other"), required=True),
                  field("amount", "Amount", "number", required=True),
                  field("currency", "Currency", "select", options=("CAD", "EUR", "GBP", "NOK", "USD"), value="EUR"),
                  field("spent_on", "Date of expense", "date", required=True),
                  field("cost_centre", "Cost centre", "select", options=tuple(names)),
                  field("description", "Description", "textarea"),
                  field("receipt_attached", "Receipt attached", "checkbox", value="false"),
                  field("form_version", "", "hidden", value="9")], "/finance/expenses/thanks", "Send claim")]),
        page("/finance/expenses/thanks", "Claim received", "Thank you. Claims are reviewed within 5 working days."),
        page("/finance/mileage", "Mileage claims", f"Driving your own car for work: {mileage}.",
              forms=[form("mileage-claim", "New mileage claim", [
                  field("driven_on", "Date", "date", required=True), field("origin", "From", required=True),
                  field("destination", "To", required=True), field("km", "Distance (km)", "number", required=True),
                  field("purpose", "Purpose", "textarea")], "/finance/mileage/thanks", "Send claim")]),
        page("/finance/mileage/thanks", "Mileage claim received", "Thank you. Paid with the next salary."),
        page("/finance/cost-centres", "Cost centres", "\n".join(f"{code} {name}" for code, name in centres)
              + "\nCC-599 Operations Nordics (closed 2025; do not use)"),
        page("/finance/payment-calendar", "Payment calendar", "Salaries are paid on the 25th. Claims sent by the 15th are paid the same month."),
    ]


def it_pages(me: Me, services: list[str], status: str) -> list[dict]:
    """IT: tickets, access requests to ``services``, the software catalogue, the service ``status``."""
    return [
        page("/it", "IT help desk", "For password resets call extension 4400.",
              [("Report a problem", "/it/tickets/new"), ("Request access", "/it/access"),
               ("Software catalogue", "/it/software"), ("Service status", "/it/status"),
               ("IT equipment policy", "/hr/policies/equipment")]),
        page("/it/tickets/new", "Report a problem", "Laptops, phones, network, software. Office problems (lights, chairs, heating) go to Facilities.",
              forms=[form("it-ticket", "New IT ticket", [
                  field("requester", "Your name", required=True, value=me.name),
                  field("email", "Work email", "email", required=True, value=me.email),
                  field("category", "Category", "select", options=("Access", "Hardware", "Network", "Printing", "Software"), required=True),
                  field("urgency", "Urgency", "select", options=("Low", "Normal", "High", "Critical"), value="Normal"),
                  field("asset_tag", "Asset tag (on the sticker)"),
                  field("summary", "Summary", required=True),
                  field("description", "What happened?", "textarea", required=True)], "/it/tickets/received", "Open ticket")]),
        page("/it/tickets/received", "Ticket received", "We have your ticket and answer by email within one working day."),
        page("/it/access", "Request access", "Access needs your manager's approval.",
              forms=[form("access-request", "Access request", [
                  field("system", "System", "select", options=tuple(sorted(services)), required=True),
                  field("role", "Role", "select", options=("read", "write", "admin"), value="read"),
                  field("justification", "Why do you need it?", "textarea", required=True)], "/it/access/received", "Request")]),
        page("/it/access/received", "Access request received", "Your manager has been asked to approve it."),
        page("/it/software", "Software catalogue", "Approved software: Slack, Zoom, VS Code, DBeaver, Tableau Reader, 1Password."),
        page("/it/status", "Service status", status),
    ]


def room_pages(offices: list[tuple[str, str, list[tuple[str, int, bool, list[tuple[str, str, str, str]]]]]]) -> list[dict]:
    """Facilities: per office (key, city, rooms), each room (name, capacity, video, bookings this week as
    (day, from, until, title)) with its page and booking form; problem reports, visitors, parking."""
    pages = [page("/facilities", "Facilities", "Offices, rooms, parking and visitors.",
                  [*((f"Meeting rooms {city}", f"/facilities/rooms/{key}") for key, city, _ in offices),
                   ("Report an office problem", "/facilities/request"), ("Register a visitor", "/facilities/visitors"),
                   ("Parking", "/facilities/parking")])]
    cities = tuple(city for _, city, _ in offices)
    for key, city, rooms in offices:
        listing = []
        for name, capacity, video, bookings in rooms:
            room = slug(name)
            text = (f"{name}, {city} office. Seats {capacity}. Video conferencing: {'yes' if video else 'no'}.\n"
                    "Bookings this week:" + "".join(f"\n{d} {a}-{b} {t}" for d, a, b, t in bookings))
            listing.append((name, room, capacity, video))
            pages.append(page(f"/facilities/rooms/{key}/{room}", f"{name} ({city})", text,
                              [(f"All {city} rooms", f"/facilities/rooms/{key}")],
                              [form(f"book-{key}-{room}", f"Book {name}", [
                                  field("date", "Date", "date", required=True),
                                  field("start", "From", "select", options=SLOTS, required=True),
                                  field("end", "Until", "select", options=SLOTS, required=True),
                                  field("attendees", "Attendees", "number", required=True),
                                  field("title", "Meeting title", required=True)],
                                  "/facilities/rooms/booked", "Book room")]))
        pages.append(page(f"/facilities/rooms/{key}", f"Meeting rooms {city}",
                          "\n".join(f"{n}: {c} seats, video {'yes' if v else 'no'}" for n, _, c, v in listing),
                          [(n, f"/facilities/rooms/{key}/{s}") for n, s, _, _ in listing]))
    pages += [
        page("/facilities/rooms/booked", "Room booked", "The booking is confirmed; it shows in the room's list within a minute."),
        page("/facilities/request", "Report an office problem", "Lights, heating, chairs, cleaning, kitchens. IT equipment goes to the IT help desk.",
              forms=[form("facilities-request", "Office problem", [
                  field("office", "Office", "select", options=cities, required=True),
                  field("problem", "What is wrong?", "textarea", required=True),
                  field("urgent", "Urgent (safety risk)", "checkbox", value="false")], "/facilities/request/received", "Report")]),
        page("/facilities/request/received", "Problem reported", "Facilities will take a look within two working days."),
        page("/facilities/visitors", "Register a visitor", "Visitors get a badge at reception.",
              forms=[form("visitor-registration", "Visitor", [
                  field("visitor", "Visitor's name", required=True), field("company", "Company"),
                  field("visit_on", "Date", "date", required=True),
                  field("office", "Office", "select", options=cities, required=True)],
                  "/facilities/visitors/registered", "Register visitor")]),
        page("/facilities/visitors/registered", "Visitor registered", "Reception has the badge ready."),
        page("/facilities/parking", "Parking", "Lisbon and Toronto have staff parking; book a space at reception."),
    ]
    return pages


def procurement_pages(suppliers: list[tuple[str, str, str, str, int]], categories: tuple[str, ...],
                      second_approver: str) -> list[dict]:
    """Procurement: supplier registration, purchase requests (over ``second_approver`` a second approver)
    and the approved-supplier directory, ten a page: (name, city, category, number, payment days)."""
    per_page = 10
    pages = [
        page("/procurement", "Procurement", "Buy through approved suppliers; new ones register first.",
              [("Approved suppliers", "/procurement/suppliers"), ("Register a supplier", "/procurement/register"),
               ("Purchase request", "/procurement/purchase")]),
        page("/procurement/register", "Register a supplier", "Finance checks bank details within 5 working days.",
              forms=[form("supplier-registration", "New supplier", [
                  field("company", "Company name", required=True), field("vat_number", "VAT number", required=True),
                  field("country", "Country", "select", options=("Canada", "Germany", "Netherlands", "Norway", "Portugal", "United Kingdom"), required=True),
                  field("contact_email", "Contact email", "email", required=True), field("iban", "IBAN", required=True),
                  field("category", "Category", "select", options=categories)],
                  "/procurement/register/received", "Register")]),
        page("/procurement/register/received", "Supplier registration received", "Finance will confirm by email."),
        page("/procurement/purchase", "Purchase request", f"Over {second_approver} needs a second approver.",
              forms=[form("purchase-request", "Purchase request", [
                  field("supplier", "Supplier", "select", options=tuple(n for n, *_ in suppliers), required=True),
                  field("amount", "Amount (EUR)", "number", required=True),
                  field("purpose", "What for?", "textarea", required=True)], "/procurement/purchase/received", "Send request")]),
        page("/procurement/purchase/received", "Purchase request received", "Your manager approves it next."),
    ]
    chunks = [suppliers[i:i + per_page] for i in range(0, len(suppliers), per_page)]
    for n, chunk in enumerate(chunks, start=1):
        path = "/procurement/suppliers" + ("" if n == 1 else f"/page-{n}")
        links = [(name, f"/procurement/suppliers/{slug(name)}") for name, *_ in chunk]
        if n > 1:
            links.append(("Previous page", "/procurement/suppliers" + ("" if n == 2 else f"/page-{n - 1}")))
        if n < len(chunks):
            links.append(("Next page", f"/procurement/suppliers/page-{n + 1}"))
        pages.append(page(path, f"Approved suppliers (page {n} of {len(chunks)})",
                          "\n".join(f"{name} ({city}): {category}" for name, city, category, *_ in chunk), links))
    for name, city, category, number, days in suppliers:
        pages.append(page(f"/procurement/suppliers/{slug(name)}", name,
                          f"Supplier {number}, {city}. Category: {category}. Payment terms: {days} days.",
                           [("Approved suppliers", "/procurement/suppliers")]))
    return pages


def events_pages(rng: random.Random) -> list[dict]:
    pages = [
        page("/events", "Events", "Workshops, talks and the summer party.",
              [("Workshops", "/events/workshops"), ("Summer party", "/events/summer-party")]),
        page("/events/summer-party", "Summer party", f"Friday 26 June in every office. Sign up with your office manager by {rng.choice(('1', '5', '12'))} June."),
        page("/events/workshops", "Workshops", "\n".join(f"{t}: {d}, {city} ({venue})" for _, t, d, city, venue in WORKSHOPS),
              [(f"{t} ({city}, {d})", f"/events/workshops/{slug}") for slug, t, d, city, _ in WORKSHOPS]),
        page("/events/workshops/registered", "Registration received", "You get a calendar invitation a week before."),
    ]
    for slug, title, day, city, venue in WORKSHOPS:
        seats = rng.randint(3, 18)
        pages.append(page(f"/events/workshops/{slug}", f"{title}, {city}",
                           f"{title} on {day} in {city}, {venue}. {seats} seats left.",
                           [("All workshops", "/events/workshops")],
                           [form(f"workshop-{slug}", f"Register for {title} ({city})", [
                               field("meal", "Meal", "select", options=("Standard", "Vegetarian", "Vegan", "Halal"), value="Standard"),
                               field("accessibility_needs", "I have accessibility needs", "checkbox", value="false"),
                               field("note", "Note for the organisers", "textarea")], "/events/workshops/registered", "Register")]))
    return pages


def people_pages(staff: list[Person]) -> list[dict]:
    """The staff directory: a page per department (its head first named) and per person."""
    heads = {p.department: p for p in staff if p.manager is None or p.extra == "head"}
    pages = [page("/people", "People directory", "Find colleagues by department, or use Search.",
                  [(d, f"/people/department/{slug(d)}") for d in sorted(heads)])]
    for department in sorted(heads):
        members = sorted((p for p in staff if p.department == department), key=lambda p: (p.name.split(" ", 1)[1], p.name))
        pages.append(page(f"/people/department/{slug(department)}", f"{department} department",
                          f"{len(members)} people. Head: {heads[department].name}.",
                          [(p.name, f"/people/{p.handle}") for p in members]))
    for person in staff:
        manager = [] if person.manager is None else [(f"Manager: {person.manager[0]}", f"/people/{person.manager[1]}")]
        head = heads.get(person.department) is person
        pages.append(page(f"/people/{person.handle}", person.name,
                          f"{person.name}, {person.title}, {person.department}. Office: {person.office}.\n"
                          f"Email: {person.email}. Phone: {person.phone}."
                          + (f"\nHeads the {person.department} department." if head else ""),
                          [*manager, (f"{person.department} department", f"/people/department/{slug(person.department)}")]))
    return pages


def home_pages(me: Me, news: list[tuple[str, str, str]]) -> list[dict]:
    """The home page (latest news, site search), the search page, the news list and each article."""
    pages = [
        page("/", "Kestrel Freight intranet",
             f"Today is {TODAY}. Signed in as {me.name} ({me.department}).\nLatest news:"
             + "".join(f"\n{title}" for _, title, _ in news[:5]),
             [(title, f"/news/{s}") for s, title, _ in news[:5]], [searchform("site-search")]),
        page("/search", "Search", "Search every page of the intranet.", forms=[searchform("search-page")], search=True),
        page("/news", "News", "All company news, newest first.", [(title, f"/news/{s}") for s, title, _ in news]),
    ]
    return pages + [page(f"/news/{s}", title, text, [("All news", "/news")]) for s, title, text in news]


def site(pages: list[dict]) -> dict[str, Any]:
    """The browser's state: the pages, the session on the home page, nothing submitted."""
    return {"pages": pages, "current_url": HOST + "/", "back": [], "visited": [HOST + "/"], "drafts": {},
            "submissions": []}


__all__ = ["HOST", "Me", "Person", "SLOTS", "TODAY", "WEEK", "events_pages", "finance_pages", "home_pages",
           "hr_pages", "it_pages", "people_pages", "procurement_pages", "room_pages", "site", "slug"]
