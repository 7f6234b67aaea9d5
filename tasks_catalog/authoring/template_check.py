"""``python -m tasks_catalog.templates check PATH... [--seeds N] [--salt S] [--typescript]``: render every
template with N seeds and run the acceptance gate on each rendering, printing every failing
template, seed and reason.

The seeds are ``<salt>:<template id>:<i>`` for ``i`` in ``0..N-1``; the default salt ``check`` gives
the seeds the test suite uses, another salt (``--salt sweep-2026-12``) a fresh sweep, so a template
is checked against draws nobody tuned it for. A month renders with secret seeds, so a template must
pass at ANY seed (docs/templates.md, "Checking templates").
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tasks_catalog.gate import GateUnavailable, acceptance_gate
from tasks_catalog.loader import validate_task
from tasks_catalog.templates import TemplateError, load_template, render


def seed_of(salt: str, template_id: str, i: int) -> bytes:
    """The ``i``-th seed of a check or sweep."""
    return f"{salt}:{template_id}:{i}".encode()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tasks_catalog.templates")
    sub = ap.add_subparsers(dest="cmd", required=True)
    check = sub.add_parser("check", help="render and gate templates, one line per failing template, seed and reason")
    check.add_argument("paths", nargs="+", type=Path)
    check.add_argument("--seeds", type=int, default=5, help="renderings per template (default 5)")
    check.add_argument("--salt", default="check",
                       help="seeds are SALT:TEMPLATE:i (default 'check', the seeds the tests use)")
    ts = check.add_mutually_exclusive_group()
    ts.add_argument("--typescript", dest="typescript", action="store_const", const=True, default=None,
                    help="also ask the TypeScript verifier (error when it is not built)")
    ts.add_argument("--no-typescript", dest="typescript", action="store_const", const=False,
                    help="the Python verifier alone (default: both when the TypeScript one is built)")
    args = ap.parse_args(argv)
    if args.seeds < 1:
        ap.error(f"--seeds must be at least 1, got {args.seeds}")
    try:
        gate = acceptance_gate(args.typescript)
    except GateUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    files = [q for p in args.paths for q in (sorted(p.rglob("*.json")) if p.is_dir() else [p])]
    failures = 0
    for f in files:
        try:
            template = load_template(f)
            tasks = [render(template, seed_of(args.salt, template.id, i)) for i in range(args.seeds)]
        except TemplateError as exc:
            print(f"FAIL {f}: {exc}", flush=True)
            failures += 1
            continue
        problems = []
        for i, t in enumerate(tasks):
            _, errs = validate_task(t.to_json())
            problems += [(i, t.id, str(e)) for e in errs]
        if not problems:
            for i, (t, r) in enumerate(zip(tasks, gate.check(tasks), strict=True)):
                problems += [(i, t.id, reason) for reason in r.reasons]
        distinct = len({t.id for t in tasks})
        if args.seeds >= 3 and distinct < min(3, args.seeds):
            problems.append((None, None, f"only {distinct} distinct renderings from {args.seeds} seeds"))
        for i, task_id, p in problems:
            where = "" if i is None else f" seed {args.salt}:{template.id}:{i} ({task_id})"
            print(f"FAIL {template.id}{where}: {p}", flush=True)
        failures += bool(problems)
    print(f"{len(files) - failures} templates ok, {failures} failed, {len(files)} templates "
          f"x {args.seeds} seeds (verifiers: {gate.describe()})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
