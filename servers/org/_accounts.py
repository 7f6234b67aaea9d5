"""The organisation's customers (with their contacts and account owners) and vendors."""

from __future__ import annotations

import calendar
import random
from dataclasses import replace
from datetime import date, timedelta

from servers.kit.worldtext import CUSTOMERS, FIRST_NAMES, LAST_NAMES
from servers.org._ledger import FX_EUR, PRICES, _choices
from servers.org.model import TODAY, Contact, Customer, Employee, Vendor

#: country -> (legal suffixes, billing currency, top-level domain, region)
COUNTRIES = {
    "GB": (("Ltd", "PLC"), "gbp", "co.uk", "EMEA"), "US": (("Inc", "LLC", "Corp"), "usd", "com", "North America"),
    "CA": (("Inc", "Ltd"), "cad", "ca", "North America"), "JP": (("KK",), "jpy", "co.jp", "APAC"),
    "DE": (("GmbH", "AG"), "eur", "de", "EMEA"), "NL": (("BV",), "eur", "nl", "EMEA"),
    "PT": (("Lda", "SA"), "eur", "pt", "EMEA"), "PL": (("Sp. z o.o.",), "eur", "pl", "EMEA"),
    "NO": (("AS",), "eur", "no", "EMEA"), "SE": (("AB",), "eur", "se", "EMEA"), "FR": (("SA", "SAS"), "eur", "fr", "EMEA"),
    "KR": (("Co",), "usd", "co.kr", "APAC"),
}
#: Customers every seed has: (short name, legal name, country, domain or None). The lookalikes are
#: deliberate: Harbour and Harbor Foods are two companies; Fjordline Ferry AS is Fjordline Ferries AS
#: entered twice (one domain); Cedar Pharma SA and Inc are one group's two entities; Lumen Group and
#: Lumen Retail each have a Dana Okafor.
NAMED = (
    ("Harbour Foods", "Harbour Foods Ltd", "GB", None), ("Harbor Foods", "Harbor Foods Inc", "US", None),
    ("Nordkapp Marine", "Nordkapp Marine AS", "NO", None), ("Nordkap Marine", "Nordkap Marine AS", "NO", None),
    ("Fjordline Ferries", "Fjordline Ferries AS", "NO", None),
    ("Fjordline Ferry", "Fjordline Ferry AS", "NO", "fjordlineferries.no"),
    ("Hanbit Electronics", "Hanbit Electronics Co", "KR", None), ("Hanbit Electronic", "Hanbit Electronic Co", "KR", None),
    ("Cedar Pharma", "Cedar Pharma SA", "FR", None), ("Cedar Pharma", "Cedar Pharma Inc", "US", "cedarpharma.fr"),
    ("Lumen Group", "Lumen Group GmbH", "DE", None), ("Lumen Retail", "Lumen Retail Ltd", "GB", None),
)
COMPANY_WORDS = ("Atlas", "Borealis", "Cobalt", "Delta", "Evergreen", "Falcon", "Granite", "Horizon", "Ironwood",
                 "Juniper", "Keystone", "Marlin", "Northstar", "Orchard", "Pinnacle", "Quill", "Redwood",
                 "Summit", "Trident", "Unity", "Valley", "Willow", "Zephyr", "Aurora", "Beacon", "Crescent")
COMPANY_KINDS = ("Foods", "Logistics", "Retail", "Pharma", "Marine", "Textiles", "Electronics", "Beverages",
                 "Builders", "Medical", "Outdoor", "Paper", "Auto Parts", "Grocers", "Optics", "Seafood")
PLANS = {"starter": (1, 5), "growth": (5, 20), "scale": (20, 60), "enterprise": (60, 200)}
CONTACT_TITLES = {"billing": ("Accounts payable lead", "Finance manager", "Billing coordinator", "Controller"),
                  "operations": ("Head of logistics", "Operations manager", "Supply chain manager", "Transport lead"),
                  "it": ("IT manager", "Integration engineer", "Head of IT")}
OWNER_TITLES = ("Account executive", "Customer success manager")

