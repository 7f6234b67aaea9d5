"""Turns land with their run under the store's landing rule (index last; a re-landing replaces them, an
interrupted one is repaired), the warehouse stages them, and stores landed before results and turns were
kept load everywhere, their new columns null."""

from __future__ import annotations

from datetime import timedelta

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from runstore.records import CALL_SCHEMA, RUN_SCHEMA, TURN_TEXT_KEPT, TurnRecord
from runstore.store import StoreError, open_store
from tests.warehouse.conftest import make_calls, make_run, ok
from warehouse.build import build, connect
from warehouse.quality import validate

WHERE = "month=2026-05/submission=sub-a"


def make_turns(run, n: int = 2, **fields) -> list[TurnRecord]:
    values = dict(model="m-1", status="ok", finish_reason="tool_calls", prompt_tokens=100, completion_tokens=5,
                  tokens_estimated=False, latency_ms=12.0, tool_calls=1, text="calling the tool",
                  text_truncated=False, text_cap=TURN_TEXT_KEPT)
    values.update(fields)
    return [TurnRecord(run_id=run.run_id, submission_id=run.submission_id, task_id=run.task_id, seq=i,
                       ts=run.started_at + timedelta(seconds=i), calls_before=i - 1, **values)
            for i in range(1, n + 1)]


def test_turns_land_before_the_run_row_and_a_re_landing_without_turns_removes_them(store):
    run = make_run("r1", split="dev")
    writes = []
    real = store._put
    store._put = lambda key, data: (writes.append(key.split("/")[0]), real(key, data))[1]
    store.land_run(run, make_calls(run, [ok()]), make_turns(run))
    assert writes == ["calls", "turns", "runs", "index"]
    assert store.read_turns().num_rows == 2 and store.exists("turns/month=2026-05/submission=sub-a/r1.parquet")
    store.land_run(run, make_calls(run, [ok()]))  # the same run again, now without turns
    assert store.read_turns().num_rows == 0 and not store.exists(f"turns/{WHERE}/r1.parquet")


def test_a_turn_of_another_run_is_refused_naming_it(store):
    run, other = make_run("r1"), make_run("r2")
    with pytest.raises(StoreError, match=r"turn seq=1 of run 'r2' .* does not belong to run 'r1'"):
        store.land_run(run, [], make_turns(other, 1))
    assert store.list() == []


def test_resuming_removes_turns_whose_run_never_landed_and_indexes_a_complete_run_with_turns(store):
    orphan, complete = make_run("r1"), make_run("r2")
    store.land_run(orphan, [], make_turns(orphan))
    store.land_run(complete, [], make_turns(complete))
    store.delete(f"runs/{WHERE}/r1.parquet")  # killed after its turns: no run row
    store.delete("index/runs/r1.json")
    store.delete("index/runs/r2.json")  # killed before its index entry: complete otherwise
    report = store.repair_landings("sub-a")
    assert (report.indexed, report.removed) == (["r2"], ["r1"])
    assert not store.exists(f"turns/{WHERE}/r1.parquet") and store.has_run("r2")
    assert store.read_turns().column("run_id").to_pylist() == ["r2", "r2"]


def test_stg_turns_holds_every_turn_and_the_quality_suites_check_them(store):
    run = make_run("r1", split="dev")
    store.land_run(run, make_calls(run, [ok(), ok()]), make_turns(run, 3))
    with connect(store) as con:
        assert con.execute("select count(*), max(calls_before) from stg_turns").fetchall() == [(3, 2)]
        assert validate(con).ok
    bad = make_run("r2", split="dev")
    store.land_run(bad, [], make_turns(bad, 1, prompt_tokens=-1))
    with connect(store) as con:
        report = validate(con)
    assert [s.name for s in report.suites if not s.ok] == ["turns"] and "prompt_tokens" in report.render()


def _old_file(path, table: pa.Table) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path)


def test_a_store_landed_before_results_turns_labels_and_explanations_loads_with_nulls(tmp_path):
    """Files written with the schemas of before: no result_text, fault, label or explanation column and
    no turns folder. The warehouse builds (the quality suites pass), the store reads them back."""
    store = open_store(str(tmp_path / "store"))
    new_calls = {"result_text", "result_truncated", "result_cap", "fault"}
    for split, run_id in (("dev", "old-dev"), ("2026-05", "old-private")):
        run = make_run(run_id, split=split, tool_calls=1)
        calls = make_calls(run, [ok()])
        where = f"month=2026-05/submission=sub-a/{run_id}.parquet"
        run_row = {k: v for k, v in run.model_dump().items() if k not in ("label", "explanation")}
        _old_file(tmp_path / "store/runs" / where, pa.Table.from_pylist(
            [run_row], schema=pa.schema([f for f in RUN_SCHEMA if f.name in run_row])))
        call_rows = [{k: v for k, v in c.model_dump().items() if k not in new_calls} for c in calls]
        _old_file(tmp_path / "store/calls" / where, pa.Table.from_pylist(
            call_rows, schema=pa.schema([f for f in CALL_SCHEMA if f.name not in new_calls])))
        store.put_bytes(f"index/runs/{run_id}.json", b'{"partition": "month=2026-05/submission=sub-a"}')
    result = build(store, tmp_path / "w.duckdb")
    assert result.checked and result.runs == 2
    import duckdb

    with duckdb.connect(str(result.path), read_only=True) as con:
        assert con.execute("select count(*) from stg_calls where result_text is null and fault is null "
                           "and result_cap is null").fetchall() == [(2,)]
        assert con.execute("select count(*) from stg_runs where label is null and explanation is null").fetchall() == [(2,)]
        assert con.execute("select count(*) from stg_turns").fetchall() == [(0,)]
    assert store.read_calls().column("result_text").to_pylist() == [None, None]
    assert store.read_turns().num_rows == 0
