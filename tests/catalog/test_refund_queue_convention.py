"""x-t-refund-request-queue's habit that only opening the earlier answers shows: an answer to an At-risk
account (the CRM's Status) copies the Head of Customer Success. The module refuses a draw of earlier
answers that leaves another reading open, and every committed case shows the copy in a minority of the
earlier answers, exactly those of At-risk accounts, and nowhere a search result would show it."""

from __future__ import annotations

import json

import pytest

from tasks_catalog.authoring.cross import OUT_DIR
from tasks_catalog.authoring.cross import x_t_refund_request_queue as refunds

HEAD = "head.cs@kestrelfreight.com"


def _answer(name: str, status: str, plan: str, owner: str, *, amount: int = 10_000, arr: int = 50_000,
            outcome: str = "granted") -> dict:
    return {"name": name, "status": status, "plan": plan, "region": "EMEA", "owner": owner, "currency": "eur",
            "outcome": outcome, "charge_kind": "January", "active": status == "Active", "amount": amount,
            "arr": arr, "asked_month": "2026-02", "cc": [HEAD] if status == refunds.AT_RISK else []}


def _earlier(plan_of_at_risk: str) -> list[dict]:
    at_risk = [_answer(f"Risky {n}", refunds.AT_RISK, plan_of_at_risk, f"o{n}@k.com", amount=5_000 * n)
               for n in (1, 2, 3)]
    others = [_answer(f"Calm {n}", "Active", "Growth" if n % 2 else "Scale", f"o{n % 4}@k.com", amount=4_000 * n,
                      arr=20_000 * n, outcome="refused" if n < 3 else "granted") for n in range(1, 12)]
    return at_risk + others


def _new() -> list[dict]:
    return [_answer("New at risk", refunds.AT_RISK, "Enterprise", "o1@k.com", amount=12_000),
            _answer("New calm", "Active", "Enterprise", "o2@k.com", amount=9_000, outcome="refused")]


def test_earlier_answers_that_a_plan_explains_as_well_as_the_status_are_refused_naming_the_reading():
    with pytest.raises(ValueError, match="by the account's plan"):
        refunds.check_copy_convention(_earlier("Enterprise"), _new())


def test_earlier_answers_that_only_the_status_explains_are_accepted():
    earlier = _earlier("Growth")
    earlier[3]["plan"] = "Enterprise"  # an Enterprise account's answer without the copy rules out the plan
    refunds.check_copy_convention(earlier, _new())


def test_an_earlier_answer_that_breaks_the_habit_is_refused():
    earlier = _earlier("Growth")
    earlier[3]["cc"] = [HEAD]
    with pytest.raises(ValueError, match="does not follow the habit"):
        refunds.check_copy_convention(earlier, _new())


def _statuses(case: dict) -> dict[str, str]:
    """CRM row id -> Status after the case's Notion patch (only the planted At-risk rows change)."""
    return {op["id"]: op["fields"]["properties"]["Status"] for op in case["notion_patch"] if op["op"] == "update"}


def test_every_case_copies_the_head_on_the_earlier_answers_of_at_risk_accounts_only_and_on_a_minority():
    doc = json.loads((OUT_DIR / "x-t-refund-request-queue.json").read_text(encoding="utf-8"))
    for case in doc["params"]["case"]["choice"]:
        messages = [op["value"] for op in case["gmail_patch"] if op["in"] == ["messages"]]
        answers = [m for m in messages if m["label_ids"] == ["SENT"]]
        requests = {m["id"]: m for m in messages if refunds.LABEL["id"] in m["label_ids"]}
        copied = [a for a in answers if a["cc"]]
        assert len(answers) == refunds.PAST and 2 <= len(copied) <= 5, case["seed"]
        assert len({tuple(a["cc"]) for a in copied}) == 1, case["seed"]  # one person, the same each time
        at_risk_rows = set(_statuses(case))
        # the planted at-risk rows are those of the copied earlier answers and of the two refunded new ones,
        # each with its Account plan page's "Status: ..." sentence saying the same (one status in Notion)
        assert len(at_risk_rows) == len(copied) + 2, case["seed"]
        plans = [op["value"]["text"] for op in case["notion_patch"] if op["op"] == "replace"]
        assert len(plans) == len(at_risk_rows) and all("Status: At risk." in t for t in plans), case["seed"]
        # a search result (snippet of the body) never shows the copy: only the opened answer's cc does
        assert all(a["thread_id"] in requests and a["cc"][0] not in a["body"] for a in copied), case["seed"]
        # the new answers the frame allows: the head copied on exactly two customers' answers
        heads = {tuple(f["where"]["cc"]) for f in case["frame"]
                 if f.get("entity") == "gmail.message" and "cc" in f.get("where", {})}
        assert (copied[0]["cc"][0],) in heads and () in heads, case["seed"]
