"""Every kind of infra error (gateway, sandbox, engine, store, model_unavailable), produced by really
failing that part, is counted apart and never scored as the agent's failure: not attempted in the score
card, not ``failed``, ``agent_error`` false; and ``mcpbench run`` prints one line per run that did not
pass, with its reason."""

from __future__ import annotations

import dataclasses

import anyio
import pytest
from click.testing import CliRunner

from mcpbench.agents.spec import parse_agent
from mcpbench.cli import main
from mcpbench.commands.run import failure_line
from mcpbench.evaluation import evaluate
from mcpbench.runner import Submission, run_task, run_tasks
from mcpbench.sandbox import get_sandbox
from runstore.store import open_store
from tests.harness.test_gateway import make_task
from warehouse.scorecard import scorecard

SUB = Submission("infra-kinds", "tester", "oracle", "dev", "2026-12")


def _gateway_never_served():
    from mcpbench.gateway import GatewayHost

    never_started = GatewayHost()  # a host whose server is not running cannot mount the run's gateway
    return anyio.run(lambda: run_task(make_task(), parse_agent("oracle"), host=never_started,
                                      sandbox=get_sandbox("local"), submission=SUB))


def _run_one(agent, sandbox, **options):
    async def go():
        with anyio.fail_after(120):
            return await run_tasks([make_task()], agent, sandbox=sandbox, submission=SUB, **options)

    (result,) = anyio.run(go)
    return result


def _sandbox_cannot_start_our_baseline():
    oracle = parse_agent("oracle")  # as when an image lacks the interpreter our baseline runs on
    return _run_one(dataclasses.replace(oracle, argv=("/nonexistent/python3", *oracle.argv[1:])),
                    get_sandbox("local"))


class _EngineGoneMidRun:
    """The real local sandbox, whose engine "goes away" once the agent has started: the docker backend's
    own ``EngineLost`` is raised from inside a real run. (The live version, cutting a real Docker
    engine's socket, is tests/sandbox/test_docker_live.py; it skips where no engine can run.)"""

    isolates = True

    def __init__(self) -> None:
        self.inner = get_sandbox("local")
        self.name = "docker"

    async def run(self, spec):
        from mcpbench.sandbox.docker import EngineLost

        raise EngineLost("the Docker engine went away: connection reset by peer")


def _engine_lost():
    return _run_one(parse_agent("oracle"), _EngineGoneMidRun())


def _model_unreachable():
    from mcpbench.model_gateway import ModelSettings

    settings = ModelSettings(upstream_url="http://127.0.0.1:9/v1", upstream_key="k", backoff_s=0.01,
                             retry_budget_s=1.0, max_attempts=2, requeues=0)
    return _run_one(parse_agent("openai:x"), None, model_settings=settings)


@pytest.mark.parametrize("kind, produce", [
    ("gateway", _gateway_never_served),
    ("sandbox", _sandbox_cannot_start_our_baseline),
    ("engine", _engine_lost),
    ("model_unavailable", _model_unreachable),
])
def test_an_infra_error_of_each_kind_is_counted_apart_and_never_as_the_agents_failure(kind, produce, tmp_path):
    result = produce()
    run = result.run
    assert (run.status, run.end_reason, run.passed, run.agent_error) == ("infra_error", f"infra:{kind}", False, False)
    assert run.predicate_passed is None and run.infra_error
    store = open_store(str(tmp_path / "store"))
    store.land_run(run, result.calls)
    card = scorecard(SUB.submission_id, store=store)["overall"]
    assert (card["attempted"], card["passed"], card["infra_errors"], card["success_rate"]) == (0, 0, 1, None)
    assert failure_line(run).startswith(f"{run.task_id}: infra:{kind} | ")


def test_a_run_the_store_refused_is_an_infra_error_and_not_a_failure(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the store's folders should go\n")
    summary, (result,) = evaluate([make_task()], "oracle", SUB, store=open_store(str(blocker / "store")),
                                  concurrency=1)
    assert (summary.failed, summary.passed, summary.infra_errors, summary.not_landed) == (0, 0, [result.run.task_id],
                                                                                         [result.run.task_id])
    assert result.run.end_reason == "infra:store" and not result.run.agent_error
    line = failure_line(result.run)  # the agent finished (exit 0); its run could not land
    assert line.startswith(f"{result.run.task_id}: infra:store | exit 0 | store: the run did not land")


def test_mcpbench_run_prints_one_line_per_run_that_did_not_pass_with_its_reason(tmp_path):
    tasks = ["slack-announce-release", "calendar-cancel-santos-one-to-one"]
    result = CliRunner().invoke(main, ["run", "--agent", "noop", "--store", str(tmp_path / "store"),
                                       *(a for t in tasks for a in ("--tasks", t))])
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    start = lines.index("2 runs did not pass:")
    heads = [line for line in lines[start + 1:] if line.startswith("  ") and not line.startswith("   ")]
    assert sorted(heads) == sorted(f"  {t}: predicate_false | exit 0" for t in tasks)  # each with its explanation below
    passed = CliRunner().invoke(main, ["run", "--agent", "oracle", "--store", str(tmp_path / "store"),
                                       "--tasks", tasks[0]])
    assert passed.exit_code == 0 and "did not pass" not in passed.output
