"""The defaults the attestation hash fills in, read from the committed ``task.schema.json`` (no pydantic,
so ``mcpbench tasks hash --help`` lists them cheaply and always as the published schema has them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SCHEMA_FILE = Path(__file__).with_name("task.schema.json")


def exported_defaults(schema: dict[str, Any] | None = None) -> list[str]:
    """``"<path>: <default as JSON>"`` for every non-null default of the task schema, at each path
    where it applies (``faults[].times: 1``), in schema order."""
    if schema is None:
        schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    defs = schema.get("$defs", {})
    out: list[str] = []

    def resolve(node: dict[str, Any], refs: tuple[str, ...]) -> tuple[dict[str, Any], tuple[str, ...]]:
        while "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[1]
            if name in refs:  # a recursive model: its defaults are listed once, where it first appears
                return {}, refs
            node, refs = defs[name], refs + (name,)
        return node, refs

    def walk(node: dict[str, Any], path: str, refs: tuple[str, ...]) -> None:
        node, refs = resolve(node, refs)
        for branch in node.get("anyOf", []):
            if branch.get("type") != "null":
                walk(branch, path, refs)
        for name, prop in node.get("properties", {}).items():
            here = f"{path}.{name}" if path else name
            if prop.get("default") is not None:
                out.append(f"{here}: {json.dumps(prop['default'])}")
            walk(prop, here, refs)
        if isinstance(node.get("items"), dict):
            walk(node["items"], f"{path}[]", refs)

    walk(schema, "", ())
    return out


__all__ = ["SCHEMA_FILE", "exported_defaults"]