#: (name, category, city, country) of every vendor; Harbour Print Co, Harbour Printing Ltd and Harbor
#: Print Co are three companies.
VENDORS = (
    ("Harbour Print Co", "Printing", "Lisbon", "PT"), ("Harbour Printing Ltd", "Printing", "London", "GB"),
    ("Harbor Print Co", "Printing", "Toronto", "CA"), ("Nimbus Cloud", "Hosting", "Dublin", "IE"),
    ("Lisbon Workspace", "Facilities", "Lisbon", "PT"), ("FleetFuel", "Fuel", "Rotterdam", "NL"),
    ("Atlas Catering", "Catering", "Lisbon", "PT"), ("Alder & Vine Catering", "Catering", "Lisbon", "PT"),
    ("Alder and Vine Events", "Events", "London", "GB"), ("Baltic Pallet Works", "Packaging", "Gdansk", "PL"),
    ("Brightline Couriers", "Courier", "Berlin", "DE"), ("Cedar Office Supply", "Office supplies", "Toronto", "CA"),
    ("Cedarwood Office Solutions", "Office furniture", "Toronto", "CA"), ("Dockside Forklifts", "Equipment", "Rotterdam", "NL"),
    ("Eastgate Security", "Security", "London", "GB"), ("Fjord Fuel Cards", "Fuel", "Oslo", "NO"),
    ("Greenway Cleaning", "Cleaning", "Berlin", "DE"), ("Iberian Tyres", "Vehicle parts", "Porto", "PT"),
    ("Jade Translation", "Translation", "Berlin", "DE"), ("Keystone Insurance Brokers", "Insurance", "London", "GB"),
    ("Lumen Lighting", "Facilities", "Lisbon", "PT"), ("Meridian Telecom", "Telecom", "Berlin", "DE"),
    ("Northwind Labels", "Labels", "Hamburg", "DE"), ("Orbit Cloud Hosting", "Hosting", "Dublin", "IE"),
    ("Pinewood Furniture", "Office furniture", "Toronto", "CA"), ("Quayside Catering", "Catering", "London", "GB"),
    ("Redline Vehicle Leasing", "Vehicles", "Berlin", "DE"), ("Summit Training", "Training", "Toronto", "CA"),
    ("Tidewater Logistics Consulting", "Consulting", "Lisbon", "PT"), ("Oakridge Cleaning", "Cleaning", "Toronto", "CA"),
    ("Northgate Office Supplies", "Office supplies", "London", "GB"), ("Datadog", "Software", "New York", "US"),
    ("GitHub", "Software", "San Francisco", "US"), ("Slack", "Software", "San Francisco", "US"),
    ("Atlassian", "Software", "Sydney", "AU"), ("Figma", "Software", "San Francisco", "US"),
    ("Notion", "Software", "San Francisco", "US"), ("Google Workspace", "Software", "Dublin", "IE"),
    ("1Password", "Software", "Toronto", "CA"), ("PagerDuty", "Software", "San Francisco", "US"),
    ("Sentry", "Software", "San Francisco", "US"), ("Cloudflare", "Software", "London", "GB"),
    ("Twilio", "Software", "Dublin", "IE"), ("Mapbox", "Software", "Washington", "US"),
    ("HERE Technologies", "Software", "Amsterdam", "NL"), ("DocuSign", "Software", "Dublin", "IE"),
    ("Deel", "Professional services", "San Francisco", "US"), ("Personio", "Software", "Munich", "DE"),
    ("Greenhouse", "Software", "New York", "US"), ("Lattice", "Software", "San Francisco", "US"),
    ("Xero", "Software", "London", "GB"), ("KPMG Advisory", "Professional services", "Lisbon", "PT"),
    ("Baker & Lane Legal", "Professional services", "London", "GB"), ("Vale Recruiting", "Recruiting", "Lisbon", "PT"),
    ("TalentBridge", "Recruiting", "Toronto", "CA"), ("Coffee Collective", "Catering", "Lisbon", "PT"),
    ("Green Desk Plants", "Facilities", "Lisbon", "PT"), ("SecureShred", "Facilities", "Berlin", "DE"),
    ("Blue Harbour IT", "IT services", "Lisbon", "PT"), ("Metro Couriers", "Courier", "London", "GB"),
    ("Alfama Events", "Events", "Lisbon", "PT"), ("Orbit Telecom", "Telecom", "Lisbon", "PT"),
    ("Lisbon Parking Co", "Facilities", "Lisbon", "PT"), ("Tagus Facilities", "Facilities", "Lisbon", "PT"),
    ("Pixel Perfect Studio", "Marketing", "Lisbon", "PT"), ("Quantum Security Audits", "Security", "Berlin", "DE"),
    ("Redline Translations", "Translation", "Porto", "PT"), ("Clearview Windows", "Cleaning", "Lisbon", "PT"),
    ("Willow HR Advisory", "Professional services", "London", "GB"), ("Zenith Print & Sign", "Printing", "Berlin", "DE"),
)
TLD = {"PT": "pt", "GB": "co.uk", "CA": "ca", "IE": "ie", "NL": "nl", "PL": "pl", "DE": "de", "NO": "no", "US": "com",
       "AU": "com.au"}
