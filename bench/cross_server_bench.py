"""What cross-server tasks cost: a run's backends, and the oracle's CPU per task.

    python bench/cross_server_bench.py [--builds 20] [--runs 10] [--rounds 3] [--base /work/main] [--no-write]

- **backends**: ``runner._open_backends`` (one backend per server, one after another in a worker
  thread, as a run builds them) for one, two and four servers on their seed-1 default-size worlds, warm
  (each world generated and validated once per process, as a worker keeps them), median and worst wall
  ms of ``--builds``; and the four built at once, each in a worker thread of its own, to compare (what
  the runner did first). Target: a four-server run's backends built in at most 150 ms.
- **oracle CPU per task**: the oracle in the local sandbox, concurrency 1, CPU-s per run (this process
  and every child it reaped: the sandbox, the agent): the dev set (40 single-server tasks on worlds), a
  four-server task on the same worlds (github, linear, slack, stripe: a write on each, ``--runs``
  trials), and the example cross-server tasks (tests/cross_server_tasks, inline states).
- **the dev set, before and after**: ``mcpbench run --agent oracle --split dev --concurrency 1`` from
  ``--base`` (a checkout of the code before cross-server tasks) and from this tree, interleaved
  ``--rounds`` times, CPU-s of each command and its children per task. Target: the dev-set oracle's CPU
  per task at most twice the code before's.

Prints a section and appends it to bench/history/servers.md (bench/record.py); the four-server backends
and dev-set CPU rows of bench/RESULTS.md are then updated by hand.
"""

from __future__ import annotations

import argparse
import os
import resource
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

from mcpbench.agents.spec import parse_agent  # noqa: E402
from mcpbench.runner import Submission, _close, _open_backend, _open_backends, run_tasks  # noqa: E402
from mcpbench.sandbox import get_sandbox  # noqa: E402
from servers import get_spec  # noqa: E402
from servers.kit.world import get_generator  # noqa: E402
from tasks_catalog.authoring.propose import draft  # noqa: E402
from tasks_catalog.loader import load_valid_tasks  # noqa: E402
from tasks_catalog.schema import Task  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from machine_speed import machine_speed_s  # noqa: E402
from record import record  # noqa: E402

HEADING = "## Cross-server tasks"
FOUR = ("github", "linear", "slack", "stripe")
NONCE = "5c1d9e07a3b84f26e0d7c1a9b3f52e48"


def _world(server: str) -> dict:
    return {"world": {"generator": server, "version": get_generator(server).version, "seed": 1, "size": "default"}}


def _task(servers: tuple[str, ...], **fields) -> Task:
    """A task on ``servers``' worlds (a placeholder judgement unless ``fields`` give one)."""
    cross = len(servers) > 1
    doc = {"id": "bench-" + "-".join(servers), "difficulty": "easy", "category": "standard", "nonce": NONCE,
           "goal": "A benchmark task across the servers named.", "max_steps": 20, "timeout_s": 120,
           "initial_state": {s: _world(s) for s in servers} if cross else _world(servers[0]),
           "available_tools": [f"{s}__{get_spec(s).tool_names()[0]}" if cross else get_spec(s).tool_names()[0]
                               for s in servers],
           "frame": [], "success": {"all": []},
           "reference_solution": [{"tool": "x"}], "wrong_solutions": [{"why": "none", "calls": []}],
           **({"servers": list(servers)} if cross else {"server": servers[0]})}
    doc.update(fields)
    return Task.model_validate(doc)


