"""The connections of all links together (``_gateway_link.py``), with real sockets: when the budget
across runs is spent, the link holding the most is ended and another run's new connection still goes
through; with no flooder only the new connection is refused; running out of file handles fails at
most a connection. The endpoint is an echo server in a child process, so that every handle the test
process holds is the links'."""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import resource
import subprocess
import sys

import pytest

from mcpbench.sandbox import _gateway_link
from mcpbench.sandbox._gateway_link import HANDFUL, GatewayLink, contain_loop_errors, held_connections

BOUND_S = 30.0
ECHO = """
import socketserver
class Echo(socketserver.BaseRequestHandler):
    def handle(self):
        while data := self.request.recv(65536):
            self.request.sendall(data)
server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Echo)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
"""
FLOOD = """
import resource, socket, sys, time
_, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the harness's lowered limit is not the flooder's
held = []
while True:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(sys.argv[1])
    except OSError:
        s.close()
        time.sleep(0.01)
        continue
    held.append(s)
"""


@pytest.fixture
def echo_port():
    server = subprocess.Popen([sys.executable, "-c", ECHO], stdout=subprocess.PIPE, text=True)
    try:
        yield int(server.stdout.readline())
    finally:
        server.kill()
        server.wait()
        server.stdout.close()


def budget_of(monkeypatch, connections: int) -> None:
    monkeypatch.setattr(_gateway_link, "connection_budget", lambda soft=None: connections)


async def connect(link: GatewayLink):
    """A connection through ``link`` that carries bytes both ways, or None if it was refused."""
    try:
        reader, writer = await asyncio.open_unix_connection(str(link.socket_path))
    except (ConnectionRefusedError, FileNotFoundError):
        return None
    try:
        writer.write(b"ping")
        await writer.drain()
        if await reader.read(4) == b"ping":
            return reader, writer
    except ConnectionError:
        pass
    writer.close()
    return None


def limit_leaving(free: int) -> int:
    """The soft limit under which this process can open ``free`` more handles (the lowest free numbers)."""
    used = {int(fd) for fd in os.listdir("/proc/self/fd")}
    fd = 0
    while free:
        free -= fd not in used
        fd += 1
    return fd


def run(coro):
    async def bounded():
        return await asyncio.wait_for(coro, BOUND_S)
    return asyncio.run(bounded())


def test_when_the_budget_is_spent_the_run_holding_the_most_ends_and_another_runs_connection_goes_through(
        tmp_path, monkeypatch, echo_port):
    budget_of(monkeypatch, 20)
    ended = []

    async def go():
        async with (GatewayLink(tmp_path / "good.sock", echo_port, on_flood=lambda: ended.append("good")) as good,
                    GatewayLink(tmp_path / "bad.sock", echo_port, on_flood=lambda: ended.append("bad")) as bad):
            held = [await connect(good) for _ in range(3)]
            flood = [await connect(bad) for _ in range(HANDFUL + 1)]
            assert all(held) and all(flood) and held_connections() == 20 and not ended
            # The 21st connection is the good run's: the budget is spent, the flooder ends, this one goes through.
            held.append(await connect(good))
            assert held[-1] is not None
            assert ended == ["bad"] and bad.flooded and not good.flooded
            assert "the 20 the harness allows across all runs were spent" in bad.flood_note
            for reader, writer in flood:
                assert await reader.read() == b""  # dropped by the harness
                writer.close()
            assert await connect(bad) is None  # the ended link accepts nothing more
            for reader, writer in held:
                writer.write(b"ping")
                assert await reader.readexactly(4) == b"ping"
                writer.close()
            last = await connect(good)
            assert last is not None
            last[1].close()

    run(go())


