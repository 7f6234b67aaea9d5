"""Evaluating a submission: the plain functions ``mcpbench run`` and the Prefect flows all call. Tasks
are named by id; a private month's tasks are decrypted in memory here and nowhere else, so no task body
ever crosses a flow boundary or reaches the store.

Re-running an evaluation resumes it: runs already landed are skipped, except infra errors (our
failures), which are run again. A run's id is stable per (submission, task, trial), so a re-landed
run replaces its files and nothing is duplicated.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mcpbench import _worker
from mcpbench.agents.spec import Agent, check_agent_reads, parse_agent
from mcpbench.runner import RunResult, Submission, not_landed, open_sandbox, run_tasks, run_with_requeues
from mcpbench.splits import load_folder, load_split
from runstore.split import Split
from tasks_catalog.schema import Task


@dataclass
class EvaluationSummary:
    """Ids and counts only: safe for logs and for Prefect's result storage."""

    submission_id: str
    split: str
    total: int
    ran: int
    skipped: int
    passed: int
    failed: int
    infra_errors: list[str] = field(default_factory=list)
    #: tasks whose run could not land in the store (also in ``infra_errors``); resuming runs them again
    not_landed: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return self.__dict__.copy()


def make_submission(agent: Agent, split: str | Split, *, submission_id: str | None = None, submitter: str | None = None,
                    publish_goals: bool = False, month: str | None = None, label: str | None = None) -> Submission:
    """The labels of an evaluation. ``month`` (the partition) defaults to the split's month for a
    private or historical split, else the current UTC month; goals are never published on a private one.
    ``label`` names the agent and its version (``my-agent@1.2``); ``ValueError`` when it is not a label."""
    import os
    import secrets

    from runstore.records import check_label

    now = datetime.now(UTC)
    parsed = Split.parse(split)
    return Submission(
        # the time for a reader, a random tail so that two runs started in the same second never share runs
        submission_id=submission_id or f"local-{agent.name.split(':')[0]}-{now:%Y%m%dT%H%M%S}-{secrets.token_hex(3)}",
        submitter=submitter or os.environ.get("USER") or "local",
        agent=agent.name, split=parsed.text, month=month or parsed.month or f"{now:%Y-%m}",
        publish_goals=publish_goals and not parsed.is_private, private=parsed.is_private,
        label=check_label(label) if label is not None else None,
    )


def operator_paths(store, db_path: str | Path | None = None) -> list[tuple[str, str]]:
    """The operator's data no agent may read, as (what, path) pairs: a local store's root and the
    warehouse file (``db_path``, default ``$MCPBENCH_WAREHOUSE`` or ``.mcpbench/warehouse.duckdb``)."""
    from runstore.store import LocalStore, default_warehouse

    paths = [("the warehouse", str(Path(db_path or default_warehouse()).expanduser().resolve()))]
    if isinstance(store, LocalStore):  # an S3 store has nothing on this host
        paths.insert(0, ("the store", str(store.path)))
    return paths


#: How many times ``evaluate`` requeues a run that ended as an infra error before counting it apart.
INFRA_RETRIES = 2


#: Infra errors whose cause retries on its own (with backoff) before giving up: not requeued by ``evaluate``.
SELF_RETRYING = ("infra:store", "infra:model_unavailable")


def _requeue(result: RunResult) -> bool:
    return result.run.status == "infra_error" and result.run.end_reason not in SELF_RETRYING


def _unless_infra(on_result):
    """``on_result`` for a pass that will be retried: infra errors are not reported until the last pass."""
    if on_result is None:
        return None
    return lambda result: None if _requeue(result) else on_result(result)


def finished_run_ids(store, submission_id: str) -> set[str]:
    """The runs of ``submission_id`` that have landed and need no re-run: all but infra errors.
    Landings a kill or a dead store interrupted are finished or undone first (``repair_landings``)."""
    store.repair_landings(submission_id)
    landed = store.landed_run_ids(submission_id)
    if not landed:
        return set()
    runs = store.read_runs(submission_id).select(["run_id", "status"]).to_pylist()
    return landed - {r["run_id"] for r in runs if r["status"] == "infra_error"}


