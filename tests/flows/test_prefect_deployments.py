"""The operator's path, end to end, as the README tells it: a real ``prefect server start`` on loopback (the
session's, shared with the other flow tests: tests/flows/conftest.py), the project's work pool, ``prefect deploy --all`` from prefect.yaml, a ``prefect worker start --pool ...``,
then ``prefect deployment run`` of rotate-month and evaluate-submission; the month is sealed, and the
runs landed in the worker's store and were scored. Every wait is bounded; every process is ours and is
stopped at the end."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from _flow_support import REPO, SECRET, stop_process_group

#: a Prefect server, a worker and a gated month: minutes under load, so a bound well above that
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
MONTH = "2026-11"  # a month the suite's other tests rotate too, with the same secret: one gate cache
RUN_WATCH_S = 900


def _prefect(env: dict, *args: str, timeout: float = 300) -> str:
    done = subprocess.run([sys.executable, "-m", "prefect", "--no-prompt", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"prefect {' '.join(args)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def test_the_operator_deploys_rotates_and_evaluates_through_a_prefect_server_and_worker(tmp_path, gate_cache,
                                                                                       prefect_server):
    store, db = tmp_path / "store", tmp_path / "warehouse.duckdb"
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect"), "PREFECT_API_URL": prefect_server.api,
           "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "PREFECT_UI_ENABLED": "false",
           "MCPBENCH_SECRET": SECRET, "MCPBENCH_STORE": str(store), "MCPBENCH_WAREHOUSE": str(db),
           "MCPBENCH_GATE_CACHE": str(gate_cache),
           # the worker asks for scheduled runs every second, not every 10 s: less idle time, same path
           "PREFECT_WORKER_QUERY_SECONDS": "1"}
    env.pop("PREFECT_PROFILES_PATH", None)
    logs = tmp_path / "logs"
    logs.mkdir()
    worker = None
    try:
        _prefect(env, "work-pool", "create", "mcpbench-local", "--type", "process")
        deployed = _prefect(env, "deploy", "--all")
        assert "evaluate-submission" in deployed and "rotate-month" in deployed
        with open(logs / "worker.log", "wb") as out:
            worker = subprocess.Popen([sys.executable, "-m", "prefect", "worker", "start", "--pool", "mcpbench-local"],
                                      cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT,
                                      start_new_session=True)

        _prefect(env, "deployment", "run", "rotate-month/rotate-month", "-p", f"month={MONTH}",
                 "-p", "retire_previous=false", "--watch", "--watch-interval", "1", "--watch-timeout", str(RUN_WATCH_S),
                 timeout=RUN_WATCH_S + 60)
        assert (store / f"private/months/{MONTH}.sealed").exists(), (logs / "worker.log").read_text()[-3000:]

        from runstore.store import open_store
        from tasks_catalog.months import load_month_tasks

        ids = [t.id for t in load_month_tasks(open_store(str(store)), MONTH, SECRET)][:3]
        _prefect(env, "deployment", "run", "evaluate-submission/evaluate-submission", "-p", "agent=oracle",
                 "-p", f"split={MONTH}", "-p", "submission_id=deployed-oracle", "-p", "concurrency=2",
                 "-p", f"task_ids={json.dumps(ids)}", "--watch", "--watch-interval", "1", "--watch-timeout", str(RUN_WATCH_S),
                 timeout=RUN_WATCH_S + 60)
    finally:
        if worker is not None:
            stop_process_group(worker)

    runs = open_store(str(store)).read_runs("deployed-oracle").to_pylist()
    assert sorted(r["task_id"] for r in runs) == sorted(ids)
    assert all(r["status"] == "passed" and r["split"] == MONTH for r in runs)
    import duckdb

    from warehouse.scorecard import scorecard

    with duckdb.connect(str(db), read_only=True) as con:  # the flow rebuilt the worker's warehouse and scored
        card = scorecard("deployed-oracle", con=con)
    assert card["overall"]["attempted"] == 3 and card["overall"]["success_rate"] == 1.0
