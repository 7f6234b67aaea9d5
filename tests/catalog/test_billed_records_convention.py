"""x-t-billed-on-two-records' habit that only opening the earlier merges shows: the answer to a customer whose
duplicate record was merged copies an accountant when the customer's Region in the CRM is EMEA. The module
refuses earlier merges that leave another reading open, and every committed case shows the copy on a minority
of the earlier answers, exactly those to EMEA customers, in a field a search result does not carry; Fjordline
(EMEA) must be answered with that copy, and the reference without it leaves the frame."""

from __future__ import annotations

import json
import secrets

import anyio
import pytest

from servers.gmail.state import GmailState
from servers.gmail.tools import GmailTools
from servers.kit.world import resolve
from tasks_catalog import gate
from tasks_catalog.authoring.cross import OUT_DIR
from tasks_catalog.authoring.cross import x_t_billed_on_two_records as billed
from tasks_catalog.templates import instantiate, load_template

PATH = OUT_DIR / f"{billed.ID}.json"


def _merge(name: str, region: str, *, cc: bool, day: int, **facts: object) -> dict:
    """An earlier merge (or a Fjordline row) as :func:`check_convention` reads it; ``facts`` override the
    plan, owner, the owner's team, country, currency, ARR and subject."""
    return {"name": name, "region": region, "plan": "Growth", "owner": "o1", "team": "Sales EMEA", "country": "NO",
            "currency": "eur",
            "arr": 20_000, "day": day, "month": f"2026-0{1 + day % 2}", "subject": 0, "cc": cc, **facts}


def _earlier() -> list[dict]:
    """Two EMEA customers copied (one Norwegian, one British), three elsewhere not; every plan, owner, month,
    subject and ARR side of a copied one also has an uncopied one."""
    return [_merge("Nord", "EMEA", cc=True, day=3, plan="Growth", owner="o1", arr=12_000, subject=0),
            _merge("Brit", "EMEA", cc=True, day=6, plan="Enterprise", owner="o2", country="GB", currency="gbp",
                   arr=80_000, subject=1),
            _merge("Yank", "North America", cc=False, day=1, plan="Growth", owner="o2", country="US", currency="usd",
                   arr=9_000, subject=0),
            _merge("Kiwi", "APAC", cc=False, day=5, plan="Enterprise", owner="o1", country="JP", currency="jpy",
                   arr=90_000, subject=1),
            _merge("Maple", "North America", cc=False, day=2, plan="Scale", owner="o3", country="CA",
                   currency="cad", arr=30_000, subject=2)]


def _fjordline() -> list[dict]:
    return [_merge("Ferries", "EMEA", cc=True, day=9, plan="Growth", owner="o1", arr=12_900, subject=None),
            _merge("Ferry", "EMEA", cc=True, day=9, plan="Enterprise", owner="o2", arr=36_800, subject=None)]


def test_earlier_merges_that_only_the_region_explains_are_accepted():
    billed.check_convention(_earlier(), _fjordline())


def test_earlier_merges_whose_copied_customers_are_not_norwegian_are_refused_as_the_country_reading_is_open():
    earlier = _earlier()
    earlier[0].update(country="DE")
    with pytest.raises(ValueError, match="by the customer's country"):
        billed.check_convention(earlier, _fjordline())


def test_earlier_merges_that_the_plan_explains_as_well_are_accepted_only_while_it_copies_fjordline_too():
    earlier = _earlier()
    earlier[3]["plan"] = "Starter"  # no uncopied customer shares the Enterprise plan any more
    earlier[2]["plan"] = "Starter"  # nor the Growth one
    billed.check_convention(earlier, _fjordline())  # both Fjordline rows' plans are copied ones: no other outcome
    fjordline = _fjordline()
    fjordline[1]["plan"] = "Scale"  # the newer row's plan no copied answer had: "by plan" would not copy
    with pytest.raises(ValueError, match="by the customer's plan"):
        billed.check_convention(earlier, fjordline)


def test_copies_that_stopped_before_the_latest_merge_are_refused_as_a_habit_dropped_since():
    earlier = _earlier()
    earlier[1]["day"] = 4  # copied on days 3 and 4, not on 5, the latest: "copied for a while, no more since"
    with pytest.raises(ValueError, match="no more since"):
        billed.check_convention(earlier, _fjordline())
    earlier[2]["day"] = 3.5  # an uncopied merge between the copied ones: the window reading no longer fits
    billed.check_convention(earlier, _fjordline())


def test_copied_answers_whose_owners_share_a_team_no_uncopied_owner_is_in_are_refused_naming_the_reading():
    earlier = _earlier()
    for e in earlier[2:]:
        e["team"] = "Customer Success"
    fjordline = _fjordline()
    fjordline[1]["team"] = "Customer Success"  # the newer row's owner: "by team" would not copy
    with pytest.raises(ValueError, match="by the owner's team"):
        billed.check_convention(earlier, fjordline)


def test_an_uncopied_emea_customer_among_the_earlier_merges_is_refused():
    earlier = _earlier()
    earlier[2]["region"] = "EMEA"
    with pytest.raises(ValueError, match="do not show"):
        billed.check_convention(earlier, _fjordline())


def test_a_majority_of_copied_answers_is_refused():
    earlier = _earlier()
    earlier[2].update(region="EMEA", cc=True)
    with pytest.raises(ValueError, match="3 of 5"):
        billed.check_convention(earlier, _fjordline())


