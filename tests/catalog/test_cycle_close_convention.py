"""x-t-eng-cycle-close's unwritten habit: the past close-outs' carried issues show, when opened, that one
whose pull request was still open got a comment linking it; the module refuses examples that leave another
reading open, and every case asks for the habit on its own carried issues."""

from __future__ import annotations

import json
import re

import pytest

from tasks_catalog.authoring.cross import OUT_DIR
from tasks_catalog.authoring.cross.x_t_eng_cycle_close import ALTERNATIVES, ID, _check_convention


def _example(iid: str, *, open_pr: bool, repo: str | None = None, customer: bool = False, key: bool = False,
             priority: int = 3, commented: bool | None = None) -> dict:
    return {"id": iid, "open_pr": open_pr, "repo": repo, "customer": customer, "key": key, "priority": priority,
            "commented": open_pr if commented is None else commented}


def _varied() -> list[dict]:
    return [
        _example("ENG-1", open_pr=True, repo="route-planner", priority=4),
        _example("ENG-2", open_pr=True, repo="platform-services", priority=2),
        _example("ENG-3", open_pr=False, customer=True, key=True, priority=1),
        _example("ENG-4", open_pr=False, priority=3),
    ]


def test_varied_examples_that_follow_the_habit_pass_the_check():
    _check_convention(_varied())


def test_an_example_that_breaks_the_habit_is_named():
    examples = [*_varied(), _example("ENG-5", open_pr=True, repo="route-planner", commented=False)]
    with pytest.raises(ValueError, match="ENG-5"):
        _check_convention(examples)


def test_examples_that_leave_a_reading_open_are_refused_naming_it():
    # only issues with an open pull request: nothing shows that the others get no comment
    examples = [e for e in _varied() if e["open_pr"]]
    with pytest.raises(ValueError, match="a comment on every carried issue"):
        _check_convention(examples)
    one_repo = [e for e in _varied() if e["repo"] != "platform-services"]
    with pytest.raises(ValueError, match="only pull requests in route-planner"):
        _check_convention(one_repo)


def test_every_case_shows_the_habit_in_a_minority_of_opened_examples_and_asks_it_of_the_open_pull_requests():
    template = json.loads((OUT_DIR / f"{ID}.json").read_text())
    habit = re.compile(r"^Carried into cycle \d+: \S+#\d+ is still open")
    for case in template["params"]["case"]["choice"]:
        examples = [op["value"] for op in case["linear_patch"] if op["op"] == "add" and op["value"]["state"] == "Done"]
        shown = [e for e in examples if any(habit.match(c["body"]) for c in e["comments"])]
        assert len(examples) >= 12 and 2 <= len(shown) <= 5, case["seed"]
        opened = {c["arguments"]["id"] for c in case["reference"] if c["tool"] == "linear__get_issue"}
        assert {e["id"] for e in examples} <= opened, case["seed"]
        asked = [s["linear.issueHasComment"]["issue"] for s in case["success"] if "linear.issueHasComment" in s]
        carried_with_pr = [c["arguments"]["issueId"] for c in case["reference"]
                           if c["tool"] == "linear__create_comment" and habit.match(c["arguments"]["body"])]
        assert len(carried_with_pr) >= 2 and set(carried_with_pr) <= set(asked), case["seed"]
        unseen = next(w for w in case["wrongs"] if "no comment on carried issues" in w["why"])
        assert not any(c["tool"] == "linear__create_comment" and habit.match(c["arguments"]["body"])
                       for c in unseen["calls"]), case["seed"]
    assert len(ALTERNATIVES) >= 6
