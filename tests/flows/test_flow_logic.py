"""The flows' logic without Prefect: each task's plain function (``task.fn``), the task runner choice,
the retry condition, and ``prefect.yaml`` against the flows it names."""

from __future__ import annotations

import inspect

import pytest
import yaml
from _flow_support import DEV_TASKS, REPO


def test_the_default_task_runner_is_a_bounded_thread_pool(monkeypatch):
    from prefect.task_runners import ThreadPoolTaskRunner

    from flows._runners import task_runner

    monkeypatch.delenv("MCPBENCH_TASK_RUNNER", raising=False)
    runner = task_runner(3)
    assert isinstance(runner, ThreadPoolTaskRunner) and runner._max_workers == 3


def test_the_thread_pool_runs_no_more_at_once_than_the_file_handles_fit(monkeypatch):
    from flows._runners import task_runner
    from mcpbench.sandbox import _gateway_link

    monkeypatch.setattr(_gateway_link, "runs_that_fit", lambda soft: 2)
    assert task_runner(8, "threads")._max_workers == 2 and task_runner(1, "threads")._max_workers == 1


def test_dask_is_chosen_by_name_address_or_environment(monkeypatch):
    from prefect.settings import PREFECT_API_URL, temporary_settings
    from prefect_dask import DaskTaskRunner

    from flows._runners import task_runner

    with temporary_settings(updates={PREFECT_API_URL: "http://127.0.0.1:4200/api"}):
        assert task_runner(2, "dask").cluster_kwargs["n_workers"] == 2
        assert task_runner(2, "tcp://10.0.0.5:8786").address == "tcp://10.0.0.5:8786"
    monkeypatch.setenv("MCPBENCH_TASK_RUNNER", "dask-threads")
    assert isinstance(task_runner(4), DaskTaskRunner) and task_runner(4).cluster_kwargs["threads_per_worker"] == 4
    with pytest.raises(ValueError, match="unknown task runner"):
        task_runner(2, "kubernetes")


@pytest.mark.parametrize("kind", ["dask", "tcp://10.0.0.5:8786"])
def test_dask_worker_processes_without_a_prefect_server_are_refused_up_front(kind):
    """Without PREFECT_API_URL each worker process would start a temporary Prefect server of its own; in a
    160-task month those collided and timed out, and 45 runs ended as infra errors."""
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from flows._runners import task_runner

    with temporary_settings(set_defaults={PREFECT_API_URL: None}, restore_defaults={PREFECT_API_URL}), \
            pytest.raises(ValueError, match="set PREFECT_API_URL") as refused:
        task_runner(2, kind)
    assert repr(kind) in str(refused.value)
    assert task_runner(2, "dask-threads").cluster_kwargs["processes"] is False  # one process: its own server serves it


def test_only_infra_errors_are_retried():
    from prefect.states import Completed, Failed

    from flows.evaluate import InfraError, retry_only_infra_errors

    assert retry_only_infra_errors(None, None, Failed(data=InfraError("run x was not dispatched")))
    assert not retry_only_infra_errors(None, None, Failed(data=ValueError("a bug")))
    assert not retry_only_infra_errors(None, None, Completed(data={"status": "failed"}))


def test_an_infra_error_raises_to_be_retried_and_an_agents_failure_returns(monkeypatch, tmp_path):
    import flows.evaluate
    import mcpbench.evaluation
    from mcpbench.agents.spec import parse_agent
    from mcpbench.evaluation import RunOutcome, make_submission

    submission = make_submission(parse_agent("noop"), "dev", submission_id="logic-noop", submitter="t")
    store = str(tmp_path / "store")
    failed = flows.evaluate.run_task.fn(DEV_TASKS[0], "noop", submission, store)
    assert failed == {"task_id": DEV_TASKS[0], "run_id": f"logic-noop--{DEV_TASKS[0]}", "status": "failed"}

    monkeypatch.setattr(mcpbench.evaluation, "evaluate_task",
                        lambda task_id, *a, **k: RunOutcome(task_id, f"logic-noop--{task_id}", "infra_error"))
    with pytest.raises(flows.evaluate.InfraError, match=f"logic-noop--{DEV_TASKS[1]}"):
        flows.evaluate.run_task.fn(DEV_TASKS[1], "noop", submission, store)


def test_a_run_the_store_refused_is_retried_with_a_message_that_says_it_was_not_landed(tmp_path):
    import flows.evaluate
    from mcpbench.agents.spec import parse_agent
    from mcpbench.evaluation import make_submission

    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the store's folders should go\n")
    submission = make_submission(parse_agent("noop"), "dev", submission_id="logic-store", submitter="t")
    with pytest.raises(flows.evaluate.InfraError) as caught:
        flows.evaluate.run_task.fn(DEV_TASKS[0], "noop", submission, str(blocker / "store"))
    message = str(caught.value)
    assert f"logic-store--{DEV_TASKS[0]}" in message and "infra:store" in message
    assert "not dispatched" not in message and "landed run row" not in message
    assert "nothing of it was landed" in message


