"""Docker sandbox vs local: what a container start and a whole run cost the harness.

    python bench/docker_overhead.py [--starts 10] [--tasks 10] [--no-write]

(a) start: ``python -c pass`` in each backend, harness wall clock from ``run()`` to outcome (for docker:
the relay container, the agent container, the attach stream, the removal); (b) per run: the oracle on the
first ``--tasks`` dev tasks, one at a time, each backend; the run record's ``harness_ms`` (duration less
the agent's own wall time) and the whole run's wall. Prints a section and appends it to
``bench/history/sandbox.md`` (``bench/record.py``); the docker row of ``bench/RESULTS.md`` is then updated
by hand.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from record import record

from mcpbench.sandbox import AgentProcess, get_sandbox


async def _starts(sandbox, n: int) -> list[float]:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        outcome = await sandbox.run(AgentProcess(argv=[sys.executable, "-c", "pass"], gateway_port=40999, timeout_s=60))
        assert outcome.exit_code == 0, outcome.stderr_tail
        times.append((time.perf_counter() - t0) * 1000)
    return times


def _runs(backend: str, n: int) -> tuple[list[float], list[float], int]:
    import anyio

    from mcpbench.agents.spec import parse_agent
    from mcpbench.runner import Submission, run_tasks
    from tasks_catalog.loader import DEV_DIR, load_valid_tasks

    tasks = load_valid_tasks([DEV_DIR])[:n]
    sub = Submission(f"bench-{backend}", "bench", "oracle", "dev", "2026-12")
    results = anyio.run(lambda: run_tasks(tasks, parse_agent("oracle"), sandbox=get_sandbox(backend),
                                          submission=sub, concurrency=1))
    return ([r.run.harness_ms for r in results], [r.run.duration_s * 1000 for r in results],
            sum(r.run.passed for r in results))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--starts", type=int, default=10)
    parser.add_argument("--tasks", type=int, default=10)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    rows = []
    for backend in ("local", "docker"):
        starts = asyncio.run(_starts(get_sandbox(backend), args.starts))
        harness, wall, passed = _runs(backend, args.tasks)
        rows.append(f"| {backend} | {statistics.median(starts):.0f} | {max(starts):.0f} | "
                    f"{statistics.median(harness):.0f} | {statistics.median(wall):.0f} | {passed}/{args.tasks} |")
        print(rows[-1], flush=True)
    load = os.getloadavg()[0]
    text = (f"\n## Docker sandbox vs local ({datetime.now(UTC):%Y-%m-%d %H:%M} UTC, "
            f"`python bench/docker_overhead.py --starts {args.starts} --tasks {args.tasks}`)\n\n"
            f"Load average at the end: {load:.1f} on 2 cores (shared machine). Medians in ms. *start*: "
            "`python -c pass` with a gateway port, harness wall from `run()` to outcome (docker: relay and agent "
            "containers, attach stream, removal). *harness per run*: the run record's `harness_ms` (run "
            "duration less the agent's own wall, so for docker it includes the containers' start and removal); "
            "*run wall*: the whole oracle run, one at a time.\n\n"
            "| backend | start median | start max | harness per run | run wall | oracle passed |\n"
            "|---|---:|---:|---:|---:|---:|\n" + "\n".join(rows) + "\n")
    record("sandbox", text, write=not args.no_write)


if __name__ == "__main__":
    main()