def test_with_no_flooder_only_the_new_connection_past_the_budget_is_refused(tmp_path, monkeypatch, echo_port):
    budget_of(monkeypatch, 2 * (HANDFUL - 1))
    ended = []

    async def go():
        async with (GatewayLink(tmp_path / "a.sock", echo_port, on_flood=lambda: ended.append("a")) as a,
                    GatewayLink(tmp_path / "b.sock", echo_port, on_flood=lambda: ended.append("b")) as b):
            held = [await connect(link) for link in (a, b) for _ in range(HANDFUL - 1)]
            assert all(held) and held_connections() == 2 * (HANDFUL - 1)
            assert await connect(a) is None  # even with it, nobody would hold more than a handful: nobody ends
            assert not ended and not a.flooded and not b.flooded and a.refused == 1
            _, writer = held.pop()
            writer.close()
            while held_connections() == 2 * (HANDFUL - 1):  # until the link has let the closed one go
                await asyncio.sleep(0.01)
            held.append(await connect(a))
            assert held[-1] is not None
            for _, writer in held:
                writer.close()

    run(go())


def test_running_out_of_file_handles_ends_the_flooder_and_fails_no_other_connection(
        tmp_path, monkeypatch, echo_port):
    budget_of(monkeypatch, 10_000)  # far above what the lowered limit allows: only the handles run out
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)

    async def go():
        flooded = asyncio.Event()
        async with (GatewayLink(tmp_path / "good.sock", echo_port) as good,
                    GatewayLink(tmp_path / "bad.sock", echo_port, on_flood=flooded.set) as bad):
            held = [await connect(good) for _ in range(2)]
            # Room for 50 handles more: about 25 connections of the flooder (two handles each here).
            resource.setrlimit(resource.RLIMIT_NOFILE, (limit_leaving(50), hard))
            flooder = subprocess.Popen([sys.executable, "-c", FLOOD, str(bad.socket_path)])
            try:
                await flooded.wait()
            finally:
                flooder.kill()
                flooder.wait()
            assert "the harness ran out of file handles" in bad.flood_note, bad.flood_note
            assert not good.flooded
            while bad.held:  # until the flooder's connections are dropped, handles and all
                await asyncio.sleep(0.01)
            # Under the same low limit, the good run's connections still work, old and new.
            held.append(await connect(good))
            assert held[-1] is not None
            for reader, writer in held:
                writer.write(b"ping")
                assert await reader.readexactly(4) == b"ping"
                writer.close()

    try:
        run(go())
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


OUT_OF_HANDLES_ACCEPT = {"message": "socket.accept() out of system resource",  # what asyncio's servers pass
                         "exception": OSError(errno.EMFILE, "Too many open files")}


def test_a_server_accept_that_fails_for_want_of_handles_ends_one_flooder_a_pass_and_is_not_logged(
        tmp_path, monkeypatch, echo_port, caplog):
    budget_of(monkeypatch, 10_000)

    async def go():
        loop = asyncio.get_running_loop()
        contain_loop_errors(loop)
        contain_loop_errors(loop)  # a second host on the same loop keeps the one handler
        async with (GatewayLink(tmp_path / "good.sock", echo_port) as good,
                    GatewayLink(tmp_path / "big.sock", echo_port) as big,
                    GatewayLink(tmp_path / "bigger.sock", echo_port) as bigger):
            held = [await connect(good) for _ in range(2)] + [await connect(big) for _ in range(HANDFUL + 1)]
            held += [await connect(bigger) for _ in range(HANDFUL + 2)]
            assert None not in held
            before = _gateway_link.loop_accept_failures
            for _ in range(3):  # asyncio tries again up to its backlog times in one pass of the loop
                loop.call_exception_handler(OUT_OF_HANDLES_ACCEPT)
            assert _gateway_link.loop_accept_failures == before + 3
            assert bigger.flooded and not big.flooded and not good.flooded
            assert "held 18 connections when the harness ran out of file handles" in bigger.flood_note
            await asyncio.sleep(0)  # the next pass
            loop.call_exception_handler(OUT_OF_HANDLES_ACCEPT)
            assert big.flooded and "held 17 connections when" in big.flood_note, big.flood_note
            loop.call_exception_handler(OUT_OF_HANDLES_ACCEPT)  # no flooder left: nothing more is ended
            assert not good.flooded
            for _, writer in held:
                writer.close()

    with caplog.at_level("DEBUG", logger="asyncio"):
        run(go())
    assert not [r for r in caplog.records if r.name == "asyncio" and r.levelno >= logging.WARNING], caplog.text


