"""What the docs say about recovery_rate is what the warehouse computes, and a folder run
(`mcpbench run --tasks-dir`) lands as a first-class split that never ranks and never breaks a checked
build."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from mcpbench.cli import main
from tests.warehouse.conftest import err, make_run, ok
from warehouse.scorecard import scorecard

ROOT = Path(__file__).resolve().parents[2]


def _recovery_rows() -> list[str]:
    """The recovery_rate row of every view that has one, in docs/warehouse.md's generated reference."""
    return [line for line in (ROOT / "docs/warehouse.md").read_text().splitlines()
            if line.startswith("| `recovery_rate` |")]


def test_recovery_rate_is_null_with_nothing_to_recover_from_and_zero_when_recovery_runs_fail(store, land):
    land(make_run("clean", submission_id="sub-clean", category="recovery"), [ok()])
    land(make_run("failed-quietly", submission_id="sub-failed", category="recovery", status="failed"), [ok()])
    land(make_run("failed-after-error", submission_id="sub-failed", category="recovery", status="failed"),
         [err(), ok()])
    land(make_run("recovered", submission_id="sub-recovered", category="recovery"), [err(), ok()])
    assert scorecard("sub-clean", store=store)["overall"]["recovery_rate"] is None
    assert scorecard("sub-failed", store=store)["overall"]["recovery_rate"] == 0.0
    assert scorecard("sub-recovered", store=store)["overall"]["recovery_rate"] == 1.0
    rows = _recovery_rows()
    assert len(rows) >= 4, rows  # metrics_rollup, its three views, the leaderboards
    for row in rows:
        assert "null when no recovery run was attempted or every attempted one passed without observing an error" in row
        assert "0.0 when recovery runs failed, whether or not they saw an error" in row


def test_a_folder_run_lands_as_its_own_split_never_ranks_and_the_next_checked_build_passes(store, tmp_path,
                                                                                         monkeypatch):
    tasks = tmp_path / "my tasks"
    shutil.copytree(ROOT / "tasks_catalog/dev/slack", tasks)
    monkeypatch.setenv("MCPBENCH_STORE", store.root)
    monkeypatch.setenv("MCPBENCH_WAREHOUSE", str(tmp_path / "warehouse.duckdb"))
    runner = CliRunner()
    ran = runner.invoke(main, ["run", "--agent", "noop", "--tasks-dir", str(tasks), "--submission-id", "folder-noop",
                               "--json"])
    assert ran.exit_code == 0, ran.output
    assert json.loads(ran.stdout)["split"] == "dir:my-tasks"
    runs = store.read_runs().to_pylist()
    assert {(r["split"], r["split_kind"]) for r in runs} == {("dir:my-tasks", "folder")}
    built = runner.invoke(main, ["warehouse", "build"])
    assert built.exit_code == 0 and "checked" in built.output, built.output
    for board in (["leaderboard", "--json"], ["leaderboard", "--historical", "--json"]):
        shown = runner.invoke(main, board)
        assert shown.exit_code == 0 and json.loads(shown.stdout) == [], shown.output
