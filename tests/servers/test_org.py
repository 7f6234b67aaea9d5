"""The organisation: one seeded company whose facts hold together (identities, managers, owners, money,
meetings, policies) before any server projects it."""

from __future__ import annotations

import random
import subprocess
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest

from servers.calendar import recur
from servers.org import TODAY, digest, organisation
from servers.org._ledger import ALPHABET, _choices, credit_percent
from servers.org._meetings import expand, plus

ROOT = Path(__file__).resolve().parents[2]

#: The digest of every record of the organisation (version 1, seed 1). A change of what it builds needs
#: a new organisation version and new versions of the generators that project it.
PINNED = {
    "default": "ced0357baa62e6168c2de378bc7ed5aaf43b6a6ddfef45716553d09365b7d1c6",
    "small": "80960587e649201442cc9281eeee87ab52812aabe84bd280cac74bf191945b7f",
}
SIZES = ("default", "small")


@pytest.fixture(scope="module", params=SIZES)
def org(request):
    return organisation(1, 1, request.param)


@pytest.mark.parametrize("size", SIZES)
def test_a_version_seed_and_size_always_build_the_same_organisation(size):
    assert digest(organisation(1, 1, size)) == PINNED[size]
    organisation.cache_clear()
    assert digest(organisation(1, 1, size)) == PINNED[size]


def test_ids_are_drawn_as_random_choice_draws_them_and_leave_the_generator_where_it_does():
    """``_choices`` reads ``rng.choice``'s draws in blocks: the same characters, and the generator left in the
    same state (a skipped draw, six bits of 62 or 63, costs a further word)."""
    skipped = 0
    for seed in range(300):
        mine, theirs = random.Random(seed), random.Random(seed)
        for length in (1, 2, 24, 24, 40):
            expected = "".join(theirs.choice(ALPHABET) for _ in range(length))
            assert _choices(mine, length) == expected, (seed, length)
        assert mine.getstate() == theirs.getstate(), seed
        probe = random.Random(seed)
        skipped += sum(probe.getrandbits(6) >= len(ALPHABET) for _ in range(111))
    assert skipped > 300  # the rejected draws were met (about 3% of 33,300)


