"""The built-in baselines validate the benchmark: through the real local sandbox the oracle passes
every dev task, and agents that do nothing or only claim success pass none."""

from tests.harness.conftest import run


def test_the_oracle_passes_every_dev_task_in_the_local_sandbox(dev_tasks):
    results = run(dev_tasks, "oracle", concurrency=2)
    failed = {r.run.task_id: (r.run.status, r.run.infra_error, r.outcome and r.outcome.stderr_tail)
              for r in results if not r.run.passed}
    assert failed == {}
    assert len(results) == len(dev_tasks)
    assert all(r.run.sandbox == "local" and r.run.predicate_passed for r in results)
    assert {r.run.end_reason for r in results} == {"passed"}
    # a transient fault costs a retry; a partial failure (timeout_after_commit) executes and is not retried
    assert all(r.run.tool_calls == len(t.reference_solution) + r.run.faults_injected
               - sum(f.times for f in t.faults if f.kind == "timeout_after_commit")
               for r, t in zip(results, dev_tasks))


def test_noop_and_liar_pass_nothing(dev_tasks):
    for agent in ("noop", "liar"):
        results = run(dev_tasks, agent, concurrency=2)
        assert [r.run.task_id for r in results if r.run.passed] == []
        assert all(r.run.status == "failed" and r.run.predicate_passed is False for r in results)
        assert all(not r.run.agent_error for r in results), "they exit 0; they fail on the state alone"
        assert {r.run.end_reason for r in results} == {"predicate_false"}
    liar = run(dev_tasks[:1], "liar")[0]
    assert "completed the task" in liar.outcome.stdout_tail


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
        assert faults and faults[0].tool == task.faults[0].tool
        assert result.run.passed and result.run.faults_injected == len(faults)
