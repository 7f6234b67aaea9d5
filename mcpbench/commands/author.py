"""``mcpbench author``: the tools of a task author (tasks_catalog/authoring), and sealing a private pool."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

#: Where the generated documents are written and checked by default: the repository's docs/.
DOCS_DIR = Path(__file__).resolve().parents[2] / "docs"

PATHS = click.Path(exists=True, path_type=Path)


@click.group()
def author() -> None:
    """Write tasks and templates: draft and tighten frames, draft wrong solutions, find name-keyed guards,
    check templates at many seeds, regenerate the generated docs, seal a private template pool.

    \b
    Example:
      mcpbench author propose tasks_catalog/dev/slack/slack-announce-release.json
    """


@author.command()
@click.option("--check", is_flag=True, help="Exit 1 if a committed document is stale instead of writing it.")
@click.option("--docs-dir", type=click.Path(file_okay=False, path_type=Path), default=DOCS_DIR, show_default=True,
              help="Where frames.md and predicates.md are written or checked.")
def docs(check: bool, docs_dir: Path) -> None:
    """Write the generated documents: docs/frames.md (the frame grammar and every server's entity kinds,
    from tasks_catalog/frames/entities.json) and docs/predicates.md (every primitive, its arguments and
    their types, from the predicate registry). Commit the result.

    \b
    Example:
      mcpbench author docs --check
    """
    from tasks_catalog.authoring import frames_doc, predicates_doc

    stale = []
    for module in (frames_doc, predicates_doc):
        path, text = docs_dir / module.DOC_NAME, module.render()
        if check:
            if (path.read_text(encoding="utf-8") if path.exists() else "") != text:
                stale.append(path)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        click.echo(f"wrote {path}")
    if stale:
        for path in stale:
            click.echo(f"{path} is out of date; run `mcpbench author docs` and commit it", err=True)
        sys.exit(1)
    if check:
        click.echo("the generated documents are up to date")


@author.command()
@click.argument("paths", nargs=-1, required=True, type=PATHS)
@click.option("--seeds", type=click.IntRange(min=1), default=3, show_default=True,
              help="Renderings of each template to cross-check the generalised draft on.")
@click.option("--write", is_flag=True, help="Insert each draft into its file when it has no frame yet and no problems.")
def propose(paths: tuple[Path, ...], seeds: int, write: bool) -> None:
    """Draft the frame of task and template files from what their reference solution changes.

    The draft is the diff of the initial state and the state after the reference solution, entity by
    entity and keyed by stable ids, turned into allowances; a template's is generalised back to
    placeholders and checked on other renderings. Prints {id: {frame, problems}} as JSON. A draft is
    not a verdict: read it against the goal. Exit 1 when a file does not load or a draft has problems.

    \b
    Example:
      mcpbench author propose tasks_catalog/dev/slack/slack-announce-release.json
    """
    from tasks_catalog.authoring.propose import propose as draft_frames

    proposals = draft_frames(list(paths), seeds=seeds, write=write)
    for error in proposals.errors:
        click.echo(error, err=True)
    click.echo(json.dumps(proposals.drafts, indent=1, ensure_ascii=False))
    for f in proposals.written:
        click.echo(f"wrote the frame into {f}", err=True)
    sys.exit(0 if proposals.ok else 1)


@author.command()
@click.argument("paths", nargs=-1, required=True, type=PATHS)
@click.option("--seeds", type=click.IntRange(min=1), default=3, show_default=True,
              help="Renderings of each template to cross-check the generalised frame on.")
@click.option("--write", is_flag=True, help="Rewrite each file whose frame tightens (without problems), bumping its version.")
def tighten(paths: tuple[Path, ...], seeds: int, write: bool) -> None:
    """Tighten the frames of task and template files to field level, from what their reference solution
    changes: a whole map becomes the keys changed, a changed list gets the items added and removed
    (`values`), a create allowance gets `parent: "created"` and a `max` where the reference shows them.
    Prints {id: {before, after, changed, problems}} as JSON; read it against the goal (the gate's probes
    say what is still loose). Exit 1 when a file does not load or a template's renderings disagree.

    \b
    Example:
      mcpbench author tighten tasks_catalog/dev/notion/notion-move-claire-to-offer.json
    """
    from tasks_catalog.authoring.tighten import tighten_paths

    found = tighten_paths(list(paths), seeds=seeds, write=write)
    for error in found.errors:
        click.echo(error, err=True)
    click.echo(json.dumps(found.frames, indent=1, ensure_ascii=False))
    for f in found.written:
        click.echo(f"tightened the frame of {f} and bumped its version", err=True)
    sys.exit(1 if found.errors or any(d["problems"] for d in found.frames.values()) else 0)


@author.command()
@click.argument("paths", nargs=-1, type=PATHS)
@click.option("--seeds", type=click.IntRange(min=1), default=3, show_default=True,
              help="Renderings of each template the collateral must hold on.")
@click.option("--plan", "plan_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the plan (JSON) here, to review and then --apply.")
@click.option("--apply", "apply_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Apply a reviewed plan written by --plan to the files it names.")
def wrongs(paths: tuple[Path, ...], seeds: int, plan_file: Path | None, apply_file: Path | None) -> None:
    """Draft the wrong solutions the gate asks of every task: the collateral near-miss (the reference
    solution, then one call that damages an entity outside the frame while the predicate still holds)
    and the kinds of the existing ones (lookalike or other). One line per file; --plan writes the plan,
    and after review `mcpbench author wrongs --apply plan.json` edits the files.

    \b
    Example:
      mcpbench author wrongs tasks_catalog/dev/slack/slack-announce-release.json --plan plan.json
    """
    from tasks_catalog.authoring.wrongs import apply_plans, plan_paths

    if apply_file is not None:
        if paths or plan_file is not None:
            raise click.UsageError("--apply takes the plan alone: no PATHS, no --plan")
        apply_plans(json.loads(apply_file.read_text(encoding="utf-8")))
        return
    if not paths:
        raise click.UsageError("give the task or template files (or folders) to plan, or --apply PLAN")
    plans = plan_paths(list(paths), seeds=seeds, echo=click.echo)
    if plan_file is not None:
        plan_file.write_text(json.dumps(plans, indent=1, ensure_ascii=False), encoding="utf-8")


@author.command()
@click.argument("paths", nargs=-1, required=True, type=PATHS)
@click.option("--write", is_flag=True, help="Rewrite the guards to ids (files with an inline state only).")
def guards(paths: tuple[Path, ...], write: bool) -> None:
    """List the guards (arguments under a `not`) that name an existing entity by its name, which a rename
    evades, with the id to name it by instead: `<file>: <JSON path> = <name> -> <id>`.

    \b
    Example:
      mcpbench author guards tasks_catalog/dev
    """
    from tasks_catalog.authoring.guards import find_guards

    find_guards(list(paths), write=write, echo=click.echo)


@author.command(name="check-templates")
@click.argument("paths", nargs=-1, required=True, type=PATHS)
@click.option("--seeds", type=click.IntRange(min=1), default=5, show_default=True, help="Renderings per template.")
@click.option("--salt", default="check", show_default=True,
              help="Seeds are SALT:TEMPLATE:i; 'check' gives the seeds the tests use, another salt a fresh sweep.")
@click.option("--all-cases", is_flag=True,
              help="Gate every combination of the choices instead of --seeds renderings (a cross-server template's cases).")
@click.option("--typescript/--no-typescript", default=None,
              help="Also ask the TypeScript verifier (an error when it is not built); default: when it is built.")
def check_templates(paths: tuple[Path, ...], seeds: int, salt: str, all_cases: bool, typescript: bool | None) -> None:
    """Render every template with several seeds and run the acceptance gate on each rendering, printing
    every failing template, seed and reason. A month renders with secret seeds, so a template must pass
    at any seed: sweep with a fresh --salt (docs/templates.md). Exit 1 when a template fails.

    \b
    Example:
      mcpbench author check-templates tasks_catalog/templates/slack/sl-t-post-message.json --seeds 2
    """
    from tasks_catalog.authoring.template_check import check_templates as check
    from tasks_catalog.gate import GateUnavailable, acceptance_gate

    try:
        gate = acceptance_gate(typescript)
    except GateUnavailable as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    sys.exit(1 if check(list(paths), gate, seeds=seeds, salt=salt, echo=click.echo, all_cases=all_cases) else 0)


@author.command(name="leave-out")
@click.argument("paths", nargs=-1, required=True, type=PATHS)
@click.option("--seeds", type=click.IntRange(min=1), default=2, show_default=True, help="Renderings per template.")
@click.option("--all-cases", is_flag=True, help="Every case of a template instead of --seeds renderings.")
def leave_out(paths: tuple[Path, ...], seeds: int, all_cases: bool) -> None:
    """Leave each write of every reference out in turn (tasks, or templates' renderings) and judge the task
    as the gate does, printing each write the task still passes without. A write the goal asks for must
    not be one (its clause is met some other way, often by the initial state); a courtesy the frame only
    allows may be. Reports; exits 0.

    \b
    Example:
      mcpbench author leave-out tasks_catalog/dev/slack/slack-announce-release.json
    """
    from tasks_catalog.authoring.leave_out import leave_out as report

    report(list(paths), all_cases=all_cases, seeds=seeds, echo=click.echo)


@author.command(name="cross-templates")
@click.argument("names", nargs=-1)
@click.option("--check", is_flag=True, help="Exit 1 if a committed template is stale instead of writing it.")
def cross_templates(names: tuple[str, ...], check: bool) -> None:
    """Build the cross-server templates from their modules (tasks_catalog/authoring/cross/, one per
    template, reading the organisation of many seeds) into tasks_catalog/templates/cross-server/; NAMES
    limits it to those modules (a module's name, or its template's id: x_t_leave_cover or x-t-leave-cover).
    Gate what it wrote with `check-templates --all-cases`.

    \b
    Example:
      mcpbench author cross-templates --check x_t_fix_pr_on_followups
    """
    from tasks_catalog.authoring.cross import OUT_DIR, modules, write_all

    names = tuple(name.replace("-", "_") for name in names)
    unknown = sorted(set(names) - set(modules()))
    if unknown:
        click.echo(f"error: no cross-server template module {', '.join(unknown)} (modules: {', '.join(modules())})",
                   err=True)
        sys.exit(2)
    changed = write_all(OUT_DIR, check=check, names=list(names) or None)
    for path in changed:
        click.echo(f"{'stale' if check else 'wrote'} {path}")
    if check and changed:
        sys.exit(1)


@author.command(name="seal-pool")
@click.argument("pool_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--store", "store_root", default=None, help="Store root (default: $MCPBENCH_STORE or .mcpbench/store).")
@click.option("--replace", is_flag=True, help="Replace the sealed pool already in the store.")
def seal_pool(pool_dir: Path, store_root: str | None, replace: bool) -> None:
    """Seal a private template pool into the store (private/pool.sealed), AES-GCM under a key derived
    from MCPBENCH_SECRET. From then on `mcpbench rotate` and the rotate-month flow render every month from
    it (unless --pool is given), so the plaintext folder need not stay beside the pipeline. Every template
    must load and the pool must fill a month (16 templates per server, 2 of them recovery); check them
    with `mcpbench author check-templates` first. Prints counts only.

    \b
    Example:
      MCPBENCH_SECRET=... mcpbench author seal-pool tasks_catalog/templates
    """
    from runstore.store import open_store
    from tasks_catalog.months import POOL_KEY, MonthError
    from tasks_catalog.months import seal_pool as seal
    from tasks_catalog.sealed import SealError
    from tasks_catalog.templates import TemplateError, load_pool

    try:
        store = open_store(store_root)
        counts = seal(store, load_pool(pool_dir), replace=replace)
    except (MonthError, SealError, TemplateError) as exc:
        raise click.ClickException(str(exc)) from None
    per_server = ", ".join(f"{n} {server}" for server, n in counts.items())
    click.echo(f"sealed {sum(counts.values())} templates ({per_server}) into {store.url(POOL_KEY)}")
