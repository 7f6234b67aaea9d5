"""The local store: atomic, idempotent landing in the documented layout; artefacts; resume."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from runstore.store import StoreError, default_root, open_store
from tests.warehouse.conftest import err, make_calls, make_run, ok


def test_a_run_lands_as_two_parquet_files_partitioned_by_month_and_submission(store, land):
    land(make_run("r1", submission_id="sub-a", split="2026-05"), [ok(), err()])
    assert store.list() == [
        "calls/month=2026-05/submission=sub-a/r1.parquet",
        "index/runs/r1.json",
        "runs/month=2026-05/submission=sub-a/r1.parquet",
    ]
    calls = pq.read_table(store.path / "calls/month=2026-05/submission=sub-a/r1.parquet")
    assert calls.column("seq").to_pylist() == [1, 2] and calls.column("is_error").to_pylist() == [False, True]


def test_re_landing_a_run_replaces_it_and_never_duplicates_rows(store, land):
    land(make_run("r1", status="failed"), [ok(), ok(), ok()])
    land(make_run("r1", status="passed"), [ok()])
    runs, calls = store.read_runs(), store.read_calls()
    assert runs.column("status").to_pylist() == ["passed"]
    assert calls.num_rows == 1


def test_re_landing_a_run_under_another_month_moves_it(store, land):
    land(make_run("r1", split="2026-04"), [ok()])
    land(make_run("r1", split="2026-05"), [ok()])
    assert list(store.list("runs/")) == ["runs/month=2026-05/submission=sub-a/r1.parquet"]
    assert store.read_calls().num_rows == 1


def test_no_temporary_file_is_left_or_read_after_landing(store, land):
    land(make_run("r1"), [ok()])
    leftovers = [p for p in store.path.rglob("*") if p.is_file() and p.name.startswith(".")]
    assert leftovers == []


def test_a_failed_write_leaves_the_previous_landing_whole(store, land, monkeypatch):
    land(make_run("r1", status="failed"), [ok(), ok()])

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr("runstore.store._local.os.replace", broken)
    with pytest.raises(StoreError, match="disk full"):
        land(make_run("r1", status="passed"), [ok()])
    monkeypatch.undo()
    assert store.read_runs().column("status").to_pylist() == ["failed"]
    assert store.read_calls().num_rows == 2
    assert [p.name for p in store.path.rglob(".*")] == []


def test_landed_run_ids_and_has_run_tell_what_to_resume(store, land):
    land(make_run("r1", submission_id="sub-a", split="2026-04"))
    land(make_run("r2", submission_id="sub-a", split="2026-05"))
    land(make_run("r3", submission_id="sub-b"))
    assert store.landed_run_ids("sub-a") == {"r1", "r2"}
    assert store.has_run("r3") and not store.has_run("r4")
    assert store.read_runs("sub-b").column("run_id").to_pylist() == ["r3"]


def test_calls_of_another_run_are_refused_naming_both(store):
    run, other = make_run("r1"), make_run("r2")
    with pytest.raises(StoreError, match="does not belong to run 'r1'"):
        store.land_run(run, make_calls(other, [ok()]))
    assert store.list() == []


def test_ids_that_cannot_be_keys_are_refused(store):
    with pytest.raises(StoreError, match="run_id '../x'"):
        store.land_run(make_run("../x"), [])
    with pytest.raises(StoreError, match="bad key"):
        store.put_bytes("../escape.json", b"{}")


def test_artefacts_round_trip_and_list_by_prefix(store):
    store.put_bytes("attestations/2026-05.json", b'[["t1", "abc"]]')
    store.put_bytes("attestations/2026-06.json", b"[]")
    assert store.get_bytes("attestations/2026-05.json") == b'[["t1", "abc"]]'
    assert store.list("attestations/") == ["attestations/2026-05.json", "attestations/2026-06.json"]
    with pytest.raises(KeyError, match="attestations/2026-07.json"):
        store.get_bytes("attestations/2026-07.json")


def test_the_default_root_can_be_moved_by_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("MCPBENCH_STORE", str(tmp_path / "elsewhere"))
    assert default_root() == str(tmp_path / "elsewhere")
    assert open_store().root == str(tmp_path / "elsewhere")


def test_an_unknown_scheme_is_refused_clearly():
    with pytest.raises(StoreError, match="gs://bucket"):
        open_store("gs://bucket/x")


def _as_written_before_frames(path) -> None:
    """Rewrite a Parquet file as a store from before issue 10 held it: no frame columns."""
    table = pq.read_table(path)
    pq.write_table(table.drop_columns([c for c in ("frame_held", "frame_violations") if c in table.column_names]), path)


def test_runs_and_a_schema_file_from_before_the_frame_columns_still_build_with_those_columns_null(store, land):
    from warehouse.build import build, connect

    land(make_run("r-old", submission_id="sub-old"), [ok()])
    store.ensure_schema_file("runs")
    for path in (store.path / "runs").rglob("*.parquet"):
        _as_written_before_frames(path)
    assert "frame_held" not in pq.read_schema(store.path / "runs" / "_schema.parquet").names
    land(make_run("r-new", submission_id="sub-new", frame_held=False, frame_violations="slack.channel C1 updated (topic)"),
         [ok()])

    old_only = connect(store, submission_id="sub-old")  # a union over old files alone
    assert old_only.execute("select run_id, frame_held, frame_violations from stg_runs").fetchall() == [
        ("r-old", None, None)]
    status = build(store, store.path.parent / "wh.duckdb")
    assert status.runs == 2
    everything = connect(store)
    assert everything.execute("select run_id, frame_held, frame_violations from stg_runs order by run_id").fetchall() == [
        ("r-new", False, "slack.channel C1 updated (topic)"), ("r-old", None, None)]
    assert "frame_held" in pq.read_schema(store.path / "runs" / "_schema.parquet").names


def test_why_the_agent_ended_lands_and_runs_from_before_that_column_read_it_as_null(store, land):
    from warehouse.build import connect

    land(make_run("r-old", submission_id="sub-old"), [ok()])
    store.ensure_schema_file("runs")
    for path in (store.path / "runs").rglob("*.parquet"):
        table = pq.read_table(path)
        pq.write_table(table.drop_columns(["end_reason_detail", "harness_wait_s"]), path)
    land(make_run("r-new", submission_id="sub-new", status="failed", end_reason="agent_exit",
                  end_reason_detail="memory limit", harness_wait_s=25.5, agent_error=True), [ok()])

    old_only = connect(store, submission_id="sub-old")
    assert old_only.execute("select end_reason_detail, harness_wait_s from stg_runs").fetchall() == [(None, None)]
    everything = connect(store)
    assert everything.execute("select run_id, end_reason, end_reason_detail, harness_wait_s from stg_runs "
                              "order by run_id").fetchall() == [("r-new", "agent_exit", "memory limit", 25.5),
                                                                ("r-old", "passed", None, None)]
