"""``rotate_month``: build, gate, seal and attest a private month; retire the month before. Scheduled
monthly (``prefect.yaml``); only ids and counts leave the task that renders the month."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from prefect import flow, task

from flows._common import PRIVATE, db_location, logger, open_checked, run_name, store_root


class GateFailed(RuntimeError):
    """Some rendered tasks failed the acceptance gate; nothing was sealed. Names task ids only."""


@task(name="leaked-task-ids", **PRIVATE)
def flagged_task_ids(db_path: str, store: str, month: str) -> list[str]:
    """Tasks of ``month`` the warehouse flags as possibly leaked, read from a checked warehouse over
    ``store`` (``flows._common.open_checked``: rebuilt when runs landed since, checked now if it was
    built without the check; a failing suite fails the rotation before anything is rendered). None when
    there is no warehouse and no run has landed."""
    from runstore.store import open_store

    if not Path(db_path).exists() and not open_store(store).list("runs/"):
        return []
    with open_checked(db_path, store) as warehouse:
        rows = warehouse.query("select distinct task_id from anomaly_task_flags where month = ? order by 1", [month])
    return [task_id for (task_id,) in rows.values]


@task(name="rotate", **PRIVATE)
def rotate(month: str, store: str, leaked_task_ids: list[str], pool_dir: str | None = None,
           retire_previous: bool = True) -> dict[str, Any]:
    """Render the month from the operator's pool, gate every task, seal it, publish its attestation list
    and retire the month before. Raises :class:`GateFailed` (naming task ids only) if any task fails
    the gate, in which case nothing is written."""
    from mcpbench.progress import ProgressLines
    from runstore.store import open_store
    from tasks_catalog.gate import sealed_month_gate
    from tasks_catalog.months import load_operator_pool
    from tasks_catalog.months import rotate as rotate_store

    opened = open_store(store)
    # both verifiers, always: a worker without the TypeScript verifier builds it, or the task fails saying why
    gate = sealed_month_gate()
    pool = load_operator_pool(opened, pool_dir=pool_dir)
    with ProgressLines(0, "tasks", write=logger().info) as progress:
        report = rotate_store(opened, month, pool=pool, leaked_task_ids=set(leaked_task_ids),
                              retire_previous=retire_previous, gate=gate, progress=progress)
    # the public report (ids and counts), as `mcpbench rotate` prints it: gate reasons can quote a
    # task's sampled values, so only the failing ids leave this task
    summary = report.public()
    failing = sorted({f.split(":", 1)[0] for f in summary["gate_failures"]})
    if failing:
        raise GateFailed(f"{len(failing)} tasks of {month} failed the acceptance gate; nothing was sealed. "
                         f"Failing: {', '.join(failing)}. Run `mcpbench rotate --reasons-file FILE` with the "
                         "operator's secret to see why.")
    logger().info("month %s: %d tasks sealed (%d carried over, %d replaced, %d leaked replaced; verifiers %s, "
                  "%d accepted before and not judged again); retired %s", month, report.tasks, report.carried,
                  report.replaced, report.leaked_replaced, " + ".join(report.verifiers), report.gate_cached,
                  report.retired or "nothing")
    return summary


@flow(name="rotate-month", persist_result=False, flow_run_name=run_name("rotate {month|'the current month'}"))
def rotate_month(month: str | None = None, store: str | None = None, leaked_task_ids: list[str] | None = None,
                 db_path: str | None = None, pool_dir: str | None = None, retire_previous: bool = True) -> dict[str, Any]:
    """Build a private month: render it from the operator's template pool, gate every task with both
    verifiers (the TypeScript one is built where it is not, or the run fails saying why), seal it,
    publish its attestation list, and retire the month before. The worker needs MCPBENCH_SECRET.

    Args:
        month: The month to build, YYYY-MM. Empty: the current UTC month (the cron on the 1st builds the
            month that starts).
        store: The store: a folder or s3://bucket/prefix. Empty: the worker's $MCPBENCH_STORE.
        leaked_task_ids: Task ids flagged as possibly leaked: their templates are replaced first (with any
            the warehouse flags for the month before).
        db_path: The warehouse whose anomaly flags name leaked tasks. Empty: $MCPBENCH_WAREHOUSE.
        pool_dir: A folder of templates. Empty: the operator's sealed pool in the store, else the public
            demonstration pool.
        retire_previous: Retire the month before: publish its plaintext as Historical-YYYY-MM.
    """
    from tasks_catalog.months import previous_month
    from tasks_catalog.sealed import check_month

    month = check_month(month or f"{datetime.now(UTC):%Y-%m}")
    root, db = store_root(store, "write"), db_location(db_path)  # refused before the gate starts
    leaked = set(leaked_task_ids or []) | set(flagged_task_ids(db, root, previous_month(month)))
    return rotate(month, root, sorted(leaked), pool_dir, retire_previous)


__all__ = ["GateFailed", "flagged_task_ids", "rotate", "rotate_month"]
