"""x-t-payables-march-bills' habit that only opening the other March bills' acknowledgements shows: the
reply to a bill of 7,500 EUR or more copies the Financial controller. The module refuses a draw that leaves
another reading open, and every committed case shows the copy in a minority of the replies, exactly those
of the large bills, and nowhere a search result would show it."""

from __future__ import annotations

import json

import pytest

from servers.org import organisation
from tasks_catalog.authoring.cross import ORG_VERSION, OUT_DIR
from tasks_catalog.authoring.cross import x_t_payables_march_bills as payables


def _bill(amount: int, *, status: str = "open", terms: int = 30, day: int = 3, vendor: str = "v") -> dict:
    return {"vendor": f"{vendor}{amount}", "amount": amount, "status": status, "terms": terms,
            "issued": 739_000 + day, "due": 739_000 + day + terms, "cc": amount >= payables.THRESHOLD}


def _new() -> list[dict]:
    return [_bill(900_000, day=5), _bill(200_000, day=6)]


def test_examples_whose_copied_bills_are_exactly_the_paid_ones_leave_the_status_reading_open():
    examples = [_bill(800_000, status="paid", day=2), _bill(950_000, status="paid", day=4),
                _bill(300_000, day=1), _bill(500_000, day=7), _bill(650_000, day=8)]
    assert "by the bill's status in the file (paid, open)" in payables.open_readings(examples, _new())


def test_examples_that_only_the_amount_explains_leave_no_reading_open():
    examples = [_bill(800_000, status="paid", day=2), _bill(950_000, day=9, terms=14),
                _bill(300_000, status="paid", day=1), _bill(500_000, day=7, terms=14), _bill(650_000, day=8),
                _bill(100_000, day=10, terms=45)]
    assert payables.open_readings(examples, _new()) == []


def test_a_new_bill_between_the_largest_uncopied_and_the_smallest_copied_example_is_left_open():
    examples = [_bill(800_000, status="paid", day=2), _bill(950_000, day=9, terms=14),
                _bill(300_000, status="paid", day=1), _bill(740_000, day=7, terms=14), _bill(100_000, day=10, terms=45)]
    assert "above an amount (where between the examples)" in payables.open_readings(
        examples, [_bill(760_000, day=5), _bill(200_000, day=6)])


def test_an_example_that_breaks_the_habit_is_refused():
    examples = [_bill(800_000), {**_bill(300_000), "cc": True}]
    with pytest.raises(ValueError, match="does not follow the habit"):
        payables.open_readings(examples, _new())


def test_every_case_copies_the_controller_on_the_large_bills_replies_only_and_on_a_minority():
    doc = json.loads((OUT_DIR / "x-t-payables-march-bills.json").read_text(encoding="utf-8"))
    for case in doc["params"]["case"]["choice"]:
        org = organisation(ORG_VERSION, case["seed"])
        amount = {b.number: b.amount for b in org.bills}
        controller = next(e.email for e in org.employees if e.title == "Financial controller")
        replies = [op["value"] for op in case["gmail_patch"]]
        assert 7 <= len(replies) <= 8 and all(r["label_ids"] == ["SENT"] for r in replies), case["seed"]
        copied = [r for r in replies if r["cc"]]
        assert 2 <= len(copied) <= 3 and all(r["cc"] == [controller] for r in copied), case["seed"]
        for r in replies:
            number = r["subject"].split()[2]
            assert bool(r["cc"]) == (amount[number] >= payables.THRESHOLD), (case["seed"], number)
            # what a search shows (the first 100 characters) reads alike, copied or not
            assert controller not in r["body"] and r["body"][:100].startswith("Hello "), case["seed"]
        # the new replies: the controller copied on exactly the large missing bills', optional on the others
        allowed = [f["where"] for f in case["frame"] if f.get("entity") == "gmail.message" and "cc" in f.get("where", {})]
        by_vendor: dict[str, list] = {}
        for w in allowed:
            by_vendor.setdefault(w["to"][0], []).append(w["cc"])
        assert sorted(map(len, by_vendor.values()))[0] == 1 and sorted(map(len, by_vendor.values()))[-1] == 2
        assert all([controller] in ccs for ccs in by_vendor.values()), case["seed"]
