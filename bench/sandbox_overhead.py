"""What the local sandbox adds to an agent's start: start-to-exit of trivial programs, sandboxed and not.

    python bench/sandbox_overhead.py [--runs 50] [--no-write]

Cases: ``/bin/true`` and ``python -c pass`` run (a) as a bare asyncio subprocess, (b) in the ``local``
sandbox without a gateway port (bubblewrap + cgroup only), (c) in the ``local`` sandbox with a gateway
port (adds the host link and the in-sandbox forwarder, a ``python -I -S`` start). Times are harness-side
wall clock from ``run()`` call to outcome. Prints a section and appends it to ``bench/history/sandbox.md``
(``bench/record.py``); the sandbox row of ``bench/RESULTS.md`` is then updated by hand.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from record import record

from mcpbench.sandbox import AgentProcess, get_sandbox

PROGRAMS = {"/bin/true": ["/bin/true"], "python -c pass": [sys.executable, "-c", "pass"]}


async def _bare(argv: list[str]) -> float:
    t0 = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(*argv)
    await proc.wait()
    return (time.perf_counter() - t0) * 1000


async def _sandboxed(sandbox, spec: AgentProcess) -> tuple[float, float]:
    t0 = time.perf_counter()
    outcome = await sandbox.run(spec)
    if outcome.exit_code != 0:
        raise RuntimeError(f"{spec.argv} failed in the sandbox: {outcome.stderr_tail}")
    return (time.perf_counter() - t0) * 1000, outcome.startup_ms


def _summary(samples: list[float]) -> str:
    ordered = sorted(samples)
    p90 = ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]
    return f"{statistics.median(ordered):7.1f} | {p90:7.1f}"


async def measure(runs: int) -> list[str]:
    local = get_sandbox("local")
    rows = []
    for label, argv in PROGRAMS.items():
        bare = [await _bare(argv) for _ in range(runs)]
        rows.append(f"| {label} | bare subprocess | {_summary(bare)} | - |")
        for variant, port in (("local, no gateway", None), ("local + forwarder", 18999)):
            spec = AgentProcess(argv=argv, gateway_port=port, timeout_s=30)
            await _sandboxed(local, spec)  # warm the page cache
            timed = [await _sandboxed(local, spec) for _ in range(runs)]
            total = [t for t, _ in timed]
            setup = statistics.median(s for _, s in timed)
            rows.append(f"| {label} | {variant} | {_summary(total)} | {setup:.1f} |")
    return rows


def _machine() -> str:
    cores = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    kernel = subprocess.run(["uname", "-r"], capture_output=True, text=True).stdout.strip()
    cgroup = "v2" if Path("/sys/fs/cgroup/cgroup.controllers").exists() else "v1"
    bwrap = subprocess.run(["bwrap", "--version"], capture_output=True, text=True).stdout.strip()
    load = Path("/proc/loadavg").read_text().split()[0]
    return (
        f"{cores} cores, Linux {kernel}, cgroup {cgroup}, {bwrap}, Python {platform.python_version()}, "
        f"1-min load average {load} at the end of the run"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--no-write", action="store_true", help="print the section, do not append it to bench/history/sandbox.md")
    args = parser.parse_args()
    rows = asyncio.run(measure(args.runs))
    section = "\n".join(
        [
            "",
            f"## Sandbox overhead ({datetime.now(UTC):%Y-%m-%d %H:%M} UTC)",
            "",
            f"Machine: {_machine()}. `python bench/sandbox_overhead.py --runs {args.runs}`; start-to-exit in ms,",
            "harness side; `setup ms` is the median host-side setup before spawn (cgroup, private dirs, link).",
            "",
            "| program | how | median ms | p90 ms | setup ms |",
            "|---|---|---:|---:|---:|",
            *rows,
            "",
        ]
    )
    record("sandbox", section, write=not args.no_write)


if __name__ == "__main__":
    main()
