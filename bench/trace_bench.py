"""What keeping the trace costs: bytes landed per run and the time a landing takes, for the dev set
run by the oracle.

    python bench/trace_bench.py [--rounds 3] [--sandbox local] [--label after]

Each round evaluates the 40 dev tasks once with the oracle (concurrency 1) into a fresh local store,
timing every ``Store.land_run`` (calls, turns and run Parquet, then the index entry), then sums the bytes
under ``runs/``, ``calls/`` and ``turns/``. The store fsyncs each file as it does by default. Run it on
two trees (``PYTHONPATH`` set to each) to compare them; prints a Markdown table row per round and the
medians. Record them by hand: the write-up at the end of bench/history/harness.md, the figure in the
trace row of bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(os.environ.get("PYTHONPATH", "").split(os.pathsep)[0] or Path(__file__).resolve().parents[1])
sys.path.insert(0, str(ROOT))

from mcpbench.agents.spec import parse_agent  # noqa: E402
from mcpbench.evaluation import evaluate, load_split, make_submission  # noqa: E402
from runstore.store import open_store  # noqa: E402


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*.parquet")) if path.exists() else 0


def one_round(sandbox: str) -> dict[str, float]:
    tasks = load_split("dev")
    agent = parse_agent("oracle")
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(str(Path(tmp) / "store"), usage="write")
        times: list[float] = []
        real = store.land_run

        def timed(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return real(*args, **kwargs)
            finally:
                times.append((time.perf_counter() - t0) * 1000)

        store.land_run = timed  # type: ignore[method-assign]
        submission = make_submission(agent, "dev", submission_id="bench-trace")
        summary, results = evaluate(tasks, agent, submission, store=store, sandbox=sandbox, concurrency=1)
        root = Path(store.root)
        by_kind = {kind: folder_bytes(root / kind) for kind in ("runs", "calls", "turns")}
        calls = sum(len(r.calls) for r in results)
    runs = len(results)
    return {"runs": runs, "passed": summary.passed, "calls": calls,
            "bytes_per_run": sum(by_kind.values()) / runs, "calls_bytes_per_run": by_kind["calls"] / runs,
            "runs_bytes_per_run": by_kind["runs"] / runs, "turns_bytes_per_run": by_kind["turns"] / runs,
            "land_ms_median": statistics.median(times), "land_ms_p90": sorted(times)[int(0.9 * len(times))],
            "land_ms_total": sum(times)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sandbox", default="local")
    parser.add_argument("--label", default=str(ROOT))
    args = parser.parse_args()
    rows = [one_round(args.sandbox) for _ in range(args.rounds)]
    print(f"tree {args.label}: {rows[0]['runs']} runs, {rows[0]['passed']} passed, {rows[0]['calls']} calls a round")
    print("| round | bytes/run | calls/run | runs/run | turns/run | land ms median | p90 | total ms |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for i, r in enumerate(rows, 1):
        print(f"| {i} | {r['bytes_per_run']:.0f} | {r['calls_bytes_per_run']:.0f} | {r['runs_bytes_per_run']:.0f} | "
              f"{r['turns_bytes_per_run']:.0f} | {r['land_ms_median']:.2f} | {r['land_ms_p90']:.2f} | "
              f"{r['land_ms_total']:.0f} |")
    med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
    print(f"| median | {med['bytes_per_run']:.0f} | {med['calls_bytes_per_run']:.0f} | {med['runs_bytes_per_run']:.0f} | "
          f"{med['turns_bytes_per_run']:.0f} | {med['land_ms_median']:.2f} | {med['land_ms_p90']:.2f} | "
          f"{med['land_ms_total']:.0f} |")


if __name__ == "__main__":
    main()
