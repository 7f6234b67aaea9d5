"""``mcpbench run``: evaluate an agent on a task set and print its score card."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from mcpbench.commands._store import open_store_for, store_option

if TYPE_CHECKING:
    from mcpbench.progress import ProgressLines
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
@click.option("--tasks", "task_ids", multiple=True,
              help="Only these tasks: ids or patterns (slack-*, pg-?-order), comma-separated or repeated. An entry "
                   "that selects no task is an error, before anything runs.")
@click.option("--concurrency", type=click.IntRange(1, 64), default=2, show_default=True)
@click.option("--trials", type=click.IntRange(1, 100), default=1, show_default=True,
              help="Run every task this many times, each on a fresh backend (pass@1, pass^k, pass@k).")
@click.option("--sandbox", "sandbox_name", type=click.Choice(["local", "docker", "none"]), default="local",
              show_default=True, help="'none' runs the agent unisolated (trusted agents only).")
@store_option()
@click.option("--submission-id", default=None, help="Default: local-<agent>-<UTC timestamp>.")
@click.option("--submitter", default=None, help="Default: $USER or 'local'.")
@click.option("--label", default=None,
              help="Your name for the agent and its version, e.g. my-agent@1.2: stored on every run and shown on "
                   "the score card, the leaderboards and the report (a command: agent is otherwise recorded only "
                   "as its command line).")
@click.option("--publish-goals", is_flag=True, help="Store goal text in the trace (redacted by default).")
@click.option("--json", "as_json", is_flag=True,
              help="Print the score card as one JSON object, with every run's result under \"runs\" (its status, "
                   "why it ended and, for a run that did not pass, its explanation).")
def run(agent_spec: str, split: str, tasks_dir: Path | None, task_ids: tuple[str, ...], concurrency: int,  # noqa: C901, PLR0912, PLR0915 - to split: checking the options apart from running (docs/design.md)
        trials: int, sandbox_name: str, store_root: str | None, submission_id: str | None, submitter: str | None,
        label: str | None, publish_goals: bool, as_json: bool) -> None:
    """Run an agent on every task of a split, land the trace, print the score card.

    Pass or fail is decided from each server's final state; every metric comes from the calls the
    gateway observed. Runs and calls land as Parquet in the store. Private and historical months
    rank on `mcpbench leaderboard` (--historical); the dev set and folders never rank.

    \b
    Examples:
      mcpbench run --agent oracle --split dev
      mcpbench run --agent "command:python agent/my_agent.py" --label my-agent@1.2 --tasks "slack-announce-*,slack-archive-resolved-incident" --json
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
    from mcpbench.splits import task_selection
    from runstore.records import check_label
    from runstore.split import Split, SplitError
    from tasks_catalog.loader import TaskLoadError
    from tasks_catalog.months import MonthError
    from tasks_catalog.sealed import SealError

    try:
        agent = parse_agent(agent_spec)
    except AgentSpecError as exc:
        raise click.BadParameter(str(exc), param_hint="--agent") from None
    try:
        selection = task_selection(task_ids)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--tasks") from None
    if label is not None:
        try:
            check_label(label)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--label") from None
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
            tasks, refused = load_folder(tasks_dir, selection)
        else:
            tasks = load_split(split, store=store, task_ids=selection)
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
                                 publish_goals=publish_goals, label=label)
    try:
        # an interactive agent prints the goal and results on stdout: no progress bar beside it
        with _progress(len(tasks) * trials, quiet=as_json or agent.name == "interactive",
                       start=f"running {len(tasks) * trials} runs of {label or agent.name} on {split} "
                             f"(submission {submission.submission_id}, concurrency {concurrency})") as advance:
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
                               "label": card.get("label"), "split": card["split"], "by_server": card["by_server"],
                               "trials": card["trials"], "frame_violations": card["frame_violations"],
                               "runs": [run_json(r.run, r.calls) for r in results],
                               **({"task_errors": [e.located() for e in refused]} if tasks_dir else {})},
                              indent=2, default=str))
    else:
        click.echo(format_scorecard(card))
        click.echo(f"landed in {store.url()}")
    failed = [r for r in results if r.run.status != "passed"]
    if failed:
        click.echo(f"{len(failed)} runs did not pass:", err=True)
        for result in failed:
            click.echo(f"  {failure_line(result.run)}", err=True)
            for line in [*explanation_lines(result.run), *calls_lines(result.calls)]:
                click.echo(f"      {line}", err=True)
    if refused:
        files = sorted({e.file or e.task for e in refused})
        click.echo(f"error: {len(files)} task files under {tasks_dir} were refused (above) and not run; "
                   f"the other {len(tasks)} tasks were judged", err=True)
    if summary.not_landed or refused:
        sys.exit(1)


