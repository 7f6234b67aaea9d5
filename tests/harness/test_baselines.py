"""The built-in baselines validate the benchmark: through the real local sandbox the oracle passes
every dev task, and agents that do nothing or only claim success pass none. The oracle and noop on the
whole dev set are tests/test_end_to_end.py's (through the CLI, each run's record checked as landed);
here: the liar, the random agent's hallucinations and the recovery tasks' faults."""

from tests.harness.conftest import run


def test_liar_passes_nothing(dev_tasks):
    """The liar only claims success: every run fails on the state. (The oracle and noop on the whole dev
    set, through the same sandbox, are tests/test_end_to_end.py's: one run of each serves both.)"""
    results = run(dev_tasks, "liar", concurrency=2)
    assert [r.run.task_id for r in results if r.run.passed] == []
    assert all(r.run.status == "failed" and r.run.predicate_passed is False for r in results)
    assert all(not r.run.agent_error for r in results), "it exits 0; it fails on the state alone"
    assert {r.run.end_reason for r in results} == {"predicate_false"}
    assert all(r.run.sandbox == "local" for r in results)
    assert "completed the task" in results[0].outcome.stdout_tail


def test_random_calls_to_unlisted_tools_are_recorded_as_hallucinations(dev_tasks):
    results = run(dev_tasks[:6], "random", concurrency=2)
    calls = [c for r in results for c in r.calls]
    unlisted = [c for c in calls if not c.listed]
    assert unlisted, "the random agent always makes some unlisted calls over six tasks"
    assert all(c.is_error and c.error_kind == "unlisted_tool" for c in unlisted)
    assert {c.tool for c in unlisted} <= {"delete_everything", "run_shell_command", "get_secrets", "send_fax", "sudo"}
    assert all(c.listed for c in calls if c not in unlisted)


def test_a_recovery_tasks_fault_is_observed_and_the_retrying_oracle_still_passes(dev_tasks):
    recovery = [t for t in dev_tasks if t.category == "recovery"]
    assert recovery
    results = run(recovery, "oracle", concurrency=2)
    for task, result in zip(recovery, results):
        faults = [c for c in result.calls if c.error_kind == "injected_fault"]
        # a call is recorded with its server's own tool name; a cross-server task names it <server>__<tool>
        assert faults and task.tool_name(faults[0].server, faults[0].tool) == task.faults[0].tool
        assert result.run.passed and result.run.faults_injected == len(faults)
