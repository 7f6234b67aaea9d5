"""``mcpbench run``: evaluate an agent on a task set and print its score card."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from mcpbench.commands._store import open_store_for, store_option

if TYPE_CHECKING:
    from tasks_catalog.loader import TaskError


@click.command()
@click.option("--agent", "agent_spec", required=True,
              help="oracle | noop | liar | random | command:<argv> | http:<url> | openai[:model] | "
                   "interactive[:<file or fifo>]")
@click.option("--split", default="dev", show_default=True,
              help="'dev' (the public dev set), a private month YYYY-MM (needs MCPBENCH_SECRET), or a "
                   "retired month Historical-YYYY-MM (its published plaintext, checked against its attestation).")
@click.option("--tasks-dir", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Run the tasks under this folder instead of a split (split dir:<folder name>; never ranks). "
                   "A file that does not load is reported with its JSON path; the others still run, and the "
                   "exit code is 1.")
@click.option("--tasks", "task_ids", multiple=True, help="Only these task ids (repeatable).")
@click.option("--concurrency", type=click.IntRange(1, 64), default=2, show_default=True)
@click.option("--trials", type=click.IntRange(1, 100), default=1, show_default=True,
              help="Run every task this many times, each on a fresh backend (pass@1, pass^k, pass@k).")
@click.option("--sandbox", "sandbox_name", type=click.Choice(["local", "docker", "none"]), default="local",
              show_default=True, help="'none' runs the agent unisolated (trusted agents only).")
@store_option()
@click.option("--submission-id", default=None, help="Default: local-<agent>-<UTC timestamp>.")
@click.option("--submitter", default=None, help="Default: $USER or 'local'.")
@click.option("--publish-goals", is_flag=True, help="Store goal text in the trace (redacted by default).")
@click.option("--json", "as_json", is_flag=True, help="Print the score card as one JSON object.")
def run(agent_spec: str, split: str, tasks_dir: Path | None, task_ids: tuple[str, ...], concurrency: int,  # noqa: C901, PLR0912, PLR0915 - to split: checking the options apart from running (docs/design.md)
        trials: int, sandbox_name: str, store_root: str | None, submission_id: str | None, submitter: str | None,
        publish_goals: bool, as_json: bool) -> None:
    """Run an agent on every task of a split, land the trace, print the score card.

    Pass or fail is decided from each server's final state; every metric comes from the calls the
    gateway observed. Runs and calls land as Parquet in the store. Private and historical months
    rank on `mcpbench leaderboard` (--historical); the dev set and folders never rank.

    \b
    Examples:
      mcpbench run --agent oracle --split dev
      mcpbench run --agent "command:python agent/my_agent.py" --tasks slack-announce-release --json
      mcpbench run --agent oracle --split Historical-2026-11
      OPENAI_BASE_URL=http://127.0.0.1:8080/v1 mcpbench run --agent openai:my-model --trials 3

    Models are reached through the harness's model gateway (docs/agents.md): the upstream is
    MCPBENCH_MODEL_UPSTREAM or OPENAI_BASE_URL, its key MCPBENCH_MODEL_UPSTREAM_KEY or OPENAI_API_KEY.
    """
    from mcpbench.agents.spec import AgentSpecError, check_agent_reads, parse_agent
    from mcpbench.evaluation import evaluate, load_folder, load_split, make_submission, open_sandbox, operator_paths
    from mcpbench.model_gateway import ModelSettingsError
    from mcpbench.runner import model_settings_for, uses_model
    from mcpbench.sandbox import SandboxUnavailable
    from runstore.split import Split, SplitError
    from tasks_catalog.loader import TaskLoadError
    from tasks_catalog.months import MonthError
    from tasks_catalog.sealed import SealError

    try:
        agent = parse_agent(agent_spec)
    except AgentSpecError as exc:
        raise click.BadParameter(str(exc), param_hint="--agent") from None
    if uses_model(agent):
        try:
            model_settings_for(agent)
        except ModelSettingsError as exc:
            raise click.ClickException(f"model gateway settings: {exc}") from None
    try:
        parsed = Split.folder(tasks_dir.resolve().name) if tasks_dir is not None else Split.parse(split)
    except SplitError as exc:
        raise click.BadParameter(str(exc), param_hint="--split") from None
    split = parsed.text
    from runstore.store import StoreError

    store = open_store_for(store_root, "write")  # before any task loads or agent runs
    try:
        check_agent_reads(agent, operator_paths(store))
    except AgentSpecError as exc:
        raise click.BadParameter(str(exc), param_hint="--agent") from None
    refused: list[TaskError] = []  # task files under --tasks-dir that do not load: each reported, the others still judged
    try:
        if tasks_dir is not None:
            tasks, refused = load_folder(tasks_dir, list(task_ids) or None)
        else:
            tasks = load_split(split, store=store, task_ids=list(task_ids) or None)
    except TaskLoadError as exc:
        raise click.ClickException(f"the task set does not load:\n{exc}") from None
    except (LookupError, MonthError, SealError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    for error in refused:
        click.echo(f"error: {error.located()}", err=True)
    if refused and not tasks:
        raise click.ClickException(f"no task under {tasks_dir} loads ({len(refused)} errors above)")
    try:
        sandbox = open_sandbox(agent, sandbox_name)
    except SandboxUnavailable as exc:
        raise click.ClickException(f"sandbox {sandbox_name!r} is unavailable: {exc}") from None
    if sandbox is not None and not sandbox.isolates:
        click.echo("warning: --sandbox none runs the agent with no isolation; use it only for agents "
                   "you trust", err=True)
    submission = make_submission(agent, split, submission_id=submission_id, submitter=submitter,
                                 publish_goals=publish_goals)
    try:
        # an interactive agent prints the goal and results on stdout: no progress bar beside it
        with _progress(len(tasks) * trials, quiet=as_json or agent.name == "interactive") as advance:
            summary, results = evaluate(tasks, agent, submission, store=store, sandbox=sandbox,
                                        concurrency=concurrency, on_result=advance, trials=trials)
    except StoreError as exc:
        raise click.ClickException(f"the store {store.url()} failed: {_first_line(exc)}") from None
    if summary.skipped:
        click.echo(f"resumed: {summary.skipped} runs had already landed", err=True)
    if summary.not_landed:
        why = next(r.run.infra_error for r in results if r.run.end_reason == "infra:store")
        assert why is not None  # an infra error's record always says what failed
        click.echo(f"error: {len(summary.not_landed)} of {summary.ran} runs did not land in {store.url()} "
                   f"({why.removeprefix('store: the run did not land: ')}); the same command with "
                   f"--submission-id {submission.submission_id} runs exactly those again", err=True)

    import duckdb

    from warehouse.scorecard import format_scorecard, scorecard
    from warehouse.sources import CorruptFileError

    try:
        card = scorecard(submission.submission_id, store=store)
    except CorruptFileError as exc:  # which files, and how to recover
        raise click.ClickException(str(exc)) from None
    except (StoreError, OSError, LookupError, duckdb.Error) as exc:
        if summary.not_landed:
            sys.exit(1)  # said above, in one line
        raise click.ClickException(f"cannot read the score card from {store.url()}: {_first_line(exc)}") from None
    if as_json:
        click.echo(json.dumps({**card["overall"], "submission_id": card["submission_id"], "agent": card["agent"],
                               "split": card["split"], "by_server": card["by_server"],
                               "trials": card["trials"], "frame_violations": card["frame_violations"],
                               **({"task_errors": [e.located() for e in refused]} if tasks_dir else {})},
                              indent=2))
    else:
        click.echo(format_scorecard(card))
        click.echo(f"landed in {store.url()}")
    lines = [failure_line(r.run) for r in results if r.run.status != "passed"]
    if lines:
        click.echo(f"{len(lines)} runs did not pass:", err=True)
        for line in lines:
            click.echo(f"  {line}", err=True)
    if refused:
        files = sorted({e.file or e.task for e in refused})
        click.echo(f"error: {len(files)} task files under {tasks_dir} were refused (above) and not run; "
                   f"the other {len(tasks)} tasks were judged", err=True)
    if summary.not_landed or refused:
        sys.exit(1)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def failure_line(run) -> str:
    """One line on why a run did not pass: its end reason (with the limit that ended the agent, if one
    did), exit code, and the last line the agent (or, for an infra error, our side) wrote on stderr."""
    limit = run.end_reason_detail if run.end_reason_detail in ("connection limit", "memory limit", "pids limit") else None
    parts = [f"{run.task_id}: {run.end_reason}" + (f" ({limit})" if limit else "")]
    if run.exit_code is not None:
        parts.append(f"exit {run.exit_code}")
    detail = run.infra_error if run.status == "infra_error" else run.stderr_tail
    last = next((line.strip() for line in reversed((detail or "").splitlines()) if line.strip()), "")
    if last:
        parts.append(last[:160])
    return " | ".join(parts)


class _progress:
    """A progress bar on stderr (nothing when quiet or not a terminal-friendly run)."""

    def __init__(self, total: int, quiet: bool) -> None:
        self.total, self.quiet = total, quiet

    def __enter__(self):
        if self.quiet:
            return lambda result: None
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                             TimeElapsedColumn(), console=Console(stderr=True), transient=not sys.stderr.isatty())
        self._bar.__enter__()
        task = self._bar.add_task("running", total=self.total)

        def advance(result) -> None:
            self._bar.update(task, advance=1, description=f"{result.run.task_id}: {result.run.status}")

        return advance

    def __exit__(self, *exc) -> None:
        if not self.quiet:
            self._bar.__exit__(*exc)
