"""Warehouse benchmark: build + metrics + anomaly flags over 1M and 10M synthetic call rows, in DuckDB
(the real warehouse: ``warehouse.build`` and the SQL views) and the same computation in polars beside it.

Each (engine, size) runs in a fresh subprocess so its peak RSS is its own. Prints a "Warehouse" section
and appends it to bench/history/warehouse.md (bench/record.py); the warehouse rows of bench/RESULTS.md
are then updated by hand.

    python bench/warehouse_bench.py                 # 1M and 10M call rows
    python bench/warehouse_bench.py --sizes 1000000 --no-write
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from record import record  # noqa: E402

from runstore.records import CALL_SCHEMA, REDACTED, RUN_SCHEMA  # noqa: E402

SERVERS = ["filesystem", "github", "postgres", "slack", "gmail", "browser", "calendar", "linear", "stripe", "notion"]
TASKS_PER_SUBMISSION = 160
SUBMITTERS = 250
MONTHS = [f"2025-{m:02d}" for m in range(6, 13)] + [f"2026-{m:02d}" for m in range(1, 6)]
MARTS = ["metrics_by_submission", "metrics_by_submission_server", "metrics_aggregate",
         "anomaly_submitter_flags", "anomaly_task_flags", "leaderboard_contemporary"]
SECTION = "## Warehouse"
#: bump when the synthetic runs' shape changes, so a cached store of an older shape is not reused
GENERATION = "v2-frames"


# -- synthetic data -------------------------------------------------------------------------------
def generate(root: Path, n_calls: int, seed: int = 5) -> dict:
    """Write a store with about ``n_calls`` call rows (20 per run on average), one Parquet file per
    (month, submission) partition, as a compacted store would hold them."""
    marker = root / "generated.json"
    if marker.exists():
        return json.loads(marker.read_text())
    rng = np.random.default_rng(seed)
    n_runs = n_calls // 20
    n_subs = max(1, n_runs // TASKS_PER_SUBMISSION)
    n_runs = n_subs * TASKS_PER_SUBMISSION
    run_idx = np.arange(n_runs)
    sub = run_idx // TASKS_PER_SUBMISSION
    task = run_idx % TASKS_PER_SUBMISSION
    month_of_sub = np.minimum(sub * len(MONTHS) // n_subs, len(MONTHS) - 1)
    skill = rng.uniform(0.2, 0.8, SUBMITTERS)[sub % SUBMITTERS]
    r = rng.random(n_runs)
    status = np.where(r < 0.01, "infra_error", np.where(rng.random(n_runs) < skill, "passed", "failed"))
    infra, failed = status == "infra_error", status == "failed"
    counts = np.where(infra, 0, rng.integers(10, 31, n_runs))
    # why each run ended, as the runner decides it: a failed run's first failure in END_REASONS order
    why = np.array(["timeout", "agent_exit", "over_budget", "frame_violated", "predicate_false"])[
        rng.choice(5, n_runs, p=[0.05, 0.10, 0.05, 0.15, 0.65])]
    end_reason = np.where(infra, "infra:sandbox", np.where(failed, why, "passed"))
    frame_violated = end_reason == "frame_violated"
    predicate = np.where(failed, frame_violated | (rng.random(n_runs) < 0.2), True)
    max_steps = np.full(n_runs, 40)
    base = np.datetime64("2025-06-01T00:00:00", "us")
    started = base + (sub * 3600 * 1_000_000 // max(1, n_subs // 8000 + 1)).astype("timedelta64[us]") \
        + (task * 60_000_000).astype("timedelta64[us]")
    run_ids = np.char.add("run-", np.char.zfill(run_idx.astype(str), 8))
    sub_ids = np.char.add("sub-", np.char.zfill(sub.astype(str), 6))
    months = np.array(MONTHS)[month_of_sub]
    ts = pa.array(started, pa.timestamp("us", tz="UTC"))
    runs = pa.table({
        "run_id": run_ids, "submission_id": sub_ids,
        "submitter": np.char.add("submitter-", (sub % SUBMITTERS).astype(str)), "agent": np.full(n_runs, "agent"),
        "split": months, "month": months, "task_id": np.char.add("task-", task.astype(str)),
        "task_hash": np.full(n_runs, "sha256:0"), "server": np.array(SERVERS)[task % 10],
        "difficulty": np.array(["easy", "medium", "hard"])[task % 3],
        "category": np.where(task % 8 == 0, "recovery", "standard"), "goal": np.full(n_runs, REDACTED),
        "status": status, "passed": status == "passed",
        "predicate_passed": pa.array(predicate, mask=infra),
        "over_budget": end_reason == "over_budget", "timed_out": end_reason == "timeout",
        "agent_error": np.isin(end_reason, ["timeout", "agent_exit"]),
        "exit_code": pa.array(np.where(end_reason == "agent_exit", 1, np.where(end_reason == "timeout", -9, 0)),
                              mask=infra), "max_steps": max_steps,
        "timeout_s": np.full(n_runs, 120.0), "tool_calls": counts, "errors_observed": np.zeros(n_runs, np.int64),
        "faults_injected": np.zeros(n_runs, np.int64), "infra_error": pa.nulls(n_runs, pa.string()),
        "sandbox": np.full(n_runs, "local"), "started_at": ts, "ended_at": ts, "duration_s": np.full(n_runs, 10.0),
        "agent_s": np.full(n_runs, 9.0), "harness_ms": np.full(n_runs, 20.0),
        "final_state_digest": pa.array(np.full(n_runs, "hmac-sha256:" + "0" * 64), mask=infra),
        "end_reason": end_reason,
        "stderr_tail": pa.nulls(n_runs, pa.string()), "goals_published": np.zeros(n_runs, bool),
        "frame_held": pa.array(~frame_violated, mask=infra),
        "frame_violations": pa.array(np.full(n_runs, "channel: 1 deleted"), mask=~frame_violated),
        "trial": np.ones(n_runs, np.int64), "model_requests": np.where(status == "infra_error", 0, counts + 1),
        "model_errors": np.zeros(n_runs, np.int64), "model_retries": np.zeros(n_runs, np.int64),
        "model_refused": np.zeros(n_runs, np.int64), "model_prompt_tokens": counts * 1500,
        "model_completion_tokens": counts * 60, "model_tokens_estimated": np.zeros(n_runs, bool),
        "model_latency_ms": counts * 400.0, "model_cost_nanousd": counts * (1500 * 150 + 60 * 600),
        "split_kind": np.full(n_runs, "private"),
    }).select(RUN_SCHEMA.names).cast(RUN_SCHEMA)
    call_run = np.repeat(run_idx, counts)
    n = len(call_run)
    seq = np.arange(n) - np.repeat(np.cumsum(counts) - counts, counts) + 1
    listed = rng.random(n) > 0.03
    is_error = ~listed | (rng.random(n) < 0.04)
    calls = pa.table({
        "run_id": pa.array(run_ids).take(call_run), "submission_id": pa.array(sub_ids).take(call_run),
        "task_id": runs.column("task_id").take(call_run), "server": runs.column("server").take(call_run),
        "seq": seq, "ts": ts.take(call_run),
        "tool": np.array(["read_text_file", "write_file", "list_directory", "search", "create_issue"])[seq % 5],
        "arguments_json": pa.array(np.full(n, "{}")), "arguments_bytes": np.full(n, 2),
        "truncated": np.zeros(n, bool), "listed": listed, "is_error": is_error,
        "error_kind": pa.array(np.where(is_error, np.where(listed, "tool_error", "unlisted_tool"), None)),
        "error_message": pa.array(np.where(is_error, "failed", None)),
        "latency_ms": rng.random(n) * 5, "result_bytes": rng.integers(10, 5000, n),
    }).cast(CALL_SCHEMA)
    # one file per partition
    run_bounds = np.arange(0, n_runs + 1, TASKS_PER_SUBMISSION)
    call_bounds = np.concatenate([[0], np.cumsum(counts)])[run_bounds]
    for s in range(n_subs):
        where = f"month={MONTHS[month_of_sub[s * TASKS_PER_SUBMISSION]]}/submission={sub_ids[s * TASKS_PER_SUBMISSION]}"
        for kind, table, lo, hi in (("runs", runs, run_bounds[s], run_bounds[s + 1]),
                                    ("calls", calls, call_bounds[s], call_bounds[s + 1])):
            path = root / kind / where / "part-0.parquet"
            path.parent.mkdir(parents=True, exist_ok=True)
            pq.write_table(table.slice(lo, hi - lo), path, compression="zstd")
    info = {"runs": n_runs, "calls": n, "submissions": n_subs, "files": 2 * n_subs}
    marker.write_text(json.dumps(info))
    return info


# -- the two engines ------------------------------------------------------------------------------
def bench_duckdb(root: Path, work: Path) -> dict:
    from warehouse.build import build
    from warehouse.reader import open_warehouse


    t0 = time.perf_counter()
    result = build(str(root), work / "warehouse.duckdb", check=False)
    t_build = time.perf_counter() - t0
    rows = {}
    t1 = time.perf_counter()
    with open_warehouse(result.path, store=str(root), allow_unchecked=True) as warehouse:
        for view in MARTS:
            rows[view] = warehouse.arrow(f"select * from {view}").num_rows
    t_marts = time.perf_counter() - t1
    return {"build_s": t_build, "marts_s": t_marts, "rows": rows}


def bench_polars(root: Path, work: Path) -> dict:
    import polars as pl

    def wilson(k, n, sign: int):
        """The 95% Wilson bound (sign -1: low, +1: high), as the warehouse's wilson_low/wilson_high macros."""
        z, z2 = 1.959963984540054, 3.841458820694124
        k, n = k.cast(pl.Float64), n.cast(pl.Float64)
        return (k + z2 / 2 + sign * z * (k * (n - k) / n + z2 / 4).sqrt()) / (n + z2)

    t0 = time.perf_counter()
    runs = pl.scan_parquet(str(root / "runs" / "**" / "*.parquet"))
    calls = pl.scan_parquet(str(root / "calls" / "**" / "*.parquet"))
    call_counts = calls.group_by("run_id").agg(
        pl.len().alias("calls"), (~pl.col("listed")).sum().alias("unlisted_calls"),
        pl.col("is_error").sum().alias("error_calls"))
    facts = (runs.join(call_counts, on="run_id", how="left")
             .with_columns(pl.col("calls", "unlisted_calls", "error_calls").fill_null(0))
             .with_columns(attempted=pl.col("status") != "infra_error", passed=pl.col("status") == "passed",
                           is_recovery=pl.col("category") == "recovery", observed_error=pl.col("error_calls") > 0,
                           ratio=pl.col("tool_calls") / pl.col("max_steps"))
             .collect())

    def metrics(keys: list[str]) -> pl.DataFrame:
        a, p, r = pl.col("attempted"), pl.col("passed"), pl.col("is_recovery")
        return facts.group_by(keys).agg(
            a.sum().alias("attempted"), p.sum().alias("passed"), (~a).sum().alias("infra_errors"),
            pl.col("ratio").filter(p).mean().mul(100).alias("efficiency"),
            pl.col("calls").filter(a).sum().alias("calls"), pl.col("unlisted_calls").filter(a).sum().alias("unl"),
            (a & r).sum().alias("rec_att"), (p & r & pl.col("observed_error")).sum().alias("rec_ok"),
            (p & r & ~pl.col("observed_error")).sum().alias("rec_free"),
            pl.col("started_at").min().alias("submitted_at"),
        ).with_columns(success_rate=pl.col("passed") / pl.col("attempted"),
                       hallucination_rate=pl.col("unl") / pl.col("calls"),
                       recovery_rate=pl.col("rec_ok") / (pl.col("rec_att") - pl.col("rec_free")))

    by_sub = metrics(["submission_id", "submitter", "agent", "split"])
    by_server = metrics(["submission_id", "submitter", "agent", "split", "server"])
    aggregate = pl.concat([metrics(["split", "server"]),
                           metrics(["split"]).with_columns(server=pl.lit("all"))], how="diagonal")
    hist = by_sub.filter(pl.col("attempted") > 0).sort("submitter", "submitted_at", "submission_id").with_columns(
        n=pl.int_range(pl.len()).over("submitter"),
        s=pl.col("success_rate").cum_sum().over("submitter") - pl.col("success_rate"),
        q=(pl.col("success_rate") ** 2).cum_sum().over("submitter") - pl.col("success_rate") ** 2,
        pk=pl.col("passed").cum_sum().over("submitter") - pl.col("passed"),
        pn=pl.col("attempted").cum_sum().over("submitter") - pl.col("attempted"))
    hist = hist.with_columns(mean=pl.col("s") / pl.col("n")).with_columns(
        sd=((pl.col("q") - pl.col("n") * pl.col("mean") ** 2) / (pl.col("n") - 1)).clip(0).sqrt())
    binomial = (pl.col("mean") * (1 - pl.col("mean")) / pl.col("attempted")).sqrt()
    sigma = pl.max_horizontal(pl.col("sd").fill_null(0), binomial, pl.lit(0.025))
    submitter_flags = hist.filter((pl.col("n") >= 3) & (pl.col("success_rate") > pl.col("mean") + 2 * sigma)
                                  & (wilson(pl.col("passed"), pl.col("attempted"), -1)
                                     > wilson(pl.col("pk"), pl.col("pn"), 1)))
    tm = (facts.filter(pl.col("attempted")).group_by("task_id", "split")
          .agg(pl.len().alias("attempts"), pl.col("passed").sum().alias("passes"),
               pl.col("submitter").filter(pl.col("passed")).n_unique().alias("submitters_passed"))
          .sort("task_id", "split")
          .with_columns(pa_=pl.col("attempts").cum_sum().over("task_id") - pl.col("attempts"),
                        pp_=pl.col("passes").cum_sum().over("task_id") - pl.col("passes"))
          .with_columns(jump=pl.col("passes") / pl.col("attempts") - pl.col("pp_") / pl.col("pa_"))
          .with_columns(med=pl.col("jump").median().over("split")))
    task_flags = tm.filter((pl.col("submitters_passed") >= 3) & (pl.col("pa_") >= 5) & (pl.col("jump") >= 0.5)
                           & (pl.col("jump") - pl.col("med") >= 0.4)
                           & (wilson(pl.col("passes"), pl.col("attempts"), -1) > wilson(pl.col("pp_"), pl.col("pa_"), 1)))
    current = by_sub["split"].max()
    board = by_sub.filter(pl.col("split") == current).sort(
        ["success_rate", "efficiency", "hallucination_rate"], descending=[True, False, False], nulls_last=True)
    elapsed = time.perf_counter() - t0
    rows = {"metrics_by_submission": by_sub.height, "metrics_by_submission_server": by_server.height,
            "metrics_aggregate": aggregate.height, "anomaly_submitter_flags": submitter_flags.height,
            "anomaly_task_flags": task_flags.height, "leaderboard_contemporary": board.height}
    return {"build_s": 0.0, "marts_s": elapsed, "rows": rows}


