"""Diff two states entity by entity and judge the changes against a task's frame."""

from __future__ import annotations

import functools
import marshal
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from tasks_catalog.frames._entities import (
    Kind,
    Only,
    extract,
    is_local,
    item_ids,
    item_key,
    item_prefix,
    own_id,
    parent_id,
    render_item,
    render_scalar,
    row_ids,
    rows_match_by_key,
    server_entities,
)
from tasks_catalog.frames._values import changed_units, holds, split_unit, unit_value
from tasks_catalog.predicates._registry import search

#: What can happen to an entity: ``copy`` is a creation that reproduces an entity of the initial state
#: (a file a new branch copies from its base), for the kinds that declare ``copy`` fields.
CHANGES = ("create", "copy", "update", "delete")
_PAST = {"create": "created", "copy": "copied", "update": "updated", "delete": "deleted"}


def exact_form(value: Any) -> bytes | None:
    """An exact form of ``value``: two values with the same form are JSON-equal (None where ``value`` is
    not data marshal writes). Marshal's version 0 writes each value's type and content and nothing else
    (no shared references, no interned strings), so ``true`` and ``1``, ``1`` and ``1.0``, or two key
    orders give different forms; it is 2-4x faster than encoding JSON text, which served before."""
    try:
        return marshal.dumps(value, 0)
    except (ValueError, TypeError, RecursionError):
        return None


def json_equal(a: Any, b: Any) -> bool:
    """Equality of JSON values as JavaScript sees it: ``1 == 1.0`` but ``true != 1``; key order ignored.

    Python's ``==`` differs only in taking ``True`` for ``1`` (and ``False`` for ``0``), so containers
    are compared with ``==`` first and then, where that holds, by their exact form (``exact_form``),
    both at C speed: an equal form is equal JSON. Only what differs in form but not in ``==`` (a
    ``true`` against a ``1``, ``1`` against ``1.0``, another key order) is walked value by value."""
    ta = type(a)
    if ta is dict or ta is list:
        if type(b) is not ta or len(a) != len(b) or a != b:  # Python's == is looser, so unequal stays unequal
            return False
        mine = exact_form(a)
        if mine is not None and mine == exact_form(b):
            return True
    return _walk_equal(a, b)  # scalars, and what differs in form (or has none: not marshallable)


def same_members(a: list[Any], b: list[Any]) -> bool:
    """Whether two lists hold the same members, each as many times, in any order (members compared by
    ``json_equal``): how a field the kind declares a set (``Kind.sets``) is compared, in ``where``, in
    ``values`` and between two versions of an entity (``_unit_equal``, ``changed_units``)."""
    if len(a) != len(b):
        return False
    left = list(b)
    for member in a:
        at = next((i for i, other in enumerate(left) if json_equal(member, other)), None)
        if at is None:
            return False
        del left[at]
    return True


def _unit_equal(c: Change, unit: str) -> Callable[[Any, Any], bool]:
    """How a value of ``c``'s ``unit`` is compared with what an allowance names (its ``where``, a ``values``
    constraint): JSON-equal, and for a field the kind declares a set, two lists with the same members in any
    order (``same_members``)."""
    return _members_equal if unit in _sets(c.entity) else json_equal


def _members_equal(a: Any, b: Any) -> bool:
    return same_members(a, b) if type(a) is list and type(b) is list else json_equal(a, b)


@functools.cache
def _sets(entity: str) -> frozenset[str]:
    """The set fields (``Kind.sets``) of the kind ``entity`` names (``server.kind``)."""
    server, _, name = entity.partition(".")
    kind = server_entities(server).kind(name)
    return frozenset(kind.sets) if kind is not None else frozenset()


def _equal_given_form(a: Any, form: Callable[[], bytes | None], b: Any) -> bool:
    """``json_equal(a, b)``, where ``form()`` gives ``exact_form(a)`` (made once by the caller, only asked
    for when ``a == b`` in Python's looser sense): the initial state's collections are compared with
    every final state of a task, and only the final side is encoded each time. The same container is
    equal to itself (a server no call reached hands the gate its initial dump: ``replay``'s ``untouched``),
    as its form would say, without encoding it."""
    ta = type(a)
    if ta is not dict and ta is not list:
        return json_equal(a, b)
    if a is b:
        return True
    if type(b) is not ta or len(a) != len(b) or a != b:
        return False
    mine = form()
    if mine is not None and exact_form(b) == mine:
        return True
    return _walk_equal(a, b)


