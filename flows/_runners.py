"""Which task runner a fan-out uses: Prefect's thread pool on one machine, Dask past one machine."""

from __future__ import annotations

import os

#: ``threads`` (default), ``dask`` (a local Dask cluster of single-threaded worker processes) or the
#: address of a running Dask scheduler (``tcp://host:8786``).
RUNNER_ENV = "MCPBENCH_TASK_RUNNER"


def task_runner(concurrency: int, kind: str | None = None):
    """A task runner running at most ``concurrency`` tasks at once (for a remote Dask scheduler, the
    cluster's size decides)."""
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    kind = kind or os.environ.get(RUNNER_ENV) or "threads"
    if kind == "threads":
        from prefect.task_runners import ThreadPoolTaskRunner

        from mcpbench.sandbox import concurrency_that_fits

        return ThreadPoolTaskRunner(max_workers=concurrency_that_fits(concurrency))  # the runs share this process
    from prefect_dask import DaskTaskRunner

    if kind == "dask" or "://" in kind:
        _require_prefect_server(kind)
    if kind == "dask":
        return DaskTaskRunner(cluster_kwargs={"n_workers": concurrency, "threads_per_worker": 1,
                                              "processes": True, "dashboard_address": None})
    if kind == "dask-threads":  # one process, ``concurrency`` threads: a cheap cluster for tests and laptops
        return DaskTaskRunner(cluster_kwargs={"n_workers": 1, "threads_per_worker": concurrency,
                                              "processes": False, "dashboard_address": None})
    if "://" in kind:
        return DaskTaskRunner(address=kind)
    raise ValueError(f"unknown task runner {kind!r}: use threads, dask, dask-threads or a Dask scheduler address")


def _require_prefect_server(kind: str) -> None:
    """Dask worker processes report their task runs to the flow's Prefect API. With none configured,
    each worker process starts a temporary server of its own: under load those time out or collide on
    ports, and the runs they carry end as infra errors (a 160-task month lost 45 runs that way). Refuse
    up front, saying what to set."""
    from prefect.settings import PREFECT_API_URL

    if not PREFECT_API_URL.value():
        raise ValueError(
            f"runner {kind!r} runs tasks in Dask worker processes, which must report to one Prefect server: set "
            "PREFECT_API_URL (e.g. `prefect server start`, then `prefect config set "
            "PREFECT_API_URL=http://127.0.0.1:4200/api`); without it every worker process would start a "
            "temporary server of its own")


__all__ = ["RUNNER_ENV", "task_runner"]
