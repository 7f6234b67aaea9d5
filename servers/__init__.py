"""The ten mock MCP servers. Each ``servers/<name>`` package exposes ``SPEC``, a ``ServerSpec``."""

from __future__ import annotations

import importlib

from servers.kit import ServerSpec

SERVER_NAMES: tuple[str, ...] = (
    "filesystem",
    "github",
    "postgres",
    "slack",
    "gmail",
    "browser",
    "calendar",
    "linear",
    "stripe",
    "notion",
)


class UnknownServerError(KeyError):
    def __str__(self) -> str:
        return f"unknown server {self.args[0]!r}; the servers are: {', '.join(SERVER_NAMES)}"


def get_spec(name: str) -> ServerSpec:
    """The spec of server ``name`` (imported on first use)."""
    if name not in SERVER_NAMES:
        raise UnknownServerError(name)
    return importlib.import_module(f"servers.{name}").SPEC


def all_specs() -> list[ServerSpec]:
    return [get_spec(name) for name in SERVER_NAMES]


__all__ = ["SERVER_NAMES", "ServerSpec", "UnknownServerError", "all_specs", "get_spec"]
