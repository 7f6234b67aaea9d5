"""The organisation's entities: one fictional company, Kestrel Freight Systems, as plain frozen records.

Every fact a server's version-2 world shows about a person, a customer, a project or an incident comes
from these records, so the worlds of one seed agree with each other. Keys (``Employee.key``,
``Customer.key``...) are the organisation's own and never shown by a server; what the servers show is
the per-service identity each record carries (a Slack user id, a Stripe customer id, a Notion user id)
or its name. Dates are ISO dates (``2026-03-16``), instants ISO UTC times (``2026-03-16T09:00:00Z``) or,
for money, Unix seconds as Stripe keeps them; meeting times are local to Lisbon (``2026-03-16T10:00``),
as the calendar keeps them.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from servers.kit.worldtext import REGIONS, Person, Words

#: The world's present: every server's ``now`` (Monday 16 March 2026, 09:00 UTC).
NOW = "2026-03-16T09:00:00Z"
TODAY = NOW[:10]
NOW_UNIX = 1_773_651_600


def money(amount: int, currency: str) -> str:
    """An amount in the smallest unit as people write it: ``1,470.00 EUR``, ``7,800 JPY``."""
    if currency.lower() == "jpy":
        return f"{amount:,} JPY"
    return f"{amount // 100:,}.{amount % 100:02d} {currency.upper()}"


@dataclass(frozen=True)
class Office:
    key: str
    city: str
    building: str
    tz: str
    country: str


@dataclass(frozen=True)
class Room:
    name: str
    office: str  # Office.key
    capacity: int
    video: bool
    email: str


@dataclass(frozen=True)
class Employee(Person):
    """One person with one identity across services (``first``, ``last``, ``department``, ``title``, ``tz``,
    the handle and the email come from ``Person``). ``start`` and ``leave`` are the first and the last
    working day; someone whose ``leave`` is before today has left (deactivated accounts)."""

    key: str
    team: str
    manager: str | None  # Employee.key
    office: str  # Office.key, or "remote"
    start: str
    leave: str | None
    flags: tuple[str, ...]  # on-call, security-group, finance-approver, admin, hiring-manager
    slack_id: str
    linear_id: str
    notion_id: str
    github_login: str | None  # engineers, product and platform people only
    phone: str

    @property
    def name(self) -> str:
        return self.full_name

    @property
    def left(self) -> bool:
        """Left before today (accounts deactivated)."""
        return self.leave is not None and self.leave < TODAY

    @property
    def started(self) -> bool:
        return self.start <= TODAY

    @property
    def active(self) -> bool:
        """Works here today."""
        return self.employed_on(TODAY)

    def employed_on(self, day: str) -> bool:
        """Works here on ``day`` (an ISO date, or the date part of an ISO time)."""
        day = day[:10]
        return self.start <= day and (self.leave is None or day <= self.leave)


def staffing(staff: Any) -> Callable[[str], tuple[int, int]]:
    """A key of who of ``staff`` works on a day: days with the same key have the same of them employed
    (``Employee.employed_on``): how many started by the day and how many left before it. A generator
    keeps a list drawn from per key instead of filtering the staff again each day."""
    starts = sorted(e.start for e in staff)
    leaves = sorted(e.leave for e in staff if e.leave is not None)

    def key(day: str) -> tuple[int, int]:
        day = day[:10]
        return bisect.bisect_right(starts, day), bisect.bisect_left(leaves, day)
    return key


@dataclass(frozen=True)
class Contact:
    """A person at a customer. ``since``/``until`` bound a contact who took over or handed over a role
    (the billing contact changed); None means always/still."""

    first: str
    last: str
    title: str
    role: str  # billing, operations, it
    email: str
    since: str | None = None
    until: str | None = None

    @property
    def name(self) -> str:
        return f"{self.first} {self.last}"

    def current_on(self, day: str) -> bool:
        return (self.since is None or self.since <= day) and (self.until is None or day <= self.until)


@dataclass(frozen=True)
class Customer:
    """A company that buys (or may buy) Kestrel's software. ``owner`` is the account owner (an employee
    working here today); ``previous_owner`` owned it until ``owner_since`` (they left). ``stripe_email``
    is the address Stripe bills: the billing contact's, or, where the contact changed and Stripe was
    not updated yet, the previous one's (the newer notice wins)."""

    key: str
    name: str  # legal name: "Harbour Foods Ltd"
    short: str  # as people say it: "Harbour Foods"
    country: str
    region: str  # EMEA, North America, APAC
    currency: str  # eur, usd, gbp, cad, jpy
    domain: str
    status: str  # Prospect, Onboarding, Active, At risk, Churned
    plan: str  # starter, growth, scale, enterprise
    seats: int
    annual: bool
    addons: tuple[str, ...]
    vehicles: int
    signup: int | None  # Unix seconds; None for a prospect
    churned: str | None
    renewal: str | None
    owner: str
    previous_owner: str | None
    owner_since: str
    contacts: tuple[Contact, ...]
    crm_id: str
    stripe_id: str | None
    invoice_prefix: str | None
    po_number: str | None
    key_account: bool
    arr_eur: int
    group: str | None = None  # one company, several legal entities (Cedar Pharma SA and Inc)
    duplicate_of: str | None = None  # a record entered twice (Customer.key of the original)
    stripe_email: str | None = None

    def contact(self, role: str, day: str = TODAY) -> Contact:
        """The contact holding ``role`` on ``day`` (billing, operations; it falls back to operations)."""
        found = [c for c in self.contacts if c.role == role and c.current_on(day)]
        if not found and role == "it":
            return self.contact("operations", day)
        return found[0]

    @property
    def billing_email(self) -> str:
        return self.contact("billing").email

    @property
    def billed(self) -> bool:
        """Has a Stripe customer (every customer but a prospect)."""
        return self.stripe_id is not None


