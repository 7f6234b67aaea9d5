"""The ``interactive`` agent: a person, or a model acting as an independent solver, works a task by hand
through the run's gateway (in the spirit of Inspect AI's human agent).

For each run it prints the goal, the budget and the tools (name, description, arguments as JSON Schema;
a cross-server task's servers too, its tools named ``<server>__<tool>``), nothing else of the task: no
id, no difficulty, no solution. It then reads one call per line as JSON,
``{"tool": "<name>", "arguments": {...}}``, makes it over MCP through the gateway like any agent, and
prints the result. ``done`` (or ``{"done": true}``, or the end of input) finishes the run; the judge then
decides from the final state, as for every agent. Lines that are not a call (not JSON, no tool) are
answered with what is wrong and never reach the gateway.

Input comes from the harness's standard input (``--agent interactive``: a person at a terminal) or from
a file or named pipe (``--agent interactive:<path>``): read line by line and opened again at its end, so
a solver can append one call at a time (``echo '{...}' >> calls``, or write to a FIFO) and read the
answers from the output. Runs are worked one at a time. A person or a model thinks slower than a
program: ``MCPBENCH_INTERACTIVE_TIMEOUT_S`` replaces every task's ``timeout_s`` for interactive runs
(calibration and human baselines; their times do not compare with agents').
"""

from __future__ import annotations

import json
import queue
import sys
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

import anyio

from mcpbench.agents.openai_loop import outcome
from mcpbench.agents.spec import AgentJob, InteractiveAgent
from mcpbench.sandbox._supervise import in_own_time
from mcpbench.sandbox.interface import ProcessOutcome
from mcpbench.tls import shared_context

#: What a line may say to finish the run.
DONE = ("done", '{"done": true}', '{"done":true}')
#: How often a file source is read again for new lines once it has none.
POLL_S = 0.2


class LineSource:
    """Lines of input: the harness's stdin, or a file or FIFO. A file is read from where the last line
    ended, waiting for each new whole line (a writer appends one at a time); a FIFO is opened again when
    its writer closes it. One source serves every run of an evaluation (``source_for``), so a line is
    read once."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self._file: TextIO | None = None
        self._offset = 0
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader: threading.Thread | None = None

    def _read(self) -> str | None:
        """One line, waiting for it; None at the end of the harness's stdin."""
        if self.path is None:
            line = sys.stdin.readline()
            return line if line else None
        fifo = _is_fifo(self.path)
        while True:
            if self._file is None:
                try:
                    self._file = open(self.path, encoding="utf-8", errors="replace")  # noqa: SIM115 - kept open
                except FileNotFoundError:  # not written yet
                    time.sleep(POLL_S)
                    continue
                if not fifo:
                    self._file.seek(self._offset)
            line = self._file.readline()
            if line.endswith("\n"):
                if not fifo:
                    self._offset = self._file.tell()
                return line
            if fifo:  # its writer closed it: open it again (a last line without a newline still counts)
                self._file.close()
                self._file = None
                if line:
                    return line
            else:  # no whole new line yet: read it again from where the last one ended
                self._file.seek(self._offset)
                time.sleep(POLL_S)

    async def readline(self) -> str | None:
        """The next line, waited for without holding the event loop (the gateway serves on it). Lines are
        read by a daemon thread of the source's own, so a read still waiting when a run ends (time is up)
        neither blocks the process's exit nor loses the line: the next run gets it."""
        if self._reader is None:
            self._reader = threading.Thread(target=self._pump, name="interactive-input", daemon=True)
            self._reader.start()
        while True:
            try:
                line = self._lines.get_nowait()
            except queue.Empty:
                await anyio.sleep(POLL_S / 4)
                continue
            if line is None:  # the end of stdin ends this run and every later one
                self._lines.put(None)
            return line

    def _pump(self) -> None:
        while True:
            line = self._read()
            self._lines.put(line)
            if line is None:
                return


_SOURCES: dict[str | None, LineSource] = {}


def source_for(path: str | None) -> LineSource:
    """The one source of ``path`` (None: stdin) for this process: consecutive runs read on from it."""
    if path not in _SOURCES:
        _SOURCES[path] = LineSource(path)
    return _SOURCES[path]


def _is_fifo(path: str) -> bool:
    try:
        return Path(path).is_fifo()
    except OSError:
        return False


