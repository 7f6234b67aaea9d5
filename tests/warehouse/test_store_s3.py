"""The S3 store against moto's server, started on loopback by the test, including an endpoint that
drops connections or dies mid-write."""

from __future__ import annotations

import pytest
from botocore.exceptions import ConnectionClosedError

from runstore.store import StoreError, open_store
from tests.warehouse.conftest import err, make_calls, make_run, moto_endpoint, ok, unlisted
from warehouse.build import build, connect
from warehouse.scorecard import scorecard


@pytest.fixture
def endpoint(monkeypatch):
    yield from moto_endpoint(monkeypatch)


@pytest.fixture
def s3(endpoint):
    return open_store("s3://bench/traces", attempts=3, backoff_s=0.01, timeout_s=5)


def test_runs_land_on_s3_in_the_partition_layout_and_read_back_through_pyarrow(s3):
    run = make_run("r1", tool_calls=2)
    s3.land_run(run, make_calls(run, [ok(), unlisted("post_messages")]))
    assert s3.list("runs/") == ["runs/month=2026-05/submission=sub-a/r1.parquet"]
    assert s3.read_runs().column("run_id").to_pylist() == ["r1"]
    assert s3.read_calls().column("listed").to_pylist() == [True, False]
    assert s3.has_run("r1") and s3.landed_run_ids("sub-a") == {"r1"}


def test_re_landing_on_s3_replaces_the_run(s3):
    for status, spec in [("failed", [ok(), ok()]), ("passed", [ok()])]:
        run = make_run("r1", status=status)
        s3.land_run(run, make_calls(run, spec))
    assert s3.read_runs().column("status").to_pylist() == ["passed"]
    assert s3.read_calls().num_rows == 1


def test_a_dropped_connection_is_retried_and_the_write_succeeds(s3):
    drops = []

    def drop_twice(request, **kwargs):
        if len(drops) < 2:
            drops.append(request.url)
            raise ConnectionClosedError(endpoint_url=request.url)

    s3.client.meta.events.register("before-send.s3.PutObject", drop_twice)
    s3.put_bytes("attestations/2026-05.json", b"[]")
    assert len(drops) == 2
    assert s3.get_bytes("attestations/2026-05.json") == b"[]"


def test_a_write_to_a_dead_endpoint_is_tried_exactly_attempts_times(s3, endpoint):
    """The store retries, naming the key; the S3 client under it must not retry as well (its own retries
    multiplied the attempts and added backoffs of up to a second each, past the store's stated bound)."""
    sends = []
    s3.client.meta.events.register("before-send.s3.PutObject", lambda request, **kwargs: sends.append(request.url))
    endpoint.stop()
    with pytest.raises(StoreError, match="after 3 attempts"):
        s3.put_bytes("attestations/2026-05.json", b"[]")
    assert len(sends) == 3


def test_an_endpoint_dying_mid_write_is_retried_then_named_and_nothing_landed_is_lost(s3, endpoint):
    landed = []
    for i in (1, 2):
        run = make_run(f"r{i}", tool_calls=2)
        s3.land_run(run, make_calls(run, [ok(), err()]))
        landed.append(run.run_id)

    puts = []

    def die_after_the_calls_file(**kwargs):
        puts.append(1)
        if len(puts) == 1:
            endpoint.stop()

    s3.client.meta.events.register("after-call.s3.PutObject", die_after_the_calls_file)
    run = make_run("r3", tool_calls=1)
    with pytest.raises(StoreError) as failure:
        s3.land_run(run, make_calls(run, [ok()]))
    message = str(failure.value)
    assert "s3://bench/traces/runs/month=2026-05/submission=sub-a/r3.parquet" in message
    assert "after 3 attempts" in message

    s3.client.meta.events.unregister("after-call.s3.PutObject", die_after_the_calls_file)
    endpoint.start()  # same port: the service comes back
    assert s3.landed_run_ids("sub-a") == {"r1", "r2"} and not s3.has_run("r3")
    assert sorted(s3.read_runs().column("run_id").to_pylist()) == ["r1", "r2"]
    s3.land_run(run, make_calls(run, [ok()]))  # resuming re-lands the run that failed
    assert s3.read_runs().num_rows == 3 and s3.read_calls().num_rows == 5


def test_the_warehouse_builds_over_s3_and_scores_a_submission(s3, tmp_path):
    run = make_run("r1", status="passed", tool_calls=2, max_steps=8)
    s3.land_run(run, make_calls(run, [ok(), unlisted("post_messages")]))
    run = make_run("r2", status="failed", tool_calls=1)
    s3.land_run(run, make_calls(run, [ok()]))
    result = build(s3, tmp_path / "w.duckdb", check=False)
    assert (result.runs, result.calls) == (2, 3)
    card = scorecard("sub-a", store=s3)
    assert card["overall"]["success_rate"] == 0.5 and card["overall"]["efficiency"] == 25.0
    assert card["overall"]["hallucination_rate"] == pytest.approx(1 / 3)
    with connect(s3) as con:
        assert con.execute("select count(*) from stg_calls").fetchone()[0] == 3
