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
    render_scalar,
    server_entities,
)
from tasks_catalog.frames._judge import (
    CHANGES,
    Change,
    Extracted,
    Violation,
    diff,
    exact_form,
    frame_violations,
    json_equal,
    judge,
    summarize,
    summarize_counts,
)


def check_frame(frame: Iterable[Any], server: str | Sequence[str], path: str = "$.frame") -> list[tuple[str, str]]:
    """Problems of a frame for a task of ``server`` (or of several servers, a cross-server task's):
    (JSON path, message) for an allowance naming an entity kind its server does not declare, a server
    the task does not name, or a field the kind does not have."""
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
        server = prefix
        entities = server_entities(server)
        kind = entities.kind(name)
        if kind is None:
            known = ", ".join(f"{server}.{k.name}" for k in entities.kinds)
            problems.append((f"{here}.entity", f"{server} has no entity kind {name!r}; kinds: {known}"))
            continue
        fields = None if kind.fields is None else set(kind.fields)
        for key in ("where", "fields"):
            names = a.get(key) or []
            for field in names:
                if fields is not None and field not in fields:
                    problems.append((f"{here}.{key}.{field}" if key == "where" else f"{here}.{key}",
                                     f"{kind.qualified} has no field {field!r}; fields: {', '.join(kind.fields or ())}"))
        if a.get("fields") is not None and "update" not in a.get("change", ["update"]):
            problems.append((f"{here}.fields", "fields limits updates, but this allowance allows no update"))
    return problems


__all__ = ["CHANGES", "DECLARATION_PATH", "Change", "DeclarationError", "Extracted", "Kind", "ServerEntities", "Violation",
           "check_frame", "declaration", "diff", "exact_form", "extract", "frame_violations", "json_equal", "judge",
           "render_scalar", "server_entities", "summarize", "summarize_counts"]
