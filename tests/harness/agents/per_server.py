"""Works a cross-server task through the gateway's per-server addresses (MCPBENCH_MCP_URLS): lists each
server's tools there and makes the calls of MCPBENCH_TEST_PLAN ([[server, tool, arguments], ...]) at
its server's own address, by the tool's own name. Prints what it saw as one JSON line."""
import json
import os
import sys

sys.path.insert(0, os.environ.get("MCPBENCH_AGENT_LIB", "/opt/mcpbench"))
from mcpbench.agents._mcp_http import MCPHttpClient

urls = json.loads(os.environ["MCPBENCH_MCP_URLS"])
seen = {"servers": sorted(urls), "tools": {}, "answers": []}
clients = {server: MCPHttpClient(url) for server, url in urls.items()}
for server, client in clients.items():
    client.initialize()
    seen["tools"][server] = sorted(t["name"] for t in client.list_tools())
for server, tool, arguments in json.loads(os.environ["MCPBENCH_TEST_PLAN"]):
    is_error, text = clients[server].call_tool(tool, arguments)
    seen["answers"].append([is_error, text[:200]])
for client in clients.values():
    client.close()
print(json.dumps(seen))
