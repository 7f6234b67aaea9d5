"""``evaluate_submission``: one run per task id, fanned out with bounded concurrency, each landed as it
finishes; then the warehouse is rebuilt and the anomaly flags read.

Only infra errors (our side failed to dispatch the run) are retried: the run is landed as an infra
error and :class:`InfraError` raised, which Prefect retries. An agent's failure is a result and returns
normally. Re-running the flow with the same ``submission_id`` resumes: runs already landed are skipped
(infra errors are run again), and a re-landed run replaces its files, so nothing is duplicated.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from prefect import flow, task
from pydantic import Field

from flows._common import PRIVATE, db_location, logger, open_checked, run_name, store_root
from flows._runners import task_runner
from flows.scoring import build_warehouse, read_flags
from mcpbench.runner import Submission


class InfraError(RuntimeError):
    """A run could not be dispatched (our failure, not the agent's); Prefect retries the task."""


def retry_only_infra_errors(task, task_run, state) -> bool:
    """Prefect's retry condition: retry a run task only when it failed with :class:`InfraError`."""
    try:
        exc = state.result(raise_on_failure=False)
    except Exception:  # noqa: BLE001 - a result that cannot be read is not an infra error of a run
        return False
    return isinstance(exc, InfraError)


@task(name="list-task-ids", **PRIVATE)
def list_task_ids(split: str, store: str, task_ids: list[str] | None = None, tasks_dir: str | None = None) -> list[str]:
    """The ids of the split's tasks (a private month is decrypted here and only ids leave), or of the
    task files under ``tasks_dir`` (a ``dir:<name>`` split)."""
    from pathlib import Path

    from mcpbench.evaluation import load_split
    from runstore.store import open_store

    folder = Path(tasks_dir) if tasks_dir else None
    return [t.id for t in load_split(split, store=open_store(store), task_ids=task_ids, tasks_dir=folder)]


@task(name="run-task", task_run_name="run-{task_id}-t{trial}", retries=2, retry_delay_seconds=5,
      retry_condition_fn=retry_only_infra_errors, **PRIVATE)
def run_task(task_id: str, agent: str, submission: Submission, store: str, sandbox: str = "local",
             trial: int = 1, tasks_dir: str | None = None) -> dict[str, str]:
    """Load the task by id (decrypting a private month in memory; from ``tasks_dir`` for a folder), run
    ``agent`` on it (trial ``trial``) and land the run. Returns the run's ids and status; raises
    :class:`InfraError` on an infra error so it is retried."""
    from pathlib import Path

    from mcpbench.evaluation import evaluate_task
    from runstore.store import open_store

    outcome = evaluate_task(task_id, agent, submission, store=open_store(store), sandbox=sandbox, trial=trial,
                            tasks_dir=Path(tasks_dir) if tasks_dir else None)
    logger().info("%s: %s", outcome.run_id, outcome.status)
    if outcome.status == "infra_error":
        raise InfraError(infra_message(outcome))
    return outcome.to_json()


def infra_message(outcome) -> str:
    """Why a run task is retried, truthfully: a run the store refused was not landed at all; any other
    infra error was landed as a row that says why."""
    if outcome.end_reason == "infra:store":
        return (f"run {outcome.run_id} could not be landed in the store (infra:store): nothing of it was "
                "landed, and the retry runs it again")
    kind = outcome.end_reason or "infra error"
    return f"run {outcome.run_id} was not dispatched ({kind}); its landed run row says why"


@flow(name="run-tasks", persist_result=False, flow_run_name=run_name("runs of {submission.submission_id}"))
def run_all(task_ids: list[str], agent: str, submission: Submission, store: str,
            sandbox: str = "local", trials: list[int] | None = None, tasks_dir: str | None = None) -> list[dict[str, str]]:
    """Fan out one ``run-task`` per id (and per trial: ``trials[i]`` is the trial of ``task_ids[i]``,
    1 by default) on the flow's task runner; a run still failing after its retries is reported as an
    infra error, and the others carry on."""
    numbers = trials or [1] * len(task_ids)
    futures = [(tid, k, run_task.submit(tid, agent, submission, store, sandbox, k, tasks_dir))
               for tid, k in zip(task_ids, numbers)]
    outcomes = []
    for tid, k, future in futures:
        future.wait()
        if future.state.is_completed():
            outcomes.append(future.result())
        else:
            outcomes.append({"task_id": tid, "run_id": submission.run_id(tid, k), "status": "infra_error"})
    return outcomes


@flow(name="evaluate-submission", persist_result=False,
      flow_run_name=run_name("{submission_id|label|agent} on {split}"))
def evaluate_submission(agent: str, split: str = "dev", submission_id: str | None = None,
                        submitter: str | None = None,
                        concurrency: Annotated[int, Field(ge=1, le=64)] = 4,
                        sandbox: Literal["local", "docker", "none"] = "local",
                        store: str | None = None, db_path: str | None = None, task_ids: list[str] | None = None,
                        runner: str | None = None, trials: Annotated[int, Field(ge=1, le=100)] = 1,
                        label: str | None = None, tasks_dir: str | None = None) -> dict[str, Any]:
    """Evaluate an agent on every task of a split (or of a folder of task files), land every run in the
    store, then rebuild the warehouse and return the score card (also published as a table artifact)
    and the anomaly flags.

    Args:
        agent: The agent: oracle, noop, liar, random, command:<argv>, http:<url> or openai[:model].
        split: dev (the public dev set), a private month YYYY-MM (the worker needs MCPBENCH_SECRET), or a
            retired month Historical-YYYY-MM.
        submission_id: Names the evaluation (letters, digits, . _ -); pass the same id to resume one.
            Empty: local-<agent>-<UTC timestamp>.
        submitter: Who submits it. Empty: the worker's $USER.
        concurrency: How many runs at once (1-64).
        sandbox: Where a command: agent runs: local (bubblewrap), docker, or none (unisolated: trusted
            agents only).
        store: Where runs land: a folder or s3://bucket/prefix. Empty: the worker's $MCPBENCH_STORE.
        db_path: The warehouse database file. Empty: the worker's $MCPBENCH_WAREHOUSE.
        task_ids: Only these tasks: ids or patterns (slack-*). Empty: every task of the split.
        runner: The fan-out: threads, dask, dask-threads, or a Dask scheduler address (tcp://host:8786).
            Empty: $MCPBENCH_TASK_RUNNER, else threads.
        trials: Runs per task (1-100), for pass@1, pass^k and pass@k.
        label: Your name for the agent and its version (my-agent@1.2), on every run and the score card.
        tasks_dir: A folder of task files every worker can read, run instead of a split (split dir:<folder
            name>, as mcpbench run --tasks-dir); its runs never rank.
    """
    if trials < 1:
        raise ValueError(f"trials must be at least 1, got {trials}")
    from mcpbench.agents.spec import check_agent_reads, parse_agent
    from mcpbench.evaluation import make_submission, operator_paths
    from runstore.store import open_store

    log = logger()
    root, db = store_root(store, "write"), db_location(db_path)  # refused before any agent runs
    parsed = parse_agent(agent)
    check_agent_reads(parsed, operator_paths(open_store(root), db))  # before any run starts
    if tasks_dir:
        from pathlib import Path

        from runstore.split import Split

        tasks_dir = str(Path(tasks_dir).resolve())
        split = Split.folder(Path(tasks_dir).name).text
    submission = make_submission(parsed, split, submission_id=submission_id, submitter=submitter, label=label)
    ids = list_task_ids(split, root, task_ids, tasks_dir)
    pairs = pending_runs(ids, submission, root, trials)
    todo, todo_trials = [i for i, _ in pairs], [k for _, k in pairs]
    outcomes = run_all.with_options(task_runner=task_runner(concurrency, runner))(todo, agent, submission, root, sandbox,
                                                                                  todo_trials, tasks_dir)
    infra = sorted(o["task_id"] for o in outcomes if o["status"] == "infra_error")
    if infra:
        log.warning("%d runs ended as infra errors after retries: %s", len(infra), ", ".join(infra))
    built = build_warehouse(root, db)
    flags = read_flags(built["db_path"], root, submission.submission_id)
    card = score_card(submission.submission_id, built["db_path"], root)
    return {"submission_id": submission.submission_id, "split": split, "tasks": len(ids), "trials": trials,
            "skipped": len(ids) * trials - len(todo), "ran": len(outcomes),
            "passed": sum(o["status"] == "passed" for o in outcomes),
            "failed": sum(o["status"] == "failed" for o in outcomes), "infra_errors": infra,
            "score": card, "flags": flags}


@task(name="pending-runs", **PRIVATE)
def pending_runs(task_ids: list[str], submission: Submission, store: str, trials: int) -> list[tuple[str, int]]:
    """The (task id, trial) pairs whose runs have not landed yet."""
    from mcpbench.evaluation import pending_runs as pending
    from runstore.store import open_store

    todo = pending(task_ids, submission, store=open_store(store), trials=trials)
    logger().info("%d of %d runs already landed; %d to run", len(task_ids) * trials - len(todo),
                  len(task_ids) * trials, len(todo))
    return todo


def read_score_card(submission_id: str, db_path: str, store: str) -> dict[str, Any]:
    """The submission's score card (``warehouse.scorecard.scorecard``), read from a checked warehouse's
    marts (``flows._common.open_checked``)."""
    from warehouse.scorecard import scorecard

    with open_checked(db_path, store) as warehouse:
        return scorecard(submission_id, con=warehouse)


@task(name="score-card", **PRIVATE)
def score_card(submission_id: str, db_path: str, store: str) -> dict[str, Any]:
    """The submission's overall metrics (``read_score_card``), with its trial metrics under ``trials`` (k,
    pass@1, pass^k, pass@k and their 95% intervals); published as a table artifact (one row per server
    and the overall), the score card a person reads in the Prefect UI."""
    from prefect.artifacts import create_table_artifact

    from warehouse.scorecard import scorecard_table

    card = read_score_card(submission_id, db_path, store)
    logger().info("%s: success rate %s over %s attempted", submission_id, card["overall"]["success_rate"],
                  card["overall"]["attempted"])
    create_table_artifact(table=scorecard_table(card), key=artifact_key("score-card", submission_id),
                          description=f"Score card of {submission_id} ({card['label'] or card['agent']}) on "
                                      f"{card['split']}: rates in percent, success with its 95% interval.")
    return {**card["overall"], "trials": card["trials"]["overall"]}


def artifact_key(kind: str, submission_id: str) -> str:
    """A Prefect artifact key (lowercase letters, digits and dashes) for ``kind`` of a submission."""
    import re

    return f"{kind}-" + re.sub(r"[^a-z0-9-]+", "-", submission_id.lower()).strip("-")


__all__ = ["InfraError", "artifact_key", "evaluate_submission", "infra_message", "list_task_ids", "pending_runs", "retry_only_infra_errors",
           "read_score_card", "run_all", "run_task", "score_card"]
