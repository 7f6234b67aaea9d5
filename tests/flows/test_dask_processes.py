"""``evaluate_submission`` past one machine: a Dask cluster of worker processes (a LocalCluster here; any
scheduler address in production) evaluates a sealed month whose store is on S3 (moto's server on
loopback), with the same results as the thread pool; and each worker process loads the month once and
starts one gateway host, however many of its tasks it runs."""

from __future__ import annotations

import pytest
from _flow_support import SECRET

from tasks_catalog.rotation import PER_SERVER

MONTH = "2026-11"
#: the month's slack tasks: enough for both worker processes to run several, each on two threads
TASKS = PER_SERVER
#: a Prefect server, a worker and a gated month: minutes under load, so a bound well above that
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


@pytest.fixture
def s3_env(monkeypatch, gate_cache):
    """moto's S3 server on loopback, named in the environment the worker processes inherit."""
    from tests.warehouse.conftest import moto_endpoint

    monkeypatch.setenv("MCPBENCH_SECRET", SECRET)
    monkeypatch.setenv("MCPBENCH_GATE_CACHE", str(gate_cache))  # its tasks are 2026-11's slack ones
    for _ in moto_endpoint(monkeypatch):
        yield "s3://bench/mcpbench"


def test_a_month_on_s3_evaluated_by_dask_worker_processes_equals_the_thread_pool_run(
        prefect_harness, s3_env, tmp_path, monkeypatch):
    from dask.distributed import Client, LocalCluster

    import tasks_catalog.rotation
    from flows import evaluate_submission
    from flows.rotate import rotate
    from mcpbench import _worker
    from runstore.store import open_store

    monkeypatch.setattr(tasks_catalog.rotation, "SERVER_NAMES", ("slack",))  # a small month: one server's share
    report = rotate.fn(MONTH, s3_env, [], None, False)
    assert report["tasks"] == TASKS

    common = dict(agent="oracle", split=MONTH, submitter="dask", store=s3_env, concurrency=4)
    threads = evaluate_submission(submission_id="on-threads", db_path=str(tmp_path / "t.duckdb"),
                                  runner="threads", **common)
    with LocalCluster(n_workers=2, threads_per_worker=2, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        dask = evaluate_submission(submission_id="on-dask", db_path=str(tmp_path / "d.duckdb"),
                                   runner=cluster.scheduler_address, **common)
        per_worker = client.run(_worker.stats)

    assert threads["passed"] == dask["passed"] == TASKS and threads["infra_errors"] == dask["infra_errors"] == []
    assert threads["score"] == dask["score"]  # every metric, efficiency too: exact sums, one division
    store = open_store(s3_env)
    by_task = {}
    for sub in ("on-threads", "on-dask"):
        rows = store.read_runs(sub).select(["task_id", "status", "tool_calls", "final_state_digest"]).to_pylist()
        by_task[sub] = {r["task_id"]: (r["status"], r["tool_calls"], r["final_state_digest"]) for r in rows}
    assert by_task["on-threads"] == by_task["on-dask"] and len(by_task["on-dask"]) == TASKS

    # O(n): every worker process that ran tasks loaded the month once and served them from one host
    assert len(per_worker) == 2 and len({s["pid"] for s in per_worker.values()}) == 2
    assert sum(s["runs"] for s in per_worker.values()) == TASKS
    for stats in per_worker.values():
        if stats["runs"]:
            assert stats["split_loads"] == 1 and stats["gateway_hosts"] == 1 and stats["sandboxes_opened"] == 1
