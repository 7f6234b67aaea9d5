"""Tighten a task's frame to field level from what its reference solution changes (issue 32), for an author
to review: what the gate's probes (tasks_catalog/probes) refuse in a frame that is too loose.

Each allowance keeps what it says and gains, from the reference's changes it allows:

- ``fields`` by key: a map the allowance names whole (``properties``, ``metadata``) becomes the keys the
  reference changes (``properties.Status``); an update allowance without ``fields`` gets the fields the
  reference changes;
- ``values`` for lists: what the reference adds to and removes from each list it changes (a guest, a
  label, a member), and for a list of a created entity the items it holds; items that are objects are
  told apart by a key (``email``, ``id``, ``name``);
- ``parent: "created"`` for a create allowance whose every created entity lives in one the run created
  (the blocks of the new page), where the allowance names no ids;
- ``max``: how many the reference creates, where a create allowance by ``where`` has none or a larger one
  (one more than the goal implies, the task done twice, breaks it); GitHub commits aside, whose number a
  goal rarely fixes. Where the goal leaves the number free, say so with an alternative solution that
  makes more, rather than a larger ``max`` (the gate then skips the probes of one more as ambiguous).

A template's frame is tightened on several renderings and generalised back to placeholders; a rendering
its generalisation does not reproduce is reported. ``--write`` rewrites the files whose frame changed and
bumps their ``version``.

    mcpbench author tighten tasks_catalog/dev/notion/notion-move-claire-to-offer.json
    mcpbench author tighten tasks_catalog/templates/slack --seeds 3 --write
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from pydantic import ValidationError

from tasks_catalog.authoring.propose import canonical, final_state, generalise, generalised_over
from tasks_catalog.frames import Change, allowance_counts, allowed_by, scoped_diff, split_unit, unit_value
from tasks_catalog.loader import validate_task
from tasks_catalog.schema import Allowance, Task
from tasks_catalog.templates import load_template, render

#: Kinds whose count a goal rarely fixes: never given a ``max`` here.
FREE_COUNT = {"github.commit"}
#: Fields that tell apart the objects of a list by what they are (an address, a name), in order of
#: preference: never an id the server assigns, which another agent's run would not reproduce.
ITEM_KEYS = ("email", "login", "name")


def _item_key(items: list[Any]) -> str | None:
    """The field that tells apart ``items`` (objects), or None when they are not objects or none does."""
    for key in ITEM_KEYS:
        if all(isinstance(x, dict) and key in x for x in items):
            return key
    return None


def _merge(out: list[Any], items: Iterable[Any]) -> None:
    for x in items:
        if not any(json.dumps(x, sort_keys=True) == json.dumps(y, sort_keys=True) for y in out):
            out.append(x)


def _list_values(changes: list[Change], unit: str) -> dict[str, Any] | None:
    """The ``add``/``remove`` constraint of what ``changes`` do to the list ``unit``, or None (not a list)."""
    pairs = []
    for c in changes:
        before = unit_value(c.before, unit) if c.change == "update" else (False, None)
        after = unit_value(c.after, unit)
        old, new = (before[1] if before[0] else []), (after[1] if after[0] else [])
        if not isinstance(old, list) or not isinstance(new, list):
            return None
        pairs.append((old, new))
    items = [x for old, new in pairs for x in (*old, *new)]
    key = _item_key(items)
    if key is None and any(isinstance(x, dict) for x in items):
        return None  # objects nothing tells apart but a server-assigned id: left to the predicate
    added: list[Any] = []
    removed: list[Any] = []
    for old, new in pairs:
        if key is None:
            _merge(added, [x for x in new if x not in old])
            _merge(removed, [x for x in old if x not in new])
        else:
            olds = {json.dumps(x[key], sort_keys=True): x for x in old}
            news = {json.dumps(x[key], sort_keys=True): x for x in new}
            _merge(added, [x[key] for k, x in news.items() if k not in olds or olds[k] != x])
            _merge(removed, [x[key] for k, x in olds.items() if k not in news])
    out: dict[str, Any] = {}
    if added or not removed:
        out["add"] = added
    if removed:
        out["remove"] = removed
    if key is not None:
        out["key"] = key
    return out


def tighten_frame(frame: list[dict[str, Any]], changes: list[Change]) -> list[dict[str, Any]]:
    """``frame`` tightened from the reference's ``changes`` (see the module docstring)."""
    counts = allowance_counts(frame, changes)
    created = {(c.entity, c.id) for c in changes if c.change in ("create", "copy")}
    out = []
    for i, allowance in enumerate(frame):
        a = json.loads(json.dumps(allowance))
        mine = [c for c in changes if allowed_by(allowance, c, changes)]
        updates = [c for c in mine if c.change == "update"]
        creates = [c for c in mine if c.change == "create"]
        values = dict(a.get("values") or {})
        if updates:
            _tighten_updates(a, values, updates)
        if creates:
            _tighten_creates(a, values, creates, created, counts[i])
        if values:
            a["values"] = values
        out.append(a)
    return out


