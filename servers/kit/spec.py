"""A server is a name, a state model and a toolset; ``build_mcp_server`` turns one into an ``MCPServer``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from servers.kit.state import ServerState
from servers.kit.tools import Toolset, as_async_tool
from servers.kit.world import load_world


@dataclass(frozen=True)
class ServerSpec:
    """Everything the harness, the verifier and the CLI need to know about one mock server."""

    name: str
    description: str
    toolset: type[Toolset]

    @property
    def state_model(self) -> type[ServerState]:
        return self.toolset.state_model

    def tool_names(self) -> list[str]:
        return self.toolset.tool_names()

    def load_state(self, data: dict[str, Any] | str) -> ServerState:
        return self.state_model.load(data)

    def open(self, state: ServerState | dict[str, Any]) -> Toolset:
        """A fresh live backend over a copy of ``state``; close it when done (it is a context manager)."""
        if isinstance(state, dict) and "world" in state:
            state = load_world(self.state_model, state, copy=False)  # the toolset copies it
        elif not isinstance(state, ServerState):
            state = self.load_state(state)
        return self.toolset(state)


@cache
def _tool_definitions(spec: ServerSpec) -> dict[str, Any]:
    """The MCP tool definitions of ``spec`` (schemas and argument-validation models: the costly part of
    building a server), built once per process, acting on whichever toolset ``bind_toolset`` bound."""
    from mcp.server.mcpserver.tools import Tool
    from mcp.types import ToolAnnotations

    return {name: Tool.from_function(
        as_async_tool(spec.toolset, name),
        name=name,
        annotations=ToolAnnotations(
            read_only_hint=mark.read_only,
            destructive_hint=mark.destructive,
            idempotent_hint=mark.idempotent,
            open_world_hint=False,
        ),
        structured_output=False,
    ) for name, mark in spec.toolset.tool_marks()}


def build_mcp_server(spec: ServerSpec, tools: Toolset | None, only: Iterable[str] | None = None):
    """An ``MCPServer`` exposing the tools of ``spec`` (all of them, or just ``only``), acting on
    ``tools`` — or, when ``tools`` is None, on whichever toolset ``bind_toolset`` bound to the call.
    The tool definitions are built once per server kind and shared by every server built."""
    from mcp.server.mcpserver import MCPServer

    wanted = None if only is None else set(only)
    chosen = []
    for name, definition in _tool_definitions(spec).items():
        if wanted is not None and name not in wanted:
            continue
        if tools is not None:  # the same definition, calling this backend unless another is bound
            definition = definition.model_copy(update={"fn": as_async_tool(spec.toolset, name, default=tools)})
        chosen.append(definition)
    return MCPServer(f"mcpbench-{spec.name}", version=_version(), instructions=spec.description,
                     log_level="WARNING", tools=chosen)


@cache
def _version() -> str:
    """The version a server reports in its ``serverInfo`` (clients show and log it): the project's."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mcpbench")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "0+unknown"


@cache
def shared_mcp_server(spec: ServerSpec):
    """One server per kind, built once per process, for calls that bind their own backend (the gateway)."""
    return build_mcp_server(spec, None)
