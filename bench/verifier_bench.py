"""Time both predicate verifiers: over the whole conformance corpus and over the dev set's verdicts.

    python bench/verifier_bench.py [--repeat 5] [--no-write]

Corpus: every case of ``tasks_catalog/fixtures`` (states normalised through the server's model).
Dev set: for each of the dev tasks, the states the gate judges (initial, after the reference solution,
after each wrong solution), built once through the real servers and not timed; then only the
verdicts are timed. Python = ``tasks_catalog.predicates.evaluate`` in this process. TypeScript =
``node dist/cli.js``: one process for all cases (wall clock, and node's own parse/evaluate time from
``--timing``), and one process per task as ``mcpbench tasks validate`` calls it. Medians of
``--repeat`` rounds. Prints a section and appends it to ``bench/history/verifiers.md`` (``bench/record.py``);
the verifier rows of ``bench/RESULTS.md`` are then updated by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
from record import record

from servers import get_spec
from tasks_catalog import ts_verifier
from tasks_catalog.fixtures import load_cases
from tasks_catalog.gate import apply_calls
from tasks_catalog.loader import load_tasks
from tasks_catalog.predicates import evaluate

ROOT = Path(__file__).resolve().parents[1]
DEV_DIR = ROOT / "tasks_catalog" / "dev"
HEADING = "## Verifiers"


def corpus() -> list[tuple[str, Any, dict[str, Any], dict[str, Any]]]:
    out = []
    for case in load_cases():
        state = case.load()
        dumped = {s: m.dump() for s, m in state.items()} if isinstance(state, dict) else state.dump()
        out.append((case.server, state, dumped, case.predicate))
    return out


def dev_set() -> list[list[tuple[str, Any, dict[str, Any], dict[str, Any]]]]:
    """Per task, the (server, state, dumped state, predicate) the gate judges."""
    tasks, errors = load_tasks([DEV_DIR])
    if errors:
        raise SystemExit(f"the dev set does not load: {errors[0]}")

    async def states() -> list[list]:
        per_task = []
        for task in tasks:
            found = [get_spec(task.server).state_model.load(task.initial_state)]
            final, _ = await apply_calls(task, task.reference_solution)
            found.append(final)
            for wrong in task.wrong_solutions:
                state, _ = await apply_calls(task, wrong.calls, only_available=False, strict=False)
                found.append(state)
            per_task.append([(task.server, s, s.dump(), task.success) for s in found])
        return per_task

    return anyio.run(states)


def time_python(cases: list, repeat: int) -> float:
    rounds = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _, state, _, pred in cases:
            evaluate(pred, state)
        rounds.append((time.perf_counter() - t0) * 1000)
    return statistics.median(rounds)


def time_typescript(cases: list, repeat: int) -> tuple[float, float]:
    """(wall ms of one CLI process over all cases, node's own evaluate ms)."""
    payload = json.dumps([{"server": s, "state": d, "predicate": p} for s, _, d, p in cases])
    walls, inner = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        proc = subprocess.run(["node", str(ts_verifier.CLI), "--timing"], input=payload, capture_output=True,
                              text=True, check=True)
        walls.append((time.perf_counter() - t0) * 1000)
        inner.append(json.loads(proc.stderr.strip().splitlines()[-1])["evaluate_ms"])
    return statistics.median(walls), statistics.median(inner)


def time_typescript_per_task(tasks: list[list], repeat: int) -> float:
    rounds = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for cases in tasks:
            ts_verifier.evaluate_many([(s, d, p) for s, _, d, p in cases])
        rounds.append((time.perf_counter() - t0) * 1000)
    return statistics.median(rounds)


def node_start(repeat: int) -> float:
    rounds = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(["node", "-e", ""], check=True)
        rounds.append((time.perf_counter() - t0) * 1000)
    return statistics.median(rounds)


def machine() -> str:
    mem = "?"
    try:
        kib = int(re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text()).group(1))
        mem = f"{kib / 2**20:.0f} GiB"
    except (OSError, AttributeError):
        pass
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    load = os.getloadavg()[0]
    return (f"{os.cpu_count()} cores (nproc), {mem} memory, Linux {platform.release()}, Python {platform.python_version()}, "
            f"Node {node}, 1-min load average {load:.2f} at the end")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    if not ts_verifier.available():
        raise SystemExit(ts_verifier.unavailable_reason())

    cases = corpus()
    tasks = dev_set()
    flat = [c for t in tasks for c in t]
    rows = []
    no_sql = [c for c in cases if "queryReturnsCount" not in json.dumps(c[3])]
    for name, items in (("corpus", cases), ("corpus without queryReturnsCount", no_sql), ("dev set", flat)):
        py = time_python(items, args.repeat)
        wall, inner = time_typescript(items, args.repeat)
        rows.append((name, len(items), py, wall, inner))
    per_task = time_typescript_per_task(tasks, args.repeat)
    start = node_start(args.repeat)

    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [f"{HEADING} ({stamp})", "", f"Machine: {machine()}.",
             f"`python bench/verifier_bench.py --repeat {args.repeat}`; medians in ms. Corpus = every fixture case;",
             f"dev set = the {len(flat)} states the gate judges for the {len(tasks)} dev tasks (initial, after the reference",
             "solution, after each wrong solution), built beforehand and not timed. TypeScript wall = one `node dist/cli.js`",
             "process for all cases (start, JSON in and out); in-node = its own evaluation time (`--timing`).", "",
             "| cases | n | python ms | typescript wall ms | typescript in-node ms |", "|---|---:|---:|---:|---:|"]
    lines += [f"| {name} | {n} | {py:.1f} | {wall:.1f} | {inner:.1f} |" for name, n, py, wall, inner in rows]
    lines += ["", "Python's time is mostly `postgres.queryReturnsCount`, which loads the state into a fresh DuckDB",
              "database per evaluation; the TypeScript verifier evaluates its SQL subset over the dumped rows."]
    lines += ["", f"As the gate calls it (one node process per task, {len(tasks)} tasks): {per_task:.0f} ms in all, "
              f"{per_task / len(tasks):.1f} ms per task; a bare `node -e ''` start is {start:.1f} ms.", ""]
    record("verifiers", "\n".join(lines), write=not args.no_write)


if __name__ == "__main__":
    main()
