"""``validate_catalog``: the acceptance gate over the public dev set and a sealed private month."""

from __future__ import annotations

from typing import Any

from prefect import flow, task

from flows._common import PRIVATE, logger, run_name, store_root


class CatalogInvalid(RuntimeError):
    """Some tasks failed the acceptance gate."""


@task(name="gate-dev-set", **PRIVATE)
def gate_dev(tasks_dir: str | None = None) -> dict[str, Any]:
    """Gate every public dev task; the dev set is public, so the reasons are reported in full."""
    from pathlib import Path

    from tasks_catalog.gate import acceptance_gate
    from tasks_catalog.loader import DEV_DIR

    gate = acceptance_gate()
    results, checked = gate.check_paths([Path(tasks_dir) if tasks_dir else DEV_DIR])
    failed = {r.task_id: r.reasons for r in results if not r.ok}
    logger().info("dev set: %d tasks gated, %d failed (verifiers: %s)", checked, len(failed), gate.describe())
    return {"checked": checked, "failed": failed, "verifiers": gate.verifiers}


@task(name="gate-month", **PRIVATE)
def gate_month(month: str, store: str) -> dict[str, Any]:
    """Gate every task of a sealed month, decrypted in memory here, with both verifiers (the TypeScript
    one built where it is not, or the task fails saying why); only failing ids leave, since a reason can
    quote the task's sampled values."""
    from runstore.store import open_store
    from tasks_catalog.gate import sealed_month_gate
    from tasks_catalog.months import load_month_tasks

    gate = sealed_month_gate()
    results = gate.check(load_month_tasks(open_store(store), month))
    failed = sorted(r.task_id for r in results if not r.ok)
    logger().info("month %s: %d tasks gated, %d failed (verifiers: %s)", month, len(results), len(failed),
                  gate.describe())
    return {"month": month, "checked": len(results), "failed": failed, "verifiers": gate.verifiers}


@flow(name="validate-catalog", persist_result=False,
      flow_run_name=run_name("validate {tasks_dir|'the dev set'} and {month|'no month'}"))
def validate_catalog(store: str | None = None, month: str | None = None, dev: bool = True,
                     tasks_dir: str | None = None) -> dict[str, Any]:
    """Run the acceptance gate over the public tasks and a sealed private month; fails, naming the task
    ids, if any task does not pass.

    Args:
        store: The store holding the sealed month: a folder or s3://bucket/prefix. Empty: $MCPBENCH_STORE.
        month: A sealed private month YYYY-MM to gate too, with both verifiers (the worker needs
            MCPBENCH_SECRET). Empty: none.
        dev: Gate the public tasks (the dev set, or the folder in tasks_dir).
        tasks_dir: A folder of task files to gate instead of the dev set. Empty: tasks_catalog/dev.
    """
    report: dict[str, Any] = {}
    if dev:
        report["dev"] = gate_dev(tasks_dir)
    if month:
        report["month"] = gate_month(month, store_root(store, "read"))
    bad = sorted(report.get("dev", {}).get("failed", {})) + report.get("month", {}).get("failed", [])
    if bad:
        raise CatalogInvalid(f"{len(bad)} tasks failed the acceptance gate: {', '.join(bad)}")
    return report


__all__ = ["CatalogInvalid", "gate_dev", "gate_month", "validate_catalog"]
