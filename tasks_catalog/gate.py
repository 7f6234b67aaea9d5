"""The acceptance gate: a task is accepted only if it loads, its predicate is false on the initial
state, its reference solution (applied through the real server over MCP, with only the task's
available tools listed) makes it true, every wrong solution leaves it false, and its goal names
every literal the predicate checks.

``python -m tasks_catalog.gate PATHS`` is ``mcpbench tasks validate PATHS``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from servers import get_spec
from servers.kit import build_mcp_server
from tasks_catalog.loader import TaskError, load_tasks
from tasks_catalog.predicates import evaluate, goal_literals
from tasks_catalog.schema import Task, ToolCall

#: A second verifier consulted on every verdict: (server, state JSON, predicate) -> verdict.
#: The TypeScript verifier plugs in here.
ExtraVerifier = Callable[[list[tuple[str, dict[str, Any], dict[str, Any]]]], list[bool]]


@dataclass
class GateResult:
    task_id: str
    reasons: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.reasons

    def to_json(self) -> dict[str, Any]:
        return {"task": self.task_id, "ok": self.ok, "reasons": self.reasons}


def _text(result) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


async def apply_calls(task: Task, calls: Iterable[ToolCall], *, only_available: bool = True, strict: bool = True):
    """Apply ``calls`` to a fresh backend of ``task`` through an in-memory MCP client; return the
    final state and the list of call errors (``strict`` stops at the first error)."""
    from mcp import Client

    spec = get_spec(task.server)
    errors: list[str] = []
    with spec.open(task.initial_state) as tools:
        server = build_mcp_server(spec, tools, only=task.available_tools if only_available else None)
        async with Client(server) as client:
            for i, call in enumerate(calls):
                result = await client.call_tool(call.tool, call.arguments)
                if result.is_error:
                    errors.append(f"call {i + 1} ({call.tool}) failed: {_text(result)[:300]}")
                    if strict:
                        break
        return tools.snapshot(), errors


def literal_problems(task: Task) -> list[str]:
    """Literals the predicate checks that the goal does not name."""
    problems = []
    for path, value, is_pattern in goal_literals(task.success):
        path = "$.success" + path[1:]  # goal_literals' paths are relative to the predicate
        if is_pattern:
            bare = value.strip("^$")
            if re.search(bare, task.goal) is None and bare not in task.goal:
                problems.append(f"goal does not name {path} (pattern {value!r} matches nowhere in the goal)")
        elif isinstance(value, str):
            if value not in task.goal:
                problems.append(f"goal does not name {path} = {value!r}")
        elif not any(r in task.goal for r in _number_renderings(value)):
            problems.append(f"goal does not name {path} = {value!r}")
    return problems


def _number_renderings(value: int | float) -> set[str]:
    out = {str(value)}
    if isinstance(value, float):
        out |= {f"{value:.2f}", f"{value:,.2f}"}
        if value.is_integer():
            out.add(str(int(value)))
    else:
        out.add(f"{value:,}")
    return out


async def gate_task(task: Task, extra: ExtraVerifier | None = None) -> GateResult:
    result = GateResult(task.id)
    spec = get_spec(task.server)
    initial = spec.state_model.load(task.initial_state)
    verdicts: list[tuple[str, Any, bool]] = []  # (what, state, required verdict)
    verdicts.append(("on the initial state", initial, False))

    final, errors = await apply_calls(task, task.reference_solution)
    if errors:
        result.reasons.append(f"reference solution: {errors[0]}")
    else:
        verdicts.append(("after the reference solution", final, True))
    for i, wrong in enumerate(task.wrong_solutions):
        state, _ = await apply_calls(task, wrong.calls, only_available=False, strict=False)
        verdicts.append((f"after wrong solution {i + 1} ({wrong.why})", state, False))

    for what, state, wanted in verdicts:
        got = evaluate(task.success, state)
        if got is not wanted:
            result.reasons.append(f"predicate is {str(got).lower()} {what}; it must be {str(wanted).lower()}")
    if extra is not None:
        others = extra([(task.server, s.dump(), task.success) for _, s, _ in verdicts])
        for (what, state, _), other in zip(verdicts, others, strict=True):
            mine = evaluate(task.success, state)
            if other is not mine:
                result.reasons.append(f"verifiers disagree {what}: python {mine}, typescript {other}")
    result.reasons += literal_problems(task)
    return result


async def gate_tasks(tasks: list[Task], extra: ExtraVerifier | None = None) -> list[GateResult]:
    return [await gate_task(t, extra) for t in tasks]


def validate_paths(paths: list[Path], extra: ExtraVerifier | None = None) -> tuple[list[GateResult], int]:
    """Gate every task under ``paths``. Returns one result per task (load failures included) and
    the number of tasks found."""
    tasks, load_errors = load_tasks(paths)
    by_task: dict[str, GateResult] = {}
    for err in load_errors:
        by_task.setdefault(err.task, GateResult(err.task)).reasons.append(f"{err.path}: {err.message}")
    results = list(by_task.values()) + anyio.run(gate_tasks, tasks, extra)
    return sorted(results, key=lambda r: r.task_id), len(results)


__all__ = ["GateResult", "TaskError", "apply_calls", "gate_task", "gate_tasks", "literal_problems", "validate_paths"]