#: category -> department whose people own such vendors
VENDOR_OWNERS = {"Software": "Platform", "Hosting": "Platform", "IT services": "People", "Telecom": "People",
                 "Professional services": "Finance", "Recruiting": "People", "Insurance": "Finance",
                 "Marketing": "Marketing", "Events": "Marketing", "Translation": "Marketing"}


def slug(name: str) -> str:
    """A company's name as a domain label: lowercase letters and digits, legal suffixes dropped."""
    words = [w for w in name.lower().replace("&", "and").split() if w not in (
        "ltd", "plc", "inc", "llc", "corp", "gmbh", "ag", "bv", "lda", "sa", "sas", "kk", "as", "ab", "co", "sp.", "z",
        "o.o.")]
    return "".join(ch for ch in "".join(words) if ch.isalnum())


def _stamp(day: date, hour: int = 9) -> int:
    return calendar.timegm((day.year, day.month, day.day, hour, 0, 0))


def _rows(rng: random.Random, count: int) -> list[tuple[str, str, str, str | None]]:
    rows = list(NAMED)
    seen = {short for short, *_ in rows}
    for base in CUSTOMERS:
        if base not in seen:
            country = rng.choice(sorted(COUNTRIES))
            rows.append((base, f"{base} {rng.choice(COUNTRIES[country][0])}", country, None))
            seen.add(base)
    while len(rows) < count:
        base = f"{rng.choice(COMPANY_WORDS)} {rng.choice(COMPANY_KINDS)}"
        if base not in seen:
            seen.add(base)
            country = rng.choice(sorted(COUNTRIES))
            rows.append((base, f"{base} {rng.choice(COUNTRIES[country][0])}", country, None))
    return rows[:count]


