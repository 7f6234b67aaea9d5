"""A store that fails mid-evaluation fails only the runs it could not land, as infra errors of kind
``store``; the others go on; resuming runs exactly the missing ones; the CLI says so in one line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcpbench.cli import main
from mcpbench.evaluation import evaluate
from mcpbench.runner import Submission
from runstore.store import open_store
from tests.warehouse.conftest import moto_endpoint

ROOT = Path(__file__).resolve().parents[2]
SIX = ["fs-archive-meeting-notes", "fs-set-log-level", "slack-announce-release", "gmail-mark-payslip-read",
       "pg-ship-order-1042", "notion-mark-harbor-invoice-paid"]


@pytest.fixture
def endpoint(monkeypatch):
    yield from moto_endpoint(monkeypatch)


def _submission(sid: str) -> Submission:
    return Submission(sid, "tester", "oracle", "dev", "2026-12")


def test_an_s3_outage_mid_evaluation_fails_only_the_runs_it_hit_and_a_re_run_fills_exactly_those(
        endpoint, dev_tasks):
    tasks = [t for t in dev_tasks if t.id in SIX]
    store = open_store("s3://bench/traces", attempts=2, backoff_s=0.01, timeout_s=5)
    store.land_backoff_s = 0.01
    seen = []

    def outage(result) -> None:
        seen.append(result.run)
        if len(seen) == 2:
            endpoint.stop()  # the endpoint dies while other runs are in flight
        elif result.run.end_reason == "infra:store" and not endpoint.running:
            endpoint.start()  # and comes back after the first run it failed

    summary, results = evaluate(tasks, "oracle", _submission("outage"), store=store, concurrency=2,
                                on_result=outage)
    lost = [r.run for r in results if r.run.end_reason == "infra:store"]
    assert summary.ran == 6 and len(lost) >= 1
    assert sorted(summary.not_landed) == sorted(r.task_id for r in lost)
    assert all(r.status == "infra_error" and "did not land" in r.infra_error for r in lost)
    others = [r.run for r in results if r.run.end_reason != "infra:store"]
    assert all(r.status == "passed" for r in others)
    assert all(store.has_run(r.run_id) for r in others)
    assert not any(store.has_run(r.run_id) for r in lost)

    again, rerun = evaluate(tasks, "oracle", _submission("outage"), store=store, concurrency=2)
    # a lost run whose two files were whole when the endpoint died (only its index entry failed, and
    # the roll-back could not reach the endpoint) is indexed on resume instead: never one that landed
    assert {r.run.task_id for r in rerun} <= set(summary.not_landed)
    assert (again.skipped, again.passed, again.not_landed) == (6 - len(rerun), len(rerun), [])
    runs = store.read_runs("outage")
    assert sorted(runs.column("task_id").to_pylist()) == sorted(SIX) and set(runs.column("status").to_pylist()) == {"passed"}
    assert set(store.read_calls("outage").column("run_id").to_pylist()) == set(runs.column("run_id").to_pylist())


def test_a_kill_between_a_runs_parquet_and_its_index_does_not_re_run_it_after_resume(tmp_path, dev_tasks):
    root = tmp_path / "store"
    script = textwrap.dedent(f"""
        import os, signal
        from mcpbench.evaluation import evaluate
        from mcpbench.runner import Submission
        from runstore.store import LocalStore
        from tasks_catalog.loader import DEV_DIR, load_valid_tasks

        class DiesAtTheSecondIndexEntry(LocalStore):
            indexed = 0
            def _put(self, key, data):
                if key.startswith("index/runs/"):
                    type(self).indexed += 1
                    if self.indexed == 2:
                        os.kill(os.getpid(), signal.SIGKILL)
                super()._put(key, data)

        tasks = [t for t in load_valid_tasks([DEV_DIR]) if t.id in {SIX[:3]!r}]
        evaluate(tasks, "oracle", Submission("killed", "tester", "oracle", "dev", "2026-12"),
                 store=DiesAtTheSecondIndexEntry({str(root)!r}), concurrency=1)
    """)
    proc = subprocess.run([sys.executable, "-c", script], env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT,
                          capture_output=True, timeout=300)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()[-2000:]
    store = open_store(str(root))
    landed = store.landed_run_ids("killed")
    half = {i for i in landed if not store.has_run(i)}
    assert len(half) >= 1  # their Parquet landed, their index entries did not (landings overlap runs)

    tasks = [t for t in dev_tasks if t.id in SIX[:3]]
    summary, results = evaluate(tasks, "oracle", _submission("killed"), store=store, concurrency=1)
    assert summary.skipped == len(landed)  # the half-landed runs count as landed: indexed, not run again
    assert {r.run.run_id for r in results} == {f"killed--{t}" for t in SIX[:3]} - landed
    assert all(store.has_run(f"killed--{t}") for t in SIX[:3])
    assert store.read_runs("killed").num_rows == 3


def test_the_cli_reports_runs_that_could_not_land_in_one_line_without_a_traceback(tmp_path):
    store = tmp_path / "store"  # a usable store folder, so the runs start; their landings then fail
    store.mkdir()
    (store / "calls").write_text("a file where the store's calls folder should go\n")
    result = CliRunner().invoke(main, ["run", "--agent", "oracle", "--tasks", SIX[0], "--tasks", SIX[1],
                                       "--store", str(store), "--submission-id", "cli-outage"])
    assert result.exit_code == 1
    assert "Traceback" not in result.output and "ExceptionGroup" not in result.output
    assert not isinstance(result.exception, BaseExceptionGroup)
    lines = [line for line in result.output.splitlines() if "did not land" in line]
    assert len(lines) == 1 and "2 of 2 runs" in lines[0] and "--submission-id cli-outage" in lines[0]


def test_the_cli_with_its_s3_store_down_from_the_start_says_so_in_one_line_before_any_run(endpoint):
    endpoint.stop()
    result = CliRunner().invoke(main, ["run", "--agent", "oracle", "--tasks", SIX[0], "--store", "s3://bench/traces",
                                       "--submission-id", "s3-down"])
    assert result.exit_code == 1 and not isinstance(result.exception, BaseExceptionGroup)
    assert "Traceback" not in result.output
    (line,) = [line for line in result.output.splitlines() if line.strip()]
    assert line.startswith("Error: --store: could not look up the bucket of s3://bench/traces/ after ")
    assert "connect" in line
