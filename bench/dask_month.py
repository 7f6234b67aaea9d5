"""A 160-task rotated month evaluated with the oracle on Dask worker processes: 1, 2 and 4 workers.

    MCPBENCH_SECRET=... python bench/dask_month.py [--workers 1,2,4] [--no-write]

Rotates the month once into a temporary folder store (all ten servers, 16 tasks each), then for each
worker count starts a ``LocalCluster(processes=True, threads_per_worker=2)`` and maps
``evaluate_task`` over the 160 task ids, the way the flow's Dask runner does (without Prefect's own
per-task bookkeeping). Reports wall time, runs/s, and per worker process the split loads and gateway
hosts (each must be 1: the O(n) fan-out). Appends a section to ``bench/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

RESULTS = Path(__file__).with_name("RESULTS.md")
MONTH = "2026-10"


def _one(task_id: str, store_root: str, submission) -> str:
    from mcpbench.evaluation import evaluate_task
    from runstore.store import open_store

    return evaluate_task(task_id, "oracle", submission, store=open_store(store_root), sandbox="local").status


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("MCPBENCH_SECRET", "bench-secret-0123456789abcdef-0123456789")
    from dask.distributed import Client, LocalCluster

    from mcpbench import _worker
    from mcpbench.runner import Submission
    from runstore.store import open_store
    from tasks_catalog.months import load_month_tasks, load_operator_pool, rotate

    root = tempfile.mkdtemp(prefix="mcpbench-dask-bench-")
    t0 = time.perf_counter()
    store = open_store(root)
    rotate(store, MONTH, pool=load_operator_pool(store), leaked_task_ids=set(), retire_previous=False)
    ids = [t.id for t in load_month_tasks(store, MONTH)]
    rotate_s = time.perf_counter() - t0
    print(f"rotated {len(ids)} tasks in {rotate_s:.0f} s", flush=True)
    rows = []
    for n in [int(x) for x in args.workers.split(",")]:
        sub = Submission(f"bench-dask-{n}", "bench", "oracle", MONTH, MONTH, private=True)
        with LocalCluster(n_workers=n, threads_per_worker=2, processes=True, dashboard_address=None) as cluster, \
                Client(cluster) as client:
            t0 = time.perf_counter()
            statuses = client.gather(client.map(_one, ids, store_root=root, submission=sub, pure=False))
            wall = time.perf_counter() - t0
            stats = list(client.run(_worker.stats).values())
        loads = sorted(s["split_loads"] for s in stats)
        hosts = sorted(s["gateway_hosts"] for s in stats)
        rows.append(f"| {n} | {wall:.0f} | {len(ids) / wall:.2f} | {statuses.count('passed')}/{len(ids)} | "
                    f"{loads} | {hosts} |")
        print(rows[-1], flush=True)
    text = (f"\n## A 160-task month on Dask worker processes ({datetime.now(UTC):%Y-%m-%d %H:%M} UTC, "
            f"`python bench/dask_month.py --workers {args.workers}`)\n\n"
            f"Oracle, local sandbox, folder store; month rotated once ({len(ids)} tasks, {rotate_s:.0f} s). "
            f"Each worker process has 2 threads. Load average at the end: {os.getloadavg()[0]:.1f} on 2 cores "
            "(shared machine), so more processes than cores cannot scale here; the column that matters is "
            "that every process loaded the month once and started one gateway host.\n\n"
            "| workers | wall s | runs/s | passed | split loads per worker | gateway hosts per worker |\n"
            "|---:|---:|---:|---:|---|---|\n" + "\n".join(rows) + "\n")
    print(text)
    if not args.no_write:
        with RESULTS.open("a") as f:
            f.write(text)


if __name__ == "__main__":
    main()