def build_customers(rng: random.Random, size: str, staff: tuple[Employee, ...]) -> tuple[Customer, ...]:
    count, key_count = (40, 16) if size == "small" else (400, 80)
    rows = _rows(rng, count)
    named = {legal for _, legal, _, _ in NAMED} | set(CUSTOMERS)
    owners = [e for e in staff if e.title in OWNER_TITLES and e.started]
    active_owners = [e for e in owners if e.active]
    people_names = {(e.first, e.last) for e in staff} | {("Dana", "Okafor")}
    crm_taken: set[int] = set()
    stripe_taken: set[str] = set()
    plans = sorted(PLANS)
    pools: dict[str, list[Employee]] = {}  # the owners working on a day (drawn from, never changed)
    out: list[Customer] = []
    for n, (short, legal, country, domain) in enumerate(rows):
        suffixes, currency, tld, region = COUNTRIES[country]
        domain = domain or f"{slug(legal)}.{tld}"
        plan = rng.choices(plans, (2, 4, 3, 1))[0]
        seats = rng.randint(*PLANS[plan])
        annual = plan in ("scale", "enterprise") and rng.random() < 0.3
        addons = tuple(k for k, p in (("tracking", 0.65), ("customs", 0.25), ("telematics", 0.2)) if rng.random() < p)
        vehicles = rng.randint(4, 80)
        roll = rng.random()
        if legal == "Fjordline Ferry AS":  # the record entered twice, this winter
            status, signup_day = "Active", date(2026, 1, rng.randint(5, 20))
        elif legal in named and short in ("Harbour Foods", "Harbor Foods", "Cedar Pharma", "Lumen Group", "Lumen Retail"):
            status, signup_day = "Active", date(2024, 5, 1) + timedelta(days=rng.randint(0, 500))
        elif roll < 0.07:
            status, signup_day = "Prospect", None
        elif roll < 0.13:
            status, signup_day = "Churned", date(2024, 5, 1) + timedelta(days=rng.randint(0, 400))
        else:
            signup_day = date(2024, 5, 1) + timedelta(days=rng.randint(0, (date(2026, 2, 20) - date(2024, 5, 1)).days))
            status = "Onboarding" if signup_day >= date(2026, 1, 15) else "At risk" if rng.random() < 0.09 else "Active"
        churned = None
        if status == "Churned":
            churned = (date(2025, 11, 1) + timedelta(days=rng.randint(0, 110))).isoformat()
        renewal = None
        if signup_day is not None and status != "Churned":
            anniversary = signup_day.replace(year=2026) if (signup_day.month, signup_day.day) != (2, 29) else date(2026, 3, 1)
            renewal = (anniversary if anniversary.isoformat() > TODAY else anniversary.replace(year=2027)).isoformat()
        # the account owner: someone who was here when the account came, reassigned when they left
        since = (signup_day or date(2025, 10, 1)).isoformat()
        pool = pools.get(since)
        if pool is None:
            pool = pools[since] = [e for e in owners if e.employed_on(max(since, "2025-06-01"))] or active_owners
        owner = rng.choice(pool)
        previous, owner_since = None, since
        if not owner.active:
            previous, owner = owner, rng.choice(active_owners)
            assert previous.leave is not None, f"{previous.key} worked here on {since} and is gone today"
            owner_since = (date.fromisoformat(previous.leave) + timedelta(days=rng.randint(1, 6))).isoformat()
        contacts = []
        for role in ("operations", "billing", "it"):
            if role == "it" and rng.random() < 0.5:
                continue
            first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
            while (first, last) in people_names:
                first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
            if short in ("Lumen Group", "Lumen Retail") and role == ("operations" if short == "Lumen Group" else "billing"):
                first, last = "Dana", "Okafor"
            else:
                people_names.add((first, last))
            contacts.append(Contact(first, last, rng.choice(CONTACT_TITLES[role]), role,
                                    f"{first}.{last}@{domain}".lower()))
        crm = rng.randint(10_000, 99_999)
        while crm in crm_taken:
            crm = rng.randint(10_000, 99_999)
        crm_taken.add(crm)
        stripe_id = prefix = None
        if signup_day is not None:
            while stripe_id is None or stripe_id in stripe_taken:
                stripe_id = "cus_" + _choices(rng, 14)  # 14 x rng.choice(ALPHABET), the same draws
            stripe_taken.add(stripe_id)
            prefix = stripe_id[4:12].upper()
        po = f"PO-{rng.randint(2025, 2026)}-{rng.randint(100, 9999):04d}" if rng.random() < 0.25 else None
        monthly = seats * PRICES["seat"][currency] + (0 if annual else sum(
            PRICES[a][currency] * (vehicles if a == "telematics" else 1) for a in addons))
        arr = round(monthly * (10 if annual else 12) * FX_EUR[currency], -2) if monthly else 0
        out.append(Customer(
            key=f"c{n + 1:03d}", name=legal, short=short, country=country, region=region, currency=currency,
            domain=domain, status=status, plan=plan, seats=seats, annual=annual, addons=addons,
            vehicles=vehicles, signup=None if signup_day is None else _stamp(signup_day) + rng.randint(0, 8 * 3600),
            churned=churned, renewal=renewal, owner=owner.key, previous_owner=previous.key if previous else None,
            owner_since=owner_since, contacts=tuple(contacts), crm_id=f"HS-{crm}", stripe_id=stripe_id,
            invoice_prefix=prefix, po_number=po, key_account=False, arr_eur=int(arr),
            group="cedar-pharma" if short == "Cedar Pharma" else None,
            duplicate_of=None, stripe_email=None))
    # The key accounts: the named ones first, then the biggest, up to the CRM's size.
    by_legal = {c.name: c for c in out}
    order = [c for c in out if c.name in named or c.short in named]
    leading = {c.key for c in order}  # (by key: each customer has its own; ``c not in order`` compared every field)
    order += sorted((c for c in out if c.key not in leading and c.status != "Churned"),
                    key=lambda c: (-c.arr_eur, c.key))
    keys = {c.key for c in order[:key_count]}
    original = by_legal["Fjordline Ferries AS"].key
    out = [replace(c, key_account=c.key in keys,
                    duplicate_of=original if c.name == "Fjordline Ferry AS" else None) for c in out]
    return tuple(_billing_changes(rng, out, key_count, {(e.first, e.last) for e in staff}))