def describe_tools(tools: list[Any]) -> list[str]:
    """The tools as a person reads them: name, description and the arguments' JSON Schema on one line."""
    lines = []
    for tool in tools:
        schema = dict(tool.input_schema or {})
        schema.pop("title", None)
        lines.append(f"- {tool.name}: {(tool.description or '').strip()}")
        lines.append(f"  arguments: {json.dumps(schema, separators=(',', ':'), sort_keys=True)}")
    return lines


def parse_call(line: str) -> tuple[str, dict[str, Any]] | str:
    """A call ``(tool, arguments)`` from one line of input, or why the line is not one."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        return f"not JSON ({exc.msg} at column {exc.colno}); expected {{\"tool\": ..., \"arguments\": {{...}}}}"
    if not isinstance(data, dict) or not isinstance(data.get("tool"), str) or not data["tool"]:
        return "a call needs a \"tool\" (a tool's name from the list)"
    arguments = data.get("arguments", {})
    if not isinstance(arguments, dict):
        return "\"arguments\" must be a JSON object"
    unknown = sorted(set(data) - {"tool", "arguments"})
    if unknown:
        return f"unknown keys {unknown}: a call has \"tool\" and \"arguments\""
    return data["tool"], arguments


async def run_interactive(agent: InteractiveAgent, job: AgentJob, *, out: TextIO | None = None,
                          waited: Callable[[], float] | None = None) -> ProcessOutcome:
    """Work ``job`` by hand: print the goal and tools to ``out`` (stdout), make each call read from the
    agent's input, within the run's time of its own (``agent.timeout_s`` or the task's; what ``waited()``
    says its calls waited on the harness is not charged). Never raises for what the person types."""
    out = out or sys.stdout
    started, t0 = datetime.now(UTC), time.perf_counter()
    notes: list[str] = []
    budget_s = max(0.001, job.deadline - time.time()) if agent.timeout_s is None else agent.timeout_s

    def say(*lines: str) -> None:
        out.write("\n".join(lines) + "\n")
        out.flush()

    try:
        calls = await in_own_time(lambda: _session(agent, job, say, notes, budget_s), budget_s, waited)
    except TimeoutError:
        say("=== time is up: the run ends here ===")
        return outcome(started, t0, exit_code=None, timed_out=True, reason="timeout", stderr="\n".join(notes))
    except Exception as exc:  # noqa: BLE001 - the gateway went away, the input broke: the person's run ends
        say(f"=== the run ended: {type(exc).__name__}: {exc} ===")
        return outcome(started, t0, exit_code=1, stderr="\n".join([*notes, f"interactive: {exc}"]))
    say(f"=== done after {calls} calls: the final state is judged ===", "")
    return outcome(started, t0, exit_code=0, stderr="\n".join(notes))


async def _session(agent: InteractiveAgent, job: AgentJob, say: Callable[..., None], notes: list[str],
                   budget_s: float) -> int:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    source = source_for(agent.source)
    # no read timeout of its own: the run's own time bounds every wait (``in_own_time``)
    http = httpx2.AsyncClient(timeout=httpx2.Timeout(10.0, read=None), verify=shared_context())
    async with http, Client(streamable_http_client(job.mcp_url, http_client=http)) as mcp:
        tools = (await mcp.list_tools()).tools
        servers = [f"SERVERS: {', '.join(job.mcp_urls)}: each tool is named <server>__<tool>"] if job.mcp_urls else []
        say("=== a new task ===", "GOAL:", job.task.goal, "",
            f"BUDGET: {job.task.max_steps} tool calls, {round(budget_s)} s", *servers,
            f"TOOLS ({len(tools)}):", *describe_tools(tools), "",
            'One call per line: {"tool": "<name>", "arguments": {...}}. "done" finishes the task.')
        calls = 0
        while True:
            line = await source.readline()
            if line is None:
                return calls
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line in DONE:
                return calls
            call = parse_call(line)
            if isinstance(call, str):
                notes.append(f"interactive: line not sent: {call}")
                say(f"[not sent] {call}")
                continue
            calls += 1
            result = await mcp.call_tool(*call)
            text = "".join(getattr(c, "text", "") for c in result.content)
            say(f"[{calls}] {call[0]}: {'ERROR' if result.is_error else 'ok'}", text, "")


__all__ = ["DONE", "LineSource", "describe_tools", "parse_call", "run_interactive", "source_for"]
