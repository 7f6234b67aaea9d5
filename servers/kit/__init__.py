"""The shared kit every mock server is built with: state model, tools, MCP server."""

from servers.kit.calls import CALL_WALL_LIMIT_S, CallQueue, CallTimeout
from servers.kit.errors import StateError, format_validation_error, json_path
from servers.kit.spec import ServerSpec, build_mcp_server, shared_mcp_server
from servers.kit.state import Model, ServerState
from servers.kit.tools import (
                               MAX_ARGUMENT_CHARS,
                               MAX_QUERY_CHARS,
                               MAX_RESULT_CHARS,
                               ToolError,
                               Toolset,
                               bind_toolset,
                               tool,
                               unbind_toolset,
)
from servers.kit.world import WorldError, WorldGenerator

__all__ = [
    "CALL_WALL_LIMIT_S",
    "CallQueue",
    "CallTimeout",
    "MAX_ARGUMENT_CHARS",
    "MAX_QUERY_CHARS",
    "MAX_RESULT_CHARS",
    "Model",
    "ServerSpec",
    "ServerState",
    "StateError",
    "ToolError",
    "Toolset",
    "bind_toolset",
    "build_mcp_server",
    "shared_mcp_server",
    "format_validation_error",
    "json_path",
    "tool",
    "unbind_toolset",
    "WorldError",
    "WorldGenerator",
]