def _tighten_updates(a: dict[str, Any], values: dict[str, Any], updates: list[Change]) -> None:
    """Allowance ``a`` (and its ``values``) tightened from the ``updates`` it allows: its ``fields`` (a whole
    map narrowed to the keys changed) and the lists they change."""
    units = sorted({u for c in updates for u in c.fields})
    if a.get("fields") is None:
        a["fields"] = units
    else:
        narrowed: list[str] = []
        for f in a["fields"]:
            keys = [u for u in units if u != f and split_unit(u, updates[0].before)[0] == f
                    and split_unit(u, updates[0].before)[1] is not None]
            narrowed += keys if keys and f not in units else [f]
        a["fields"] = list(dict.fromkeys(narrowed))
    for unit in units:
        if unit in values or split_unit(unit, updates[0].before)[0] in values:
            continue
        listed = [c for c in updates if unit in c.fields]
        constraint = _list_values(listed, unit)
        if constraint is not None:
            values[unit] = constraint


def _tighten_creates(a: dict[str, Any], values: dict[str, Any], creates: list[Change],
                     created: set[tuple[str, str]], count: int) -> None:
    """Allowance ``a`` (and its ``values``) tightened from the ``creates`` it allows (``count`` of them, of
    the run's ``created`` entities): the lists they fill, ``parent`` and ``max``."""
    for name, value in (creates[0].after or {}).items():
        if name in values or not isinstance(value, list):
            continue
        if any((c.after or {}).get(name) for c in creates):
            constraint = _list_values(creates, name)
            if constraint is not None:
                constraint.pop("remove", None)
                values[name] = constraint
    parents = [c.parent for c in creates]
    if (a.get("parent") is None and a.get("ids") is None and all(parents)
            and all(p in created for p in parents)):
        a["parent"] = "created"
    if a.get("ids") is None and a["entity"] not in FREE_COUNT and (a.get("max") is None or a["max"] > count):
        a["max"] = count


def tighten(task: Task) -> list[dict[str, Any]]:
    """The tightened frame of ``task``, from its reference solution (no faults)."""
    initial, final, errors = anyio.run(final_state, task, task.reference_solution)
    if errors:
        raise ValueError(f"task {task.id}: reference solution fails: {errors[0]}")
    frame = [a.model_dump(mode="json", exclude_none=True) for a in task.frame]
    return tighten_frame(frame, scoped_diff(task.scope, initial, final))


#: What tightening adds to an allowance; the rest (its entity, change, ids, where) stays as written.
ADDED = ("fields", "values", "parent", "max")


