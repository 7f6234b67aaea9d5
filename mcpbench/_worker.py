"""What one process keeps across the runs it is handed: the fan-out's O(n).

A fan-out (Prefect's thread pool, or Dask worker processes) calls ``evaluate_task`` once per task. Done
naively, each call loads and unseals its whole split and starts a gateway host, so a month costs the
square of its size. Here each process instead keeps:

- each split's tasks, loaded (a private month unsealed, in memory only) once, keyed by split, store,
  tasks folder and a digest of the secret;
- each sandbox backend, opened once per name;
- one gateway host, serving every run's gateway, on an event loop in a thread of its own.

``stats()`` counts loads, hosts and runs per process, so a test can see that the cost is what it says.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import threading
from collections import Counter
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")
HOST_START_S = 60.0

_lock = threading.Lock()
_state: dict[str, Any] = {}


def _process_state() -> dict[str, Any]:
    """This process's caches (a forked child starts with empty ones, never its parent's)."""
    if _state.get("pid") != os.getpid():
        _state.clear()
        _state.update(pid=os.getpid(), splits={}, sandboxes={}, loop=None, stats=Counter())
    return _state


def _secret_digest(secret: str | bytes | None) -> str:
    value = secret if secret is not None else os.environ.get("MCPBENCH_SECRET", "")
    return hashlib.sha256(value.encode() if isinstance(value, str) else value).hexdigest()[:16]


def split_tasks(split: str, *, store, secret: str | bytes | None = None, tasks_dir: Path | None = None) -> dict:
    """The split's tasks by id, loaded once per process."""
    from mcpbench.evaluation import load_split

    key = (split, store.url() if store is not None else None, str(tasks_dir) if tasks_dir else None,
           _secret_digest(secret))
    with _lock:
        state = _process_state()
        if key not in state["splits"]:
            tasks = load_split(split, store=store, secret=secret, tasks_dir=tasks_dir)
            state["splits"][key] = {t.id: t for t in tasks}
            state["stats"]["split_loads"] += 1
        state["stats"]["runs"] += 1
        return state["splits"][key]


def sandbox_for(agent, name: str):
    """The sandbox backend ``name`` for ``agent`` (None for agents that run beside the harness), opened
    once per process."""
    from mcpbench.agents.spec import ProcessAgent
    from mcpbench.evaluation import open_sandbox

    if not isinstance(agent, ProcessAgent):
        return None
    with _lock:
        state = _process_state()
        if name not in state["sandboxes"]:
            state["sandboxes"][name] = open_sandbox(agent, name)
            state["stats"]["sandboxes_opened"] += 1
        return state["sandboxes"][name]


class GatewayLoop:
    """One gateway host on an event loop in a daemon thread; ``call`` runs a coroutine there and waits."""

    def __init__(self) -> None:
        from mcpbench.gateway import GatewayHost

        self.host = GatewayHost()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True, name="mcpbench-gateway-host")
        self._thread.start()
        self._stop: asyncio.Event | None = None
        ready: Future = Future()
        asyncio.run_coroutine_threadsafe(self._serve(ready), self._loop)
        ready.result(timeout=HOST_START_S)

    async def _serve(self, ready: Future) -> None:
        self._stop = asyncio.Event()
        try:
            async with self.host.running():
                ready.set_result(self.host.port)
                await self._stop.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc)
            raise

    def call(self, make: Callable[[], Awaitable[T]]) -> T:
        async def run() -> T:
            return await make()

        return asyncio.run_coroutine_threadsafe(run(), self._loop).result()


def gateway_loop() -> GatewayLoop:
    """This process's gateway host, started on first use."""
    with _lock:
        state = _process_state()
        if state["loop"] is None:
            state["loop"] = GatewayLoop()
            state["stats"]["gateway_hosts"] += 1
        return state["loop"]


def stats() -> dict[str, int]:
    """This process's counts: ``split_loads``, ``gateway_hosts``, ``sandboxes_opened``, ``runs``; and its pid."""
    with _lock:
        state = _process_state()
        return {"pid": os.getpid(), **{k: state["stats"][k] for k in
                                       ("split_loads", "gateway_hosts", "sandboxes_opened", "runs")}}


__all__ = ["GatewayLoop", "gateway_loop", "sandbox_for", "split_tasks", "stats"]
