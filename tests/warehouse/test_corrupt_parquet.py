"""A corrupted Parquet file in the store stops `warehouse build` with an error naming the file and how
to recover, not a traceback blaming a SQL view; nothing landed is touched, the previous warehouse
stays, and after the documented recovery the build succeeds."""

from __future__ import annotations

import duckdb
import pytest
from click.testing import CliRunner

from mcpbench.cli import main
from tests.warehouse.conftest import make_calls, make_run, ok
from warehouse.build import CorruptFileError, build, connect

BROKEN_RUN = "runs/month=2026-05/submission=sub-a/r1.parquet"
BROKEN_CALLS = "calls/month=2026-05/submission=sub-a/r2.parquet"


@pytest.fixture
def landed(store):
    for i in range(3):
        run = make_run(f"r{i}", tool_calls=2)
        store.land_run(run, make_calls(run, [ok(), ok()]))
    return store


def _truncate(store, key: str) -> None:
    path = store.path / key
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _snapshot(store) -> dict[str, bytes]:
    return {key: store.get_bytes(key) for key in store.list()}


def test_build_names_the_corrupt_file_keeps_the_store_and_the_previous_warehouse(landed, tmp_path):
    db = tmp_path / "w.duckdb"
    build(landed, db)
    _truncate(landed, BROKEN_RUN)
    before = _snapshot(landed)

    result = CliRunner().invoke(main, ["warehouse", "build", "--store", landed.root, "--db", str(db)])
    assert result.exit_code == 1
    assert "Traceback" not in result.output and ".sql" not in result.output
    assert f"{landed.url(BROKEN_RUN)}: not a readable Parquet file" in result.output
    assert "--submission-id" in result.output and "(r1)" in result.output
    assert _snapshot(landed) == before
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("select count(*) from run_facts").fetchone() == (3,)


def test_every_corrupt_file_is_named_runs_and_calls_alike(landed, tmp_path):
    _truncate(landed, BROKEN_RUN)
    (landed.path / BROKEN_CALLS).write_bytes(b"not parquet at all")
    with pytest.raises(CorruptFileError) as failure:
        build(landed, tmp_path / "w.duckdb")
    assert sorted(failure.value.files) == sorted([BROKEN_RUN, BROKEN_CALLS])
    assert not (tmp_path / "w.duckdb").exists()


def test_a_score_card_connection_names_the_corrupt_file_too(landed):
    _truncate(landed, BROKEN_RUN)
    with pytest.raises(CorruptFileError, match="r1.parquet"):
        connect(landed, submission_id="sub-a")


def test_the_documented_recovery_deletes_the_file_and_a_resume_re_runs_exactly_that_run(landed, tmp_path):
    _truncate(landed, BROKEN_RUN)
    (landed.path / BROKEN_RUN).unlink()  # as the error says: delete it ...
    report = landed.repair_landings("sub-a")  # ... and resume, which first tidies the orphan calls
    assert report.removed == ["r1"] and landed.landed_run_ids("sub-a") == {"r0", "r2"}
    assert build(landed, tmp_path / "w.duckdb").runs == 2