@dataclass(frozen=True)
class Bill:
    """An invoice a vendor sent Kestrel (accounts payable), in EUR cents."""

    number: str
    vendor: str  # Vendor.key
    amount: int
    issued: str
    due: str
    status: str  # paid, open, overdue
    paid_on: str | None
    description: str


@dataclass(frozen=True)
class Vendor:
    key: str
    name: str
    category: str
    city: str
    country: str
    domain: str
    contact: str  # the contact's name
    email: str
    owner: str  # Employee.key
    annual_cost: int  # EUR
    status: str  # Active, Under review, Renewed, Terminated
    renewal: str
    terms_days: int
    supplier_number: str

    @property
    def approved(self) -> bool:
        """Listed in the approved-supplier directory."""
        return self.status in ("Active", "Renewed")


@dataclass(frozen=True)
class Service:
    name: str
    team: str
    repo: str
    owner: str  # Employee.key: the runbook owner
    tier: int


@dataclass(frozen=True)
class Repo:
    name: str
    description: str
    team: str  # the CODEOWNERS team (a slug)
    language: str


@dataclass(frozen=True)
class Workstream:
    name: str
    lead: str
    status: str  # Not started, In progress, Paused, Done
    start: str
    target: str
    customer: str | None


@dataclass(frozen=True)
class Project:
    key: str  # atlas
    codename: str  # Atlas
    name: str  # "Atlas: route optimisation v2"
    description: str
    teams: tuple[str, ...]  # Linear team keys
    state: str  # planned, started, paused
    start: str
    target: str | None
    lead: str
    members: tuple[str, ...]
    repos: tuple[str, ...]
    channel: str
    customer: str | None  # the pilot customer
    workstreams: tuple[Workstream, ...]


