"""The operator's pipeline as Prefect runs it, in a process of its own (so the containment test
controls every place it can write): rotate a month with the ``rotate_month`` flow, evaluate the oracle on
all of its tasks and noop on two tasks per server with ``evaluate_submission`` (concurrency 4, local
sandbox), then ``detect_anomalies``. Prints one JSON object of ids and counts. (That noop fails every
task is the gate's check that each task's initial state fails its predicate; here it only has to land
as a second, failing submission.)

    python tests/flows/pipeline.py MONTH STORE DB [--servers a,b,...]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("month")
    parser.add_argument("store")
    parser.add_argument("db")
    parser.add_argument("--servers", default="", help="build the month for these servers only")
    args = parser.parse_args()
    if args.servers:
        import tasks_catalog.rotation

        tasks_catalog.rotation.SERVER_NAMES = tuple(args.servers.split(","))

    from flows import detect_anomalies, evaluate_submission, rotate_month

    out = {"rotation": rotate_month(month=args.month, store=args.store, db_path=args.db)}
    sample = noop_sample(args.month, args.store)
    for agent, task_ids in (("oracle", None), ("noop", sample)):
        out[agent] = evaluate_submission(agent=agent, split=args.month, submission_id=f"pipeline-{agent}",
                                         submitter="containment", concurrency=4, store=args.store, db_path=args.db,
                                         task_ids=task_ids)
    out["flags"] = detect_anomalies(store=args.store, db_path=args.db)
    print(json.dumps(out))


def noop_sample(month: str, store: str, per_server: int = 2) -> list[str]:
    """The ids of the month's first ``per_server`` tasks of each server (in id order)."""
    import os
    from collections import defaultdict

    from runstore.store import open_store
    from tasks_catalog.months import load_month_tasks

    by_server: dict[str, list[str]] = defaultdict(list)
    for task in load_month_tasks(open_store(store), month, os.environ["MCPBENCH_SECRET"]):
        by_server[task.server].append(task.id)
    return [i for ids in by_server.values() for i in sorted(ids)[:per_server]]


if __name__ == "__main__":
    main()
