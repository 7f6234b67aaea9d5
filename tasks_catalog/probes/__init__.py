"""Probes: what the acceptance gate derives, for every task, from its world, its tools and its reference
solution, to check that the judge errs neither way (docs/frames.md, "Probes").

* **damage** probes must FAIL the judgement. Each starts from the reference solution's final state (the
  right result, so only the frame can tell the damage apart):
  - ``untouched:<tool>``: for each writable tool, a call on an entity of the world the task never names
    (``_recipes.py``), through the server's tools;
  - ``field:<i>:<field>``: inside the entity an allowance lets the reference change, a change to a field
    (or key of a map, or one more item of a list) the goal does not ask for, as a state edit;
  - ``again:<i>`` and ``other:<i>``: one more entity of the kind a create allowance allows, made by the
    call that made the reference's own, once as it was (the task done twice) and once with other text.
* **variant** probes must PASS: the same result reached another way, from the initial state: the
  reference's writes in another order where they touch different entities (``reorder``), a file written
  in two commits instead of one (``split``), a transient fault on the first write then a retry
  (``retry``), and its reads made again at the end (``reads``).
* the task's own ``alternative_solutions`` must pass too (``alternative:<n>``).

A probe that cannot be built or run (no such tool, nothing to act on, a call the server refuses) is
skipped with its reason; so is one whose outcome is ambiguous by construction (a variant that does not
reach the reference's result, a duplicate of a kind whose count a passing variant shows to be free).
Skipped probes are listed (``mcpbench tasks validate --json``), never counted.

This module plans probes; the gate (tasks_catalog/gate.py) runs and judges them with both verifiers.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from servers import get_spec
from tasks_catalog.frames import Change, ServerEntities, allowed_by, locate, server_entities
from tasks_catalog.frames import Kind as EntityKind
from tasks_catalog.probes._edits import duplicate, field_edits
from tasks_catalog.probes._recipes import BENIGN_ONLY, PROBE_TEXT, RECIPES, Named
from tasks_catalog.schema import Fault, Task, ToolCall

Kind = Literal["damage", "variant", "alternative"]


@dataclass(frozen=True)
class Probe:
    """One probe: run ``calls`` (from the reference's final state, or from the initial state for a
    ``start="initial"`` solution) with ``faults`` injected, or apply ``edit`` to the reference's final
    dumped state. ``skipped`` says why it is not run."""

    name: str
    kind: Kind
    how: Literal["tools", "state edit"]
    what: str
    calls: tuple[ToolCall, ...] = ()
    start: Literal["initial", "final"] = "final"
    faults: tuple[Fault, ...] = ()
    edit: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    #: for ``again``/``other``: the allowance whose count it tests (skipped where a variant shows it free)
    allowance: int | None = None
    skipped: str | None = None
    #: for a state edit: the reference's change of the entity it edits, and where that entity lives
    target: Change | None = None
    at: tuple[Any, ...] = ()

    def skip(self, why: str) -> Probe:
        return Probe(self.name, self.kind, self.how, self.what, allowance=self.allowance, skipped=why)


@dataclass
class ProbeResult:
    """How a probe went: ``held`` (a damage failed, a variant passed: as it must), ``missed`` (the task is
    refused, ``detail`` says why) or ``skipped`` (not counted, ``detail`` says why)."""

    probe: Probe
    outcome: Literal["held", "missed", "skipped"]
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        p = self.probe
        return {"probe": p.name, "kind": p.kind, "how": p.how, "what": p.what, "outcome": self.outcome,
                "detail": self.detail}


@dataclass
class Reference:
    """The reference solution as the gate replayed it: the dumped initial and final states, what changed,
    and what each write call changed (``effects``: the call's index and its changes, in order)."""

    initial: dict[str, Any]
    final: dict[str, Any]
    changes: list[Change]
    effects: list[tuple[int, list[Change]]] = field(default_factory=list)


def probed_server(task: Task) -> str:
    """The one server whose state a task's probes edit and run on. Probes are planned for single-server
    tasks only: the gate judges a cross-server task without them (tasks_catalog/gate.py)."""
    if task.server is None:
        raise ValueError(f"task {task.id}: probes are planned for a single-server task, and this one names "
                         f"{', '.join(task.server_names)}")
    return task.server


def entity_kind(entities: ServerEntities, change: Change) -> EntityKind:
    """The declared kind of a change the server's own ``diff`` made (so always one of ``entities``)."""
    kind = entities.kind(change.entity.split(".", 1)[1])
    if kind is None:
        raise ValueError(f"{change.entity} is not an entity kind of {entities.server}")
    return kind


def writable_tools(server: str) -> set[str]:
    """The tools of ``server`` that are not marked read-only."""
    return {name for name, mark in get_spec(server).toolset.tool_marks() if not mark.read_only}


def named(task: Task, ref: Reference) -> Named:
    """What ``task`` names: the strings of its frame, predicate and solutions, the ids of what its reference
    changes, and its goal (tasks_catalog/probes/_recipes.py)."""
    strings: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str):
            strings.add(value)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            strings.add(str(value))
        elif isinstance(value, dict):
            for k, v in value.items():
                walk(k)
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    doc = task.to_json()
    for key in ("frame", "success", "reference_solution", "wrong_solutions", "alternative_solutions"):
        walk(doc.get(key))
    for c in ref.changes:
        strings.add(c.id)
        if c.parent:
            strings.add(c.parent[1])
        for values in (c.before, c.after):
            for v in (values or {}).values():
                if isinstance(v, str) and len(v) < 200:
                    strings.add(v)
    return Named(strings, task.goal)


