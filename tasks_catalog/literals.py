"""What it means for a goal to name a value the predicate checks (gate property 1).

A plain value is named when the goal contains it (a number in one of its usual renderings), or when
it is the stable id of an entity of the initial state (guards and frames address entities by id; the
agent discovers ids, a person would not write them). A pattern is named only when the goal contains a
literal string the pattern requires (a run of at least ``MIN_RUN`` characters that every match must
contain), or when such a run is the stable id of an entity of the initial state. ``.+`` requires nothing, so it never counts; for an alternation at the top (``a|b``) one
alternative's literal suffices.
"""

from __future__ import annotations

import re
import re._parser as sre_parse
from re._constants import AT, BRANCH, LITERAL, MAX_REPEAT, MIN_REPEAT, SUBPATTERN
from typing import Any

#: The shortest literal run (ignoring surrounding spaces) that names a pattern in a goal.
MIN_RUN = 3


def _runs(seq: Any) -> list[str]:
    out: list[str] = []
    current: list[str] = []

    def flush() -> None:
        if current:
            out.append("".join(current))
            current.clear()

    for op, av in seq:
        if op is LITERAL:
            current.append(chr(av))
        elif op is AT:
            continue
        elif op is SUBPATTERN:
            flush()
            out.extend(_runs(av[3]))
        elif op in (MAX_REPEAT, MIN_REPEAT):
            flush()
            if av[0] >= 1:
                out.extend(_runs(av[2]))
        else:
            flush()
    flush()
    return out


def required_literals(pattern: str) -> list[list[str]]:
    """The literal runs every match of ``pattern`` contains, per top-level alternative."""
    try:
        seq = list(sre_parse.parse(pattern))
    except re.error:
        return [[]]
    body = [(op, av) for op, av in seq if op is not AT]
    if len(body) == 1 and body[0][0] is SUBPATTERN:
        body = [(op, av) for op, av in body[0][1][3] if op is not AT]
    if len(body) == 1 and body[0][0] is BRANCH:
        return [_runs(alternative) for alternative in body[0][1][1]]
    return [_runs(seq)]


def pattern_named(pattern: str, goal: str, ids: frozenset[str] | set[str] = frozenset()) -> bool:
    """Whether the goal contains a literal the pattern requires (one alternative's, for ``a|b``), or the
    pattern requires a stable id of the initial state (a comment that must cite issue ``PLT-305``: the
    agent discovers the id, as it discovers the ids a guard names)."""
    return any(any(len(run.strip()) >= MIN_RUN and (run in goal or run.strip() in ids) for run in runs)
               for runs in required_literals(pattern))


def number_renderings(value: int | float) -> set[str]:
    out = {str(value)}
    if isinstance(value, float):
        out |= {f"{value:.2f}", f"{value:,.2f}"}
        if value.is_integer():
            out.add(str(int(value)))
    else:
        out.add(f"{value:,}")
    return out


def value_named(value: Any, goal: str, ids: set[str]) -> bool:
    if isinstance(value, str):
        return value in goal or value in ids
    return any(r in goal for r in number_renderings(value))


__all__ = ["MIN_RUN", "number_renderings", "pattern_named", "required_literals", "value_named"]
