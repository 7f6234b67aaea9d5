"""The primitive registry: each primitive is a name, a strict argument model and a pure function.

A primitive ``<server>.<name>`` is declared once, in ``tasks_catalog/predicates/<server>.py``::

    class ChannelExists(Args):
        '''True when a channel named `channel` exists (archived or not).'''
        channel: Name

    @primitive("slack", "channelExists", ChannelExists)
    def channel_exists(state: SlackState, args: ChannelExists) -> bool:
        ...

The argument model's docstring and field descriptions are the primitive's documentation
(``docs/predicates.md`` is generated from them), which the TypeScript verifier follows too.

Every primitive also has an explainer, declared beside it, which says for a clause that decided a false
verdict what the clause asks and what the state held instead (``tasks_catalog.predicates.explain``)::

    @explains("slack", "channelExists")
    def _channel_exists(state: SlackState, args: ChannelExists) -> tuple[str, str]:
        return f"a channel {args.channel!r}", ...
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from servers import SERVER_NAMES


class Args(BaseModel):
    """Base of every primitive's arguments: strict types (no coercion of "1" to 1), no unknown keys."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


def _compiles(pattern: str) -> str:
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"not a valid regular expression: {exc}") from None
    problem = _outside_portable_subset(pattern)
    if problem:
        raise ValueError(f"{problem} is outside the portable regex subset (see docs/predicates.md)")
    return pattern


def _outside_portable_subset(p: str) -> str | None:
    """The first construct of ``p`` that Python ``re`` and ECMAScript read differently and the
    TypeScript verifier therefore refuses, or None. Keep in step with verifier-ts/src/pattern.ts."""
    i, in_class, class_start = 0, False, 0
    while i < len(p):
        c, nxt = p[i], p[i + 1:i + 2]
        if c == "\\":
            if nxt == "N":
                return "\\N{...}"
            if in_class and nxt in ("W", "S"):
                return f"\\{nxt} inside a character class"
            i += 2
            continue
        if in_class:
            if c == "]" and i > class_start:
                in_class = False
            elif c == "[":
                return "'[' inside a character class"
            elif p[i:i + 2] in ("--", "&&", "~~", "||"):
                return f"'{p[i:i + 2]}' inside a character class"
        elif c == "[":
            in_class = True
            class_start = i + 1 + (nxt == "^")
            i = class_start
            if p[i:i + 1] == "]":
                i += 1
            continue
        elif c == "(" and nxt == "?":
            kind = p[i + 2:i + 3]
            if kind not in (":", "=", "!"):
                return {"<": "lookbehind or a named group", "P": "a named group", "#": "a comment (?#...)",
                        ">": "an atomic group"}.get(kind, "an inline flag or conditional")
            i += 3
            continue
        elif c in "*+?}" and nxt == "+":
            return "a possessive quantifier"
        i += 1
    return None


#: A regular expression in the portable subset of Python ``re`` and ECMAScript, matched with search
#: semantics (anywhere in the text unless anchored), case-sensitive.
Pattern = Annotated[str, AfterValidator(_compiles), Field(min_length=1, json_schema_extra={"pattern_arg": True})]

#: An identifier or exact value: matched by exact, case-sensitive string equality.
Name = Annotated[str, Field(min_length=1)]

#: A JSON scalar a state value is compared with (numbers by numeric value; no string/number coercion).
Scalar = str | int | float | bool | None

#: Mark a field as not something the goal must spell out (e.g. a SQL query text).
NOT_IN_GOAL = {"in_goal": False}


#: ``(state, args) -> (expected, found)``: what a primitive's clause asks, and what the state holds
#: around it (the entity it names, the values there, the closest candidates), in a line or two.
Explainer = Callable[[Any, Any], tuple[str, str]]


@dataclass(frozen=True)
class Primitive:
    server: str
    name: str
    args: type[Args]
    fn: Callable[[Any, Any], bool]

    @property
    def key(self) -> str:
        return f"{self.server}.{self.name}"

    def evaluate(self, state: Any, raw_args: dict[str, Any]) -> bool:
        return bool(self.fn(state, self.args.model_validate(raw_args)))

    def describe(self, state: Any, raw_args: dict[str, Any]) -> tuple[str, str]:
        """``(expected, found)`` for a clause of this primitive: what it asks, what the state holds."""
        return _EXPLAINERS[self.key](state, self.args.model_validate(raw_args))


