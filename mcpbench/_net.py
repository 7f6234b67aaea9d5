"""Where a server listens: whether an address keeps it on this machine (``mcpbench serve``, ``mcpbench view``)."""

from __future__ import annotations

import ipaddress


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the server on this machine: ``localhost`` or a loopback address
    (127.0.0.0/8, ::1). Any other name counts as reachable from elsewhere."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


__all__ = ["is_loopback"]
