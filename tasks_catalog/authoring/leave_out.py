"""Leaving each write out: which of a reference's writes the task still passes without (``mcpbench author
leave-out``).

Each write of the reference solution (a call of a tool not marked read-only) is left out in turn, the rest
replayed with the task's faults, and the final state judged as the gate judges it: the success predicate
and the frame. A write the goal asks for that can be left out with the task still passing is a judge that
lets unfinished work through: most often a clause the initial state already meets (an email "to the
customer" matched by an earlier one in the mailbox, a post "naming April" matched by an older message in
the channel, "an open invoice of the customer" met by last month's). A write the goal does not ask for,
which the frame merely allows (a courtesy reply, marking a message read), may be left out; the author
decides which each finding is, so this reports and does not refuse.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import anyio

from tasks_catalog.schema import Task, ToolCall


@dataclass(frozen=True)
class LeftOut:
    """A write of ``task``'s reference (``index``, 0-based) that the task passes without."""

    task_id: str
    index: int
    call: ToolCall

    def describe(self) -> str:
        return f"{self.task_id}: passes without call {self.index + 1} ({self.call.tool})"


def _writes(task: Task) -> list[int]:
    """The positions of the reference's calls of tools that are not marked read-only."""
    from tasks_catalog.stats import read_only_tools

    routes = [task.route(call.tool) or (task.server_names[0], call.tool) for call in task.reference_solution]
    return [i for i, (server, tool) in enumerate(routes) if tool not in read_only_tools(server)]


async def omittable_writes(task: Task) -> list[LeftOut]:
    """Every write of ``task``'s reference that can be left out with the predicate true and the frame held."""
    from tasks_catalog.frames import frame_violations
    from tasks_catalog.gate import _extracted
    from tasks_catalog.predicates import evaluate
    from tasks_catalog.replay import dumped, replay

    start = await replay(task, [], at_start=dumped)
    before = _extracted(task, start.initial)
    frame = [a.model_dump(mode="json", exclude_none=True) for a in task.frame]
    calls = list(task.reference_solution)
    found = []
    for i in _writes(task):
        done = await replay(task, calls[:i] + calls[i + 1:], faults=True, strict=False)
        if evaluate(task.success, done.state) and not frame_violations(task.scope, frame, before, dumped(done.state)):
            found.append(LeftOut(task.id, i, calls[i]))
    return found


def _is_template(path: Path) -> bool:
    """Whether the JSON document at ``path`` is a template (it has ``params`` and a ``task``), not a task."""
    from servers.kit.safejson import loads, read_document

    try:
        doc = loads(read_document(path))
    except (OSError, ValueError):
        return False  # loading it as a task names what is wrong
    return isinstance(doc, dict) and "params" in doc and "task" in doc


def leave_out(paths: list[Path], *, all_cases: bool = False, seeds: int = 2, salt: str = "leave-out",
              echo: Callable[[str], None] = print) -> int:
    """Report, for every task file and template (its renderings: ``seeds`` of them, or every case; a
    template whose cases cannot all be listed, ``seeds`` renderings and a line saying so) under ``paths``,
    each write its reference can leave out with the task still passing. Returns how many."""
    from tasks_catalog.authoring.template_check import every_case, seed_of
    from tasks_catalog.loader import load_task_file
    from tasks_catalog.templates import TemplateError, load_template, render

    tasks: list[Task] = []
    for path in paths:
        files = sorted(path.rglob("*.json")) if path.is_dir() else [path]
        for file in files:
            if _is_template(file):
                try:
                    template = load_template(file)
                except TemplateError as exc:  # its message names the file and each JSON path
                    echo(f"not a valid template: {exc}")
                    continue
                if all_cases:
                    try:
                        tasks += every_case(template)
                        continue
                    except TemplateError as exc:  # a free parameter, or too many cases to list
                        echo(f"{template.id}: {seeds} renderings instead of every case ({exc})")
                tasks += [render(template, seed_of(salt, template.id, i)) for i in range(seeds)]
                continue
            task, errors = load_task_file(file)
            if task is None:
                echo(f"{file}: not a valid task: {errors[0] if errors else 'unreadable'}")
                continue
            tasks.append(task)
    total = 0
    for task in tasks:
        found = anyio.run(omittable_writes, task)
        for left in found:
            echo(left.describe())
        total += len(found)
    echo(f"{total} writes can be left out, over {len(tasks)} tasks")
    return total


__all__ = ["LeftOut", "leave_out", "omittable_writes"]