def test_other_loop_errors_alike_are_logged_once_and_the_retries_of_a_closed_server_not_at_all(caplog):
    async def go():
        loop = asyncio.get_running_loop()
        contain_loop_errors(loop)
        for _ in range(2048):
            loop.call_exception_handler({"message": "Exception in callback Whatever.run(<socket fd=9>)",
                                         "exception": RuntimeError("broken")})
        loop.call_exception_handler({"message": "Exception in callback Whatever.run(<socket fd=9>)",
                                     "exception": RuntimeError("broken otherwise")})
        retry = {"message": "Exception in callback BaseSelectorEventLoop._start_serving(<function Ser...>)",
                 "exception": ValueError("Invalid file descriptor: -1")}
        loop.call_exception_handler(retry)  # no accept has failed here: it is logged
        loop.call_exception_handler(OUT_OF_HANDLES_ACCEPT)
        loop.call_exception_handler(retry | {"exception": ValueError("Invalid file descriptor: -1")})

    with caplog.at_level("ERROR", logger="asyncio"):
        run(go())
    assert [r.getMessage() for r in caplog.records] == [
        "Exception in callback Whatever.run(<socket fd=9>)", "Exception in callback Whatever.run(<socket fd=9>)",
        "Exception in callback BaseSelectorEventLoop._start_serving(<function Ser...>)"]
    assert [r.exc_info[1].args[0] for r in caplog.records] == ["broken", "broken otherwise", "Invalid file descriptor: -1"]


def test_a_quiet_error_says_how_many_alike_were_left_out_when_it_is_logged_again(monkeypatch, caplog):
    monkeypatch.setattr(_gateway_link, "LOOP_ERROR_QUIET_S", 0.05)

    async def go():
        loop = asyncio.get_running_loop()
        contain_loop_errors(loop)
        for _ in range(5):
            loop.call_exception_handler({"message": "Task exception was never retrieved", "exception": KeyError("k")})
        await asyncio.sleep(0.1)
        loop.call_exception_handler({"message": "Task exception was never retrieved", "exception": KeyError("k")})

    with caplog.at_level("ERROR", logger="asyncio"):
        run(go())
    assert len(caplog.records) == 2
    assert "alike_left_out: 4" not in caplog.records[0].getMessage()
    assert "alike_left_out: 4" in caplog.records[1].getMessage()


def test_any_other_loop_error_goes_to_the_handler_that_was_there_and_its_failure_stops_nothing(capfd):
    seen = []

    def failing(loop, context):
        seen.append(context["message"])
        raise OSError(errno.EMFILE, "Too many open files", "rich/traceback.py")

    async def go():
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(failing)
        contain_loop_errors(loop)
        loop.call_exception_handler({"message": "Task exception was never retrieved", "exception": ValueError("x")})
        await asyncio.sleep(0)
        return "the loop went on"

    assert run(go()) == "the loop went on"
    assert seen == ["Task exception was never retrieved"]
    err = capfd.readouterr().err
    assert "event loop error 'Task exception was never retrieved' (ValueError('x'))" in err
    assert "logging it failed: OSError(24, 'Too many open files')" in err


def test_the_runs_that_fit_leave_each_a_handful_of_connections_past_the_reserve():
    from mcpbench.sandbox._gateway_link import FDS_PER_CONNECTION, FDS_PER_RUN, RESERVED_FDS, runs_that_fit

    per_run = FDS_PER_RUN + HANDFUL * FDS_PER_CONNECTION
    assert runs_that_fit(1024) == (1024 - RESERVED_FDS) // per_run == 12  # a systemd default
    assert runs_that_fit(65536) >= 64  # the raised limit: the CLI's largest --concurrency fits
    assert runs_that_fit(100) == 1  # however low the limit, one run at a time