def _walk_equal(a: Any, b: Any) -> bool:
    ta = type(a)
    if ta is str:
        return type(b) is str and a == b
    if ta is dict:
        if type(b) is not dict or len(a) != len(b) or a != b:
            return False
        return all(_walk_equal(v, b[k]) for k, v in a.items())
    if ta is list:
        if type(b) is not list or len(a) != len(b) or a != b:
            return False
        return all(_walk_equal(x, y) for x, y in zip(a, b))
    tb = type(b)
    if ta is bool or tb is bool:
        return a is b
    if ta in (int, float):
        return tb in (int, float) and a == b
    return a is None and b is None


class ExactSame:
    """Whether two parts of dumped states are the same JSON, key order and kinds included. ``==`` alone
    is not that (``True == 1``, ``0.0 == -0.0``), so an equal pair is confirmed by its exact form
    (:func:`exact_form`); a pair that is not confirmed counts as different. The first argument's forms
    are kept (with the values, so their ids stay theirs): one instance compares one base state with
    several others, encoding each part of the base once."""

    def __init__(self) -> None:
        self._forms: dict[int, tuple[Any, bytes | None]] = {}

    def __call__(self, a: Any, b: Any) -> bool:
        if a is b:
            return True
        if type(a) is not type(b) or a != b:
            return False
        if type(a) in (str, int, bool, type(None)):  # equal and of one type: the same JSON
            return True
        mine = self._form(a)
        return mine is not None and mine == exact_form(b)

    def _form(self, value: Any) -> bytes | None:
        kept = self._forms.get(id(value))
        if kept is None or kept[0] is not value:
            kept = self._forms[id(value)] = (value, exact_form(value))
        return kept[1]


def share_unchanged(base: Any, new: Any, same: ExactSame | None = None) -> Any:
    """``new`` (a freshly dumped state, changed in place), with each of its parts that is the same JSON as
    ``base``'s part at the same place (``same``) replaced by ``base``'s part: ``base`` itself when the
    whole is the same. What is the same at a place: a dict's value under a key both have; a list's item
    at an index, when both lists have one length, or else in the runs the two lists share at their
    heads and their tails (an item added or removed in between).

    The gate compares every final state of a task with its initial state several times: its frame
    judge, its "changes nothing" check, the TypeScript verifier's payload (sent as changes to the
    initial state). A world's dump is made afresh after each replay, so each of those encoded every
    unchanged record again; after this, an unchanged part is the very object the initial state holds,
    and each comparison takes it as equal by identity. Nothing may change either state afterwards (the
    gate's states are read, never written, once dumped)."""
    same = same or ExactSame()
    try:
        return _share(base, new, same)
    except RecursionError:  # nested deeper than Python compares: what was shared so far stands, all of it exact
        return new


def _share(base: Any, new: Any, same: ExactSame) -> Any:
    if same(base, new):
        return base
    if type(base) is dict and type(new) is dict:
        for key, value in new.items():
            if key in base:
                new[key] = _share(base[key], value, same)
    elif type(base) is list and type(new) is list:
        if len(base) == len(new):
            for i, value in enumerate(new):
                new[i] = _share(base[i], value, same)
        else:
            head = 0
            while head < min(len(base), len(new)) and same(base[head], new[head]):
                new[head] = base[head]
                head += 1
            tail = 1
            while tail <= min(len(base), len(new)) - head and same(base[-tail], new[-tail]):
                new[-tail] = base[-tail]
                tail += 1
    return new


@dataclass(frozen=True)
class Change:
    """One entity that differs between the initial and the final state."""

    entity: str  # "<server>.<kind>"
    id: str
    change: str  # create | copy | update | delete
    fields: tuple[str, ...]  # for an update, the units that differ (sorted: fields, or keys as "field.key"); else ()
    before: Mapping[str, Any] | None
    after: Mapping[str, Any] | None
    #: the entity it lives in, ("<server>.<kind>", id), for kinds that declare a parent
    parent: tuple[str, str] | None = None

    def describe(self) -> str:
        text = f"{self.entity} {self.id} {_PAST[self.change]}"
        return f"{text} ({', '.join(self.fields)})" if self.fields else text


