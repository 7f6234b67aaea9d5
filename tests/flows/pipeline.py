"""The operator's pipeline as Prefect runs it, in a process of its own (so the containment test
controls every place it can write): rotate a month with the ``rotate_month`` flow, evaluate the oracle
and noop on all of its tasks with ``evaluate_submission`` (concurrency 4, local sandbox), then
``detect_anomalies``. Prints one JSON object of ids and counts.

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
    for agent in ("oracle", "noop"):
        out[agent] = evaluate_submission(agent=agent, split=args.month, submission_id=f"pipeline-{agent}",
                                         submitter="containment", concurrency=4, store=args.store, db_path=args.db)
    out["flags"] = detect_anomalies(store=args.store, db_path=args.db)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
