"""Small helpers shared by the x-t data and finance templates (``x_t_*`` modules): the generated
version-2 worlds of one organisation seed, the order database's rows as mappings, and the step budget
of the gate's rule. Private to those modules; the lead may fold them into the package's helpers."""

from __future__ import annotations

from typing import Any

from tasks_catalog.authoring.cross import world


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


def sql_text(value: str) -> str:
    """``value`` as a SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


def rx(text: str) -> str:
    """``text`` as a pattern matching it literally, escaping only what both regex dialects read as special."""
    return "".join("\\" + ch if ch in ".^$*+?()[]{}|\\/" else ch for ch in text)
