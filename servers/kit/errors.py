"""The errors of a server state that does not load, and how their messages name the offending field.

Their own module, below both ``state`` (the model) and ``world`` (the generators and patches), so
neither has to import the other to raise or format one.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError


class StateError(ValueError):
    """A server state that does not fit its model; the message names the field."""


def format_validation_error(exc: ValidationError, prefix: str = "") -> str:
    """One line per problem: ``prefix.path.to.field: message``."""
    lines = []
    for err in exc.errors():
        path = json_path(err["loc"], prefix)
        lines.append(f"{path}: {err['msg']}")
    return "\n".join(lines)


def json_path(loc: tuple[Any, ...] | list[Any], prefix: str = "") -> str:
    """Render a location tuple as a JSON path: ``prefix.a.b[2].c``."""
    out = prefix
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "$"


__all__ = ["StateError", "format_validation_error", "json_path"]