@dataclass(frozen=True)
class Violation:
    """A change no allowance of the frame allows, and why."""

    change: Change
    reason: str

    def describe(self) -> str:
        return f"{self.change.describe()}: {self.reason}"

    def to_json(self) -> dict[str, Any]:
        c = self.change
        return {"entity": c.entity, "id": c.id, "change": c.change, "fields": list(c.fields), "reason": self.reason}


class Extracted:
    """A dumped state whose entities are extracted once per kind, and whose top-level collections are
    encoded once, however many states it is compared with: the gate judges every final state of a task
    (the reference's, each wrong solution's) against one initial state, and a world's is thousands of
    entities."""

    __slots__ = ("_forms", "_item_forms", "_item_ids", "_kinds", "_row_ids", "server", "state")

    def __init__(self, server: str, state: Mapping[str, Any]) -> None:
        self.server, self.state = server, dict(state)
        self._kinds: dict[str, dict[str, dict[str, Any]]] = {}
        self._forms: dict[str, bytes | None] = {}
        self._item_forms: dict[str, dict[int, bytes | None]] = {}
        self._row_ids: dict[tuple[str, int], list[Any] | None] = {}
        self._item_ids: dict[str, tuple[list[list[str]], set[str]] | None] = {}

    def item_ids(self, kind: Kind) -> tuple[list[list[str]], set[str]] | None:
        """``item_ids`` of an ``own_id`` kind, per item, and all of them as a set, made once; None when two
        entities of the kind have one id (they are numbered in order of appearance over the whole state)."""
        if kind.name not in self._item_ids:
            per_item = item_ids(kind, self.state)
            every = {ident for ids in per_item for ident in ids}
            self._item_ids[kind.name] = (per_item, every) if len(every) == sum(map(len, per_item)) else None
        return self._item_ids[kind.name]

    def row_ids(self, kind: Kind, position: int, make: Callable[[], list[Any] | None]) -> list[Any] | None:
        """``row_ids`` of the table at ``position`` of ``kind``'s collection, made once by ``make``."""
        if (kind.name, position) not in self._row_ids:
            self._row_ids[kind.name, position] = make()
        return self._row_ids[kind.name, position]

    def of(self, kind: Kind) -> dict[str, dict[str, Any]]:
        got = self._kinds.get(kind.name)
        if got is None:
            got = self._kinds[kind.name] = extract(kind, self.state)
        return got

    def same_at(self, top: str, other: Mapping[str, Any]) -> bool:
        """Whether ``other[top]`` is JSON-equal to this state's (both missing counts as equal)."""
        return _equal_given_form(self.state.get(top), lambda: self._form_of(top), other.get(top))

    def same_as(self, other: Mapping[str, Any]) -> bool:
        """Whether ``other`` is JSON-equal to this whole state."""
        return self.state.keys() == other.keys() and all(self.same_at(top, other) for top in self.state)

    def items_same_as(self, top: str, items: list[tuple[Any, Any]]) -> set[int]:
        """The positions at which ``items`` (``(key, item)`` pairs of another state's ``top``, a list's
        keys being positions) hold the same key and a JSON-equal item as this state's ``top``."""
        old: Any = self.state.get(top)
        olds = list(old.items()) if isinstance(old, dict) else list(enumerate(old))
        forms = self._item_forms.setdefault(top, {})

        def form(i: int) -> bytes | None:
            if i not in forms:
                forms[i] = exact_form(olds[i][1])
            return forms[i]

        return {i for i, ((k, a), (k2, b)) in enumerate(zip(olds, items))
                if k == k2 and _equal_given_form(a, lambda: form(i), b)}  # noqa: B023 - called, if at all, inside this comprehension

    def _form_of(self, top: str) -> bytes | None:
        if top not in self._forms:
            self._forms[top] = exact_form(self.state.get(top))
        return self._forms[top]


