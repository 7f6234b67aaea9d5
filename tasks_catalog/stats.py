"""Measured difficulty: what a task's reference solution and initial state say about how hard it is.

docs/tasks.md defines the levels on these numbers:

- easy: at most 4 reference calls;
- medium: 5-10 reference calls, at least 1 discovery read;
- hard: 11 or more reference calls, at least 3 discovery reads or a paginated search, and at least one
  trap (a wrong solution of kind ``lookalike``; before wrong solutions had kinds, any wrong solution).

A *discovery read* is a reference call of a read-only tool (the agent must look before it acts). A
*paginated search* is a read that asks for a later page (a ``cursor``, ``after``, ``pageToken`` or a
``page`` above 1) or a search tool. The budget should be about 1.5x the reference (plus what faults force).

A cross-server task is measured across its servers: its reference length is all its calls, and a
discovery read is a call of a tool its own server marks read-only. Its levels are longer (issue 33: work
across applications takes more calls), by ``CROSS_SERVER_CALLS``: easy at most 4 calls, medium 5-24 (and
a discovery read), hard 25-60 (and the reads or search and the trap of a hard task).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from typing import Any

from servers import get_spec
from tasks_catalog.schema import Task

#: Arguments that ask for a later page.
PAGE_ARGUMENTS = ("cursor", "after", "pageToken")
LEVELS = ("easy", "medium", "hard")
#: The reference lengths of a single-server task's levels (hard: at least 11, no upper bound).
CALLS = {"easy": range(1, 5), "medium": range(5, 11), "hard": range(11, 10**6)}
#: The reference lengths of a cross-server task's levels.
CROSS_SERVER_CALLS = {"easy": range(1, 5), "medium": range(5, 25), "hard": range(25, 61)}


@dataclass(frozen=True)
class TaskStats:
    task: str
    server: str
    difficulty: str
    world: str
    world_size: dict[str, int]
    reference_calls: int
    discovery_reads: int
    paginated_search: bool
    traps: int
    max_steps: int
    measured: str
    cross_server: bool = False

    @property
    def budget_ratio(self) -> float:
        return round(self.max_steps / self.reference_calls, 2)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "budget_ratio": self.budget_ratio, "consistent": self.measured == self.difficulty}


@dataclass(frozen=True)
class Solved:
    """How a task fared with the solvers whose runs are counted: runs judged (not infra errors), passed,
    and the tool calls they used, on this exact task (its hash: a task changed since is not counted)."""

    attempted: int
    passed: int
    calls: int

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.attempted if self.attempted else None

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "pass_rate": self.pass_rate}


def solved(tasks: list[Task], runs: list[dict[str, Any]], submissions: str = "*", *,
           any_version: bool = False) -> dict[str, Solved]:
    """Each of ``tasks``' measured outcome among ``runs`` (run records as dicts) of the submissions whose
    id matches the glob ``submissions``: only runs of the task as it is now (same ``task_hash``) count,
    unless ``any_version`` (every run of the task's id), and infra errors are not attempts. Tasks no such
    run judged are left out."""
    from fnmatch import fnmatchcase

    from tasks_catalog.hashing import task_hash

    wanted = {(t.id, task_hash(t)) for t in tasks}
    ids = {t.id for t in tasks}
    out: dict[str, list[int]] = {}
    for run in runs:
        if run["status"] == "infra_error" or (run["task_id"], run["task_hash"]) not in wanted and not (
                any_version and run["task_id"] in ids):
            continue
        if not fnmatchcase(run["submission_id"], submissions):
            continue
        n = out.setdefault(run["task_id"], [0, 0, 0])
        n[0] += 1
        n[1] += run["status"] == "passed"
        n[2] += run["tool_calls"]
    return {task: Solved(*n) for task, n in out.items()}


def read_only_tools(server: str) -> frozenset[str]:
    """The tools of ``server`` marked read-only (every other tool may write)."""
    return frozenset(name for name, mark in get_spec(server).toolset.tool_marks() if mark.read_only)


def measure(task: Task) -> TaskStats:
    read_only = {server: read_only_tools(server) for server in task.server_names}
    routes = [(task.route(c.tool), c) for c in task.reference_solution]
    reads = [(tool, c) for (server, tool), c in ((r, c) for r, c in routes if r is not None) if tool in read_only[server]]
    paginated = any(
        "search" in tool or any(c.arguments.get(a) for a in PAGE_ARGUMENTS)
        or (isinstance(c.arguments.get("page"), int) and c.arguments["page"] > 1)
        for tool, c in reads
    )
    kinds = [getattr(w, "kind", None) for w in task.wrong_solutions]
    traps = sum(k == "lookalike" for k in kinds) if any(k is not None for k in kinds) else len(kinds)
    world, size = _world(task)
    calls = len(task.reference_solution)
    return TaskStats(task.id, task.server_label, task.difficulty, world, size, calls, len(reads), paginated, traps,
                     task.max_steps, level(calls, len(reads), paginated, traps, cross_server=task.cross_server),
                     task.cross_server)


def calls_of(difficulty: str, *, cross_server: bool = False) -> range:
    """The reference lengths ``difficulty`` allows a task (a cross-server one's are longer)."""
    return (CROSS_SERVER_CALLS if cross_server else CALLS)[difficulty]


def _span(calls: range) -> str:
    return f"at most {calls.stop - 1}" if calls.start <= 1 else (
        f"at least {calls.start}" if calls.stop > 10**5 else f"{calls.start}-{calls.stop - 1}")


def level(calls: int, reads: int, paginated: bool, traps: int, *, cross_server: bool = False) -> str:
    """The difficulty the numbers support (docs/tasks.md); 'unrated' when they fit no level."""
    if calls in calls_of("easy", cross_server=cross_server):
        return "easy"
    if calls in calls_of("medium", cross_server=cross_server):
        return "medium" if reads >= 1 else "unrated"
    if calls in calls_of("hard", cross_server=cross_server):
        return "hard" if (reads >= 3 or paginated) and traps >= 1 else "unrated"
    return "unrated"


def shortfalls(stats: TaskStats) -> list[str]:
    """What keeps the measured numbers from the declared level, one phrase per property that is short
    (empty when the task measures as declared)."""
    calls, reads = stats.reference_calls, stats.discovery_reads
    band = calls_of(stats.difficulty, cross_server=stats.cross_server)
    kind = " (cross-server)" if stats.cross_server else ""
    out = [] if calls in band else [
        f"{stats.difficulty}{kind} {'allows' if band.start <= 1 else 'needs'} {_span(band)} reference calls, "
        f"the reference makes {calls}"]
    if stats.difficulty == "easy":
        return out
    if stats.difficulty == "medium":
        if reads < 1:
            out.append("medium needs at least 1 discovery read (a read-only tool call), the reference has 0")
        return out
    if reads < 3 and not stats.paginated_search:
        out.append(f"hard needs at least 3 discovery reads or a paginated search, the reference has {reads} "
                   f"read(s) and no later page or search")
    if stats.traps < 1:
        out.append("hard needs at least 1 trap (a wrong solution of kind 'lookalike'), the task has none")
    return out


def budget_limit(calls: int, steps: int) -> int:
    """The most ``max_steps`` may be: about 1.5x the reference (``ceil(1.5 * calls)``, and never less than
    ``calls + 3`` so a two-call task keeps room for one slip), plus the calls its faults force
    (``steps - calls``: each retried call and its failed attempts, as the gate replays them)."""
    return max(math.ceil(1.5 * calls), calls + 3) + (steps - calls)


def _world(task: Task) -> tuple[str, dict[str, int]]:
    """The task's world as a label and its size; a cross-server task's, each server's, the sizes keyed
    ``<server>.<count>``."""
    if not task.cross_server:
        return _one_world(task.initial_state)
    labels: list[str] = []
    sizes: dict[str, Any] = {}
    for server, state in task.initial_states().items():
        label, size = _one_world(state)
        labels.append(f"{server}: {label}")
        sizes |= {f"{server}.{name}": count for name, count in size.items()}
    return "; ".join(labels), sizes


def _one_world(state: dict[str, Any]) -> tuple[str, dict[str, int]]:
    if "world" in state:
        from servers.kit.world import get_generator, resolve

        ref = state["world"]
        name, data = resolve(state)
        generator = get_generator(name, ref["version"])  # each version describes its own world
        label = f"{name} v{ref['version']} seed {ref['seed']} {ref.get('size', 'default')}"
        label += f" + {len(state.get('patch', []))} patch ops"
        return label, generator.describe(data) if generator.describe else {}
    return f"inline ({len(json.dumps(state)) / 1024:.1f} KB)", {}


__all__ = ["LEVELS", "Solved", "TaskStats", "budget_limit", "level", "measure", "read_only_tools", "shortfalls", "solved"]
