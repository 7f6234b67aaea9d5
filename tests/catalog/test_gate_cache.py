"""The gate's cache (tasks_catalog/gate_cache.py): an accepted task is not judged again until the task or
the judging code changes; failures are never kept; gates sharing a cache never judge a task twice."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

import tasks_catalog.gate as gate_module
import tasks_catalog.gate_cache as gate_cache
from tasks_catalog.gate import acceptance_gate
from tasks_catalog.gate_cache import GateCache, fingerprint_of
from tasks_catalog.hashing import task_hash
from tasks_catalog.loader import load_tasks

ROOT = Path(__file__).resolve().parents[2]
#: three cheap dev tasks on three servers
PATHS = [ROOT / "tasks_catalog/dev/filesystem/fs-set-log-level.json",
         ROOT / "tasks_catalog/dev/slack/slack-announce-release.json",
         ROOT / "tasks_catalog/dev/calendar/calendar-cancel-santos-one-to-one.json"]


def _tasks():
    tasks, errors = load_tasks(PATHS)
    assert errors == [] and len(tasks) == len(PATHS)
    return tasks


@pytest.fixture
def judged(monkeypatch):
    """The ids of the tasks the gate really judged, call by call."""
    calls: list[list[str]] = []
    real = gate_module.gate_tasks

    async def spy(tasks, *args):
        calls.append([t.id for t in tasks])
        return await real(tasks, *args)

    monkeypatch.setattr(gate_module, "gate_tasks", spy)
    return calls


def test_an_accepted_task_is_not_judged_again_until_the_task_or_the_code_changes(tmp_path, judged, monkeypatch):
    tasks = _tasks()
    gate = acceptance_gate(typescript=False, cache=tmp_path)
    first = gate.check(tasks)
    assert [r.ok for r in first] == [True] * 3 and not any(r.cached for r in first)
    assert sorted(sum(judged, [])) == sorted(t.id for t in tasks)

    judged.clear()
    again = gate.check(tasks)
    assert [(r.task_id, r.ok, r.cached) for r in again] == [(t.id, True, True) for t in tasks]
    assert judged == [] and again[0].to_json()["cached"] is True

    changed = tasks[1].model_copy(update={"nonce": secrets.token_hex(16)})  # any change to the task misses
    results = gate.check([tasks[0], changed, tasks[2]])
    assert judged == [[changed.id]] and [r.cached for r in results] == [True, False, True]

    judged.clear()
    monkeypatch.setattr(gate_cache, "code_fingerprint", lambda: "0" * 64)  # the judging code changed
    assert all(not r.cached for r in gate.check(tasks)) and sorted(sum(judged, [])) == sorted(t.id for t in tasks)


def test_a_pass_under_fewer_verifiers_or_a_broken_typescript_hook_is_not_reused(tmp_path, monkeypatch):
    task = _tasks()[0]
    python_only = GateCache(tmp_path, ("python",))
    python_only.record(task.id, task_hash(task))
    assert python_only.accepted(task.id, task_hash(task))
    assert not GateCache(tmp_path, ("python", "typescript")).accepted(task.id, task_hash(task))
    monkeypatch.setenv("MCPBENCH_TS_BREAK", "slack.messageExists")
    assert not python_only.accepted(task.id, task_hash(task))
    assert not python_only.accepted("another-task", task_hash(task)), "a record names the task it accepted"


def test_a_failing_task_is_judged_every_time_and_nothing_of_it_is_kept(tmp_path, judged):
    tasks = _tasks()
    broken = tasks[0].model_copy(update={"reference_solution": []})
    gate = acceptance_gate(typescript=False, cache=tmp_path)
    for _ in range(2):
        (result,) = gate.check([broken])
        assert not result.ok and not result.cached and result.reasons
    assert judged == [[broken.id], [broken.id]]
    kept = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert [p.name for p in kept if p.suffix == ".json"] == []
    text = "".join(p.read_text(errors="replace") for p in kept)
    assert broken.goal[:40] not in text and result.reasons[0][:40] not in text


def test_a_damaged_record_is_not_trusted(tmp_path, judged):
    tasks = _tasks()
    gate = acceptance_gate(typescript=False, cache=tmp_path)
    gate.check(tasks)
    for record in tmp_path.rglob("*.json"):
        record.write_text("{not json")
    judged.clear()
    assert all(r.ok and not r.cached for r in gate.check(tasks)) and len(sum(judged, [])) == 3


def test_the_cache_is_off_unless_a_folder_is_named(tmp_path, monkeypatch):
    monkeypatch.delenv("MCPBENCH_GATE_CACHE", raising=False)
    assert acceptance_gate(typescript=False).cache is None
    monkeypatch.setenv("MCPBENCH_GATE_CACHE", str(tmp_path))
    assert acceptance_gate(typescript=False).cache == GateCache(tmp_path, ("python",))


def test_the_fingerprint_covers_the_judging_code_and_not_the_task_documents(tmp_path):
    for rel, text in {"servers/slack/tools.py": "A = 1\n", "mcpbench/gateway.py": "B = 1\n",
                      "tasks_catalog/gate.py": "C = 1\n", "tasks_catalog/templates/__init__.py": "D = 1\n",
                      "tasks_catalog/templates/slack/t.json": "{}", "tasks_catalog/dev/slack/d.json": "{}",
                      "tasks_catalog/verifier-ts/dist/cli.js": "x()\n",
                      "tasks_catalog/verifier-ts/node_modules/m/i.js": "y()\n"}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    before = fingerprint_of(tmp_path)
    for rel in ("tasks_catalog/templates/slack/t.json", "tasks_catalog/dev/slack/d.json",
                "tasks_catalog/verifier-ts/node_modules/m/i.js"):
        (tmp_path / rel).write_text('{"changed": true}')
        assert fingerprint_of(tmp_path) == before, rel
    for rel in ("servers/slack/tools.py", "mcpbench/gateway.py", "tasks_catalog/gate.py",
                "tasks_catalog/templates/__init__.py", "tasks_catalog/verifier-ts/dist/cli.js"):
        (tmp_path / rel).write_text("changed = True\n")
        assert fingerprint_of(tmp_path) != before, rel
        before = fingerprint_of(tmp_path)


_GATE_PROCESS = """
import json, sys
import tasks_catalog.gate as g
from tasks_catalog.loader import load_tasks
g.CLAIM = 1
real, judged = g.gate_tasks, []
async def spy(tasks, *args):
    judged.extend(t.id for t in tasks)
    return await real(tasks, *args)
