"""A 160-task rotated month evaluated by ``evaluate_submission`` on Dask worker processes (1, 2 and 4),
against the same flow on its thread pool, with the store in a folder or on S3 (moto's server).

    python bench/dask_month.py [--workers 1,2,4] [--s3] [--no-write]

Rotates the month once (all ten servers, 16 tasks each; the operator's secret is a bench constant
unless ``MCPBENCH_SECRET`` is set), then evaluates the oracle on every task: first with the flow's
thread pool (``runner="threads"``, concurrency 4), then for each worker count on a
``LocalCluster(processes=True, threads_per_worker=2)`` given to the flow by its scheduler address, the
way an operator points it at a production cluster. Each Dask run must equal the thread-pool run task
by task (status, tool calls, final state digest) and in its score (every metric, efficiency included).
Reports wall time, runs/s, and per worker process the split loads and gateway hosts (each must be 1:
the O(n) fan-out). With ``--s3`` the store is ``s3://bench/mcpbench`` on a ``moto_server`` started on
loopback. Prints a section and appends it to ``bench/history/dask.md`` (``bench/record.py``); the Dask
row of ``bench/RESULTS.md`` is then updated by hand.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from record import record

MONTH = "2026-10"
BUCKET = "bench"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_until_it_answers(proc: subprocess.Popen, url: str, within_s: float, what: str) -> None:
    deadline = time.monotonic() + within_s
    while True:
        try:
            urllib.request.urlopen(url, timeout=2).close()
            return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"{what} did not answer {url} within {within_s:.0f} s") from None
            time.sleep(0.3)


def start_moto() -> tuple[subprocess.Popen, str]:
    """``moto_server`` on a loopback port, the AWS settings of this process (and the worker processes
    it starts) pointed at it, and the bucket created. Returns the process and the store URL."""
    import boto3

    port = _free_port()
    proc = subprocess.Popen(["moto_server", "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    _wait_until_it_answers(proc, f"{url}/moto-api/", 60, "moto_server")
    os.environ.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing", AWS_DEFAULT_REGION="us-east-1",
                      AWS_ENDPOINT_URL=url)
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL_S3"):
        os.environ.pop(name, None)
    boto3.client("s3").create_bucket(Bucket=BUCKET)
    return proc, f"s3://{BUCKET}/mcpbench"


def start_prefect_server(home: Path) -> subprocess.Popen:
    """``prefect server start`` on a loopback port, named in ``PREFECT_API_URL`` for this process and the
    Dask worker processes (flows/_runners.py refuses worker processes without one)."""
    home.mkdir(parents=True)
    port = _free_port()
    api = f"http://127.0.0.1:{port}/api"
    env = {**os.environ, "PREFECT_HOME": str(home), "PREFECT_UI_ENABLED": "false"}
    env.pop("PREFECT_API_URL", None)
    proc = subprocess.Popen([sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port",
                             str(port)], cwd=home, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _wait_until_it_answers(proc, f"{api}/health", 180, "prefect server")  # it migrates its database first
    os.environ["PREFECT_API_URL"] = api
    return proc


def per_task(store_url: str, submission_id: str) -> dict[str, tuple]:
    from runstore.store import open_store

    rows = open_store(store_url).read_runs(submission_id).select(
        ["task_id", "status", "tool_calls", "final_state_digest"]).to_pylist()
    return {r["task_id"]: (r["status"], r["tool_calls"], r["final_state_digest"]) for r in rows}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--s3", action="store_true", help="the store on S3 (a moto_server on loopback)")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("MCPBENCH_SECRET", "bench-secret-0123456789abcdef-0123456789")
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    scratch = Path(tempfile.mkdtemp(prefix="mcpbench-dask-bench-"))
    os.environ.setdefault("PREFECT_HOME", str(scratch / "prefect"))  # the client side's profiles and results
    prefect = start_prefect_server(scratch / "prefect-server")  # before prefect is imported: it reads settings once
    moto = None
    try:
        if args.s3:
            moto, store_url = start_moto()
        else:
            store_url = str(scratch / "store")
        run(args, store_url, scratch)
    finally:
        for proc in (moto, prefect):
            if proc is not None:
                proc.terminate()
                proc.wait(timeout=30)


def run(args, store_url: str, scratch: Path) -> None:
    from dask.distributed import Client, LocalCluster

    from flows import evaluate_submission
    from mcpbench import _worker
    from runstore.store import open_store
    from tasks_catalog.months import load_month_tasks, load_operator_pool, rotate

    t0 = time.perf_counter()
    store = open_store(store_url)
    rotate(store, MONTH, pool=load_operator_pool(store), leaked_task_ids=set(), retire_previous=False)
    n_tasks = len(load_month_tasks(store, MONTH))
    rotate_s = time.perf_counter() - t0
    print(f"rotated {n_tasks} tasks into {store_url} in {rotate_s:.0f} s", flush=True)
    common = dict(agent="oracle", split=MONTH, submitter="bench", store=store_url, concurrency=4)

    t0 = time.perf_counter()
    threads = evaluate_submission(submission_id="bench-threads", db_path=str(scratch / "threads.duckdb"),
                                  runner="threads", **common)
    threads_s = time.perf_counter() - t0
    reference = per_task(store_url, "bench-threads")
    rows = [f"| thread pool (4 threads, one process) | {threads_s:.0f} | {n_tasks / threads_s:.2f} | "
            f"{threads['passed']}/{n_tasks} | - | - | reference |"]
    print(rows[-1], flush=True)
    mismatches = 0
    for n in [int(x) for x in args.workers.split(",")]:
        with LocalCluster(n_workers=n, threads_per_worker=2, processes=True, dashboard_address=None) as cluster, \
                Client(cluster) as client:
            t0 = time.perf_counter()
            dask = evaluate_submission(submission_id=f"bench-dask-{n}", db_path=str(scratch / f"dask-{n}.duckdb"),
                                       runner=cluster.scheduler_address, **common)
            wall = time.perf_counter() - t0
            stats = list(client.run(_worker.stats).values())
        got = per_task(store_url, f"bench-dask-{n}")
        differ = sorted(t for t in reference.keys() | got.keys() if reference.get(t) != got.get(t))
        same_score = dask["score"] == threads["score"]
        mismatches += len(differ) + (not same_score)
        verdict = "equal" if not differ and same_score else (
            f"{len(differ)} tasks differ ({', '.join(differ[:3])}); score {'equal' if same_score else 'differs'}")
        loads = sorted(s["split_loads"] for s in stats)
        hosts = sorted(s["gateway_hosts"] for s in stats)
        rows.append(f"| {n} worker processes x 2 threads | {wall:.0f} | {n_tasks / wall:.2f} | "
                    f"{dask['passed']}/{n_tasks} | {loads} | {hosts} | {verdict} |")
        print(rows[-1], flush=True)
    where = "S3 (moto_server on loopback)" if args.s3 else "a folder"
    text = (f"\n## A 160-task month: `evaluate_submission` on Dask worker processes vs its thread pool "
            f"({datetime.now(UTC):%Y-%m-%d %H:%M} UTC, `python bench/dask_month.py --workers {args.workers}"
            f"{' --s3' if args.s3 else ''}`)\n\n"
            f"Oracle, local sandbox, the store in {where}; month rotated once ({n_tasks} tasks, {rotate_s:.0f} s). "
            "Each Dask run is the flow given a `LocalCluster`'s scheduler address, compared task by task "
            "(status, tool calls, final state digest) and score by score (efficiency included) with the "
            f"thread-pool run. Load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
            "with more processes than cores the wall cannot scale here: what matters is that every process "
            "loaded the month once and started one gateway host, and that the results are equal.\n\n"
            "| runner | wall s | runs/s | passed | split loads per worker | gateway hosts per worker | vs thread pool |\n"
            "|---|---:|---:|---:|---|---|---|\n" + "\n".join(rows) + "\n")
    record("dask", text, write=not args.no_write)
    if mismatches:
        raise SystemExit(f"{mismatches} differences between the Dask runs and the thread-pool run")


if __name__ == "__main__":
    main()
