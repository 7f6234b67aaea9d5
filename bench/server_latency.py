"""Per-server tool-call latency, in memory and over streamable HTTP on loopback (median and p99).

    python bench/server_latency.py [--calls 300] [--no-write]

Each server starts from its first dev task's initial state and repeats that task's first read-only
reference call (or its first call). In memory: the official SDK client connected in-process. HTTP:
the server's streamable HTTP app under uvicorn on 127.0.0.1, driven by the SDK client over one
session. Prints a section and appends it to bench/history/servers.md (bench/record.py); the tool-call
rows of bench/RESULTS.md are then updated by hand.
"""

from __future__ import annotations

import argparse
import os
import platform
import socket
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mcp import Client  # noqa: E402
from record import record  # noqa: E402

from servers import SERVER_NAMES, get_spec  # noqa: E402
from servers.kit import build_mcp_server  # noqa: E402
from tasks_catalog.loader import load_valid_tasks  # noqa: E402


def pick_call(task):
    marks = dict(get_spec(task.server).toolset.tool_marks())
    for call in task.reference_solution:
        if marks[call.tool].read_only:
            return call
    return task.reference_solution[0]


async def timed(client: Client, call, n: int) -> list[float]:
    await client.call_tool(call.tool, call.arguments)  # warm-up
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        await client.call_tool(call.tool, call.arguments)
        out.append((time.perf_counter() - t0) * 1000)
    return out


async def measure(server: str, n: int) -> tuple[str, str, list[float], list[float]]:
    import uvicorn

    task = load_valid_tasks([ROOT / "tasks_catalog" / "dev" / server])[0]
    call = pick_call(task)
    spec = get_spec(server)
    with spec.open(task.initial_state) as tools:
        async with Client(build_mcp_server(spec, tools)) as client:
            memory = await timed(client, call, n)
    with spec.open(task.initial_state) as tools:
        app = build_mcp_server(spec, tools).streamable_http_app(json_response=True)
        sock = socket.socket()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind(("127.0.0.1", 0))
        uv = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
        async with anyio.create_task_group() as tg:
            tg.start_soon(uv.serve, [sock])
            while not uv.started:
                await anyio.sleep(0.01)
            async with Client(f"http://127.0.0.1:{sock.getsockname()[1]}/mcp") as client:
                http = await timed(client, call, n)
            uv.should_exit = True
    return server, call.tool, memory, http


def p99(values: list[float]) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(0.99 * len(values)))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--no-write", action="store_true", help="print the section, do not append it")
    args = ap.parse_args()
    rows = [anyio.run(measure, s, args.calls) for s in SERVER_NAMES]
    lines = [
        f"\n## Server tool-call latency ({datetime.now(UTC):%Y-%m-%d %H:%M} UTC)\n",
        f"Machine: {os.cpu_count()} cores, {platform.system()} {platform.release()}, Python {platform.python_version()}, "
        f"1-min load average {os.getloadavg()[0]:.2f} at the end. `python bench/server_latency.py --calls {args.calls}`; "
        "the official SDK client, one session, ms per call.\n",
        "| server | tool | in memory median | in memory p99 | streamable HTTP median | streamable HTTP p99 |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for server, tool, memory, http in rows:
        lines.append(f"| {server} | {tool} | {statistics.median(memory):.2f} | {p99(memory):.2f} | "
                     f"{statistics.median(http):.2f} | {p99(http):.2f} |")
    record("servers", "\n".join(lines), write=not args.no_write)


if __name__ == "__main__":
    main()