def _cases() -> list[dict]:
    return json.loads(PATH.read_text(encoding="utf-8"))["params"]["case"]["choice"]


def _regions(case: dict) -> dict[str, str]:
    """The CRM's Region of each customer by its billing email, in the case's world."""
    _, notion = resolve({"world": {"generator": "notion", "version": 2, "seed": case["seed"], "size": "default"},
                         "patch": case["notion_patch"]})
    return {p["properties"]["Billing email"]: p["properties"]["Region"] for p in notion["pages"]
            if "Region" in p.get("properties", {}) and not p.get("archived")}


def test_every_case_copies_the_accountant_on_exactly_the_earlier_answers_to_emea_customers():
    doc = json.loads(PATH.read_text(encoding="utf-8"))
    assert doc["version"] == 3 and doc["task"]["goal"].endswith("the way we have handled these before.")
    assert 8 <= len(_cases()) <= 12
    for case in _cases():
        messages = [op["value"] for op in case["gmail_patch"]]
        answers = [m for m in messages if m["label_ids"] == ["SENT"]]
        regions = _regions(case)
        assert len(answers) == billed.EXAMPLES, case["seed"]
        assert [bool(m["cc"]) for m in answers].count(True) == billed.COPIED, case["seed"]
        for answer in answers:
            assert bool(answer["cc"]) == (regions[answer["to"][0]] == "EMEA"), case["seed"]
            assert answer["cc"] in ([], [case["accountant"]]), case["seed"]
            assert case["accountant"] not in answer["body"], case["seed"]
        assert all(m["date"] < "2026-03-16T09:00:00Z" for m in messages), case["seed"]
        # the reference opens every earlier thread, answers with the copy, and stays medium
        opened = {c["arguments"]["threadId"] for c in case["reference"] if c["tool"] == "gmail__get_thread"}
        assert opened == {m["thread_id"] for m in answers}, case["seed"]
        (reply,) = [c["arguments"] for c in case["reference"] if c["tool"] == "gmail__send_email"]
        assert reply["cc"] == [case["accountant"]], case["seed"]
        assert 5 <= len(case["reference"]) <= 24, case["seed"]
        allowed = [f["where"] for f in case["frame"] if f["entity"] == "gmail.message" and "where" in f]
        assert allowed == [{"to": reply["to"], "cc": [case["accountant"]]}], case["seed"]


def test_which_earlier_merges_are_copied_varies_and_the_most_recent_one_is_copied_in_about_half_the_cases():
    patterns, latest = set(), 0
    cases = _cases()
    for case in cases:
        answers = sorted((op["value"] for op in case["gmail_patch"] if op["value"]["label_ids"] == ["SENT"]),
                         key=lambda m: m["date"])
        pattern = tuple(bool(m["cc"]) for m in answers)
        patterns.add(pattern)
        latest += pattern[-1]
    assert len(patterns) >= 4, patterns
    assert 0.3 * len(cases) <= latest <= 0.7 * len(cases), (latest, len(cases))


def test_a_search_result_does_not_carry_the_copy_and_the_opened_thread_does():
    case = _cases()[0]
    messages = [op["value"] for op in case["gmail_patch"]]
    state = GmailState.model_validate({"address": billed.MAILBOX, "now": "2026-03-16T09:00:00Z", "labels": [],
                                       "messages": messages, "drafts": []})
    tools = GmailTools(state)
    found = tools.search_emails(query="two invoices", maxResults=50)["messages"]
    copied = [m for m in messages if m["cc"] == [case["accountant"]]]
    assert len(copied) == billed.COPIED
    assert {m["thread_id"] for m in messages} <= {m["threadId"] for m in found}
    assert case["accountant"] not in json.dumps(found)
    for m in copied:
        (shown,) = [t for t in tools.get_thread(m["thread_id"])["messages"] if t["id"] == m["id"]]
        assert shown["cc"] == [case["accountant"]]


def test_the_references_search_lists_every_earlier_merge_and_the_complaint_in_the_cases_world():
    for case in _cases():
        _, mailbox = resolve({"world": {"generator": "gmail", "version": 2, "seed": case["seed"], "size": "default"},
                              "patch": case["gmail_patch"]})
        search = case["reference"][0]
        assert search["tool"] == "gmail__search_emails", case["seed"]
        found = GmailTools(GmailState.model_validate(mailbox)).search_emails(**search["arguments"])
        assert "nextPageToken" not in found, case["seed"]
        assert {op["value"]["thread_id"] for op in case["gmail_patch"]} <= {m["threadId"] for m in found["messages"]}


def test_the_reference_without_the_copy_leaves_the_frame_and_with_it_passes_the_gate():
    template = load_template(PATH)
    case = _cases()[0]
    task = instantiate(template, {"case": case}, task_id=f"{billed.ID}-probe", nonce=secrets.token_hex(16))
    bare = [call.model_copy(update={"arguments": {k: v for k, v in call.arguments.items() if k != "cc"}})
            if call.tool == "gmail__send_email" else call for call in task.reference_solution]
    assert bare != task.reference_solution
    sampler = task.model_copy(update={"reference_solution": bare})
    good, bad = anyio.run(gate.gate_tasks, [task, sampler])
    assert good.ok, good.reasons
    assert not bad.ok and any("leaves the frame" in r for r in bad.reasons), bad.reasons
