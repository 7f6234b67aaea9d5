"""The acceptance gate on cross-server tasks: each reference is replayed through every server's real MCP
server (faults injected on the server they name), predicates and frames are judged across servers by
both verifiers, and the measured numbers count every server's calls."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner

from mcpbench.cli import main
from servers import get_spec
from tasks_catalog import ts_verifier
from tasks_catalog.gate import dumped, replay, validate_paths
from tasks_catalog.predicates import evaluate
from tasks_catalog.schema import CROSS_SERVER, Task
from tasks_catalog.stats import level, measure, shortfalls

ROOT = Path(__file__).resolve().parents[2]
CROSS = ROOT / "tests" / "cross_server_tasks"


def _doc(name: str) -> dict[str, Any]:
    return json.loads((CROSS / f"{name}.json").read_text(encoding="utf-8"))


def _gate(tmp_path: Path, doc: dict[str, Any], **verifiers) -> list[str]:
    path = tmp_path / f"{doc['id']}.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    (result,), total = validate_paths([path], **verifiers)
    assert total == 1 and result.task_id == doc["id"]
    return result.reasons


def test_every_example_cross_server_task_passes_the_gate_with_both_verifiers(ts_cli):
    result = CliRunner().invoke(main, ["tasks", "validate", str(CROSS)])
    assert result.exit_code == 0, result.output
    assert "4 valid, 0 failed, 4 tasks (verifiers: python + typescript)" in result.output


def test_the_reference_is_replayed_on_each_servers_own_backend():
    task = Task.model_validate(_doc("x-close-fixed-bug"))
    done = anyio.run(replay, task, task.reference_solution)
    assert done.errors == [] and set(done.state) == {"github", "linear", "slack"}
    assert done.state["linear"].issues[0].state == "Done"
    assert done.state["github"].repos[0].issues[0].state == "closed"
    assert done.state["github"].repos[1].issues[0].state == "open"  # the lookalike repository's #17 untouched
    assert [m.text for m in done.state["slack"].channels[0].messages] == [task.reference_solution[2].arguments["text"]]
    assert evaluate(task.success, done.state) is True
    assert set(dumped(done.state)) == {"github", "linear", "slack"}


def test_a_fault_on_one_server_is_met_there_and_costs_the_reference_a_retry():
    task = Task.model_validate(_doc("x-refund-duplicate-and-report"))
    done = anyio.run(lambda: replay(task, task.reference_solution, faults=True))
    assert done.errors == [] and done.steps == len(task.reference_solution) + 1
    assert [r.charge for r in done.state["stripe"].refunds] == ["ch_LumenCat2"]


def test_a_budget_with_no_room_for_the_fault_fails_naming_the_calls(tmp_path):
    doc = _doc("x-refund-duplicate-and-report")
    doc["max_steps"] = 3
    reasons = _gate(tmp_path, doc)
    assert "max_steps 3 leaves no room for the faults: the reference solution with its faults injected takes 4 calls, " \
           "retries included" in reasons


def test_a_reference_that_does_the_write_in_the_wrong_server_fails_on_the_predicate_and_the_frame(tmp_path):
    doc = _doc("x-release-note-in-slack")
    doc["reference_solution"][-1] = {"tool": "gmail__send_email", "arguments": {
        "to": ["kenji.ito@kestrelfreight.com"], "subject": "Release 4.19.0", "body": "Release 4.19.0 notes"}}
    reasons = _gate(tmp_path, doc)
    assert "predicate is false after the reference solution; it must be true" in reasons
    assert any(r.startswith("the reference solution leaves the frame: gmail.message ") for r in reasons), reasons


def test_a_wrong_solution_that_passes_across_servers_is_refused(tmp_path):
    doc = _doc("x-close-fixed-bug")
    doc["wrong_solutions"].append({"why": "is the reference itself", "kind": "other",
                                   "calls": copy.deepcopy(doc["reference_solution"])})
    reasons = _gate(tmp_path, doc)
    assert reasons == ["wrong solution 4 (is the reference itself) passes: the predicate is true and the frame holds"]


def test_a_cross_server_tasks_alternative_solutions_are_replayed_and_judged_whole_by_both_verifiers(tmp_path, ts_cli):
    doc = _doc("x-release-note-in-slack")
    search, read, post = doc["reference_solution"]
    doc["alternative_solutions"] = [
        {"why": "lists the channels first", "calls": [search, read, {"tool": "slack__list_channels", "arguments": {}},
                                                      post]},
        {"why": "also mails the note back", "calls": [search, read, post, {"tool": "gmail__send_email", "arguments": {
            "to": ["kenji.ito@kestrelfreight.com"], "subject": "Re: 4.19.0", "body": "Posted in #releases."}}]},
        {"why": "posts it twice", "calls": [search, read, post, post]},
    ]
    path = tmp_path / f"{doc['id']}.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    (result,), _ = validate_paths([path], extra=ts_verifier.evaluate_many, extra_frames=ts_verifier.frame_violations_many)
    outcomes = {p["probe"]: p["outcome"] for p in result.probes}
    assert outcomes == {"alternative:1": "held", "alternative:2": "missed", "alternative:3": "missed"}
    assert any(r.startswith("probe alternative:2 (also mails the note back) fails, though it does what the goal asks: "
                            "the frame refuses gmail.message ") for r in result.reasons), result.reasons
    assert any(r.startswith("probe alternative:3 (posts it twice) fails, though it does what the goal asks: the frame "
                            "refuses slack.message ") for r in result.reasons), result.reasons
    assert not any("disagree" in r for r in result.reasons), result.reasons


def test_a_collateral_wrong_solution_must_break_the_frame_on_some_server(tmp_path):
    doc = _doc("x-close-fixed-bug")
    collateral = next(w for w in doc["wrong_solutions"] if w["kind"] == "collateral")
    collateral["calls"] = collateral["calls"][:2] + collateral["calls"][3:]  # leaves out its damage
    collateral["calls"][1] = {"tool": "linear__update_issue", "arguments": {"id": "ENG-142", "state": "In Progress"}}
    reasons = _gate(tmp_path, doc)
    assert any("is marked collateral, so the predicate's positive part must hold and the frame must break" in r
               for r in reasons), reasons


def test_the_gate_fails_a_cross_server_task_when_the_second_verifier_disagrees(tmp_path):
    def inverse(cases):
        out = []
        for servers, state, pred in cases:
            assert isinstance(servers, tuple) and set(state) == set(servers)
            loaded = {s: get_spec(s).state_model.load(state[s]) for s in servers}
            out.append(not evaluate(pred, loaded))
        return out

    reasons = _gate(tmp_path, _doc("x-incident-handover"), extra=inverse)
    assert any(r.startswith("verifiers disagree on the initial state: python False, typescript True") for r in reasons)


def test_the_gate_fails_a_cross_server_task_when_the_frame_judges_disagree(tmp_path, ts_cli):
    def blind_to_slack(cases):
        return ts_verifier.frame_violations_many(cases, break_kind="slack.message")

    reasons = _gate(tmp_path, _doc("x-incident-handover"), extra_frames=blind_to_slack)
    assert any(r.startswith("verifiers disagree on the frame after wrong solution 2") for r in reasons), reasons


def test_a_cross_server_task_on_a_world_is_held_to_its_measured_difficulty(tmp_path):
    doc = _doc("x-incident-handover")
    doc["difficulty"] = "hard"
    for user in doc["initial_state"]["slack"]["users"]:
        user["name"] += ".kfs"  # handles of their own beside the world's
    doc["initial_state"]["slack"] = {"world": {"generator": "slack", "version": 1, "seed": 1, "size": "small"},
                                     "patch": [{"op": "add", "in": ["users"], "value": u}
                                               for u in doc["initial_state"]["slack"]["users"]]
                                              + [{"op": "add", "in": ["channels"], "value": c}
                                                 for c in doc["initial_state"]["slack"]["channels"]
                                                 if c["name"] != "general"]}
    reasons = _gate(tmp_path, doc)
    assert any(r.startswith("x-incident-handover is declared hard but measures easy: hard (cross-server) needs 25-60 "
                            "reference calls, the reference makes 4") for r in reasons), reasons


def test_a_cross_server_task_is_held_to_the_longer_levels_of_work_across_servers():
    # 12 calls is hard on one server; across servers it is medium (5-24), and hard begins at 25 (issue 33)
    assert level(12, 3, True, 1) == "hard" and level(12, 3, True, 1, cross_server=True) == "medium"
    assert level(24, 3, True, 1, cross_server=True) == "medium" and level(25, 3, True, 1, cross_server=True) == "hard"
    assert level(60, 3, True, 1, cross_server=True) == "hard" and level(61, 3, True, 1, cross_server=True) == "unrated"
    assert level(25, 2, False, 1, cross_server=True) == "unrated" and level(25, 0, True, 0, cross_server=True) == "unrated"
    assert level(4, 0, False, 0, cross_server=True) == "easy" and level(5, 0, False, 0, cross_server=True) == "unrated"
    stats = measure(Task.model_validate(_doc("x-incident-handover")))
    hard = dataclasses.replace(stats, difficulty="hard", reference_calls=20, discovery_reads=3, traps=1)
    assert shortfalls(hard) == ["hard (cross-server) needs 25-60 reference calls, the reference makes 20"]
    assert shortfalls(dataclasses.replace(hard, reference_calls=25)) == []
    assert shortfalls(dataclasses.replace(hard, difficulty="medium")) == []
    assert shortfalls(dataclasses.replace(hard, cross_server=False)) == []  # one server: hard from 11 calls


def test_stats_count_every_servers_calls_and_reads_by_each_servers_own_marks():
    stats = measure(Task.model_validate(_doc("x-incident-handover")))
    assert (stats.server, stats.reference_calls, stats.discovery_reads, stats.measured) == (CROSS_SERVER, 4, 2, "easy")
    assert stats.world == "linear: inline (0.7 KB); slack: inline (0.7 KB)"
    paged = measure(Task.model_validate(_doc("x-release-note-in-slack")))
    assert paged.discovery_reads == 2 and paged.paginated_search  # gmail__search_emails: a search, by its own name


@pytest.mark.parametrize("name", ["x-incident-handover", "x-close-fixed-bug"])
def test_stats_of_a_cross_server_task_on_worlds_label_each_servers_world(name):
    doc = _doc(name)
    server = doc["servers"][-1]
    doc["initial_state"][server] = {"world": {"generator": server, "version": 1, "seed": 1, "size": "small"}}
    stats = measure(Task.model_validate(doc))
    assert f"{server}: {server} v1 seed 1 small + 0 patch ops" in stats.world
    assert stats.world_size and all(key.startswith(f"{server}.") for key in stats.world_size)
