"""Our own failures are infra errors: not attempted, counted apart, and on a private month they
carry no text that could quote the task."""

from mcpbench.runner import Submission
from tests.harness.conftest import run
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
