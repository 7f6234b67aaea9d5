"""Crashes, hangs and hostile agents are part of the normal day: each is the agent's failure, the
harness and the other runs carry on, and nothing that was landed is lost."""

from tests.harness.conftest import run, script_agent

#: A hanging agent's deadline: it only has to end the run, and any deadline does, even one that runs out
#: before the agent's container has started (0.2 s measured: a timeout, the agent's failure, either way).
HANG_S = 1.0


def short(task, **changes):
    return task.model_copy(update={"timeout_s": 4.0, **changes})


def test_a_hanging_agent_is_killed_at_its_deadline_and_fails(dev_tasks, backend):
    (result,) = run([short(dev_tasks[0], timeout_s=HANG_S)], script_agent("hang"), sandbox=backend)
    assert result.run.status == "failed" and result.run.timed_out and result.run.agent_error
    assert result.run.end_reason == "timeout"  # the deadline ended it (a hang would outlive the test's timeout)
    assert result.run.end_reason_detail == "deadline"


def test_a_crashing_agent_fails_with_its_exit_code(dev_tasks, backend):
    (result,) = run([short(dev_tasks[0])], script_agent("crash"), sandbox=backend)
    assert result.run.status == "failed" and result.run.exit_code == 1 and result.run.agent_error
    assert "agent crashed on purpose" in result.outcome.stderr_tail
    assert result.run.end_reason == "agent_exit" and result.run.end_reason_detail == "exit 1"
    assert "agent crashed on purpose" in result.run.stderr_tail, "outside private months the record keeps the tail"


def test_a_crashing_agent_on_a_private_month_leaves_its_output_out_of_the_record(dev_tasks):
    """What an agent prints may quote its goal: a sealed month's record keeps neither (the harness still
    saw the output, which is how the crash was told apart)."""
    (result,) = run([short(dev_tasks[0])], script_agent("crash"), private=True)
    assert result.run.end_reason == "agent_exit" and "agent crashed on purpose" in result.outcome.stderr_tail
    assert result.run.stderr_tail is None and result.run.goal == "[redacted]"


def test_a_fork_bomb_is_contained_and_the_next_run_is_unaffected(dev_tasks, backend):
    bomb, oracle_task = short(dev_tasks[0], timeout_s=3.0), dev_tasks[1]
    (result,) = run([bomb], script_agent("forkbomb", pids=32), sandbox=backend)
    assert result.run.status == "failed" and result.run.agent_error
    assert result.run.end_reason == "timeout" and result.run.end_reason_detail == "pids limit"
    (after,) = run([oracle_task], "oracle", sandbox=backend)
    assert after.run.passed


def test_a_memory_hog_is_stopped_by_the_memory_limit(dev_tasks, backend):
    (result,) = run([short(dev_tasks[0], timeout_s=20.0)], script_agent("memhog", memory_mb=128), sandbox=backend)
    assert result.run.status == "failed" and result.run.agent_error
    assert not result.run.timed_out, "the limit, not the deadline, must stop it"
    assert result.run.end_reason == "agent_exit" and result.run.end_reason_detail == "memory limit"


def test_a_ten_megabyte_argument_is_refused_and_the_harness_carries_on(dev_tasks, backend):
    (result,) = run([short(dev_tasks[0], timeout_s=20.0)], script_agent("big_argument"), sandbox=backend)
    assert result.run.status == "failed" and result.run.predicate_passed is False
    assert "refused" in result.outcome.stdout_tail or result.calls and result.calls[0].is_error


def test_ten_thousand_calls_run_into_the_budget_and_are_all_recorded(dev_tasks, backend):
    task = short(dev_tasks[0], timeout_s=600.0)
    (result,) = run([task], script_agent("flood"), sandbox=backend)
    assert result.run.over_budget and result.run.status == "failed" and result.run.end_reason == "over_budget"
    assert len(result.calls) == 10_000
    assert result.run.tool_calls == task.max_steps
    assert sum(c.error_kind == "over_budget" for c in result.calls) == 10_000 - task.max_steps


def test_hostile_agents_beside_good_ones_do_not_take_the_good_runs_down(dev_tasks, backend):
    landed = []
    hanging = [short(t, timeout_s=HANG_S) for t in dev_tasks[:2]]
    mixed = run(hanging, script_agent("hang"), concurrency=4, submission_id="mixed-bad", landed=landed,
                sandbox=backend)
    good = run([short(t) for t in dev_tasks[2:4]], "oracle", concurrency=4, submission_id="mixed-good",
               landed=landed, sandbox=backend)
    assert all(r.run.timed_out for r in mixed) and all(r.run.passed for r in good)
    assert len(landed) == 4
