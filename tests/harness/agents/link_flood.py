"""Bypasses the forwarder: opens thousands of connections straight to the link sockets and holds
them, on the runs named by MCPBENCH_FLOOD_TASK (task ids, comma-separated); on any other task it is
the oracle baseline. With MCPBENCH_FLOOD_PAUSE_AT=N and MCPBENCH_FLOOD_GO=<path>, it holds N
connections until <path> exists before it goes on."""
import glob
import os
import socket
import sys
import time

flooded = os.environ["MCPBENCH_FLOOD_TASK"].split(",")
if not any(os.environ["MCPBENCH_RUN_ID"].endswith("--" + task) for task in flooded):
    os.execv(sys.executable, [sys.executable, "-S", "-m", "mcpbench.agents.baselines", "oracle"])

pause_at = int(os.environ.get("MCPBENCH_FLOOD_PAUSE_AT", "0"))
held = []
paths = glob.glob("/run/mcpbench/link/*.sock")
print(f"flooding {paths}", flush=True)
for _ in range(15_000):
    if pause_at and len(held) == pause_at:
        print(f"holding {pause_at} connections until told to go on", flush=True)
        while not os.path.exists(os.environ["MCPBENCH_FLOOD_GO"]):
            time.sleep(0.05)
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