# -- variants ----------------------------------------------------------------------------------------

def alternatives(task: Task) -> list[Probe]:
    return [Probe(f"alternative:{n}", "alternative", "tools", alt.why, tuple(alt.calls), start="initial")
            for n, alt in enumerate(task.alternative_solutions or [], start=1)]


def _touched(changes: list[Change]) -> set[tuple[str, str]]:
    """The entities ``changes`` touch, and the entities they live in."""
    out = {(c.entity, c.id) for c in changes}
    return out | {c.parent for c in changes if c.parent is not None}


def reorder(task: Task, ref: Reference) -> Probe:
    name, what = "reorder", "the reference's writes in another order"
    writes = [i for i, _ in ref.effects]
    effects = dict(ref.effects)
    for a, b in zip(writes, writes[1:]):
        if effects[a] and effects[b] and not (_touched(effects[a]) & _touched(effects[b])):
            calls = list(task.reference_solution)
            calls[a], calls[b] = calls[b], calls[a]
            return Probe(name, "variant", "tools", f"{what}: call {b + 1} ({calls[a].tool}) before call {a + 1} "
                         f"({calls[b].tool}), which change different entities", tuple(calls), start="initial",
                         faults=tuple(task.faults))
    return Probe(name, "variant", "tools", what).skip("no two successive writes of the reference change different entities")


def split(task: Task, ref: Reference) -> Probe:
    """A file the reference writes in one commit, written in two (GitHub): the same files, one more commit."""
    name, what = "split", "a file written in two commits instead of one"
    server = probed_server(task)
    if server != "github":
        return Probe(name, "variant", "tools", what).skip(f"{server} keeps no history a write could be split into")
    from servers.github.state import blob_sha

    for i, call in enumerate(task.reference_solution):
        if call.tool != "create_or_update_file" or "create_or_update_file" not in task.available_tools:
            continue
        first = dict(call.arguments)
        content = str(first.get("content", ""))
        first["content"] = content + "\n"
        first["message"] = f"{first.get('message', 'Update')} (draft)"
        second = {**call.arguments, "sha": blob_sha(first["content"])}
        calls = [*task.reference_solution[:i], ToolCall(tool=call.tool, arguments=first),
                 ToolCall(tool=call.tool, arguments=second), *task.reference_solution[i + 1:]]
        return Probe(name, "variant", "tools", f"{what}: call {i + 1} ({call.arguments.get('path')}) as a draft, then "
                     "the final text", tuple(calls), start="initial", faults=tuple(task.faults))
    return Probe(name, "variant", "tools", what).skip("the reference writes no file")


def retry(task: Task, ref: Reference, writes: set[str]) -> Probe:
    name, what = "retry", "a transient fault on the first write, then the same call again"
    faulted = {f.tool for f in task.faults}
    call = next((c for c in task.reference_solution if c.tool in writes and c.tool not in faulted), None)
    if call is None:
        return Probe(name, "variant", "tools", what).skip("every write the reference makes already meets the task's faults")
    fault = Fault(tool=call.tool, on_call=1, times=1, kind="unavailable")
    return Probe(name, "variant", "tools", f"{what} ({call.tool})", tuple(task.reference_solution), start="initial",
                 faults=(*task.faults, fault))


def reads(task: Task, writes: set[str]) -> Probe:
    name, what = "reads", "the reference's reads made again after its work"
    calls = tuple(c for c in task.reference_solution if c.tool not in writes)
    if not calls:
        return Probe(name, "variant", "tools", what).skip("the reference makes no read")
    return Probe(name, "variant", "tools", what, calls)


def variants(task: Task, ref: Reference) -> list[Probe]:
    """The alternative solutions, then the generated variants (each must pass)."""
    writes = writable_tools(probed_server(task))
    return [*alternatives(task), reorder(task, ref), split(task, ref), retry(task, ref, writes), reads(task, writes)]


# -- damage ------------------------------------------------------------------------------------------

