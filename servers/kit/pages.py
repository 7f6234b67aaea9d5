"""Cursor pagination for list and search tools, as real APIs do it.

A cursor is opaque to the agent (base64 of the listing's name and an offset, like Slack's
``next_cursor``); an empty next cursor means the last page. A cursor from another listing, or one
that is not ours, is refused with a clear tool error instead of silently restarting.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Annotated, TypeVar

from pydantic import Field

from servers.kit.tools import ToolError

T = TypeVar("T")

Cursor = Annotated[str, Field(max_length=200, description="next_cursor from the previous page; omit for the first page")]


def make_cursor(listing: str, offset: int) -> str:
    return base64.urlsafe_b64encode(f"{listing}:{offset}".encode()).decode().rstrip("=")


def read_cursor(listing: str, cursor: str | None) -> int:
    """The offset ``cursor`` points at (0 for none)."""
    if not cursor:
        return 0
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        name, _, offset = raw.rpartition(":")
        value = int(offset)
    except (ValueError, UnicodeDecodeError):
        raise ToolError(f"invalid_cursor: {cursor!r} is not a cursor this server returned") from None
    if name != listing or value < 0:
        raise ToolError(f"invalid_cursor: {cursor!r} belongs to another listing; pass the next_cursor this call returned")
    return value


def page(items: Sequence[T], listing: str, cursor: str | None, limit: int) -> tuple[list[T], str]:
    """One page of ``items`` and the cursor of the next page ('' on the last page).

    ``listing`` names the listing and its filters, so a cursor cannot be replayed against another."""
    start = read_cursor(listing, cursor)
    chunk = list(items[start:start + limit])
    end = start + len(chunk)
    return chunk, make_cursor(listing, end) if end < len(items) else ""


__all__ = ["Cursor", "make_cursor", "page", "read_cursor"]