@dataclass(frozen=True)
class Incident:
    """An outage. ``resolved`` is None while it is still being monitored; ``customers`` were affected
    (and are owed a service credit where the refund policy in force on ``started`` says so)."""

    number: int
    title: str
    service: str
    severity: str  # SEV1, SEV2, SEV3
    started: str
    resolved: str | None
    commander: str
    postmortem_owner: str
    customers: tuple[str, ...]
    region: str
    summary: str
    cause: str
    followups: tuple[str, ...]

    @property
    def status(self) -> str:
        return "resolved" if self.resolved else "monitoring"

    @property
    def channel(self) -> str:
        return f"incident-{self.number}"


@dataclass(frozen=True)
class OnCallWeek:
    """One week of the on-call rota, from Monday ``start``: the primary (the incident commander) and the
    secondary."""

    start: str
    primary: str  # Employee.key
    secondary: str


@dataclass(frozen=True)
class Line:
    id: str
    product: str  # seat, tracking, customs, telematics
    interval: str  # month, year
    quantity: int
    unit_amount: int
    description: str

    @property
    def amount(self) -> int:
        return self.unit_amount * self.quantity


@dataclass(frozen=True)
class Invoice:
    """A customer invoice (Stripe's): amounts in the smallest unit of ``currency``; ``period`` the
    billing month (``2026-03``)."""

    id: str
    number: str
    customer: str
    currency: str
    status: str  # paid, open, void, uncollectible
    period: str
    created: int
    lines: tuple[Line, ...]
    paid_at: int | None

    @property
    def total(self) -> int:
        return sum(line.amount for line in self.lines)

    @property
    def due(self) -> int:
        return self.created + 30 * 86_400


@dataclass(frozen=True)
class Charge:
    id: str
    customer: str
    invoice: str | None  # Invoice.id
    amount: int
    currency: str
    status: str  # succeeded, failed
    created: int
    description: str
    failure_message: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    duplicate_of: str | None = None  # the charge this one repeats (a card charged twice)


@dataclass(frozen=True)
class Refund:
    id: str
    charge: str
    amount: int
    reason: str  # duplicate, requested_by_customer
    created: int
    metadata: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Rule:
    """A recurrence as the calendar writes it: WEEKLY (``days``: 0 Monday ... 4 Friday) or MONTHLY on the
    ``nth`` weekday ``days[0]``; ``interval`` periods apart; ``count`` occurrences or ``until`` a date."""

    freq: str
    days: tuple[int, ...]
    interval: int = 1
    nth: int | None = None
    count: int | None = None
    until: str | None = None


@dataclass(frozen=True)
class Exception_:
    """One occurrence of a series changed: ``start`` None for a cancelled one."""

    original: str
    start: str | None


@dataclass(frozen=True)
class Series:
    """A recurring meeting on Priya Raman's calendars (``calendar``: primary or ops)."""

    key: str
    title: str
    calendar: str
    organizer: str  # email
    attendees: tuple[str, ...]  # emails
    start: str
    minutes: int
    rule: Rule
    room: str | None  # Room.email
    description: str
    notes: str | None  # notion, drive, or None
    exdates: tuple[str, ...]  # occurrences skipped on public holidays
    exceptions: tuple[Exception_, ...]
    occurrences: tuple[str, ...]  # every original start, holidays excluded

    def notes_at(self, start: str) -> str | None:
        """Where the notes of the occurrence at ``start`` are kept: a Notion page title, a drive path."""
        if self.notes == "notion":
            return f"Weekly Ops Review {start[:10]}"
        if self.notes == "drive":
            return f"meetings/{start[:7]}/{start[:10]}-{self.key}.md"
        return None

    def held(self, before: str) -> list[str]:
        """The starts of the occurrences that took place before ``before`` (moved ones at their new time)."""
        changed = {e.original: e.start for e in self.exceptions}
        out = [changed.get(o, o) for o in self.occurrences]
        return [s for s in out if s is not None and s < before]


