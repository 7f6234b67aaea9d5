"""The gate asks the second verifiers about many tasks per call (a TypeScript process per call, not two
per task), and still pins every disagreement on the task and the state it was about."""

from __future__ import annotations

from pathlib import Path

import anyio

from servers import get_spec
from tasks_catalog import gate as gate_module
from tasks_catalog import ts_verifier
from tasks_catalog.gate import gate_tasks
from tasks_catalog.loader import load_tasks
from tasks_catalog.predicates import evaluate

DEV = Path(__file__).resolve().parents[2] / "tasks_catalog" / "dev"
#: the first dev task of each of three servers
SERVERS = ("calendar", "slack", "filesystem")


def _tasks():
    tasks = []
    for server in SERVERS:
        found, errors = load_tasks([sorted((DEV / server).glob("*.json"))[0]])
        assert errors == [] and len(found) == 1
        tasks += found
    return tasks


def test_one_call_per_verifier_answers_for_several_tasks_and_each_disagreement_names_its_task_and_state(monkeypatch):
    tasks = _tasks()
    victim = tasks[1]
    calls = {"verdicts": 0, "frames": 0}

    def python_except_the_victims_initial_state(cases):
        calls["verdicts"] += 1
        out = [evaluate(pred, get_spec(server).state_model.load(state)) for server, state, pred in cases]
        first = next(i for i, (_, _, pred) in enumerate(cases) if pred is victim.success)  # its initial state
        out[first] = not out[first]
        return out

    def python_frames(cases):
        calls["frames"] += 1
        from tasks_catalog.frames import frame_violations

        return [[v.to_json() for v in frame_violations(server, frame, a, b)] for server, a, b, frame in cases]

    monkeypatch.setattr(gate_module, "BATCH", 1000)
    results = anyio.run(gate_tasks, tasks, python_except_the_victims_initial_state, python_frames)
    assert calls["verdicts"] == 1 and calls["frames"] == 1
    assert [r.task_id for r in results] == [t.id for t in tasks]
    assert results[0].ok and results[2].ok, (results[0].reasons, results[2].reasons)
    assert results[1].reasons == ["verifiers disagree on the initial state: python False, typescript True"]


def test_batches_close_at_task_boundaries_and_every_case_is_asked_once(monkeypatch):
    tasks = _tasks()
    batches: list[int] = []

    def count(cases):
        batches.append(len(cases))
        return [evaluate(pred, get_spec(server).state_model.load(state)) for server, state, pred in cases]

    monkeypatch.setattr(gate_module, "BATCH", 1)  # every task is its own batch
    one_each = anyio.run(gate_tasks, tasks, count)
    per_task = list(batches)
    batches.clear()
    monkeypatch.setattr(gate_module, "BATCH", 1000)
    together = anyio.run(gate_tasks, tasks, count)
    assert len(per_task) == 3 and batches == [sum(per_task)]
    assert [r.reasons for r in one_each] == [r.reasons for r in together] == [[], [], []]


def test_the_real_typescript_verifier_agrees_on_a_batch_of_tasks(ts_cli):
    results = anyio.run(gate_tasks, _tasks(), ts_verifier.evaluate_many, ts_verifier.frame_violations_many)
    assert all(r.ok for r in results), [r.reasons for r in results if not r.ok]


def test_one_joint_call_answers_for_both_verifiers_and_judges_as_the_two_calls_do(ts_cli, monkeypatch):
    calls = []
    real = ts_verifier.judge_many

    def joint(verdict_cases, frame_cases):
        calls.append((len(verdict_cases), len(frame_cases)))
        return real(verdict_cases, frame_cases)

    monkeypatch.setattr(gate_module, "BATCH", 1000)
    both = anyio.run(gate_tasks, _tasks(), ts_verifier.evaluate_many, ts_verifier.frame_violations_many, joint)
    assert len(calls) == 1 and calls[0][0] > 3 and calls[0][1] >= 3
    assert [r.reasons for r in both] == [[], [], []]

    def blind(verdict_cases, frame_cases):  # a second verifier that sees no frame violation anywhere
        verdicts, frames = real(verdict_cases, frame_cases)
        return verdicts, [[] for _ in frames]

    result = anyio.run(gate_tasks, _tasks(), ts_verifier.evaluate_many, ts_verifier.frame_violations_many, blind)[0]
    assert any(r.startswith("verifiers disagree on the frame after wrong solution") for r in result.reasons), result.reasons