def _changed_parents(kind: Kind, before: Extracted, after: Mapping[str, Any],
                     same_items: dict[str, set[int]]) -> tuple[Only, Only] | None:
    """The positions of the top-level items whose entities may differ (before's, after's): those without
    a JSON-equal item at the same position (and key) in the other state (``same_items``: what is known
    of each collection already). None where skipping the others could change an id (see ``item_key``):
    the key field is missing or repeated in a state (two entities of one id are numbered in order of
    appearance), or, for entities under an item, holds a ``/``."""
    prefix = item_prefix(kind)
    field = item_key(kind) if prefix is None else None
    own = field is None and prefix is None and own_id(kind)
    if field is None and prefix is None and not own:
        return None
    old: Any = before.state.get(kind.path[0])
    new: Any = after.get(kind.path[0])
    if type(old) is not type(new) or not isinstance(old, (list, dict)):
        return None
    if field == "$key" and not isinstance(old, dict):
        return None
    olds = list(old.items()) if isinstance(old, dict) else list(enumerate(old))
    news = list(new.items()) if isinstance(new, dict) else list(enumerate(new))
    if not _items_apart(kind, prefix, field, olds, news):
        return None
    same = same_items.get(kind.path[0])
    if same is None:  # once per collection, however many kinds live in it
        same = same_items[kind.path[0]] = before.items_same_as(kind.path[0], news)
    old_changed = frozenset(i for i in range(len(olds)) if i not in same)
    new_changed = frozenset(i for i in range(len(news)) if i not in same)
    if own and not _own_ids_apart(kind, before, after, old_changed, new_changed):
        return None
    if field is not None and rows_match_by_key(kind):  # (a kind with an item_prefix has no item_key)
        return _changed_rows(kind, field, before, olds, news, old_changed, new_changed)
    return old_changed, new_changed


def _items_apart(kind: Kind, prefix: tuple[str, str] | None, field: str | None, olds: list[tuple[Any, Any]],
                 news: list[tuple[Any, Any]]) -> bool:
    """Whether the top-level items of both states tell their entities apart (``_changed_parents``): the
    rendered ``prefix`` (or ``field``) distinct in each state and free of what follows it in an id. An
    object's keys are distinct already; an ``own_id`` kind's ids are checked by ``_own_ids_apart``."""
    if prefix is not None:
        template, separator = prefix
        for items in (olds, news):
            if not all(isinstance(item, dict) for _, item in items):
                return False
            keys = [render_item(template, item) for _, item in items]
            if len(set(keys)) != len(keys) or any(separator in k for k in keys):
                return False
    elif field is not None and field != "$key":
        for items in (olds, news):
            if field == "$value":
                ids: list[str | None] = [render_scalar(item) for _, item in items]
            else:
                ids = [render_scalar(item.get(field)) if isinstance(item, dict) else None for _, item in items]
            if None in ids or len(set(ids)) != len(ids):
                return False
            if len(kind.path) > 1 and any("/" in k for k in ids if k is not None):  # (none is, by now)
                return False
    return True


def _own_ids_apart(kind: Kind, before: Extracted, after: Mapping[str, Any], old_changed: frozenset[int],
                   new_changed: frozenset[int]) -> bool:
    """For an ``own_id`` kind, whether no id is numbered ``#n`` in either state, so the entities under the
    changed items alone diff as the whole states do: every id distinct in the initial state, and those under
    the changed items of ``after`` distinct and found in no unchanged item (whose entities, being the
    initial state's, are distinct already). An unchanged item's entities are the same in both states."""
    known = before.item_ids(kind)
    if known is None:
        return False
    per_item, every = known
    gone = {ident for i in old_changed for ident in per_item[i]}
    seen: set[str] = set()
    for ids in item_ids(kind, cast("dict[str, Any]", after), new_changed):
        for ident in ids:
            if ident in seen or (ident in every and ident not in gone):
                return False
            seen.add(ident)
    return True


