"""``python -m tasks_catalog.templates check PATH... [--seeds N]``: render every template with N seeds
and run the acceptance gate on each rendering."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import anyio

from tasks_catalog.gate import gate_tasks
from tasks_catalog.loader import validate_task
from tasks_catalog.templates import TemplateError, load_template, render


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tasks_catalog.templates")
    sub = ap.add_subparsers(dest="cmd", required=True)
    check = sub.add_parser("check", help="render and gate templates")
    check.add_argument("paths", nargs="+", type=Path)
    check.add_argument("--seeds", type=int, default=5)
    args = ap.parse_args(argv)

    files = [q for p in args.paths for q in (sorted(p.rglob("*.json")) if p.is_dir() else [p])]
    failures = 0
    for f in files:
        try:
            template = load_template(f)
            tasks = [render(template, f"check:{template.id}:{i}".encode()) for i in range(args.seeds)]
        except TemplateError as exc:
            print(f"FAIL {f}: {exc}")
            failures += 1
            continue
        problems = []
        for t in tasks:
            _, errs = validate_task(t.to_json())
            problems += [str(e) for e in errs]
        if not problems:
            for r in anyio.run(gate_tasks, tasks):
                problems += [f"{r.task_id}: {reason}" for reason in r.reasons]
        distinct = len({t.id for t in tasks})
        if args.seeds >= 3 and distinct < min(3, args.seeds):
            problems.append(f"only {distinct} distinct renderings from {args.seeds} seeds")
        for p in problems:
            print(f"FAIL {template.id}: {p}")
        failures += bool(problems)
    print(f"{len(files) - failures} templates ok, {failures} failed, {len(files)} templates")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