def backends(builds: int) -> dict[str, tuple[float, float]]:
    """Median and worst wall ms of a run's backends, per case."""
    out = {}
    for label, servers in (("1 server (slack)", ("slack",)), ("2 servers (linear, slack)", ("linear", "slack")),
                           ("4 servers (github, linear, slack, stripe)", FOUR)):
        task = _task(servers)

        async def build_once(task=task) -> float:  # this iteration's task, bound now
            t0 = time.perf_counter()
            tools, _ = await _open_backends(task)
            took = (time.perf_counter() - t0) * 1000
            _close(tools)
            return took

        anyio.run(build_once)  # the worlds generated and validated once, as a worker keeps them
        times = [anyio.run(build_once) for _ in range(builds)]
        out[label] = (statistics.median(times), max(times))
    task = _task(FOUR)

    async def threads_of_their_own() -> float:
        built: dict[str, tuple] = {}

        async def one(server: str, state: dict) -> None:
            built[server] = await anyio.to_thread.run_sync(_open_backend, get_spec(server), state)

        t0 = time.perf_counter()
        async with anyio.create_task_group() as group:
            for server, state in task.initial_states().items():
                group.start_soon(one, server, state)
        took = (time.perf_counter() - t0) * 1000
        _close({server: tools for server, (tools, _) in built.items()})
        return took

    times = [anyio.run(threads_of_their_own) for _ in range(builds)]
    out["4 servers, each in a worker thread of its own, at once"] = (statistics.median(times), max(times))
    return out


def four_server_task() -> Task:
    """A four-server task on the seed-1 worlds: a write on each server, judged by a predicate on each
    and the frame its reference implies (the ids picked from the worlds)."""
    slack = get_spec("slack").state_model.load(_world("slack")).dump()
    linear = get_spec("linear").state_model.load(_world("linear")).dump()
    github = get_spec("github").state_model.load(_world("github")).dump()
    stripe = get_spec("stripe").state_model.load(_world("stripe")).dump()
    channel = next(c for c in slack["channels"] if not c.get("is_archived") and slack["viewer"] in c["members"])
    issue = next(i for i in linear["issues"] if i["state"] not in ("Done", "Canceled"))
    repo = github["repos"][0]
    gh_issue = next(i for i in repo["issues"] if i.get("state", "open") == "open")
    refunded = {r["charge"] for r in stripe["refunds"]}
    charge = next(c for c in stripe["charges"] if c.get("status", "succeeded") == "succeeded" and c["id"] not in refunded)
    reference = [
        {"tool": "linear__update_issue", "arguments": {"id": issue["id"], "priority": 1}},
        {"tool": "github__update_issue", "arguments": {"owner": repo["owner"], "repo": repo["name"],
                                                        "issue_number": gh_issue["number"], "state": "closed"}},
        {"tool": "stripe__create_refund", "arguments": {"charge": charge["id"]}},
        {"tool": "slack__post_message", "arguments": {"channel_id": channel["id"], "text": f"{issue['id']} is urgent"}},
    ]
    success = {"all": [{"linear.issuePriority": {"issue": issue["id"], "priority": 1}},
                       {"github.issueClosed": {"repo": f"{repo['owner']}/{repo['name']}", "issue": gh_issue["number"]}},
                       {"stripe.refundIssued": {"charge": charge["id"]}},
                       {"slack.messagePosted": {"channel": channel["id"], "pattern": issue["id"]}}]}
    fields = {"available_tools": [c["tool"] for c in reference], "reference_solution": reference, "success": success}
    return _task(FOUR, **fields, frame=draft(_task(FOUR, **fields)))


def _cpu_now() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def oracle_cpu(tasks: list[Task], trials: int = 1) -> tuple[float, int, int]:
    """CPU-s per run of the oracle on ``tasks`` (``trials`` each), in the local sandbox at concurrency
    1; and how many runs passed of how many."""
    box = get_sandbox("local")
    sub = Submission("bench-cross", "bench", "oracle", "dev", "2026-12")
    before = _cpu_now()
    results = anyio.run(lambda: run_tasks(tasks, parse_agent("oracle"), sandbox=box, submission=sub, concurrency=1,
                                          trials=trials))
    spent = _cpu_now() - before
    return spent / len(results), sum(r.run.passed for r in results), len(results)