def _changed_rows(kind: Kind, field: str, before: Extracted, olds: list[tuple[Any, Any]],
                  news: list[tuple[Any, Any]], old_changed: frozenset[int],
                  new_changed: frozenset[int]) -> tuple[Only, Only]:
    """``_changed_parents`` of table rows, one level further: of a table that differs in its rows alone
    (the same name, columns and primary key in both states, wherever it is), only the rows that are
    not JSON-equal to the row of the same key in the other state, when the table's primary key tells
    its rows apart in both (a row's id is its key's values; without a key, or with a key repeated, ids
    are numbered in order of appearance and every row is extracted). An update of one order of 2,200
    extracts one row on each side, and so does a delete that moves the rows after it. Only for a kind
    whose rows ``rows_match_by_key``; ``field`` is its ``item_key``."""
    rows_field = kind.path[1]
    old_only: dict[int, frozenset[int] | None] = dict.fromkeys(old_changed)
    new_only: dict[int, frozenset[int] | None] = dict.fromkeys(new_changed)
    # the same table in both states: the one whose id field (distinct in each state) holds the same value,
    # wherever it is (a table created or dropped moves the others)
    moved = {render_scalar(news[j][1].get(field)): j for j in new_changed}
    for i in old_changed:
        old = olds[i][1]
        j = moved.get(render_scalar(old.get(field)))
        if j is None:
            continue
        new = news[j][1]
        if type(old) is not dict or type(new) is not dict or old.keys() != new.keys():
            continue
        if not all(k == rows_field or json_equal(v, new[k]) for k, v in old.items()):
            continue
        old_rows, new_rows = old.get(rows_field), new.get(rows_field)
        if type(old_rows) is not list or type(new_rows) is not list:
            continue
        old_ids = before.row_ids(kind, i, lambda: row_ids(kind, old, old_rows))  # noqa: B023 - row_ids calls it, if at all, before the loop moves on
        new_ids = row_ids(kind, new, new_rows) if old_ids is not None else None
        if old_ids is None or new_ids is None:
            continue
        # a row whose key is in both states with JSON-equal values is the same entity, unchanged
        where = {key: r for r, key in enumerate(new_ids)}
        same_old, same_new = set(), set()
        for r, key in enumerate(old_ids):
            q = where.get(key)
            if q is not None and json_equal(old_rows[r], new_rows[q]):
                same_old.add(r)
                same_new.add(q)
        old_only[i] = frozenset(r for r in range(len(old_rows)) if r not in same_old)
        new_only[j] = frozenset(r for r in range(len(new_rows)) if r not in same_new)
    return old_only, new_only


def diff(server: str, initial: Mapping[str, Any] | Extracted, final: Mapping[str, Any]) -> list[Change]:
    """Every entity of ``server`` created, deleted or changed between two dumped states, by kind
    (declaration order) then id. ``initial`` may be an ``Extracted`` state, to reuse its extraction.

    A kind whose entities all live under one top-level field that is equal in both states (as JSON
    compares, ``json_equal``) has no changes and is not extracted: a run touches a few collections of
    a world, not all of them."""
    before = initial if isinstance(initial, Extracted) else Extracted(server, initial)
    after = Extracted(server, final)
    unchanged: dict[str, bool] = {}
    same_items: dict[str, set[int]] = {}
    out: list[Change] = []
    for kind in server_entities(server).kinds:
        if kind.path and is_local(kind):  # (a kind with no path is the state itself)
            top = kind.path[0]
            if top not in unchanged:
                unchanged[top] = before.same_at(top, after.state)
            if unchanged[top]:
                continue
        changed = _changed_parents(kind, before, after.state, same_items)
        if changed is None:
            old_items, new_items = before.of(kind), after.of(kind)
        else:
            old_items, new_items = extract(kind, before.state, changed[0]), extract(kind, after.state, changed[1])
        changes: list[Change] = []
        for ident, old in old_items.items():
            new = new_items.get(ident)
            if new is None:
                changes.append(Change(kind.qualified, ident, "delete", (), old, None, _parent(kind, old)))
            elif not json_equal(old, new):
                units = changed_units(old, new, json_equal, kind.sets, _members_equal)
                if units:  # none: only the order of a set field's members changed, which is no change
                    changes.append(Change(kind.qualified, ident, "update", units, old, new, _parent(kind, old)))
        created = [(i, new) for i, new in new_items.items() if i not in old_items]
        copies = _copies(kind, before, [new for _, new in created]) if kind.copy and created else set()
        changes += [Change(kind.qualified, i, "copy" if n in copies else "create", (), None, new, _parent(kind, new))
                    for n, (i, new) in enumerate(created)]
        out += sorted(changes, key=lambda c: c.id)
    return out


