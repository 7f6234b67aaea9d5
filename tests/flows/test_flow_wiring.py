"""The Prefect wiring, covered once against one session-scoped test harness: a small evaluation on
the thread pool (and its resumption), the same on a local Dask cluster, scoring, the anomaly flags and
the catalog gate. The flows' logic is tested without Prefect in test_flow_logic.py; the rotation flow
runs in test_private_month.py."""

from __future__ import annotations

import shutil

import pytest
from _flow_support import DEV_TASKS, REPO


@pytest.fixture(scope="module")
def where(tmp_path_factory):
    root = tmp_path_factory.mktemp("wiring")
    return {"store": str(root / "store"), "db_path": str(root / "warehouse.duckdb"), "root": root}


@pytest.fixture(scope="module")
def oracle_run(prefect_harness, where):
    from flows import evaluate_submission

    return evaluate_submission(agent="oracle", split="dev", submission_id="wiring-oracle", submitter="wiring",
                               concurrency=2, task_ids=DEV_TASKS, store=where["store"], db_path=where["db_path"],
                               runner="threads")


def test_an_evaluation_fans_out_one_run_per_task_lands_and_scores_them(oracle_run):
    assert oracle_run["tasks"] == 3 and oracle_run["ran"] == 3 and oracle_run["passed"] == 3
    assert oracle_run["infra_errors"] == [] and oracle_run["score"]["success_rate"] == 1.0
    assert oracle_run["flags"] == {"submitters": [], "tasks": []}


def test_running_the_evaluation_again_resumes_without_duplicating_runs(prefect_harness, where, oracle_run):
    from flows import evaluate_submission
    from runstore.store import open_store

    again = evaluate_submission(agent="oracle", split="dev", submission_id="wiring-oracle", submitter="wiring",
                                concurrency=2, task_ids=DEV_TASKS, store=where["store"], db_path=where["db_path"])
    assert again["skipped"] == 3 and again["ran"] == 0 and again["score"]["attempted"] == 3
    assert len(open_store(where["store"]).read_runs("wiring-oracle")) == 3


def test_the_evaluate_flow_runs_every_task_trials_times_and_reports_pass_hat_k(prefect_harness, where):
    from flows import evaluate_submission
    from runstore.store import open_store

    def evaluate():
        return evaluate_submission(agent="oracle", split="dev", submission_id="wiring-trials", submitter="wiring",
                                   concurrency=2, task_ids=DEV_TASKS[:2], store=where["store"],
                                   db_path=where["db_path"], runner="threads", trials=2)

    result = evaluate()
    assert (result["tasks"], result["trials"], result["ran"], result["passed"]) == (2, 2, 4, 4)
    trials = result["score"]["trials"]
    assert (trials["k"], trials["tasks_complete"], trials["pass_hat_k"], trials["pass_at_k"]) == (2, 2, 1.0, 1.0)
    runs = open_store(where["store"]).read_runs("wiring-trials").select(["task_id", "trial"]).to_pylist()
    assert sorted((r["task_id"], r["trial"]) for r in runs) == [(t, k) for t in sorted(DEV_TASKS[:2]) for k in (1, 2)]
    again = evaluate()
    assert again["skipped"] == 4 and again["ran"] == 0


def test_the_fan_out_runs_on_a_local_dask_cluster(prefect_harness, where):
    from flows import evaluate_submission

    result = evaluate_submission(agent="oracle", split="dev", submission_id="wiring-dask", submitter="wiring",
                                 concurrency=2, task_ids=DEV_TASKS, store=where["store"], db_path=where["db_path"],
                                 runner="dask-threads")
    assert result["ran"] == 3 and result["passed"] == 3 and result["score"]["success_rate"] == 1.0


def test_score_and_detect_anomalies_rebuild_the_marts(prefect_harness, where, oracle_run):
    from flows import detect_anomalies, score

    built = score(store=where["store"], db_path=where["db_path"])
    assert built["runs"] >= 3 and built["views"] >= 10
    assert detect_anomalies(store=where["store"], db_path=where["db_path"]) == {"submitters": [], "tasks": []}


