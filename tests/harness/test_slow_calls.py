"""A slow call is its own run's business: its work runs off the event loop that every run shares, in the
run's order, within the call time limit; what the agent waited on the harness is not charged to its
deadline; a stall of the loop loses no call."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import socket
import threading
import time
from pathlib import Path

import anyio
import pytest

from mcpbench.agents._mcp_http import MCPHttpClient, _Connection
from mcpbench.agents.spec import ProcessAgent, parse_agent
from mcpbench.gateway import Gateway, GatewayHost
from mcpbench.sandbox._gateway_link import GatewayLink
from servers import get_spec
from servers.filesystem.tools import FilesystemTools
from servers.postgres import _engine
from tests.harness.conftest import run, script_agent
from tests.harness.test_gateway import make_task

#: A bound on waiting for something that happens within milliseconds when all is well.
BOUND_S = 20.0


def serve(tasks, body, link: Path | None = None):
    """Serve a gateway for each of ``tasks`` on one host and run ``body(urls, gateways)`` in a thread;
    returns ``(what body returned, the gateways, each backend's final state)``. ``link``: a socket path
    where a link (as a sandbox's) leads to the host as well."""

    async def go():
        with anyio.fail_after(120):
            async with GatewayHost().running() as host, contextlib.AsyncExitStack() as stack:
                opened = [stack.enter_context(get_spec(t.server).open(t.initial_state)) for t in tasks]
                gateways = [Gateway(t, tools, run_id=f"run-{i}", submission_id="s")
                            for i, (t, tools) in enumerate(zip(tasks, opened))]
                async with contextlib.AsyncExitStack() as mounted:
                    paths = [await mounted.enter_async_context(host.serve(g)) for g in gateways]
                    if link is not None:
                        await mounted.enter_async_context(GatewayLink(link, host.port))
                    out = await anyio.to_thread.run_sync(body, [f"http://127.0.0.1:{host.port}{p}" for p in paths],
                                                         gateways)
                for g in gateways:
                    assert await g.settled()
                return out, gateways, [tools.snapshot() for tools in opened]

    return anyio.run(go)


def test_a_call_blocked_in_one_run_holds_up_no_other_run_and_its_own_next_call_waits_its_turn(monkeypatch):
    """Run A's first call blocks in its tool until run B has made three calls (on main the tool ran on
    the shared event loop: B could not get through until A's call was over). A's second call, sent while
    the first is blocked, runs after it, and the two are recorded in the order they arrived."""
    release, log = threading.Event(), []
    original = FilesystemTools.list_directory

    @functools.wraps(original)  # the tool's mark, description and signature
    def list_directory(self, path="."):
        log.append(("start", self.run_name, path))
        if (self.run_name, path) == ("A", "archive"):
            release.wait(BOUND_S)
        log.append(("end", self.run_name, path))
        return original(self, path)

    monkeypatch.setattr(FilesystemTools, "list_directory", list_directory)

    def body(urls, gateways):
        for name, g in zip("AB", gateways):
            g.tools.run_name = name
        with MCPHttpClient(urls[0]) as a1, MCPHttpClient(urls[0]) as a2, MCPHttpClient(urls[1]) as b:
            first = threading.Thread(target=a1.call_tool, args=("list_directory", {"path": "archive"}))
            first.start()
            assert _until(lambda: ("start", "A", "archive") in log)
            second = threading.Thread(target=a2.call_tool, args=("list_directory", {"path": "notes"}))
            second.start()
            assert _until(lambda: gateways[0].waits.in_flight == 2)  # A's second call is in the gateway
            answers = [b.call_tool("list_directory", {"path": p}) for p in ("notes", "archive", ".")]
            b_done = list(log)
            release.set()
            first.join(BOUND_S)
            second.join(BOUND_S)
        return answers, b_done

    (answers, b_done), (gw_a, gw_b), _ = serve([make_task(), make_task()], body)
    assert [error for error, _ in answers] == [False, False, False]
    assert ("end", "B", ".") in b_done and ("end", "A", "archive") not in b_done, "B got through while A's call ran"
    assert ("start", "A", "notes") not in b_done, "A's second call waited for its first"
    a_order = [(what, path) for what, run_name, path in log if run_name == "A"]
    assert a_order == [("start", "archive"), ("end", "archive"), ("start", "notes"), ("end", "notes")]
    assert [(c.seq, c.arguments_json) for c in gw_a.calls] == [(1, '{"path": "archive"}'), (2, '{"path": "notes"}')]
    assert [c.seq for c in gw_b.calls] == [1, 2, 3]


def test_a_call_past_the_time_limit_is_answered_as_a_call_timeout_and_the_next_call_waits_for_it(monkeypatch):
    """Python work cannot be interrupted: the call is answered at the limit, saying it may have been
    applied; the run's next call runs only once that work is over, and sees what it did."""
    monkeypatch.setattr("servers.kit.calls.CALL_WALL_LIMIT_S", 0.2)
    finish, log = threading.Event(), []
    original = FilesystemTools.write_file

    @functools.wraps(original)
    def write_file(self, path, content):
        log.append("write started")
        finish.wait(BOUND_S)
        result = original(self, path, content)
        log.append("write done")
        return result

    monkeypatch.setattr(FilesystemTools, "write_file", write_file)
    task = make_task(available_tools=["read_text_file", "write_file"])

    def body(urls, gateways):
        with MCPHttpClient(urls[0]) as c:
            first = c.call_tool("write_file", {"path": "notes/late.md", "content": "written late\n"})
            assert not gateways[0].tools.calls.idle, "the write still runs"
            second = []
            reader = threading.Thread(target=lambda: second.append(c.call_tool("read_text_file", {"path": "notes/late.md"})))
            reader.start()
            assert _until(lambda: gateways[0].waits.in_flight == 1)
            assert log == ["write started"]
            finish.set()
            reader.join(BOUND_S)
        return first, second[0]

    (first, second), (gw,), (final,) = serve([task], body)
    assert first[0] and "did not finish within 0.2 s" in first[1] and "may or may not have been applied" in first[1]
    assert second == (False, "written late\n")
    assert [c.error_kind for c in gw.calls] == ["call_timeout", None]
    assert final.files["notes/late.md"] == "written late\n"


PG_STATE = {"tables": [{"name": "orders", "columns": [{"name": "id", "type": "INTEGER", "nullable": False},
                                                      {"name": "status", "type": "VARCHAR"}],
                        "primary_key": ["id"], "rows": [[1042, "packed"], [1043, "packed"]]}]}


def test_a_statement_past_its_cpu_budget_is_recorded_as_a_call_timeout_and_changes_nothing(monkeypatch):
    monkeypatch.setattr(_engine, "STATEMENT_CPU_S", 0.3)
    task = make_task(id="pg-slow-probe", server="postgres", initial_state=PG_STATE, goal="Ship order 1042.",
                     available_tools=["query", "execute"],
                     frame=[{"entity": "postgres.row", "ids": ["orders/1042"], "fields": ["status"]}],
                     success={"postgres.columnEquals": {"table": "orders", "where": {"id": 1042}, "column": "status",
                                                        "value": "shipped"}},
                     reference_solution=[{"tool": "execute", "arguments": {
                         "sql": "UPDATE orders SET status = 'shipped' WHERE id = 1042"}}],
                     wrong_solutions=[{"why": "reads only", "calls": [{"tool": "query", "arguments": {"sql": "SELECT 1"}}]}])

    def body(urls, gateways):
        with MCPHttpClient(urls[0]) as c:
            slow = c.call_tool("execute", {"sql": "UPDATE orders SET status = 'shipped' WHERE id = 1042; "
                                                  "SELECT sum(hash(i)) FROM range(1000000000000) t(i)"})
            after = c.call_tool("query", {"sql": "SELECT status FROM orders WHERE id = 1042"})
        return slow, after

    (slow, after), (gw,), (final,) = serve([task], body)
    assert slow[0] and "ran longer than 0.3 s of CPU time" in slow[1] and "rolled back" in slow[1]
    assert not after[0] and '"packed"' in after[1]
    assert [c.error_kind for c in gw.calls] == ["call_timeout", None]
    assert final.table("orders").rows == [[1042, "packed"], [1043, "packed"]]


class _UnixConnection(_Connection):
    """The stdlib client's connection, to a Unix socket (a link's host end) instead of a TCP port."""

    def __init__(self, path: str, host: str, port: int, timeout: float) -> None:
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(timeout)
        self._sock.connect(path)
        self._file = self._sock.makefile("rb")
        self._host = f"{host}:{port}"
        self.open = True


class _LinkClient(MCPHttpClient):
    def __init__(self, socket_path: str, url: str) -> None:
        super().__init__(url, timeout=BOUND_S)
        self.socket_path = socket_path

    def _connection(self) -> _Connection:
        if self._conn is None:
            self._conn = _UnixConnection(self.socket_path, self.host, self.port, self.timeout)
        return self._conn


#: Longer than uvicorn's default keep-alive (5 s): the idle timer then closed the connection on which the
#: agent's next call was waiting, and the call was lost.
STALL_S = 6.0


def test_a_stall_of_the_event_loop_loses_no_call_waiting_on_a_kept_alive_connection(tmp_path):
    """The call goes through a link, as a sandboxed agent's does: its bytes wait in the link while the
    loop is stalled, and reach the gateway only after the loop has looked at its timers."""
    socket_path = tmp_path / "link.sock"

    def body(urls, gateways):
        stalled = threading.Event()

        def stall():  # the loop blocked, as by work of the harness that should not be on it
            stalled.set()
            time.sleep(STALL_S)

        with _LinkClient(str(socket_path), urls[0]) as client:
            first = client.call_tool("list_directory", {"path": "notes"})
            anyio.from_thread.run_sync(lambda: asyncio.get_running_loop().call_soon(stall))
            assert stalled.wait(BOUND_S)
            second = client.call_tool("read_text_file", {"path": "notes/plan.md"})
        return first, second, gateways[0].waits.seconds()

    (first, second, waited), _, _ = serve([make_task()], body, link=socket_path)
    assert not first[0] and second == (False, "ship on Friday\n")
    assert waited >= STALL_S * 0.9, "the stall is counted as the agent's time waiting on the harness"


def _until(condition, bound_s: float = BOUND_S) -> bool:
    """Whether ``condition()`` comes true within ``bound_s`` (looked at every few milliseconds)."""
    deadline = time.monotonic() + bound_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        threading.Event().wait(0.005)
    return True


# -- runs in a sandbox, both backends -------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class SlowOnOneTask(ProcessAgent):
    """One agent of one submission: on ``slow_task`` five queries that each run into the statement time
    limit (tests/harness/agents/slow_sql.py), on every other task the oracle."""

    slow_task: str = ""

    @property
    def uses_model(self) -> bool:
        return False

    def process(self, job, gateway_port, model_port=None):
        chosen = script_agent("slow_sql") if job.task.id == self.slow_task else parse_agent("oracle")
        return chosen.process(job, gateway_port, model_port)


def test_a_slow_query_agent_beside_four_oracle_runs_fails_none_of_them(dev_tasks, backend):
    """The issue's attack: on main the four oracle runs hung and ended as agent_exit. The slow run itself
    has 10 s of its own time and spends 25 s waiting on its queries: not charged, it ends as it chose."""
    slow = next(t for t in dev_tasks if t.server == "postgres" and "query" in t.available_tools)
    slow = slow.model_copy(update={"timeout_s": 10.0})
    others = [next(t for t in dev_tasks if t.server == name) for name in ("filesystem", "slack", "github", "stripe")]
    agent = SlowOnOneTask("command:slow-on-one-task", ("unused",), slow_task=slow.id)
    results = {r.run.task_id: r for r in run([slow, *others], agent, concurrency=5, sandbox=backend)}
    for task in others:
        good = results[task.id]
        assert good.run.passed, (task.id, good.run.end_reason, good.outcome.stderr_tail[-500:])
    bad = results[slow.id]
    assert [c.error_kind for c in bad.calls] == ["call_timeout"] * 5, bad.outcome.stdout_tail
    assert all("ran longer than 5 s of CPU time" in c.error_message for c in bad.calls)
    assert not bad.run.timed_out and bad.run.exit_code == 0 and bad.run.end_reason == "predicate_false"
    assert bad.run.harness_wait_s >= 25.0 > bad.run.timeout_s


@pytest.fixture
def stalled_after_first_call(monkeypatch):
    """After the first call of each run, the harness's event loop stalls for ``STALL_S``, before the
    call's answer goes out (as a harness bug would stall it)."""
    original = Gateway.call

    async def call(self, name, arguments):
        result = await original(self, name, arguments)
        if len(self.calls) == 1:
            asyncio.get_running_loop().call_soon(time.sleep, STALL_S)
        return result

    monkeypatch.setattr(Gateway, "call", call)


def test_a_stalled_event_loop_is_not_charged_to_the_agents_deadline(dev_tasks, backend, stalled_after_first_call):
    """2 s of the agent's own time, and a stall of 6 s while it waits for an answer: on main the local
    sandbox killed it once the loop came back, docker's deadline thread during the stall."""
    task = next(t for t in dev_tasks if t.server == "filesystem").model_copy(update={"timeout_s": 2.0})
    (result,) = run([task], "oracle", sandbox=backend)
    assert result.run.passed, (result.run.end_reason, result.outcome.stderr_tail)
    assert result.run.harness_wait_s >= STALL_S * 0.9


def test_only_calls_within_the_step_budget_count_as_time_waiting_on_the_harness(monkeypatch):
    """Past the budget a call is refused at once, but a flood of them would be time the agent could add
    to its run at will: the calls in flight of a run with a budget of 2, the third one uncounted."""
    task = make_task(max_steps=2)
    release = asyncio.Event()
    original = Gateway._decide

    async def held(self, *args):
        await release.wait()
        return await original(self, *args)

    monkeypatch.setattr(Gateway, "_decide", held)

    async def go():
        with anyio.fail_after(30), get_spec("filesystem").open(task.initial_state) as tools:
            gw = Gateway(task, tools, run_id="r", submission_id="s")
            counted = []
            async with anyio.create_task_group() as tg:
                for _ in range(3):
                    tg.start_soon(gw.call, "list_directory", {"path": "notes"})
                    await anyio.sleep(0)
                    counted.append(gw.waits.in_flight)
                release.set()
            return counted, [c.error_kind for c in gw.calls], gw.waits.in_flight

    counted, kinds, after = anyio.run(go)
    assert counted == [1, 2, 2] and after == 0
    assert kinds == [None, None, "over_budget"]