@dataclass(frozen=True)
class Meeting:
    """A one-off meeting. ``kind`` says what it is about and ``subject`` which entity (a customer key, a
    project key, an incident number, a vendor key, an employee key, a candidate's name)."""

    key: str
    kind: str
    title: str
    description: str
    calendar: str  # primary, ops, travel
    start: str
    minutes: int
    organizer: str
    attendees: tuple[str, ...]  # emails (employees and outsiders)
    room: str | None
    tentative: bool
    notes: str | None
    subject: str | None

    @property
    def notes_path(self) -> str | None:
        """The drive file that holds the notes (``meetings/2026-03/2026-03-03-incident-review.md``)."""
        return f"meetings/{self.start[:7]}/{self.start[:10]}-{self.kind}.md" if self.notes == "drive" else None


@dataclass(frozen=True)
class Booking:
    """A room booked by someone else (what a room's intranet page lists beside Priya's meetings)."""

    room: str  # Room.email
    start: str
    end: str
    title: str
    organizer: str  # Employee.key


@dataclass(frozen=True)
class Trip:
    city: str
    airport: str
    first: str
    days: int
    visit: str
    team: tuple[str, ...]  # emails of the local colleagues met


@dataclass(frozen=True)
class PolicyVersion:
    """One dated version of a policy. ``facts`` are the numbers it decides by (``{"hotel_eur": 170}``)."""

    label: str  # "2025", "2026"
    effective: str
    superseded: str | None  # the day the next version took effect
    body: tuple[str, ...]  # paragraphs
    facts: dict[str, Any]


@dataclass(frozen=True)
class Policy:
    slug: str
    title: str
    area: str  # HR, Finance, IT, Customers, Legal, Platform
    owner: str  # Employee.key
    versions: tuple[PolicyVersion, ...]  # oldest first

    def version_on(self, day: str) -> PolicyVersion:
        """The version in force on ``day``."""
        found = [v for v in self.versions if v.effective <= day[:10]]
        return found[-1] if found else self.versions[0]

    @property
    def current(self) -> PolicyVersion:
        return self.version_on(TODAY)

    def text(self, version: PolicyVersion) -> str:
        """The version as a document: title, dates, paragraphs."""
        head = f"Effective {version.effective}."
        older = [v for v in self.versions if v.effective < version.effective]
        if older:
            head += f" Replaces the {older[-1].label} version (effective {older[-1].effective})."
        if version.superseded:
            head += f" Superseded on {version.superseded} by the {self._next(version).label} version."
        return "\n\n".join((head, *version.body))

    def _next(self, version: PolicyVersion) -> PolicyVersion:
        return self.versions[self.versions.index(version) + 1]


@dataclass(frozen=True)
class Candidate:
    name: str
    role: str
    stage: str  # Applied, Phone screen, Onsite, Offer, Hired, Rejected, Withdrew
    recruiter: str
    interviewers: tuple[str, ...]
    applied: str
    salary_ask: int
    referred_by: str | None
    skills: tuple[str, ...]
    hired_as: str | None = None  # Employee.key of a hire who starts soon


