"""Watching one spawned process: feed stdin, keep bounded output tails, enforce the deadline.

Shared by the ``local`` and ``none`` backends (``docker`` uses the tails too). Output is read continuously and
only the first ``HEAD_BYTES`` and the last ``TAIL_BYTES`` of each stream are kept, so an agent printing
gigabytes costs the harness a few KiB.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from .interface import HEAD_BYTES, TAIL_BYTES, Deadline

T = TypeVar("T")

READ_CHUNK = 65536
KILL_GRACE_S = 5.0  # how long a SIGKILLed tree may take to be reaped
DRAIN_GRACE_S = 1.0  # how long to wait for pipes held open by stragglers after the process exits


class OutputTail:
    """The last ``limit`` bytes of a stream, its first ``head_limit`` bytes, and how many bytes it carried
    in all."""

    def __init__(self, limit: int = TAIL_BYTES, head_limit: int = HEAD_BYTES) -> None:
        self.limit, self.head_limit = limit, head_limit
        self.total = 0
        self._buffer = bytearray()
        self._head = bytearray()

    def feed(self, chunk: bytes) -> None:
        if len(self._head) < self.head_limit:
            self._head += chunk[: self.head_limit - len(self._head)]
        self.total += len(chunk)
        self._buffer += chunk[-self.limit :]
        if len(self._buffer) > self.limit:
            del self._buffer[: len(self._buffer) - self.limit]

    def text(self) -> str:
        return self._buffer.decode("utf-8", errors="replace")

    def head(self) -> str:
        return self._head.decode("utf-8", errors="replace")


@dataclass
class Watched:
    returncode: int | None
    timed_out: bool
    wall_s: float
    stdout: OutputTail
    stderr: OutputTail
    aborted: bool = False  # killed because ``abort`` was set, not by the deadline


async def _collect(stream: asyncio.StreamReader | None, tail: OutputTail) -> None:
    if stream is None:
        return
    while chunk := await stream.read(READ_CHUNK):
        tail.feed(chunk)


async def _feed_stdin(proc: asyncio.subprocess.Process, text: str | None) -> None:
    if proc.stdin is None:
        return
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        if text:
            proc.stdin.write(text.encode())
            await proc.stdin.drain()
        proc.stdin.close()
        await proc.stdin.wait_closed()


async def watch(
    proc: asyncio.subprocess.Process,
    *,
    stdin: str | None,
    timeout_s: float,
    kill_tree: Callable[[], None],
    abort: asyncio.Event | None = None,
    waited: Callable[[], float] | None = None,
) -> Watched:
    """Run ``proc`` to its end, its deadline, or until ``abort`` is set (then it is killed); afterwards
    ``kill_tree`` sweeps anything it left behind. The deadline is ``timeout_s`` of the agent's own time:
    it moves later by what ``waited()`` grows (``interface.Deadline``)."""
    began = time.perf_counter()
    deadline = Deadline(began, timeout_s, waited)
    stdout, stderr = OutputTail(), OutputTail()
    readers = [
        asyncio.create_task(_collect(proc.stdout, stdout)),
        asyncio.create_task(_collect(proc.stderr, stderr)),
    ]
    feeder = asyncio.create_task(_feed_stdin(proc, stdin))
    timed_out = aborted = False
    ended = asyncio.create_task(proc.wait())
    stop = asyncio.create_task(abort.wait()) if abort is not None else None
    try:
        waiting = [t for t in (ended, stop) if t is not None]
        done: set = set()
        for left in deadline.waits():
            done, _ = await asyncio.wait(waiting, timeout=left, return_when=asyncio.FIRST_COMPLETED)
            if done:
                break
        if ended not in done:
            timed_out, aborted = stop not in done, stop in done
            kill_tree()
            await asyncio.wait_for(proc.wait(), KILL_GRACE_S)
        wall_s = time.perf_counter() - began
        kill_tree()  # stragglers: background children that outlived the agent
        _, pending = await asyncio.wait(readers, timeout=DRAIN_GRACE_S)
        for task in pending:
            task.cancel()
    finally:
        tasks: list[asyncio.Task[Any]] = [t for t in (*readers, feeder, ended, stop) if t is not None]
        for task in tasks:
            if not task.done():
                task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if proc.returncode is None:  # cancelled from outside: never leave the tree running
            kill_tree()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(proc.wait(), KILL_GRACE_S)
    return Watched(
        returncode=None if timed_out or aborted else proc.returncode,
        timed_out=timed_out,
        aborted=aborted,
        wall_s=wall_s,
        stdout=stdout,
        stderr=stderr,
    )


async def in_own_time(work: Callable[[], Awaitable[T]], timeout_s: float,
                      waited: Callable[[], float] | None = None) -> T:
    """``await work()``, cancelled and ``TimeoutError`` raised once ``timeout_s`` of the agent's own time
    has passed (``interface.Deadline``): the deadline of the agents that run beside the harness
    (hosted endpoints, the built-in model loop), kept as the sandboxes keep theirs."""
    import anyio

    deadline = Deadline(time.perf_counter(), timeout_s, waited)
    result: list[T] = []
    failed: list[Exception] = []
    async with anyio.create_task_group() as group:

        async def run() -> None:
            try:
                result.append(await work())
            except Exception as exc:  # noqa: BLE001 - raised below, as itself rather than in a group
                failed.append(exc)
            finally:
                group.cancel_scope.cancel()

        async def watch() -> None:
            for left in deadline.waits():
                await anyio.sleep(left)
            group.cancel_scope.cancel()

        group.start_soon(run)
        group.start_soon(watch)
    if failed:
        raise failed[0]
    if not result:
        raise TimeoutError(f"the agent's {timeout_s:g} s were up")
    return result[0]
