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
gate"). Each reason says which rule the task breaks; callers print it after the task id (and a
template check after the template, seed and task id).

Both verifiers are consulted when a second one is plugged in (``extra`` for predicates,
``extra_frames`` for frames); any disagreement is a failure. docs/frames.md, "The gate". From the
command line: ``mcpbench tasks validate PATHS``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import anyio

from servers.kit.world import is_world_reference
from tasks_catalog.frames import Extracted, diff, frame_violations, judge, server_entities, summarize
from tasks_catalog.gate_cache import Claim, GateCache, cache_from
from tasks_catalog.gate_probes import probe_task
from tasks_catalog.hashing import task_hash
from tasks_catalog.literals import pattern_named, state_strings, value_named
from tasks_catalog.loader import TaskError, load_tasks
from tasks_catalog.predicates import evaluate, goal_literals
from tasks_catalog.probes import Reference
from tasks_catalog.replay import ATTEMPTS, Replay, apply_calls, replay
from tasks_catalog.schema import Task
from tasks_catalog.stats import budget_limit, measure, shortfalls

#: A second verifier consulted on every verdict: (server, state JSON, predicate) -> verdict.
ExtraVerifier = Callable[[list[tuple[str, dict[str, Any], dict[str, Any]]]], list[bool]]
#: A second frame judge: (server, initial, final, frame) -> violations as JSON, per case.
ExtraFrames = Callable[[list[tuple[str, dict[str, Any], dict[str, Any], list[dict[str, Any]]]]], list[list[dict]]]
#: Both second verifiers in one call, ``(verdict cases, frame cases) -> (verdicts, frame violations)``, each
#: state shipped once however many cases name it (``ts_verifier.judge_many``); used instead of the two
#: separate calls when set.
ExtraJudge = Callable[[list[tuple[str, dict[str, Any], dict[str, Any]]],
                       list[tuple[str, dict[str, Any], dict[str, Any], list[dict[str, Any]]]]],
                      tuple[list[bool], list[list[dict]]]]


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


def _entity_ids(task: Task, initial: Extracted) -> set[str]:
    return {ident for kind in server_entities(task.server).kinds for ident in initial.of(kind)}


class _WhenAsked:
    """A set made the first time it is asked about: a literal the goal names needs neither the initial
    state's entity ids nor its strings, and making those means walking a whole world."""

    def __init__(self, make: Callable[[], set[str]]) -> None:
        self._make, self._made = make, None

    def _set(self) -> set[str]:
        if self._made is None:
            self._made = self._make()
        return self._made

    def __contains__(self, item: object) -> bool:
        return item in self._set()

    def __iter__(self):
        return iter(self._set())


def literal_problems(task: Task, initial: dict[str, Any] | Extracted | None = None) -> list[str]:
    """Literals the predicate checks that the goal does not name (tasks_catalog/literals.py). ``initial``
    may be given ``Extracted`` (its entities are then not extracted again)."""
    if isinstance(initial, Extracted):
        extracted, initial = initial, initial.state
    else:
        extracted = Extracted(task.server, initial) if initial is not None else None
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
    server: str
    predicate: dict[str, Any]
    #: (what, state dump or None, python verdict) per judged state: the initial one, the reference's,
    #: the wrong ones' (dumped only when a second verifier will be asked)
    verdicts: list[tuple[str, dict[str, Any] | None, bool]]
    #: (what, initial dump, final dump, frame, python violations) per final state
    frames: list[tuple[str, dict[str, Any], dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]]
    #: reasons that come after the verifiers' disagreements (the literal rule, the difficulty rule)
    tail: list[str]


