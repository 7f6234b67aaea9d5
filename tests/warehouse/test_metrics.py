"""Each metric of the design on hand-built traces whose answers are worked out by hand."""

from __future__ import annotations

from fractions import Fraction

import pytest

from runstore.store import open_store
from tests.warehouse.conftest import err, make_run, ok, unlisted
from warehouse.build import connect
from warehouse.scorecard import METRICS, scorecard


def metrics(store, view="metrics_by_submission", where="submission_id = 'sub-a'"):
    con = connect(store)
    try:
        cur = con.execute(f"select * from {view} where {where}")
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row)) for row in cur.fetchall()]
    finally:
        con.close()


def test_success_rate_is_passed_over_attempted_and_infra_errors_are_not_attempted(store, land):
    land(make_run("r1", status="passed"), [ok()])
    land(make_run("r2", status="passed"), [ok()])
    land(make_run("r3", status="failed"), [ok()])
    land(make_run("r4", status="infra_error"))
    (row,) = metrics(store)
    assert (row["attempted"], row["passed"], row["infra_errors"]) == (3, 2, 1)
    assert row["success_rate"] == pytest.approx(2 / 3)


def test_a_submission_of_only_infra_errors_has_no_success_rate(store, land):
    land(make_run("r1", status="infra_error"))
    (row,) = metrics(store)
    assert (row["attempted"], row["infra_errors"], row["success_rate"]) == (0, 1, None)


def test_efficiency_averages_steps_used_over_passed_runs_only(store, land):
    land(make_run("r1", status="passed", tool_calls=2, max_steps=10))
    land(make_run("r2", status="passed", tool_calls=5, max_steps=10))
    land(make_run("r3", status="failed", tool_calls=10, max_steps=10))  # would raise the mean if counted
    land(make_run("r4", status="passed", tool_calls=3, max_steps=20))
    (row,) = metrics(store)
    assert row["efficiency"] == pytest.approx(100 * (0.2 + 0.5 + 0.15) / 3)


def test_hallucinations_count_unlisted_calls_even_when_a_listed_tool_shares_the_prefix(store, land):
    land(make_run("r1"), [ok("post_message"), unlisted("post_message_v2"), unlisted("post"), ok("post_message")])
    land(make_run("r2", status="failed"), [ok("list_channels"), ok("list_channels"), ok("post_message"),
                                           err("post_message")])
    (row,) = metrics(store)
    assert (row["unlisted_calls"], row["calls"]) == (2, 8)
    assert row["hallucination_rate"] == pytest.approx(2 / 8)


def test_calls_of_infra_error_runs_do_not_count_towards_hallucinations(store, land):
    land(make_run("r1"), [ok(), ok()])
    land(make_run("r2", status="infra_error"), [unlisted("nope")])
    (row,) = metrics(store)
    assert row["hallucination_rate"] == 0.0


def test_recovery_rate_excludes_runs_passed_without_an_observed_error(store, land):
    rec = {"category": "recovery"}
    land(make_run("r1", status="passed", **rec), [err(), ok()])  # recovered: counts above and below
    land(make_run("r2", status="passed", **rec), [ok()])  # no error to recover from: excluded
    land(make_run("r3", status="failed", **rec), [err()])  # did not recover
    land(make_run("r4", status="failed", **rec), [ok()])  # failed without error: still attempted
    land(make_run("r5", status="infra_error", **rec))  # not attempted
    land(make_run("r6", status="passed"), [err(), ok()])  # a standard task: no part of recovery
    (row,) = metrics(store)
    assert (row["recovery_passed_after_error"], row["recovery_attempted"], row["recovery_passed_without_error"]) \
        == (1, 4, 1)
    assert row["recovery_rate"] == pytest.approx(1 / 3)


def test_observed_errors_come_from_the_call_rows_not_the_runs_own_counter(store, land):
    rec = {"category": "recovery"}
    land(make_run("r1", status="passed", errors_observed=0, **rec), [err(), ok()])
    land(make_run("r2", status="passed", errors_observed=5, **rec), [ok(), ok()])
    (row,) = metrics(store)
    assert (row["recovery_passed_after_error"], row["recovery_passed_without_error"]) == (1, 1)
    assert row["recovery_rate"] == 1.0


def test_server_rows_and_the_aggregate_pool_runs_exactly(store, land):
    land(make_run("a1", server="slack", status="passed", tool_calls=1), [ok()])
    land(make_run("a2", server="github", status="failed"), [unlisted("gh_merge"), ok("merge_pr")])
    land(make_run("b1", submission_id="sub-b", server="github", status="passed", tool_calls=4), [ok()] * 4)
    by_server = {r["server"]: r for r in metrics(store, "metrics_by_submission_server")}
    assert by_server["slack"]["success_rate"] == 1.0 and by_server["slack"]["efficiency"] == pytest.approx(10.0)
    assert by_server["github"]["success_rate"] == 0.0 and by_server["github"]["hallucination_rate"] == 0.5
    aggregate = {r["server"]: r for r in metrics(store, "metrics_aggregate", "split = '2026-05'")}
    assert aggregate["github"]["success_rate"] == 0.5 and aggregate["github"]["submissions"] == 2
    assert aggregate["all"]["success_rate"] == pytest.approx(2 / 3)
    assert aggregate["all"]["hallucination_rate"] == pytest.approx(1 / 7)
    assert aggregate["all"]["efficiency"] == pytest.approx((10.0 + 40.0) / 2)


