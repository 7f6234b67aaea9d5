"""Opens 40 connections to the gateway's address, one after another, and holds them."""
import os
import socket
import time

host, _, rest = os.environ["MCPBENCH_MCP_URL"].removeprefix("http://").partition(":")
port = int(rest.partition("/")[0])
held = [socket.create_connection((host, port), timeout=10) for _ in range(40)]
print("holding", len(held), flush=True)
time.sleep(600)
