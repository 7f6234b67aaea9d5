"""Stripe's search query language, the subset the search tools understand.

A query is up to 10 clauses joined by ``AND`` or by ``OR`` (not both), as in Stripe:

- ``field:value`` exact match (strings case-insensitively), ``field~"sub"`` substring (3+ characters);
- ``field>N``, ``field>=N``, ``field<N``, ``field<=N`` for numeric fields (``amount``, ``created``, ``total``);
- ``metadata["key"]:"value"`` (also with single quotes), ``field:null`` for an empty field;
- a leading ``-`` negates a clause. String values are quoted ('...' or "..."), numbers are not.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from servers.kit import ToolError

_CLAUSE = re.compile(
    r"""^(?P<neg>-)?(?:metadata\[(?P<q>["'])(?P<key>[^"'\[\]]{1,40})(?P=q)\]|(?P<field>[a-z_]+))"""
    r"""(?P<op>:|~|>=|<=|>|<)(?P<value>.+)$"""
)
MAX_CLAUSES = 10


@dataclass(frozen=True)
class Clause:
    negate: bool
    field: str  # "metadata" for a metadata clause
    key: str | None
    op: str
    value: str | int | None


def _split(query: str) -> tuple[list[str], str | None]:
    """The clauses of ``query`` and the word joining them, splitting on AND/OR outside quotes."""
    current: list[str]
    parts, joiners, current, quote, i = [], set(), [], None, 0
    while i < len(query):
        ch = query[i]
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        else:
            m = re.match(r"\s+(AND|OR)\s+", query[i:])
            if m:
                parts.append("".join(current).strip())
                joiners.add(m.group(1))
                current = []
                i += m.end()
                continue
        current.append(ch)
        i += 1
    if quote:
        raise ToolError(f"Invalid search query: unterminated quote in {query!r}")
    parts.append("".join(current).strip())
    if len(joiners) > 1:
        raise ToolError("Invalid search query: AND and OR cannot be combined in one query")
    return parts, joiners.pop() if joiners else None


def parse(query: str, fields: dict[str, str]) -> tuple[list[Clause], str]:
    """``query`` parsed against ``fields`` (name -> "string", "number", "bool" or "metadata")."""
    parts, joiner = _split(query.strip())
    if not parts or not all(parts):
        raise ToolError("Invalid search query: give at least one clause, e.g. email:'jenny@example.com'")
    if len(parts) > MAX_CLAUSES:
        raise ToolError(f"Invalid search query: at most {MAX_CLAUSES} clauses")
    clauses = []
    for part in parts:
        m = _CLAUSE.match(part)
        if m is None:
            raise ToolError(f"Invalid search query: cannot read the clause {part!r} (expected field:'value', "
                            "field~'text', field>123 or metadata['key']:'value')")
        field = "metadata" if m["key"] is not None else m["field"]
        kind = fields.get(field)
        if kind is None:
            raise ToolError(f"Invalid search query: {field!r} is not a searchable field here "
                            f"({', '.join(sorted(fields))})")
        raw, op = m["value"].strip(), m["op"]
        if raw[:1] in "'\"" and raw[-1:] == raw[:1] and len(raw) >= 2:
            value: str | int | None = raw[1:-1]
        elif raw == "null":
            value = None
        elif re.fullmatch(r"-?\d+", raw):
            value = int(raw)
        elif kind == "bool" and raw in ("true", "false"):
            value = raw
        else:
            raise ToolError(f"Invalid search query: quote the value in {part!r}, e.g. {field}:'{raw}'")
        if op in (">", "<", ">=", "<=") and (kind != "number" or not isinstance(value, int)):
            raise ToolError(f"Invalid search query: {op} compares numeric fields with a number, not {part!r}")
        if op == "~" and (not isinstance(value, str) or len(value) < 3):
            raise ToolError(f"Invalid search query: ~ needs a quoted text of at least 3 characters in {part!r}")
        clauses.append(Clause(bool(m["neg"]), field, m["key"], op, value))
    return clauses, joiner or "AND"


def _test(clause: Clause) -> Callable[[Any], bool]:
    """A function of a field's value saying whether ``clause`` (without its negation) holds."""
    want = clause.value
    if clause.field == "metadata":
        key = clause.key

        def inner(value: Any) -> Any:
            return (value or {}).get(key)
    else:
        def inner(value: Any) -> Any:
            return value
    if want is None:
        return lambda v: inner(v) in (None, "")
    if clause.op == "~":
        needle = str(want).casefold()
        return lambda v: isinstance(x := inner(v), str) and needle in x.casefold()
    if clause.op == ":":
        text = str(want).casefold()

        def equal(v: Any) -> bool:
            x = inner(v)
            if isinstance(x, bool):
                x = "true" if x else "false"
            if isinstance(x, int) and isinstance(want, int):
                return x == want
            return x is not None and str(x).casefold() == text
        return equal
    compare = {">": int.__gt__, "<": int.__lt__, ">=": int.__ge__, "<=": int.__le__}[clause.op]
    assert isinstance(want, int)  # parse() takes only a number after a comparison
    return lambda v: isinstance(x := inner(v), int) and not isinstance(x, bool) and compare(x, want)


def compile_query(clauses: list[Clause], joiner: str, get: Callable[[Any, str], Any]) -> Callable[[Any], bool]:
    """One function of an object telling whether it matches the parsed query (``get(obj, field)`` reads a field)."""
    tests = [(c.field, _test(c), c.negate) for c in clauses]
    if joiner == "AND":
        return lambda obj: all(test(get(obj, field)) != negate for field, test, negate in tests)
    return lambda obj: any(test(get(obj, field)) != negate for field, test, negate in tests)


def matches(clauses: list[Clause], joiner: str, get: Callable[[str], Any]) -> bool:
    """Whether one object (``get(field)`` reads its fields) matches the parsed query."""
    return compile_query(clauses, joiner, lambda _, field: get(field))(None)


__all__ = ["Clause", "compile_query", "matches", "parse"]