def untouched(task: Task, ref: Reference, names: Named) -> list[Probe]:
    """For each writable tool the task lists, a call on an entity it never names (``_recipes.py``)."""
    out = []
    server = probed_server(task)
    writes = writable_tools(server)
    recipes = RECIPES.get(server, {})
    for tool in sorted(t for t in task.available_tools if t in writes):
        variants_of = [(key, r) for key, r in recipes.items() if key.split(" ")[0] == tool]
        if tool in BENIGN_ONLY.get(server, set()):
            out.append(Probe(f"untouched:{tool}", "damage", "tools", f"{tool} on what the task never names").skip(
                f"{tool} changes only benign state (docs/frames.md), which no frame judges"))
            continue
        if not variants_of:
            out.append(Probe(f"untouched:{tool}", "damage", "tools", "").skip(f"no recipe acts on {server}'s {tool}"))
            continue
        for key, recipe in variants_of:
            name = f"untouched:{key}"
            calls = recipe(ref.final, names)
            if not calls:
                out.append(Probe(name, "damage", "tools", f"{key} on what the task never names").skip(
                    "the world holds nothing this tool can act on that the task does not name"))
                continue
            what = "; ".join(f"{c['tool']}({_brief(c['arguments'])})" for c in calls)
            out.append(Probe(name, "damage", "tools", what, tuple(ToolCall(**c) for c in calls)))
    return out


def _brief(arguments: dict[str, Any]) -> str:
    text = json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))
    return text[1:-1] if len(text) <= 160 else text[1:157] + "..."


def _text_arguments(arguments: dict[str, Any]) -> dict[str, Any] | None:
    """``arguments`` with their free text changed (a string of several words, or a list of them), or None
    when there is none: the call makes the same kind of entity with values the goal does not imply."""
    changed, out = False, {}
    for k, v in arguments.items():
        if isinstance(v, str) and (" " in v.strip() or "\n" in v):
            out[k], changed = PROBE_TEXT, True
        else:
            out[k] = v
    return out if changed else None


def extras(task: Task, ref: Reference, frame: list[dict[str, Any]]) -> list[Probe]:
    """For each allowance that allows what the reference creates: the call that created it, made once more
    (``again``: the task done twice) and with other text (``other``), from the reference's final state."""
    out = []
    entities = server_entities(probed_server(task))
    for i, a in enumerate(frame):
        if "create" not in a.get("change", ["update"]):
            continue
        made = next(((n, c) for n, changes in ref.effects for c in changes
                     if c.change == "create" and allowed_by(a, c, ref.changes)), None)
        if made is None:
            continue
        n, c = made
        kind = entity_kind(entities, c)
        path = locate(kind, ref.final).get(c.id)
        edit = duplicate(kind, ref.final, path) if path is not None else None
        if edit is not None:
            out.append(Probe(f"copy:{i}", "damage", "state edit", f"one more {c.entity} like {c.id} beside it, "
                             f"under another id: the task done twice", edit=edit, allowance=i))
        call = task.reference_solution[n]
        out.append(Probe(f"again:{i}", "damage", "tools", f"call {n + 1} ({call.tool}) made again: one more "
                         f"{c.entity} than frame[{i}] was written for (the task done twice)", (call,), allowance=i))
        other = _text_arguments(call.arguments)
        if other is not None:
            out.append(Probe(f"other:{i}", "damage", "tools", f"call {n + 1} ({call.tool}) made again with other text: "
                             f"one more {c.entity}, with values the goal does not imply",
                             (ToolCall(tool=call.tool, arguments=other),), allowance=i))
    return out


def fields(task: Task, ref: Reference, frame: list[dict[str, Any]]) -> list[Probe]:
    """State edits of the fields the goal does not ask for, inside what each allowance lets the reference
    change (``_edits.py``)."""
    out = []
    entities = server_entities(probed_server(task))
    for i, a in enumerate(frame):
        change = next((c for c in ref.changes if c.change in ("create", "update") and allowed_by(a, c, ref.changes)), None)
        if change is None:
            continue
        kind = entity_kind(entities, change)
        path = locate(kind, ref.final).get(change.id)
        if path is None:
            continue
        for unit, what, edit in field_edits(kind, ref.final, path, change):
            out.append(Probe(f"field:{i}:{unit}", "damage", "state edit",
                             f"{change.entity} {change.id} (frame[{i}]): {what}", edit=edit, target=change, at=path))
    return out


def damages(task: Task, ref: Reference, frame: list[dict[str, Any]], free: set[int]) -> list[Probe]:
    """Every damage probe; ``free``: the allowances whose count a passing variant or alternative shows the
    goal leaves free (their ``again``/``other`` probes are ambiguous, so skipped)."""
    out = untouched(task, ref, named(task, ref)) + fields(task, ref, frame)
    for p in extras(task, ref, frame):
        if p.allowance in free:
            p = p.skip(f"ambiguous: a passing variant makes more of what frame[{p.allowance}] allows than the "
                       "reference does, so the goal does not fix how many")
        out.append(p)
    return out


__all__ = ["BENIGN_ONLY", "PROBE_TEXT", "RECIPES", "Kind", "Named", "Probe", "ProbeResult", "Reference", "alternatives", "damages", "entity_kind", "extras", "fields",
           "named", "probed_server", "reads", "reorder", "retry", "split", "untouched", "variants", "writable_tools"]