def _billing_changes(rng: random.Random, customers: list[Customer], key_count: int,
                     staff: set[tuple[str, str]]) -> list[Customer]:
    """A few key accounts changed their billing contact in the last weeks: the old contact's ``until`` and
    the new one's ``since`` say when; Stripe still bills the old address for half of them."""
    people_names = {(c.first, c.last) for cu in customers for c in cu.contacts} | staff
    eligible = [c for c in customers if c.key_account and c.billed and c.status in ("Active", "At risk")
                and c.duplicate_of is None and c.short not in ("Lumen Group", "Lumen Retail")]
    changed = {c.key for c in rng.sample(eligible, k=2 if key_count < 40 else 6)}
    out = []
    stale_turn = True
    for customer in customers:
        email = customer.billing_email if customer.billed else None
        if customer.key in changed:
            day = date(2026, 2, 2) + timedelta(days=rng.randint(0, 38))
            old = customer.contact("billing")
            first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
            while (first, last) in people_names:
                first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
            people_names.add((first, last))
            new = Contact(first, last, rng.choice(CONTACT_TITLES["billing"]), "billing",
                          f"{first}.{last}@{customer.domain}".lower(), since=day.isoformat())
            ended = Contact(old.first, old.last, old.title, "billing", old.email,
                            until=(day - timedelta(days=1)).isoformat())
            contacts = tuple(ended if c is old else c for c in customer.contacts) + (new,)
            email = old.email if stale_turn else new.email
            stale_turn = not stale_turn
            customer = replace(customer, contacts=contacts)
        out.append(replace(customer, stripe_email=email))
    return out


def build_vendors(rng: random.Random, size: str, staff: tuple[Employee, ...],
                  customers: tuple[Customer, ...]) -> tuple[Vendor, ...]:
    """Every supplier; its contact is a person no one else in the organisation is named like."""
    rows = VENDORS[:24] if size == "small" else VENDORS
    active = [e for e in staff if e.active]
    names = {(e.first, e.last) for e in staff} | {(c.first, c.last) for cu in customers for c in cu.contacts}
    numbers: set[int] = set()
    out = []
    for n, (name, category, city, country) in enumerate(rows):
        department = VENDOR_OWNERS.get(category, "Operations")
        owners = [e for e in active if e.department == department] or [e for e in active if e.department == "Finance"]
        domain = f"{slug(name)}.{TLD[country]}"
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        while (first, last) in names:
            first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        names.add((first, last))
        number = rng.randint(10_000, 99_999)
        while number in numbers:
            number = rng.randint(10_000, 99_999)
        numbers.add(number)
        status = "Active" if n < 7 else rng.choices(("Active", "Under review", "Renewed", "Terminated"), (6, 2, 2, 1))[0]
        out.append(Vendor(
            key=f"v{n + 1:03d}", name=name, category=category, city=city, country=country, domain=domain,
            contact=f"{first} {last}", email=f"{rng.choice(('billing', 'invoices', 'accounts', 'ar'))}@{domain}",
            owner=rng.choice(owners).key, annual_cost=rng.randint(6, 600) * 100, status=status,
            renewal=(date(2026, 3, 20) + timedelta(days=rng.randint(0, 360))).isoformat(),
            terms_days=rng.choice((14, 30, 30, 45)), supplier_number=f"SUP-{number}"))
    return tuple(out)


__all__ = ["COUNTRIES", "build_customers", "build_vendors", "slug"]
