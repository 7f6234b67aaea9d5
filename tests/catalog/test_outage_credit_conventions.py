"""x-t-outage-credit-asks' unwritten habit: the past answers copy the Sales director, North America exactly for
North American customers, only a minority of them, and the case's judgement holds this month's answers to it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from servers.gmail.state import GmailState
from servers.gmail.tools import GmailTools
from servers.kit.world import load_world
from tasks_catalog.authoring.cross._x_t_outage_credits import REGION, convention_holds

TEMPLATE = Path(__file__).resolve().parents[2] / "tasks_catalog/templates/cross-server/x-t-outage-credit-asks.json"


@pytest.fixture(scope="module")
def template_cases() -> list[dict]:
    return json.loads(TEMPLATE.read_text(encoding="utf-8"))["params"]["case"]["choice"]


def _past_answers(case: dict) -> list[dict]:
    return [p["value"] for p in case["gmail_patch"]
            if p["value"]["label_ids"] == ["SENT"] and p["value"]["date"] < "2026-03-01"]


def test_every_case_copies_the_director_on_a_minority_of_at_least_ten_past_answers(template_cases):
    assert len(template_cases) >= 8
    for case in template_cases:
        answers = _past_answers(case)
        copied = [a for a in answers if len(a["cc"]) == 2]
        assert len(answers) >= 10, case["seed"]
        assert 2 <= len(copied) <= 5, case["seed"]
        directors = {a["cc"][1] for a in copied}
        assert len(directors) == 1, case["seed"]
        assert all(directors.isdisjoint(a["cc"]) for a in answers if a not in copied), case["seed"]


def test_the_copy_is_in_no_search_result_only_in_the_opened_thread(template_cases):
    case = template_cases[0]
    world = {"generator": "gmail", "version": 2, "seed": case["seed"], "size": "default"}
    tools = GmailTools(load_world(GmailState, {"world": world, "patch": case["gmail_patch"]}))
    found = tools.search_emails(query='in:sent "service credit" before:2026/03/01', maxResults=50)["messages"]
    answers = _past_answers(case)
    assert {m["id"] for m in found} >= {a["id"] for a in answers}
    assert not any("cc" in m for m in found)
    copied = next(a for a in answers if len(a["cc"]) == 2)
    opened = tools.get_thread(threadId=copied["thread_id"])["messages"]
    assert next(m for m in opened if m["id"] == copied["id"])["cc"] == copied["cc"]


def test_this_months_answers_must_copy_the_director_exactly_for_north_american_customers(template_cases):
    for case in template_cases:
        sends = [c["arguments"] for c in case["reference"] if c["tool"] == "gmail__send_email"]
        director = next(a["cc"][1] for a in _past_answers(case) if len(a["cc"]) == 2)
        copied = [s for s in sends if director in s.get("cc", [])]
        assert 2 <= len(copied) < len(sends), case["seed"]
        allowances = {tuple(a["where"]["to"]): a["values"]["cc"]["in"] for a in case["frame"]
                      if a["entity"] == "gmail.message" and "values" in a}
        for s in sends:
            allowed = allowances[tuple(s["to"])]
            assert s.get("cc", []) in allowed, case["seed"]
            assert all((director in cc) == (s in copied) for cc in allowed), case["seed"]
        no_copy = next(w for w in case["wrongs"] if "copies nobody" in w["why"])
        assert not any(c["arguments"].get("cc") for c in no_copy["calls"] if c["tool"] == "gmail__send_email")


def _example(name: str, region: str, currency: str, copied: bool, incident: int = 1, outcome: str = "credited") -> dict:
    return {"name": name, "region": region, "currency": currency, "plan": "Enterprise", "stripe_plan": "enterprise",
            "tld": "com", "owner": "e1", "arr": 1000, "emea": region == "EMEA", "incident": incident,
            "severity": "SEV1", "outcome": outcome, "cc": ["owner@x", "director@x"] if copied else ["owner@x"]}


def test_a_case_is_refused_when_another_reading_fits_the_past_and_copies_this_month_otherwise():
    past = [_example("A", REGION, "usd", True, 1), _example("B", REGION, "cad", True, 2, "refused"),
            _example("C", "EMEA", "eur", False, 1, "refused"), _example("D", "APAC", "usd", False, 2)]
    for e, tld in zip(past, ("com", "ca", "de", "kr"), strict=True):
        e["tld"] = tld
    # every reading but the domain ending's is contradicted by an example (D: usd and outside EMEA, no copy; C:
    # the copied incident 1 and a refusal, no copy); "copy the .com and .ca domains" fits them all, and copies
    # a European customer's .com answer, which the convention does not
    european_com = {**_example("E", "EMEA", "eur", False), "tld": "com", "copied": False}
    assert convention_holds(past, [european_com]) is False
    european_de = {**european_com, "tld": "de"}
    american = {**_example("F", REGION, "usd", True), "tld": "com", "copied": True}
    assert convention_holds(past, [european_de, american]) is True


def test_a_past_answer_that_breaks_the_convention_is_an_error():
    with pytest.raises(ValueError, match="does not follow the convention"):
        convention_holds([_example("A", "EMEA", "eur", True)], [])


def test_a_case_is_refused_when_only_refusals_were_copied_and_a_north_american_credit_is_answered():
    past = [_example("A", REGION, "usd", True, 1, "refused"), _example("B", REGION, "cad", True, 2, "not_listed"),
            _example("C", "EMEA", "usd", False, 1, "refused"), _example("D", "APAC", "cad", False, 2)]
    for e, tld in zip(past, ("com", "ca", "com", "ca"), strict=True):
        e["tld"] = tld
    credited = {**_example("E", REGION, "usd", True), "outcome": "grant", "copied": True}
    refused = {**credited, "outcome": "none_unlisted"}
    # "copy a North American refusal" fits every copied answer: a North American credit this month is copied by
    # the convention and not by that reading, a North American refusal by both
    assert convention_holds(past, [credited]) is False
    assert convention_holds(past, [refused]) is True


def test_no_answer_can_be_left_out_as_each_answers_clause_is_false_on_the_initial_state():
    import anyio

    from tasks_catalog.authoring.template_check import every_case
    from tasks_catalog.predicates import evaluate
    from tasks_catalog.replay import replay
    from tasks_catalog.templates import load_template

    for task in every_case(load_template(TEMPLATE)):
        initial = anyio.run(replay, task, []).state
        clauses = [c for c in task.success["all"] if "gmail.draftSent" in c or "slack.messagePosted" in c]
        mailed = {c.arguments["to"][0] for c in task.reference_solution if c.tool == "gmail__send_email"}
        replies = [c for c in task.reference_solution if c.tool == "slack__reply_to_thread"]
        # one clause per emailed answer and one per reply in #cs-escalations, none of them met before the run
        assert len(clauses) == len(mailed) + len(replies) == len(set(map(str, clauses))), task.id
        assert [c for c in clauses if evaluate(c, initial)] == [], task.id