g.gate_tasks = spy
tasks, _ = load_tasks([__import__("pathlib").Path(p) for p in sys.argv[2:]])
results = g.acceptance_gate(typescript=False, cache=sys.argv[1]).check(tasks)
print(json.dumps({"judged": judged, "ok": [r.ok for r in results]}))
"""


def test_two_gates_sharing_a_cache_at_once_judge_every_task_exactly_once(tmp_path):
    paths = [str(p) for p in PATHS] + [str(p) for p in sorted((ROOT / "tasks_catalog/dev/gmail").glob("*.json"))]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", _GATE_PROCESS, str(tmp_path / "cache"), *paths],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) for _ in range(2)]
    outs = []
    for proc in procs:
        out, err = proc.communicate(timeout=240)
        assert proc.returncode == 0, err[-3000:]
        outs.append(json.loads(out))
    assert all(o["ok"] == [True] * len(paths) for o in outs)
    judged = outs[0]["judged"] + outs[1]["judged"]
    assert sorted(judged) == sorted(t.id for t in load_tasks([Path(p) for p in paths])[0])


def test_validating_a_folder_twice_judges_only_what_changed_and_still_names_what_does_not_load(tmp_path, judged):
    import shutil

    folder = tmp_path / "tasks"
    folder.mkdir()
    for path in PATHS:
        shutil.copy(path, folder)
    (folder / "broken.json").write_text('{"id": "fs-broken",')
    gate = acceptance_gate(typescript=False, cache=tmp_path / "cache")
    first, total = gate.check_paths([folder])
    assert total == 4 and [r.ok for r in first].count(True) == 3 and len(sum(judged, [])) == 3
    judged.clear()
    again, total = gate.check_paths([folder])
    assert total == 4 and judged == []
    assert [(r.task_id, r.ok, r.cached) for r in again] == [(r.task_id, r.ok, r.ok) for r in first]
    assert any("not valid JSON" in reason for r in again for reason in r.reasons)


def test_a_month_gated_on_two_processes_gets_the_results_of_one_and_keeps_no_plaintext(tmp_path, monkeypatch):
    from tasks_catalog import gate_pool

    monkeypatch.setattr(gate_module, "CLAIM", 2)  # small chunks, so the helper gets a share when it is quick
    tasks, errors = load_tasks(sorted((ROOT / "tasks_catalog/dev").glob("*/*.json"))[:8])
    assert errors == []
    tasks[3] = tasks[3].model_copy(update={"reference_solution": []})  # fails, whoever judges it first
    alone = acceptance_gate(typescript=False).check(tasks)
    cache = tmp_path / "cache"
    together = gate_pool.check(acceptance_gate(typescript=False, cache=cache), tasks, processes=2)
    assert [(r.task_id, r.ok, r.cached) for r in together] == [(r.task_id, r.ok, False) for r in alone]
    assert together[3].reasons == alone[3].reasons
    kept = "".join(p.read_text(errors="replace") for p in cache.rglob("*") if p.is_file())
    assert all(t.goal[:40] not in kept for t in tasks)
    started = []
    real_popen = gate_pool.subprocess.Popen
    monkeypatch.setattr(gate_pool.subprocess, "Popen", lambda *a, **k: started.append(a) or real_popen(*a, **k))
    again = gate_pool.check(acceptance_gate(typescript=False, cache=cache), tasks, processes=2)
    assert [r.cached for r in again] == [i != 3 for i in range(8)]
    assert started == []  # one task left to judge: no helper is started for it (each costs seconds of imports)
    for record in list(cache.rglob("*.json"))[:2]:
        record.unlink()  # two accepted tasks forgotten: with the failing one, three to judge
    third = gate_pool.check(acceptance_gate(typescript=False, cache=cache), tasks, processes=4)
    assert len(started) == 2 and [r.ok for r in third] == [r.ok for r in alone]  # three tasks, three processes


def test_without_a_cache_a_pooled_gate_leaves_no_folder_behind(tmp_path, monkeypatch):
    from tasks_catalog import gate_pool

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.delenv("MCPBENCH_GATE_CACHE", raising=False)
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # re-read TMPDIR
    results = gate_pool.check(acceptance_gate(typescript=False), _tasks(), processes=2)
    assert all(r.ok and not r.cached for r in results)
    assert list(tmp_path.iterdir()) == []


def test_a_gate_claims_smaller_chunks_as_the_month_runs_out():
    from tasks_catalog.gate import CLAIM, claim_size

    left, taken = 160, []
    while left:
        taken.append(claim_size(left))
        left -= taken[-1]
    assert taken[0] == CLAIM and max(taken) == CLAIM and taken == sorted(taken, reverse=True)
    assert taken[-4:] == [1, 1, 1, 1]  # the last tasks one at a time: a peer that runs out waits for one task, not a chunk
    assert sum(taken) == 160 and claim_size(0) == claim_size(1) == 1


def test_a_helper_that_dies_before_reading_its_tasks_leaves_them_to_the_caller(monkeypatch):
    from tasks_catalog import gate_pool

    real_popen = gate_pool.subprocess.Popen

    def dying(args, **kwargs):
        return real_popen([sys.executable, "-c", "import os; os.close(0)"], **kwargs)

    monkeypatch.setattr(gate_pool.subprocess, "Popen", dying)
    results = gate_pool.check(acceptance_gate(typescript=False), _tasks(), processes=3)
    assert [(r.ok, r.cached) for r in results] == [(True, False)] * len(PATHS)
