"""Render a calibration batch for one independent solver and start the interactive harness on it.

    python bench/calibration/batch.py FOLDER TEMPLATE [TEMPLATE ...] [--salt TEXT] [--avoid-case ID:SEED ...]
        [--code REPO] [--store ROOT] [--no-start]

Each TEMPLATE (an id of the demonstration pool, e.g. ``x-t-eng-cycle-close``, or a template file) is
rendered with a throwaway seed (``calibration:<salt>:<template>:<folder name>:<i>``, never an
operator's secret), skipping the case seeds ``--avoid-case`` names for it (those earlier solvers had),
into ``FOLDER.tasks/`` beside the solver's folder (never inside it: the files hold the solutions). Then ``mcpbench run --agent interactive:FOLDER/calls.jsonl`` starts in the
background over that folder, its transcript in ``FOLDER/out.txt``, its runs landed in ``--store`` as
submission ``solver-<folder name>-<HHMM>``. The solver is given ``FOLDER`` (``out.txt`` and
``calls.jsonl``) and bench/calibration/BRIEF.md, nothing else; bench/history/calibration.md records the
rounds, and ``mcpbench tasks stats FOLDER.tasks --solved --store ROOT`` the pass rates. The brief
forbids reading anything but out.txt and calls.jsonl; a solver that saw a task file says so.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tasks_catalog.templates import POOL_DIR, load_template, render  # noqa: E402

#: How many throwaway seeds to try for a case seed no earlier solver had.
TRIES = 500


def template_path(name: str) -> Path:
    """A template file: ``name`` itself, or the pool's template of that id."""
    path = Path(name)
    if path.suffix == ".json":
        return path
    found = sorted(POOL_DIR.rglob(f"{name}.json"))
    if not found:
        raise SystemExit(f"no template {name!r} in {POOL_DIR}")
    return found[0]


def avoided(pairs: list[str]) -> dict[str, set[int]]:
    """``--avoid-case ID:SEED`` pairs as template id -> case seeds."""
    out: dict[str, set[int]] = {}
    for pair in pairs:
        tid, _, seed = pair.rpartition(":")
        if not tid or not seed.isdigit():
            raise SystemExit(f"--avoid-case {pair!r}: expected TEMPLATE-ID:CASE-SEED, e.g. x-t-eng-cycle-close:49")
        out.setdefault(tid, set()).add(int(seed))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("templates", nargs="+")
    parser.add_argument("--salt", default=datetime.now(UTC).strftime("%Y-%m-%d"))
    parser.add_argument("--avoid-case", action="append", default=[], metavar="ID:SEED")
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose code runs the harness")
    parser.add_argument("--store", default=str(Path.home() / ".mcpbench" / "solver-store"))
    parser.add_argument("--no-start", action="store_true", help="render only")
    args = parser.parse_args()

    folder: Path = args.folder.resolve()
    tasks = folder.with_name(folder.name + ".tasks")
    if tasks.exists() and any(tasks.iterdir()):
        raise SystemExit(f"{tasks} already holds a batch; give each solver a new folder")
    tasks.mkdir(parents=True, exist_ok=True)
    avoid = avoided(args.avoid_case)
    for name in args.templates:
        template = load_template(template_path(name))
        skip = avoid.get(template.id, set())
        for i in range(TRIES):
            task = render(template, f"calibration:{args.salt}:{template.id}:{folder.name}:{i}".encode())
            seed = task.rendered_from().params.get("case", {}).get("seed")
            if seed not in skip:
                break
        else:
            raise SystemExit(f"{template.id}: every case seed {TRIES} renderings gave is in --avoid-case")
        skip.add(seed)
        (tasks / f"{task.id}.json").write_text(json.dumps(task.to_json(), indent=1))
        print(f"{task.id}  {task.difficulty}  {'+'.join(task.server_names)}  case seed {seed}  "
              f"budget {task.max_steps}  reference {len(task.reference_solution)} calls")
    if args.no_start:
        return
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "calls.jsonl").write_text("")
    env = {**os.environ, "PYTHONPATH": str(args.code), "MCPBENCH_INTERACTIVE_TIMEOUT_S": "5400"}
    submission = f"solver-{folder.name}-{datetime.now(UTC):%H%M}"
    with (folder / "out.txt").open("wb") as out, (folder / "err.txt").open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "mcpbench", "run", "--agent", f"interactive:{folder / 'calls.jsonl'}",
             "--tasks-dir", str(tasks), "--store", args.store, "--submission-id", submission,
             "--submitter", "solver", "--concurrency", "1", "--json"],
            cwd=folder, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True)
    (folder / "pid").write_text(f"{proc.pid}\n")
    print(f"harness started (pid {proc.pid}, submission {submission}); give the solver {folder} "
          f"and bench/calibration/BRIEF.md")


if __name__ == "__main__":
    main()
