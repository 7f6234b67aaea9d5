"""Every view's rows, canonically: what proves a change to the SQL or to the build leaves the numbers alone.

``dump(con)`` reads every view and table of a warehouse (all but the build's own bookkeeping) into
rows of canonical JSON values, sorted, each float as ``float.hex`` so two dumps compare bit for bit.
``digests(dump)`` reduces a dump to one SHA-256 per (view, column), which
``tests/warehouse/golden_views.json`` keeps for the synthetic store ``land_synthetic`` writes: many
submitters, private and retired months, trials, infra errors, recovery runs, frame violations, model
usage, a published task list, and flags that fire. A column added later does not disturb the digests
of the others (rows are sorted by the recorded columns only); a changed or missing one does.

As a program it compares any two stores' warehouses, or one warehouse before and after a change:

    python tests/warehouse/snapshot.py dump DB OUT.jsonl        # every view's rows of a built warehouse
    python tests/warehouse/snapshot.py diff BEFORE.jsonl AFTER.jsonl
    python tests/warehouse/snapshot.py golden                   # rewrite golden_views.json (a deliberate change)
    python tests/warehouse/snapshot.py realistic STORE          # land real runs to compare (minutes)

``realistic`` lands what real agents leave: the oracle, noop, liar and random baselines on the whole dev
set, then two rotated months on four servers (gate skipped: it is not what is compared), with the
oracle and random at three trials, noop and liar on the latest month, and the oracle on the retired one.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

GOLDEN = Path(__file__).with_name("golden_views.json")
#: The build's bookkeeping and copied sources, not views over the data.
NOT_VIEWS = {"warehouse_build", "checked_runs", "source_runs", "source_calls", "source_month_tasks"}


def canonical(value: Any) -> Any:
    """A JSON value that says exactly what ``value`` is: floats as their hex (bit for bit)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value if abs(value) < 2**53 else str(value)
    if isinstance(value, float):
        return {"f": value.hex()}
    if isinstance(value, Decimal):
        return {"d": str(value)}
    if isinstance(value, datetime | date):
        return {"t": value.isoformat()}
    if isinstance(value, list | tuple):
        return [canonical(v) for v in value]
    if isinstance(value, dict):
        return {str(k): canonical(v) for k, v in value.items()}
    return {"other": repr(value)}


def views_of(con) -> list[str]:
    return [r[0] for r in con.execute(
        "select table_name from information_schema.tables where table_schema = 'main' and table_catalog = "
        "current_database() order by 1").fetchall() if r[0] not in NOT_VIEWS]


def dump(con) -> dict[str, dict[str, Any]]:
    """``{view: {"columns": [[name, type], ...], "rows": [[value, ...], ...]}}``, rows sorted."""
    out = {}
    for view in views_of(con):
        cur = con.execute(f'select * from "{view}"')
        columns = [[d[0], str(d[1])] for d in cur.description]
        rows = [[canonical(v) for v in row] for row in cur.fetchall()]
        rows.sort(key=lambda r: json.dumps(r, sort_keys=True))
        out[view] = {"columns": columns, "rows": rows}
    return out


