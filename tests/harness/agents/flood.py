"""Makes 10,000 calls as fast as it can."""
import os
import sys

sys.path.insert(0, os.environ["MCPBENCH_AGENT_LIB"])
from mcpbench.agents._mcp_http import MCPHttpClient

with MCPHttpClient(os.environ["MCPBENCH_MCP_URL"]) as client:
    for _ in range(10_000):
        client.call_tool("list_directory", {"path": "."})