def _high_water_mb() -> float:
    """Peak RSS of this process (VmHWM: unlike ru_maxrss it is not inherited across exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(engine: str, root: Path, work: Path) -> None:
    import duckdb  # noqa: F401  (imports are not what is measured)
    import polars  # noqa: F401

    import warehouse.reader  # noqa: F401

    base = _high_water_mb()
    fn = bench_duckdb if engine == "duckdb" else bench_polars
    out = fn(root, work)
    out["peak_rss_mb"] = _high_water_mb()
    out["start_rss_mb"] = base
    print(json.dumps(out))


# -- the driver ---------------------------------------------------------------------------------
def measure(engine: str, root: Path, work: Path) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--child", engine, "--root", str(root), "--work", str(work)],
                          capture_output=True, text=True, check=False, timeout=1800)
    if proc.returncode != 0:
        raise SystemExit(f"{engine} on {root} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def machine() -> str:
    mem_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    import duckdb
    import polars

    return (f"{os.cpu_count()} cores (nproc), {mem_gib:.0f} GiB memory, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}, duckdb {duckdb.__version__}, polars {polars.__version__}, "
            f"1-min load average {os.getloadavg()[0]:.2f} at the end")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--data", type=Path, default=Path("/tmp/mcpbench-warehouse-bench"))
    parser.add_argument("--repeat", type=int, default=3, help="runs per (engine, size); the best is reported")
    parser.add_argument("--no-write", action="store_true", help="print the section, do not append it to bench/history/warehouse.md")
    parser.add_argument("--engines", nargs="+", choices=["duckdb", "polars"], default=["duckdb", "polars"])
    parser.add_argument("--child", choices=["duckdb", "polars"], help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.root, args.work)
        return
    lines = []
    for size in args.sizes:
        root = args.data / f"store-{size}-{GENERATION}"
        t = time.perf_counter()
        info = generate(root, size)
        print(f"data {size}: {info} ({time.perf_counter() - t:.1f}s to generate or find)", flush=True)
        for engine in args.engines:
            best = None
            for _ in range(args.repeat):
                work = args.data / f"work-{size}-{engine}"
                work.mkdir(parents=True, exist_ok=True)
                m = measure(engine, root, work)
                if best is None or m["build_s"] + m["marts_s"] < best["build_s"] + best["marts_s"]:
                    best = m
            total = best["build_s"] + best["marts_s"]
            print(f"  {engine}: total {total:.2f}s build {best['build_s']:.2f}s marts {best['marts_s']:.2f}s "
                  f"peak {best['peak_rss_mb']:.0f} MB rows {best['rows']}", flush=True)
            lines.append(f"| {info['calls']:,} | {info['runs']:,} | {engine} | {best['build_s']:.2f} | "
                         f"{best['marts_s']:.2f} | **{total:.2f}** | {best['peak_rss_mb']:.0f} | "
                         f"{best['start_rss_mb']:.0f} | {best['rows']['anomaly_submitter_flags']} / "
                         f"{best['rows']['anomaly_task_flags']} |")
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    text = f"""{SECTION} ({when})

Machine: {machine()}.
`python bench/warehouse_bench.py` (best of {args.repeat}, each in a fresh process). Synthetic store: 160 runs
per submission, 10-30 calls per run, 250 submitters over 12 private months, one Parquet file per
(month, submission). DuckDB = `warehouse.build.build` (views over the Parquet, no quality check) then every
mart read into Arrow: {", ".join(MARTS)}. Polars = the same metrics, flags and leaderboard with lazy scans.
Target: 10M call rows in at most 5 s.

| call rows | runs | engine | build s | marts s | total s | peak RSS MB | RSS after imports MB | flags (submitter / task) |
|---:|---:|---|---:|---:|---:|---:|---:|---|
""" + "\n".join(lines)
    record("warehouse", text, write=not args.no_write)


if __name__ == "__main__":
    main()
