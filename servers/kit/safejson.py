"""Reading JSON documents that may be hostile: nesting is bounded before the recursive parser runs.

Python's ``json`` (and pydantic, and RFC 8785 canonicalisation after it) recurse once per level, so
a file nested 100,000 levels deep raises ``RecursionError`` and takes a whole command down. No task,
template, month or server state needs more than a few dozen levels (a state is part of a task
document, so it gets the same bound); a document deeper than ``MAX_DEPTH`` is refused with the JSON
path where it goes too deep, found by a scan that does not recurse. Used by the task loader, the
template pool and ``ServerState.load`` (``mcpbench serve --state``).
"""

from __future__ import annotations

import json
import re
from typing import Any

#: The deepest nesting of objects and arrays a task document (or a server state) may have.
MAX_DEPTH = 100

_STRUCTURE = re.compile(r'["{}\[\],]')
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NAME = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$-]*$")
_SHOWN = 8  # path components shown before the path is elided


class NestingError(ValueError):
    """A document nests deeper than ``MAX_DEPTH``; ``path`` is where it first does."""

    def __init__(self, path: str, limit: int) -> None:
        self.path = path
        super().__init__(f"nested more than {limit} levels deep (no task or server state needs that many)")


def too_deep(text: str, limit: int = MAX_DEPTH) -> str | None:
    """The JSON path where ``text`` first nests deeper than ``limit``, or None. Does not validate:
    malformed JSON is left for the parser to report."""
    stack: list[list[Any]] = []  # ["obj", current key] or ["arr", current index]
    expect_key = False
    i = 0
    while True:
        m = _STRUCTURE.search(text, i)
        if m is None:
            return None
        c, i = m.group(), m.start()
        if c == '"':
            s = _STRING.match(text, i)
            if s is None:
                return None
            if expect_key and stack and stack[-1][0] == "obj":
                stack[-1][1] = _unquote(s.group())
                expect_key = False
            i = s.end()
            continue
        if c in "{[":
            if len(stack) >= limit:
                return _path(stack)
            stack.append(["obj", None] if c == "{" else ["arr", 0])
            expect_key = c == "{"
        elif c in "}]":
            if stack:
                stack.pop()
            expect_key = False
        elif stack:  # a comma
            if stack[-1][0] == "arr":
                stack[-1][1] += 1
            else:
                expect_key = True
        i += 1


def loads(text: str, limit: int = MAX_DEPTH) -> Any:
    """``json.loads`` for untrusted text: ``NestingError`` instead of ``RecursionError``."""
    where = too_deep(text, limit)
    if where is not None:
        raise NestingError(where, limit)
    try:
        return json.loads(text)
    except RecursionError:  # a limit above what this interpreter's stack allows
        raise NestingError("$", limit) from None


def _unquote(quoted: str) -> str:
    try:
        return json.loads(quoted)
    except ValueError:
        return quoted[1:-1]


def _path(stack: list[list[Any]]) -> str:
    parts = []
    for kind, at in stack:
        if kind == "arr":
            parts.append(f"[{at}]")
        elif at is None:
            parts.append(".?")
        else:
            parts.append(f".{at}" if _NAME.match(at) else f"[{json.dumps(at)}]")
    shown = "".join(parts[:_SHOWN])
    return "$" + shown + (f"…({len(parts) - _SHOWN} more levels)" if len(parts) > _SHOWN else "")


__all__ = ["MAX_DEPTH", "NestingError", "loads", "too_deep"]