def _parent(kind: Kind, fields: Mapping[str, Any]) -> tuple[str, str] | None:
    """``Change.parent`` of an entity of ``kind`` with these ``fields`` (its initial ones, unless it was
    created): the kind and id of the entity it lives in, or None for a kind that declares no parent."""
    ident = parent_id(kind, fields)
    return None if kind.parent is None or ident is None else (f"{kind.server}.{kind.parent[0]}", ident)


def with_entity(kind: Kind, changes: list[Change], change: Change, fields: dict[str, Any] | None,
                before: Extracted) -> list[Change]:
    """``changes`` (a run's diff) with ``change`` (one of them) made again from the entity's ``fields`` in
    another final state (None: gone there): the diff of a state that differs from the run's final state
    in that one entity alone, without diffing it whole. ``before``: the run's initial state."""
    old = change.before if change.change in ("update", "delete") else None

    def made(what: str, units: tuple[str, ...], after: Any) -> Change:
        return Change(change.entity, change.id, what, units, old, after, _parent(kind, after if old is None else old))

    if fields is None:
        new = None if old is None else made("delete", (), None)
    elif old is None:
        new = made("copy" if kind.copy and _copies(kind, before, [fields]) else "create", (), fields)
    else:  # no update where only the order of a set field's members changed, as in ``diff``
        units = () if json_equal(old, fields) else changed_units(old, fields, json_equal, kind.sets, _members_equal)
        new = made("update", units, fields) if units else None
    out: list[Change] = []
    for c in changes:
        if c is not change:
            out.append(c)
        elif new is not None:
            out.append(new)
    return out


