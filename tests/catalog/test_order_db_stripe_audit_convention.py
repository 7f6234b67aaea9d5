"""x-t-order-db-stripe-audit's habit that only opening the earlier reports shows: the report of a link check whose
corrections include an enterprise customer's row (its ``segment`` in the order database) copies the Head of
Customer Success. The module refuses a draw of earlier reports that leaves another reading open, and every
committed case shows the copy in a minority of the five reports, exactly those correcting an enterprise
customer, in a field a search result does not carry; the new report is due the copy, and leaving it off fails."""

from __future__ import annotations

import json
import re

import pytest

from servers.gmail.state import GmailState
from servers.gmail.tools import GmailTools
from tasks_catalog.authoring.cross import OUT_DIR, world
from tasks_catalog.authoring.cross import x_t_order_db_stripe_audit as audit
from tasks_catalog.authoring.cross._x_t_data import pg_rows


def _row(ident: int, segment: str, *, kind: str = "other", country: str = "DE", credit: float = 50_000.0) -> dict:
    return {"id": ident, "segment": segment, "kind": kind, "country": country, "credit_limit": credit}


def _report(period: tuple[int, int], *rows: dict) -> dict:
    e = audit.facts(period, list(rows))
    return {**e, "cc": e["enterprise"]}


def _earlier() -> list[dict]:
    """Two reports with an enterprise row copied, three without not; every kind, country, count and month of a
    copied report also has an uncopied one, and an uncopied report has the largest credit limit."""
    return [_report((2025, 10), _row(1, "enterprise", kind="typo", country="GB", credit=90_000),
                    _row(2, "smb", kind="prospect", country="DE")),
            _report((2025, 11), _row(3, "mid-market", kind="typo", country="GB", credit=250_000),
                    _row(4, "smb", kind="prospect", country="DE")),
            _report((2025, 12), _row(5, "smb", country="NL"), _row(6, "mid-market", country="FR")),
            _report((2026, 1), _row(7, "enterprise", country="NL", credit=120_000), _row(8, "mid-market", country="FR")),
            _report((2026, 2), _row(9, "smb", country="GB"), _row(10, "mid-market", kind="typo", country="DE"),
                    _row(11, "smb", kind="prospect", country="NL"))]


def _new(**change: dict) -> dict:
    rows = [_row(20, "mid-market", country="GB"), _row(21, "mid-market", country="GB"),
            _row(22, "enterprise", country="DE", credit=150_000), _row(23, "smb", kind="typo", country="NL"),
            _row(24, "smb", kind="prospect", country="FR")]
    return {**audit.facts((2026, 3), rows), "cc": True, **change}


def test_earlier_reports_that_only_the_enterprise_row_explains_are_accepted():
    audit.check_copy_convention(_earlier(), _new())


def test_earlier_reports_that_a_country_explains_as_well_are_refused_naming_the_reading():
    earlier = _earlier()
    # both copied reports now correct a Dutch customer, no uncopied one does, and the new check none either
    earlier[0] = _report((2025, 10), _row(1, "enterprise", kind="typo", country="GB", credit=90_000),
                         _row(2, "smb", kind="prospect", country="NL"))
    earlier[2] = _report((2025, 12), _row(5, "smb", country="BE"), _row(6, "mid-market", country="FR"))
    earlier[4] = _report((2026, 2), _row(9, "smb", country="GB"), _row(10, "mid-market", kind="typo", country="DE"),
                         _row(11, "smb", kind="prospect", country="BE"))
    rows = [_row(20, "mid-market", country="GB"), _row(21, "mid-market", country="GB"),
            _row(22, "enterprise", country="DE", credit=150_000), _row(23, "smb", kind="typo", country="BE"),
            _row(24, "smb", kind="prospect", country="FR")]
    audit.check_copy_convention(_earlier(), _new())
    with pytest.raises(ValueError, match="customer in NL"):
        audit.check_copy_convention(earlier, {**audit.facts((2026, 3), rows), "cc": True})


def test_copied_reports_that_all_came_before_the_uncopied_ones_are_refused_as_a_habit_dropped_since():
    earlier = _earlier()
    # the same five reports, the two copied ones now October's and November's, the uncopied ones after them
    moved = [earlier[0], earlier[3], earlier[1], earlier[2], earlier[4]]
    for e, period in zip(moved, audit.PAST, strict=True):
        e.update({k: v for k, v in audit.facts(period, [_row(0, "smb")]).items()
                  if k in ("period", "month", "quarter_end", "new_year")})
    with pytest.raises(ValueError, match="no more since"):
        audit.check_copy_convention(moved, _new())