async def _judge(task: Task, dumps_wanted: bool, frames_wanted: bool, probes: bool = True) -> _Judged:
    result = GateResult(task.id)
    reasons = result.reasons
    written: list[tuple[int, dict[str, Any]]] = []  # the state after each write of the reference
    ref = await replay(task, task.reference_solution, faults=True,
                       at_start=lambda state: (state.dump(), evaluate(task.success, state)),
                       after_write=(lambda i, state: written.append((i, state.dump()))) if probes else None)
    start, initially = ref.initial
    #: (what, the predicate's verdict, the state's dump, must the predicate pass?) of every state judged;
    #: each state is dumped and evaluated once
    judged: list[tuple[str, bool, dict[str, Any], bool | None]] = [("on the initial state", initially, start, False)]
    if ref.errors:
        reasons.append(f"reference solution{' with its faults injected' if task.faults else ''}: {ref.errors[0]}")
    if ref.steps > task.max_steps:
        reasons.append(f"max_steps {task.max_steps} leaves no room for the faults: the reference solution with its "
                       f"faults injected takes {ref.steps} calls, retries included")
    frame = [a.model_dump(mode="json", exclude_none=True) for a in task.frame]
    before = Extracted(task.server, start)  # every final state is compared with the one initial state
    #: (what, final dump, python's frame violations) of every final state judged
    finals: list[tuple[str, dict[str, Any], list[Any]]] = []
    probed = None
    if not ref.errors:
        final = ref.state.dump()
        passes = evaluate(task.success, ref.state)
        judged.append(("after the reference solution", passes, final, True))
        changes = diff(task.server, before, final)
        outside = judge(frame, changes)
        finals.append(("after the reference solution", final, outside))
        if outside:
            reasons.append(f"the reference solution leaves the frame: {summarize(outside)}")
        elif passes and probes:
            effects, previous = [], start
            for i, dump in written:
                effects.append((i, diff(task.server, previous, dump)))
                previous = dump
            probed = await probe_task(task, frame, before, ref.state,
                                      Reference(start, final, changes, effects))
            result.probes = [r.to_json() for r in probed.results]
            judged += [(what, verdict, dump, None) for what, dump, verdict in probed.verdicts]
            finals += probed.frames

    kinds = set()
    for i, wrong in enumerate(task.wrong_solutions):
        what = f"wrong solution {i + 1} ({wrong.why})"
        done = await replay(task, wrong.calls, only_available=False, strict=False)
        kinds.add(wrong.kind)
        if wrong.kind is None:
            reasons.append(f"{what} has no kind: every wrong solution says what it tests "
                           f"(wrong_solutions[{i}].kind: collateral, lookalike or other)")
        final = done.state.dump()
        if before.same_as(final) or (done.calls and len(done.errors) == done.calls):
            reasons.append(f"{what} changes nothing{' (every call errors)' if done.errors else ''}, so it tests nothing")
            continue
        outside = frame_violations(task.server, frame, before, final)
        finals.append((f"after {what}", final, outside))
        broken = bool(outside)
        verdict = evaluate(task.success, done.state)
        if verdict and not broken:
            reasons.append(f"{what} passes: the predicate is true and the frame holds")
        if wrong.kind == "collateral" and not (positive_part(task.success, done.state) and broken):
            reasons.append(f"{what} is marked collateral, so the predicate's positive part must hold and the frame "
                           f"must break; positive part {positive_part(task.success, done.state)}, frame broken {broken}")
        judged.append((f"after {what}", verdict, final, None))
    if not {"collateral", "lookalike"} <= kinds:
        missing = sorted({"collateral", "lookalike"} - kinds)
        reasons.append(f"every task needs a collateral and a lookalike wrong solution (wrong_solutions[].kind); "
                       f"this one has no {' and no '.join(missing)}")

    verdicts = []
    for what, got, dump, wanted in judged:
        if wanted is not None and got is not wanted:
            reasons.append(f"predicate is {str(got).lower()} {what}; it must be {str(wanted).lower()}")
        verdicts.append((what, dump if dumps_wanted else None, got))
    frames = []
    if frames_wanted:
        frames = [(what, start, final, frame, [v.to_json() for v in outside]) for what, final, outside in finals]
    tail = probed.reasons() if probed is not None else []
    tail += literal_problems(task, before)
    if is_world_reference(task.initial_state):
        tail += difficulty_problems(task, ref.steps)
    return _Judged(result, task.server, task.success, verdicts, frames, tail)


#: About how many cases go to a second verifier per call: tasks are judged by Python first and their
#: cases asked in batches of whole tasks (the TypeScript verifier is a process per call; a world's state
#: is a few hundred kilobytes of JSON, so a batch stays some tens of megabytes).
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
    verdict_cases = [(j.server, dump, j.predicate) for j in judged for _, dump, _ in j.verdicts] if extra else []
    frame_cases = [(j.server, a, b, f) for j in judged for _, a, b, f, _ in j.frames] if extra_frames else []
    if not verdict_cases and not frame_cases:
        verdicts, frames = [], []
    elif joint is not None and extra is not None and extra_frames is not None:
        verdicts, frames = (list(x) for x in joint(verdict_cases, frame_cases))
    else:
        verdicts = list(extra(verdict_cases)) if verdict_cases else []
        frames = list(extra_frames(frame_cases)) if frame_cases else []
    if len(verdicts) != len(verdict_cases):
        raise ValueError(f"the second verifier answered {len(verdicts)} times to {len(verdict_cases)} cases")
    if len(frames) != len(frame_cases):
        raise ValueError(f"the second frame judge answered {len(frames)} times to {len(frame_cases)} cases")
    at = iter(verdicts)
    for j in judged if extra is not None else ():
        for what, _, mine in j.verdicts:
            other = next(at)
            if other is not mine:
                j.result.reasons.append(f"verifiers disagree {what}: python {mine}, typescript {other}")
    at = iter(frames)
    for j in judged if extra_frames is not None else ():
        for what, _, _, _, mine in j.frames:
            other = next(at)
            if other != mine:
                j.result.reasons.append(f"verifiers disagree on the frame {what}: python {mine}, typescript {other}")
    for j in judged:
        j.result.reasons.extend(j.tail)


