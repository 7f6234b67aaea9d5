"""What it means for a goal to name a value the predicate checks (gate property 1).

A plain string is named when the goal contains it, when it is the stable id of an entity of the
initial state (guards and frames address entities by id; the agent discovers ids, a person would not
write them), or when it is a value the initial state holds (a status, an email address, a label name:
the agent can discover it, as issue 11's rule (1) asks). A number is named only when the goal contains
it as a whole number, in one of its usual renderings ("1042", "1,042", "88.80"), not as a piece of
another ("6" is not named by "2026"), or when it is a stable id: in a world of thousands of rows
almost every small number occurs somewhere, so its presence in the state would prove nothing. Booleans,
null, 0 and 1 are the predicate's shape ("no unpaid order is left", "exactly one refund"), not values. A pattern is named only when the goal contains a
literal string the pattern requires (a run of at least ``MIN_RUN`` characters that every match must
contain), or when such a run is the stable id of an entity of the initial state. ``.+`` requires nothing, so it never counts; for an alternation at the top (``a|b``) one
alternative's literal suffices.
"""

from __future__ import annotations

import re
import re._parser as sre_parse
from collections.abc import Container
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


def pattern_named(pattern: str, goal: str, ids: Container[str] = frozenset()) -> bool:
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


def _whole_number_in(rendering: str, goal: str) -> bool:
    """``rendering`` occurs in ``goal`` not as a piece of a longer number or word."""
    return re.search(rf"(?<![\w.,]){re.escape(rendering)}(?!\w|[.,]\d)", goal) is not None


def state_strings(state: Any) -> set[str]:
    """Every string value the state holds, at any depth (mapping keys are ids, found by the frames)."""
    out: set[str] = set()
    stack = [state]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.add(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return out


def value_named(value: Any, goal: str, ids: Container[str], present: Container[str] = frozenset()) -> bool:
    """Whether a plain value the predicate checks is named (see the module's docstring)."""
    if isinstance(value, bool) or value is None or (isinstance(value, int) and value in (0, 1)):
        return True  # true/false/null, none/one: the predicate's shape, not a value a person names
    if isinstance(value, str):
        return value in goal or value in ids or value in present
    return any(_whole_number_in(r, goal) for r in number_renderings(value)) or str(value) in ids


__all__ = ["MIN_RUN", "number_renderings", "pattern_named", "required_literals", "state_strings", "value_named"]