def test_the_catalog_gate_accepts_good_tasks_and_fails_naming_a_bad_one(prefect_harness, where):
    import json

    from flows import validate_catalog
    from flows.catalog import CatalogInvalid

    folder = where["root"] / "tasks"
    folder.mkdir()
    source = REPO / "tasks_catalog/dev/calendar/calendar-cancel-santos-one-to-one.json"
    shutil.copy(source, folder)
    from tasks_catalog.gate import acceptance_gate

    assert validate_catalog(tasks_dir=str(folder)) == {"dev": {"checked": 1, "failed": {},
                                                                "verifiers": acceptance_gate().verifiers}}
    broken = json.loads(source.read_text())
    broken["id"], broken["reference_solution"] = "calendar-does-nothing", []
    (folder / "calendar-does-nothing.json").write_text(json.dumps(broken))
    with pytest.raises(CatalogInvalid, match="calendar-does-nothing"):
        validate_catalog(tasks_dir=str(folder))


def test_an_evaluation_run_is_named_after_its_submission_and_split_and_publishes_its_score_card(prefect_harness,
                                                                                                  where):
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import (
        ArtifactFilter,
        ArtifactFilterKey,
        FlowRunFilter,
        FlowRunFilterParentFlowRunId,
    )

    from flows import evaluate_submission

    state = evaluate_submission(agent="oracle", split="dev", submission_id="wiring.named", submitter="wiring",
                                concurrency=2, task_ids=DEV_TASKS[:2], store=where["store"], db_path=where["db_path"],
                                runner="threads", label="oracle@1", return_state=True)
    assert state.is_completed()
    result = state.result()
    with get_client(sync_client=True) as client:
        run = client.read_flow_run(state.state_details.flow_run_id)
        children = client.read_flow_runs(flow_run_filter=FlowRunFilter(
            parent_flow_run_id=FlowRunFilterParentFlowRunId(any_=[run.id])))
        (artifact,) = client.read_artifacts(artifact_filter=ArtifactFilter(
            key=ArtifactFilterKey(any_=["score-card-wiring-named"])))
    assert run.name == "wiring.named on dev"
    assert "runs of wiring.named" in {c.name for c in children}
    assert artifact.type == "table" and "oracle@1" in artifact.description
    import json

    table = json.loads(artifact.data) if isinstance(artifact.data, str) else artifact.data
    overall = table[-1]
    assert overall["server"] == "overall" and overall["attempted"] == 2
    assert overall["success (95% CI)"] == "100.0% [34.2-100.0]" and result["score"]["success_rate"] == 1.0


def test_the_evaluate_flow_runs_a_folder_with_a_cross_server_task_and_scores_its_row(prefect_harness, where):
    """A folder of one single-server dev task and one cross-server task (linear + slack): both run and
    land, the folder's split never ranks, and the score card has the cross-server row beside the
    servers the cross-server run's calls went to."""
    import duckdb

    from flows import evaluate_submission
    from runstore.store import open_store
    from warehouse.scorecard import scorecard

    folder = where["root"] / "mixed"
    folder.mkdir()
    shutil.copy(REPO / "tests/cross_server_tasks/x-incident-handover.json", folder)
    shutil.copy(REPO / "tasks_catalog/dev/filesystem/fs-set-log-level.json", folder)
    result = evaluate_submission(agent="oracle", submission_id="wiring-cross", submitter="wiring", concurrency=2,
                                 store=where["store"], db_path=where["db_path"], runner="threads",
                                 tasks_dir=str(folder))
    assert (result["split"], result["tasks"], result["ran"], result["passed"]) == ("dir:mixed", 2, 2, 2)
    runs = {r["task_id"]: r for r in open_store(where["store"]).read_runs("wiring-cross").to_pylist()}
    assert (runs["x-incident-handover"]["server"], runs["x-incident-handover"]["servers"]) == \
        ("cross-server", ["linear", "slack"])
    with duckdb.connect(where["db_path"], read_only=True) as con:
        card = scorecard("wiring-cross", con=con)
    assert list(card["by_server"]) == ["filesystem", "linear", "slack", "cross-server"]
    assert card["by_server"]["cross-server"]["passed"] == 1 and card["by_server"]["linear"]["attempted"] == 0
