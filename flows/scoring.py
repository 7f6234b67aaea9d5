"""Scoring: rebuild the warehouse (data-quality suites, then the marts) and read the anomaly flags
(from a checked warehouse: ``flows._common.open_checked``)."""

from __future__ import annotations

from typing import Any

from prefect import flow, task

from flows._common import PRIVATE, db_location, logger, open_checked, store_root

#: The columns a flag row carries out of the warehouse: ids, numbers and a reason made of numbers.
SUBMITTER_FLAG_COLUMNS = ("submission_id", "submitter", "agent", "split", "attempted", "success_rate",
                          "prior_submissions", "prior_mean", "z_score", "reason")
TASK_FLAG_COLUMNS = ("task_id", "server", "month", "attempts", "passes", "success_rate", "submitters_passed",
                     "prior_success_rate", "jump", "reason")


@task(name="build-warehouse", **PRIVATE)
def build_warehouse(store: str, db_path: str, check: bool = True) -> dict[str, Any]:
    """Rebuild the DuckDB warehouse over the store; with ``check`` the quality suites gate it."""
    from warehouse.build import build

    result = build(store, db_path, check=check)
    logger().info("warehouse %s: %d runs, %d calls, %d views", result.path, result.runs, result.calls,
                          len(result.views))
    return {"db_path": str(result.path), "runs": result.runs, "calls": result.calls, "views": len(result.views),
            "seconds": round(result.seconds, 3)}


@task(name="read-anomaly-flags", **PRIVATE)
def read_flags(db_path: str, store: str, submission_id: str | None = None) -> dict[str, list[dict[str, Any]]]:
    """The rows of ``anomaly_submitter_flags`` and ``anomaly_task_flags`` (only ``submission_id``'s
    submitter flag, if given), limited to ids and numbers, from a checked warehouse (:func:`open_checked`)."""
    with open_checked(db_path, store) as warehouse:
        where, params = ("where submission_id = ?", [submission_id]) if submission_id else ("", [])
        submitters = warehouse.query(f"select {', '.join(SUBMITTER_FLAG_COLUMNS)} from anomaly_submitter_flags "
                                     f"{where} order by all", params).plain()
        tasks = warehouse.query(f"select {', '.join(TASK_FLAG_COLUMNS)} from anomaly_task_flags order by all").plain()
    logger().info("anomaly flags: %d submissions, %d tasks", len(submitters), len(tasks))
    return {"submitters": submitters, "tasks": tasks}


@flow(name="score", persist_result=False)
def score(store: str | None = None, db_path: str | None = None) -> dict[str, Any]:
    """Rebuild the warehouse marts over the store, after the data-quality suites pass.

    Args:
        store: The store: a folder or s3://bucket/prefix. Empty: the worker's $MCPBENCH_STORE.
        db_path: The warehouse database file. Empty: the worker's $MCPBENCH_WAREHOUSE.
    """
    return build_warehouse(store_root(store, "read"), db_location(db_path))


@flow(name="detect-anomalies", persist_result=False)
def detect_anomalies(store: str | None = None, db_path: str | None = None) -> dict[str, list[dict[str, Any]]]:
    """Rebuild the marts and return the anomaly flags: submissions more than 2 sigma above their
    submitter's history, and private tasks that look leaked (the next rotation replaces those first).

    Args:
        store: The store: a folder or s3://bucket/prefix. Empty: the worker's $MCPBENCH_STORE.
        db_path: The warehouse database file. Empty: the worker's $MCPBENCH_WAREHOUSE.
    """
    root = store_root(store, "read")
    built = build_warehouse(root, db_location(db_path))
    return read_flags(built["db_path"], root)


__all__ = ["build_warehouse", "detect_anomalies", "read_flags", "score"]
