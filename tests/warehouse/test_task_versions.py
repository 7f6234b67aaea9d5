"""Versioned tasks, comparable results (issue 32): every run records its task's version and the code's,
runs landed before those fields read as version 1, and the leaderboards never rank results of
different versions of one task together."""

from __future__ import annotations

import pytest

from runstore.store import _base
from tests.warehouse.conftest import make_run
from tests.warehouse.test_anomalies_and_leaderboards import rows, score, submit


def test_results_of_different_versions_of_one_task_are_never_ranked_together(store):
    submit(store, "v1-good", "ann", "2026-05", day=31, outcomes=score(9))
    submit(store, "v1-ok", "ben", "2026-05", day=32, outcomes=score(7))
    runs = [make_run(f"v2-best-{task}", submission_id="v2-best", submitter="cat", split="2026-05", task_id=task,
                     status="passed", task_version=2 if task == "task-03" else 1)
            for task in score(10)]
    store.land_runs([(run, []) for run in runs])
    board = rows(store, "select submission_id, rank, task_versions from leaderboard_contemporary")
    boards = {}
    for r in board:
        boards.setdefault(r["task_versions"], []).append((r["rank"], r["submission_id"]))
    assert sorted(boards.values()) == [[(1, "v1-good"), (2, "v1-ok")], [(1, "v2-best")]]
    # each board is one run of rows
    assert [r["task_versions"] for r in board] == sorted(r["task_versions"] for r in board)
    ranks = rows(store, "select submission_id, task_versions from leaderboard_ranks order by submission_id")
    assert ranks[0]["task_versions"] == ranks[1]["task_versions"] != ranks[2]["task_versions"]


def test_the_same_versions_share_one_board(store):
    submit(store, "a", "ann", "2026-05", day=31, outcomes=score(9))
    submit(store, "b", "ben", "2026-05", day=32, outcomes=score(7))
    board = rows(store, "select submission_id, rank, task_versions from leaderboard_contemporary")
    assert [(r["rank"], r["submission_id"]) for r in board] == [(1, "a"), (2, "b")]
    assert len({r["task_versions"] for r in board}) == 1


def test_runs_landed_before_versions_read_as_version_1_and_no_code_version(store, monkeypatch):
    new = make_run("new-run", task_version=3, code_version="1.2.3+gabc")
    store.land_run(new, [])
    with monkeypatch.context() as m:  # a run landed by the code before these fields: its Parquet lacks them
        old_schema = _base.schema_of("runs")
        old_schema = old_schema.remove(old_schema.get_field_index("task_version"))
        old_schema = old_schema.remove(old_schema.get_field_index("code_version"))
        real = _base.schema_of
        m.setattr(_base, "schema_of", lambda kind: old_schema if kind == "runs" else real(kind))
        store.land_run(make_run("old-run", task_id="slack-002"), [])
    got = rows(store, "select run_id, task_version, code_version from stg_runs order by run_id")
    assert got == [{"run_id": "new-run", "task_version": 3, "code_version": "1.2.3+gabc"},
                   {"run_id": "old-run", "task_version": 1, "code_version": ""}]


def test_a_store_of_only_runs_landed_before_versions_still_builds(store, monkeypatch):
    old_schema = _base.schema_of("runs")
    for name in ("task_version", "code_version"):
        old_schema = old_schema.remove(old_schema.get_field_index(name))
    real = _base.schema_of
    monkeypatch.setattr(_base, "schema_of", lambda kind: old_schema if kind == "runs" else real(kind))
    store.land_run(make_run("old-run"), [])
    monkeypatch.undo()
    assert rows(store, "select task_version, code_version from run_facts") == [{"task_version": 1, "code_version": ""}]


def test_a_run_records_its_tasks_version_and_the_code_version():
    import time
    from datetime import UTC, datetime

    from mcpbench.code_version import code_version, package_version
    from mcpbench.runner import Submission, _record
    from tasks_catalog.loader import DEV_DIR, load_task_file

    task, _ = load_task_file(next(DEV_DIR.rglob("github-codeowners-on-branch.json")))
    sub = Submission("sub-v", "ann", "oracle", "dev", "2026-05")
    run = _record(task, sub, started=datetime.now(UTC), t0=time.perf_counter(), status="passed")
    assert run.task_version == task.version == 2
    assert run.code_version == code_version() and run.code_version.startswith(package_version())


@pytest.mark.parametrize("git", ["missing", "no repository"])
def test_the_code_version_is_the_package_version_alone_without_git(tmp_path, monkeypatch, git):
    from mcpbench import code_version as module

    if git == "missing":
        monkeypatch.setenv("PATH", str(tmp_path))  # no git binary on the PATH
        assert module.git_commit() is None
    else:
        assert module.git_commit(tmp_path) is None
