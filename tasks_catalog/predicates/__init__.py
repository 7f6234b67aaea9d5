"""Success predicates: JSON trees of ``all``/``any``/``not`` over per-server primitives.

``check`` validates a predicate statically (every problem, each with its JSON path);
``evaluate`` decides it against a server's final state, or a cross-server task's final states (one per
server: each primitive ``<server>.<name>`` is decided on its server's); ``explain`` says why it is false:
its failing clauses, each with what it asks and what the state held. The exact semantics of every
primitive are in ``docs/predicates.md``, generated from the registry by ``mcpbench author docs``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from pydantic import ValidationError

from runstore.records import EXPLAINED_CLAUSES, FOUND_KEPT, FailedClause
from servers.kit import json_path
from tasks_catalog.predicates._registry import (
    NOT_IN_GOAL,
    Args,
    Name,
    Pattern,
    Primitive,
    Scalar,
    explainers,
    explains,
    primitive,
    primitives,
    same,
    search,
)

COMPOUNDS = ("all", "any", "not")


@dataclass(frozen=True)
class Refuted:
    """A false verdict with the ids of the clauses that decided it (``failing_clauses``), as a second
    verifier answers when asked to explain: falsy like ``False``, and compared by its clause ids."""

    clauses: tuple[str, ...]

    def __bool__(self) -> bool:
        return False

    def __str__(self) -> str:
        return f"False (failing {', '.join(self.clauses) or 'no clause'})"


def clause_ids(pred: dict[str, Any], state: Any) -> tuple[str, ...]:
    """The ids of ``pred``'s failing clauses on ``state`` (empty when it holds)."""
    return () if evaluate(pred, state) else tuple(c for c, _, _ in failing_clauses(pred, state))


@dataclass(frozen=True)
class PredicateError:
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class InvalidPredicate(ValueError):
    def __init__(self, errors: list[PredicateError]) -> None:
        self.errors = errors
        super().__init__("; ".join(str(e) for e in errors))


def check(pred: Any, server: str | Sequence[str], path: str = "$") -> list[PredicateError]:
    """Every static problem of ``pred`` for a task on ``server`` (or on each of several servers, a
    cross-server task's: a primitive of any of them is allowed) (empty when it is well formed)."""
    errors: list[PredicateError] = []
    _check(pred, (server,) if isinstance(server, str) else tuple(server), path, errors)
    return errors


def _check(pred: Any, servers: tuple[str, ...], path: str, errors: list[PredicateError]) -> None:
    if not isinstance(pred, dict) or len(pred) != 1:
        errors.append(PredicateError(path, "a predicate is an object with exactly one key"))
        return
    (key, body), = pred.items()
    here = f"{path}.{key}" if key.isidentifier() else f'{path}["{key}"]'
    if key in ("all", "any"):
        if not isinstance(body, list) or not body:
            errors.append(PredicateError(here, f"'{key}' takes a non-empty list of predicates"))
            return
        for i, sub in enumerate(body):
            _check(sub, servers, f"{here}[{i}]", errors)
        return
    if key == "not":
        _check(body, servers, here, errors)
        return
    prims = primitives()
    prim = prims.get(key)
    if prim is None:
        known_server = key.split(".", 1)[0]
        if "." in key and known_server in {p.server for p in prims.values()}:
            names = sorted(p.name for p in prims.values() if p.server == known_server)
            errors.append(PredicateError(here, f"unknown primitive {key!r}; {known_server} has: {', '.join(names)}"))
        else:
            errors.append(PredicateError(here, f"unknown primitive {key!r}; expected all/any/not or <server>.<name>"))
        return
    if prim.server not in servers:
        errors.append(PredicateError(here, f"primitive {key!r} belongs to server {prim.server!r}, not {servers[0]!r}"
                                     if len(servers) == 1 else f"primitive {key!r} belongs to server "
                                     f"{prim.server!r}, which this task does not name (its servers: {', '.join(servers)})"))
        return
    if not isinstance(body, dict):
        errors.append(PredicateError(here, "a primitive's arguments are an object"))
        return
    try:
        prim.args.model_validate(body)
    except ValidationError as exc:
        for err in exc.errors():
            errors.append(PredicateError(json_path(err["loc"], here), err["msg"]))


def evaluate(pred: dict[str, Any], state: Any) -> bool:
    """Decide ``pred`` on ``state``: the server's state model, or for a cross-server task a ``dict`` of
    them keyed by server, each primitive decided on its own server's. The predicate must pass ``check``."""
    (key, body), = pred.items()
    if key == "all":
        return all(evaluate(p, state) for p in body)
    if key == "any":
        return any(evaluate(p, state) for p in body)
    if key == "not":
        return not evaluate(body, state)
    prim = primitives().get(key)
    if prim is None:
        raise InvalidPredicate([PredicateError("$", f"unknown primitive {key!r}")])
    if isinstance(state, dict):  # a cross-server task's states (a server's state is a model, never a dict)
        if prim.server not in state:
            raise InvalidPredicate([PredicateError("$", f"primitive {key!r}: no state of server {prim.server!r} "
                                                        f"(the states are {', '.join(state)})")])
        state = state[prim.server]
    return prim.evaluate(state, body)