def evaluate(tasks: list[Task], agent: Agent | str, submission: Submission, *, store, sandbox="local",  # noqa: PLR0913 - past the third, keyword-only options
             concurrency: int = 2, resume: bool = True, on_result=None, trials: int = 1,
             trial_numbers: list[int] | None = None,
             infra_retries: int = INFRA_RETRIES) -> tuple[EvaluationSummary, list[RunResult]]:
    """Run ``agent`` on ``tasks`` (each ``trials`` times, or only the trials named in ``trial_numbers``)
    and land every run in ``store`` as it finishes. ``sandbox`` is a backend name or an opened sandbox.
    A run that ends as an infra error is run again up to ``infra_retries`` times; one still failing then
    is counted apart (``infra_errors``)."""
    import anyio

    if trials < 1:
        raise ValueError(f"trials must be at least 1, got {trials}")
    agent = parse_agent(agent) if isinstance(agent, str) else agent
    check_agent_reads(agent, operator_paths(store))  # before any run: never a folder holding the store
    skip = finished_run_ids(store, submission.submission_id) if resume else set()
    numbers = trial_numbers or list(range(1, trials + 1))
    pairs = [(t, k) for t in tasks for k in numbers]
    todo = [(t, k) for t, k in pairs if submission.run_id(t, k) not in skip]
    box = open_sandbox(agent, sandbox) if isinstance(sandbox, str) else sandbox
    by_id: dict[str, RunResult] = {}
    for attempt in range(infra_retries + 1):
        # An infra error (our failure) is requeued a bounded number of times; its re-run replaces its record.
        # (The store and the model gateway retry with backoff themselves: theirs are not run again here.)
        queue = todo if attempt == 0 else [(t, k) for t, k in todo if _requeue(by_id[submission.run_id(t, k)])]
        if not queue:
            break
        final = attempt == infra_retries
        ran = anyio.run(lambda: run_tasks([], agent, sandbox=box, submission=submission, concurrency=concurrency,
                                          land=lambda r: store.land_run(r.run, r.calls, r.turns),  # noqa: B023 - anyio.run runs it to the end inside this iteration
                                          on_result=on_result if final else _unless_infra(on_result), runs=queue))  # noqa: B023 - anyio.run runs it to the end inside this iteration
        by_id.update((r.run.run_id, r) for r in ran)
    results = [by_id[submission.run_id(t, k)] for t, k in todo]
    summary = EvaluationSummary(
        submission_id=submission.submission_id, split=submission.split, total=len(pairs), ran=len(results),
        skipped=len(pairs) - len(todo), passed=sum(r.run.passed for r in results),
        failed=sum(r.run.status == "failed" for r in results),
        infra_errors=[r.run.task_id for r in results if r.run.status == "infra_error"],
        not_landed=[r.run.task_id for r in results if r.run.end_reason == "infra:store"],
    )
    return summary, results


@dataclass(frozen=True)
class RunOutcome:
    """One run by ids and status (passed, failed, infra_error): what a flow task returns and logs.
    ``end_reason`` (a class such as ``infra:store``, never task text) says why; ``to_json`` keeps the
    ids and status only."""

    task_id: str
    run_id: str
    status: str
    end_reason: str = ""

    def to_json(self) -> dict[str, str]:
        return {"task_id": self.task_id, "run_id": self.run_id, "status": self.status}


def pending_runs(task_ids: list[str], submission: Submission, *, store, trials: int = 1) -> list[tuple[str, int]]:
    """The ``(task id, trial)`` pairs of ``trials`` trials per task whose run has not landed (infra
    errors excepted): what is left to run."""
    done = finished_run_ids(store, submission.submission_id)
    return [(i, k) for i in task_ids for k in range(1, trials + 1) if submission.run_id(i, k) not in done]


def evaluate_task(task_id: str, agent: Agent | str, submission: Submission, *, store, sandbox="local",
                  secret: str | bytes | None = None, tasks_dir: Path | None = None, trial: int = 1) -> RunOutcome:
    """Run one task (trial ``trial``), named by id, and land its run. The task is loaded (a private one
    decrypted) here, in memory, so a caller passes and gets back ids only.

    A fan-out calls this once per task, from many threads and worker processes: each process loads (and
    unseals) a split once, opens each sandbox backend once, serves every run's gateway from one gateway
    host and, for agents that use a model, every run's model endpoint from one model gateway
    (``mcpbench._worker``), so a month of n tasks costs O(n), not O(n^2). A run whose model stayed
    unavailable is requeued as ``evaluate`` requeues it (the model settings' ``requeues``); no other
    requeue here: the caller (a Prefect task with retries) retries an infra error itself."""
    tasks = _worker.split_tasks(submission.split, store=store, secret=secret, tasks_dir=tasks_dir)
    if task_id not in tasks:
        raise LookupError(f"no such task in split {submission.split}: {task_id}")
    agent = parse_agent(agent) if isinstance(agent, str) else agent
    box = _worker.sandbox_for(agent, sandbox) if isinstance(sandbox, str) else sandbox
    loop = _worker.gateway_loop()
    models = _worker.model_gateway(agent)
    result = loop.call(lambda: run_with_requeues(tasks[task_id], agent, host=loop.host, sandbox=box,
                                                 submission=submission, models=models, trial=trial))
    try:
        store.land_run(result.run, result.calls, result.turns)
    except Exception as exc:  # noqa: BLE001 - as in run_tasks: an infra error of kind store, not landed
        result = not_landed(result, exc, private=submission.private)
    return RunOutcome(task_id=task_id, run_id=result.run.run_id, status=result.run.status,
                      end_reason=result.run.end_reason)


__all__ = ["INFRA_RETRIES", "EvaluationSummary", "RunOutcome", "evaluate", "evaluate_task", "finished_run_ids",
           "load_folder", "load_split", "make_submission", "open_sandbox", "operator_paths", "pending_runs"]
