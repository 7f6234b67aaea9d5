"""What it means for a goal to name a value the predicate checks (gate property 1).

A plain string is named when the goal contains it, when it is the stable id of an entity of the
initial state (guards and frames address entities by id; the agent discovers ids, a person would not
write them), or when it is a value the initial state holds (a status, an email address, a label name:
the agent can discover it, as issue 11's rule (1) asks). A number is named only when the goal contains
it as a whole number, in one of its usual renderings ("1042", "1,042", "88.80"), not as a piece of
another ("6" is not named by "2026"), or when it is a stable id: in a world of thousands of rows
almost every small number occurs somewhere, so its presence in the state would prove nothing. Booleans,
null, 0 and 1 are the predicate's shape ("no unpaid order is left", "exactly one refund"), not values. A pattern is named only when the goal contains a
literal string the pattern requires, or when such a string is the stable id of an entity of the
initial state. A pattern requires a literal only when every way of matching it contains a run of at
least ``MIN_RUN`` characters: ``.+`` requires nothing, and neither does an alternation with one
alternative that requires nothing (``abc|.+``, ``(abc|.+)``, ``^(?:abc|.*)$``), at whatever depth it
decides what a match contains (``x(abc|.*)`` requires only ``x``, too short; ``freeze (travel|.*) spend``
requires ``freeze`` and ``spend``, and ``travel`` does not name it). When every alternative requires a literal, one alternative's literal in the goal
suffices (``harbour|harbor`` is named by a goal that says "harbour").
"""

from __future__ import annotations

import re
import re._parser as sre_parse
from collections.abc import Container
from re._constants import AT, BRANCH, LITERAL, MAX_REPEAT, MIN_REPEAT, SUBPATTERN
from typing import Any

#: The shortest literal run (ignoring surrounding spaces) that names a pattern in a goal.
MIN_RUN = 3


def _requirement(seq: Any, prefix: str = "") -> tuple[bool, list[str]]:
    """What ``seq`` (a parsed pattern) requires: whether every match of it contains a literal run of
    ``MIN_RUN``+ characters, and the runs that name it. An alternation whose every alternative requires
    a run gives every alternative's runs; one with an alternative that requires nothing gives none.

    ``prefix`` is a literal run that leads into ``seq``: the parser pulls the common prefix of an
    alternation out in front of it (``harbour|harbor`` parses as ``harbo(?:ur|r)``), so each
    alternative is read with that prefix joined back on."""
    runs: list[str] = []
    requires = False
    current = [prefix] if prefix else []

    def flush() -> None:
        nonlocal requires
        if current:
            run = "".join(current)
            runs.append(run)
            requires |= len(run.strip()) >= MIN_RUN
            current.clear()

    def take(sub: tuple[bool, list[str]]) -> None:
        nonlocal requires
        requires |= sub[0]
        runs.extend(sub[1])

    for op, av in seq:
        if op is LITERAL:
            current.append(chr(av))
        elif op is AT:
            continue
        elif op is BRANCH:
            lead = "".join(current)
            current.clear()
            alternatives = [_requirement(alternative, lead) for alternative in av[1]]
            if all(r for r, _ in alternatives):
                requires = True
                runs.extend(run for _, rs in alternatives for run in rs)
            elif lead:
                # an alternative requires nothing (``abc|.+``): the alternation names nothing, and only
                # the prefix every alternative shares is still required
                current.append(lead)
                flush()
        elif op is SUBPATTERN:
            flush()
            take(_requirement(av[3]))
        elif op in (MAX_REPEAT, MIN_REPEAT):
            flush()
            if av[0] >= 1:
                take(_requirement(av[2]))
        else:
            flush()
    flush()
    return requires, runs


def required_literals(pattern: str) -> list[str]:
    """The literal runs (of ``MIN_RUN``+ characters) that name ``pattern``: the runs every match
    contains, and for an alternation whose every alternative requires a run, every alternative's
    runs. None at all when some match contains no such run (``.+``, ``abc|.+``, ``^(?:abc|.*)$``:
    such a pattern requires nothing, whatever its other alternatives require). A pattern that does not
    parse requires nothing."""
    try:
        seq = sre_parse.parse(pattern)
    except re.error:
        return []
    requires, runs = _requirement(seq)
    return [run for run in runs if len(run.strip()) >= MIN_RUN] if requires else []


def pattern_named(pattern: str, goal: str, ids: Container[str] = frozenset()) -> bool:
    """Whether the goal names ``pattern``: the pattern requires a literal run on every way of matching
    it, and the goal contains one of its runs (one alternative's suffices: ``harbour|harbor`` is named
    by a goal that says "harbour"), or such a run is a stable id of the initial state (a comment that
    must cite issue ``PLT-305``: the agent discovers the id, as it discovers the ids a guard names)."""
    return any(run in goal or run.strip() in ids for run in required_literals(pattern))


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
        return value in goal or value in present or value in ids  # (the ids are the costlier to make)
    return any(_whole_number_in(r, goal) for r in number_renderings(value)) or str(value) in ids


__all__ = ["MIN_RUN", "number_renderings", "pattern_named", "required_literals", "state_strings", "value_named"]