def test_the_score_card_is_the_marts_row_for_the_submission(store, land):
    land(make_run("r1", server="slack", status="passed", tool_calls=3, category="recovery"), [err(), ok(), ok()])
    land(make_run("r2", server="notion", status="failed"), [unlisted("notion_search")])
    land(make_run("r3", server="notion", status="infra_error"))
    card = scorecard("sub-a", store=store)
    (row,) = metrics(store)
    assert card["overall"] == {k: row[k] for k in METRICS}
    assert set(card["by_server"]) == {"notion", "slack"}
    assert card["by_server"]["notion"] == {"attempted": 1, "passed": 0, "success_rate": 0.0, "efficiency": None,
                                           "hallucination_rate": 1.0, "recovery_rate": None,
                                           "collateral_damage_rate": 0.0, "infra_errors": 1}
    assert card["by_server"]["slack"]["recovery_rate"] == 1.0


def test_a_score_card_for_a_submission_that_never_landed_says_so(store, land):
    land(make_run("r1"), [ok()])
    with pytest.raises(LookupError, match="sub-zzz"):
        scorecard("sub-zzz", store=store)


def test_collateral_damage_rate_is_runs_with_a_frame_violation_over_attempted(store, land):
    land(make_run("r1", status="failed", end_reason="frame_violated", frame_held=False,
                  frame_violations="slack.channel C02 updated (is_archived): outside the frame"), [ok()])
    land(make_run("r2", status="passed", frame_held=True), [ok()])
    land(make_run("r3", status="failed", server="github", frame_held=None), [ok()])  # a task without a frame
    land(make_run("r4", status="infra_error", frame_held=None))
    (row,) = metrics(store)
    assert (row["frame_violated"], row["attempted"], row["collateral_damage_rate"]) == (1, 3, pytest.approx(1 / 3))
    by_server = {r["server"]: r for r in metrics(store, "metrics_by_submission_server")}
    assert by_server["slack"]["collateral_damage_rate"] == 0.5
    assert by_server["github"]["collateral_damage_rate"] == 0.0
    aggregate = {r["server"]: r for r in metrics(store, "metrics_aggregate", "split = '2026-05'")}
    assert aggregate["all"]["collateral_damage_rate"] == pytest.approx(1 / 3)


def test_the_score_card_names_the_entities_of_each_frame_violation(store, land):
    land(make_run("r1", task_id="slack-archive", status="failed", frame_held=False,
                  frame_violations="slack.channel C02 updated (name): outside the frame"), [ok()])
    land(make_run("r2", task_id="slack-post", status="passed", frame_held=True), [ok()])
    card = scorecard("sub-a", store=store)
    assert card["frame_violations"] == [
        {"task_id": "slack-archive", "trial": 1, "run_id": "r1",
         "entities": "slack.channel C02 updated (name): outside the frame"}]
    assert card["overall"]["collateral_damage_rate"] == 0.5


def _efficiency(store, threads: int) -> list[tuple]:
    con = connect(store)
    try:
        con.execute(f"set threads = {threads}")
        return con.execute("select server, efficiency from metrics_by_submission_server union all "
                           "select 'all', efficiency from metrics_by_submission order by 1").fetchall()
    finally:
        con.close()


def test_efficiency_has_the_same_bits_whatever_order_the_runs_are_summed_in(tmp_path):
    # 0.1 + 0.2 + 0.3 is 0.6000000000000001 as floats summed in this order and 0.6 in the reverse:
    # the two stores hold the same runs under ids that sort in opposite orders.
    budgets = [(1, 10), (2, 10), (3, 10), (1, 3), (2, 7), (5, 9)]
    stores = []
    for name, order in (("forward", budgets), ("reverse", budgets[::-1])):
        store = open_store(str(tmp_path / name))
        for i, (used, max_steps) in enumerate(order):
            run = make_run(f"r{i}", status="passed", tool_calls=used, max_steps=max_steps)
            store.land_run(run, [])
        stores.append(store)
    forward, reverse = (_efficiency(s, 1) for s in stores)
    assert forward == reverse
    exact = sum(Fraction(u, m) for u, m in budgets) * 100 / len(budgets)
    assert forward[0][1] == pytest.approx(float(exact), rel=1e-12)


def test_efficiency_is_identical_on_one_and_eight_threads_and_on_repeated_reads(store, land):
    for i in range(300):
        land(make_run(f"r{i:03d}", status="passed", server=("slack", "github", "notion")[i % 3],
                      tool_calls=1 + i % 7, max_steps=3 + i % 11))
    one = _efficiency(store, 1)
    assert _efficiency(store, 8) == one
    assert _efficiency(store, 8) == one and _efficiency(store, 1) == one
