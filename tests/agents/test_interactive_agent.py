"""The interactive agent: a person, or a model acting as an independent solver, works a task by hand
through `mcpbench run --agent interactive[:<path>]`. It sees the goal, the budget and the tools, never the
task's id or solution; its calls go through the gateway like any agent's, and the judge decides."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mcpbench.agents.interactive import parse_call
from mcpbench.agents.spec import AgentSpecError, InteractiveAgent, parse_agent
from runstore.store import open_store
from tasks_catalog.loader import load_valid_tasks
from tests.harness.conftest import DEV

TASK = "pg-ship-order-1042"  # a recovery task: its first write is answered with a rate limit


@pytest.fixture(scope="module")
def task():
    return next(t for t in load_valid_tasks([DEV]) if t.id == TASK)


_STARTED: list[subprocess.Popen] = []


@pytest.fixture(autouse=True)
def _no_process_left():
    yield
    while _STARTED:
        process = _STARTED.pop()
        if process.poll() is None:
            process.kill()
        process.wait()
        for pipe in (process.stdin, process.stderr):
            if pipe is not None:
                pipe.close()


def _start(tmp_path: Path, spec: str, *, env: dict[str, str] | None = None, stdin=subprocess.DEVNULL):
    with open(tmp_path / "out.txt", "w") as out:  # the child holds its own copy
        process = subprocess.Popen(
            [sys.executable, "-m", "mcpbench", "run", "--agent", spec, "--tasks", TASK, "--store",
             str(tmp_path / "store"), "--submission-id", "solver-1", "--json"],
            stdin=stdin, stdout=out, stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})})
    _STARTED.append(process)
    return process, tmp_path / "out.txt"


def _wait_for(path: Path, text: str, process, timeout: float = 60.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        seen = path.read_text()
        if text in seen:
            return seen
        if process.poll() is not None:
            break
        time.sleep(0.1)
    raise AssertionError(f"{text!r} never appeared; output so far:\n{path.read_text()}")


def _calls(task) -> list[str]:
    """The reference solution as a solver would type it; the first write meets the task's rate limit
    and is typed again, as a careful solver retries."""
    lines = [json.dumps({"tool": c.tool, "arguments": c.arguments}) for c in task.reference_solution]
    first_write = next(i for i, c in enumerate(task.reference_solution) if c.tool == "execute")
    return lines[:first_write + 1] + lines[first_write:]


def _finish(process, out: Path) -> tuple[dict, str]:
    process.wait(timeout=120)
    err = process.stderr.read()
    text = out.read_text()
    assert process.returncode == 0, (err, text)
    card = json.loads(text[text.rindex("\n{\n") + 1:])
    return card, text


def test_a_solver_appending_calls_to_a_file_passes_and_sees_no_task_file(tmp_path, task):
    calls = tmp_path / "calls.jsonl"
    process, out = _start(tmp_path, f"interactive:{calls}")
    shown = _wait_for(out, 'One call per line', process)
    assert task.goal in shown and f"BUDGET: {task.max_steps} tool calls" in shown
    assert "- query:" in shown and '"sql"' in shown  # each tool, with its arguments' schema
    assert TASK not in shown and "reference_solution" not in shown and "wrong_solutions" not in shown
    assert "UPDATE orders" not in shown  # the solution is the solver's to find
    for line in _calls(task):
        with calls.open("a") as f:
            f.write(line + "\n")
        time.sleep(0.05)
    with calls.open("a") as f:
        f.write("done\n")
    card, text = _finish(process, out)
    assert card["success_rate"] == 1.0 and card["agent"] == "interactive"
    assert "rate limit" in text.lower() and "[2] execute: ERROR" in text
    (run,) = open_store(str(tmp_path / "store")).read_runs("solver-1").to_pylist()
    assert run["passed"] and run["end_reason"] == "passed" and run["tool_calls"] == len(_calls(task))


def test_lines_that_are_not_calls_are_answered_and_never_reach_the_gateway(tmp_path, task):
    calls = tmp_path / "calls.jsonl"
    calls.write_text("\n".join(['not json', '{"arguments": {}}', '{"tool": "query", "arguments": [1]}',
                                '# a comment', '{"tool": "query", "arguments": {"sql": "select 1"}, "why": "x"}',
                                '{"tool": "query", "arguments": {"sql": "select 1"}}', "done", ""]))
    process, out = _start(tmp_path, f"interactive:{calls}")
    card, text = _finish(process, out)
    assert text.count("[not sent]") == 4 and "[1] query: ok" in text
    assert card["success_rate"] == 0.0  # the task was not done: the judge says so
    store = open_store(str(tmp_path / "store"))
    assert [c["tool"] for c in store.read_calls("solver-1").to_pylist()] == ["query"]


def test_a_person_at_standard_input_finishes_at_its_end(tmp_path, task):
    process, out = _start(tmp_path, "interactive", stdin=subprocess.PIPE)
    _wait_for(out, 'One call per line', process)
    process.stdin.write("\n".join(_calls(task)) + "\n")
    process.stdin.close()  # the end of input finishes the run, as Ctrl-D at a terminal
    card, _ = _finish(process, out)
    assert card["success_rate"] == 1.0


def test_a_named_pipe_serves_one_writer_at_a_time(tmp_path, task):
    fifo = tmp_path / "calls"
    os.mkfifo(fifo)
    process, out = _start(tmp_path, f"interactive:{fifo}")
    _wait_for(out, 'One call per line', process)
    for line in [*_calls(task), "done"]:
        with fifo.open("w") as f:  # each line its own open and close, as a solver's `echo ... > calls`
            f.write(line + "\n")
    card, _ = _finish(process, out)
    assert card["success_rate"] == 1.0


def test_time_runs_out_for_a_solver_that_never_answers(tmp_path):
    process, out = _start(tmp_path, f"interactive:{tmp_path / 'never'}",
                          env={"MCPBENCH_INTERACTIVE_TIMEOUT_S": "3"})
    card, text = _finish(process, out)
    assert "time is up" in text and card["success_rate"] == 0.0
    (run,) = open_store(str(tmp_path / "store")).read_runs("solver-1").to_pylist()
    assert run["end_reason"] == "timeout"


def test_the_spec_and_its_errors():
    assert parse_agent("interactive") == InteractiveAgent()
    agent = parse_agent("interactive:calls.jsonl")
    assert agent.source == str(Path("calls.jsonl").resolve())
    with pytest.raises(AgentSpecError, match="MCPBENCH_INTERACTIVE_TIMEOUT_S"):
        os.environ["MCPBENCH_INTERACTIVE_TIMEOUT_S"] = "soon"
        try:
            parse_agent("interactive")
        finally:
            del os.environ["MCPBENCH_INTERACTIVE_TIMEOUT_S"]
    assert parse_call('{"tool": "t"}') == ("t", {})
    assert "not JSON" in parse_call("{oops")