_PRIMITIVES: dict[str, Primitive] = {}
_EXPLAINERS: dict[str, Explainer] = {}
_loaded = False


def primitive(server: str, name: str, args: type[Args]) -> Callable:
    """Register ``fn(state, args) -> bool`` as primitive ``server.name``."""
    if server not in SERVER_NAMES:
        raise ValueError(f"unknown server {server!r}")
    if not args.__doc__:
        raise TypeError(f"{server}.{name}: the argument model needs a docstring (it documents the primitive)")

    def register(fn: Callable[[Any, Any], bool]) -> Callable[[Any, Any], bool]:
        key = f"{server}.{name}"
        if key in _PRIMITIVES:
            raise ValueError(f"primitive {key} registered twice")
        _PRIMITIVES[key] = Primitive(server, name, args, fn)
        return fn

    return register


def explains(server: str, name: str) -> Callable[[Explainer], Explainer]:
    """Register ``fn(state, args) -> (expected, found)`` as the explainer of primitive ``server.name``."""

    def register(fn: Explainer) -> Explainer:
        key = f"{server}.{name}"
        if key in _EXPLAINERS:
            raise ValueError(f"explainer of {key} registered twice")
        _EXPLAINERS[key] = fn
        return fn

    return register


def explainers() -> dict[str, Explainer]:
    """Every registered explainer, keyed ``server.name`` (a test holds them to one per primitive)."""
    primitives()
    return _EXPLAINERS


def primitives() -> dict[str, Primitive]:
    """Every registered primitive, keyed ``server.name`` (imports each server's module once)."""
    global _loaded
    if not _loaded:
        for server in SERVER_NAMES:
            try:
                importlib.import_module(f"tasks_catalog.predicates.{server}")
            except ModuleNotFoundError as exc:
                if exc.name != f"tasks_catalog.predicates.{server}":
                    raise
        _loaded = True
    return _PRIMITIVES


# -- helpers shared by the primitive modules ---------------------------------------------------

def search(pattern: str, text: str | None) -> bool:
    """The one regex semantics of predicates: ``re.search``, case-sensitive; absent text never matches."""
    return text is not None and re.search(pattern, text) is not None


def same(expected: Any, actual: Any) -> bool:
    """Value equality of predicates: exact for strings and booleans, numeric for numbers, no coercion
    between kinds (``1 == 1.0`` is true, ``"1" == 1`` and ``True == 1`` are false)."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return isinstance(expected, bool) and isinstance(actual, bool) and expected == actual
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return expected == actual
    return type(expected) is type(actual) and expected == actual


# -- helpers of the explainers: short, one-line renderings of what a state holds --------------------

def shown(text: str | None, limit: int = 80) -> str:
    """``text`` on one line, quoted, cut at ``limit`` characters (``…`` says it was cut)."""
    if text is None:
        return "null"
    line = " ".join(text.split())
    return json.dumps(line[:limit] + ("…" if len(line) > limit else ""), ensure_ascii=False)


def listing(items: Any, limit: int = 6) -> str:
    """The first ``limit`` items, comma-separated, and how many more; ``none`` for no item."""
    items = [str(i) for i in items]
    if not items:
        return "none"
    return ", ".join(items[:limit]) + (f" and {len(items) - limit} more" if len(items) > limit else "")


def value(v: Any) -> str:
    """A state value as JSON (``"a"``, ``3``, ``null``, ``["x"]``)."""
    return json.dumps(v, ensure_ascii=False, default=str)


def pattern(p: str) -> str:
    """A regex argument, as shown in an explanation."""
    return f"/{p}/"


def closest(rows: list[dict[str, Any]], where: dict[str, Any], equal: Callable[[Any, Any], bool],
            limit: int = 2) -> str:
    """The rows (dicts of values) matching the most pairs of ``where``, shown by ``where``'s keys: what
    comes nearest to a row the clause asks for."""
    scored = [(sum(k in row and equal(v, row[k]) for k, v in where.items()), i) for i, row in enumerate(rows)]
    if not scored or not where:
        return "none"
    best = max(n for n, _ in scored)
    near = [rows[i] for n, i in scored if n == best][:limit]
    return "; ".join("{" + ", ".join(f"{k}: {value(row[k]) if k in row else 'absent'}" for k in where) + "}"
                     for row in near) + \
        f" ({best} of {len(where)} conditions hold)"