def test_landed_runs_are_skipped_on_resume_but_infra_errors_run_again(tmp_path):
    from flows.evaluate import pending_runs
    from mcpbench.agents.spec import parse_agent
    from mcpbench.evaluation import evaluate, load_split, make_submission
    from runstore.store import open_store

    store = open_store(str(tmp_path / "store"))
    submission = make_submission(parse_agent("noop"), "dev", submission_id="resume", submitter="t")
    evaluate(load_split("dev", task_ids=DEV_TASKS[:2]), "noop", submission, store=store, concurrency=2)
    runs = store.read_runs("resume").to_pylist()
    infra = dict(runs[0], status="infra_error", passed=False, infra_error="sandbox could not start")
    from runstore.records import RunRecord

    store.land_run(RunRecord(**infra), [])
    todo = pending_runs.fn(DEV_TASKS, submission, str(tmp_path / "store"), 1)
    assert todo == [(t, 1) for t in DEV_TASKS if t in (infra["task_id"], DEV_TASKS[2])]
    assert len(store.read_runs("resume")) == 2


def test_a_gate_failure_names_task_ids_and_never_the_reasons(monkeypatch, tmp_path):
    import tasks_catalog.months
    from flows.rotate import GateFailed, rotate
    from tasks_catalog.months import RotationReport

    def failing(*args, **kwargs):
        return RotationReport("2026-12", 160, {}, 0, 0, 0, None,
                              ["fs-t-x-1: goal does not name $.success.path = 'secret-file-name.csv'"])

    monkeypatch.setattr(tasks_catalog.months, "rotate", failing)
    monkeypatch.setattr(tasks_catalog.months, "load_operator_pool", lambda *a, **k: [])
    with pytest.raises(GateFailed) as caught:
        rotate.fn("2026-12", str(tmp_path / "store"), [])
    assert "fs-t-x-1" in str(caught.value) and "secret-file-name" not in str(caught.value)


def test_no_warehouse_and_no_runs_means_no_task_is_flagged_as_leaked(tmp_path):
    from flows.rotate import flagged_task_ids

    (tmp_path / "store").mkdir()
    assert flagged_task_ids.fn(str(tmp_path / "missing.duckdb"), str(tmp_path / "store"), "2026-11") == []


# -- prefect.yaml -------------------------------------------------------------------------------------
def _deployments():
    return yaml.safe_load((REPO / "prefect.yaml").read_text())


def test_every_deployment_names_an_importable_flow_and_exactly_its_parameters():
    import importlib

    from prefect import Flow

    doc = _deployments()
    names = {d["name"] for d in doc["deployments"]}
    assert names == {"evaluate-submission", "rotate-month", "validate-catalog", "score", "detect-anomalies"}
    for dep in doc["deployments"]:
        module, _, attr = dep["entrypoint"].partition(":")
        assert module.endswith(".py") and (REPO / module).exists(), dep["name"]
        flow = getattr(importlib.import_module(module.removesuffix(".py").replace("/", ".")), attr)
        assert isinstance(flow, Flow) and flow.name == dep["name"], dep["name"]
        signature = inspect.signature(flow.fn)
        # every parameter the flow takes is exposed (with its default) to an operator running it from the UI
        assert set(dep.get("parameters", {})) == set(signature.parameters), dep["name"]
        for name, value in dep.get("parameters", {}).items():
            default = signature.parameters[name].default
            if default is not inspect.Parameter.empty and name not in ("store", "db_path"):
                assert value == default or (value == [] and default is None), (dep["name"], name)
        assert dep["work_pool"]["name"], dep["name"]


def test_the_rotation_runs_on_a_monthly_cron_in_utc():
    (rotation,) = [d for d in _deployments()["deployments"] if d["name"] == "rotate-month"]
    (schedule,) = rotation["schedules"]
    assert schedule["cron"] == "0 3 1 * *" and schedule["timezone"] == "UTC"


@pytest.mark.parametrize("name", ["evaluate_submission", "rotate_month", "validate_catalog", "score",
                                  "detect_anomalies"])
def test_every_flow_parameter_describes_itself_to_the_run_form(name):
    from prefect.utilities.callables import parameter_schema

    import flows

    flow = getattr(flows, name)
    properties = parameter_schema(flow.fn).model_dump()["properties"]
    assert properties and all(p.get("description") for p in properties.values()), \
        [k for k, p in properties.items() if not p.get("description")]


def test_the_evaluation_form_offers_its_choices_and_bounds():
    from prefect.utilities.callables import parameter_schema

    from flows import evaluate_submission

    properties = parameter_schema(evaluate_submission.fn).model_dump()["properties"]
    assert properties["sandbox"]["enum"] == ["local", "docker", "none"]
    assert (properties["concurrency"]["minimum"], properties["concurrency"]["maximum"]) == (1, 64)
    assert properties["trials"]["minimum"] == 1 and "label" in properties


def test_run_names_come_from_the_parameters_never_from_task_text():
    from flows._common import named
    from mcpbench.runner import Submission

    params = {"submission_id": None, "label": "my-agent@1.2", "agent": "oracle", "split": "2026-12",
              "submission": Submission("sub-7", "me", "oracle", "dev", "2026-12")}
    assert named("{submission_id|label|agent} on {split}", params) == "my-agent@1.2 on 2026-12"
    assert named("{submission_id|label|agent} on {split}", {**params, "label": None}) == "oracle on 2026-12"
    assert named("runs of {submission.submission_id}", params) == "runs of sub-7"
    assert named("rotate {month|'the current month'}", params) == "rotate the current month"