def _copies(kind: Kind, before: Extracted, created: list[dict[str, Any]]) -> set[int]:
    """The positions of the ``created`` entities of ``kind`` that are copies: equal, as JSON, in every field
    but ``kind.copy`` to some entity of the initial state (candidates are found by their text fields)."""
    def rest(fields: Mapping[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in fields.items() if k not in kind.copy}

    def coarse(fields: Mapping[str, Any]) -> tuple:
        return tuple(sorted((k, v) for k, v in fields.items() if type(v) is str))

    index: dict[tuple, list[dict[str, Any]]] = {}
    for old in before.of(kind).values():
        mine = rest(old)
        index.setdefault(coarse(mine), []).append(mine)
    out = set()
    for n, new in enumerate(created):
        mine = rest(new)
        if any(json_equal(mine, old) for old in index.get(coarse(mine), ())):
            out.add(n)
    return out


def _allowance(a: Any) -> dict[str, Any]:
    if isinstance(a, Mapping):
        return dict(a)
    return a.model_dump(mode="json", exclude_none=True)


def _about(a: dict[str, Any], c: Change) -> bool:
    """Whether the allowance is about this kind of entity and change (its ``entity`` and ``change``)."""
    return a["entity"] == c.entity and c.change in a.get("change", ["update"])


def _selects(a: dict[str, Any], c: Change, created: set[tuple[str, str]]) -> bool:
    """Whether the allowance is about this change: its entity kind, change, ids, ``where`` and ``parent``
    (the first miss decides: the words of the others are made only to explain a violation)."""
    return _about(a, c) and next(_misses(a, c, created), None) is None


#: How many equally near allowances a reason names (``_nearest``).
NEAREST_SHOWN = 3


def _misses(a: dict[str, Any], c: Change, created: set[tuple[str, str]]) -> Iterator[str]:
    """Why an allowance about this kind of entity and change does not select this one, in words, one at a
    time: its ``ids``, each unit of its ``where`` (in code-point order) and its ``parent``; none when it
    selects it."""
    if a.get("ids") is not None and c.id not in a["ids"]:
        yield "whose ids do not include it"
    if a.get("where") is not None:
        values = c.before if c.change == "delete" else c.after
        assert values is not None  # a deleted entity has its before, any other its after
        for unit in sorted(a["where"]):
            present, value = unit_value(values, unit)
            if not present:
                yield f"whose where.{unit} it lacks"
            elif not _unit_equal(c, unit)(value, a["where"][unit]):
                yield f"whose where.{unit} it does not match"
    if a.get("parent") is not None and (c.parent is None or (c.parent in created) != (a["parent"] == "created")):
        yield f"which selects entities in {'a created' if a['parent'] == 'created' else 'an existing'} parent"


def _matched(a: dict[str, Any], c: Change) -> Iterator[str]:
    """What of ``c`` an allowance names and ``c`` has: ``ids`` when they hold its id, and each unit of its
    ``where`` that ``c`` matches."""
    if a.get("ids") is not None and c.id in a["ids"]:
        yield "ids"
    if a.get("where") is not None:
        values = c.before if c.change == "delete" else c.after
        assert values is not None
        for unit in sorted(a["where"]):
            present, value = unit_value(values, unit)
            if present and _unit_equal(c, unit)(value, a["where"][unit]):
                yield f"where.{unit}"


def _nearest(allowances: list[dict[str, Any]], c: Change, created: set[tuple[str, str]]) -> str:
    """Why no allowance selects ``c``: ``outside the frame``, and when allowances are about its kind of
    entity and change, the nearest of them (the fewest misses; the first NEAREST_SHOWN when several are as
    near) and what each misses first. The reader sees which field kept an entity out (a created message
    without the ``cc`` the frame selects), and, when two allowances are as near, both.

    Of allowances as near, the one that matches ``c`` where fewer of them do comes first: a reply to Maria
    without the copy her allowance asks for is named with the allowance for Maria's reply, the only one of
    them whose ``where.to`` it matches, before the allowances for other customers' replies, many of which
    its empty ``cc`` matches. Otherwise they keep the frame's order."""
    near: list[tuple[int, list[str]]] = []
    for i, a in enumerate(allowances):
        if not _about(a, c):
            continue
        misses = list(_misses(a, c, created))
        if misses and (not near or len(misses) < len(near[0][1])):
            near = [(i, misses)]
        elif misses and len(misses) == len(near[0][1]):
            near.append((i, misses))
    if not near:
        return "outside the frame"
    if len(near) > 1:
        matched = {i: set(_matched(allowances[i], c)) for i, _ in near}
        shared = Counter(unit for units in matched.values() for unit in units)
        last = len(near) + 1  # matching nothing: after every one that matches something (not len() in the key:
        # the list is empty while it sorts)
        near.sort(key=lambda item: (min((shared[u] for u in matched[item[0]]), default=last), item[0]))
    words = []
    for i, misses in near[:NEAREST_SHOWN]:
        more = f", and {len(misses) - 1} more condition{'s' if len(misses) > 2 else ''}" if len(misses) > 1 else ""
        words.append(f"frame[{i}], {misses[0]}{more}")
    rest = f"; {len(near) - NEAREST_SHOWN} more as near" if len(near) > NEAREST_SHOWN else ""
    return f"outside the frame (nearest: {'; '.join(words)}{rest})"


def _refusal(a: dict[str, Any], c: Change) -> str | None:
    """Why an allowance that selects a change still does not allow it (``fields``, ``values``), or None."""
    if a.get("fields") is not None and c.change == "update":
        allowed = a["fields"]
        for unit in c.fields:
            if unit not in allowed and not (split_unit(unit, c.before)[1] is not None
                                            and split_unit(unit, c.before)[0] in allowed):
                return f"does not allow {unit} to change"
    for unit, constraint in sorted((a.get("values") or {}).items()):
        if c.change == "delete":
            break
        after = unit_value(c.after, unit)
        before = unit_value(c.before, unit) if c.change == "update" else (False, None)
        equal = _unit_equal(c, unit)
        if c.change == "update" and before[0] == after[0] and (not after[0] or equal(before[1], after[1])):
            continue  # left as it was (a set field: the same members): nothing to judge
        if not holds(constraint, before, after, equal, search):
            return f"does not allow this value of {unit}"
    return None


def _created(changes: list[Change]) -> set[tuple[str, str]]:
    return {(c.entity, c.id) for c in changes if c.change in ("create", "copy")}


def allowed_by(allowance: Any, change: Change, changes: list[Change]) -> bool:
    """Whether ``allowance`` selects ``change`` and allows it (its ``max`` aside); ``changes``: every change
    of the run, which tells whether the entity ``change`` lives in was created by it."""
    a = _allowance(allowance)
    return _selects(a, change, _created(changes)) and _refusal(a, change) is None


def _hits(allowances: list[dict[str, Any]], changes: list[Change]) -> tuple[list[list[int]], list[str | None]]:
    """Per change, the allowances that allow it (their ``max`` aside) and why the first one that selects it
    without allowing it refuses it, or, when none selects it, which came nearest (``_nearest``)."""
    created = _created(changes)
    hits, refused = [], []
    for c in changes:
        mine, why, chosen = [], None, False
        for i, a in enumerate(allowances):
            if not _selects(a, c, created):
                continue
            chosen = True
            problem = _refusal(a, c)
            if problem is None:
                mine.append(i)
            elif why is None:
                why = f"frame[{i}] {problem}"
        hits.append(mine)
        refused.append(why if chosen else _nearest(allowances, c, created))
    return hits, refused


def allowance_counts(frame: Iterable[Any], changes: list[Change]) -> list[int]:
    """How many of ``changes`` each allowance of ``frame`` allows (what its ``max`` is compared with)."""
    allowances = [_allowance(a) for a in frame]
    hits, _ = _hits(allowances, changes)
    return [sum(i in h for h in hits) for i in range(len(allowances))]


def judge(frame: Iterable[Any], changes: list[Change]) -> list[Violation]:
    """The changes the frame does not allow. A change is allowed by an allowance that selects it (entity,
    change, ids, ``where``, ``parent``) and whose ``fields`` and ``values`` it keeps, unless more changes
    are allowed by that allowance than its ``max``; then that allowance allows none of them."""
    allowances = [_allowance(a) for a in frame]
    hits, refused = _hits(allowances, changes)
    counts = [sum(i in h for h in hits) for i in range(len(allowances))]
    over = [a.get("max") is not None and n > a["max"] for a, n in zip(allowances, counts)]
    violations = []
    for c, mine, why in zip(changes, hits, refused):
        if any(not over[i] for i in mine):
            continue
        if mine:
            i = mine[0]
            reason = f"frame[{i}] allows at most {allowances[i]['max']}, {counts[i]} matched"
        else:
            reason = why or "outside the frame"
        violations.append(Violation(c, reason))
    return violations


def frame_violations(server: str | Sequence[str], frame: Iterable[Any], initial: Mapping[str, Any] | Extracted,
                     final: Mapping[str, Any]) -> list[Violation]:
    """Judge the run that took ``initial`` to ``final`` (dumped states of ``server``, the initial one
    possibly ``Extracted``) against ``frame``. For a cross-server task ``server`` is its servers and
    ``initial`` and ``final`` are keyed by them: every server's changes, in the order of ``server``, are
    judged together (an allowance's ``max`` counts its matches on every server)."""
    return judge(frame, scoped_diff(server, initial, final))


def scoped_diff(server: str | Sequence[str], initial: Mapping[str, Any] | Extracted,
                final: Mapping[str, Any]) -> list[Change]:
    """``diff`` of a task's scope: of its one ``server``, or, for a cross-server task (``server`` its servers,
    ``initial`` and ``final`` keyed by them), every server's changes in the order of ``server``."""
    if isinstance(server, str):
        return diff(server, initial, final)
    by_server = cast("Mapping[str, Any]", initial)  # keyed by server, as the docstring says
    return [c for s in server for c in diff(s, by_server[s], final[s])]


def summarize(violations: list[Violation], limit: int = 5) -> str:
    """A short text naming the violating entities (kind, id, what changed), at most ``limit`` of them."""
    lines = [v.describe() for v in violations[:limit]]
    if len(violations) > limit:
        lines.append(f"... and {len(violations) - limit} more")
    return "; ".join(lines)


def summarize_counts(violations: list[Violation]) -> str:
    """The violations by kind and change, without ids (for private months)."""
    counts: dict[tuple[str, str], int] = {}
    for v in violations:
        key = (v.change.entity, _PAST[v.change.change])
        counts[key] = counts.get(key, 0) + 1
    return "; ".join(f"{entity}: {n} {change}" for (entity, change), n in counts.items())


__all__ = ["CHANGES", "Change", "Extracted", "Violation", "allowance_counts", "allowed_by", "diff", "frame_violations",
           "json_equal", "judge", "summarize", "summarize_counts", "with_entity"]