def digests(snapshot: dict[str, dict[str, Any]], columns: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """``{view: {"rows": n, "columns": {name: "type sha256"}}}``; with ``columns``, only those columns
    of each view (rows sorted by them alone), so columns added since do not change the others."""
    out = {}
    for view, data in snapshot.items():
        names = [c for c, _ in data["columns"]]
        keep = columns.get(view, names) if columns is not None else names
        index = [names.index(c) for c in sorted(keep) if c in names]  # by name: the view's order may change
        rows = sorted(([r[i] for i in index] for r in data["rows"]), key=lambda r: json.dumps(r, sort_keys=True))
        types = dict(data["columns"])
        out[view] = {"rows": len(rows), "columns": {
            names[i]: f"{types[names[i]]} " + hashlib.sha256(
                json.dumps([r[j] for r in rows], sort_keys=True).encode()).hexdigest()
            for j, i in enumerate(index)}}
    return out


# -- the synthetic store ----------------------------------------------------------------------------
SERVERS = ("slack", "github", "linear")
TASKS = [f"{server}-{n:03d}" for server in SERVERS for n in range(1, 5)]  # 12 tasks, 4 per server
LEAKED = "github-002"


def land_synthetic(store) -> int:
    """Land a deterministic month-by-month history in ``store``; return the number of runs."""
    from tests.warehouse.conftest import T0, make_calls, make_run

    rng = random.Random(35)
    landed = 0

    def land(run_id: str, labels: tuple[str, str, str, str], task: str, when: datetime, skill: float, *,
             trial: int = 1, infra: bool = False, force_pass: bool | None = None) -> None:
        """Land one run of ``labels`` = (submission, submitter, agent, split) on ``task``."""
        nonlocal landed
        submission, submitter, agent, split = labels
        server = task.split("-", 1)[0]
        recovery = task.endswith("4")
        passed = force_pass if force_pass is not None else rng.random() < skill
        status = "infra_error" if infra else ("passed" if passed else "failed")
        spec = []
        if not infra:
            for _ in range(rng.randint(1, 6)):
                roll = rng.random()
                spec.append(("post", True, False) if roll < 0.7 else ("post", True, True) if roll < 0.9
                            else ("invented_tool", False, True))
        violated = status == "failed" and rng.random() < 0.3
        requests = rng.randint(0, 4) if not infra else 0
        fields = dict(
            split=split, task_id=task, server=server, submitter=submitter, agent=agent, trial=trial,
            category="recovery" if recovery else "standard", difficulty=("easy", "medium", "hard")[int(task[-1]) % 3],
            started_at=when, max_steps=rng.choice((8, 10, 12, 30)), tool_calls=len(spec),
            errors_observed=sum(e for *_, e in spec), frame_held=None if infra else not violated,
            frame_violations=f"channel c{rng.randint(1, 9)}: created" if violated else None,
            end_reason=("infra:sandbox" if infra else "passed" if passed else
                        "frame_violated" if violated else "predicate_false"),
            model_requests=requests, model_prompt_tokens=requests * rng.randint(100, 900),
            model_completion_tokens=requests * rng.randint(10, 90), model_cost_nanousd=requests * rng.randint(1, 99_999),
            faults_injected=1 if recovery else 0)
        run = make_run(run_id, submission_id=submission, status=status, **fields)
        store.land_run(run, make_calls(run, spec), make_turns(run, requests, len(spec)))
        landed += 1

    months = ["2026-01", "2026-02", "2026-03", "2026-04", "2026-05"]
    submitters = {"alice": 0.35, "bob": 0.55, "carol": 0.7, "dave": 0.45, "erin": 0.5}
    n = 0
    for mi, month in enumerate(months):
        for si, (submitter, skill) in enumerate(submitters.items()):
            last = mi == len(months) - 1
            submission = f"sub-{submitter}-{month}"
            boost = 0.55 if (submitter == "alice" and last) else 0.0  # alice's jump: flagged
            trials = 3 if submitter in ("bob", "carol") else 1
            tasks = TASKS if not (submitter == "erin" and last) else TASKS[:7]  # erin does not cover the month
            for ti, task in enumerate(tasks):
                for k in range(1, trials + 1):
                    n += 1
                    when = T0.replace(month=1) + timedelta(days=31 * mi, hours=si, minutes=ti, seconds=k)
                    leaked = task == LEAKED and (last or None)
                    land(f"r{n:05d}", (submission, submitter, f"agent-{submitter}", month), task, when,
                         min(0.98, skill + boost), trial=k, infra=(n % 37 == 0),
                         force_pass=True if leaked else (False if task == LEAKED else None))
    # retired months, evaluated from their plaintext; a partial one does not rank
    for si, submitter in enumerate(("bob", "erin", "frank")):
        for ti, task in enumerate(TASKS if submitter != "frank" else TASKS[:5]):
            n += 1
            land(f"r{n:05d}", (f"sub-{submitter}-hist", submitter, f"agent-{submitter}", "Historical-2026-01"), task,
                 T0 + timedelta(days=40, hours=si, minutes=ti), 0.6)
    # the dev set and a folder never rank
    for agent, skill in (("oracle", 1.0), ("noop", 0.0), ("liar", 0.0), ("random", 0.1)):
        for ti, task in enumerate(TASKS):
            n += 1
            land(f"r{n:05d}", (f"sub-dev-{agent}", "baselines", agent, "dev"), task,
                 T0 + timedelta(days=50, minutes=ti), skill)
    for ti, task in enumerate(TASKS[:3]):
        n += 1
        land(f"r{n:05d}", ("sub-folder", "alice", "agent-alice", "dir:mine"), task,
             T0 + timedelta(days=51, minutes=ti), 0.5)
    # task lists as rotations published them: the latest month's, and April's with a task nobody attempted
    for month, tasks in (("2026-05", TASKS), ("2026-04", [*TASKS, "slack-099"])):
        store.put_bytes(f"public/attestations/{month}.json", json.dumps({
            "month": month, "tasks": [{"task_id": t, "sha256": "0" * 64} for t in tasks]}).encode())
    return landed


def make_turns(run, requests: int, calls: int) -> list:
    """``requests`` model turns of ``run``, spread over its ``calls`` MCP calls, their tokens the run's split
    evenly; on a private month without the model's text, as the meter keeps them."""
    from runstore.records import TURN_TEXT_KEPT, TurnRecord

    private = run.split_kind == "private"
    return [TurnRecord(
        run_id=run.run_id, submission_id=run.submission_id, task_id=run.task_id, seq=i, ts=run.started_at + timedelta(
            milliseconds=50 * i), calls_before=min(i - 1, calls), model="test-model", status="ok",
        finish_reason="tool_calls" if i < requests else "stop", prompt_tokens=run.model_prompt_tokens // requests,
        completion_tokens=run.model_completion_tokens // requests, tokens_estimated=False, latency_ms=20.0,
        tool_calls=1 if i < requests else 0, text=None if private else f"turn {i}",
        text_truncated=None if private else False, text_cap=None if private else TURN_TEXT_KEPT)
        for i in range(1, requests + 1)]


def synthetic_warehouse(folder: Path):
    """Land the synthetic store under ``folder`` and build its warehouse; return the path."""
    from runstore.store import open_store
    from warehouse.build import build

    store = open_store(str(folder / "store"))
    land_synthetic(store)
    return build(store, folder / "warehouse.duckdb", check=False).path  # the suites do not change a view


def land_realistic(root: str) -> None:
    """What ``realistic`` lands (see the module's doc); needs MCPBENCH_SECRET for the private month."""
    import os
    from datetime import date

    import tasks_catalog.rotation
    from mcpbench.agents.spec import parse_agent
    from mcpbench.evaluation import evaluate, load_split, make_submission
    from runstore.store import open_store
    from tasks_catalog.months import rotate

    store = open_store(root)
    # A month of two or more servers draws cross-server tasks, so its servers must share cross-server
    # templates of every level: these four do (tests/conftest.py MONTH_SERVERS, the store tests' months).
    tasks_catalog.rotation.SERVER_NAMES = ("github", "slack", "linear", "notion")
    for month in ("2026-11", "2026-12"):
        if not store.list(f"public/attestations/{month}.json"):
            rotate(store, month, secret=os.environ["MCPBENCH_SECRET"], gate=False, today=date(2026, 12, 1))
    plan = [("dev", a, 1) for a in ("oracle", "noop", "liar", "random")]
    plan += [("2026-12", "oracle", 3), ("2026-12", "random", 3), ("2026-12", "noop", 1), ("2026-12", "liar", 1),
             ("Historical-2026-11", "oracle", 1)]
    for split, agent, trials in plan:
        tasks = load_split(split, store=store)
        submission = make_submission(parse_agent(agent), split, submission_id=f"real-{agent}-{split}",
                                     submitter=f"team-{agent}")
        summary, _ = evaluate(tasks, agent, submission, store=store, concurrency=2, trials=trials)
        print(f"{split} {agent} x{trials}: {summary}", flush=True)


def _main(argv: list[str]) -> None:
    import duckdb

    if argv[:1] == ["dump"] and len(argv) == 3:
        with duckdb.connect(argv[1], read_only=True) as con:
            snap = dump(con)
        with open(argv[2], "w") as out:
            for view, data in sorted(snap.items()):
                out.write(json.dumps({"view": view, "columns": data["columns"]}) + "\n")
                out.writelines(json.dumps({"view": view, "row": r}) + "\n" for r in data["rows"])
        print(f"{argv[2]}: {len(snap)} views, {sum(len(d['rows']) for d in snap.values())} rows")
    elif argv[:1] == ["diff"] and len(argv) == 3:
        before, after = ({json.loads(line)["view"]: set() for line in Path(p).read_text().splitlines()}
                         for p in argv[1:])
        for lines, path in ((before, argv[1]), (after, argv[2])):
            for line in Path(path).read_text().splitlines():
                lines[json.loads(line)["view"]].add(line)
        gone, added = sorted(set(before) - set(after)), sorted(set(after) - set(before))
        differ = {v: before[v] ^ after[v] for v in before if v in after and before[v] != after[v]}
        print(f"views before {len(before)}, after {len(after)}; new: {added}; missing: {gone}; "
              f"differing: {sorted(differ)}; identical: {len(before) - len(gone) - len(differ)}")
        for view, lines in differ.items():
            for line in sorted(lines)[:10]:
                print(("- " if line in before[view] else "+ ") + line[:300])
        sys.exit(1 if gone or differ else 0)
    elif argv[:1] == ["realistic"] and len(argv) == 2:
        land_realistic(argv[1])
    elif argv == ["golden"]:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp, duckdb.connect(str(synthetic_warehouse(Path(tmp))),
                                                                   read_only=True) as con:
            GOLDEN.write_text(json.dumps(digests(dump(con)), indent=1, sort_keys=True) + "\n")
        print(f"wrote {GOLDEN}")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    _main(sys.argv[1:])
