"""Great Expectations suites on landed data (few tests: the library takes seconds to import)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.warehouse.conftest import make_calls, make_run, ok
from runstore.records import CALL_SCHEMA
from warehouse.build import build, connect
from warehouse.quality import QualityError, validate


def test_clean_data_passes_and_a_published_dev_submission_may_keep_its_goal(store, land):
    land(make_run("r1"), [ok()])
    land(make_run("r2", submission_id="sub-open", split="dev", goal="Post 'hi' to #general"), [ok()])
    with connect(store) as con:
        report = validate(con, published_submissions=["sub-open"])
    assert report.ok, report.render()
    assert [s.name for s in report.suites] == ["schema", "runs", "calls", "rates", "redaction"]


def test_bad_rows_stop_the_build_with_a_report_and_the_data_and_old_warehouse_are_kept(store, land, tmp_path):
    db = tmp_path / "warehouse.duckdb"
    land(make_run("good"), [ok()])
    build(store, db)
    before = db.read_bytes()

    land(make_run("negative", tool_calls=-1))
    land(make_run("leaky", goal="Archive #random and tell nobody"))
    orphan = make_calls(make_run("ghost"), [ok()])
    pq.write_table(pa.Table.from_pylist([c.model_dump() for c in orphan], schema=CALL_SCHEMA),
                   store.path / "calls/month=2026-05/submission=sub-a/ghost.parquet")

    with pytest.raises(QualityError) as failure:
        build(store, db)
    report = failure.value.report
    failed = {s.name for s in report.suites if not s.ok}
    assert failed == {"runs", "calls", "redaction"}
    text = str(failure.value)
    assert "tool_calls" in text and "[-1]" in text
    assert "'ghost'" in text  # the call whose run never landed
    assert "['leaky']" in text and "Archive #random" not in text  # names the run, never echoes its goal
    assert db.read_bytes() == before
    assert {"good", "negative", "leaky"} <= set(store.read_runs().column("run_id").to_pylist())
