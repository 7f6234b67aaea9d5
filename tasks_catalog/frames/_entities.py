"""The per-server entity declaration (``entities.json``) and the extraction of entities from a state.

A state is plain JSON (a server state's dump). Each kind of a server names where its entities live
(``path``: keys walked from the state's root, every step a list or an object whose items are walked
in turn), how its stable id is built (``id``: a template over the walked items), and which fields
are judged (``fields``). docs/frames.md describes the grammar; the TypeScript verifier reads the
same file.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

DECLARATION_PATH = Path(__file__).with_name("entities.json")
_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")


class DeclarationError(ValueError):
    """``entities.json`` does not follow its grammar; the message names the server and kind."""


@dataclass(frozen=True)
class Kind:
    """One entity kind of a server, as declared."""

    server: str
    name: str
    path: tuple[str, ...]
    id: str
    fields: tuple[str, ...] | None  # None: the fields are the row's columns (postgres rows)
    value: str | None = None  # the items are scalars: their value is this field
    extra: tuple[tuple[str, str], ...] = ()
    row: tuple[str, str] | None = None  # (columns key, primary key key) of the parent, for table rows
    #: the kind of the entity this one lives in (a file's branch, a block's page) and the template of its
    #: id over this entity's own fields; None at the top of the state
    parent: tuple[str, str] | None = None
    #: the fields that only place a copy (a file's branch): a created entity equal to an entity of the
    #: initial state in every other field is a copy of it (creating a branch copies its base's files)
    copy: tuple[str, ...] = ()
    #: the fields whose list holds members in no meaningful order (a message's recipients, an event's
    #: attendees, an issue's labels): compared by their members in any order (``frames.same_members``) in
    #: ``where`` and ``values``, and a change of their order alone is no change
    sets: tuple[str, ...] = ()

    @property
    def qualified(self) -> str:
        return f"{self.server}.{self.name}"


@dataclass(frozen=True)
class ServerEntities:
    server: str
    kinds: tuple[Kind, ...]
    benign: tuple[str, ...]

    def kind(self, name: str) -> Kind | None:
        return next((k for k in self.kinds if k.name == name), None)


@cache
def declaration() -> dict[str, ServerEntities]:
    """Every server's entity kinds, parsed from ``entities.json``."""
    raw = json.loads(DECLARATION_PATH.read_text(encoding="utf-8"))
    out: dict[str, ServerEntities] = {}
    for server, body in raw["servers"].items():
        kinds = []
        for name, k in body["kinds"].items():
            where = f"entities.json: {server}.{name}"
            if not isinstance(k.get("path"), list) or not isinstance(k.get("id"), str):
                raise DeclarationError(f"{where}: needs a path (list of keys) and an id (template)")
            unknown = set(k) - {"path", "id", "fields", "value", "extra", "row", "parent", "copy", "sets"}
            if unknown:
                raise DeclarationError(f"{where}: unknown keys {sorted(unknown)}")
            row, parent = k.get("row"), k.get("parent")
            kinds.append(Kind(server, name, tuple(k["path"]), k["id"],
                              None if k.get("fields") is None else tuple(k["fields"]), k.get("value"),
                              tuple((k.get("extra") or {}).items()),
                              (row["columns"], row["primary_key"]) if row else None,
                              (parent["kind"], parent["id"]) if parent else None, tuple(k.get("copy", ())),
                              tuple(k.get("sets", ()))))
            if kinds[-1].fields is None and row is None:
                raise DeclarationError(f"{where}: fields may be null only for table rows")
            if any(f not in (kinds[-1].fields or ()) for f in kinds[-1].copy):
                raise DeclarationError(f"{where}: copy names a field the kind does not have")
            if any(f not in (kinds[-1].fields or ()) for f in kinds[-1].sets):
                raise DeclarationError(f"{where}: sets names a field the kind does not have")
        names = {k.name: k for k in kinds}
        for k in kinds:
            if k.parent is not None:
                parent = names.get(k.parent[0])
                if parent is None or parent.path != k.path[:-1]:
                    raise DeclarationError(f"entities.json: {server}.{k.name}: its parent must be the kind one step up "
                                           f"its path, not {k.parent[0]!r}")
                fields = set(k.fields or ()) | {n for n, _ in k.extra}
                if any(ref not in fields for ref in _FIELD_REF.findall(k.parent[1])):
                    raise DeclarationError(f"entities.json: {server}.{k.name}: its parent's id names a field it does not have")
        out[server] = ServerEntities(server, tuple(kinds), tuple(body.get("benign", [])))
    return out


