"""Small value rules several servers share: email addresses and fresh sequential ids."""

from __future__ import annotations

import re

_ADDRESS = re.compile(r"^[A-Za-z0-9._%+'-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$")


def check_address(address: str) -> str:
    """A bare email address (``name@example.com``), or ``ValueError`` saying why not."""
    if not isinstance(address, str) or not _ADDRESS.match(address):
        raise ValueError(f"{address!r} is not a bare email address like name@example.com")
    return address


def next_id(prefix: str, taken: set[str]) -> str:
    """The first ``<prefix><n>`` not in ``taken``, counting from ``len(taken) + 1``: deterministic, so a
    reference solution can name what it creates."""
    n = len(taken) + 1
    while f"{prefix}{n}" in taken:
        n += 1
    return f"{prefix}{n}"
