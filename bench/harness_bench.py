"""Harness costs: per-task overhead with the oracle, the gateway's added latency per call, the fixed
cost of ``mcpbench run`` before its first task, and the dev set's wall time at concurrency 1 and 4.

    python bench/harness_bench.py [--calls 300] [--sandbox local] [--no-write]

Prints a section and appends it to bench/history/harness.md (bench/record.py); the harness rows of
bench/RESULTS.md are then updated by hand. Overhead is the run's duration less the agent process's own
wall time (``RunRecord.harness_ms``): backend build, gateway, sandbox setup, verification. Landing
is measured apart.
"""

from __future__ import annotations

import argparse
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from record import record  # noqa: E402

from mcpbench.agents._mcp_http import MCPHttpClient  # noqa: E402
from mcpbench.agents.spec import parse_agent  # noqa: E402
from mcpbench.gateway import Gateway, GatewayHost  # noqa: E402
from mcpbench.runner import Submission, run_tasks  # noqa: E402
from mcpbench.sandbox import get_sandbox  # noqa: E402
from runstore.store import open_store  # noqa: E402
from servers import get_spec  # noqa: E402
from servers.kit import build_mcp_server  # noqa: E402
from tasks_catalog.loader import load_valid_tasks  # noqa: E402


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def gateway_vs_direct(calls: int) -> dict[str, float]:
    """Median ms per call: the same tool over streamable HTTP, directly and through the gateway."""
    import uvicorn

    task = load_valid_tasks([ROOT / "tasks_catalog/dev/filesystem"])[0]
    spec = get_spec("filesystem")

    def drive(url: str) -> list[float]:
        out = []
        with MCPHttpClient(url) as c:
            for _ in range(calls // 5):
                t0 = time.perf_counter()
                c.call_tool("list_directory", {"path": "notes"})
                out.append((time.perf_counter() - t0) * 1000)
        return out

    async def main():
        # Both servers run side by side and are driven in alternating rounds, so warm-up, caches and
        # background load fall on both alike.
        direct: list[float] = []
        via: list[float] = []
        with spec.open(task.initial_state) as tools, spec.open(task.initial_state) as gw_tools:
            app = build_mcp_server(spec, tools).streamable_http_app(json_response=True)
            sock = socket.socket()
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.bind(("127.0.0.1", 0))
            server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
            async with anyio.create_task_group() as tg, GatewayHost().running() as host:
                tg.start_soon(server.serve, [sock])
                while not server.started:
                    await anyio.sleep(0.01)
                gw = Gateway(task.model_copy(update={"max_steps": 10 * calls + 10}), gw_tools, run_id="b",
                             submission_id="b")
                async with host.serve(gw) as path:
                    for _ in range(5):
                        direct += await anyio.to_thread.run_sync(drive, f"http://127.0.0.1:{sock.getsockname()[1]}/mcp")
                        via += await anyio.to_thread.run_sync(drive, f"http://127.0.0.1:{host.port}{path}")
                server.should_exit = True
        return direct, via

    direct, via = anyio.run(main)
    return {"direct": statistics.median(direct), "gateway": statistics.median(via),
            "direct_p99": pct(direct, 0.99), "gateway_p99": pct(via, 0.99)}


def dev_runs(concurrency: int, sandbox: str):
    tasks = load_valid_tasks([ROOT / "tasks_catalog/dev"])
    sub = Submission(f"bench-c{concurrency}", "bench", "oracle", "dev", "2026-12")
    box = get_sandbox(sandbox, allow_unisolated=sandbox == "none")
    t0 = time.perf_counter()
    results = anyio.run(lambda: run_tasks(tasks, parse_agent("oracle"), sandbox=box, submission=sub,
                                          concurrency=concurrency))
    wall = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as d:
        store = open_store(d)
        t1 = time.perf_counter()
        for r in results:
            store.land_run(r.run, r.calls)
        land_ms = (time.perf_counter() - t1) * 1000 / len(results)
    return results, wall, land_ms


def fixed_cost() -> float:
    """Seconds from `mcpbench run` starting to its first run starting, from the run record's timestamp."""
    with tempfile.TemporaryDirectory() as d:
        t0 = time.time()
        subprocess.run([sys.executable, "-m", "mcpbench", "run", "--agent", "noop", "--tasks",
                        "fs-archive-meeting-notes", "--store", d, "--json"], check=True, capture_output=True,
                       cwd=ROOT)
        run = open_store(d).read_runs().to_pylist()[0]
        return run["started_at"].timestamp() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--sandbox", default="local")
    ap.add_argument("--no-write", action="store_true", help="print the section, do not append it")
    args = ap.parse_args()

    gw = gateway_vs_direct(args.calls)
    fixed = statistics.median(fixed_cost() for _ in range(3))
    rows = []
    for c in (1, 4):
        results, wall, land_ms = dev_runs(c, args.sandbox)
        overhead = [r.run.harness_ms for r in results]
        agent = [r.run.agent_s * 1000 for r in results]
        startup = [r.outcome.startup_ms for r in results if r.outcome]
        rows.append((c, len(results), sum(r.run.passed for r in results), wall, overhead, agent, startup, land_ms))

    load = os.getloadavg()[0]
    lines = [
        f"\n## Harness ({datetime.now(UTC):%Y-%m-%d %H:%M} UTC)\n",
        f"Machine: {os.cpu_count()} cores, {platform.system()} {platform.release()}, Python {platform.python_version()}, "
        f"1-min load average {load:.2f} at the end. `python bench/harness_bench.py --calls {args.calls} "
        f"--sandbox {args.sandbox}`.\n",
        "Gateway added latency (same filesystem tool, streamable HTTP on loopback, stdlib client, ms per call):\n",
        "| path | median | p99 |", "|---|---:|---:|",
        f"| server directly | {gw['direct']:.2f} | {gw['direct_p99']:.2f} |",
        f"| through the gateway | {gw['gateway']:.2f} | {gw['gateway_p99']:.2f} |",
        f"\nGateway overhead: {100 * (gw['gateway'] / gw['direct'] - 1):+.0f}% per call (target at most +20%).\n",
        f"`mcpbench run` fixed cost before its first task: {fixed:.2f} s (median of 3; target at most 2 s).\n",
        "Dev set with the oracle (40 tasks), per task; overhead = run duration less the agent process's wall time:\n",
        "| concurrency | passed | wall s | overhead median ms | overhead p90 ms | sandbox setup median ms | agent median ms | landing ms/run |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for c, n, passed, wall, overhead, agent, startup, land_ms in rows:
        lines.append(f"| {c} | {passed}/{n} | {wall:.1f} | {statistics.median(overhead):.1f} | {pct(overhead, 0.9):.1f} | "
                     f"{statistics.median(startup):.1f} | {statistics.median(agent):.1f} | {land_ms:.1f} |")
    record("harness", "\n".join(lines), write=not args.no_write)


if __name__ == "__main__":
    main()
