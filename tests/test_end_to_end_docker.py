"""The dev set under the docker sandbox, live: the oracle passes all 60 tasks (20 across servers) and noop none, each run
in a container (``sandbox == "docker"``), no infra error. The same evaluation API ``mcpbench run
--sandbox docker`` calls, in process. Skipped, with the reason, where no engine or image is present.
It mostly waits on containers (one agent and one relay container per run)."""

import pytest

from mcpbench.agents.spec import PROJECT_ROOT

DEV = PROJECT_ROOT / "tasks_catalog" / "dev"


@pytest.fixture(scope="module")
def docker():
    from mcpbench.sandbox import SandboxUnavailable, get_sandbox

    try:
        return get_sandbox("docker")
    except SandboxUnavailable as exc:
        pytest.skip(f"the docker sandbox is unavailable here: {exc}")


@pytest.fixture(scope="module")
def dev_tasks():
    from tasks_catalog.loader import load_valid_tasks

    return load_valid_tasks([DEV])


def _evaluate(tasks, agent, docker, store_dir, submission_id):
    """Run and land ``tasks``; the summary and every landed record, by task id."""
    from mcpbench.evaluation import evaluate
    from mcpbench.runner import Submission
    from runstore.store import open_store

    store = open_store(str(store_dir))
    sub = Submission(submission_id, "tester", agent, "dev", "2026-12")
    summary, _ = evaluate(tasks, agent, sub, store=store, sandbox=docker, concurrency=4, infra_retries=0)
    return summary, {r["task_id"]: r for r in store.read_runs(submission_id).to_pylist()}


def test_the_oracle_passes_every_dev_task_in_docker(docker, dev_tasks, tmp_path):
    assert len(dev_tasks) == 60
    summary, runs = _evaluate(dev_tasks, "oracle", docker, tmp_path / "store", "e2e-docker-oracle")
    assert (summary.passed, summary.failed, summary.infra_errors) == (60, 0, [])
    assert sorted(runs) == sorted(t.id for t in dev_tasks)
    for task in dev_tasks:
        run = runs[task.id]
        assert (run["status"], run["sandbox"], run["predicate_passed"], run["end_reason"]) == \
            ("passed", "docker", True, "passed"), (task.id, run["infra_error"], run["stderr_tail"])
        # a transient fault costs a retry; a partial failure (timeout_after_commit) executes and is not retried
        assert run["tool_calls"] == len(task.reference_solution) + run["faults_injected"] - sum(
            f.times for f in task.faults if f.kind == "timeout_after_commit"), task.id


def test_noop_passes_none_in_docker(docker, dev_tasks, tmp_path):
    one_per_server = list({t.server_label: t for t in dev_tasks}.values())  # and one across servers
    assert len(one_per_server) == 11
    summary, runs = _evaluate(one_per_server, "noop", docker, tmp_path / "store", "e2e-docker-noop")
    assert (summary.passed, summary.failed, summary.infra_errors) == (0, 11, [])
    # noop exits 0: each run fails on the state alone, in a container, not as the agent's error
    assert {(r["status"], r["sandbox"], r["predicate_passed"], r["agent_error"], r["end_reason"])
            for r in runs.values()} == {("failed", "docker", False, False, "predicate_false")}
    assert len(runs) == 11
