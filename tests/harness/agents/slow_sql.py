"""Sends five queries that each run into the postgres server's statement time limit, then ends."""
import os
import sys
import time

sys.path.insert(0, os.environ["MCPBENCH_AGENT_LIB"])
from mcpbench.agents._mcp_http import MCPHttpClient

QUERY = "SELECT sum(hash(i)) FROM range(1000000000000) t(i)"  # minutes of work, in constant memory
with MCPHttpClient(os.environ["MCPBENCH_MCP_URL"]) as client:
    for _ in range(5):
        began = time.perf_counter()
        is_error, text = client.call_tool("query", {"sql": QUERY})
        print(f"{time.perf_counter() - began:.1f} s: {text[:160]}", flush=True)
