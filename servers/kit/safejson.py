"""Reading JSON documents that may be hostile: size and nesting are bounded before the parser runs.

A task, template or server-state file is refused by size first (``MAX_BYTES``, read with
:func:`read_document`, which never reads more than one byte past the bound): parsing and validating a
document takes many times its size in memory (a 50 MB task file took 6.26 GB), and no real one comes
near the bound (the largest template in the repository is about 60 kB).

Python's ``json`` (and pydantic, and RFC 8785 canonicalisation after it) recurse once per level, so
a file nested 100,000 levels deep raises ``RecursionError`` and takes a whole command down. No task,
template, month or server state needs more than a few dozen levels (a state is part of a task
document, so it gets the same bound); a document deeper than ``MAX_DEPTH`` is refused with the JSON
path where it goes too deep, found by a scan that does not recurse. Used by the task loader, the
template pool and ``ServerState.load`` (``mcpbench serve --state``).
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

#: The deepest nesting of objects and arrays a task document (or a server state) may have.
MAX_DEPTH = 100
#: The largest task, template or server-state file read, in bytes (4 MiB).
MAX_BYTES = 4 * 1024 * 1024

_STRUCTURE = re.compile(r'["{}\[\],]')
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NAME = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$-]*$")
_SHOWN = 8  # path components shown before the path is elided


class NestingError(ValueError):
    """A document nests deeper than ``MAX_DEPTH``; ``path`` is where it first does."""

    def __init__(self, path: str, limit: int) -> None:
        self.path = path
        super().__init__(f"nested more than {limit} levels deep (no task or server state needs that many)")


class TooLargeError(ValueError):
    """A document larger than its bound, refused before it was read whole or parsed."""

    def __init__(self, source: str, limit: int) -> None:
        self.source, self.limit = source, limit
        self.reason = (f"larger than {limit:,} bytes, the most a task, template or server state may be; "
                       "refused before parsing")
        super().__init__(f"{source}: {self.reason}")


def read_document(path: str | os.PathLike[str], limit: int = MAX_BYTES) -> str:
    """The UTF-8 text of the file at ``path``; :class:`TooLargeError` naming the file and ``limit`` when it
    holds more than ``limit`` bytes (read no further than one byte past it: a device or a pipe that never
    ends is refused too). ``OSError`` and ``UnicodeDecodeError`` as ``open`` and ``decode`` raise them."""
    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size > limit:
            raise TooLargeError(os.fspath(path), limit)
        data = f.read(limit + 1)
    if len(data) > limit:
        raise TooLargeError(os.fspath(path), limit)
    return data.decode("utf-8")


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
                stack[-1][1] = s  # the key's match: unquoted only if a path is reported (``_path``)
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
            key = _unquote(at.group())
            parts.append(f".{key}" if _NAME.match(key) else f"[{json.dumps(key)}]")
    shown = "".join(parts[:_SHOWN])
    return "$" + shown + (f"…({len(parts) - _SHOWN} more levels)" if len(parts) > _SHOWN else "")


__all__ = ["MAX_BYTES", "MAX_DEPTH", "NestingError", "TooLargeError", "loads", "read_document", "too_deep"]
