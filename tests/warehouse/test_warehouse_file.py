"""The warehouse path holds a warehouse a build made, or nothing: `warehouse build --db` never replaces
another file (it silently replaced a text file), and the readers never open one; recognised by the
table every build writes, not by the file's name."""

from __future__ import annotations

import os

import duckdb
import pytest
from click.testing import CliRunner

from mcpbench.cli import main
from tests.warehouse.conftest import make_run
from warehouse.build import build
from warehouse.database_file import MARK_TABLE, WarehouseFileError, check_database_path

NOTES = "quarterly numbers, typed by hand\n"


@pytest.fixture
def landed(store):
    store.land_run(make_run("r1", submission_id="sub-month"), [])
    return store


def _others(tmp_path):
    """Files at a warehouse path that a build did not make, each with the reason it is refused."""
    text = tmp_path / "notes.duckdb"  # the extension says nothing
    text.write_text(NOTES)
    foreign = tmp_path / "crm.duckdb"
    with duckdb.connect(str(foreign)) as con:
        con.execute("create table customers as select 1 as id, 'Ada' as name")
    empty = tmp_path / "empty.duckdb"
    empty.touch()
    pipe = tmp_path / "pipe.duckdb"
    os.mkfifo(pipe)  # opening it for reading would wait for a writer forever
    return [(text, "it is not a DuckDB database"),
            (foreign, f"a DuckDB database without the {MARK_TABLE} table"),
            (empty, "it is an empty file"),
            (pipe, "it is not a regular file")]


def _content(path):
    """What a path holds: a regular file's bytes, or what kind of file it is (a pipe is not read)."""
    return path.read_bytes() if path.is_file() else os.stat(path).st_mode


def test_build_refuses_to_replace_a_file_that_is_not_a_warehouse_and_leaves_it_as_it_was(landed, tmp_path):
    for path, why in _others(tmp_path):
        before = _content(path)
        result = CliRunner().invoke(main, ["warehouse", "build", "--store", landed.root, "--db", str(path)])
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit), (path, result.output)
        assert f"{path} is not a warehouse this project built ({why}" in result.output
        assert _content(path) == before
        assert not any(p.name.endswith(".building") for p in tmp_path.iterdir())


@pytest.mark.parametrize("reader", [["leaderboard"], ["warehouse", "query", "select 1"],
                                    ["report", "--html", "{tmp}/report.html"]], ids=lambda r: r[0])
def test_the_readers_never_open_or_rebuild_over_a_file_that_is_not_a_warehouse(reader, landed, tmp_path):
    args = [a.replace("{tmp}", str(tmp_path)) for a in reader]
    for path, why in _others(tmp_path):
        before = _content(path)
        result = CliRunner().invoke(main, [*args, "--store", landed.root, "--db", str(path)])
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit), (path, repr(result.exception))
        assert f"{path} is not a warehouse this project built ({why}" in result.output
        assert _content(path) == before
    assert not (tmp_path / "report.html").exists()


def test_a_warehouse_a_build_made_is_rebuilt_whatever_its_name(landed, tmp_path):
    db = tmp_path / "scores.bin"
    assert build(landed, db).runs == 1
    landed.land_run(make_run("r2", submission_id="sub-month"), [])
    result = CliRunner().invoke(main, ["warehouse", "build", "--store", landed.root, "--db", str(db)])
    assert result.exit_code == 0 and "over 2 runs" in result.output, result.output
    assert check_database_path(db) == db


def test_a_folder_or_a_path_under_a_file_is_refused_before_anything_is_read(landed, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text(NOTES)
    with pytest.raises(WarehouseFileError, match="cannot be made: .*notes.txt is a file, not a folder"):
        build(landed, notes / "warehouse.duckdb")
    with pytest.raises(WarehouseFileError, match="is a folder"):
        build(landed, tmp_path)
    assert notes.read_text() == NOTES
