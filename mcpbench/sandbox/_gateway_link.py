"""The host end of an endpoint link: a Unix socket whose every connection is spliced to one loopback port.

The socket lives in a private directory that is bind-mounted into the sandbox (``local``) or into the
relay container (``docker``), which turns it back into ``127.0.0.1:<port>``. A link can only ever
reach ``127.0.0.1:<port>``: the sandbox chooses nothing about the destination.

Connections are counted where they are accepted, here, not only in the forwarder: an agent can
connect to the socket directly. Each one held costs the harness ``FDS_PER_CONNECTION`` file handles,
so two bounds apply, and passing either ends the run that passed it (``on_flood``, the agent's
failure; the link then stops accepting and drops what it holds):

- per link: at most ``max_connections`` held at once (the first one past that ends its run);
- per process, across every live link of every run: ``connection_budget()``, derived from the soft
  ``RLIMIT_NOFILE`` with room left for everything else the harness holds. When it is spent, the link
  holding the most connections is ended if it holds more than a legitimate agent would (``HANDFUL``);
  the new connection of any other run is still accepted, on the room the budget leaves. If no link
  holds that many, only the new connection is refused.

A failed accept (the process out of handles after all) or a failed connect to the port fails at most
that one connection: it is never raised into the event loop, whose error logging would itself need
handles. The servers the harness hosts (the gateway host's, the model gateway's) accept through asyncio,
which hands such a failure to the loop's exception handler and tries again a second later:
``contain_loop_errors`` makes that handler end the flooder as a failed link accept does, and keeps a
handler that fails (rich's, which the mcp SDK installs, imports a module lazily) from stopping the loop.
``raise_open_file_limit()`` lifts the soft limit to the hard one (``NOFILE_CEILING`` at
most) once per process, before the first run.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import resource
import socket
import threading
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)

RELAY_CHUNK = 65536
#: Connections one link may hold at once. The forwarder refuses past 64 itself, so an agent that
#: goes through it never reaches this; only one that connects to the socket directly does.
MAX_CONNECTIONS = 128
#: What one held connection costs the harness: the accepted inside socket, the client socket to the
#: port, and the in-process gateway's accepted socket.
FDS_PER_CONNECTION = 3
#: Handles left for everything else (gateway host, store writes, DuckDB, each run's pipes and cgroup
#: files): a quarter of the soft limit, and at least this many.
RESERVED_FDS = 256
#: The budget never goes below this many connections, however low the limit (a harness that cannot
#: hold this many has no room for runs anyway).
MIN_BUDGET = 32
#: A link holding this many or fewer is never ended for the budget: a legitimate agent holds a few.
HANDFUL = 16
#: A run's own handles besides its link connections (the sandbox's pipes and private directory, its
#: gateway session, its landing): about 8 measured at 1-8 runs at once, twice that for room.
FDS_PER_RUN = 16
#: The soft limit ``raise_open_file_limit`` sets at most (a hard limit of a million is common).
NOFILE_CEILING = 65536
#: How long the accept loop waits before trying again when the process is out of handles.
ACCEPT_RETRY_S = 0.05
OUT_OF_HANDLES = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)

_lock = threading.Lock()  # links live on several event loops where runs are fanned out over threads
_links: set[GatewayLink] = set()
_raised: int | None = None  # the pid that raised its limit (a forked child inherits the raised limit)
_original_soft: int | None = None
#: Accept attempts by servers on a ``contain_loop_errors`` loop that failed for want of handles.
loop_accept_failures = 0
#: Errors alike on such a loop are logged once in this many seconds; the rest are counted.
LOOP_ERROR_QUIET_S = 60.0


def raise_open_file_limit() -> tuple[int, int]:
    """Lift this process's soft ``RLIMIT_NOFILE`` to its hard limit (at most ``NOFILE_CEILING``; a soft
    limit already higher is kept), once per process. Returns the (soft, hard) limits now in force."""
    global _raised, _original_soft
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if _raised == os.getpid():
        return soft, hard
    with _lock:
        if _raised != os.getpid():
            target = NOFILE_CEILING if hard == resource.RLIM_INFINITY else min(hard, NOFILE_CEILING)
            if soft != resource.RLIM_INFINITY and soft < target:
                try:
                    resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
                except (ValueError, OSError) as exc:  # e.g. above fs.nr_open: the budget follows what holds
                    log.warning("could not raise the open-file limit from %d to %d: %s", soft, target, exc)
                else:
                    if _original_soft is None:
                        _original_soft = soft
            _raised = os.getpid()
    return resource.getrlimit(resource.RLIMIT_NOFILE)


def original_soft_limit() -> int | None:
    """The soft limit this process started with, if ``raise_open_file_limit`` raised it (children such
    as the agent get it back), else None."""
    return _original_soft


def connection_budget(soft: int | None = None) -> int:
    """How many link connections this process may hold at once across all its runs, for a soft
    ``RLIMIT_NOFILE`` of ``soft`` (the current one if not given)."""
    if soft is None:
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft == resource.RLIM_INFINITY:
        soft = NOFILE_CEILING
    reserved = max(RESERVED_FDS, soft // 4)
    return max(MIN_BUDGET, (soft - reserved) // FDS_PER_CONNECTION)


def runs_that_fit(soft: int | None = None) -> int:
    """How many runs this process can hold at once, each with its own handles and a handful
    (``HANDFUL``) of link connections, past the reserve, for a soft ``RLIMIT_NOFILE`` of ``soft``
    (the current one if not given): 12 at 1024, far more than any concurrency once the limit is raised.
    More at once, and a legitimate run's connection could be refused for want of handles."""
    if soft is None:
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft == resource.RLIM_INFINITY:
        soft = NOFILE_CEILING
    return max(1, (soft - RESERVED_FDS) // (FDS_PER_RUN + HANDFUL * FDS_PER_CONNECTION))


def concurrency_that_fits(concurrency: int) -> int:
    """``concurrency``, or fewer runs at once when this process's file handles (its limit raised first)
    cannot hold that many (``runs_that_fit``): a legitimate run's connection refused for want of
    handles would fail its agent for our limit; fewer at once only takes longer. Says so when it cuts."""
    soft, _ = raise_open_file_limit()
    fits = runs_that_fit(soft)
    if concurrency <= fits:
        return concurrency
    log.warning("running %d tasks at once, not %d: this process may open only %d files (ulimit -n); raise "
                "its hard limit to run more at once", fits, concurrency, soft)
    return fits


def contain_loop_errors(loop: asyncio.AbstractEventLoop) -> None:
    """Make ``loop``'s exception handler safe for a harness that may run out of file handles; once per
    loop, keeping the handler it had for everything else.

    - An accept that failed for want of handles is counted in ``loop_accept_failures`` and ends the
      flooder holding the most connections, as a link's failed accept does, and is not logged: logging
      may itself need a handle. asyncio's servers try such an accept again up to their backlog times in
      one pass of the loop (and once more a second later for each): one pass ends one flooder at most.
    - The retries a pass left behind fail if their server has closed by then (its socket has no
      descriptor): they had nothing left to serve, and are dropped.
    - Any other error goes to the handler that was there, once per ``LOOP_ERROR_QUIET_S`` for errors
      alike (the same message before its details, the same exception), with how many alike were left
      out since.
    - If that handler fails, one line goes to the standard error descriptor instead, and the loop goes on.
    """
    previous = loop.get_exception_handler()
    if getattr(previous, "_contains_loop_errors", False):
        return
    ending = retries_left = False
    logged: dict[tuple[str, str, str], float] = {}
    left_out: dict[tuple[str, str, str], int] = {}

    def pass_over() -> None:
        nonlocal ending
        ending = False

    def handle(loop: asyncio.AbstractEventLoop, context: dict) -> None:
        global loop_accept_failures
        nonlocal ending, retries_left
        exc = context.get("exception")
        if isinstance(exc, OSError) and exc.errno in OUT_OF_HANDLES:
            with _lock:
                loop_accept_failures += 1
            retries_left = True
            if not ending:
                ending = True
                loop.call_soon(pass_over)
                _end_chosen(None, out_of_handles=True)
            return
        if retries_left and isinstance(exc, ValueError) and "._start_serving(" in str(context.get("message")):
            return
        alike = (str(context.get("message", "")).split("(", 1)[0], type(exc).__name__, str(exc)[:200])
        now = loop.time()
        if now < logged.get(alike, -LOOP_ERROR_QUIET_S) + LOOP_ERROR_QUIET_S:
            left_out[alike] = left_out.get(alike, 0) + 1
            return
        logged[alike] = now
        if skipped := left_out.pop(alike, 0):
            context = {**context, "alike_left_out": skipped}
        try:
            if previous is not None:
                previous(loop, context)
            else:
                loop.default_exception_handler(context)
        except Exception as failed:  # noqa: BLE001 - the loop serves every run: it must outlive its logging
            with contextlib.suppress(OSError):
                os.write(2, f"mcpbench: event loop error {context.get('message', '')!r} ({exc!r}); "
                            f"logging it failed: {failed!r}\n".encode(errors="replace"))

    handle._contains_loop_errors = True  # type: ignore[attr-defined]
    loop.set_exception_handler(handle)


def held_connections() -> int:
    """Link connections held now by this process, across all live links."""
    with _lock:
        return sum(link.held for link in _links)


def _choose_victim(newcomer: GatewayLink | None, *,
                   out_of_handles: bool = False) -> tuple[GatewayLink | None, str, bool]:
    """With the lock held: the link to end now and why (or None and ""), and whether the connection
    ``newcomer`` just accepted (already counted in its ``held``) must be refused all the same.
    ``out_of_handles``: an accept or a connect to the port failed for want of handles, whatever the budget says."""
    if newcomer is not None and newcomer.flooded:
        return None, "", True  # ended already (from another loop): it serves nothing more
    if newcomer is not None and newcomer.held > newcomer.max_connections:
        return newcomer, f"held {newcomer.max_connections} connections at once, the most one link may hold", True
    live = [link for link in _links if not link.flooded]
    budget, total = connection_budget(), sum(link.held for link in live)
    if not live or (total <= budget and not out_of_handles):
        return None, "", False
    biggest = max(live, key=lambda link: (link.held, link is newcomer))
    if biggest.held <= HANDFUL:
        return None, "", True  # no flooder to end: only the new connection is refused
    why = ("the harness ran out of file handles" if out_of_handles
           else f"the {budget} the harness allows across all runs were spent")
    held = biggest.held - (biggest is newcomer)  # the new connection is refused, never held
    return biggest, f"held {held} connections when {why}, the most of any run", biggest is newcomer


def _end_chosen(newcomer: GatewayLink | None, *, out_of_handles: bool = False) -> bool:
    """End the link a bound says must end, if any (on its own loop); whether ``newcomer``'s new
    connection must be refused (then it is no longer counted)."""
    with _lock:
        victim, note, refuse = _choose_victim(newcomer, out_of_handles=out_of_handles)
        if victim is not None:
            victim.flooded, victim.flood_note = True, note
        if refuse and newcomer is not None:
            newcomer.held -= 1
    if victim is not None:
        victim._end_soon()
    return refuse


class GatewayLink:
    """``async with GatewayLink(socket_path, port):`` serves the socket for the run's duration.

    ``on_flood`` is called once, on the event loop that entered the link, when the link is ended for
    holding too many connections (``flood_note`` says which bound); ``owner`` (uid, gid) is given the
    socket, so an agent running as that uid may connect to it.
    """

    def __init__(self, socket_path: Path, port: int, *, max_connections: int = MAX_CONNECTIONS,
                 on_flood: Callable[[], None] | None = None, owner: tuple[int, int] | None = None) -> None:
        if max_connections < 1:
            raise ValueError(f"max_connections must be at least 1, got {max_connections}")
        self.socket_path = socket_path
        self.gateway_port = port
        self.max_connections = max_connections
        self.on_flood = on_flood
        self.owner = owner
        self.flooded = False
        self.flood_note = ""
        self.held = 0  # connections held now (changed under the module lock)
        self.refused = 0  # connections closed unserved: past a bound, or after the link was ended
        self.accept_failures = 0  # accepts that failed for want of handles (retried)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._listener: socket.socket | None = None
        self._acceptor: asyncio.Task | None = None
        self._connections: dict[asyncio.Task, socket.socket | None] = {}  # the socket until a transport has it
        self._ended = False

    async def __aenter__(self) -> GatewayLink:
        self._loop = asyncio.get_running_loop()
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(str(self.socket_path))
            if self.owner is not None:
                os.chown(self.socket_path, *self.owner)
            listener.listen(100)
            listener.setblocking(False)
        except BaseException:
            listener.close()
            raise
        self._listener = listener
        with _lock:
            _links.add(self)
        self._acceptor = self._loop.create_task(self._accept())
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        with _lock:
            _links.discard(self)
        tasks = [t for t in (self._acceptor, *self._connections) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._listener is not None:
            self._listener.close()
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()

    async def _accept(self) -> None:
        assert self._loop is not None and self._listener is not None
        try:
            while not self.flooded:
                try:
                    conn, _ = await self._loop.sock_accept(self._listener)
                except OSError as exc:
                    if exc.errno in (errno.ECONNABORTED, errno.EPROTO, errno.EPERM):
                        continue
                    if exc.errno not in OUT_OF_HANDLES:
                        log.warning("link %s stops accepting: %s", self.socket_path.name, exc)
                        return
                    # The connection waits in the backlog; end a flooder if one holds the handles.
                    self.accept_failures += 1
                    if self.accept_failures == 1:
                        log.warning("link %s: out of file handles, holding %d connections across runs",
                                    self.socket_path.name, held_connections())
                    _end_chosen(None, out_of_handles=True)
                    await asyncio.sleep(ACCEPT_RETRY_S)
                    continue
                self._admit(conn)
        finally:
            self._listener.close()  # the run is over or ended: nothing more may connect

    def _admit(self, conn: socket.socket) -> None:
        with _lock:
            self.held += 1
        if _end_chosen(self):
            self.refused += 1
            conn.close()
            return
        assert self._loop is not None
        task = self._loop.create_task(self._splice(conn))
        self._connections[task] = conn
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task) -> None:
        # Here, not in the splice: a task cancelled before its first step never runs its ``finally``.
        conn = self._connections.pop(task)
        with _lock:
            self.held -= 1
        if conn is not None:  # never handed to a transport
            conn.close()

    def _end_soon(self) -> None:
        """Run ``_end`` on this link's own event loop (the caller may be on another one)."""
        assert self._loop is not None
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            self._end()
        else:
            with contextlib.suppress(RuntimeError):  # that loop is closed: its run is over already
                self._loop.call_soon_threadsafe(self._end)

    def _end(self) -> None:
        if self._ended:
            return
        self._ended = True
        log.info("link %s ended: %s", self.socket_path.name, self.flood_note)
        if self._acceptor is not None and self._acceptor is not asyncio.current_task():
            self._acceptor.cancel()
        for task in list(self._connections):
            task.cancel()
        if self.on_flood is not None:
            self.on_flood()

    async def _splice(self, conn: socket.socket) -> None:
        task = asyncio.current_task()
        assert task is not None
        inside_writer = gateway_writer = None
        try:
            try:
                inside_reader, inside_writer = await asyncio.open_unix_connection(sock=conn)
                self._connections[task] = None  # the transport closes it from now on
                gateway_reader, gateway_writer = await asyncio.open_connection("127.0.0.1", self.gateway_port)
            except OSError as exc:  # out of handles, or the port is gone: this connection fails, nothing else
                if exc.errno in OUT_OF_HANDLES:
                    _end_chosen(None, out_of_handles=True)
                return
            await asyncio.gather(_pump(inside_reader, gateway_writer), _pump(gateway_reader, inside_writer))
        finally:
            writers = [writer for writer in (inside_writer, gateway_writer) if writer is not None]
            for writer in writers:  # both first: a cancel in the wait below must not skip the second
                if self.flooded:
                    writer.transport.abort()  # frees the handle now, whatever the peer left unread
                else:
                    writer.close()
            try:
                for writer in writers:
                    with contextlib.suppress(Exception):
                        await writer.wait_closed()
            except asyncio.CancelledError:  # the run is over: what is still unsent is dropped
                for writer in writers:
                    writer.transport.abort()
                raise


def flood_notes(links: list[GatewayLink]) -> list[str]:
    """What the run's outcome says about links ended for a flood, one note each."""
    return [f"the link to port {link.gateway_port} {link.flood_note}; {link.refused} connection(s) refused; "
            "run ended" for link in links if link.flooded]


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(RELAY_CHUNK):
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except (ConnectionError, OSError):
        pass
