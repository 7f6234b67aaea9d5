"""What one process keeps across the runs it is handed: the fan-out's O(n).

A fan-out (Prefect's thread pool, or Dask worker processes) calls ``evaluate_task`` once per task. Done
naively, each call loads and unseals its whole split and starts a gateway host, so a month costs the
square of its size. Here each process instead keeps:

- each split's tasks, loaded (a private month unsealed, in memory only) once, keyed by split, store,
  tasks folder and a digest of the secret;
- each sandbox backend, opened once per name;
- one gateway host, serving every run's gateway, on an event loop in a thread of its own;
- for agents that use a model, one model gateway (per model settings) on the same loop, serving every
  run's model endpoint, each run at its own path and metered apart.

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
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any, TypeVar

from mcpbench.agents.spec import Agent, ProcessAgent
from mcpbench.gateway import GatewayHost
from mcpbench.model_gateway import ModelGatewayHost
from mcpbench.runner import model_settings_for, open_sandbox, uses_model
from mcpbench.sandbox import Sandbox
from mcpbench.splits import load_split

T = TypeVar("T")
HOST_START_S = 60.0

_lock = threading.Lock()
_state: dict[str, Any] = {}


def _process_state() -> dict[str, Any]:
    """This process's caches (a forked child starts with empty ones, never its parent's)."""
    if _state.get("pid") != os.getpid():
        _state.clear()
        _state.update(pid=os.getpid(), splits={}, sandboxes={}, loop=None, models=[], stats=Counter())
    return _state


def _secret_digest(secret: str | bytes | None) -> str:
    value = secret if secret is not None else os.environ.get("MCPBENCH_SECRET", "")
    return hashlib.sha256(value.encode() if isinstance(value, str) else value).hexdigest()[:16]


def split_tasks(split: str, *, store, secret: str | bytes | None = None, tasks_dir: Path | None = None) -> dict:
    """The split's tasks by id, loaded once per process."""
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


def sandbox_for(agent: Agent, name: str) -> Sandbox | None:
    """The sandbox backend ``name`` for ``agent`` (None for agents that run beside the harness), opened
    once per process."""
    if not isinstance(agent, ProcessAgent):
        return None
    with _lock:
        state = _process_state()
        if name not in state["sandboxes"]:
            state["sandboxes"][name] = open_sandbox(agent, name)
            state["stats"]["sandboxes_opened"] += 1
        return state["sandboxes"][name]


class GatewayLoop:
    """An event loop in a daemon thread holding this process's hosts open: the gateway host (``host``)
    from the start, a model gateway when one is asked for (``hold``); ``call`` runs a coroutine there and
    waits for it."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True, name="mcpbench-gateway-host")
        self._thread.start()
        self.host: GatewayHost = self.hold(GatewayHost().running)

    def hold(self, running: Callable[[], AbstractAsyncContextManager[T]]) -> T:
        """Enter ``running()`` on the loop and keep it entered for the life of the process; returns what it
        yields once it is up (its error, if it could not start)."""
        ready: Future = Future()
        asyncio.run_coroutine_threadsafe(self._held(running, ready), self._loop)
        return ready.result(timeout=HOST_START_S)

    @staticmethod
    async def _held(running: Callable[[], AbstractAsyncContextManager[Any]], ready: Future) -> None:
        try:
            async with running() as value:
                ready.set_result(value)
                await asyncio.Event().wait()  # never set: held until the process ends
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


def model_gateway(agent: Agent) -> ModelGatewayHost | None:
    """This process's model gateway for the model settings now in the environment (None when ``agent``
    uses no model), started on the gateway loop on first use: every run of every submission the process
    is handed gets its own route and meter on it."""
    if not uses_model(agent):
        return None
    settings = model_settings_for(agent)  # the model pinned, as in run_tasks
    loop = gateway_loop()
    with _lock:
        state = _process_state()
        for held, host in state["models"]:
            if held == settings:
                return host
        host = loop.hold(ModelGatewayHost(settings).running)
        state["models"].append((settings, host))
        state["stats"]["model_gateways"] += 1
        return host


def stats() -> dict[str, int]:
    """This process's counts: ``split_loads``, ``gateway_hosts``, ``model_gateways``, ``sandboxes_opened``,
    ``runs``; and its pid."""
    with _lock:
        state = _process_state()
        return {"pid": os.getpid(), **{k: state["stats"][k] for k in
                                       ("split_loads", "gateway_hosts", "model_gateways", "sandboxes_opened", "runs")}}


__all__ = ["GatewayLoop", "gateway_loop", "model_gateway", "sandbox_for", "split_tasks", "stats"]
