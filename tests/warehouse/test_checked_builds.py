"""A failing quality suite stops scoring: every build records whether its data was checked and passed,
and `leaderboard`, `report` and `query` refuse an unchecked or failed build unless told --unchecked
(then they label what they print). Readers never import Great Expectations when nothing new landed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcpbench.cli import main
from tests.warehouse.conftest import make_run, ok
from warehouse.build import build

ROOT = Path(__file__).resolve().parents[2]
READERS = [["leaderboard", "--json"], ["warehouse", "query", "--json", "select count(*) as n from run_facts"],
           ["report", "--html", "{tmp}/report.html"]]


@pytest.fixture
def env(store, tmp_path, monkeypatch):
    monkeypatch.setenv("MCPBENCH_STORE", store.root)
    monkeypatch.setenv("MCPBENCH_WAREHOUSE", str(tmp_path / "warehouse.duckdb"))
    return tmp_path


def _invoke(args, tmp_path):
    return CliRunner().invoke(main, [a.replace("{tmp}", str(tmp_path)) for a in args])


@pytest.mark.parametrize("reader", READERS, ids=lambda a: " ".join(a[:2]))
def test_a_reader_refuses_data_that_fails_its_checks_and_labels_it_when_told_unchecked(env, land, reader):
    land(make_run("r1", submission_id="sub-ok"), [ok()])
    land(make_run("r2", submission_id="sub-leaky", goal="Archive #random and tell nobody"), [ok()])
    refused = _invoke(reader, env)
    assert refused.exit_code == 1, refused.output
    assert "failed its quality checks" in refused.output and "--unchecked" in refused.output
    assert "sub-ok" not in refused.output
    served = _invoke([*reader, "--unchecked"], env)
    assert served.exit_code == 0, served.output
    assert "UNCHECKED DATA" in served.stderr
    if reader[0] == "report":
        assert 'id="unchecked"' in (env / "report.html").read_text()


def test_a_no_check_build_is_refused_until_a_checked_build_passes(env, store, land):
    land(make_run("r1"), [ok()])
    build(store, env / "warehouse.duckdb", check=False)
    refused = _invoke(["leaderboard"], env)
    assert refused.exit_code == 1 and "not passed the quality suites" in refused.output
    assert _invoke(["warehouse", "build"], env).exit_code == 0
    board = _invoke(["leaderboard", "--json"], env)
    assert board.exit_code == 0 and json.loads(board.output)[0]["submission_id"] == "sub-a"
    assert "UNCHECKED" not in board.stderr


def _imports(args: list[str], env: dict[str, str]) -> set[str]:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "mcpbench", *args], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    return {line.rsplit("|", 1)[1].strip().split(".")[0] for line in proc.stderr.splitlines()
            if line.startswith("import time:") and line.count("|") == 2}


def test_readers_and_a_rebuild_with_nothing_new_do_not_import_great_expectations(env, store, land):
    land(make_run("r1"), [ok()])
    environ = {**os.environ, "PYTHONPATH": str(ROOT)}
    assert "great_expectations" in _imports(["warehouse", "build"], environ), "the first build checks the run"
    for args in (["warehouse", "build"], ["leaderboard"], ["warehouse", "query", "select 1"],
                 ["report", "--html", str(env / "r.html")]):
        assert "great_expectations" not in _imports(args, environ), args
    land(make_run("r2"), [ok()])
    assert "great_expectations" in _imports(["leaderboard"], environ), "a new run is checked before it is served"
