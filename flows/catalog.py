"""``validate_catalog``: the acceptance gate over the public dev set and a sealed private month."""

from __future__ import annotations

from typing import Any

from prefect import flow, task

from flows._common import PRIVATE, logger, store_root


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
    """Gate every task of a sealed month, decrypted in memory here; only failing ids leave, since a
    reason can quote the task's sampled values."""
    from runstore.store import open_store
    from tasks_catalog.gate import acceptance_gate
    from tasks_catalog.months import load_month_tasks

    gate = acceptance_gate()
    results = gate.check(load_month_tasks(open_store(store), month))
    failed = sorted(r.task_id for r in results if not r.ok)
    logger().info("month %s: %d tasks gated, %d failed (verifiers: %s)", month, len(results), len(failed),
                  gate.describe())
    return {"month": month, "checked": len(results), "failed": failed, "verifiers": gate.verifiers}


@flow(name="validate-catalog", persist_result=False)
def validate_catalog(store: str | None = None, month: str | None = None, dev: bool = True,
                     tasks_dir: str | None = None) -> dict[str, Any]:
    """Gate the public tasks (``dev``: the dev set, or the task files under ``tasks_dir``) and the sealed
    ``month`` (if given; the worker needs MCPBENCH_SECRET). Fails, naming the task ids, if any task does
    not pass."""
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