def test_a_report_breaking_the_habit_is_refused():
    earlier = _earlier()
    earlier[4]["cc"] = True
    with pytest.raises(ValueError, match="breaks the habit"):
        audit.check_copy_convention(earlier, _new())


def test_copied_reports_that_are_a_majority_are_refused():
    earlier = _earlier()
    for e in earlier[1:3]:
        e["enterprise"] = e["cc"] = True
    with pytest.raises(ValueError, match="not a minority"):
        audit.check_copy_convention(earlier, _new())


def test_a_new_check_that_corrects_no_enterprise_row_is_refused():
    with pytest.raises(ValueError, match="no enterprise"):
        audit.check_copy_convention(_earlier(), _new(enterprise=False))


def _cases() -> list[dict]:
    doc = json.loads((OUT_DIR / f"{audit.ID}.json").read_text(encoding="utf-8"))
    return doc["params"]["case"]["choice"]


def _reports(case: dict) -> list[dict]:
    return [op["value"] for op in case["gmail_patch"]]


def test_every_case_copies_the_head_on_exactly_the_earlier_reports_correcting_an_enterprise_customer():
    for case in _cases():
        segment = {r["id"]: r["segment"] for r in pg_rows(case["seed"], "customers")}
        reports = _reports(case)
        assert len(reports) == len(audit.PAST), case["seed"]
        copied = [bool(m["cc"]) for m in reports]
        assert {c for m in reports for c in m["cc"]} == {case["head"]}, case["seed"]
        assert audit.CC_FLAGGED[0] <= sum(copied) <= audit.CC_FLAGGED[1], case["seed"]
        for m, cc in zip(reports, copied, strict=True):
            ids = [int(i) for i in re.findall(r"\(customer (\d+)\)", m["body"])]
            assert ids and m["to"] == [case["controller"]], case["seed"]
            assert cc == any(segment[i] == "enterprise" for i in ids), (case["seed"], m["subject"])


def test_every_case_requires_the_new_report_to_copy_the_head_and_the_report_without_the_copy_is_a_wrong_solution():
    for case in _cases():
        report = case["reference"][-1]
        assert report["tool"] == "gmail__send_email", case["seed"]
        assert report["arguments"]["to"] == [case["controller"]] and report["arguments"]["cc"] == [case["head"]]
        allowed = [f for f in case["frame"] if f["entity"] == "gmail.message"]
        assert allowed == [{"entity": "gmail.message", "change": ["create"],
                            "where": {"to": [case["controller"]], "cc": [case["head"]]}, "max": 1}], case["seed"]
        bare = [w for w in case["wrong"] if w["calls"] and w["calls"][-1]["tool"] == "gmail__send_email"
                and "cc" not in w["calls"][-1]["arguments"] and w["calls"][-1]["arguments"]["to"] == [case["controller"]]]
        assert len(bare) == 1 and bare[0]["calls"][:-1] == case["reference"][-len(bare[0]["calls"]):-1], case["seed"]


def test_which_earlier_reports_are_copied_varies_and_the_most_recent_one_is_copied_in_about_half_the_cases():
    cases = _cases()
    patterns = {tuple(bool(m["cc"]) for m in _reports(c)) for c in cases}
    recent = sum(bool(_reports(c)[-1]["cc"]) for c in cases)
    assert len(patterns) >= len(cases) // 2
    assert len(cases) // 3 <= recent <= len(cases) - len(cases) // 3


def test_a_search_result_does_not_carry_the_copy_and_the_opened_report_does():
    case = _cases()[0]
    gmail = world("gmail", case["seed"])
    reports = _reports(case)
    tools = GmailTools(GmailState.model_validate({**gmail, "messages": [*gmail["messages"], *reports]}))
    found = tools.search_emails(query=audit.SEARCH, maxResults=20)["messages"]
    assert {m["id"] for m in found} == {m["id"] for m in reports}
    assert case["head"] not in json.dumps(found)
    copied = [m for m in reports if m["cc"]]
    assert copied and all(tools.read_email(m["id"])["cc"] == [case["head"]] for m in copied)
    assert all(tools.read_email(m["id"])["cc"] == [] for m in reports if not m["cc"])
