"""pass@1, pass^k, pass@k, their 95% Wilson intervals, tokens and cost, computed by the marts from
hand-built runs whose answers are worked out by hand; and the leaderboard's separability flag."""

from __future__ import annotations

import math

import pytest

from runstore.store import open_store
from tests.warehouse.conftest import make_run
from warehouse.build import connect
from warehouse.scorecard import format_scorecard, scorecard


@pytest.fixture
def store(tmp_path):
    return open_store(str(tmp_path / "store"))


def rows(store, sql):
    con = connect(store)
    try:
        cur = con.execute(sql)
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]
    finally:
        con.close()


def wilson(k, n, z=1.959963984540054):
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def land_trials(store, submission_id, outcomes, *, server="slack", split="2026-05", tokens=(0, 0), cost=0):
    """``outcomes[task] = "PPF"``: one run per trial, P passed, F failed, I an infra error."""
    for task_id, trials in outcomes.items():
        for k, mark in enumerate(trials, start=1):
            status = {"P": "passed", "F": "failed", "I": "infra_error"}[mark]
            store.land_run(make_run(f"{submission_id}--{task_id}--t{k}", submission_id=submission_id,
                                    status=status, task_id=task_id, server=server, split=split, trial=k,
                                    model_requests=2, model_prompt_tokens=tokens[0],
                                    model_completion_tokens=tokens[1], model_cost_nanousd=cost), [])


def test_pass_hat_k_needs_every_trial_and_pass_at_k_any_over_complete_tasks(store):
    land_trials(store, "sub-a", {"t1": "PPP", "t2": "PFP", "t3": "FFF", "t4": "PIP"})
    (row,) = rows(store, "select * from trials_by_submission where submission_id = 'sub-a'")
    assert row["k"] == 3 and row["tasks"] == 4 and row["tasks_complete"] == 3  # t4 had an infra error
    assert (row["passed"], row["attempted"]) == (7, 11) and row["pass_at_1"] == 7 / 11
    assert row["pass_hat_k"] == 1 / 3 and row["pass_at_k"] == 2 / 3
    assert (row["pass_at_1_ci_low"], row["pass_at_1_ci_high"]) == pytest.approx(wilson(7, 11), abs=1e-12)
    assert (row["pass_hat_k_ci_low"], row["pass_hat_k_ci_high"]) == pytest.approx(wilson(1, 3), abs=1e-12)
    assert row["pass_hat_k_ci_low"] < row["pass_hat_k"] < row["pass_hat_k_ci_high"]


def test_tokens_and_cost_add_up_per_run_task_server_and_submission(store):
    land_trials(store, "sub-a", {"t1": "PP"}, server="slack", tokens=(1000, 50), cost=180_000)
    land_trials(store, "sub-a", {"t2": "PF"}, server="notion", tokens=(3000, 10), cost=456_000)
    (task,) = rows(store, "select * from trials_by_task where task_id = 't1'")
    assert (task["prompt_tokens"], task["completion_tokens"], task["cost_nanousd"]) == (2000, 100, 360_000)
    servers = {r["server"]: r for r in rows(store, "select * from trials_by_submission_server")}
    assert servers["notion"]["tokens_per_run"] == 3010 and servers["slack"]["cost_usd"] == 360_000 / 1e9
    (sub,) = rows(store, "select * from trials_by_submission")
    assert sub["prompt_tokens"] == 8000 and sub["model_requests"] == 8
    assert sub["cost_usd"] == 1_272_000 / 1e9 and sub["cost_usd_per_run"] == 1_272_000 / 4 / 1e9
    (agg,) = rows(store, "select * from trials_aggregate where server = 'all'")
    assert agg["submissions"] == 1 and agg["cost_nanousd"] == 1_272_000


def test_the_marts_give_identical_bits_whatever_order_the_runs_landed_in(tmp_path):
    outcomes = {f"t{i}": "PFP"[i % 3:] + "FPF"[: i % 3] for i in range(30)}
    first, second = open_store(str(tmp_path / "a")), open_store(str(tmp_path / "b"))
    land_trials(first, "sub-a", outcomes, tokens=(123, 7), cost=12_345)
    land_trials(second, "sub-a", dict(reversed(outcomes.items())), tokens=(123, 7), cost=12_345)
    query = "select * from trials_by_submission"
    assert rows(first, query) == rows(second, query)


def test_the_leaderboard_says_when_adjacent_entries_are_not_separable(store):
    # 9/10 and 8/10 overlap; 8/10 and 0/10 do not
    land_trials(store, "sub-a", {f"t{i}": "P" if i < 9 else "F" for i in range(10)})
    land_trials(store, "sub-b", {f"t{i}": "P" if i < 8 else "F" for i in range(10)})
    land_trials(store, "sub-c", {f"t{i}": "F" for i in range(10)})
    board = rows(store, "select * from leaderboard_contemporary order by rank")
    assert [r["submission_id"] for r in board] == ["sub-a", "sub-b", "sub-c"]
    assert [r["separable_from_next"] for r in board] == [False, True, None]
    assert (board[0]["success_rate_ci_low"], board[0]["success_rate_ci_high"]) == pytest.approx(wilson(9, 10))
    assert board[0]["trials"] == 1


def test_the_score_card_carries_trials_intervals_and_usage(store):
    land_trials(store, "sub-a", {"t1": "PPP", "t2": "PFF"}, split="dev", tokens=(100, 10), cost=1000)
    card = scorecard("sub-a", store=store)
    assert card["trials"]["overall"]["pass_hat_k"] == 0.5 and card["trials"]["overall"]["pass_at_k"] == 1.0
    assert card["trials"]["by_server"]["slack"]["prompt_tokens"] == 600
    text = format_scorecard(card)
    assert "pass^k (95% CI)" in text and "66.7% [" in text and "$0.0000" in text


def test_the_text_score_card_says_which_trial_broke_the_frame(store):
    land_trials(store, "sub-a", {"t1": "PPP"})
    broke = make_run("sub-a--t2--t2", status="failed", task_id="t2", server="slack", split="2026-05", trial=2,
                     end_reason="frame_violated", frame_held=False,
                     frame_violations="slack.message C1/1.2 created: outside the frame")
    store.land_run(broke, [])
    for k in (1, 3):
        store.land_run(make_run(f"sub-a--t2--t{k}", status="passed", task_id="t2", split="2026-05", trial=k), [])
    text = format_scorecard(scorecard("sub-a", store=store))
    assert "frame violated in t2 (trial 2): slack.message C1/1.2 created: outside the frame" in text
