"""``mcpbench tasks``: validate the catalog, hash tasks, export the task JSON Schema."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from mcpbench.commands._store import open_store_for, store_option


@click.group()
def tasks() -> None:
    """Work with task files: show, validate, hash, schema.

    \b
    Example:
      mcpbench tasks show slack-archive-resolved-incident
      mcpbench tasks validate tasks_catalog/dev
    """


def task_brief(task) -> dict:
    """What an agent builder may see of a task: its goal, its tools (with their descriptions; a
    cross-server task's named ``<server>__<tool>``), its budget and its faults, and where each server's
    initial state comes from; never its solution (the reference and wrong solutions), its predicate or
    its frame."""
    from servers import get_spec
    from tasks_catalog.faults import FAULT_MESSAGES

    def described(name: str) -> dict:
        server, tool = task.route(name) or (task.server_names[0], name)
        spec = get_spec(server)
        doc = (getattr(spec.toolset, tool, None).__doc__ or "").strip().split("\n\n")[0]
        mark = dict(spec.toolset.tool_marks()).get(tool)
        kind = "unknown" if mark is None else "read-only" if mark.read_only else "destructive" if mark.destructive \
            else "writes"
        return {"name": name, "kind": kind, "description": " ".join(doc.split())}

    def origin(state: object) -> dict:
        if not isinstance(state, dict) or not state.get("world"):
            return {"inline": True}
        return {"world": state["world"], "patched": bool(state.get("patch"))}

    starts = task.initial_states()
    return {
        "id": task.id, "server": task.server_label, "servers": list(task.server_names), "difficulty": task.difficulty,
        "category": task.category, "goal": task.goal, "max_steps": task.max_steps, "timeout_s": task.timeout_s,
        "tools": [described(name) for name in sorted(task.available_tools)],
        "faults": [{**f.model_dump(mode="json"), "message": FAULT_MESSAGES[f.kind]} for f in task.faults],
        "initial_state": origin(task.initial_state) if not task.cross_server else
                         {server: origin(state) for server, state in starts.items()},
    }


@tasks.command()
@click.argument("task_id")
@click.option("--split", default="dev", show_default=True,
              help="'dev', or a retired month Historical-YYYY-MM. A private month's tasks are never shown.")
@click.option("--tasks-dir", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Look the task up in this folder of task files instead of a split.")
@store_option()
@click.option("--json", "as_json", is_flag=True, help="Print the task's brief as one JSON object.")
def show(task_id: str, split: str, tasks_dir: Path | None, store_root: str | None, as_json: bool) -> None:
    """Show what an agent is given for a task: its goal, the tools it may call, its budget and the faults
    that will be injected. Never its solution, predicate or frame.

    \b
    Examples:
      mcpbench tasks show slack-archive-resolved-incident
      mcpbench tasks show slack-announce-release --json
    """
    from mcpbench.splits import load_folder, load_split
    from runstore.split import Split, SplitError

    try:
        parsed = Split.parse(split) if tasks_dir is None else None
    except SplitError as exc:
        raise click.BadParameter(str(exc), param_hint="--split") from None
    if parsed is not None and parsed.kind == "private":
        raise click.BadParameter(f"{parsed.text} is a private month: its tasks are sealed and never shown",
                                 param_hint="--split")
    try:
        if tasks_dir is not None:
            (task,), _ = load_folder(tasks_dir, [task_id])
        else:
            assert parsed is not None  # a split is parsed whenever no folder is named
            store = None
            if parsed.kind == "historical":
                store = open_store_for(store_root, "read")
            (task,) = load_split(parsed, store=store, task_ids=[task_id])
    except (LookupError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    brief = task_brief(task)
    if as_json:
        click.echo(json.dumps(brief, indent=2))
        return
    click.echo(f"{brief['id']} ({brief['server']}, {brief['difficulty']}, {brief['category']})")
    click.echo("goal:")
    for line in brief["goal"].splitlines() or [""]:
        click.echo(f"  {line}")
    click.echo(f"budget: {brief['max_steps']} tool calls, {brief['timeout_s']:g} s of the agent's own time")
    click.echo(f"tools ({len(brief['tools'])} listed; any other is answered as unknown and counted as a "
               "hallucination):")
    width = max(len(t["name"]) for t in brief["tools"])
    for tool in brief["tools"]:
        click.echo(f"  {tool['name']:<{width}}  {tool['kind']:<11}  {tool['description']}")
    if not brief["faults"]:
        click.echo("faults: none")
    else:
        click.echo("faults (injected by the gateway):")
        for f in brief["faults"]:
            more = f" and the {f['times'] - 1} after it" if f["times"] > 1 else ""
            click.echo(f"  call {f['on_call']} of {f['tool']}{more}: {f['kind']} ({f['message']})")
    starts = brief["initial_state"] if len(brief["servers"]) > 1 else {brief["servers"][0]: brief["initial_state"]}
    for server, start in starts.items():
        world = start.get("world")
        where = "initial state" if len(starts) == 1 else f"initial state of {server}"
        click.echo(f"{where}: " + (f"world {world['generator']} v{world['version']}, seed {world['seed']}, size "
                                   f"{world['size']}" + (", patched for the task" if start["patched"] else "")
                                   if world else "inline (in the task file)"))


@tasks.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object with every task's verdict.")
@click.option("--typescript/--no-typescript", default=None,
              help="Also ask the TypeScript verifier for every verdict (default: when it is built).")
def validate(paths: tuple[Path, ...], as_json: bool, typescript: bool | None) -> None:
    """Run the acceptance gate over task files (default: the dev set).

    A task passes when it loads, its predicate is false on the initial state, its reference
    solution (through the real server, only available tools, the task's faults injected) makes it
    true within max_steps and stays inside the frame, every wrong solution changes the state and
    fails the judgement (predicate false or frame broken), and its goal names every literal the
    predicate checks (docs/frames.md, "The gate"). Exit 1 on any failure.

    \b
    Example:
      mcpbench tasks validate tasks_catalog/dev/slack
    """
    from tasks_catalog.gate import GateUnavailable, acceptance_gate
    from tasks_catalog.loader import DEV_DIR

    try:
        gate = acceptance_gate(typescript)
    except GateUnavailable as exc:
        raise click.ClickException(str(exc)) from None
    extra = gate.extra
    results, total = gate.check_paths(list(paths) or [DEV_DIR])
    failed = [r for r in results if not r.ok]
    if as_json:
        click.echo(json.dumps({"tasks": total, "valid": total - len(failed), "failed": len(failed),
                               "verifiers": ["python", "typescript"] if extra else ["python"],
                               "results": [r.to_json() for r in results]}, indent=2))
    else:
        for r in failed:
            for reason in r.reasons:
                click.echo(f"FAIL {r.task_id}: {reason}")
        verifiers = "python + typescript" if extra else "python"
        click.echo(f"{total - len(failed)} valid, {len(failed)} failed, {total} tasks (verifiers: {verifiers})")
    sys.exit(1 if failed or total == 0 else 0)


def _hash_help() -> str:
    from tasks_catalog._hash_rule import exported_defaults

    defaults = "\n".join(f"           {d}" for d in exported_defaults())
    return f"""Print the attestation hash of each task file: SHA-256 of its RFC 8785 canonical JSON.

    What is hashed is the task document with its defaults filled in, so a third party can rebuild
    every hash from tasks_catalog/task.schema.json and RFC 8785 alone:

    \b
      1. drop "$schema";
      2. drop every member whose value is null where the schema declares
         the property (null defaults mean "absent": template, frame, ...);
      3. add every property the schema declares with a non-null "default"
         that the document leaves out, at every level (follow "$ref" and
         the non-null branch of "anyOf"); today these are:
{defaults}
      4. canonicalise with RFC 8785 (JCS) to UTF-8, SHA-256, lowercase hex.

    Free-form objects (initial_state, success, arguments, template params)
    are hashed as written. The nonce is part of the hashed document, so a
    published hash reveals nothing until the plaintext is published. A file
    that is not a valid task is hashed as it is (after step 1).

    \b
    Example:
      mcpbench tasks hash tasks_catalog/dev/slack/*.json
    """


@tasks.command(name="hash", help=_hash_help())
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
def hash_(files: tuple[Path, ...]) -> None:
    from tasks_catalog.hashing import task_hash
    from tasks_catalog.loader import read_task_json

    bad = False
    for f in files:
        try:
            click.echo(f"{task_hash(read_task_json(f))}  {f}")
        except ValueError as exc:
            click.echo(f"error: {exc}" if str(exc).startswith(str(f)) else f"error: {f}: {exc}", err=True)
            bad = True
    sys.exit(1 if bad else 0)


@tasks.command()
@click.option("--check", is_flag=True, help="Exit 1 if the committed schema is out of date instead of writing it.")
def schema(check: bool) -> None:
    """Write the task JSON Schema to tasks_catalog/task.schema.json.

    \b
    Example:
      mcpbench tasks schema --check
    """
    from tasks_catalog.schema import SCHEMA_PATH, json_schema

    text = json.dumps(json_schema(), indent=2) + "\n"
    if check:
        current = SCHEMA_PATH.read_text(encoding="utf-8") if SCHEMA_PATH.exists() else ""
        if current != text:
            raise click.ClickException(f"{SCHEMA_PATH} is out of date; run `mcpbench tasks schema`")
        click.echo("schema is up to date")
        return
    SCHEMA_PATH.write_text(text, encoding="utf-8")
    click.echo(f"wrote {SCHEMA_PATH}")


@tasks.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per task in a list.")
@click.option("--solved", is_flag=True,
              help="Also show how each task fared in the store's runs: the measured pass rate, from runs of the "
                   "task as it is now (same hash).")
@click.option("--submissions", default="*", show_default=True,
              help="With --solved: only the submissions whose id matches this glob (e.g. 'solver-*').")
@click.option("--any-version", is_flag=True,
              help="With --solved: count the runs of every version of a task (by its id), not only of the "
                   "task as it is now.")
@store_option()
def stats(paths: tuple[Path, ...], as_json: bool, solved: bool, submissions: str, any_version: bool,
          store_root: str | None) -> None:
    """Print each task's measured difficulty (default: the dev set): its servers, world and size, the
    length of the reference solution, its discovery reads (read-only calls), whether it pages or searches,
    its traps (lookalike wrong solutions), its budget and the level these numbers support (docs/tasks.md).
    With --solved, also the pass rate measured on each task in the store's runs (docs/tasks.md,
    "Difficulty"; independent solvers' runs, docs/agents.md): passed of attempted runs, per task and per
    level.

    \b
    Examples:
      mcpbench tasks stats tasks_catalog/dev/slack
      mcpbench tasks stats tasks_catalog/dev/slack --solved --submissions 'local-*'
    """
    from tasks_catalog.loader import DEV_DIR, load_tasks
    from tasks_catalog.stats import measure
    from tasks_catalog.stats import solved as solved_in

    tasks_, errors = load_tasks(list(paths) or [DEV_DIR])
    for err in errors:
        click.echo(f"error: {err}", err=True)
    tasks_ = sorted(tasks_, key=lambda t: t.id)
    rows = [measure(t) for t in tasks_]
    measured = None
    if solved:
        store = open_store_for(store_root, "read")
        measured = solved_in(tasks_, store.read_runs().to_pylist(), submissions, any_version=any_version)
    if as_json:
        click.echo(json.dumps([{**r.to_json(), "servers": list(t.server_names),
                                **({"solved": measured[t.id].to_json() if t.id in measured else None}
                                   if measured is not None else {})}
                               for t, r in zip(tasks_, rows)], indent=2))
    else:
        click.echo(f"{'task':42} {'level':>6} {'meas.':>7} {'calls':>5} {'reads':>5} {'page':>4} {'traps':>5} "
                   f"{'budget':>8}  {'solved':>9}  servers: world" if measured is not None else
                   f"{'task':42} {'level':>6} {'meas.':>7} {'calls':>5} {'reads':>5} {'page':>4} {'traps':>5} "
                   f"{'budget':>8}  servers: world")
        for t, r in zip(tasks_, rows):
            size = ", ".join(f"{v} {k}" for k, v in r.world_size.items())
            cell = ""
            if measured is not None:
                got = measured.get(t.id)
                cell = f"{f'{got.passed}/{got.attempted}' if got else '-':>9}  "
            click.echo(f"{r.task[:42]:42} {r.difficulty:>6} {r.measured:>7} {r.reference_calls:>5} "
                       f"{r.discovery_reads:>5} {'yes' if r.paginated_search else 'no':>4} {r.traps:>5} "
                       f"{r.max_steps:>4} {r.budget_ratio:>3.1f}x  {cell}{'+'.join(t.server_names)}: "
                       f"{r.world}{f' ({size})' if size else ''}")
        if measured is not None:
            for tier in ("easy", "medium", "hard"):
                done = [measured[t.id] for t in tasks_ if t.difficulty == tier and t.id in measured]
                if done:
                    passed, attempted = sum(s.passed for s in done), sum(s.attempted for s in done)
                    click.echo(f"{tier}: {passed} of {attempted} runs passed ({100 * passed / attempted:.0f}%) over "
                               f"{len(done)} tasks")
    sys.exit(1 if errors else 0)
