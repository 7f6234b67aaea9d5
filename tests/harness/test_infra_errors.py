"""Our own failures are infra errors: not attempted, counted apart, and on a private month they
carry no text that could quote the task."""

from mcpbench.runner import Submission
from tests.harness.conftest import CountingSandbox, run
from tests.harness.test_gateway import make_task

SECRET_PATH = "../falcon-merger-term-sheet.md"


def broken_task():
    # The task model does not validate server state; the backend build does, and fails.
    return make_task(initial_state={"files": {SECRET_PATH: "x"}})


def test_a_backend_that_cannot_be_built_is_an_infra_error_not_an_agent_failure():
    (result,) = run([broken_task()], "oracle")
    assert result.run.status == "infra_error" and not result.run.passed
    assert result.run.predicate_passed is None and result.calls == []
    assert "could not be built" in result.run.infra_error and SECRET_PATH in result.run.infra_error
    assert result.run.end_reason == "infra:backend"


def test_an_infra_error_on_a_private_month_keeps_no_exception_text():
    import anyio

    from mcpbench.agents.spec import parse_agent
    from mcpbench.runner import run_tasks
    from mcpbench.sandbox import get_sandbox

    sub = Submission("private-sub", "tester", "oracle", "2026-12", "2026-12", private=True)
    (result,) = anyio.run(lambda: run_tasks([broken_task()], parse_agent("oracle"), sandbox=get_sandbox("local"),
                                            submission=sub))
    assert result.run.status == "infra_error"
    assert result.run.infra_error == "backend filesystem could not be built: StateError"
    assert result.run.goal == "[redacted]" and not result.run.goals_published
    assert result.run.stderr_tail is None


def _task():
    return make_task()


def test_a_gateway_that_cannot_be_served_is_an_infra_error_of_kind_gateway():
    import anyio

    from mcpbench.agents.spec import parse_agent
    from mcpbench.gateway import GatewayHost
    from mcpbench.runner import run_task
    from mcpbench.sandbox import get_sandbox

    sub = Submission("gw-sub", "tester", "oracle", "dev", "2026-12")
    never_started = GatewayHost()  # a host whose server is not running cannot mount the run's gateway
    result = anyio.run(lambda: run_task(_task(), parse_agent("oracle"), host=never_started,
                                        sandbox=get_sandbox("local"), submission=sub))
    assert result.run.status == "infra_error" and result.run.end_reason == "infra:gateway"
    assert "the gateway could not be served" in result.run.infra_error


def _baseline_with_program(program: str):
    import dataclasses

    from mcpbench.agents.spec import parse_agent

    oracle = parse_agent("oracle")
    return dataclasses.replace(oracle, argv=(program, *oracle.argv[1:]))


def test_a_sandbox_that_cannot_execute_our_own_baseline_is_an_infra_error_of_kind_sandbox():
    # As when an image lacks the interpreter: the built-in oracle's program does not exist in the sandbox.
    (result,) = run([_task()], _baseline_with_program("/nonexistent/python3"))
    assert result.run.status == "infra_error" and result.run.end_reason == "infra:sandbox"
    assert "could not start the built-in oracle agent" in result.run.infra_error
    assert not result.run.agent_error


def _baseline_without_its_client():
    """The built-in oracle as a sandbox without our client starts it: the interpreter runs, and the
    baselines' module is nowhere on its path (as in an operator's image with python3 and no /opt/mcpbench)."""
    import dataclasses

    from mcpbench.agents.spec import parse_agent

    return dataclasses.replace(parse_agent("oracle"), extra_env=(("PYTHONPATH", "/nonexistent/mcpbench-client"),))


def test_a_built_in_baseline_whose_client_is_missing_is_an_infra_error_requeued_and_not_attempted(tmp_path):
    from mcpbench.evaluation import evaluate
    from mcpbench.sandbox import get_sandbox
    from runstore.store import open_store
    from warehouse.scorecard import scorecard

    box, store = CountingSandbox(get_sandbox("local")), open_store(str(tmp_path / "store"))
    sub = Submission("no-client", "tester", "oracle", "dev", "2026-12")
    summary, (result,) = evaluate([_task()], _baseline_without_its_client(), sub, store=store, sandbox=box,
                                  concurrency=1, infra_retries=1)
    assert box.calls == 2, "requeued once, then counted apart"
    run = result.run
    assert (run.status, run.end_reason, run.agent_error, run.passed) == ("infra_error", "infra:sandbox", False, False)
    assert run.infra_error.startswith("sandbox local could not start the built-in oracle agent (exit 1, "
                                      "before it announced its start): ")
    assert "No module named 'mcpbench'" in run.infra_error
    assert summary.infra_errors == [run.task_id] and summary.failed == summary.passed == 0
    card = scorecard(sub.submission_id, store=store)["overall"]
    assert (card["attempted"], card["infra_errors"]) == (0, 1)


