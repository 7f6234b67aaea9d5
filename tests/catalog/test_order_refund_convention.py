"""x-t-order-refund-requests' habit that only opening the earlier answers shows: Priya's answer to an enterprise
customer's refund request (the order database's segment) copies the Head of Customer Success. The module
refuses a draw of earlier requests that leaves another reading open, and every committed case shows the copy
on two of the six February answers, exactly the enterprise customers', nowhere a search result would show it,
and requires it on this month's enterprise customers' answers: the reference without the copy leaves the
frame, the reference copying her on every answer does not."""

from __future__ import annotations

import json
from datetime import date

import anyio
import pytest

from servers.gmail.state import GmailState
from servers.gmail.tools import GmailTools
from tasks_catalog.authoring.cross import OUT_DIR, org
from tasks_catalog.authoring.cross import x_t_order_refund_requests as refunds
from tasks_catalog.frames import frame_violations
from tasks_catalog.predicates import evaluate
from tasks_catalog.replay import dumped, replay
from tasks_catalog.schema import ToolCall
from tasks_catalog.templates import instantiate, load_template

PATH = OUT_DIR / f"{refunds.ID}.json"


def _request(segment: str, kind: str, country: str, method: str, reason: str, money: tuple[float, float],
             day: int, owner: str = "e090") -> dict:
    (amount, credit) = money
    size = {"smb": 1, "mid-market": 3, "enterprise": 9}[segment]
    return {"segment": segment, "rank": refunds.RANK[segment], "kind": kind, "country": country, "region": "EMEA",
            "owner_key": owner, "arr": size * 10_000, "seats": size * 20, "method": method,
            "reason": reason, "amount": amount, "credit": credit, "day": date(2026, 2, day).toordinal(),
            "cc": segment == "enterprise"}


def _earlier() -> list[dict]:
    """Two enterprise answers copied; four others not, sharing every outcome, country, account owner, method,
    complaint of a copied one, one of them mid-market, amounts, credit limits and dates interleaved."""
    return [_request("enterprise", "refund", "DE", "card", "damaged in transit", (300.0, 20000.0), 10, "e081"),
            _request("enterprise", "late", "FR", "wire", "late delivery", (9000.0, 50000.0), 20, "e082"),
            _request("smb", "refund", "DE", "wire", "damaged in transit", (450.0, 50000.0), 24, "e081"),
            _request("mid-market", "late", "FR", "card", "late delivery", (200.0, 5000.0), 5, "e082"),
            _request("smb", "done", "PT", "card", "wrong item shipped", (120.0, 100000.0), 16),
            _request("smb", "refund", "GB", "sepa_debit", "damaged in transit", (12000.0, 20000.0), 3)]


def _new() -> list[dict]:
    return [_request("enterprise", "refund", "PT", "card", "late delivery", (250.0, 10000.0), 27),
            _request("mid-market", "late", "DE", "wire", "damaged in transit", (5000.0, 20000.0), 27),
            _request("smb", "done", "FR", "card", "wrong item shipped", (800.0, 5000.0), 27)]


def test_earlier_answers_that_only_the_segment_explains_are_accepted():
    refunds.check_convention(_earlier(), _new())


def test_earlier_answers_that_the_outcome_explains_as_well_are_refused_naming_the_reading():
    earlier = _earlier()
    earlier[0]["kind"], earlier[3]["kind"] = "late", "done"  # both copied answers refuse as too late, no other does
    with pytest.raises(ValueError, match="by the outcome"):
        refunds.check_convention(earlier, _new())


def test_earlier_answers_without_a_mid_market_customer_leave_from_mid_market_up_open():
    earlier = _earlier()
    earlier[3]["segment"], earlier[3]["rank"] = "smb", 0
    with pytest.raises(ValueError, match="from the mid-market segment up"):
        refunds.check_convention(earlier, _new())


def test_copies_only_on_the_latest_answers_are_refused_as_a_habit_that_started_lately():
    earlier = _earlier()
    earlier[2]["day"] = earlier[4]["day"] = earlier[0]["day"] - 1  # every copied answer now later than every other
    with pytest.raises(ValueError, match="the latest requests"):
        refunds.check_convention(earlier, _new())


def test_an_enterprise_answer_left_uncopied_is_refused():
    earlier = _earlier()
    earlier[2]["segment"] = "enterprise"
    with pytest.raises(ValueError, match="do not show"):
        refunds.check_convention(earlier, _new())


def _doc() -> dict:
    return json.loads(PATH.read_text(encoding="utf-8"))