@dataclass(frozen=True)
class Organisation:
    """The whole company of one ``(version, seed, size)``; the servers' version-2 worlds project it."""

    version: int
    seed: int
    size: str
    offices: tuple[Office, ...]
    rooms: tuple[Room, ...]
    holidays: tuple[tuple[str, str], ...]  # (name, date) in Portugal, where the HQ is
    employees: tuple[Employee, ...]
    customers: tuple[Customer, ...]
    vendors: tuple[Vendor, ...]
    bills: tuple[Bill, ...]
    services: tuple[Service, ...]
    repos: tuple[Repo, ...]
    projects: tuple[Project, ...]
    incidents: tuple[Incident, ...]
    invoices: tuple[Invoice, ...]
    charges: tuple[Charge, ...]
    refunds: tuple[Refund, ...]
    series: tuple[Series, ...]
    meetings: tuple[Meeting, ...]
    bookings: tuple[Booking, ...]
    trips: tuple[Trip, ...]
    policies: tuple[Policy, ...]
    candidates: tuple[Candidate, ...]
    carriers: tuple[str, ...]
    rota: tuple[OnCallWeek, ...] = ()
    now: str = NOW

    # -- lookups -------------------------------------------------------------------------------------

    @cached_property
    def _by_key(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for group in (self.employees, self.customers, self.vendors, self.projects):
            out.update((e.key, e) for e in group)
        return out

    def employee(self, key: str) -> Employee:
        return self._by_key[key]

    def customer(self, key: str) -> Customer:
        return self._by_key[key]

    def vendor(self, key: str) -> Vendor:
        return self._by_key[key]

    def project(self, key: str) -> Project:
        return self._by_key[key]

    @cached_property
    def by_email(self) -> dict[str, Employee]:
        return {e.email: e for e in self.employees}

    @cached_property
    def owner(self) -> Employee:
        """Priya Raman, operations manager: the mailbox, the calendar and the intranet session are hers."""
        return next(e for e in self.employees if e.name == "Priya Raman")

    @property
    def staff(self) -> list[Employee]:
        """Everyone who has started (leavers included; future starters not)."""
        return [e for e in self.employees if e.started]

    @property
    def active(self) -> list[Employee]:
        return [e for e in self.employees if e.active]

    def team(self, team: str, day: str = TODAY) -> list[Employee]:
        return [e for e in self.employees if e.team == team and e.employed_on(day)]

    def department(self, department: str, day: str = TODAY) -> list[Employee]:
        return [e for e in self.employees if e.department == department and e.employed_on(day)]

    @cached_property
    def key_accounts(self) -> list[Customer]:
        """The accounts the CRM tracks and people talk about."""
        return [c for c in self.customers if c.key_account]

    @cached_property
    def words(self) -> Words:
        """What the texts of a version-2 world mention: the key accounts (as people say their names), the
        services, the regions and the projects' code names."""
        return Words(customers=tuple(dict.fromkeys(c.short for c in self.key_accounts if c.status != "Prospect")),
                     services=tuple(s.name for s in self.services), regions=REGIONS,
                     projects=tuple(p.codename for p in self.projects))

    @cached_property
    def invoices_of(self) -> dict[str, list[Invoice]]:
        out: dict[str, list[Invoice]] = {}
        for invoice in self.invoices:
            out.setdefault(invoice.customer, []).append(invoice)
        return out

    def policy(self, slug: str) -> Policy:
        return next(p for p in self.policies if p.slug == slug)

    def room(self, email: str) -> Room:
        return next(r for r in self.rooms if r.email == email)

    def office(self, key: str) -> Office | None:
        return next((o for o in self.offices if o.key == key), None)

    def on_call(self, day: str) -> OnCallWeek:
        """The rota's week that holds ``day``."""
        return [w for w in self.rota if w.start <= day[:10]][-1]

    def incident(self, number: int) -> Incident:
        return next(i for i in self.incidents if i.number == number)

    def name_of(self, email: str) -> str:
        """The name behind an address: an employee, a customer contact or a vendor."""
        if email in self.by_email:
            return self.by_email[email].name
        for customer in self.customers:
            for contact in customer.contacts:
                if contact.email == email:
                    return contact.name
        for vendor in self.vendors:
            if vendor.email == email:
                return vendor.contact
        return email


__all__ = ["Bill", "Booking", "Candidate", "Charge", "Contact", "Customer", "Employee", "Exception_", "Incident",
           "Invoice", "Line", "Meeting", "NOW", "NOW_UNIX", "Office", "OnCallWeek", "Organisation", "Policy", "PolicyVersion",
           "Project", "Refund", "Repo", "Room", "Rule", "Series", "Service", "TODAY", "Trip", "Vendor", "Workstream",
           "money"]
