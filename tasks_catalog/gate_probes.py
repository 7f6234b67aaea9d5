"""Running the probes the gate derives for a task (tasks_catalog/probes) and judging each with the Python
verifier; the gate asks the second verifier about the same states (docs/frames.md, "Probes").

A damage probe is judged by the frame first: the predicate is evaluated only when the frame holds (then
it alone can still catch the damage). A variant or alternative solution is judged whole: predicate,
frame and budget. A generated variant that errs or does not reach the reference's result is skipped
(ambiguous), an authored alternative solution that does is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from servers import get_spec
from tasks_catalog.frames import (
    Change,
    ExactSame,
    Extracted,
    allowance_counts,
    diff,
    extract_at,
    judge,
    scoped_diff,
    server_entities,
    summarize,
    with_entity,
)
from tasks_catalog.predicates import clause_ids, evaluate
from tasks_catalog.probes import (
    Probe,
    ProbeResult,
    Reference,
    alternatives,
    damages,
    entity_kind,
    probed_server,
    variants,
)
from tasks_catalog.replay import replay
from tasks_catalog.schema import Task


@dataclass
class Probed:
    """What the probes of one task found: their results, and each state judged (for the second verifier):
    ``verdicts`` as ``(what, dump, verdict, failing clause ids)``, ``frames`` as ``(what, dump, violations)``.
    ``explain``: name the failing clauses of each false verdict (else left empty), for a second verifier
    held to the same ones. ``same``: the task's initial state's forms, each probe's final state sharing
    what did not change with that state (``Replay.dump_sharing``)."""

    explain: bool = False
    same: ExactSame = field(default_factory=ExactSame)
    results: list[ProbeResult] = field(default_factory=list)
    verdicts: list[tuple[str, dict[str, Any], bool, tuple[str, ...]]] = field(default_factory=list)
    frames: list[tuple[str, dict[str, Any], list[Any]]] = field(default_factory=list)

    def judged(self, what: str, dump: dict[str, Any], success: dict[str, Any], state: Any) -> bool:
        """The predicate ``success`` on ``state`` (dumped as ``dump``), recorded in ``verdicts``."""
        verdict = evaluate(success, state)
        self.verdicts.append((what, dump, verdict, clause_ids(success, state) if self.explain and not verdict else ()))
        return verdict

    def reasons(self) -> list[str]:
        return [f"probe {r.probe.name} ({r.probe.what}) {r.detail}" for r in self.results if r.outcome == "missed"]


async def probe_task(task: Task, frame: list[dict[str, Any]], before: Extracted, ref_state: Any, ref: Reference,
                     explain: bool = False, same: ExactSame | None = None) -> Probed:
    """Run every probe of ``task`` (whose reference solution took ``before``, the initial state, to
    ``ref_state``, described by ``ref``) and judge it (``explain``, ``same``: see ``Probed``)."""
    out = Probed(explain, same=same or ExactSame())
    reference_counts = allowance_counts(frame, ref.changes)
    free: set[int] = set()
    after_ref = Extracted(probed_server(task), ref.final)
    for probe in variants(task, ref):
        result, changes = await _run(task, frame, before, after_ref, ref_state, ref, probe, out)
        out.results.append(result)
        if result.outcome == "held" and changes is not None:
            counts = allowance_counts(frame, changes)
            free |= {i for i, (n, m) in enumerate(zip(counts, reference_counts)) if n > m}
    for probe in damages(task, ref, frame, free):
        result, _ = await _run(task, frame, before, after_ref, ref_state, ref, probe, out)
        out.results.append(result)
    return out


async def judge_alternatives(task: Task, frame: list[dict[str, Any]], start: dict[str, Any], before: Any,
                             explain: bool = False, same: ExactSame | None = None) -> Probed:
    """Run a task's own ``alternative_solutions`` alone, each from the initial state (``start``, the task's
    scoped initial dump, and ``before``, its ``Extracted``) and judged whole as in ``probe_task``: how the
    gate judges those of a cross-server task, whose generated probes it leaves out (they edit one
    server's state)."""
    out = Probed(explain, same=same or ExactSame())
    for probe in alternatives(task):
        done = await replay(task, probe.calls, faults=probe.faults)
        if done.errors:
            out.results.append(ProbeResult(probe, "missed", f"fails: {done.errors[0]}"))
            continue
        dump = done.dump_sharing(start, out.same)
        violations = judge(frame, scoped_diff(task.scope, before, dump))
        what = f"after probe {probe.name}"
        out.frames.append((what, dump, violations))
        verdict = out.judged(what, dump, task.success, done.state)
        out.results.append(_outcome(task, probe, violations, verdict, done.steps))
    return out


async def _run(task: Task, frame: list[dict[str, Any]], before: Extracted, after_ref: Extracted, ref_state: Any,
               ref: Reference, probe: Probe, out: Probed) -> tuple[ProbeResult, list[Any] | None]:
    if probe.skipped is not None:
        return ProbeResult(probe, "skipped", probe.skipped), None
    server = probed_server(task)
    state = None
    steps = 0
    if probe.edit is not None:
        dump = probe.edit(ref.final)
    else:
        done = await replay(task, probe.calls, start=ref_state if probe.start == "final" else None,
                            faults=probe.faults)
        if done.errors:
            if probe.kind == "alternative":
                return ProbeResult(probe, "missed", f"fails: {done.errors[0]}"), None
            return ProbeResult(probe, "skipped", f"not applicable: {done.errors[0]}"), None
        state, dump, steps = done.state, done.dump_sharing(ref.initial, out.same), done.steps
    if probe.kind == "damage" and after_ref.same_as(dump):
        return ProbeResult(probe, "skipped", "not applicable: it changes nothing the reference left"), None
    what = f"after probe {probe.name}"
    changes = _changes(server, probe, before, ref, dump)
    violations = judge(frame, changes)
    out.frames.append((what, dump, violations))
    verdict = None
    if probe.kind != "damage" or not violations:
        if state is None:
            try:
                state = get_spec(server).state_model.model_validate(dump)
            except ValidationError:
                return ProbeResult(probe, "skipped", "not applicable: the edit makes a state the server's own model "
                                                     "refuses, which no agent can reach"), None
        verdict = out.judged(what, dump, task.success, state)
    return _outcome(task, probe, violations, verdict, steps), changes


def _changes(server: str, probe: Probe, before: Extracted, ref: Reference, dump: dict[str, Any]) -> list[Change]:
    """What a probe's final state ``dump`` changes: for a state edit of one entity, the reference's diff
    with that entity made again from ``dump`` (unless entities live inside it: a table's key makes its
    rows' ids, so those are diffed whole); else the whole diff."""
    if probe.target is not None:
        entities = server_entities(server)
        kind = entity_kind(entities, probe.target)
        inside = any(len(k.path) > len(kind.path) and k.path[:len(kind.path)] == kind.path for k in entities.kinds)
        found = {} if inside else extract_at(kind, dump, probe.at)
        if list(found) == [probe.target.id]:
            return with_entity(kind, ref.changes, probe.target, found[probe.target.id], before)
    return diff(server, before, dump)


def _outcome(task: Task, probe: Probe, violations: list[Any], verdict: bool | None, steps: int) -> ProbeResult:
    """How a probe went, from the frame's ``violations`` and the predicate's ``verdict`` (None: a damage
    the frame refuses, which the predicate is not asked about)."""
    if probe.kind == "damage":
        if violations:
            return ProbeResult(probe, "held", f"the frame refuses it: {summarize(violations, 1)}")
        if not verdict:
            return ProbeResult(probe, "held", "the predicate is false")
        return ProbeResult(probe, "missed", "passes: the predicate holds and the frame allows it, but damage the goal "
                                            "does not ask for must fail")
    if not verdict:
        if probe.kind == "alternative":
            return ProbeResult(probe, "missed", "fails: the predicate is false")
        return ProbeResult(probe, "skipped", "ambiguous: it does not reach the reference's result (the predicate is "
                                             "false)")
    if violations:
        return ProbeResult(probe, "missed", f"fails, though it does what the goal asks: the frame refuses "
                                            f"{summarize(violations, 3)}")
    if probe.start == "initial" and steps > task.max_steps:
        return ProbeResult(probe, "missed", f"fails, though it does what the goal asks: it takes {steps} calls and "
                                            f"max_steps is {task.max_steps}")
    return ProbeResult(probe, "held", "passes")


__all__ = ["Probed", "judge_alternatives", "probe_task"]
