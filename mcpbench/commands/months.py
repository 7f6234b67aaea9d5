"""``mcpbench rotate`` and ``mcpbench attest``: the monthly private set."""

from __future__ import annotations

import json
import sys

import click

from mcpbench.commands._store import open_store_for, store_option


def print_rotation(report: dict, as_json: bool) -> None:
    """Print a rotation's public report (``RotationReport.public()``: ids and counts only)."""
    if as_json:
        click.echo(json.dumps(report, indent=2))
        return
    month = report["month"]
    cached = report.get("gate_cached", 0)
    click.echo(f"gate verifiers: {' + '.join(report['verifiers']) or 'none'}"
               + (f" ({cached} of {report['tasks']} tasks accepted before, unchanged: not judged again)" if cached else ""))
    for task_id in report["gate_failures"]:
        click.echo(f"FAIL {task_id}")
    if report["gate_failures"]:
        click.echo(f"month {month} NOT sealed: {len(report['gate_failures'])} of {report['tasks']} tasks failed the "
                   "acceptance gate (reasons are not printed: they can quote the month's sampled values; "
                   "see --reasons-file)")
        return
    leaked = report["leaked_replaced"]
    click.echo(f"month {month}: {report['tasks']} tasks sealed and attested "
               f"({report['carried']} carried over with fresh parameters, {report['replaced']} replaced"
               f"{f', {leaked} of them flagged as leaked' if leaked else ''})")
    if report["retired"]:
        click.echo(f"retired and published {report['retired']}")


@click.command()
@click.option("--month", required=True, help="The month to build, YYYY-MM.")
@store_option()
@click.option("--pool", "pool_dir", default=None, type=click.Path(exists=True, file_okay=False),
              help="Template folder (default: the operator's sealed pool in the store, else the public demo pool).")
@click.option("--leaked", multiple=True, help="Task id flagged as possibly leaked: its template is replaced first.")
@click.option("--keep-previous", is_flag=True, help="Do not retire (publish) the month before.")
@click.option("--reasons-file", type=click.Path(dir_okay=False), default=None,
              help="Write the gate's reasons for failing tasks to this file (mode 0600); they can quote the "
                   "month's sampled values, so they are never printed.")
@click.option("--gate-processes", type=click.IntRange(min=1), default=None,
              help="Processes that gate the month together (default: one per core, at most 4). With "
                   "MCPBENCH_GATE_CACHE set, tasks accepted before by the same code are not judged again.")
@click.option("--json", "as_json", is_flag=True, help="Print the rotation report as JSON.")
def rotate(month: str, store_root: str | None, pool_dir: str | None, leaked: tuple[str, ...],
           keep_previous: bool, reasons_file: str | None, gate_processes: int | None, as_json: bool) -> None:
    """Build, gate, seal and attest a private month; retire the month before.

    Needs the operator's secret in MCPBENCH_SECRET. The month is rendered from the template pool
    with a seed derived from the secret and the month; about a quarter of each server's templates
    are replaced relative to the month before and the rest re-rendered with fresh parameters. Every
    task must pass the acceptance gate of both verifiers (Python and TypeScript) before anything is
    written: where the TypeScript verifier is not built it is built first (npm ci && npm run build), and
    where it cannot be the rotation stops, saying why. Only ids and counts are printed, and progress
    lines (each stage, every tenth of the tasks gated) go to stderr.

    \b
    Example:
      MCPBENCH_SECRET=... mcpbench rotate --month 2026-12
    """
    import os

    from mcpbench.progress import ProgressLines
    from runstore.store import StoreError
    from tasks_catalog.gate import GateUnavailable, sealed_month_gate
    from tasks_catalog.months import MonthError, load_operator_pool
    from tasks_catalog.months import rotate as rotate_month
    from tasks_catalog.sealed import SealError
    from tasks_catalog.templates import TemplateError

    store = open_store_for(store_root, "write")  # before the gate starts
    try:
        with ProgressLines(0, "tasks") as progress:
            progress.say(f"rotating {month} in {store.url()}")
            gate = sealed_month_gate()  # builds the TypeScript verifier where it is not built, or refuses
            pool = load_operator_pool(store, pool_dir=pool_dir)
            report = rotate_month(store, month, pool=pool, leaked_task_ids=set(leaked),
                                  retire_previous=not keep_previous, gate=gate,
                                  gate_processes=gate_processes or min(os.cpu_count() or 1, 4), progress=progress)
    except (GateUnavailable, MonthError, SealError, StoreError, TemplateError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    if reasons_file and report.reasons:
        fd = os.open(reasons_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(report.reasons, f, indent=1)
    print_rotation(report.public(), as_json)
    sys.exit(1 if report.gate_failures else 0)


@click.group()
def attest() -> None:
    """Attestation of private months: verify a retired month against its committed hashes.

    \b
    Example:
      mcpbench attest verify Historical-2026-11
    """


@attest.command()
@click.argument("tag")
@store_option()
@click.option("--json", "as_json", is_flag=True)
def verify(tag: str, store_root: str | None, as_json: bool) -> None:
    """Check a retired month's published plaintext against the hashes committed at its start.

    Every task's SHA-256 (RFC 8785 canonical JSON) is recomputed from the published plaintext and
    compared with the list published when the month began; one changed byte fails, naming the task.

    \b
    Example:
      mcpbench attest verify Historical-2026-11
    """
    from runstore.store import StoreError
    from tasks_catalog.months import MonthError, verify_historical

    store = open_store_for(store_root, "read")
    try:
        report = verify_historical(store, tag)
    except (MonthError, StoreError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps({"tag": tag, "ok": report.ok, "checked": report.checked, "problems": report.problems}))
    else:
        for p in report.problems:
            click.echo(f"FAIL {p}")
        click.echo(f"{tag}: {report.checked} tasks checked, {len(report.problems)} problems")
    sys.exit(0 if report.ok else 1)
