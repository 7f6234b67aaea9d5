"""The numbers stay put: every view of a warehouse over the synthetic store (tests/warehouse/snapshot.py:
five private months, a retired one, the dev set, a folder, trials, infra errors, recovery runs, frame
violations, model usage, a flagged submitter and a flagged task) holds, column by column, exactly the
rows recorded in golden_views.json, floats bit for bit. A view or column added since is allowed; one
removed, renamed or computing anything else fails here, naming it. A deliberate change rewrites the
record with `python tests/warehouse/snapshot.py golden`."""

from __future__ import annotations

import json

import duckdb

from tests.warehouse.snapshot import GOLDEN, digests, dump


def test_every_view_holds_the_recorded_rows_bit_for_bit(synthetic):
    golden = json.loads(GOLDEN.read_text())
    with duckdb.connect(str(synthetic), read_only=True) as con:
        snapshot = dump(con)
    assert set(golden) <= set(snapshot), f"views gone: {sorted(set(golden) - set(snapshot))}"
    now = digests({v: snapshot[v] for v in golden}, {v: list(d["columns"]) for v, d in golden.items()})
    for view, recorded in golden.items():
        assert now[view]["rows"] == recorded["rows"], view
        gone = sorted(set(recorded["columns"]) - set(now[view]["columns"]))
        assert not gone, f"{view}: columns gone: {gone}"
        changed = sorted(c for c, d in recorded["columns"].items() if now[view]["columns"][c] != d)
        assert not changed, f"{view}: columns whose type or values changed: {changed}"


def test_the_synthetic_store_makes_every_flag_and_board_fire(synthetic):
    """The record is only worth what the store exercises: both anomaly flags, both leaderboards with
    ranked and unranked entries, repeated trials, infra errors and frame violations."""
    golden = json.loads(GOLDEN.read_text())
    assert golden["anomaly_submitter_flags"]["rows"] >= 1 and golden["anomaly_task_flags"]["rows"] >= 1
    assert golden["leaderboard_contemporary"]["rows"] >= 4 and golden["leaderboard_historical"]["rows"] >= 3
    with duckdb.connect(str(synthetic), read_only=True) as con:
        (k, infra, violated, unranked) = con.execute(
            "select (select max(k) from trials_by_submission), (select sum(infra_errors) from metrics_by_submission), "
            "(select sum(frame_violated) from metrics_by_submission), "
            "(select count(*) from leaderboard_contemporary where rank is null)").fetchone()
    assert k == 3 and infra > 0 and violated > 0 and 0 < unranked < golden["leaderboard_contemporary"]["rows"]