def failing_clauses(pred: dict[str, Any], state: Any, path: str = "$") -> list[tuple[str, dict[str, Any], bool]]:
    """The clauses that decide a false verdict of ``pred`` (which must be false on ``state``), in predicate
    order, as ``(clause id, clause, negated)``. The clause id is the clause's JSON path in the predicate:
    ``$`` for the whole, ``$.all[2]``, ``$.any[0].all[1]``, ``$.all[1].not`` for the body of a ``not``.

    * a primitive that is false is the clause;
    * ``all``: the failing clauses of each member that is false;
    * ``any``: the failing clauses of every member (all are false);
    * ``not``: its body, which holds (``negated``), as one clause, whatever its shape.

    The TypeScript verifier gives the same ids (``explain`` in verifier-ts/src/predicate.ts); the
    conformance corpus and the gate hold the two to it."""
    (key, body), = pred.items()
    if key == "all":
        return [c for i, sub in enumerate(body) if not evaluate(sub, state)
                for c in failing_clauses(sub, state, f"{path}.all[{i}]")]
    if key == "any":
        return [c for i, sub in enumerate(body) for c in failing_clauses(sub, state, f"{path}.any[{i}]")]
    if key == "not":
        return [(f"{path}.not", body, True)]
    return [(path, pred, False)]


def explain(pred: dict[str, Any], state: Any, limit: int = EXPLAINED_CLAUSES) -> tuple[list[FailedClause], int]:
    """Why ``pred`` is false on ``state``: its first ``limit`` failing clauses (``failing_clauses``), each
    with its primitive, arguments, what it asks and what the state held, and how many more there are.
    ``([], 0)`` when it holds."""
    if evaluate(pred, state):
        return [], 0
    found = failing_clauses(pred, state)
    return [_described(clause, node, negated, state) for clause, node, negated in found[:limit]], \
        max(0, len(found) - limit)


def _described(clause: str, node: dict[str, Any], negated: bool, state: Any) -> FailedClause:
    (key, body), = node.items()
    if key in COMPOUNDS:  # the body of a not, itself a compound: it holds
        return FailedClause(clause=clause, primitive=key, negated=negated,
                            expected=f"not ({key} of {len(body) if key != 'not' else 1} clauses)", found="it holds")
    prim = primitives()[key]
    if isinstance(state, dict):  # a cross-server task's states: the primitive's server's
        state = state[prim.server]
    try:
        expected, found = prim.describe(state, body)
    except Exception as exc:  # noqa: BLE001 - an explainer's bug must never cost the verdict
        expected, found = key, f"(the state could not be described: {type(exc).__name__})"
    return FailedClause(clause=clause, primitive=key, negated=negated, args=body,
                        expected=f"not ({expected})" if negated else expected, found=found[:FOUND_KEPT])


def goal_literals(pred: dict[str, Any]) -> list[tuple[str, Any, bool]]:
    """The values a goal must name: ``(path, value, is_pattern)`` for every string or number argument
    outside a ``not`` (a ``not`` guards against side effects the goal need not spell out)."""
    out: list[tuple[str, Any, bool]] = []

    def walk(p: dict[str, Any], path: str) -> None:
        (key, body), = p.items()
        if key in ("all", "any"):
            for i, sub in enumerate(body):
                walk(sub, f"{path}.{key}[{i}]")
            return
        if key == "not":
            return
        prim = primitives()[key]
        for name in prim.args.model_fields:
            flags = _field_flags(prim.args, name)
            if flags.get("in_goal") is False or name not in body:
                continue
            _collect(body[name], f'{path}["{key}"].{name}', bool(flags.get("pattern_arg")), out)

    walk(pred, "$")
    return out


@cache
def _field_flags(model: type[Args], name: str) -> dict[str, Any]:
    """The ``pattern_arg``/``in_goal`` markers of a field, wherever its schema carries them (an
    optional ``Pattern | None`` keeps them inside ``anyOf``)."""
    flags: dict[str, Any] = {}

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key in ("pattern_arg", "in_goal"):
                if key in node:
                    flags.setdefault(key, node[key])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(model.model_json_schema()["properties"][name])
    return flags


def _collect(value: Any, path: str, is_pattern: bool, out: list) -> None:
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, (str, int, float)):
        out.append((path, value, is_pattern))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _collect(v, f"{path}[{i}]", is_pattern, out)
    elif isinstance(value, dict):
        for k, v in value.items():
            _collect(v, f"{path}.{k}", is_pattern, out)


__all__ = [
    "COMPOUNDS",
    "NOT_IN_GOAL",
    "Args",
    "InvalidPredicate",
    "Name",
    "Pattern",
    "Primitive",
    "PredicateError",
    "Refuted",
    "Scalar",
    "check",
    "clause_ids",
    "evaluate",
    "explain",
    "explainers",
    "explains",
    "failing_clauses",
    "goal_literals",
    "primitive",
    "primitives",
    "same",
    "search",
]
