"""CLI start-up and warehouse rebuild costs: `mcpbench --help`, and `mcpbench warehouse build` /
`leaderboard` over a store of 80 runs, first (the quality suites check every run) and again with
nothing new (no suite runs; Great Expectations is not imported).

Every command runs in its own process, as a user runs it; wall time and the process's CPU time
(user + sys, from rusage, less sensitive to other load on the machine) are reported as medians. Record
them by hand: the write-up at the end of bench/history/cli.md, the figures in the `mcpbench --help`,
`warehouse build` and `leaderboard` rows of bench/RESULTS.md.

    python bench/cli_bench.py                      # this checkout
    python bench/cli_bench.py --code /path/to/tree # another checkout (e.g. an older commit), same store
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def land_runs(store_root: Path, n: int, start: int = 0) -> None:
    """``n`` hand-made runs (3 calls each) on the private month 2026-05, in one submission per 10 runs."""
    sys.path.insert(0, str(ROOT))
    from runstore.records import REDACTED, CallRecord, RunRecord
    from runstore.store import open_store

    store = open_store(str(store_root))
    t0 = datetime(2026, 5, 1, tzinfo=UTC)
    batch = []
    for i in range(start, start + n):
        sub = f"sub-{i // 10:02d}"
        run = RunRecord(
            run_id=f"{sub}--task-{i:03d}", submission_id=sub, submitter="bench", agent="bench-agent", split="2026-05",
            month="2026-05", task_id=f"task-{i % 10:03d}", task_hash="sha256:0", server="slack", difficulty="easy",
            category="standard", goal=REDACTED, status="passed" if i % 3 else "failed", passed=bool(i % 3),
            predicate_passed=bool(i % 3), over_budget=False, timed_out=False, agent_error=False, exit_code=0,
            max_steps=10, timeout_s=60.0, tool_calls=3, errors_observed=0, faults_injected=0, infra_error=None,
            sandbox="local", started_at=t0, ended_at=t0 + timedelta(seconds=2), duration_s=2.0, agent_s=1.5,
            harness_ms=500.0, final_state_digest="sha256:1", end_reason="passed" if i % 3 else "predicate_false",
            stderr_tail=None, goals_published=False)
        calls = [CallRecord(run_id=run.run_id, submission_id=sub, task_id=run.task_id, server="slack", seq=s,
                            ts=t0 + timedelta(milliseconds=s), tool="post_message", arguments_json="{}",
                            arguments_bytes=2, truncated=False, listed=True, is_error=False, error_kind=None,
                            error_message=None, latency_ms=1.0, result_bytes=10) for s in (1, 2, 3)]
        batch.append((run, calls))
    store.land_runs(batch)


def timed(argv: list[str], code: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child) of one command."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "mcpbench", *argv], cwd=code, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env={**env, "PYTHONPATH": str(code)})
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    stderr = proc.stderr.read().decode()
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{stderr[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime


def median_of(argv: list[str], code: Path, env: dict[str, str], repeat: int) -> str:
    runs = [timed(argv, code, env) for _ in range(repeat)]
    wall = statistics.median(w for w, _ in runs)
    cpu = statistics.median(c for _, c in runs)
    return f"{wall:.3f} s wall, {cpu:.3f} s CPU (median of {repeat})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose CLI is measured")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "MCPBENCH_STORE": f"{tmp}/store", "MCPBENCH_WAREHOUSE": f"{tmp}/warehouse.duckdb"}
        land_runs(Path(tmp) / "store", 80)
        print(f"code: {args.code}; load average {os.getloadavg()[0]:.1f} at the start")
        print("mcpbench --help:", median_of(["--help"], args.code, env, args.repeat * 2))
        print("warehouse build, 80 new runs:", median_of(["warehouse", "build"], args.code, env, 1))
        print("warehouse build, nothing new:", median_of(["warehouse", "build"], args.code, env, args.repeat))
        print("leaderboard, nothing new:", median_of(["leaderboard"], args.code, env, args.repeat))
        land_runs(Path(tmp) / "store", 1, start=80)
        print("leaderboard, 1 new run:", median_of(["leaderboard"], args.code, env, 1))
        print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
