"""Every command decides once, before it does anything, whether its store can serve what it is about to
do: a store that is a file (or a path under one) is refused before any agent runs or any gate starts,
and a command that only reads never creates a store at a mistyped path: it says there is none."""

from __future__ import annotations

import shlex
import sys

import pytest
from click.testing import CliRunner

from mcpbench.cli import main
from runstore.store import StoreError, open_store
from tests.warehouse.conftest import make_run, moto_endpoint, ok
from warehouse.build import build


def _refused(result, *phrases: str) -> str:
    """The command exited 1 with a message (no traceback, no exception of ours escaping) naming ``phrases``."""
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    for phrase in phrases:
        assert phrase in result.output, result.output
    return result.output


@pytest.fixture
def blocker(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("an operator's notes, where a store was expected\n")
    return path


@pytest.mark.parametrize("where", ["file", "under a file"])
def test_run_refuses_a_store_that_is_a_file_before_any_agent_runs(blocker, tmp_path, where):
    marker = tmp_path / "the-agent-ran"
    code = f"open({str(marker)!r}, 'w')"
    agent = "command:" + shlex.join([sys.executable, "-c", code])
    store = blocker if where == "file" else blocker / "store"
    result = CliRunner().invoke(main, ["run", "--agent", agent, "--sandbox", "none", "--tasks", "fs-set-log-level",
                                       "--store", str(store)])
    _refused(result, f"--store: the store {store}", f"{blocker} is a file")
    assert not marker.exists(), "the agent ran before the store was refused"
    assert blocker.read_text() == "an operator's notes, where a store was expected\n"


def test_the_store_is_named_by_where_it_came_from_when_no_option_gave_it(blocker, monkeypatch):
    monkeypatch.setenv("MCPBENCH_STORE", str(blocker))
    result = CliRunner().invoke(main, ["run", "--agent", "noop", "--tasks", "fs-set-log-level"])
    _refused(result, f"MCPBENCH_STORE: the store {blocker} is a file, not a folder")


def test_rotate_refuses_a_store_that_is_a_file_before_the_gate_starts(blocker, monkeypatch):
    import tasks_catalog.gate

    def gate_started(*args, **kwargs):
        raise AssertionError("the gate started on a store that cannot be written")

    monkeypatch.setattr(tasks_catalog.gate, "acceptance_gate", gate_started)
    monkeypatch.setenv("MCPBENCH_SECRET", "operator-secret-for-tests-only-0123456789")
    result = CliRunner().invoke(main, ["rotate", "--month", "2026-12", "--store", str(blocker)])
    _refused(result, f"the store {blocker} is a file, not a folder")


READERS = [["leaderboard"], ["report", "--html", "{tmp}/report.html"], ["warehouse", "query", "select 1"],
           ["warehouse", "build"], ["attest", "verify", "Historical-2026-11"]]


@pytest.mark.parametrize("reader", READERS, ids=lambda r: " ".join(r[:2]))
def test_a_reader_given_a_mistyped_store_says_there_is_none_and_creates_nothing(reader, tmp_path, monkeypatch):
    monkeypatch.setenv("MCPBENCH_WAREHOUSE", str(tmp_path / "warehouse.duckdb"))
    typo = tmp_path / "stroe"
    args = [a.replace("{tmp}", str(tmp_path)) for a in reader]
    result = CliRunner().invoke(main, [*args, "--store", str(typo)])
    _refused(result, f"there is no store at {typo}: no such folder")
    assert not typo.exists()
    assert not (tmp_path / "warehouse.duckdb").exists() and not (tmp_path / "report.html").exists()


@pytest.mark.parametrize("reader", READERS, ids=lambda r: " ".join(r[:2]))
def test_a_reader_given_a_file_as_its_store_says_so_without_a_traceback(reader, blocker, tmp_path, monkeypatch):
    monkeypatch.setenv("MCPBENCH_WAREHOUSE", str(tmp_path / "warehouse.duckdb"))
    args = [a.replace("{tmp}", str(tmp_path)) for a in reader]
    result = CliRunner().invoke(main, [*args, "--store", str(blocker)])
    _refused(result, f"there is no store at {blocker}: {blocker} is a file, not a store folder")


def test_a_folder_that_holds_no_store_is_not_read_as_one(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / "Documents").mkdir(parents=True)
    monkeypatch.setenv("MCPBENCH_WAREHOUSE", str(tmp_path / "warehouse.duckdb"))
    result = CliRunner().invoke(main, ["warehouse", "build", "--store", str(home)])
    _refused(result, f"there is no store at {home}: the folder holds none of runs/, calls/, index/")
    assert sorted(p.name for p in home.iterdir()) == ["Documents"]


def test_a_warehouse_asked_for_another_store_that_is_not_there_keeps_its_own_and_makes_none(tmp_path, monkeypatch):
    """The warehouse was built over a real store; a reader mistyping --store is refused, where it used to
    rebuild the warehouse over an empty store it created at the typo."""
    store = open_store(str(tmp_path / "store"))
    run = make_run("r1", submission_id="sub-month")
    store.land_run(run, [])
    db = tmp_path / "warehouse.duckdb"
    build(store, db)
    before = db.read_bytes()
    typo = tmp_path / "stroe"
    result = CliRunner().invoke(main, ["leaderboard", "--db", str(db), "--store", str(typo)])
    _refused(result, f"there is no store at {typo}")
    assert not typo.exists() and db.read_bytes() == before
    board = CliRunner().invoke(main, ["leaderboard", "--json", "--db", str(db), "--store", store.root])
    assert board.exit_code == 0 and "sub-month" in board.output


def test_open_store_checks_only_when_told_what_the_caller_is_about_to_do(blocker, tmp_path):
    assert open_store(str(blocker)).root == str(blocker)  # a flow's task: its flow already decided
    with pytest.raises(StoreError, match="is a file, not a folder"):
        open_store(str(blocker), usage="write")
    with pytest.raises(StoreError, match="there is no store"):
        open_store(str(tmp_path / "fresh"), usage="read")
    fresh = open_store(str(tmp_path / "fresh"), usage="write")  # a folder that can be made: made by a landing
    assert not (tmp_path / "fresh").exists()
    fresh.land_run(make_run("r1"), [])
    assert open_store(str(tmp_path / "fresh"), usage="read").has_run("r1")
    with pytest.raises(ValueError, match="usage must be one of"):
        open_store(str(tmp_path / "fresh"), usage="append")


@pytest.fixture
def endpoint(monkeypatch):
    yield from moto_endpoint(monkeypatch)


def test_s3_stores_are_checked_the_same_way_and_keep_working(endpoint, tmp_path, monkeypatch):
    with pytest.raises(StoreError, match="there is no bucket 'no-such-bucket'"):
        open_store("s3://no-such-bucket/traces", usage="write", attempts=1)
    with pytest.raises(StoreError, match="there is no store at s3://bench/traces: nothing is stored under that prefix"):
        open_store("s3://bench/traces", usage="read", attempts=1)
    store = open_store("s3://bench/traces", usage="write", attempts=1)
    run = make_run("r1", submission_id="sub-month", tool_calls=1)
    from tests.warehouse.conftest import make_calls

    store.land_run(run, make_calls(run, [ok()]))
    monkeypatch.setenv("MCPBENCH_WAREHOUSE", str(tmp_path / "warehouse.duckdb"))
    built = CliRunner().invoke(main, ["warehouse", "build", "--store", "s3://bench/traces"])
    assert built.exit_code == 0 and "over 1 runs" in built.output, built.output
    board = CliRunner().invoke(main, ["leaderboard", "--json", "--store", "s3://bench/traces"])
    assert board.exit_code == 0 and "sub-month" in board.output, board.output
    other = CliRunner().invoke(main, ["leaderboard", "--store", "s3://bench/stroe"])
    _refused(other, "there is no store at s3://bench/stroe")
