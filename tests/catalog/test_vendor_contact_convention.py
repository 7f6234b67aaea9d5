"""x-t-vendor-contact-change's habit that only opening the earlier replies shows: the confirmation of a new
supplier contact copies the financial controller when the supplier is among the dearest in the register
(its Annual cost). The module refuses a draw of earlier replies that leaves another reading open, and every
committed case shows the copy in a minority of the earlier replies, exactly those of the dearest suppliers,
in a field a search result does not carry."""

from __future__ import annotations

import json

import pytest

from servers.gmail.state import GmailState
from servers.gmail.tools import GmailTools
from tasks_catalog.authoring.cross import OUT_DIR
from tasks_catalog.authoring.cross import x_t_vendor_contact_change as vendors

CONTROLLER = "controller-id"


def _reply(name: str, cost: int, category: str, owner: str, *, cc: bool, day: int) -> dict:
    return {"name": name, "cc": cc, "category": category, "status": "Active" if day % 2 else "Renewed",
            "owner": owner, "country": "PT" if day % 3 else "DE", "tld": "pt" if day % 3 else "de", "subject": day % 3, "in_copy": bool(day % 2),
            "month": f"2026-0{1 + day % 2}", "cost": cost, "renewal": 20260000 + (day * 37) % 1200, "day": day}


def _earlier() -> list[dict]:
    """Three dear suppliers copied, four cheaper ones not; every category, owner, status and country of a
    copied one also has an uncopied one."""
    return [_reply("Dear 1", 30_000, "Catering", "o1", cc=True, day=1),
            _reply("Dear 2", 45_000, "Hosting", "o2", cc=True, day=6),
            _reply("Dear 3", 52_000, "Software", "o3", cc=True, day=5),
            _reply("Cheap 1", 5_000, "Catering", "o1", cc=False, day=2),
            _reply("Cheap 2", 9_000, "Hosting", "o2", cc=False, day=3),
            _reply("Cheap 3", 12_000, "Software", "o3", cc=False, day=4),
            _reply("Cheap 4", 20_000, "Fuel", "o4", cc=False, day=7)]


def _printer(cost: int = 41_000) -> dict:
    return {**_reply("Printer", cost, "Printing", "o5", cc=True, day=999), "month": "2026-03",
            "controller": CONTROLLER}


def test_earlier_replies_that_only_the_annual_cost_explains_are_accepted():
    vendors.check_convention(_earlier(), _printer())


def test_earlier_replies_that_a_category_explains_as_well_are_refused_naming_the_reading():
    earlier = _earlier()
    for cheap in earlier[3:6]:
        cheap["category"] = "Fuel"  # no uncopied supplier shares a copied one's category any more
    with pytest.raises(ValueError, match="by the supplier's category"):
        vendors.check_convention(earlier, _printer())


def test_a_printer_cheaper_than_every_copied_supplier_is_refused():
    with pytest.raises(ValueError, match="do not show"):
        vendors.check_convention(_earlier(), _printer(cost=25_000))


def test_copied_replies_of_one_owner_are_refused_as_they_read_as_copying_the_owner():
    earlier = _earlier()
    earlier[1]["owner"] = "o1"
    with pytest.raises(ValueError, match="owners"):
        vendors.check_convention(earlier, _printer())


def test_copied_and_uncopied_suppliers_too_close_in_cost_are_refused():
    earlier = _earlier()
    earlier[6]["cost"] = 28_000
    with pytest.raises(ValueError, match="not clearly above"):
        vendors.check_convention(earlier, _printer())


def _cases() -> list[dict]:
    doc = json.loads((OUT_DIR / f"{vendors.ID}.json").read_text(encoding="utf-8"))
    return doc["params"]["case"]["choice"]


def test_every_case_copies_the_controller_on_exactly_the_earlier_replies_of_the_dearest_suppliers():
    for case in _cases():
        messages = [op["value"] for op in case["patch"]["gmail"]]
        costs = {op["id"]: op["fields"]["properties"]["Annual cost"] for op in case["patch"]["notion"]}
        contacts = {op["fields"]["properties"]["Contact"]: op["id"] for op in case["patch"]["notion"]}
        replies = [m for m in messages if m["sender"] == vendors.MAILBOX]
        assert len(replies) == vendors.EXAMPLES, case["seed"]
        copied = {contacts[r["to"][0]] for r in replies if r["cc"]}
        assert {c for r in replies for c in r["cc"]} == {case["controller"]}, case["seed"]
        assert len(copied) == vendors.COPIED, case["seed"]
        assert copied == set(sorted(costs, key=costs.__getitem__)[-vendors.COPIED:]), case["seed"]
        assert case["reply"]["cc"] == [case["controller"]] and "cc" not in case["bare"], case["seed"]


def test_a_search_result_does_not_carry_the_copy_and_the_opened_reply_does():
    case = _cases()[0]
    messages = [op["value"] for op in case["patch"]["gmail"]]
    state = GmailState.model_validate({"address": vendors.MAILBOX, "now": "2026-03-16T09:00:00Z", "labels": [],
                                       "messages": messages, "drafts": []})
    tools = GmailTools(state)
    found = tools.search_emails(query="contact", maxResults=50)["messages"]
    copied = [m for m in messages if m["cc"] == [case["controller"]]]
    assert len(copied) == vendors.COPIED and {m["id"] for m in copied} <= {m["id"] for m in found}
    assert case["controller"] not in json.dumps(found)
    assert all(tools.read_email(m["id"])["cc"] == [case["controller"]] for m in copied)