def test_the_organisation_does_not_depend_on_the_process_hash_seed():
    code = "from servers.org import digest, organisation; print(digest(organisation(1, 1)))"
    env = {"PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "4321", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300, check=True)
    assert out.stdout.strip() == PINNED["default"]


def test_another_seed_builds_another_company():
    assert digest(organisation(1, 2, "small")) != digest(organisation(1, 1, "small"))


def test_an_unknown_version_or_size_is_refused():
    with pytest.raises(ValueError, match="version 9 is not available"):
        organisation(9, 1)
    with pytest.raises(ValueError, match="'huge' is not one of"):
        organisation(1, 1, "huge")


def test_the_default_company_has_the_promised_size():
    org = organisation(1, 1)
    assert len(org.employees) >= 120 and len(org.customers) >= 400 and len(org.key_accounts) >= 70
    assert len(org.vendors) >= 60 and len(org.invoices) >= 1500 and len(org.charges) >= 2000
    assert len(org.incidents) >= 15 and len(org.series) >= 10 and len(org.meetings) >= 340


def test_every_identity_is_unique_across_the_company(org):
    for field in ("key", "email", "handle", "slack_id", "linear_id", "notion_id", "phone"):
        values = [getattr(e, field) for e in org.employees]
        assert len(values) == len(set(values)), field
    logins = [e.github_login for e in org.employees if e.github_login]
    assert len(logins) == len(set(logins))
    contacts = [c.email for cu in org.customers for c in cu.contacts]
    assert len(contacts) == len(set(contacts))
    assert not set(contacts) & {e.email for e in org.employees}
    names = [e.name for e in org.employees] + [v.contact for v in org.vendors]
    names += list(dict.fromkeys(c.name for cu in org.customers for c in cu.contacts))
    assert len(names) == len(set(names))  # no one shares a name, but the two Dana Okafors (one entry above)


def test_the_lookalike_people_and_customers_are_there(org):
    names = {e.name for e in org.employees}
    assert {"Priya Raman", "Maria Santos", "Maria Santana", "Jon Berg", "John Berg", "Alex Chen", "Alexa Chen"} <= names
    legal = {c.name: c for c in org.customers}
    assert {"Harbour Foods Ltd", "Harbor Foods Inc", "Nordkapp Marine AS", "Nordkap Marine AS"} <= set(legal)
    assert legal["Harbour Foods Ltd"].domain != legal["Harbor Foods Inc"].domain
    twin = legal["Fjordline Ferry AS"]
    assert org.customer(twin.duplicate_of).name == "Fjordline Ferries AS"
    assert twin.domain == org.customer(twin.duplicate_of).domain and twin.country == "NO"
    assert legal["Cedar Pharma SA"].group == legal["Cedar Pharma Inc"].group == "cedar-pharma"
    danas = [cu.name for cu in org.customers for c in cu.contacts if c.name == "Dana Okafor"]
    assert sorted(danas) == ["Lumen Group GmbH", "Lumen Retail Ltd"]
    assert len({c.name for v in org.vendors for c in [v] if "Harbo" in v.name and "Print" in v.name}) == 3


def test_managers_form_one_tree_and_are_here_while_their_people_are(org):
    by_key = {e.key: e for e in org.employees}
    roots = [e for e in org.employees if e.manager is None]
    assert [e.title for e in roots] == ["Chief executive officer"]
    for e in org.employees:
        seen, at = set(), e
        while at.manager is not None:
            assert at.key not in seen, f"{e.name}: a management cycle"
            seen.add(at.key)
            at = by_key[at.manager]
        if e.active:
            assert by_key[e.manager].active if e.manager else True, e.name
    assert org.employee(org.owner.manager).title == "Chief operating officer"


def test_some_people_left_one_leaves_soon_and_two_start_soon(org):
    left = [e for e in org.employees if e.left]
    assert len(left) >= 2 and all(e.leave < TODAY and e.start < e.leave for e in left)
    assert any(e.title in ("Account executive", "Customer success manager") for e in left)
    assert any("on-call" in e.flags for e in left)
    soon = [e for e in org.employees if e.leave and e.leave >= TODAY]
    assert [e.title for e in soon] == ["Customer success manager"] and soon[0].active
    assert all(not e.started and e.start > TODAY for e in org.employees if e.start > TODAY)
    assert any(c.hired_as for c in org.candidates)


def test_every_account_owner_is_here_today_and_a_previous_owner_left(org):
    for customer in org.customers:
        assert org.employee(customer.owner).active, customer.name
        assert org.employee(customer.owner).title in ("Account executive", "Customer success manager")
        if customer.previous_owner:
            gone = org.employee(customer.previous_owner)
            assert gone.left and gone.leave < customer.owner_since, customer.name
    assert any(c.previous_owner for c in org.customers)


def test_a_billing_contact_that_changed_leaves_stripe_behind_for_some(org):
    changed = [c for c in org.customers if any(x.until for x in c.contacts)]
    assert changed
    for customer in changed:
        old = next(x for x in customer.contacts if x.until)
        new = next(x for x in customer.contacts if x.role == "billing" and x.since)
        assert old.until < new.since and customer.billing_email == new.email
        assert customer.stripe_email in (old.email, new.email)
    assert {c.stripe_email == c.billing_email for c in changed} == {True, False}
    for customer in org.customers:
        if customer.billed:
            assert customer.stripe_email in {x.email for x in customer.contacts}
            for day in ("2025-10-01", "2026-02-20", TODAY):
                assert customer.contact("billing", day).role == "billing"


def test_policies_have_dated_versions_where_the_newer_wins(org):
    assert {"refund", "expenses", "travel", "holiday", "access", "data-retention", "on-call",
            "customer-records"} <= {p.slug for p in org.policies}
    for policy in org.policies:
        versions = policy.versions
        assert [v.effective for v in versions] == sorted(v.effective for v in versions)
        for older, newer in zip(versions, versions[1:]):
            assert older.superseded == newer.effective and older.facts.keys() == newer.facts.keys()
        assert versions[-1].superseded is None and policy.current is versions[-1]
        assert policy.current.effective in policy.text(policy.current)
    refund = org.policy("refund")
    assert refund.version_on("2026-01-31").label == "2025" and refund.version_on("2026-02-01").label == "2026"


def test_every_charge_and_refund_fits_its_invoice(org):
    invoices = {i.id: i for i in org.invoices}
    charges = {c.id: c for c in org.charges}
    for invoice in org.invoices:
        customer = org.customer(invoice.customer)
        assert customer.billed and invoice.currency == customer.currency and invoice.number.startswith(customer.invoice_prefix)
    for charge in org.charges:
        if charge.invoice:
            invoice = invoices[charge.invoice]
            assert (invoice.customer, invoice.total) == (charge.customer, charge.amount)
        if charge.duplicate_of:
            first = charges[charge.duplicate_of]
            assert first.amount == charge.amount and 0 < charge.created - first.created < 86_400
    refunded: Counter[str] = Counter()
    for refund in org.refunds:
        refunded[refund.charge] += refund.amount
        assert refund.created > charges[refund.charge].created
    assert all(total <= charges[c].amount for c, total in refunded.items())
    assert len({i.number for i in org.invoices}) == len(org.invoices)


def test_service_credits_follow_the_refund_policy_in_force_on_the_incident_day(org):
    refund = org.policy("refund")
    invoices = {i.id: i for i in org.invoices}
    charges = {c.id: c for c in org.charges}
    credits = [r for r in org.refunds if "incident" in r.metadata]
    assert credits
    for credit in credits:
        incident = org.incident(int(credit.metadata["incident"]))
        invoice = invoices[charges[credit.charge].invoice]
        assert invoice.customer in incident.customers and invoice.period == incident.started[:7]
        assert credit.amount == invoice.total * credit_percent(refund, incident) // 100 > 0
    recent = org.incidents[-1]
    assert recent.resolved is None and not [r for r in credits if r.metadata["incident"] == str(recent.number)]


def test_the_on_call_rota_is_of_on_call_people_and_the_primary_commands_that_weeks_incidents(org):
    weeks = [w.start for w in org.rota]
    assert weeks == sorted(weeks) and weeks[0] <= "2025-10-01" and weeks[-1] >= "2026-06-22"
    for week in org.rota:
        for key in (week.primary, week.secondary):
            assert "on-call" in org.employee(key).flags and org.employee(key).employed_on(week.start)
        assert week.primary != week.secondary
    for incident in org.incidents:
        commander = org.employee(incident.commander)
        assert incident.commander == org.on_call(incident.started).primary and commander.employed_on(incident.started)
        assert org.employee(incident.postmortem_owner).active
        assert all(org.customer(k).billed for k in incident.customers)
    numbers = [i.number for i in org.incidents]
    assert numbers == sorted(numbers) and [i.started for i in org.incidents] == sorted(i.started for i in org.incidents)


def test_the_organisation_expands_a_series_as_the_calendar_does(org):
    for series in org.series:
        rule = series.rule
        line = f"RRULE:FREQ={rule.freq};INTERVAL={rule.interval};BYDAY="
        line += ",".join(f"{rule.nth}{recur.DAYS[d]}" if rule.nth else recur.DAYS[d] for d in rule.days)
        line += f";COUNT={rule.count}" if rule.count else f";UNTIL={rule.until.replace('-', '')}T235959Z"
        theirs = [m.strftime("%Y-%m-%dT%H:%M") for m in recur.occurrences(datetime.fromisoformat(series.start),
                                                                          recur.parse([line]))]
        assert expand(series.start, rule) == theirs, series.title
        assert set(series.occurrences) | set(series.exdates) == set(theirs)
        assert all(s[:10] in {d for _, d in org.holidays} for s in series.exdates)


def test_no_room_is_ever_double_booked_and_every_guest_works_here_that_day(org):
    held: dict[str, list[tuple[str, str]]] = {}
    for series in org.series:
        if series.room:
            changed = {e.original: e.start for e in series.exceptions}
            for start in series.occurrences:
                if changed.get(start, start):
                    held.setdefault(series.room, []).append((changed.get(start, start),
                                                             plus(changed.get(start, start), series.minutes)))
    for meeting in org.meetings:
        if meeting.room:
            held.setdefault(meeting.room, []).append((meeting.start, plus(meeting.start, meeting.minutes)))
        for email in meeting.attendees:
            if email in org.by_email:
                assert org.by_email[email].employed_on(meeting.start), (meeting.title, email)
    for booking in org.bookings:
        held.setdefault(booking.room, []).append((booking.start, booking.end))
    for room, spans in held.items():
        spans.sort()
        for (a, b), (c, d) in zip(spans, spans[1:]):
            assert b <= c, f"{room} is booked twice: {a}-{b} and {c}-{d}"


def test_days_with_one_staffing_key_have_the_same_people_employed(org):
    """``staffing`` keys a day by who works then: generators keep one list per key, so two days with one
    key must have the same employees, and days with other employees other keys."""
    from datetime import date, timedelta

    from servers.org.model import staffing

    key = staffing(org.employees)
    seen: dict[tuple[int, int], frozenset[str]] = {}
    day = date(2023, 1, 1)
    while day <= date(2027, 1, 1):
        text = day.isoformat()
        employed = frozenset(e.key for e in org.employees if e.employed_on(text))
        assert seen.setdefault(key(text), employed) == employed, text
        assert key(text + "T09:30:00Z") == key(text)
        day += timedelta(days=1)
    assert len(set(seen.values())) == len(seen) > 10  # the staff changed, and each change has its own key
