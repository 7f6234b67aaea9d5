"""The ``field`` damage probes: state edits of one field the goal does not ask for, inside an entity an
allowance lets the reference change (tasks_catalog/probes/__init__.py).

For an updated entity: every judged field the reference left as it was gets another value, every key of
a map the reference left as it was too, each map one more key, and each list one more item (a list the
reference changed included: one item more than the goal implies). For a created entity: its lists that
hold something get one more item (a guest, a member, a recipient); its maps are left alone (their keys
are the kind's, such as a form's fields, and their values the predicate's). The other value is
one another entity of the kind has where there is one (a real user, a real label, a real address), so
the state stays one the server could reach; else it is made up. The fields that make the entity's id
or place it (its extras: a file's branch, a message's channel) are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from tasks_catalog.frames import Change, Kind, extract, json_equal, row_columns

#: At most this many field probes per allowance.
LIMIT = 16
_REF = re.compile(r"\{(?:(\d+)\.)?([^{}.]+)\}")
_NEW_KEY = "mcpbench-probe"

Edit = Callable[[dict[str, Any]], dict[str, Any]]


def _get(state: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        state = state[step]
    return state


def _set(state: Any, path: tuple[Any, ...], value: Any) -> Any:
    """``state`` with ``value`` at ``path``, copying only the containers on the path (the rest is shared)."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    copy = list(state) if isinstance(state, list) else dict(state)
    copy[head] = _set(state[head], rest, value) if rest else value
    return copy


def _placing(kind: Kind) -> set[str]:
    """Fields that make the entity's id or place it: left alone."""
    last = len(kind.path) - 1
    out = {name for name, _ in kind.extra}
    for level, name in _REF.findall(kind.id):
        if not level or int(level) == last:
            out.add(name)
    return out


class _Others:
    """Values the other entities of a kind hold (under the same top-level item: the same table, channel or
    repository), to edit a field into one the server could have made. Extracted when first asked."""

    def __init__(self, kind: Kind, state: dict[str, Any], path: tuple[Any, ...], own: str) -> None:
        self._kind, self._state, self._own = kind, state, own
        self._only = frozenset({path[1]}) if len(kind.path) >= 2 and isinstance(path[1], int) else None
        self._made: list[dict[str, Any]] | None = None

    @property
    def _entities(self) -> list[dict[str, Any]]:
        if self._made is None:
            self._made = [f for i, f in extract(self._kind, self._state, self._only).items() if i != self._own]
        return self._made

    def scalar(self, field: str, key: str | None, current: Any) -> Any:
        for e in self._entities:
            v = e.get(field)
            if key is not None:
                v = v.get(key) if isinstance(v, dict) else None
            if v is not None and type(v) is type(current) and not json_equal(v, current):
                return v
        return _made_up(current)

    def item(self, field: str, key: str | None, items: list[Any]) -> Any:
        for e in self._entities:
            v = e.get(field)
            if key is not None:
                v = v.get(key) if isinstance(v, dict) else None
            if isinstance(v, list):
                for x in v:
                    if not any(json_equal(x, y) for y in items) and (not items or type(x) is type(items[0])):
                        return x
        if items and isinstance(items[0], dict):
            return {k: (f"probe-{v}" if isinstance(v, str) else v) for k, v in items[0].items()}
        return _NEW_KEY if not items or isinstance(items[0], str) else None


def _made_up(current: Any) -> Any:
    if isinstance(current, bool):
        return not current
    if isinstance(current, int):
        return current + 1
    if isinstance(current, float):
        return current + 0.5
    if isinstance(current, str):
        return current + " (probe)"
    return None


def field_edits(kind: Kind, state: dict[str, Any], path: tuple[Any, ...], change: Change) -> list[tuple[str, str, Edit]]:
    """``(unit, what, edit)`` for the field probes of the entity at ``path`` of ``state`` (the reference's
    final state), which ``change`` made."""
    return list(_edits(kind, state, path, change))[:LIMIT]


def _edits(kind: Kind, state: dict[str, Any], path: tuple[Any, ...], change: Change) -> Iterator[tuple[str, str, Edit]]:
    after = change.after or {}
    where, placing = _fields_at(kind, state, path)
    others = _Others(kind, state, path, change.id)
    changed = set(change.fields)
    scalars = []
    for name, step in where.items():
        if name in placing or name not in after:
            continue
        value = after[name]
        at = path + step
        if isinstance(value, dict):
            if change.change == "create":
                continue  # a created map's keys are the kind's (a form's fields): its values are the predicate's
            for key in value:
                unit = f"{name}.{key}"
                if change.change == "update" and unit not in changed:
                    other = others.scalar(name, key, value[key])
                    if other is not None:
                        yield unit, f"{unit} set to another value", _setter(at + (key,), other)
            yield f"{name}.{_NEW_KEY}", f"{name} given one more key", _setter(at + (_NEW_KEY,), "probe")
        elif isinstance(value, list):
            if change.change == "create" and not value:
                continue
            item = others.item(name, None, value)
            if item is not None:
                yield name, f"{name} given one more item", _setter(at, [*value, item])
        elif change.change == "update" and name not in changed:
            scalars.append((name, at, value))
    for name, at, value in scalars:
        other = others.scalar(name, None, value)
        if other is not None:
            yield name, f"{name} set to another value", _setter(at, other)


def _fields_at(kind: Kind, state: dict[str, Any], path: tuple[Any, ...]) -> tuple[dict[str, tuple[Any, ...]], set[str]]:
    """Where each field of the entity at ``path`` lives, below ``path`` (a row's column by its position, a
    scalar entity's value at ``path`` itself), and the fields that place it (its id's, never edited)."""
    placing = _placing(kind)
    if kind.row is not None:
        table = _get(state, path[:-2])
        placing |= set(table.get(kind.row[1]) or ())  # the primary key makes the row's id
        return {c: (i,) for i, c in enumerate(row_columns(kind, table))}, placing
    if kind.value is not None:
        return {kind.value: ()}, placing
    return {f: (f,) for f in kind.fields or ()}, placing


def _setter(path: tuple[Any, ...], value: Any) -> Edit:
    return lambda state: _set(state, path, value)


def duplicate(kind: Kind, state: dict[str, Any], path: tuple[Any, ...]) -> Edit | None:
    """An edit that adds, beside the entity at ``path``, one more like it under a new id (its fields that
    make the id changed, the rest as they are): the task done twice. None where the kind's entities are
    not objects of a list or a map (table rows, files' texts)."""
    item = _get(state, path)
    if kind.row is not None or kind.value is not None or not isinstance(item, dict):
        return None
    last = len(kind.path) - 1
    copy = dict(item)
    key = path[-1]
    for level, name in _REF.findall(kind.id):
        if level and int(level) != last:
            continue
        if name == "$key":
            key = f"{key}-probe"
        elif name in copy:
            v = copy[name]
            copy[name] = v + "-probe" if isinstance(v, str) else v + 100_000 if isinstance(v, int) else v
    where = path[:-1]
    if isinstance(path[-1], int):
        return lambda s: _set(s, where, [*_get(s, where), copy])
    return lambda s: _set(s, where, {**_get(s, where), key: copy})


__all__ = ["LIMIT", "duplicate", "field_edits"]
