"""The acceptance gate: a task is accepted only if

1. it loads, and its goal names every literal the predicate checks (tasks_catalog/literals.py);
2. its reference solution, applied through the real server over MCP with only the available tools
   listed and the task's faults injected (retrying the transient ones, as the oracle does), makes the
   predicate true within ``max_steps`` calls, retries included, and stays inside the frame;
3. the judgement fails on the initial state and after every wrong solution (the predicate is false, or
   the frame breaks), and every wrong solution changes the state (one that changes nothing, or whose
   every call errors, tests nothing). A ``collateral`` wrong solution must satisfy the predicate's
   positive part (every ``not`` taken as true) and break the frame; every wrong solution says its
   ``kind``, and every task needs at least one ``collateral`` and one ``lookalike`` wrong solution;
4. a task whose initial state is a world measures at its declared difficulty (tasks_catalog/stats.py,
   docs/tasks.md "Difficulty") and its ``max_steps`` is about 1.5x the reference plus what its faults
   force (``stats.budget_limit``). Inline-state tasks (test fixtures, an author's own folder) are exempt;
   every dev task and template is on a world.

Every rule but 4's exemption applies to every task, and ``frame`` is required (docs/frames.md, "The
gate"). A cross-server task is replayed through every one of its servers' real MCP servers (each call
to the server its ``<server>__<tool>`` name names) and judged on their states together, by both
verifiers; rule 4 holds it when any of its servers starts from a world. Each reason says which rule the task breaks; callers print it after the task id (and a
template check after the template, seed and task id).

Both verifiers are consulted when a second one is plugged in (``extra`` for predicates,
``extra_frames`` for frames); any disagreement is a failure: on a verdict, on the frame, or, where both
say false and the second names the clauses that decided it (a ``predicates.Refuted``), on those clause
ids. docs/frames.md, "The gate". From the command line: ``mcpbench tasks validate PATHS``.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias, cast

import anyio

from servers.kit.world import check_cached_worlds, is_world_reference
from tasks_catalog.frames import ExactSame, Extracted, diff, frame_violations, server_entities, summarize
from tasks_catalog.gate_cache import Claim, GateCache, cache_from
from tasks_catalog.gate_probes import judge_alternatives, probe_task
from tasks_catalog.hashing import task_hash
from tasks_catalog.literals import pattern_named, state_strings, value_named
from tasks_catalog.loader import TaskError, load_tasks
from tasks_catalog.predicates import Refuted, clause_ids, evaluate, goal_literals
from tasks_catalog.probes import Reference
from tasks_catalog.replay import ATTEMPTS, Replay, apply_calls, dumped, replay
from tasks_catalog.schema import Task
from tasks_catalog.stats import budget_limit, measure, shortfalls

if TYPE_CHECKING:
    from tasks_catalog.ts_verifier import NoVerdict

#: A second verifier consulted on every verdict: (server, state JSON, predicate) -> verdict. A
#: cross-server task's cases name its servers (a tuple) and give their states keyed by server.
#: (A string: ``NoVerdict`` is imported for the type checker only, ts_verifier itself when it is used.)
ExtraVerifier: TypeAlias = "Callable[[list[tuple[Any, dict[str, Any], dict[str, Any]]]], list[bool | Refuted | NoVerdict]]"
#: A second frame judge: (server, initial, final, frame) -> violations as JSON, per case (cross-server: as above).
ExtraFrames = Callable[[list[tuple[Any, dict[str, Any], dict[str, Any], list[dict[str, Any]]]]], list[list[dict]]]
#: Both second verifiers in one call, ``(verdict cases, frame cases) -> (verdicts, frame violations)``, each
#: state shipped once however many cases name it (``ts_verifier.judge_many``); used instead of the two
#: separate calls when set.
ExtraJudge: TypeAlias = ("Callable[[list[tuple[Any, dict[str, Any], dict[str, Any]]], "
                          "list[tuple[Any, dict[str, Any], dict[str, Any], list[dict[str, Any]]]]], "
                          "tuple[list[bool | Refuted | NoVerdict], list[list[dict]]]]")


@dataclass
class GateResult:
    task_id: str
    reasons: list[str] = field(default_factory=list)
    #: accepted earlier by the same code and verifiers (the gate's cache), so not judged again
    cached: bool = False
    #: each probe run or skipped (``ProbeResult.to_json``: probe, kind, how, what, outcome, detail)
    probes: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.reasons

    def to_json(self) -> dict[str, Any]:
        return ({"task": self.task_id, "ok": self.ok, "reasons": self.reasons} | ({"cached": True} if self.cached else {})
                | ({"probes": self.probes} if self.probes else {}))


def _extracted(task: Task, initial: dict[str, Any]) -> Extracted | dict[str, Extracted]:
    """A task's scoped initial dump ``Extracted`` (a cross-server task's: each server's, keyed by server),
    so every final state is compared with it without extracting it again."""
    if task.cross_server:
        return {server: Extracted(server, initial[server]) for server in task.server_names}
    return Extracted(task.server, initial)  # type: ignore[arg-type]


def _entity_ids(task: Task, initial: Extracted | dict[str, Extracted]) -> set[str]:
    each = initial if isinstance(initial, dict) else {task.server_names[0]: initial}
    return {ident for server, state in each.items() for kind in server_entities(server).kinds for ident in state.of(kind)}


def _same(initial: Extracted | dict[str, Extracted], final: dict[str, Any]) -> bool:
    """Whether a scoped final dump is JSON-equal to the scoped initial state (every server's)."""
    if isinstance(initial, dict):
        return all(initial[server].same_as(final[server]) for server in initial)
    return initial.same_as(final)


class _WhenAsked:
    """A set made the first time it is asked about: a literal the goal names needs neither the initial
    state's entity ids nor its strings, and making those means walking a whole world."""

    def __init__(self, make: Callable[[], set[str]]) -> None:
        self._make = make
        self._made: set[str] | None = None

    def _set(self) -> set[str]:
        if self._made is None:
            self._made = self._make()
        return self._made

    def __contains__(self, item: object) -> bool:
        return item in self._set()

    def __iter__(self):
        return iter(self._set())


def literal_problems(task: Task, initial: Any = None) -> list[str]:
    """Literals the predicate checks that the goal does not name (tasks_catalog/literals.py). ``initial``
    is the task's scoped initial dump (a cross-server task's: keyed by server, every server's entities
    and values counting), and may be given ``Extracted`` (its entities are then not extracted again)."""
    extracted: Extracted | dict[str, Extracted] | None
    if isinstance(initial, Extracted) or (isinstance(initial, dict) and initial
                                          and all(isinstance(v, Extracted) for v in initial.values())):
        extracted = initial
        initial = initial.state if isinstance(initial, Extracted) else {s: e.state for s, e in initial.items()}
    else:
        extracted = _extracted(task, initial) if initial is not None else None
    ids = _WhenAsked(lambda: _entity_ids(task, extracted) if extracted is not None else set())
    present = _WhenAsked(lambda: state_strings(initial) if initial is not None else set())
    problems = []
    for path, value, is_pattern in goal_literals(task.success):
        path = "$.success" + path[1:]  # goal_literals' paths are relative to the predicate
        if is_pattern:
            if not pattern_named(value, task.goal, ids):
                problems.append(f"goal does not name {path}: pattern {value!r} requires no literal of "
                                f"3+ characters that the goal contains")
        elif not value_named(value, task.goal, ids, present):
            problems.append(f"goal does not name {path} = {value!r}")
    return problems + (_created_id_problems(task, ids, initial) if initial is not None else [])


#: what separates the parts of a composite id (``repo:branch``, ``owner/repo#12``, ``table/~[...]``)
_ID_PARTS = re.compile(r'[:#/~\[\],"]+')


def _created_id_problems(task: Task, ids: _WhenAsked | set[str], initial: dict[str, Any]) -> list[str]:
    """A frame allowance that lets the agent create an entity by id must name an id the agent can
    know: each part of it given by the goal or held by the initial state (the branch name the goal
    never gives, which only the reference's author chose, fails every agent that chose another)."""
    problems, known = [], None
    for i, allowance in enumerate(task.frame):
        if not allowance.ids or "create" not in (allowance.change or ["update"]):
            continue
        for j, ident in enumerate(allowance.ids):
            if ident in ids:
                continue
            if known is None:
                known = "\n".join(ids) + json.dumps(initial, ensure_ascii=False)  # its numbers too
            missing = [part for part in _ID_PARTS.split(ident) if part and part not in task.goal and part not in known]
            if missing:
                problems.append(f"$.frame[{i}].ids[{j}] lets the agent create {ident!r}, but neither the goal nor the "
                                f"initial state gives {', '.join(map(repr, missing))}: no agent can know that id")
    return problems


def positive_part(pred: dict[str, Any], state: Any) -> bool:
    """The predicate with every ``not`` taken as true: what the task asks for, without its guards."""
    (key, body), = pred.items()
    if key == "all":
        return all(positive_part(p, state) for p in body)
    if key == "any":
        return any(positive_part(p, state) for p in body)
    if key == "not":
        return True
    return evaluate(pred, state)


@dataclass
class _Judged:
    """One task judged by the Python verifier, with what is still to be asked of the second verifiers."""

    result: GateResult
    server: str | tuple[str, ...]  # the task's scope: its server, or a cross-server task's servers
    predicate: dict[str, Any]
    #: (what, state dump or None, python verdict, python's failing clause ids) per judged state: the
    #: initial one, the reference's, the wrong ones' (dumped, and their clauses found, only when a second
    #: verifier will be asked)
    verdicts: list[tuple[str, dict[str, Any] | None, bool, tuple[str, ...]]]
    #: (what, initial dump, final dump, frame, python violations) per final state
    frames: list[tuple[str, dict[str, Any], dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]]
    #: reasons that come after the verifiers' disagreements (the literal rule, the difficulty rule)
    tail: list[str]


async def _judge(task: Task, dumps_wanted: bool, frames_wanted: bool, probes: bool = True) -> _Judged:  # noqa: C901, PLR0912, PLR0915 - one task's reference, probes, wrong solutions and frames judged in order
    result = GateResult(task.id)
    reasons = result.reasons

    def clauses(state: Any) -> tuple[str, ...]:
        return clause_ids(task.success, state) if dumps_wanted else ()

    # the generated probes edit one server's state: a cross-server task is judged without them (its
    # reference, wrong and alternative solutions still are: judge_alternatives)
    probing = probes and not task.cross_server
    written: list[tuple[int, dict[str, Any]]] = []  # the state after each write of the reference
    ref = await replay(task, task.reference_solution, faults=True,
                       at_start=lambda state: (dumped(state), evaluate(task.success, state), clauses(state)),
                       after_write=(lambda i, state: written.append((i, dumped(state)))) if probing else None)
    start, initially, initial_clauses = ref.initial
    #: (what, the predicate's verdict, the state's dump, must the predicate pass?, failing clause ids) of
    #: every state judged; each state is dumped and evaluated once
    judged: list[tuple[str, bool, dict[str, Any], bool | None, tuple[str, ...]]] = [
        ("on the initial state", initially, start, False, initial_clauses)]
    if ref.errors:
        reasons.append(f"reference solution{' with its faults injected' if task.faults else ''}: {ref.errors[0]}")
    if ref.steps > task.max_steps:
        reasons.append(f"max_steps {task.max_steps} leaves no room for the faults: the reference solution with its "
                       f"faults injected takes {ref.steps} calls, retries included")
    frame = [a.model_dump(mode="json", exclude_none=True) for a in task.frame]
    before = _extracted(task, start)  # every final state is compared with the one initial state
    same = ExactSame()  # start's parts encoded once for every final state that shares them (Replay.dump_sharing)
    scope = task.scope
    #: (what, final dump, python's frame violations) of every final state judged
    finals: list[tuple[str, dict[str, Any], list[Any]]] = []
    probed = None
    if not ref.errors:
        final = ref.dump_sharing(start, same)
        passes = evaluate(task.success, ref.state)
        judged.append(("after the reference solution", passes, final, True, clauses(ref.state)))
        outside = frame_violations(scope, frame, before, final)
        finals.append(("after the reference solution", final, outside))
        if outside:
            reasons.append(f"the reference solution leaves the frame: {summarize(outside)}")
        elif passes and probing:
            server = task.server_names[0]
            changes = diff(server, before, final)
            effects, previous = [], start
            for i, dump in written:
                effects.append((i, diff(server, previous, dump)))
                previous = dump
            probed = await probe_task(task, frame, cast("Extracted", before), ref.state,
                                      Reference(start, final, changes, effects), explain=dumps_wanted, same=same)
        elif passes and probes and task.alternative_solutions:  # a cross-server task's own alternatives
            probed = await judge_alternatives(task, frame, start, before, explain=dumps_wanted, same=same)
        if probed is not None:
            result.probes = [r.to_json() for r in probed.results]
            judged += [(what, verdict, dump, None, failing) for what, dump, verdict, failing in probed.verdicts]
            finals += probed.frames

    kinds = set()
    for i, wrong in enumerate(task.wrong_solutions):
        what = f"wrong solution {i + 1} ({wrong.why})"
        done = await replay(task, wrong.calls, only_available=False, strict=False)
        kinds.add(wrong.kind)
        if wrong.kind is None:
            reasons.append(f"{what} has no kind: every wrong solution says what it tests "
                           f"(wrong_solutions[{i}].kind: collateral, lookalike or other)")
        final = done.dump_sharing(start, same)
        if _same(before, final) or (done.calls and len(done.errors) == done.calls):
            reasons.append(f"{what} changes nothing{' (every call errors)' if done.errors else ''}, so it tests nothing")
            continue
        outside = frame_violations(scope, frame, before, final)
        finals.append((f"after {what}", final, outside))
        broken = bool(outside)
        verdict = evaluate(task.success, done.state)
        if verdict and not broken:
            reasons.append(f"{what} passes: the predicate is true and the frame holds")
        if wrong.kind == "collateral" and not (positive_part(task.success, done.state) and broken):
            reasons.append(f"{what} is marked collateral, so the predicate's positive part must hold and the frame "
                           f"must break; positive part {positive_part(task.success, done.state)}, frame broken {broken}")
        judged.append((f"after {what}", verdict, final, None, clauses(done.state)))
    if not {"collateral", "lookalike"} <= kinds:
        missing = sorted({"collateral", "lookalike"} - kinds)
        reasons.append(f"every task needs a collateral and a lookalike wrong solution (wrong_solutions[].kind); "
                       f"this one has no {' and no '.join(missing)}")

    verdicts = []
    for what, got, dump, wanted, failing in judged:
        if wanted is not None and got is not wanted:
            reasons.append(f"predicate is {str(got).lower()} {what}; it must be {str(wanted).lower()}")
        verdicts.append((what, dump if dumps_wanted else None, got, failing))
    frames = []
    if frames_wanted:
        frames = [(what, start, final, frame, [v.to_json() for v in outside]) for what, final, outside in finals]
    tail = probed.reasons() if probed is not None else []
    tail += literal_problems(task, before)
    if any(is_world_reference(state) for state in task.initial_states().values()):
        tail += difficulty_problems(task, ref.steps)
    return _Judged(result, scope, task.success, verdicts, frames, tail)


#: About how many cases go to a second verifier per call: tasks are judged by Python first and their
#: cases asked in batches of whole tasks (a call of the TypeScript verifier is a request to the gate run's
#: served process, ``ts_verifier.serving``; a world's state is a few hundred kilobytes of JSON, so a batch
#: stays some tens of megabytes).
BATCH = 48


def difficulty_problems(task: Task, steps: int) -> list[str]:
    """Rule 4: the declared level against the measured one, and the budget against the reference's
    ``steps`` (its calls with the faults' retries, as replayed)."""
    stats = measure(task)
    problems = []
    short = shortfalls(stats)
    if short:
        problems.append(f"{task.id} is declared {stats.difficulty} but measures {stats.measured}: " + "; ".join(short))
    limit = budget_limit(stats.reference_calls, steps)
    if task.max_steps > limit:
        forced = f" + {steps - stats.reference_calls} its faults force" if steps > stats.reference_calls else ""
        problems.append(f"{task.id}: max_steps {task.max_steps} is more than about 1.5x the reference: at most {limit} "
                        f"for {stats.reference_calls} reference calls{forced}")
    return problems


def _cross_check(judged: list[_Judged], extra: ExtraVerifier | None, extra_frames: ExtraFrames | None,
                 joint: ExtraJudge | None = None) -> None:
    """Ask the second verifiers about every judged state of ``judged`` (one call each, or one ``joint``
    call for both when both are asked) and add each disagreement, then the task's remaining reasons, to
    its result."""
    # a dump is None only when no second verifier is asked (_Judged.verdicts)
    verdict_cases = [(j.server, cast("dict[str, Any]", dump), j.predicate)
                     for j in judged for _, dump, _, _ in j.verdicts] if extra else []
    frame_cases = [(j.server, a, b, f) for j in judged for _, a, b, f, _ in j.frames] if extra_frames else []
    if not verdict_cases and not frame_cases:
        verdicts, frames = [], []
    elif joint is not None and extra is not None and extra_frames is not None:
        verdicts, frames = (list(x) for x in joint(verdict_cases, frame_cases))
    else:
        verdicts = list(extra(verdict_cases)) if extra is not None and verdict_cases else []
        frames = list(extra_frames(frame_cases)) if extra_frames is not None and frame_cases else []
    if len(verdicts) != len(verdict_cases):
        raise ValueError(f"the second verifier answered {len(verdicts)} times to {len(verdict_cases)} cases")
    if len(frames) != len(frame_cases):
        raise ValueError(f"the second frame judge answered {len(frames)} times to {len(frame_cases)} cases")
    at = iter(verdicts)
    for j in judged if extra is not None else ():
        for what, _, mine, failing in j.verdicts:
            other = next(at)
            if (False if isinstance(other, Refuted) else other) is not mine:
                j.result.reasons.append(f"verifiers disagree {what}: python {mine}, typescript {other}")
            elif isinstance(other, Refuted) and other.clauses != failing:
                j.result.reasons.append(f"verifiers disagree on the failing clauses {what}: python "
                                        f"{', '.join(failing)}, typescript {', '.join(other.clauses)}")
    at = iter(frames)
    for j in judged if extra_frames is not None else ():
        for what, _, _, _, violations in j.frames:
            other = next(at)
            if other != violations:
                j.result.reasons.append(f"verifiers disagree on the frame {what}: python {violations}, typescript {other}")
    for j in judged:
        j.result.reasons.extend(j.tail)


def world_order(tasks: list[Task]) -> list[int]:
    """The positions of ``tasks`` in the order a gate judges them: the tasks whose servers start from the
    worlds of one seed next to each other (tasks on inline states first), otherwise as given.

    A process keeps the last few worlds and organisations it built (``servers.kit.world``,
    ``servers.org``), and a month draws each template's tasks on other seeds: judged in the month's
    order, an organisation was built again nearly every time one of its tasks came up (59 builds for the
    35 organisations of a ten-server month). Judged by seed, each is built once per process, and the gates
    that share a month through a cache (``Gate.check``) each claim runs of tasks on a few seeds. The
    verdicts do not depend on the order."""
    def key(i: int) -> list[str]:
        refs = [state["world"] for state in tasks[i].initial_states().values() if is_world_reference(state)]
        # a reference is not checked yet (a bad one is the task's reason, in its turn): compared as text
        return sorted(json.dumps([ref.get(k) for k in ("seed", "size", "generator", "version")], default=str)
                      if isinstance(ref, dict) else json.dumps(ref, default=str) for ref in refs)

    return sorted(range(len(tasks)), key=key)


#: How many collections of the middle generation the cyclic garbage collector makes before a full one while
#: a gate runs (Python's default is 10; see ``_rare_full_collections``).
FULL_COLLECTION_EVERY = 100


@contextlib.contextmanager
def _rare_full_collections() -> Iterator[None]:
    """Let the cyclic garbage collector walk every tracked object ten times less often while a gate runs.

    The cached worlds are frozen out of the collector's reach (``servers.kit.world``), so Python counts
    only a few thousand long-lived objects; every replay's copy of a world (a backend's state, a hundred
    thousand lists, dicts and models, freed by reference counting when the replay ends) then outgrew
    that count by a quarter, and a full collection, which walks the live copies too, followed nearly
    every ten collections of the middle generation: 4.5 of 21 CPU-s gating eight hard cross-server tasks,
    0.9 with this (most of it the collections ``_exempt_from_gc`` makes), the process's peak memory 8 MB
    more (at most about 110,000 objects of cyclic garbage at a full collection, from 30,000). The young
    generations are collected as before; the old one still is, ten times less often (a world loaded
    into the cache collects it too). The thresholds are the process's: gates running at once in threads
    share one change, made by the first to start and undone by the last to end, as before them."""
    global _RARE_USERS, _RARE_SAVED
    with _RARE_LOCK:
        if _RARE_USERS == 0:
            _RARE_SAVED = young, middle, old = gc.get_threshold()
            gc.set_threshold(young, middle, max(old, FULL_COLLECTION_EVERY))
        _RARE_USERS += 1
    try:
        yield
    finally:
        with _RARE_LOCK:
            _RARE_USERS -= 1
            if _RARE_USERS == 0:
                gc.set_threshold(*_RARE_SAVED)


_RARE_LOCK = threading.Lock()
_RARE_USERS = 0  # the gates under way in this process
_RARE_SAVED = gc.get_threshold()  # the thresholds before the first of them


async def gate_tasks(tasks: list[Task], extra: ExtraVerifier | None = None,
                     extra_frames: ExtraFrames | None = None, joint: ExtraJudge | None = None,
                     progress: Callable[[int], None] | None = None, probes: bool = True) -> list[GateResult]:
    """Gate ``tasks``: each is judged by the Python verifier, and the second verifiers (``extra``,
    ``extra_frames``) are asked about the judged states of several tasks at once, about :data:`BATCH`
    cases a call; each disagreement is a reason of its task. Results come in the order of ``tasks``;
    the tasks are judged in :func:`world_order`.

    A batch is asked in a worker thread while the next tasks are judged, so the TypeScript verifier
    (another process) works beside the Python one instead of after it; one batch at a time is in
    flight, so at most two batches of states are held. ``progress(1)`` is called as each task has been
    judged by the Python verifier."""
    from concurrent.futures import ThreadPoolExecutor

    results: dict[int, GateResult] = {}
    pending: list[_Judged] = []
    with _rare_full_collections(), ThreadPoolExecutor(max_workers=1, thread_name_prefix="gate-cross-check") as second:
        asked = None
        for i in world_order(tasks):
            judged = await _judge(tasks[i], extra is not None, extra_frames is not None, probes)
            if progress is not None:
                progress(1)
            results[i] = judged.result
            pending.append(judged)
            if sum(len(j.verdicts) + len(j.frames) for j in pending) >= BATCH:
                if asked is not None:
                    asked.result()  # raises what the previous batch raised
                asked, pending = second.submit(_cross_check, pending, extra, extra_frames, joint), []
        if asked is not None:
            asked.result()
    _cross_check(pending, extra, extra_frames, joint)
    check_cached_worlds()  # that no replay changed a shared world (only with MCPBENCH_CHECK_WORLDS set, as in the tests)
    return [results[i] for i in range(len(tasks))]


def validate_paths(paths: list[Path], extra: ExtraVerifier | None = None,
                   extra_frames: ExtraFrames | None = None) -> tuple[list[GateResult], int]:
    """Gate every task under ``paths``. Returns one result per task (load failures included) and
    the number of tasks found."""
    return _gate_paths(paths, lambda tasks: anyio.run(gate_tasks, tasks, extra, extra_frames))


def _gate_paths(paths: list[Path], check: Callable[[list[Task]], list[GateResult]]) -> tuple[list[GateResult], int]:
    tasks, load_errors = load_tasks(paths)
    by_task: dict[str, GateResult] = {}
    for err in load_errors:
        by_task.setdefault(err.task, GateResult(err.task)).reasons.append(f"{err.path}: {err.message}")
    results = list(by_task.values()) + check(tasks)
    return sorted(results, key=lambda r: r.task_id), len(results)


#: The most tasks a gate with a cache claims at a time (tasks_catalog/gate_cache.py): gates sharing a
#: cache take turns in chunks this size, smaller as the month runs out (:func:`claim_size`).
CLAIM = 20


def claim_size(left: int) -> int:
    """How many of the ``left`` tasks not yet settled a gate sharing a cache claims next: :data:`CLAIM`,
    and a quarter of what is left once that is less (at least one). A month's last tasks are then
    claimed a few at a time, so a gate that runs out of work waits for its peers' last few tasks, not
    for a whole chunk of them (with 160 tasks on two processes, half a chunk of hard tasks was about 5 s
    of one core idle); the runs of tasks on one world stay long while there is plenty left."""
    return max(1, min(CLAIM, left // 4))


#: Set to 1 on a production worker or CI: the gate refuses to run without the TypeScript verifier.
REQUIRE_TYPESCRIPT_ENV = "MCPBENCH_REQUIRE_TYPESCRIPT"


class GateUnavailable(RuntimeError):
    """The policy asks for the TypeScript verifier and it is not available (the message says why)."""


@dataclass(frozen=True)
class Gate:
    """The acceptance gate with the verifiers it consults: what every caller (``mcpbench tasks
    validate``, ``mcpbench rotate``, the rotation and catalog flows, ``tasks_catalog.months``) uses,
    built by :func:`acceptance_gate`."""

    extra: ExtraVerifier | None = None
    #: why the TypeScript verifier is not consulted (None when it is)
    missing: str | None = None
    #: the TypeScript verifier's frame judgements, beside the predicate verdicts
    extra_frames: ExtraFrames | None = None
    #: the tasks this gate already accepted (tasks_catalog/gate_cache.py); None keeps nothing
    cache: GateCache | None = None
    #: both second verifiers in one call (``ExtraJudge``), used instead of ``extra`` and ``extra_frames``
    joint: ExtraJudge | None = None
    #: called with how many more tasks were settled (judged, or accepted before): a caller's progress
    progress: Callable[[int], None] | None = None

    @property
    def verifiers(self) -> list[str]:
        return ["python", "typescript"] if self.extra is not None else ["python"]

    def describe(self) -> str:
        if self.extra is not None:
            return "python + typescript"
        return f"python only ({self.missing})" if self.missing else "python only"

    def check(self, tasks: list[Task]) -> list[GateResult]:
        """One result per task, in order. With a cache, a task this code already accepted under these
        verifiers passes without being judged again, and every newly accepted task is recorded. The
        TypeScript verifier is asked through one process kept for the call (``ts_verifier.serving``)."""
        from tasks_catalog import ts_verifier

        with ts_verifier.serving():
            return self._check(tasks)

    def _check(self, tasks: list[Task]) -> list[GateResult]:
        if self.cache is None:
            return anyio.run(gate_tasks, tasks, self.extra, self.extra_frames, self.joint, self.progress)
        settled = self.progress or (lambda n: None)
        keys = [(t.id, task_hash(t)) for t in tasks]
        results: dict[int, GateResult] = {}
        queue = world_order(tasks)  # so each gate sharing the cache claims runs of tasks on a few worlds
        while queue:
            chunk: list[int] = []
            claims: list[Claim] = []
            busy: list[int] = []
            size = claim_size(len(queue))
            try:
                for i in queue:
                    if self.cache.accepted(*keys[i]):
                        results[i] = GateResult(tasks[i].id, cached=True)
                        settled(1)
                    elif len(chunk) < size and (claim := self.cache.claim(keys[i][1])) is not None:
                        chunk.append(i)
                        claims.append(claim)
                    else:
                        busy.append(i)  # another gate is judging it, or this chunk is full: look again later
                if not chunk and busy:  # all that is left is being judged elsewhere: wait for the first of it
                    waited = self.cache.claim(keys[busy[0]][1], wait=True)
                    assert waited is not None  # a claim waited for is had
                    claims.append(waited)
                    chunk.append(busy.pop(0))
                todo = []
                for i in chunk:
                    if self.cache.accepted(*keys[i]):  # accepted by another gate while this one claimed
                        results[i] = GateResult(tasks[i].id, cached=True)
                        settled(1)
                    else:
                        todo.append(i)
                if todo:
                    judged = anyio.run(gate_tasks, [tasks[i] for i in todo], self.extra, self.extra_frames, self.joint,
                                       settled)
                    for i, result in zip(todo, judged, strict=True):
                        results[i] = result
                        if result.ok:
                            self.cache.record(*keys[i])
            finally:
                for claim in claims:
                    claim.release()
            queue = busy
        return [results[i] for i in range(len(tasks))]

    def check_paths(self, paths: list[Path]) -> tuple[list[GateResult], int]:
        """:func:`validate_paths` by this gate (its cache included)."""
        return _gate_paths(paths, self.check)


def acceptance_gate(typescript: bool | None = None, cache: str | os.PathLike | None = None) -> Gate:
    """The one gate policy. Every verdict is asked of the Python verifier and, when it is built, of
    the TypeScript one; a task passes only where both agree. ``typescript``:

    * ``None`` (the default): both when the TypeScript verifier is built (``scripts/setup.sh`` builds
      it); when it is not, the Python verifier alone, and the gate says so (``describe()``, which the
      CLI prints and the flows log and return). With ``MCPBENCH_REQUIRE_TYPESCRIPT=1`` set, an
      unbuilt TypeScript verifier is an error instead, as with ``True``;
    * ``True``: both, or :class:`GateUnavailable` naming what is missing;
    * ``False``: the Python verifier alone.

    ``cache``: a folder in which the gate keeps the tasks it accepted, so that an unchanged task judged
    by unchanged code is not judged again (tasks_catalog/gate_cache.py); by default
    ``$MCPBENCH_GATE_CACHE``, and when that is unset, nothing is kept."""
    from tasks_catalog import ts_verifier

    if typescript is False:
        gate = Gate(None, "not asked for")
    elif ts_verifier.available():
        # asked to explain, so that the two are held to the same failing clauses too
        gate = Gate(partial(ts_verifier.evaluate_many, explain=True), extra_frames=ts_verifier.frame_violations_many,
                    joint=partial(ts_verifier.judge_many, explain=True))
    elif typescript or os.environ.get(REQUIRE_TYPESCRIPT_ENV) == "1":
        raise GateUnavailable(ts_verifier.unavailable_reason())
    else:
        gate = Gate(None, ts_verifier.unavailable_reason())
    return replace(gate, cache=cache_from(cache, gate.verifiers))


def sealed_month_gate(cache: str | os.PathLike | None = None) -> Gate:
    """The gate of a private month (its rotation, and the catalog's check of a sealed month): both
    verifiers, always. A month's verdicts are never left to one verifier: where the TypeScript verifier
    is not built (a fresh clone on a worker), it is built (``npm ci && npm run build``); where it cannot
    be, :class:`GateUnavailable` says why, and nothing is gated, sealed or published. The dev set and an
    author's folders keep :func:`acceptance_gate`'s policy."""
    from tasks_catalog import ts_verifier

    if not ts_verifier.available():
        why = ts_verifier.unavailable_reason()
        try:
            ts_verifier.build()
        except ts_verifier.TypeScriptVerifierError as exc:
            raise GateUnavailable(f"a private month is gated by both verifiers, and {why}; building it here failed: "
                                  f"{exc}") from None
        if not ts_verifier.available():
            raise GateUnavailable(f"a private month is gated by both verifiers, and {ts_verifier.unavailable_reason()}")
    return acceptance_gate(typescript=True, cache=cache)


__all__ = ["ATTEMPTS", "REQUIRE_TYPESCRIPT_ENV", "Gate", "GateResult", "GateUnavailable", "Replay", "TaskError",
           "acceptance_gate", "apply_calls", "difficulty_problems", "dumped", "gate_tasks", "literal_problems",
           "positive_part", "replay", "sealed_month_gate", "validate_paths", "world_order"]