def test_every_case_copies_the_head_of_customer_success_on_exactly_the_earlier_enterprise_answers():
    doc = _doc()
    assert doc["version"] == 3 and "the way we have answered these requests before" in doc["task"]["goal"]
    cases = doc["params"]["case"]["choice"]
    assert len(cases) >= 8
    for case in cases:
        head = next(e.email for e in org(case["seed"]).employees if e.title == refunds.HEAD)
        assert case["head"] == head, case["seed"]
        messages = [op["value"] for op in case["patch"]["gmail"]]
        answers = [m for m in messages if m["label_ids"] == ["SENT"]]
        assert len(answers) == refunds.EXAMPLES, case["seed"]
        segment = {}
        for m in messages:
            assert m["date"] < "2026-03-16T09:00:00Z", case["seed"]
        for row in json.loads(json.dumps(case["reference"])):
            if row["tool"] == "postgres__query" and "c.country" in row["arguments"]["sql"]:
                segment = _segments(case["seed"], row["arguments"]["sql"])
        copied = [a for a in answers if a["cc"]]
        assert len(copied) == refunds.COPIED and all(a["cc"] == [head] for a in copied), case["seed"]
        for a in answers:
            order = int(a["subject"].rsplit(" ", 1)[1])
            assert bool(a["cc"]) == (segment[order] == "enterprise"), (case["seed"], order)
            assert head not in a["body"] and "Customer Success" not in a["body"], case["seed"]
        # this month's enterprise requesters' answers may only be sent copying her
        by_to = {f["where"]["to"][0]: f["where"].get("cc") for f in case["frame_all"]
                 if f["entity"] == "gmail.message" and f.get("change") == ["create"]}
        sent = [c["arguments"] for c in case["reference"] if c["tool"] == "gmail__send_email"]
        assert any("cc" in s for s in sent) and any("cc" not in s for s in sent), case["seed"]
        for s in sent:
            assert by_to[s["to"][0]] == s.get("cc"), case["seed"]
        # the reference opens every earlier thread
        opened = {c["arguments"]["threadId"] for c in case["reference"] if c["tool"] == "gmail__get_thread"}
        assert opened == {a["thread_id"] for a in answers}, case["seed"]
        assert len(case["reference"]) <= 24, case["seed"]


def _segments(seed: int, sql: str) -> dict[int, str]:
    """The segment of each earlier order the reference looks up, from the order database."""
    from tasks_catalog.authoring.cross._x_t_data import pg_rows
    ids = {int(i) for i in sql.split("IN (")[1].split(")")[0].split(", ")}
    customers = {r["id"]: r["segment"] for r in pg_rows(seed, "customers")}
    return {o["id"]: customers[o["customer_id"]] for o in pg_rows(seed, "orders") if o["id"] in ids}


def test_which_earlier_answers_are_copied_varies_and_the_most_recent_is_copied_in_about_half_the_cases():
    cases = _doc()["params"]["case"]["choice"]
    latest = 0
    patterns = set()
    for case in cases:
        answers = sorted((op["value"] for op in case["patch"]["gmail"] if op["value"]["label_ids"] == ["SENT"]),
                         key=lambda m: m["date"])
        pattern = tuple(bool(m["cc"]) for m in answers)
        patterns.add(pattern)
        latest += pattern[-1]
    assert len(patterns) >= 3, patterns
    assert 0.3 * len(cases) <= latest <= 0.7 * len(cases), (latest, len(cases))


def test_a_search_result_does_not_carry_the_copy_and_the_opened_thread_does():
    case = _doc()["params"]["case"]["choice"][0]
    messages = [op["value"] for op in case["patch"]["gmail"]]
    state = GmailState.model_validate({"address": refunds.MAILBOX, "now": "2026-03-16T09:00:00Z", "labels": [],
                                       "messages": messages, "drafts": []})
    tools = GmailTools(state)
    found = tools.search_emails(query="refund", maxResults=50)["messages"]
    copied = [m for m in messages if m["cc"]]
    assert len(copied) == refunds.COPIED and {m["id"] for m in copied} <= {m["id"] for m in found}
    assert case["head"] not in json.dumps(found)
    assert all(tools.get_thread(m["thread_id"])["messages"][-1]["cc"] == [case["head"]] for m in copied)


def _judged(calls: list[dict]) -> tuple[bool, list]:
    template = load_template(PATH)
    case = template.params["case"].choice[0]
    task = instantiate(template, {"case": case}, task_id=f"{refunds.ID}-test", nonce="5f0c3a9e17b24d68a1e9c07b3d5f2864")
    done = anyio.run(lambda: replay(task, [ToolCall.model_validate(c) for c in calls], faults=True, at_start=dumped))
    assert not done.errors, done.errors
    frame = [a.model_dump(mode="json", exclude_none=True) for a in task.frame]
    return evaluate(task.success, done.state), frame_violations(task.scope, frame, done.initial, dumped(done.state))


def test_the_reference_without_the_copy_leaves_the_frame_and_copying_her_on_every_answer_does_not():
    case = _doc()["params"]["case"]["choice"][0]
    sampler = next(w for w in case["wrong"] if "without copying anyone" in w["why"])
    passes, outside = _judged(sampler["calls"])
    assert passes and outside and all(v.change.entity == "gmail.message" for v in outside), outside
    passes, outside = _judged(case["over"])
    assert passes and not outside, outside
    passes, outside = _judged(case["reference"])
    assert passes and not outside, outside
