"""The author's tools take cross-server tasks: a frame drafted from the reference spans every server it
changes, a collateral wrong solution is found on any server and named as the task names tools, the
lookalikes are judged across servers, and name-keyed guards are found on each server's state."""

from __future__ import annotations

import json
from pathlib import Path

from tasks_catalog.authoring.guards import find_guards
from tasks_catalog.authoring.propose import canonical, draft
from tasks_catalog.authoring.wrongs import collateral, is_collateral, lookalikes
from tasks_catalog.loader import load_task_file
from tasks_catalog.schema import Task

CROSS = Path(__file__).resolve().parents[1] / "cross_server_tasks"


def _task(name: str) -> Task:
    task, errors = load_task_file(CROSS / f"{name}.json")
    assert task is not None and errors == []
    return task


def test_a_drafted_frame_spans_every_server_the_reference_changes():
    task = _task("x-close-fixed-bug")
    drafted = draft(task)
    assert {a["entity"].split(".")[0] for a in drafted} == {"github", "linear", "slack"}
    assert canonical([{"change": ["update"], **a} for a in drafted]) == \
        canonical([a.model_dump(mode="json", exclude_none=True) for a in task.frame])


def test_a_collateral_wrong_solution_is_found_and_named_as_the_task_names_tools():
    task = _task("x-incident-handover")
    found = collateral(task)
    assert found is not None and found["kind"] == "collateral"
    assert all(task.route(c["tool"]) is not None for c in found["calls"])  # '<server>__<tool>' every one
    assert is_collateral(task, found["calls"][len(task.reference_solution):])


def test_lookalikes_are_judged_across_servers():
    task = _task("x-close-fixed-bug")
    found = lookalikes(task)
    assert [task.wrong_solutions[i].why for i in found] == [
        "closes issue #17 of booking-web, the lookalike repository", "does it all, then also moves ENG-143 to Done",
        "closes both issues of booking-api in GitHub, #19 too"]


def test_a_name_keyed_guard_is_found_on_its_own_servers_state_and_rewritten_by_id(tmp_path):
    doc = json.loads((CROSS / "x-release-note-in-slack.json").read_text(encoding="utf-8"))
    doc["success"]["all"][1]["not"]["slack.messagePosted"]["channel"] = "release-announce"
    path = tmp_path / "task.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    lines: list[str] = []
    assert find_guards([path], write=True, echo=lines.append) == 1
    assert "'release-announce' -> 'C02ANNOUNCE'" in lines[0]
    rewritten = json.loads(path.read_text(encoding="utf-8"))
    assert rewritten["success"]["all"][1]["not"]["slack.messagePosted"]["channel"] == "C02ANNOUNCE"
    assert find_guards([path], echo=lines.append) == 0
