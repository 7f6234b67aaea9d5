"""Anomaly flags and leaderboards on a synthetic history where the right answers are known."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.warehouse.conftest import T0, make_run
from warehouse.build import connect


def submit(store, submission_id, submitter, split, day, outcomes):
    """Land a submission: ``outcomes`` maps task id to passed (one run per task), no calls."""
    runs = [
        make_run(f"{submission_id}-{task}", submission_id=submission_id, submitter=submitter, split=split,
                 task_id=task, status="passed" if passed else "failed", started_at=T0 + timedelta(days=day))
        for task, passed in outcomes.items()
    ]
    store.land_runs([(run, []) for run in runs])


def score(n_passed, n=10):
    return {f"task-{i:02d}": i < n_passed for i in range(n)}


def rows(store, sql):
    con = connect(store)
    try:
        cur = con.execute(sql)
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row)) for row in cur.fetchall()]
    finally:
        con.close()


def test_a_submitter_is_flagged_only_for_a_jump_above_two_sigma_of_enough_history(store):
    # of 20 tasks: alice: 8, 10, 8, 10, then 18 -> flagged; bob: same history, then 10 -> not flagged
    # carol: only two prior submissions before her jump -> too little history to judge
    # dave: a noisy history (2, 18, 4, 16) -> sd ~ 0.42, so 0.9 is within 2 sigma
    histories = {"alice": [8, 10, 8, 10, 18], "bob": [8, 10, 8, 10, 10], "carol": [8, 10, 20],
                 "dave": [2, 18, 4, 16, 18]}
    for submitter, scores in histories.items():
        for i, passed in enumerate(scores):
            submit(store, f"{submitter}-{i}", submitter, f"2026-0{i + 1}", day=31 * i, outcomes=score(passed, 20))
    submit(store, "erin-dev", "erin", "dev", day=0, outcomes=score(1))
    flags = rows(store, "select * from anomaly_submitter_flags")
    assert [f["submission_id"] for f in flags] == ["alice-4"]
    (flag,) = flags
    assert flag["prior_submissions"] == 4 and flag["prior_mean"] == pytest.approx(0.45)
    assert flag["success_rate"] == 0.9 and flag["z_score"] > 2
    assert (flag["prior_passed"], flag["prior_attempted"]) == (36, 80)
    assert flag["success_rate_ci_low"] > flag["prior_ci_high"]
    assert "0.900" in flag["reason"] and "4 prior submissions" in flag["reason"]
    assert f"lies above theirs [{flag['prior_ci_low']:.3f}, {flag['prior_ci_high']:.3f}] (36/80)" in flag["reason"]


def test_a_jump_past_two_sigma_that_the_leaderboards_intervals_cannot_separate_is_not_flagged(store):
    # 4, 5, 4, 5 of 10, then 9 of 10: 2.4 sigma above the prior mean, but 9/10's 95% Wilson interval
    # [0.596, 0.982] overlaps the prior 18/40's [0.307, 0.601]: within the noise the leaderboard reports
    for i, passed in enumerate([4, 5, 4, 5, 9]):
        submit(store, f"ann-{i}", "ann", f"2026-0{i + 1}", day=31 * i, outcomes=score(passed))
    judged = rows(store, "select * from anomaly_submitter_flags")
    assert judged == []
    (entry,) = rows(store, "select success_rate_ci_low, success_rate_ci_high from leaderboard_contemporary")
    assert entry["success_rate_ci_low"] == pytest.approx(0.596, abs=1e-3)


def test_a_task_whose_success_jumps_across_several_submitters_is_flagged_as_leaked(store):
    submitters = ["ann", "ben", "cat", "dan"]
    base = {"task-leak": False, "task-solo": False, "task-a": True, "task-b": False, "task-c": True}
    for month_index, month in enumerate(["2026-01", "2026-02", "2026-03"]):
        for k, who in enumerate(submitters):
            outcomes = dict(base, **{"task-a": k % 2 == 0})
            if month == "2026-03":
                outcomes["task-leak"] = True  # every submitter suddenly solves it
                outcomes["task-solo"] = k < 2  # two submitters solve it: not "several"
            submit(store, f"{who}-{month}", who, month, day=31 * month_index + k, outcomes=outcomes)
    flags = rows(store, "select * from anomaly_task_flags")
    assert [(f["task_id"], f["month"]) for f in flags] == [("task-leak", "2026-03")]
    (flag,) = flags
    assert (flag["prior_success_rate"], flag["success_rate"], flag["submitters_passed"]) == (0.0, 1.0, 4)
    assert flag["prior_attempts"] == 8 and "passed by 4 submitters" in flag["reason"]


STILL = {"task-a": True, "task-b": False, "task-c": True, "task-d": False, "task-e": False}


def test_a_tasks_rise_within_the_noise_of_its_few_earlier_runs_is_not_flagged_as_leaked(store):
    # task-x: passed by 2 of 5 submitters in 2026-01 (0.4), by all 4 in 2026-02 (1.0): a rise of 0.6 by
    # 4 submitters while the other five tasks hold still (the month's median rise is 0), but 4/4's 95% Wilson interval [0.510, 1] overlaps
    # 2/5's [0.118, 0.769]. task-y: 0 of 5, then 4 of 4: [0, 0.434] against [0.510, 1], flagged.
    for k, who in enumerate(["ann", "ben", "cat", "dan", "eve"]):
        submit(store, f"{who}-01", who, "2026-01", day=k,
               outcomes={"task-x": k < 2, "task-y": False, **STILL})
    for k, who in enumerate(["ann", "ben", "cat", "dan"]):
        submit(store, f"{who}-02", who, "2026-02", day=31 + k,
               outcomes={"task-x": True, "task-y": True, **STILL})
    flags = rows(store, "select * from anomaly_task_flags")
    assert [(f["task_id"], f["month"]) for f in flags] == [("task-y", "2026-02")]
    (flag,) = flags
    assert flag["success_rate_ci_low"] == pytest.approx(0.510, abs=1e-3) and flag["prior_ci_high"] < 0.5
    assert flag["month_median_jump"] == 0 and "95% intervals" in flag["reason"]


def test_the_contemporary_leaderboard_ranks_the_latest_private_month_and_never_the_dev_set(store):
    submit(store, "old", "ann", "2026-04", day=0, outcomes=score(10))
    submit(store, "good", "ann", "2026-05", day=31, outcomes=score(8))
    submit(store, "better", "ben", "2026-05", day=32, outcomes=score(9))
    submit(store, "dev-star", "cat", "dev", day=33, outcomes=score(10))
    submit(store, "hist", "dan", "historical-2026-01", day=34, outcomes=score(10))
    board = rows(store, "select * from leaderboard_contemporary")
    assert [(r["rank"], r["submission_id"], r["month"]) for r in board] == [(1, "better", "2026-05"),
                                                                            (2, "good", "2026-05")]
    historical = rows(store, "select * from leaderboard_historical")
    assert [(r["month"], r["rank"], r["submission_id"]) for r in historical] == [("2026-01", 1, "hist")]


def test_both_leaderboards_show_the_collateral_damage_rate(store):
    """Runs that broke their task's frame over attempted runs, as on the score card; an infra error is
    not attempted."""
    for sub, split in [("careful", "2026-05"), ("clumsy", "2026-05"), ("clumsy-hist", "historical-2026-01")]:
        broke = 0 if sub == "careful" else 2
        runs = [make_run(f"{sub}-task-{i:02d}", submission_id=sub, split=split, task_id=f"task-{i:02d}",
                         status="failed" if i < broke else "passed", frame_held=i >= broke,
                         frame_violations="slack.channel C02 updated (topic): outside the frame" if i < broke else None)
                for i in range(8)]
        runs.append(make_run(f"{sub}-infra", submission_id=sub, split=split, task_id="task-08", status="infra_error",
                             frame_held=None))
        store.land_runs([(run, []) for run in runs])
    board = rows(store, "select submission_id, collateral_damage_rate from leaderboard_contemporary")
    assert board == [{"submission_id": "careful", "collateral_damage_rate": 0.0},
                     {"submission_id": "clumsy", "collateral_damage_rate": 0.25}]
    historical = rows(store, "select submission_id, collateral_damage_rate from leaderboard_historical")
    assert historical == [{"submission_id": "clumsy-hist", "collateral_damage_rate": 0.25}]


def test_ties_on_success_rate_rank_the_more_efficient_submission_first(store, land):
    for sub, steps in [("thrifty", 2), ("wasteful", 8)]:
        land(make_run(f"{sub}-1", submission_id=sub, status="passed", tool_calls=steps))
    board = rows(store, "select submission_id, rank from leaderboard_contemporary")
    assert board == [{"submission_id": "thrifty", "rank": 1}, {"submission_id": "wasteful", "rank": 2}]


TRIAL_COLUMNS = ("trials", "pass_hat_k", "pass_hat_k_ci_low", "pass_hat_k_ci_high", "pass_at_k", "pass_at_k_ci_low",
                 "pass_at_k_ci_high", "tokens_per_run", "cost_usd")


def test_the_historical_leaderboard_carries_trials_pass_k_tokens_and_cost_like_the_contemporary_one(store):
    # two trials of four tasks: both pass, pass then fail, both fail, both pass -> pass^k 2/4, pass@k 3/4;
    # 100 + 20 tokens and 1500 nano-dollars a run. The same runs on a private month and on a retired one.
    trials = {"task-00": (True, True), "task-01": (True, False), "task-02": (False, False), "task-03": (True, True)}
    for sub, split in [("now", "2026-05"), ("then", "historical-2026-01")]:
        store.land_runs([(make_run(f"{sub}-{task}-t{k}", submission_id=sub, split=split, task_id=task, trial=k,
                                   status="passed" if passed else "failed", model_prompt_tokens=100,
                                   model_completion_tokens=20, model_cost_nanousd=1500), [])
                         for task, outcomes in trials.items() for k, passed in enumerate(outcomes, start=1)])
    (now,) = rows(store, "select * from leaderboard_contemporary")
    (then,) = rows(store, "select * from leaderboard_historical")
    assert (then["trials"], then["pass_hat_k"], then["pass_at_k"]) == (2, 0.5, 0.75)
    assert then["tokens_per_run"] == 120 and then["cost_usd"] == pytest.approx(12000e-9)
    assert then["pass_hat_k_ci_low"] < 0.5 < then["pass_hat_k_ci_high"]
    assert {c: then[c] for c in TRIAL_COLUMNS} == {c: now[c] for c in TRIAL_COLUMNS}


def test_an_agent_that_made_no_calls_is_not_ranked_below_one_that_invented_tools(store, land):
    """At the same success rate (here none passed, so no efficiency either), a submission that made no
    call invented nothing: its hallucination rate counts as 0 for the ranking, not as last."""
    from tests.warehouse.conftest import ok, unlisted

    land(make_run("idle-1", submission_id="idle", status="failed"))
    land(make_run("inventive-1", submission_id="inventive", status="failed"),
         [ok(), ok(), unlisted("delete_everything"), ok(), ok(), ok(), unlisted("x"), ok(), unlisted("y"), ok()])
    land(make_run("honest-1", submission_id="honest", status="failed"), [ok()])
    board = rows(store, "select submission_id, rank, hallucination_rate from leaderboard_contemporary")
    assert board == [{"submission_id": "honest", "rank": 1, "hallucination_rate": 0.0},
                     {"submission_id": "idle", "rank": 1, "hallucination_rate": None},
                     {"submission_id": "inventive", "rank": 3, "hallucination_rate": 0.3}]
