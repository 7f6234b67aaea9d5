"""Small helpers shared by the x-t data and finance templates (``x_t_*`` modules): the generated
version-2 worlds of one organisation seed, the order database's rows as mappings, and the step budget
of the gate's rule. Private to those modules; the lead may fold them into the package's helpers."""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from servers.kit.world import get_generator
from servers.org import organisation


@lru_cache(maxsize=8)
def org(seed: int):
    """The organisation of ``seed`` (version 1 of the organisation model, which every version-2 world projects)."""
    return organisation(1, seed)


@lru_cache(maxsize=32)
def world(server: str, seed: int) -> dict[str, Any]:
    """The version-2, default-size world of ``server`` for ``seed``, as the agent's server starts from it
    (before a patch). Callers must not mutate it."""
    return get_generator(server, 2).generate(seed)


def pg_rows(seed: int, table: str) -> list[dict[str, Any]]:
    """The rows of ``table`` in the order database of ``seed``, each as a column -> value mapping."""
    for t in world("postgres", seed)["tables"]:
        if t["name"] == table:
            names = [c["name"] for c in t["columns"]]
            return [dict(zip(names, row, strict=True)) for row in t["rows"]]
    raise KeyError(f"no table {table!r} in the order database of seed {seed}")


def pg_row(row: dict[str, Any], **changes: Any) -> list[Any]:
    """A row mapping as the patch's list of values, with ``changes`` applied."""
    return list({**row, **changes}.values())


def state(server: str, patch: Any = ()) -> dict[str, Any]:
    """A server's initial state: the world of the case's seed and ``patch`` (a placeholder or a list)."""
    return {"world": {"generator": server, "version": 2, "seed": "{{case.seed}}", "size": "default"},
            "patch": patch if isinstance(patch, str) else list(patch)}


def budget(calls: int, forced: int = 0) -> int:
    """The most steps the gate allows a reference of ``calls`` calls (plus ``forced`` failed attempts)."""
    return max(math.ceil(1.5 * calls), calls + 3) + forced


def sql_text(value: str) -> str:
    """``value`` as a SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


def rx(text: str) -> str:
    """``text`` as a pattern matching it literally, escaping only what both regex dialects read as special."""
    return "".join("\\" + ch if ch in ".^$*+?()[]{}|\\/" else ch for ch in text)
