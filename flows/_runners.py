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

        return ThreadPoolTaskRunner(max_workers=concurrency)
    from prefect_dask import DaskTaskRunner

    if kind == "dask":
        return DaskTaskRunner(cluster_kwargs={"n_workers": concurrency, "threads_per_worker": 1,
                                              "processes": True, "dashboard_address": None})
    if kind == "dask-threads":  # one process, ``concurrency`` threads: a cheap cluster for tests and laptops
        return DaskTaskRunner(cluster_kwargs={"n_workers": 1, "threads_per_worker": concurrency,
                                              "processes": False, "dashboard_address": None})
    if "://" in kind:
        return DaskTaskRunner(address=kind)
    raise ValueError(f"unknown task runner {kind!r}: use threads, dask, dask-threads or a Dask scheduler address")


__all__ = ["RUNNER_ENV", "task_runner"]