async def gate_tasks(tasks: list[Task], extra: ExtraVerifier | None = None,
                     extra_frames: ExtraFrames | None = None, joint: ExtraJudge | None = None,
                     probes: bool = True) -> list[GateResult]:
    """Gate ``tasks``: each is judged by the Python verifier, and the second verifiers (``extra``,
    ``extra_frames``) are asked about the judged states of several tasks at once, about :data:`BATCH`
    cases a call; each disagreement is a reason of its task.

    A batch is asked in a worker thread while the next tasks are judged, so the TypeScript verifier
    (another process) works beside the Python one instead of after it; one batch at a time is in
    flight, so at most two batches of states are held."""
    from concurrent.futures import ThreadPoolExecutor

    results: list[GateResult] = []
    pending: list[_Judged] = []
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="gate-cross-check") as second:
        asked = None
        for task in tasks:
            judged = await _judge(task, extra is not None, extra_frames is not None, probes)
            results.append(judged.result)
            pending.append(judged)
            if sum(len(j.verdicts) + len(j.frames) for j in pending) >= BATCH:
                if asked is not None:
                    asked.result()  # raises what the previous batch raised
                asked, pending = second.submit(_cross_check, pending, extra, extra_frames, joint), []
        if asked is not None:
            asked.result()
    _cross_check(pending, extra, extra_frames, joint)
    return results


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


#: How many tasks a gate with a cache claims at a time (tasks_catalog/gate_cache.py): gates sharing a
#: cache take turns in chunks this size.
CLAIM = 20

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

    @property
    def verifiers(self) -> list[str]:
        return ["python", "typescript"] if self.extra is not None else ["python"]

    def describe(self) -> str:
        if self.extra is not None:
            return "python + typescript"
        return f"python only ({self.missing})" if self.missing else "python only"

    def check(self, tasks: list[Task]) -> list[GateResult]:
        """One result per task, in order. With a cache, a task this code already accepted under these
        verifiers passes without being judged again, and every newly accepted task is recorded."""
        if self.cache is None:
            return anyio.run(gate_tasks, tasks, self.extra, self.extra_frames, self.joint)
        keys = [(t.id, task_hash(t)) for t in tasks]
        results: dict[int, GateResult] = {}
        queue = list(range(len(tasks)))
        while queue:
            chunk: list[int] = []
            claims: list[Claim] = []
            busy: list[int] = []
            try:
                for i in queue:
                    if self.cache.accepted(*keys[i]):
                        results[i] = GateResult(tasks[i].id, cached=True)
                    elif len(chunk) < CLAIM and (claim := self.cache.claim(keys[i][1])) is not None:
                        chunk.append(i)
                        claims.append(claim)
                    else:
                        busy.append(i)  # another gate is judging it, or this chunk is full: look again later
                if not chunk and busy:  # all that is left is being judged elsewhere: wait for the first of it
                    claims.append(self.cache.claim(keys[busy[0]][1], wait=True))
                    chunk.append(busy.pop(0))
                todo = []
                for i in chunk:
                    if self.cache.accepted(*keys[i]):  # accepted by another gate while this one claimed
                        results[i] = GateResult(tasks[i].id, cached=True)
                    else:
                        todo.append(i)
                if todo:
                    judged = anyio.run(gate_tasks, [tasks[i] for i in todo], self.extra, self.extra_frames, self.joint)
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
        gate = Gate(ts_verifier.evaluate_many, extra_frames=ts_verifier.frame_violations_many,
                    joint=ts_verifier.judge_many)
    elif typescript or os.environ.get(REQUIRE_TYPESCRIPT_ENV) == "1":
        raise GateUnavailable(ts_verifier.unavailable_reason())
    else:
        gate = Gate(None, ts_verifier.unavailable_reason())
    return replace(gate, cache=cache_from(cache, gate.verifiers))


__all__ = ["ATTEMPTS", "REQUIRE_TYPESCRIPT_ENV", "Gate", "GateResult", "GateUnavailable", "Replay", "TaskError",
           "acceptance_gate", "apply_calls", "difficulty_problems", "gate_tasks", "literal_problems", "positive_part", "replay",
           "validate_paths"]