#: How much of a call's arguments and result a line or ``--json`` shows (the store keeps more).
CALL_SHOWN = 300


def run_json(run, calls=()) -> dict:
    """One run's result for ``--json``: its ids, status, why it ended, counts and times, and, for a run
    that did not pass, its explanation as an object (``runstore.records.Explanation``) and its calls in
    order (tool, error, fault, arguments and result, each cut at CALL_SHOWN characters)."""
    keep = ("task_id", "trial", "run_id", "server", "status", "passed", "end_reason", "end_reason_detail", "exit_code",
            "tool_calls", "max_steps", "errors_observed", "faults_injected", "frame_held", "duration_s", "infra_error")
    out = {k: getattr(run, k) for k in keep}
    out["explanation"] = json.loads(run.explanation) if run.explanation else None
    if not run.passed:
        out["calls"] = [{"seq": c.seq, "tool": c.tool, "listed": c.listed, "error_kind": c.error_kind,
                         "fault": c.fault, "arguments": c.arguments_json[:CALL_SHOWN],
                         "result": (c.result_text or "")[:CALL_SHOWN] if c.result_text is not None else None}
                        for c in calls]
    return out


def calls_lines(calls) -> list[str]:
    """The calls of a run that did not pass, in a line or two: how many, those answered with an error
    (at most three) and the last one, each by its number, tool and how it was answered."""
    if not calls:
        return ["calls: none"]

    def call(c) -> str:
        answer = (f"{c.error_kind}" + (f" ({c.fault})" if c.fault else "") if c.is_error else "ok")
        return f"#{c.seq} {c.tool} {answer}"

    errors = [c for c in calls if c.is_error]
    line = f"calls: {len(calls)}; last {call(calls[-1])}"
    if errors:
        line += f"; errors: {', '.join(call(c) for c in errors[:3])}" + (" ..." if len(errors) > 3 else "")
    return [line]


def explanation_lines(run) -> list[str]:
    """The run's explanation as lines (``Explanation.lines``): which clause failed, expected against found,
    which entities broke the frame; nothing when the record holds none."""
    from runstore.records import Explanation

    if not run.explanation:
        return []
    try:
        return Explanation.model_validate_json(run.explanation).lines()
    except ValueError:
        return []


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
    """Progress on stderr: a bar on a terminal, plain lines (``ProgressLines``) otherwise; nothing when quiet."""

    def __init__(self, total: int, quiet: bool, start: str = "") -> None:
        self.total, self.quiet, self.start = total, quiet, start
        self._lines: ProgressLines | None = None

    def __enter__(self):
        if self.quiet:
            return lambda result: None
        from mcpbench.progress import ProgressLines, stderr_is_terminal

        if not stderr_is_terminal():
            self._lines = ProgressLines(self.total, "runs").__enter__()
            if self.start:
                self._lines.say(self.start)
            return lambda result: self._lines.advance(result.run.status.replace("_", " "))
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._bar = Progress(TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                             TimeElapsedColumn(), console=Console(stderr=True), transient=False)
        self._bar.__enter__()
        task = self._bar.add_task("running", total=self.total)

        def advance(result) -> None:
            self._bar.update(task, advance=1, description=f"{result.run.task_id}: {result.run.status}")

        return advance

    def __exit__(self, *exc) -> None:
        if self.quiet:
            return
        if self._lines is not None:
            self._lines.__exit__(*exc)
        else:
            self._bar.__exit__(*exc)
