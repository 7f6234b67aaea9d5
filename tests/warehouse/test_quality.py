"""Great Expectations suites on landed data (few tests: the library takes seconds to import)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from runstore.records import CALL_SCHEMA
from tests.warehouse.conftest import err, make_calls, make_run, ok
from warehouse.build import build, connect
from warehouse.quality import QualityError, validate


def test_clean_data_passes_and_a_dev_run_that_published_its_goal_may_keep_it(store, land):
    land(make_run("r1"), [ok()])
    land(make_run("r2", submission_id="sub-open", split="dev", goal="Post 'hi' to #general", goals_published=True),
         [ok()])
    land(make_run("r3", submission_id="sub-folder", split="dir:my-tasks"), [ok()])
    land(make_run("r4", submission_id="sub-hist", split="Historical-2026-01"), [ok()])
    slow = make_run("r5", submission_id="sub-slow", status="failed", tool_calls=1, errors_observed=1)
    (call,) = make_calls(slow, [("query", True, True)])
    store.land_run(slow, [call.model_copy(update={"error_kind": "call_timeout"})])  # every error kind is known
    with connect(store) as con:
        report = validate(con)
    assert report.ok, report.render()
    assert [s.name for s in report.suites] == ["schema", "runs", "calls", "turns", "rates", "redaction"]


@pytest.mark.parametrize("split", ["dev", "dir:my-tasks", "Historical-2026-01"])
def test_a_run_that_stores_its_goal_without_opting_in_fails_the_redaction_suite(store, land, split):
    land(make_run("quiet", split=split), [ok()])
    land(make_run("chatty", split=split, goal="Archive #random and tell nobody"), [ok()])
    with connect(store) as con:
        report = validate(con)
    (failed,) = [s for s in report.suites if not s.ok]
    assert failed.name == "redaction"
    assert "['chatty']" in report.render() and "Archive #random" not in report.render()


def test_a_private_month_run_may_never_publish_its_goal(store, land):
    land(make_run("sealed", goals_published=True, goal="Archive #random"), [ok()])
    with connect(store) as con:
        report = validate(con)
    assert [s.name for s in report.suites if not s.ok] == ["redaction"]
    assert "goals_published on private-month runs ['sealed']" in report.render()


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


def test_a_checked_build_validates_only_what_landed_or_changed_since_the_last_one(store, land, tmp_path):
    db = tmp_path / "warehouse.duckdb"
    first = land(make_run("r1"), [ok()])
    land(make_run("r2"), [ok()])
    assert (build(store, db).runs_validated, build(store, db).runs_validated) == (2, 0)
    land(make_run("r3"), [ok()])
    again = build(store, db)
    assert again.checked and again.runs_validated == 1 and again.runs == 3
    land(first.model_copy(update={"goal": "Archive #random"}))  # re-landed with a change: checked again
    with pytest.raises(QualityError, match=r"\['r1'\]"):
        build(store, db)


def test_an_unchecked_build_records_which_runs_were_not_checked(store, land, tmp_path):
    db = tmp_path / "warehouse.duckdb"
    land(make_run("r1"), [ok()])
    assert build(store, db).checked
    assert build(store, db, check=False).checked, "nothing new: the earlier check still covers every run"
    land(make_run("r2"), [ok()])
    unchecked = build(store, db, check=False)
    assert not unchecked.checked and unchecked.runs_validated == 0
    assert build(store, db).runs_validated == 1, "the next checked build checks what the unchecked one skipped"


def test_a_private_month_run_keeping_results_turn_text_stderr_or_explained_values_fails_the_redaction_suite(
        store, land):
    from runstore.records import Explanation, FailedClause
    from tests.warehouse.test_trace_records import make_turns

    secret = "refund ch_3QpX9 for 1337.42"
    clean = make_run("clean", status="failed", explanation=Explanation(clauses=[FailedClause(clause="$.all[1]")]).to_json())
    land(clean, [ok()])
    store.land_run(make_run("turns"), [], make_turns(make_run("turns"), 1, text=secret))
    store.land_run(make_run("silent-turns"), [], make_turns(make_run("silent-turns"), 1, text=None,
                                                            text_truncated=None, text_cap=None))
    results = make_run("results")
    (call,) = make_calls(results, [ok()])
    store.land_run(results, [call.model_copy(update={"result_text": secret})])
    faulted = make_run("faulted")
    (call,) = make_calls(faulted, [err()])
    store.land_run(faulted, [call.model_copy(update={"fault": "rate_limit"})])
    land(make_run("stderr", status="failed", stderr_tail=secret))
    explained = Explanation(clauses=[FailedClause(clause="$.all[1]", primitive="stripe.refundIssued",
                                                  found=secret)]).to_json()
    land(make_run("explained", status="failed", explanation=explained))
    land(make_run("explained-public", split="dev", status="failed", explanation=explained))
    with connect(store) as con:
        report = validate(con)
    assert [s.name for s in report.suites if not s.ok] == ["redaction"]
    text = report.render()
    assert "text of their calls, turns or stderr: ['faulted', 'results', 'stderr', 'turns']" in text
    assert "more than clause ids in their explanation: ['explained']" in text
    assert secret not in text and "ch_3QpX9" not in text
