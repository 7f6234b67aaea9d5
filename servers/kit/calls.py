"""How a tool call runs: in a worker thread, never on the event loop; one at a time per backend, in
the order the calls arrive; answered within a time limit.

A server's event loop is shared: the gateway carries every run of an evaluation on one loop (their
calls, their sandboxes' links, their deadlines), and ``mcpbench serve`` all its clients. Tool work done
on it, a 5 s SQL statement or a search over a large state, stalled every other run for as long: five
slow queries of one agent failed four other runs. So a call's work is handed to a worker thread
(``CallQueue``) and the loop only waits for it.

A backend's calls still run one at a time, in the order they arrived, so the same calls give the
same state whatever else the process is doing: a backend's state is not made for concurrent writers,
and an agent that sends calls in parallel gets them applied in arrival order.

Time limits. Work that can be interrupted interrupts itself and answers with ``CallTimeout``, leaving
the state as it was: the postgres engine interrupts a statement once it has used
``servers.postgres._engine.STATEMENT_CPU_S`` of CPU time and rolls the call back. Python work cannot be
interrupted: tools bound their inputs instead (argument sizes, page sizes, patterns), so that none
runs long. ``CALL_WALL_LIMIT_S`` is the backstop for what a bound missed: a call still running then is
answered with ``CallTimeout`` saying it may or may not have been applied, and the backend's next call
waits until it has finished (calls never overlap), as does whoever reads the final state
(``CallQueue.settled``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from mcp.server.mcpserver.exceptions import ToolError

T = TypeVar("T")

#: The longest a call may run, in wall-clock seconds, before it is answered with ``CallTimeout``
#: (the postgres engine interrupts its statements before: see the module's docstring).
CALL_WALL_LIMIT_S = 90.0
#: Worker threads at most. A backend uses one at a time; they are made as calls need them and reused.
CALL_THREADS = 256


class CallTimeout(ToolError):
    """A call ran into its time limit. The gateway records it with error kind ``call_timeout``."""


class CallQueue:
    """One backend's tool calls: run one at a time, in arrival order, each in a worker thread, the event
    loop only awaiting it."""

    def __init__(self) -> None:
        self._order: asyncio.Lock | None = None  # FIFO: waiters are served in the order they came
        self._idle = threading.Event()  # set when no call's work is running in a thread
        self._idle.set()

    async def run(self, work: Callable[[], T], what: str) -> T:
        """``work()`` in a worker thread, after the calls that came before it; ``CallTimeout`` naming
        ``what`` if it has not finished within ``CALL_WALL_LIMIT_S``."""
        limit_s = CALL_WALL_LIMIT_S
        if self._order is None:
            self._order = asyncio.Lock()
        async with self._order:
            if not self._idle.is_set():
                await self._wait_idle()  # a call answered at its limit may still be running
            idle = threading.Event()
            self._idle = idle
            loop = asyncio.get_running_loop()
            done = loop.create_future()  # resolved when the work ends, or when its time is up
            future = _pool().submit(_signalling, work, idle)
            future.add_done_callback(lambda _: _call_soon(loop, _resolve, done))
            timer = loop.call_later(limit_s, _resolve, done)
            try:
                await done
            finally:
                timer.cancel()
                if future.cancel():  # never started (every worker busy): it never will
                    idle.set()
            if not future.done():
                raise CallTimeout(
                    f"{what} did not finish within {limit_s:g} s and was abandoned; it may or may not have "
                    "been applied, and the next call waits until it has finished")
            return future.result()

    @property
    def idle(self) -> bool:
        """No call's work is running (one answered at its limit may run on)."""
        return self._idle.is_set()

    async def settled(self, timeout_s: float) -> bool:
        """Wait until no call's work is running, at most ``timeout_s``; whether it is so then."""
        if self.idle:
            return True
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._wait_idle(), timeout_s)
        return self.idle

    async def _wait_idle(self) -> None:
        idle = self._idle
        while not idle.is_set():  # a straggler: rare, so polled rather than signalled across threads
            await asyncio.sleep(0.01)


def _signalling(work: Callable[[], T], idle: threading.Event) -> T:
    try:
        return work()
    finally:
        idle.set()


def _resolve(done: asyncio.Future) -> None:
    if not done.done():
        done.set_result(None)


def _call_soon(loop: asyncio.AbstractEventLoop, fn: Callable[..., Any], *args: Any) -> None:
    try:
        loop.call_soon_threadsafe(fn, *args)
    except RuntimeError:  # the loop is closed: nobody waits for this call any more
        pass


_POOL: concurrent.futures.ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _pool() -> concurrent.futures.ThreadPoolExecutor:
    global _POOL
    if _POOL is None:
        with _POOL_LOCK:
            if _POOL is None:
                _POOL = concurrent.futures.ThreadPoolExecutor(CALL_THREADS, thread_name_prefix="mcpbench-call")
    return _POOL


def _forget_pool() -> None:
    # A forked child has none of its parent's worker threads: it makes its own pool when it needs one.
    global _POOL, _POOL_LOCK
    _POOL, _POOL_LOCK = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_pool)


__all__ = ["CALL_WALL_LIMIT_S", "CallQueue", "CallTimeout"]
