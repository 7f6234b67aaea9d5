"""Real runs landed once per session for the viewer's and the export's tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from runstore.records import Explanation, FailedClause
from runstore.store import open_store
from tests.warehouse.conftest import make_calls, make_run, ok

ROOT = Path(__file__).resolve().parents[2]
LONG_RUN = "sub-long--slack-announce-release"
PRIVATE_RUN = "sub-private--slack-archive-resolved-incident"
SECRET_TEXT = "the-private-result-text-never-shown"


def _mcpbench(*args: str, store: Path) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "mcpbench", *args, "--store", str(store)], cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=240)
    assert proc.returncode in (0, 1), proc.stderr[-3000:]  # 1: some runs did not pass, which is the point
    return proc


@pytest.fixture(scope="session")
def landed(tmp_path_factory) -> Path:
    """A store with real runs: the random baseline on the dev set's four slack tasks (goals published;
    every run fails, with an explanation), the oracle on one (passes); and two hand-made runs: one of
    10,000 calls, and one on a private month whose call record (wrongly) holds a result text."""
    store_path = tmp_path_factory.mktemp("viewer") / "store"
    _mcpbench("run", "--agent", "random", "--split", "dev", "--tasks", "slack-*", "--submission-id", "sub-random",
              "--label", "rnd@1", "--publish-goals", store=store_path)
    _mcpbench("run", "--agent", "oracle", "--split", "dev", "--tasks", "slack-archive-resolved-incident",
              "--submission-id", "sub-oracle", store=store_path)
    store = open_store(str(store_path))
    long_run = make_run(LONG_RUN, submission_id="sub-long", split="dev", month="2026-05", tool_calls=10_000,
                        status="failed", max_steps=20_000)
    store.land_run(long_run, make_calls(long_run, [ok()] * 10_000))
    private = make_run(PRIVATE_RUN, submission_id="sub-private", split="2026-05", status="failed",
                       task_id="slack-archive-resolved-incident", tool_calls=1,
                       explanation=Explanation(clauses=[FailedClause(clause="$.all[0]", primitive="slack.channelArchived",
                                                                     expected="a secret expectation",
                                                                     found="a secret finding")]).to_json())
    calls = make_calls(private, [ok("archive_channel")])
    calls[0] = calls[0].model_copy(update={"result_text": SECRET_TEXT})
    store.land_run(private, calls)
    return store_path


def failing_run(store_path: Path) -> dict:
    runs = open_store(str(store_path)).read_runs().to_pylist()
    return next(r for r in runs if r["submission_id"] == "sub-random" and r["task_id"] == "slack-archive-resolved-incident")