def test_a_built_in_baseline_that_started_and_then_failed_before_any_call_is_judged_like_any_agent():
    import dataclasses

    from mcpbench.agents.baselines import STARTED
    from mcpbench.agents.spec import parse_agent

    # It announced its start, then could not reach its gateway (a port nothing in the sandbox listens on).
    oracle = dataclasses.replace(parse_agent("oracle"), extra_env=(("MCPBENCH_MCP_URL", "http://127.0.0.1:9/mcp"),))
    (result,) = run([_task()], oracle)
    assert result.outcome.stderr_head.startswith(f"{STARTED} oracle\n")
    assert (result.run.status, result.run.end_reason, result.run.agent_error) == ("failed", "agent_exit", True)
    assert result.run.exit_code == 1 and result.run.tool_calls == 0
    # the record keeps what the agent said (its error), not the harness's start line
    assert STARTED not in result.run.stderr_tail and "ConnectionRefusedError" in result.run.stderr_tail


def test_a_baseline_that_announced_its_start_is_not_an_infra_error_however_much_stderr_follows():
    # The start line is looked for in the head of stderr: a baseline's long traceback cannot push it out.
    from datetime import UTC, datetime

    from mcpbench.agents.baselines import STARTED
    from mcpbench.agents.spec import parse_agent
    from mcpbench.runner import baseline_did_not_start
    from mcpbench.sandbox import ProcessOutcome
    from mcpbench.sandbox._supervise import OutputTail

    stderr = OutputTail()
    for chunk in (f"{STARTED} oracle\n".encode(), b"Traceback ...\n" * 1000, b"ConnectionRefusedError\n"):
        stderr.feed(chunk)
    now = datetime.now(UTC)

    def outcome(head: str) -> ProcessOutcome:
        return ProcessOutcome(sandbox="local", exit_code=1, timed_out=False, killed_reason=None, stdout_tail="",
                              stderr_tail=stderr.text(), stderr_head=head, stdout_bytes=0,
                              stderr_bytes=stderr.total, started_at=now, ended_at=now, wall_s=0.1, startup_ms=1.0)

    assert STARTED not in stderr.text(), "the tail alone has lost the start line"
    assert not baseline_did_not_start(parse_agent("oracle"), outcome(stderr.head()), calls=0)
    assert baseline_did_not_start(parse_agent("oracle"), outcome(""), calls=0)
    assert not baseline_did_not_start(parse_agent("command:python3 agent.py"), outcome(""), calls=0)


def test_an_agents_own_command_that_does_not_exist_stays_the_agents_failure():
    (result,) = run([_task()], "command:/nonexistent/my-agent --go")
    assert result.run.status == "failed" and result.run.end_reason == "agent_exit"
    assert result.run.exit_code not in (0, None) and result.run.agent_error


class _FlakySandbox:
    """The real local sandbox behind a switch that makes its first ``failures`` runs fail to start."""

    isolates = True

    def __init__(self, failures: int) -> None:
        from mcpbench.sandbox import get_sandbox

        self.inner, self.failures, self.calls = get_sandbox("local"), failures, 0
        self.name = self.inner.name

    async def run(self, spec):
        from mcpbench.sandbox import SandboxUnavailable

        self.calls += 1
        if self.calls <= self.failures:
            raise SandboxUnavailable(f"sandbox start {self.calls} failed on purpose")
        return await self.inner.run(spec)


def _evaluate(tmp_path, sandbox, **options):
    from mcpbench.evaluation import evaluate
    from runstore.store import open_store

    store = open_store(str(tmp_path / "store"))
    sub = Submission("requeue-sub", "tester", "oracle", "dev", "2026-12")
    summary, results = evaluate([_task()], "oracle", sub, store=store, sandbox=sandbox, concurrency=1, **options)
    return store, summary, results


def test_an_infra_error_is_requeued_and_a_later_success_replaces_it(tmp_path):
    flaky = _FlakySandbox(failures=2)
    store, summary, (result,) = _evaluate(tmp_path, flaky)
    assert flaky.calls == 3 and result.run.passed and summary.infra_errors == []
    (landed,) = store.read_runs("requeue-sub").to_pylist()
    assert landed["status"] == "passed", "the re-run replaced the landed infra error"


def test_requeueing_is_bounded_and_what_still_fails_is_counted_apart(tmp_path):
    flaky = _FlakySandbox(failures=10)
    _, summary, (result,) = _evaluate(tmp_path, flaky, infra_retries=2)
    assert flaky.calls == 3
    assert result.run.end_reason == "infra:sandbox" and summary.infra_errors == [result.run.task_id]
    assert summary.failed == 0 and summary.passed == 0


def test_a_verifier_that_fails_on_one_run_makes_it_an_infra_error_and_the_other_runs_are_judged(monkeypatch):
    # A bug of ours in judging (here injected into the explanation of one task's verdict) must not end
    # the evaluation: that run is an infra error of kind harness, requeued; the rest are judged as usual.
    import mcpbench.runner

    explanation = mcpbench.runner.explanation

    def failing_once(task, *args, **kwargs):
        if task.id == "broken-judge":
            raise IndexError("tuple index out of range")
        return explanation(task, *args, **kwargs)

    monkeypatch.setattr(mcpbench.runner, "explanation", failing_once)
    broken, fine = make_task(id="broken-judge"), make_task(id="fine-judge")
    results = {r.run.task_id: r.run for r in run([broken, fine], "oracle")}
    assert results["broken-judge"].status == "infra_error" and results["broken-judge"].end_reason == "infra:harness"
    assert "the verifier failed: tuple index out of range" in results["broken-judge"].infra_error
    assert results["fine-judge"].status == "passed"
