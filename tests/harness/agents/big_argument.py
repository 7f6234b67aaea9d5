"""Sends one 10 MB argument, then solves nothing."""
import os
import sys

sys.path.insert(0, os.environ["MCPBENCH_AGENT_LIB"])
from mcpbench.agents._mcp_http import MCPHttpClient, MCPProtocolError

with MCPHttpClient(os.environ["MCPBENCH_MCP_URL"]) as client:
    try:
        client.call_tool("read_text_file", {"path": "x" * (10 * 1024 * 1024)})
    except MCPProtocolError as exc:
        print(f"refused: {exc}")
