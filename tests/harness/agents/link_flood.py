"""Bypasses the forwarder: opens thousands of connections straight to the link sockets and holds
them, on the run named by MCPBENCH_FLOOD_TASK; on any other task it is the oracle baseline."""
import glob
import os
import socket
import sys
import time

if not os.environ["MCPBENCH_RUN_ID"].endswith("--" + os.environ["MCPBENCH_FLOOD_TASK"]):
    os.execv(sys.executable, [sys.executable, "-S", "-m", "mcpbench.agents.baselines", "oracle"])

held = []
paths = glob.glob("/run/mcpbench/link/*.sock")
print(f"flooding {paths}", flush=True)
for _ in range(15_000):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(paths[0])
    except OSError as exc:
        print(f"after {len(held)} connections: {exc}", flush=True)
        s.close()
        break
    held.append(s)
print(f"holding {len(held)} connections", flush=True)
time.sleep(600)
