"""The frame (issue 10): what a task lets the agent change. Judging diffs the initial and the final
state entity by entity, keyed by stable ids (``entities.json``), and every created, deleted or
changed entity must be allowed by an allowance of the task's frame. See docs/frames.md."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from tasks_catalog.frames._entities import (
    DECLARATION_PATH,
    DeclarationError,
    Kind,
    ServerEntities,
    declaration,
    extract,
    extract_at,
    locate,
    parent_id,
    render_scalar,
    row_columns,
    server_entities,
)
from tasks_catalog.frames._judge import (
    CHANGES,
    Change,
    ExactSame,
    Extracted,
    Violation,
    allowance_counts,
    allowed_by,
    diff,
    exact_form,
    frame_violations,
    json_equal,
    judge,
    same_members,
    scoped_diff,
    share_unchanged,
    summarize,
    summarize_counts,
    with_entity,
)
from tasks_catalog.frames._values import (
    FORMS,
    changed_units,
    constraint_problem,
    form_of,
    holds,
    split_unit,
    unit_value,
)
from tasks_catalog.predicates._registry import _compiles


def check_frame(frame: Iterable[Any], server: str | Sequence[str], path: str = "$.frame") -> list[tuple[str, str]]:
    """Problems of a frame for a task of ``server`` (or of several servers, a cross-server task's):
    (JSON path, message) for an allowance naming an entity kind its server does not declare, a server
    the task does not name, a field the kind does not have, a key the allowance cannot use with that
    kind (``copy``, ``parent``), or a malformed constraint of ``values``."""
    def pattern_problem(pattern: str) -> str | None:
        try:
            _compiles(pattern)
        except ValueError as exc:
            return f"matches: {exc}"
        return None

    problems: list[tuple[str, str]] = []
    servers = (server,) if isinstance(server, str) else tuple(server)
    for i, allowance in enumerate(frame):
        a = allowance if isinstance(allowance, dict) else allowance.model_dump(mode="json", exclude_none=True)
        here = f"{path}[{i}]"
        prefix, _, name = str(a.get("entity", "")).partition(".")
        if prefix not in servers:
            problems.append((f"{here}.entity", f"{a.get('entity')!r} is not an entity of {servers[0]} (write "
                             f"'{servers[0]}.<kind>')" if len(servers) == 1 else f"{a.get('entity')!r} is not an "
                             f"entity of this task's servers (write '<server>.<kind>', the server one of "
                             f"{', '.join(servers)})"))
            continue
        entities = server_entities(prefix)
        kind = entities.kind(name)
        if kind is None:
            known = ", ".join(f"{prefix}.{k.name}" for k in entities.kinds)
            problems.append((f"{here}.entity", f"{prefix} has no entity kind {name!r}; kinds: {known}"))
            continue
        fields = None if kind.fields is None else set(kind.fields)
        for key in ("where", "fields", "values"):
            for j, unit in enumerate(a.get(key) or []):
                field, _ = split_unit(unit, fields)
                if fields is not None and field not in fields:
                    at = f"{here}.{key}.{unit}" if key != "fields" else f"{here}.fields[{j}]"
                    problems.append((at, f"{kind.qualified} has no field {field!r}; fields: {', '.join(kind.fields or ())}"))
        change = a.get("change", ["update"])
        if a.get("fields") is not None and "update" not in change:
            problems.append((f"{here}.fields", "fields limits updates, but this allowance allows no update"))
        for unit, constraint in (a.get("values") or {}).items():
            problem = constraint_problem(constraint, pattern_problem)
            if problem is not None:
                problems.append((f"{here}.values.{unit}", problem))
        if a.get("values") and not set(change) - {"delete"}:
            problems.append((f"{here}.values", "values limits what a create, copy or update makes, but this allowance "
                                               "allows only deletes"))
        if "copy" in change and not kind.copy:
            problems.append((f"{here}.change", f"{kind.qualified} has no copies (only kinds that declare copy fields do: "
                                               f"{', '.join(k.qualified for k in entities.kinds if k.copy) or 'none here'})"))
        if a.get("parent") is not None and kind.parent is None:
            problems.append((f"{here}.parent", f"{kind.qualified} lives in no other entity, so parent says nothing"))
    return problems


__all__ = ["CHANGES", "DECLARATION_PATH", "FORMS", "Change", "ExactSame", "allowance_counts", "allowed_by", "DeclarationError", "Extracted", "Kind", "ServerEntities",
           "Violation", "changed_units", "check_frame", "constraint_problem", "declaration", "diff", "exact_form", "extract", "extract_at",
           "form_of", "frame_violations", "holds", "json_equal", "judge", "locate", "parent_id", "row_columns", "render_scalar", "same_members", "scoped_diff", "server_entities", "share_unchanged",
           "split_unit", "summarize", "summarize_counts", "unit_value", "with_entity"]
