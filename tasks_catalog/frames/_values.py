"""Field-level frames: the units a change is judged by (a field, or one key of a field that holds an
object: ``properties.Status``, ``metadata.seats``) and the constraints an allowance's ``values`` puts on
what a change may make of them. docs/frames.md, "Field-level allowances"; the TypeScript verifier
(src/frame.ts) follows the same rules."""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping
from typing import Any

#: The forms of a constraint, each a JSON object with these keys (``add``/``remove``/``key`` are one form).
FORMS = ("eq", "in", "matches", "items", "keys")
_KEYS = {"eq": {"eq"}, "in": {"in"}, "matches": {"matches"}, "keys": {"keys"}, "items": {"add", "remove", "key"}}

Equal = Callable[[Any, Any], bool]


def split_unit(unit: str, fields: Container[str] | None = None) -> tuple[str, str | None]:
    """``(field, key)`` of a unit: ``"properties.Status"`` is key ``Status`` of field ``properties``; a unit
    that is a field of ``fields`` itself (a column named ``a.b``), or has no dot, is that whole field."""
    if "." not in unit or (fields is not None and unit in fields):
        return unit, None
    field, key = unit.split(".", 1)
    return field, key


def unit_value(fields: Mapping[str, Any] | None, unit: str) -> tuple[bool, Any]:
    """``(present, value)`` of ``unit`` in an entity's ``fields`` (a key of a field that is not an object,
    or that the object lacks, is absent)."""
    if fields is None:
        return False, None
    field, key = split_unit(unit, fields)
    if field not in fields:
        return False, None
    value = fields[field]
    if key is None:
        return True, value
    if type(value) is not dict or key not in value:
        return False, None
    return True, value[key]


def changed_units(old: Mapping[str, Any], new: Mapping[str, Any], equal: Equal, sets: Container[str] = (),
                  members: Equal | None = None) -> tuple[str, ...]:
    """The units that differ between two versions of one entity, sorted: each field that differs, except
    that a field holding an object in both is compared key by key (``metadata.plan``, ``metadata.seats``),
    and a field of ``sets`` (the kind's set fields) by ``members`` (the same members in any order): a list
    of recipients or labels that only changed its order did not change."""
    out = []
    for name in old.keys() | new.keys():
        if name in old and name in new:
            a, b = old[name], new[name]
            if equal(a, b) or (members is not None and name in sets and members(a, b)):
                continue
            if type(a) is dict and type(b) is dict:
                out += [f"{name}.{k}" for k in a.keys() | b.keys()
                        if k not in a or k not in b or not equal(a[k], b[k])]
                continue
        out.append(name)
    return tuple(sorted(out))


def form_of(constraint: Any) -> str | None:
    """The form of a constraint (one of ``FORMS``), or None when it is not one."""
    if type(constraint) is not dict or not constraint:
        return None
    for form, keys in _KEYS.items():
        if set(constraint) <= keys:
            return form
    return None


def constraint_problem(constraint: Any, pattern_problem: Callable[[str], str | None]) -> str | None:
    """What is wrong with a constraint as written, or None (``pattern_problem`` checks a ``matches`` regex)."""
    form = form_of(constraint)
    if form is None:
        return ("expected one of {\"eq\": value}, {\"in\": [values]}, {\"matches\": pattern}, "
                "{\"add\": [...], \"remove\": [...], \"key\": field} or {\"keys\": [names]}")
    if form == "in" and not isinstance(constraint["in"], list):
        return "in: expected a list of values"
    if form == "matches":
        if not isinstance(constraint["matches"], str) or not constraint["matches"]:
            return "matches: expected a non-empty regular expression"
        return pattern_problem(constraint["matches"])
    if form == "keys" and not (isinstance(constraint["keys"], list) and all(isinstance(k, str) for k in constraint["keys"])):
        return "keys: expected a list of key names"
    if form == "items":
        for name in ("add", "remove"):
            if name in constraint and not isinstance(constraint[name], list):
                return f"{name}: expected a list of items"
        if "key" in constraint and (not isinstance(constraint["key"], str) or not constraint["key"]):
            return "key: expected a field name of the items"
        if "add" not in constraint and "remove" not in constraint:
            return "items: give add, remove or both"
    return None


def holds(constraint: dict[str, Any], before: tuple[bool, Any], after: tuple[bool, Any], equal: Equal,
          search: Callable[[str, str], bool]) -> bool:
    """Whether a change that takes a unit from ``before`` to ``after`` (each ``(present, value)``; a created
    entity starts from absent) keeps ``constraint``. An absent final value holds no ``eq``, ``in``,
    ``matches`` or ``keys``; ``add``/``remove`` read an absent list as empty."""
    form = form_of(constraint)
    present, value = after
    if form == "eq":
        return present and equal(value, constraint["eq"])
    if form == "in":
        return present and any(equal(value, v) for v in constraint["in"])
    if form == "matches":
        return present and type(value) is str and search(constraint["matches"], value)
    if form == "keys":
        return present and type(value) is dict and all(k in constraint["keys"] for k in value)
    old = before[1] if before[0] else []
    new = value if present else []
    if type(old) is not list or type(new) is not list:
        return False
    key = constraint.get("key")
    add, remove = constraint.get("add", []), constraint.get("remove", [])
    if key is None:
        return (all(any(equal(x, y) for y in add) for x in _minus(new, old, equal))
                and all(any(equal(x, y) for y in remove) for x in _minus(old, new, equal)))
    if not all(type(x) is dict and key in x for x in (*old, *new)):
        return False
    for x in new:  # an item new or altered under its key is an addition
        same = [y for y in old if equal(y[key], x[key])]
        if not (same and equal(same[0], x)) and not any(equal(x[key], y) for y in add):
            return False
    return all(any(equal(y[key], x[key]) for x in new) or any(equal(y[key], z) for z in remove) for y in old)


def _minus(a: list[Any], b: list[Any], equal: Equal) -> list[Any]:
    """The items of ``a`` left after taking out, one for one, the items of ``b`` (multiset difference)."""
    rest = list(b)
    out = []
    for x in a:
        for i, y in enumerate(rest):
            if equal(x, y):
                del rest[i]
                break
        else:
            out.append(x)
    return out


__all__ = ["FORMS", "changed_units", "constraint_problem", "form_of", "holds", "split_unit", "unit_value"]
