"""What worlds cost: generating one, building a run's backend from it, a tool call on it, a verdict on it.

    python bench/world_bench.py [--runs 20] [--calls 100] [--no-write] [--servers browser ...] [--version 2]

For each server with a world generator (seed 1, default size, a one-operation patch):
- generate: the generator's first run in this process (later runs hit the cache);
- build: ``spec.open(reference)`` then close, as the runner does per run (the validated world cached);
- read / write: one read tool call and one write call through the official SDK client in memory;
- final state: the state's read at the end of a run after one write (what a backend defers to then);
- verdict: one predicate on the world state, Python in process and TypeScript in node (its own
  evaluation time from ``--timing``, without node's start).
Medians (and minima) of wall-clock time and of this process's CPU time; on a shared, loaded machine
CPU time is the fairer figure. Prints a "Worlds" section and appends it to bench/history/servers.md
(bench/record.py); the world rows of bench/RESULTS.md are then updated by hand. With ``--servers`` only
those servers are measured (and only their rows are in the section).

``--version 2`` measures the version-2 worlds (every server projecting the one organisation of
``servers/org``; its generation, shared by the ten, is timed once on its own) and its section is
headed "Organisation worlds"; with every server measured it also times a four-server run's
backends: the four costliest builds one after the other, as a cross-server run opens them (target
150 ms).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mcp import Client  # noqa: E402

from servers import get_spec  # noqa: E402
from servers.kit import build_mcp_server  # noqa: E402
from servers.kit.world import _generated, get_generator  # noqa: E402
from servers.org import organisation  # noqa: E402
from tasks_catalog import ts_verifier  # noqa: E402
from tasks_catalog.predicates import evaluate  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from machine_speed import machine_speed_s  # noqa: E402
from record import record  # noqa: E402

HEADINGS = {1: "## Worlds", 2: "## Organisation worlds"}
VERSION = 1


def _ref(server: str, patch: list) -> dict:
    return {"world": {"generator": server, "version": VERSION, "seed": 1, "size": "default"}, "patch": patch}


def _world(server: str) -> dict:
    return get_generator(server, VERSION).generate(1)


def cases() -> dict[str, dict]:
    """Per server: a one-op patch, a read call, write calls, a predicate. Every timed write changes the
    state: a write that repeats itself (the same label added again) would time a no-op, so where one
    would, two calls take turns."""
    linear = _world("linear")
    q1 = next(e["id"] for e in _world("calendar")["events"] if e["title"] == "Q1 budget review")
    slack = _world("slack")
    general = next(c for c in slack["channels"] if c["name"] == "general")["id"]
    gmail = _world("gmail")
    stripe = _world("stripe")
    harbour = next(c["id"] for c in stripe["customers"] if c["name"] == "Harbour Foods Ltd")
    routes = next(r for r in _world("github")["repos"] if r["name"] == "route-planner")
    issue = 2 if any(i["number"] == 2 for i in routes["issues"]) else routes["issues"][0]["number"]
    notion = _world("notion")
    tasks = next(d["id"] for d in notion["databases"] if d["title"] == "Engineering Tasks")
    task_row = next(p["id"] for p in notion["pages"] if p["parent_id"] == tasks and not p["archived"])
    return {
        "slack": dict(
            patch=[{"op": "update", "in": ["channels"], "id": general, "fields": {"topic": "bench"}}],
            read=("search_messages", {"query": "deploying in:#deploys"}),
            write=[("post_message", {"channel_id": "general", "text": "bench"})],
            predicate={"slack.messagePosted": {"channel": "general", "pattern": "^Release 9"}}),
        "postgres": dict(
            patch=[{"op": "remove", "in": ["tables", "refunds", "rows"], "id": 1}],
            read=("query", {"sql": "select c.name, count(*) from orders o join customers c on c.id = o.customer_id "
                                   "group by c.name order by 2 desc limit 5"}),
            write=[("execute", {"sql": "update orders set status = case status when 'cancelled' then 'pending' "
                                         "else 'cancelled' end where id = 7"})],
            predicate={"postgres.queryReturnsCount": {"query": "select id from payments where status = 'failed'",
                                                       "count": 3}}),
        "github": dict(
            patch=[{"op": "update", "in": ["repos"], "id": "kestrel-freight/infra", "fields": {"description": "bench"}}],
            read=("list_issues", {"owner": "kestrel-freight", "repo": "route-planner", "state": "all"}),
            write=[("add_issue_comment", {"owner": "kestrel-freight", "repo": "route-planner", "issue_number": issue,
                                          "body": "bench"})],
            predicate={"github.issueClosed": {"repo": "kestrel-freight/route-planner", "issue": issue}}),
        "gmail": dict(
            patch=[{"op": "set", "field": "now", "value": "2026-03-16T10:00:00Z"}],
            read=("search_emails", {"query": "subject:invoice is:unread"}),
            write=[("modify_email", {"messageId": gmail["messages"][10]["id"], "addLabelIds": ["STARRED"]}),
                   ("modify_email", {"messageId": gmail["messages"][10]["id"], "removeLabelIds": ["STARRED"]})],
            predicate={"gmail.messageLabelApplied": {"message": gmail["messages"][10]["id"], "label": "Label_9"}}),
        "filesystem": dict(
            patch=[{"op": "add", "in": ["files"], "id": "docs/bench.md", "value": "# bench\n"}],
            read=("search_files", {"pattern": "*.csv"}),
            write=[("write_file", {"path": "docs/bench-out.md", "content": "bench\n"}),
                   ("write_file", {"path": "docs/bench-out.md", "content": "bench, again\n"})],
            predicate={"filesystem.fileContentMatches": {"path": "config/environments/prod/app.yaml",
                                                          "pattern": "log_level: debug"}}),
        "calendar": dict(
            patch=[{"op": "set", "field": "now", "value": "2026-03-16T10:00"}],
            read=("search_events", {"query": "review", "timeMin": "2026-03-16", "timeMax": "2026-04-01"}),
            write=[("update_event", {"calendarId": "primary", "eventId": q1, "description": "bench"}),
                   ("update_event", {"calendarId": "primary", "eventId": q1, "description": "bench, again"})],
            predicate={"calendar.eventHasAttendee": {"event": "Q1 budget review",
                                                     "attendee": "aisha.adeyemi@kestrelfreight.com"}}),
        "linear": dict(
            patch=[{"op": "update", "in": ["issues"], "id": linear["issues"][0]["id"], "fields": {"priority": 1}}],
            read=("list_issues", {"team": "PLT", "state": "Todo", "limit": 25}),
            write=[("update_issue", {"id": linear["issues"][5]["id"], "labels": ["Bug", "Regression"]}),
                   ("update_issue", {"id": linear["issues"][5]["id"], "labels": ["Bug"]})],
            predicate={"linear.issueHasComment": {"issue": linear["issues"][10]["id"], "pattern": "Jon Berg"}}),
        "browser": dict(
            patch=[{"op": "update", "in": ["pages"], "id": "https://intranet.kestrelfreight.com/news",
                    "fields": {"title": "bench"}}],
            read=("browser_snapshot", {}),
            write=[("browser_navigate", {"url": "https://intranet.kestrelfreight.com/search?q=holiday+policy"})],
            predicate={"browser.formSubmitted": {"form": "it-ticket", "fields": {"category": "Hardware"},
                                                 "matches": {"description": "charg"}}}),
        "stripe": dict(
            patch=[{"op": "update", "in": ["customers"], "id": harbour, "fields": {"description": "bench"}}],
            read=("search_charges", {"query": "created>=1772323200 AND status:'succeeded'"}),
            write=[("update_customer", {"customer": harbour, "metadata": {"bench": "1"}}),
                   ("update_customer", {"customer": harbour, "metadata": {"bench": "2"}})],
            predicate={"stripe.invoiceExists": {"customer": harbour, "status": "void"}}),
        "notion": dict(
            patch=[{"op": "update", "in": ["pages"], "id": task_row, "fields": {"title": "bench"}}],
            read=("query_database", {"database_id": tasks, "filter": [{"property": "Status", "equals": "In review"}]}),
            write=[("update_page", {"page_id": task_row, "properties": {"Status": "Done"}}),
                   ("update_page", {"page_id": task_row, "properties": {"Status": "In review"}})],
            predicate={"notion.databaseHasRow": {"database": "Engineering Tasks", "where": {"Status": "Done", "Priority": "P0"}}}),
    }


def timed(fn, n: int) -> tuple[list[float], list[float]]:
    walls, cpus = [], []
    for _ in range(n):
        w, c = time.perf_counter(), time.process_time()
        fn()
        cpus.append((time.process_time() - c) * 1000)
        walls.append((time.perf_counter() - w) * 1000)
    return walls, cpus


async def call_times(spec, ref, calls: list, n: int) -> tuple[list[float], list[float]]:
    """Times of ``n`` calls, taking ``calls`` in turn, after one untimed round; each must succeed."""
    walls, cpus = [], []
    with spec.open(ref) as tools:
        async with Client(build_mcp_server(spec, tools)) as client:
            for call in calls:
                result = await client.call_tool(*call)
                assert not result.is_error, result.content
            for i in range(n):
                call = calls[i % len(calls)]
                w, c = time.perf_counter(), time.process_time()
                result = await client.call_tool(*call)
                cpus.append((time.process_time() - c) * 1000)
                walls.append((time.perf_counter() - w) * 1000)
                assert not result.is_error, result.content
    return walls, cpus


def final_state_times(spec, ref, write: tuple, n: int) -> tuple[list[float], list[float]]:
    """Times of the final state's read (``snapshot(copy=False)``, as the runner takes it) after one write:
    what a backend does for its writes at the end instead of on every call is counted here."""
    walls, cpus = [], []
    for _ in range(n):
        with spec.open(ref) as tools:
            getattr(tools, write[0])(**write[1])
            w, c = time.perf_counter(), time.process_time()
            tools.snapshot(copy=False)
            cpus.append((time.process_time() - c) * 1000)
            walls.append((time.perf_counter() - w) * 1000)
    return walls, cpus


def ts_verdict_ms(server: str, state: dict, predicate: dict, repeat: int) -> float | None:
    if not ts_verifier.available():
        return None
    payload = json.dumps([{"server": server, "state": state, "predicate": predicate}])
    inner = []
    for _ in range(repeat):
        proc = subprocess.run(["node", str(ts_verifier.CLI), "--timing"], input=payload, capture_output=True,
                              text=True, check=True, timeout=120)
        inner.append(json.loads(proc.stderr.strip().splitlines()[-1])["evaluate_ms"])
    return statistics.median(inner)


def med(values: list[float]) -> str:
    return f"{statistics.median(values):.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--servers", nargs="*", help="only these servers (default: every world)")
    parser.add_argument("--version", type=int, choices=sorted(HEADINGS), default=1,
                        help="which version of the generators (2: the organisation's projections)")
    args = parser.parse_args()
    global VERSION
    VERSION = args.version
    heading = HEADINGS[VERSION]
    org_ms = None
    if VERSION == 2:
        organisation.cache_clear()
        org_ms = timed(lambda: organisation(1, 1), 1)[0][0]
    rows, refs = [], {}
    for server, case in cases().items():
        if args.servers and server not in args.servers:
            continue
        spec, ref = get_spec(server), _ref(server, case["patch"])
        refs[server] = ref
        _generated.cache_clear()
        generate_ms = timed(lambda: get_generator(server, VERSION).generate(1), 1)[0][0]  # noqa: B023 - timed() calls it before the loop moves on
        spec.open(ref).close()  # validate once: the cache a run builds from
        build_wall, build_cpu = timed(lambda: spec.open(ref).close(), args.runs)  # noqa: B023 - timed() calls it before the loop moves on
        read_wall, read_cpu = anyio.run(call_times, spec, ref, [case["read"]], args.calls)
        write_wall, write_cpu = anyio.run(call_times, spec, ref, case["write"], args.calls)
        final_wall, final_cpu = final_state_times(spec, ref, case["write"][0], args.runs)
        state = spec.load_state(ref)
        py_wall, py_cpu = timed(lambda: evaluate(case["predicate"], state), 10)  # noqa: B023 - timed() calls it before the loop moves on
        ts = ts_verdict_ms(server, state.dump(), case["predicate"], 3)
        rows.append((server, generate_ms, build_wall, build_cpu, case["read"][0], read_wall, read_cpu,
                     case["write"][0][0], write_wall, write_cpu, final_wall, final_cpu, py_wall, py_cpu, ts))
        print(server, "build cpu", med(build_cpu), "read cpu", med(read_cpu), "write cpu", med(write_cpu),
              "final state cpu", med(final_cpu), "verdict py cpu", med(py_cpu), "ts", ts, flush=True)
    four = None
    if VERSION == 2 and not args.servers:
        four = four_server_times(rows, refs, args.runs)
    load, speed = os.getloadavg()[0], machine_speed_s()
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    command = (f"python bench/world_bench.py --runs {args.runs} --calls {args.calls}"
               + (f" --version {VERSION}" if VERSION != 1 else "")
               + (f" --servers {' '.join(args.servers)}" if args.servers else ""))
    lines = [f"{heading} ({stamp}, `{command}`)", "",
             f"Seed 1, default size, a one-operation patch; load average {load:.1f} on {os.cpu_count()} cores while",
             "measuring (under load, wall times are inflated and CPU time of this process is the fairer figure);",
             f"machine speed {speed:.2f} s (`machine_speed_s`: a fixed piece of work, lower is faster).",
             "Medians in ms (wall / CPU). Targets: build 50, tool call 2, verdict 50. Final state: the",
             "state's read at the end of a run after one write (`snapshot`), where a backend reads back",
             "what its writes left unread.", "",
             "| server | generate (once) | build wall / cpu | read call | wall / cpu | write call | wall / cpu "
             "| final state wall / cpu | verdict py wall / cpu | verdict ts in-node |",
             "|---|---:|---:|---|---:|---|---:|---:|---:|---:|"]
    for (server, gen, bw, bc, rn, rw, rc, wn, ww, wc, fw, fc, pw, pc, ts) in rows:
        lines.append(f"| {server} | {gen:.0f} | {med(bw)} / {med(bc)} | `{rn}` | {med(rw)} / {med(rc)} | `{wn}` | "
                     f"{med(ww)} / {med(wc)} | {med(fw)} / {med(fc)} | {med(pw)} / {med(pc)} | "
                     f"{'n/a' if ts is None else f'{ts:.1f}'} |")
    if org_ms is not None:
        lines += ["", f"Version 2 of every generator: each projects the organisation of `servers/org`, generated once per "
                      f"process ({org_ms:.0f} ms, not counted in the generate column) and shared by the ten."]
    if four is not None:
        names, walls, cpus = four
        lines += ["", f"A four-server run's backends ({', '.join(names)}: the four costliest builds, opened one after "
                      f"the other as a cross-server run opens them): {med(walls)} ms wall / {med(cpus)} ms CPU "
                      f"(median of {len(walls)}; target 150)."]
    record("servers", "\n".join(lines), write=not args.no_write)


def four_server_times(rows: list[tuple], refs: dict[str, dict], n: int) -> tuple[list[str], list[float], list[float]]:
    """Build and close the backends of the four servers whose builds cost most (CPU medians), one after
    the other, ``n`` times: what a cross-server run over them pays before its agent starts."""
    costliest = [row[0] for row in sorted(rows, key=lambda row: -statistics.median(row[3]))[:4]]

    def build_four() -> None:
        for server in costliest:
            get_spec(server).open(refs[server]).close()

    build_four()
    walls, cpus = timed(build_four, n)
    return costliest, walls, cpus


if __name__ == "__main__":
    main()