_FIELD_REF = re.compile(r"\{([^{}]+)\}")


def parent_id(kind: Kind, fields: Mapping[str, Any]) -> str | None:
    """The id of the entity ``kind``'s entity with these ``fields`` lives in (``kind.parent``'s template,
    each ``{field}`` rendered as id text), or None for a kind at the top of the state."""
    if kind.parent is None:
        return None
    return _FIELD_REF.sub(lambda m: render_scalar(fields.get(m.group(1))), kind.parent[1])


def server_entities(server: str) -> ServerEntities:
    try:
        return declaration()[server]
    except KeyError:
        raise DeclarationError(f"entities.json declares no server {server!r}") from None


def render_scalar(value: Any) -> str:
    """A JSON scalar as id text, identically in both verifiers: numbers as JavaScript's
    ``Number.prototype.toString`` prints them (``30.0`` is ``30``, ``1e-05`` is ``0.00001``)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _js_number(value)
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _js_number(x: float) -> str:
    if x == 0:
        return "0"
    if not math.isfinite(x):
        return "NaN" if x != x else ("Infinity" if x > 0 else "-Infinity")
    sign = "-" if x < 0 else ""
    digits_tuple = Decimal(repr(abs(x))).normalize().as_tuple()
    digits = "".join(map(str, digits_tuple.digits))
    k = len(digits)
    assert isinstance(digits_tuple.exponent, int)  # x is finite
    n = k + digits_tuple.exponent  # value = 0.<digits> x 10^n
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * -n + digits
    exponent = n - 1
    mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{sign}{mantissa}e{'+' if exponent > 0 else '-'}{abs(exponent)}"


class _Scope:
    """The items walked to reach one entity: ``items[level]``, its object key and its 1-based position."""

    __slots__ = ("items", "keys", "positions")

    def __init__(self, items: list[Any], keys: list[str | None], positions: list[int]) -> None:
        self.items, self.keys, self.positions = items, keys, positions

    def lookup(self, ref: tuple[int | None, str], row_key: str | None) -> Any:
        level, name = ref
        depth = len(self.items) - 1 if level is None else level + 1  # items[0] is the state itself
        if name == "$key":
            return row_key if row_key is not None else self.keys[depth]
        if name == "$value":
            return self.items[depth]
        if name == "$n":
            return self.positions[depth]
        item = self.items[depth]
        return item.get(name) if isinstance(item, dict) else None


@cache
def _compile(template: str) -> tuple[tuple[int | None, str] | None, tuple[str | tuple[int | None, str], ...]]:
    """A template as (the lone placeholder's reference, or None; its parts: literal text or references)."""
    def ref(text: str) -> tuple[int | None, str]:
        level, _, name = text.rpartition(".")
        return (int(level) if level else None, name)

    whole = _PLACEHOLDER.fullmatch(template)
    parts: list[str | tuple[int | None, str]] = []
    last = 0
    for m in _PLACEHOLDER.finditer(template):
        if m.start() > last:
            parts.append(template[last:m.start()])
        parts.append(ref(m.group(1)))
        last = m.end()
    if last < len(template):
        parts.append(template[last:])
    return (ref(whole.group(1)) if whole else None), tuple(parts)


def _fill(template: str, scope: _Scope, row_key: str | None) -> Any:
    lone, parts = _compile(template)
    if lone is not None:  # a lone placeholder keeps the value's type ("{1.number}" stays a number)
        return scope.lookup(lone, row_key)
    return "".join(p if isinstance(p, str) else render_scalar(scope.lookup(p, row_key)) for p in parts)


#: Which items to walk: None for all; positions at this level (their items walked whole); or positions
#: at this level, each with which of its items to walk one level down.
Only = frozenset[int] | Mapping[int, "Only"] | None


def _walk(node: Any, path: tuple[str, ...], items: list[Any], keys: list, positions: list, only: Only = None):
    if not path:
        yield _Scope(items, keys, positions)
        return
    coll = node.get(path[0]) if isinstance(node, dict) else None
    if isinstance(coll, list):
        for i, item in enumerate(coll):
            if only is None or i in only:
                yield from _walk(item, path[1:], [*items, item], [*keys, None], [*positions, i + 1],
                                 only[i] if isinstance(only, Mapping) else None)
    elif isinstance(coll, dict):
        for i, (key, item) in enumerate(coll.items()):
            if only is None or i in only:
                yield from _walk(item, path[1:], [*items, item], [*keys, key], [*positions, i + 1],
                                 only[i] if isinstance(only, Mapping) else None)


def _fold(name: str) -> str:
    """Identifier folding of the SQL engine: ASCII letters lower-cased, nothing else."""
    return name.translate(_ASCII_LOWER)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _row_layout(kind: Kind, table: dict[str, Any]) -> tuple[list[Any], list[Any] | None]:
    """A table's column names, and the column each of its primary key's names refers to (the engine's
    identifier folding; a name no column matches stands for itself), or None without a primary key."""
    assert kind.row is not None  # a kind of table rows
    columns = [c.get("name") if isinstance(c, dict) else c for c in table.get(kind.row[0], [])]
    keys = table.get(kind.row[1]) or []
    if not keys:
        return columns, None
    folded = {_fold(str(c)): c for c in columns}
    return columns, [folded.get(_fold(str(k)), k) for k in keys]


def row_ids(kind: Kind, table: dict[str, Any], rows: list[Any]) -> list[Any] | None:
    """What tells each of ``rows`` of ``table`` apart, position by position: its primary key's values (as
    a row's id renders them; a lone key column of strings or of integers as the values themselves),
    or None when the table has no primary key or two rows have the same key (their ids are then
    numbered in order of appearance)."""
    layout = _row_layout(kind, table)
    columns, key_columns = layout
    if key_columns is None:
        return None
    index = {c: i for i, c in enumerate(columns)}  # the last column of a name, as a row's fields hold it
    keys: list[Any] | None = None
    if len(key_columns) == 1 and key_columns[0] in index:  # the common case, at C speed where it can be
        p, width = index[key_columns[0]], len(columns)
        if all(type(row) is list and len(row) >= width for row in rows):
            values = [row[p] for row in rows]
            if {type(v) for v in values} in ({str}, {int}):  # each renders as itself: distinct stays distinct
                keys = values
    if keys is None:
        keys = [_row_fields(layout, row)[1] for row in rows]
    return keys if len(set(keys)) == len(keys) else None


def _row_fields(layout: tuple[list[Any], list[Any] | None], row: Any) -> tuple[dict[str, Any], str]:
    """A row's fields (column name -> value) and its key: its primary key's values, or all its values."""
    columns, key_columns = layout
    fields = dict(zip(columns, row if isinstance(row, list) else [], strict=False))
    if key_columns is not None:
        return fields, ",".join(render_scalar(fields.get(c)) for c in key_columns)
    cells = (json.dumps(v, ensure_ascii=False) if isinstance(v, str) else render_scalar(v) for v in fields.values())
    return fields, "~[" + ",".join(cells) + "]"


@cache
def is_local(kind: Kind) -> bool:
    """Whether everything ``kind``'s entities are made of lies under the state's field ``kind.path[0]``
    (no template reaches up to the state itself): then equal fields mean equal entities."""
    for template in (kind.id, *(t for _, t in kind.extra)):
        _, parts = _compile(template)
        if any(not isinstance(p, str) and p[0] is not None and p[0] < 0 for p in parts):
            return False
    return True


@cache
def item_key(kind: Kind) -> str | None:
    """What of a top-level item tells apart the entities under it from those under any other, or None.

    For a kind one level down (a postgres row ``{0.name}/{$key}``, a slack message ``{0.id}/{ts}``): the
    item's field every id starts with, followed by ``/``. For the items themselves (a charge ``{id}``, a
    file ``{$key}``): the item's field (or ``$key``, ``$value``) that is the whole id. Where those values
    are distinct in a state (and, one level down, free of ``/``), ids from different items never meet,
    so the entities of an item that is unchanged at its position are unchanged and need not be
    extracted."""
    if not kind.path or len(kind.path) > 2 or not is_local(kind):
        return None
    lone, parts = _compile(kind.id)
    if len(kind.path) == 1:
        if lone is None or lone[0] not in (None, 0) or lone[1] == "$n":
            return None
        return lone[1]
    if len(parts) < 2 or isinstance(parts[0], str) or parts[0][0] != 0 or parts[0][1].startswith("$"):
        return None
    return parts[0][1] if isinstance(parts[1], str) and parts[1].startswith("/") else None


@cache
def own_id(kind: Kind) -> bool:
    """Whether the id of an entity one level under a top-level item is made of that entity alone (a Notion
    block ``{id}``, a Linear comment ``{id}``): no field of the item, nor anything above it, goes into it.
    The entities of an item that is unchanged at its position are then unchanged, and where every such id is
    distinct in both states (none numbered ``#n``), the entities of the other items are all a diff needs
    (``item_ids``); ``item_key`` and ``item_prefix`` cover the ids that start with the item's own fields."""
    if len(kind.path) != 2 or kind.row is not None or not is_local(kind):
        return False
    return all(isinstance(part, str) or part[0] in (None, 1) for part in _compile(kind.id)[1])


def item_ids(kind: Kind, state: dict[str, Any], only: frozenset[int] | None = None) -> list[list[str]]:
    """The ids of ``kind``'s entities (``own_id`` kinds), as their template renders them (no ``#n``), per item
    of the top-level collection, position by position (of the items at positions ``only``, the others
    left empty); the entities ``extract`` finds there, in the same order."""
    assert own_id(kind)
    top = state.get(kind.path[0]) if isinstance(state, dict) else None
    out: list[list[str]] = [[] for _ in range(len(top) if isinstance(top, (list, dict)) else 0)]
    for scope in _walk(state, kind.path, [state], [None], [1], only):
        if kind.value is None and not isinstance(scope.items[-1], dict):
            continue  # as ``_entities`` skips it
        out[scope.positions[1] - 1].append(render_scalar(_fill(kind.id, scope, None)))
    return out


@cache
def item_prefix(kind: Kind) -> tuple[str, str] | None:
    """For a kind under a top-level item whose id starts with several of that item's fields (a GitHub file
    ``{0.owner}/{0.name}:{1.name}:{$key}``), which tell the items apart where one of them (``owner``)
    does not: that start as a
    template over the item (``{owner}/{name}``) and the first character of the text that follows it
    (``:``), or None. Where the rendered starts are distinct in a state and free of that character, ids
    under different items never meet, as with ``item_key``."""
    if len(kind.path) < 2 or not is_local(kind):
        return None
    _, parts = _compile(kind.id)
    prefix = ""
    for i, part in enumerate(parts):
        if isinstance(part, str):
            if i == 0:
                return None
            if i + 1 < len(parts) and not isinstance(parts[i + 1], str) and parts[i + 1][0] == 0:
                prefix += part  # a literal between two of the item's fields
                continue
            return (prefix, part[0]) if prefix.count("{") >= 2 else None
        level, name = part
        if level != 0 or name.startswith("$"):
            return None
        prefix += "{" + name + "}"
    return None


def render_item(template: str, item: Any) -> str:
    """``template`` (fields of one item, as ``item_prefix`` gives it) rendered over ``item``."""
    return str(_fill(template, _Scope([None, item], [None, None], [1, 1]), None))


@cache
def rows_match_by_key(kind: Kind) -> bool:
    """Whether the entities of table rows (``kind.row``, two levels down) depend on nothing but their
    table's ``item_key`` field and the row itself: no position (``$n``) and no other field or key of the
    table. Then a row and its table can be matched across two states by that field and the row's key,
    wherever either stands."""
    field = item_key(kind)
    if kind.row is None or len(kind.path) != 2 or field is None or field.startswith("$"):
        return False
    for template in (kind.id, *(t for _, t in kind.extra)):
        for part in _compile(template)[1]:
            if isinstance(part, str):
                continue
            level, name = part
            if (level == 0 and name != field) or (level != 0 and name == "$n"):
                return False
    return True


def _entities(kind: Kind, state: dict[str, Any], only: Only = None):
    """``(id, fields, scope)`` of every entity of ``kind`` in ``state`` (see :func:`extract`)."""
    seen: set[str] = set()
    layouts: dict[int, tuple[list[Any], list[Any] | None]] = {}  # per table (by identity) of this state
    for scope in _walk(state, kind.path, [state], [None], [1], only):
        row_key = None
        if kind.row is not None:
            table = scope.items[-2]
            layout = layouts.get(id(table))
            if layout is None:
                layout = layouts[id(table)] = _row_layout(kind, table)
            fields, row_key = _row_fields(layout, scope.items[-1])
        elif kind.value is not None:
            fields = {kind.value: scope.items[-1]}
        else:
            item = scope.items[-1]
            if not isinstance(item, dict):
                continue
            assert kind.fields is not None  # only a kind of table rows takes its fields from the row
            fields = {f: item[f] for f in kind.fields if f in item}
        for name, template in kind.extra:
            fields[name] = _fill(template, scope, row_key)
        ident = render_scalar(_fill(kind.id, scope, row_key))
        if ident in seen:
            n = 2
            while f"{ident}#{n}" in seen:
                n += 1
            ident = f"{ident}#{n}"
        seen.add(ident)
        yield ident, fields, scope


def extract(kind: Kind, state: dict[str, Any], only: Only = None) -> dict[str, dict[str, Any]]:
    """The entities of ``kind`` in ``state``: stable id -> judged fields. Two entities that would get
    one id are told apart by a ``#2``, ``#3``... suffix in order of appearance. ``only``: the entities
    under these positions of the top-level collection alone (see :func:`item_key`), and where it maps
    a position to positions, of the items under it only those."""
    return {ident: fields for ident, fields, _ in _entities(kind, state, only)}


def locate(kind: Kind, state: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
    """Where each entity of ``kind`` lives in ``state``: stable id -> the path (keys and list indexes from
    the root) of its item (a table row's list, a file's text, an object)."""
    out = {}
    for ident, _, scope in _entities(kind, state):
        path: list[Any] = []
        for depth, step in enumerate(kind.path, start=1):
            key = scope.keys[depth]
            path += [step, key if key is not None else scope.positions[depth] - 1]
        out[ident] = tuple(path)
    return out


def extract_at(kind: Kind, state: dict[str, Any], path: tuple[Any, ...]) -> dict[str, dict[str, Any]]:
    """``extract`` of the one item at ``path`` (as ``locate`` gives it): its id (as the item alone gives
    it, without the ``#n`` of a repeated id) and fields; empty when nothing of ``kind`` is there."""
    node: Any = state
    only: Only = None
    positions = []
    for step, key in zip(path[::2], path[1::2]):
        coll = node.get(step) if isinstance(node, dict) else None
        if isinstance(coll, list) and isinstance(key, int) and 0 <= key < len(coll):
            positions.append(key)
        elif isinstance(coll, dict) and key in coll:
            positions.append(list(coll).index(key))
        else:
            return {}
        node = coll[key]
    for position in reversed(positions):
        only = frozenset({position}) if only is None else {position: only}
    return extract(kind, state, only)


def row_columns(kind: Kind, table: dict[str, Any]) -> list[Any]:
    """The column names of a table of ``kind`` (a row's values are aligned with them)."""
    return _row_layout(kind, table)[0]


__all__ = ["DECLARATION_PATH", "DeclarationError", "Kind", "ServerEntities", "declaration", "extract", "is_local",
           "extract_at", "item_ids", "item_key", "item_prefix", "locate", "own_id", "render_item", "parent_id", "render_scalar", "row_columns", "row_ids", "rows_match_by_key",
           "server_entities"]
