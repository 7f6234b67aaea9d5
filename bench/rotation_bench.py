"""Monthly rotation and evaluation of a private month, without Prefect (its start is not ours to count).

    python bench/rotation_bench.py [--concurrency [1 8]] [--gate-processes N] [--no-write]

1. ``tasks_catalog.months.rotate`` on a fresh store: render, gate, seal, attest a month (target: at most
   90 s for 160 world tasks gated by both verifiers with the generated frame probes, issue 33; 60 s
   before the probes, issue 11), with as many gate processes as ``mcpbench rotate`` uses (one per
   core, at most 4), timed whole and then phase by phase on one process (the phases re-run on the same
   pool and seed, outside ``rotate``, to show where the time goes);
2. ``mcpbench.evaluation.evaluate`` with the oracle on every task of that month, in the local sandbox,
   at each concurrency, then with each of ``--baselines`` (noop, liar, random: each must pass none) at
   the last concurrency.
Prints a section and appends it to bench/history/rotation.md (bench/record.py); the rotation rows of
bench/RESULTS.md are then updated by hand. If the demonstration pool lacks templates for some server, the
month is built for the servers it covers, and the section says so.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SECRET = "rotation-bench-secret-0123456789"
MONTH = "2026-12"


def machine() -> str:
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return (f"{os.cpu_count()} cores (nproc), {mem:.0f} GiB memory, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}")


def _cpu() -> float:
    """CPU seconds of this process and of its waited-for children (gate helpers, node)."""
    import resource

    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _evaluations(tasks: list, store: object, concurrency: list[int], agents: list[str]) -> tuple[list, list]:
    """The oracle over ``tasks`` at each concurrency (count, passed, infra errors, wall s, median harness
    ms), then each baseline agent at the last concurrency (agent, passed, infra errors)."""
    from mcpbench.agents.spec import parse_agent
    from mcpbench.evaluation import evaluate, make_submission

    evals = []
    for c in concurrency:
        sub = make_submission(parse_agent("oracle"), MONTH, submission_id=f"bench-oracle-c{c}", submitter="bench")
        t0 = time.perf_counter()
        summary, results = evaluate(tasks, "oracle", sub, store=store, sandbox="local", concurrency=c)
        wall = time.perf_counter() - t0
        harness = sorted(r.run.harness_ms for r in results)
        evals.append((c, len(tasks), summary.passed, len(summary.infra_errors), wall, harness[len(harness) // 2]))
    baselines = []
    for agent in agents if concurrency else []:
        sub = make_submission(parse_agent(agent), MONTH, submission_id=f"bench-{agent}", submitter="bench")
        summary, _ = evaluate(tasks, agent, sub, store=store, sandbox="local", concurrency=concurrency[-1])
        baselines.append((agent, summary.passed, len(summary.infra_errors)))
    return evals, baselines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, nargs="*", default=[1, 8],
                        help="oracle evaluations of the month to time (none: time the rotation alone)")
    parser.add_argument("--baselines", nargs="*", default=["noop", "liar", "random"],
                        help="agents run once over the month after the oracle; each must pass no task")
    parser.add_argument("--gate-processes", type=int, default=min(os.cpu_count() or 1, 4))
    parser.add_argument("--no-write", action="store_true", help="print the section, do not append it to bench/history/rotation.md")
    args = parser.parse_args()
    os.environ["MCPBENCH_SECRET"] = SECRET

    import anyio

    import tasks_catalog.rotation as rotation
    from mcpbench.evaluation import load_split
    from runstore.store import open_store
    from servers import SERVER_NAMES
    from tasks_catalog.gate import gate_tasks
    from tasks_catalog.months import rotate
    from tasks_catalog.sealed import month_seed, seal
    from tasks_catalog.templates import load_pool

    pool = load_pool()
    counts = Counter(t.server for t in pool)
    servers = tuple(s for s in SERVER_NAMES if counts[s] >= rotation.PER_SERVER)
    rotation.SERVER_NAMES = servers
    load_avg = os.getloadavg()[0]
    sys.path.insert(0, str(ROOT / "bench"))
    from machine_speed import machine_speed_s
    from record import record

    speed = machine_speed_s()

    with tempfile.TemporaryDirectory(prefix="rotation-bench-") as tmp:
        store = open_store(str(Path(tmp) / "store"))
        t0, cpu0 = time.perf_counter(), _cpu()
        report = rotate(store, MONTH, pool=pool, gate_processes=args.gate_processes)
        rotate_s, rotate_cpu = time.perf_counter() - t0, _cpu() - cpu0
        assert not report.gate_failures, report.gate_failures

        t0 = time.perf_counter()
        built = rotation.build_month(pool, MONTH, month_seed(MONTH))
        render_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        anyio.run(gate_tasks, built.tasks)
        gate_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        seal(built.to_json(), month=MONTH)
        seal_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        built.attestation()
        attest_s = time.perf_counter() - t0

        evals, baselines = _evaluations(load_split(MONTH, store=store), store, args.concurrency, args.baselines)

    stamp = f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC"
    missing = [s for s in SERVER_NAMES if s not in servers]
    lines = [
        f"## Rotation and private-month evaluation ({stamp})", "",
        f"Machine: {machine()}; 1-min load average {load_avg:.2f} at the start, {os.getloadavg()[0]:.2f} at the end; "
        f"machine speed {speed:.2f} s (bench/machine_speed.py, lower is faster).",
        "`python bench/rotation_bench.py` (plain functions, no Prefect). Month "
        f"{MONTH}: {report.tasks} tasks ({len(servers)} servers x {rotation.PER_SERVER} single-server, "
        f"{report.by_server.get('cross-server', 0)} cross-server: "
        f"{report.by_server.get('cross-server', 0) / max(report.tasks, 1):.1%}; "
        f"{sum(t.difficulty == 'hard' for t in built.tasks) / max(len(built.tasks), 1):.1%} hard)"
        + (f"; the demo pool has no full month yet for {', '.join(missing)}" if missing else "") + ".", "",
        "| step | s |", "|---|---:|",
        f"| **rotate (render + gate on {args.gate_processes} processes + seal + attest, as `mcpbench rotate` runs "
        f"it; gate verifiers {' + '.join(report.verifiers)})** | **{rotate_s:.2f}** |",
        f"| its CPU time, every process (node's included) | {rotate_cpu:.1f} |",
        f"| render (one process) | {render_s:.2f} |",
        f"| gate (reference and wrong solutions over MCP, every task; one process, Python verifier) | {gate_s:.2f} |",
        f"| seal | {seal_s:.3f} |",
        f"| attestation hashes | {attest_s:.3f} |", "",
        f"Target: at most 90 s for 160 world tasks (issue 33): {'met' if rotate_s * 160 / max(report.tasks, 1) <= 90 else 'NOT met'}"
        f" ({rotate_s * 160 / max(report.tasks, 1):.1f} s scaled to 160 tasks).", "",
    ]
    if evals:
        lines += [
            "Oracle on every task of the month, local (bubblewrap) sandbox, runs landed in a local store:", "",
            "| concurrency | tasks | passed | infra errors | wall s | s per task | median harness ms |",
            "|---:|---:|---:|---:|---:|---:|---:|",
        ]
        lines += [f"| {c} | {n} | {p} | {i} | {w:.1f} | {w / n:.3f} | {h:.0f} |" for c, n, p, i, w, h in evals]
    if baselines:
        lines += ["", "Baselines on the same month (each must pass none): "
                  + "; ".join(f"{a} {p} passed ({i} infra errors)" for a, p, i in baselines) + "."]
    record("rotation", "\n".join(lines), write=not args.no_write)


if __name__ == "__main__":
    main()
