"""The README's main job, end to end through the CLI: the dev set with the oracle and with noop,
inside the local sandbox, each run's landed record checked (sandbox, end reason, calls against the
reference and its faults); the warehouse then answers with the same metrics as the score card."""

import json
import subprocess
import sys

import pytest

from mcpbench.agents.spec import PROJECT_ROOT

DEV = PROJECT_ROOT / "tasks_catalog" / "dev"


def mcpbench(*args, cwd):
    proc = subprocess.run([sys.executable, "-m", "mcpbench", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=900)
    return proc


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("e2e")


@pytest.fixture(scope="module")
def oracle_card(workdir):
    proc = mcpbench("run", "--agent", "oracle", "--split", "dev", "--json", "--concurrency", "2",
                    "--submission-id", "e2e-oracle", "--store", str(workdir / "store"), cwd=workdir)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def _landed(workdir, submission_id: str) -> dict[str, dict]:
    """The run records ``submission_id`` landed in the e2e store, by task id."""
    from runstore.store import open_store

    return {r["task_id"]: r for r in open_store(str(workdir / "store")).read_runs(submission_id).to_pylist()}


def test_the_oracle_scores_one_on_all_60_dev_tasks_with_no_infra_errors(oracle_card, workdir):
    assert oracle_card["attempted"] == 60 and oracle_card["passed"] == 60  # 4 per server, 20 across servers
    assert oracle_card["success_rate"] == 1.0 and oracle_card["infra_errors"] == 0
    assert oracle_card["hallucination_rate"] == 0.0 and oracle_card["recovery_rate"] == 1.0
    assert len(oracle_card["by_server"]) == 11 and oracle_card["by_server"]["cross-server"]["attempted"] == 20
    assert all(s["attempted"] == (20 if name == "cross-server" else 4) and s["success_rate"] == 1.0
               for name, s in oracle_card["by_server"].items())

    # every run as landed: in the local sandbox, passed on the final state, and its calls accounted for
    from tasks_catalog.loader import load_valid_tasks

    runs = _landed(workdir, "e2e-oracle")
    tasks = load_valid_tasks([DEV])
    assert sorted(runs) == sorted(t.id for t in tasks)
    for task in tasks:
        run = runs[task.id]
        assert (run["status"], run["sandbox"], run["predicate_passed"], run["end_reason"]) == \
            ("passed", "local", True, "passed"), task.id
        # a transient fault costs a retry; a partial failure (timeout_after_commit) executes and is not retried
        assert run["tool_calls"] == len(task.reference_solution) + run["faults_injected"] - sum(
            f.times for f in task.faults if f.kind == "timeout_after_commit"), task.id


def test_noop_scores_zero_on_the_dev_set(workdir):
    proc = mcpbench("run", "--agent", "noop", "--split", "dev", "--json", "--concurrency", "2",
                    "--submission-id", "e2e-noop", "--store", str(workdir / "store"), cwd=workdir)
    assert proc.returncode == 0, proc.stderr[-3000:]
    card = json.loads(proc.stdout)
    assert card["attempted"] == 60 and card["passed"] == 0 and card["success_rate"] == 0.0
    # noop exits 0: each run fails on the state alone, not as the agent's error
    runs = _landed(workdir, "e2e-noop").values()
    assert len(runs) == 60
    assert {(r["status"], r["predicate_passed"], r["agent_error"], r["end_reason"]) for r in runs} == \
        {("failed", False, False, "predicate_false")}


def test_the_warehouse_metrics_view_matches_the_score_card(workdir, oracle_card):
    store, db = str(workdir / "store"), str(workdir / "wh.duckdb")
    built = mcpbench("warehouse", "build", "--store", store, "--db", db, cwd=workdir)
    assert built.returncode == 0, built.stderr[-3000:]
    proc = mcpbench("warehouse", "query", "--db", db, "--json",
                    "select * from metrics_by_submission where submission_id = 'e2e-oracle'", cwd=workdir)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (row,) = json.loads(proc.stdout)
    for key in ("attempted", "passed", "success_rate", "efficiency", "hallucination_rate", "recovery_rate",
                "infra_errors"):
        assert row[key] == pytest.approx(oracle_card[key]), key


def test_goal_text_is_redacted_in_the_landed_trace_by_default(workdir, oracle_card):
    runs = list(_landed(workdir, "e2e-oracle").values())
    assert len(runs) == 60 and all(r["goal"] == "[redacted]" for r in runs)
