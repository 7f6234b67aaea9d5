"""Every SQL file declares what it reads, its grain and its checks. The build makes the views in the
order the declarations give and refuses declarations that do not hold; the checks hold over a store that
exercises every mart; `warehouse --help` and docs/warehouse.md's reference are made from the files."""

from __future__ import annotations

import re
import shutil

import duckdb
import pytest
from click.testing import CliRunner

import warehouse.views
from mcpbench.cli import main
from tests.warehouse.conftest import make_run, ok
from warehouse.build import build
from warehouse.views import SQL_DIR, View, ViewDeclarationError, create_views, failed_checks, load_views
from warehouse.views_doc import COMMAND, DOC_PATH, glossary, meanings, render, view_columns


@pytest.fixture
def sql_dir(tmp_path):
    """A copy of warehouse/sql to break."""
    target = tmp_path / "sql"
    shutil.copytree(SQL_DIR, target)
    return target


def _edit(path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


def test_every_view_comes_after_the_views_it_declares_and_every_mart_declares_what_it_reads():
    views = load_views()
    order = [v.name for v in views]
    for view in views:
        assert all(order.index(dep) < order.index(view.name) for dep in view.depends), view.name
        assert view.layer == "staging" or view.depends, f"{view.name} declares nothing"
        assert view.grain, f"{view.name} declares no grain"


def test_the_build_makes_the_views_in_the_declared_order(store, land, tmp_path):
    land(make_run("r1"), [ok()])
    assert build(store, tmp_path / "w.duckdb", check=False).views == [v.name for v in load_views()]


def test_a_cycle_of_declarations_is_refused_naming_it(sql_dir):
    run_facts = sql_dir / "marts" / "run_facts.sql"
    _edit(run_facts, "-- depends: stg_runs, run_server_calls", "-- depends: stg_runs, run_server_calls, metrics_rollup")
    _edit(run_facts, "    select * from run_server_calls\n",
          "    select * from run_server_calls where run_id not in (select submission_id from metrics_rollup)\n")
    with pytest.raises(ViewDeclarationError, match=r"cycle: metrics_rollup -> run_facts -> metrics_rollup"):
        load_views(sql_dir)
    with duckdb.connect() as con, pytest.raises(ViewDeclarationError, match="cycle"):
        create_views(con, {}, sql_dir)  # refused before anything is made
        assert not con.execute("select * from duckdb_views() where not internal").fetchall()


def test_a_view_that_reads_another_without_declaring_it_is_refused(sql_dir):
    _edit(sql_dir / "marts" / "metrics_by_submission.sql", "-- depends: metrics_rollup\n", "")
    with pytest.raises(ViewDeclarationError, match=r"metrics_by_submission\.sql: reads metrics_rollup without "
                                                   r"declaring it: add '-- depends: metrics_rollup'"):
        load_views(sql_dir)
    _edit(sql_dir / "marts" / "metrics_by_submission.sql", "from metrics_rollup", "from METRICS_ROLLUP")
    with pytest.raises(ViewDeclarationError, match="reads metrics_rollup without declaring it"):
        load_views(sql_dir)  # SQL names ignore case, and so does the check


@pytest.mark.parametrize(("file", "old", "new", "why"), [
    ("marts/metrics_by_submission.sql", "-- depends: metrics_rollup", "-- depends: metrics_rollup, run_facts",
     "declares '-- depends: run_facts' but never reads it"),
    ("marts/metrics_by_submission.sql", "-- depends: metrics_rollup", "-- depends: metrics_rolup",
     "there is no view metrics_rolup"),
    ("staging/stg_runs.sql", "    from source\n", "    from source where run_id in (select run_id from run_facts)\n",
     "reads run_facts without declaring it"),
    ("marts/run_server_calls.sql", "    select * from stg_calls\n", "    select * from {{ source('calls') }}\n",
     "declares '-- depends: stg_calls' but never reads it"),
], ids=["declared-unread", "unknown", "staging-undeclared", "mart-source"])
def test_declarations_that_do_not_hold_are_refused_naming_the_file(sql_dir, file, old, new, why):
    _edit(sql_dir / file, old, new)
    with pytest.raises(ViewDeclarationError, match=re.escape(f"{sql_dir / file}: ") + ".*" + re.escape(why)):
        load_views(sql_dir)


def test_a_staging_view_may_not_read_a_mart_nor_a_mart_name_a_source(sql_dir):
    stg_runs = sql_dir / "staging" / "stg_runs.sql"
    _edit(stg_runs, "-- grain: run_id", "-- grain: run_id\n-- depends: run_facts")
    _edit(stg_runs, "    from source\n", "    from source where run_id in (select run_id from run_facts)\n")
    with pytest.raises(ViewDeclarationError, match="a staging view may not read the marts view run_facts"):
        load_views(sql_dir)
    shutil.copy(SQL_DIR / "staging" / "stg_runs.sql", stg_runs)
    _edit(sql_dir / "marts" / "run_server_calls.sql", "    select * from stg_calls\n",
          "    select * from stg_calls union all select * from {{ source('calls') }}\n")
    with pytest.raises(ViewDeclarationError, match=r"only staging may name a source, found source\('calls'\)"):
        load_views(sql_dir)


def test_every_declared_grain_and_check_holds_over_a_store_that_exercises_every_mart(synthetic):
    with duckdb.connect(str(synthetic), read_only=True) as con:
        assert failed_checks(con) == []
        for view in load_views():
            assert con.execute(f"select count(*) from {view.name}").fetchone()[0] > 0, f"{view.name} is empty"


def test_a_grain_or_check_a_view_breaks_is_reported(synthetic):
    broken = View("metrics_by_submission", "marts", SQL_DIR / "marts" / "metrics_by_submission.sql", "",
                  grain=("submitter",), checks=("servers >= 3",))
    with duckdb.connect(str(synthetic), read_only=True) as con:
        failures = failed_checks(con, [broken])
    assert len(failures) == 2
    assert re.fullmatch(r"metrics_by_submission: \d+ values of its grain \(submitter\) name more than one row",
                        failures[0])
    assert re.fullmatch(r"metrics_by_submission: \d+ rows fail the check servers >= 3", failures[1])


# -- generated from the files -----------------------------------------------------------------------
def _listed_views(help_text: str) -> list[str]:
    section = help_text.split("Views (", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^  ([a-z_]+)\s", section, re.MULTILINE)


@pytest.mark.parametrize("command", [["warehouse"], ["warehouse", "query"]], ids=" ".join)
def test_the_help_lists_exactly_the_views_that_exist(command, sql_dir, monkeypatch):
    result = CliRunner().invoke(main, [*command, "--help"])
    assert result.exit_code == 0, result.output
    assert sorted(_listed_views(result.output)) == sorted(v.name for v in load_views())
    (sql_dir / "marts" / "tasks_by_version.sql").write_text(
        "-- tasks_by_version: one row per task and version.\n-- depends: run_facts\n-- grain: task_id\n"
        "select distinct task_id from run_facts\n")
    (sql_dir / "marts" / "leaderboard_ranks.sql").unlink()
    for name in ("leaderboard_contemporary", "leaderboard_historical"):
        (sql_dir / "marts" / f"{name}.sql").unlink()
    monkeypatch.setattr(warehouse.views, "SQL_DIR", sql_dir)
    listed = _listed_views(CliRunner().invoke(main, [*command, "--help"]).output)
    assert "tasks_by_version" in listed and "leaderboard_ranks" not in listed


def test_the_committed_views_reference_is_up_to_date():
    current = DOC_PATH.read_text(encoding="utf-8")
    if render(current) != current:  # not a bare assert: a diff of two long pages says less than this
        pytest.fail(f"{DOC_PATH} is stale: run `{COMMAND}` and commit the result", pytrace=False)
    for view in load_views():
        assert f"#### `{view.name}` (" in current, view.name


def test_a_column_without_a_meaning_or_a_meaning_without_a_column_stops_the_reference():
    views = load_views()
    columns = view_columns(views)
    words = glossary()
    columns["run_facts"].append(("undocumented_column", "VARCHAR"))
    with pytest.raises(ValueError, match=r"no meaning for run_facts\.undocumented_column"):
        meanings(views, columns, words)
    columns["run_facts"].pop()
    with pytest.raises(ValueError, match=r"names no column of any view: stg_runs\.nonsense"):
        meanings(views, columns, {**words, "stg_runs.nonsense": "never a column"})


def test_a_malformed_line_of_the_column_glossary_is_named(tmp_path):
    path = tmp_path / "columns.yaml"
    path.write_text('# meanings\nrun_id: "the run"\nrun_id: "again"\n')
    with pytest.raises(ValueError, match=r"columns\.yaml:3: expected a new `column: \"meaning\"` line"):
        glossary(path)
    path.write_text('run_id: the run, unquoted\n')
    with pytest.raises(ValueError, match=r"columns\.yaml:1: .*'run_id: the run, unquoted'"):
        glossary(path)
    path.write_text('# meanings\n\nrun_id: "the run"\nstg_runs.goal: "the goal"\n')
    assert glossary(path) == {"run_id": "the run", "stg_runs.goal": "the goal"}