def dev_cli(tree: Path) -> tuple[float, float, str]:
    """CPU-s (the command and its children) and wall s of ``mcpbench run --agent oracle --split dev
    --concurrency 1`` from ``tree``, and its last line."""
    with tempfile.TemporaryDirectory() as store:
        env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "mcpbench", "run", "--agent", "oracle", "--split", "dev",
                               "--concurrency", "1", "--store", store, "--json"], cwd=tree, env=env,
                              capture_output=True, text=True, check=True)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - kids.ru_utime) + (after.ru_stime - kids.ru_stime)
    return cpu, wall, proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--builds", type=int, default=20)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--base", type=Path, default=None, help="a checkout of the code before cross-server tasks")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()

    speed = machine_speed_s()
    built = backends(args.builds)
    dev = load_valid_tasks([ROOT / "tasks_catalog" / "dev"])
    four = four_server_task()
    examples = load_valid_tasks([ROOT / "tests" / "cross_server_tasks"])
    four_label = f"a four-server task on worlds ({args.runs} trials)"
    cpu = {"dev set (40 single-server tasks, worlds)": oracle_cpu(dev),
           four_label: oracle_cpu([four], trials=args.runs),
           f"the {len(examples)} example cross-server tasks (inline states)": oracle_cpu(examples)}
    four_cpu = cpu[four_label][0]
    rounds = []
    if args.base is not None:
        for _ in range(args.rounds):
            rounds.append((dev_cli(args.base), dev_cli(ROOT)))
    speed_after = machine_speed_s()

    lines = [f"\n{HEADING} ({datetime.now(UTC):%Y-%m-%d %H:%M} UTC, `python bench/cross_server_bench.py "
             f"--builds {args.builds} --runs {args.runs} --rounds {args.rounds}"
             f"{f' --base {args.base}' if args.base else ''}`)\n",
             f"{os.cpu_count()} cores; machine speed (`bench/machine_speed.py`, lower is faster) {speed:.2f} s before, "
             f"{speed_after:.2f} s after; 1-min load average {os.getloadavg()[0]:.2f} at the end.\n",
             "A run's backends (`runner._open_backends`: one per server, one after another in a worker thread; "
             "the worlds generated and validated once per process, as a worker keeps them), wall ms:\n",
             "| backends | median | worst |", "|---|---:|---:|"]
    lines += [f"| {label} | {median:.1f} | {worst:.1f} |" for label, (median, worst) in built.items()]
    four_median = built["4 servers (github, linear, slack, stripe)"][0]
    lines.append(f"\n**A four-server run's backends: {four_median:.1f} ms median (target at most 150 ms).**\n")
    lines += ["The oracle in the local sandbox, concurrency 1, CPU-s per run (this process and its children):\n",
              "| tasks | passed | CPU-s per run |", "|---|---:|---:|"]
    lines += [f"| {label} | {p}/{n} | {per:.3f} |" for label, (per, p, n) in cpu.items()]
    if rounds:
        lines += ["\n`mcpbench run --agent oracle --split dev --concurrency 1`, the code before cross-server tasks "
                  f"(`{args.base}`) and this tree, interleaved; CPU-s of the command and its children per task "
                  "(wall s of the 40 tasks):\n", "| round | before | this tree |", "|---:|---:|---:|"]
        for i, ((cpu_b, wall_b, _), (cpu_a, wall_a, _)) in enumerate(rounds, start=1):
            lines.append(f"| {i} | {cpu_b / len(dev):.3f} ({wall_b:.1f} s) | {cpu_a / len(dev):.3f} ({wall_a:.1f} s) |")
        before = statistics.median(c for (c, _, _), _ in rounds)
        after = statistics.median(c for _, (c, _, _) in rounds)
        lines.append(f"\n**The dev-set oracle's CPU per task: {after / len(dev):.3f} CPU-s, {after / before:.2f}x the "
                     f"code before's {before / len(dev):.3f} by the medians (target at most 2x).**\n")
    dev_cpu = cpu["dev set (40 single-server tasks, worlds)"][0]
    lines.append(f"In process (the table above, no CLI start), a task on four worlds costs {four_cpu / dev_cpu:.2f}x a "
                 "dev-set task on one: each server's world is copied, dumped at the start and the end, diffed and "
                 "digested, so a cross-server task costs about as many single-server tasks as it has worlds; a dev "
                 "set that mixes in cross-server tasks costs between.\n")
    record("servers", "\n".join(lines), write=not args.no_write)


if __name__ == "__main__":
    main()