def tighten_template(template, seeds: Iterable[bytes]) -> tuple[list[dict[str, Any]], list[str]]:
    """A template's tightened frame: its own allowances, each with what tightening adds on one rendering
    (``ADDED``) generalised back to placeholders, and the renderings (by seed) whose own tightening that
    does not reproduce."""
    written = template.task["frame"]
    tasks = {seed: render(template, seed) for seed in seeds}
    tight = {seed: tighten(t) for seed, t in tasks.items()}

    def added(frame: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: a[k] for k in ADDED if k in a} for a in frame]

    generic, problems = generalised_over(
        tasks, {seed: added(frame) for seed, frame in tight.items()},
        lambda frame, params, bounded: [_generalise_allowance(a, params, bounded) for a in frame],
        lambda a, b: json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True), "what tightening adds")
    return [{**{k: v for k, v in a.items() if k not in ADDED}, **g} for a, g in zip(written, generic)], problems


def _generalise_unit(unit: str, params: dict[str, Any]) -> str:
    """A field name, or ``field.key`` with the key generalised whole (a column a template names)."""
    field, dot, key = unit.partition(".")
    return f"{field}.{generalise(key, params, whole_only=True)}" if dot else generalise(unit, params, whole_only=True)


def _generalise_allowance(a: dict[str, Any], params: dict[str, Any], bounded: bool) -> dict[str, Any]:
    a = dict(a)
    for key in ("ids", "where"):
        if key in a:
            a[key] = generalise(a[key], params, bounded=bounded)
    if "values" in a:
        a["values"] = {_generalise_unit(u, params): generalise(c, params, bounded=bounded) for u, c in a["values"].items()}
    if "fields" in a:
        a["fields"] = [_generalise_unit(u, params) for u in a["fields"]]
    return a


def _normal(frame: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A frame as written, with its defaults filled in as the task model fills them (a template's allowance
    that is not one yet, a placeholder standing for a number, as it is)."""
    out = []
    for a in frame:
        try:
            out.append(Allowance.model_validate(a).model_dump(mode="json", exclude_none=True))
        except ValidationError:
            out.append(a)
    return out


def with_version(doc: dict[str, Any], version: int) -> dict[str, Any]:
    """A task or template document with ``version`` set, placed right after its ``id``."""
    out: dict[str, Any] = {}
    for k, v in doc.items():
        if k != "version":
            out[k] = v
        if k == "id":
            out["version"] = version
    return out


@dataclass
class Tightened:
    """What ``tighten_paths`` found: per task or template id, its frame before and after and any problem."""

    frames: dict[str, dict[str, Any]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)


def tighten_paths(paths: Iterable[Path], *, seeds: int = 3, write: bool = False) -> Tightened:
    """Tighten the frame of every task and template file under ``paths``; with ``write``, rewrite each file
    whose frame changed (and had no problem) with the tightened frame and its ``version`` bumped."""
    out = Tightened()
    for path in paths:
        for f in sorted(path.rglob("*.json")) if path.is_dir() else [path]:
            doc = json.loads(f.read_text(encoding="utf-8"))
            body = doc.get("task", doc)
            try:
                if "params" in doc:
                    frame, problems = tighten_template(load_template(f), [b"tighten-%d" % i for i in range(seeds)])
                else:
                    task, errors = validate_task(doc, str(f))
                    if task is None or errors:
                        out.errors += [f"{f}: {e.path}: {e.message}" for e in errors[:1]]
                        continue
                    frame, problems = tighten(task), []
            except ValueError as exc:
                out.errors.append(f"{f}: {exc}")
                continue
            changed = canonical(_normal(frame)) != canonical(_normal(body["frame"]))
            out.frames[doc["id"]] = {"before": body["frame"], "after": frame, "changed": changed, "problems": problems}
            if write and changed and not problems:
                body["frame"] = [{k: v for k, v in a.items() if not (k == "change" and v == ["update"])} for a in frame]
                doc = with_version(doc, int(doc.get("version") or 1) + 1)
                f.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
                out.written.append(f)
    return out


__all__ = ["FREE_COUNT", "Tightened", "tighten", "tighten_frame", "tighten_paths", "tighten_template", "with_version"]
