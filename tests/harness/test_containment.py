"""Containment seen from the harness: one run's connection flood or disk fill is that run's failure,
and the runs beside it pass."""

import re
import sys

from mcpbench.agents.spec import PROJECT_ROOT, ProcessAgent
from mcpbench.sandbox import ResourceLimits
from tests.harness.conftest import AGENTS, run, script_agent


def test_a_flood_of_link_connections_ends_only_its_own_run(dev_tasks):
    flooded, other = dev_tasks[0].model_copy(update={"timeout_s": 60.0}), dev_tasks[1]
    agent = ProcessAgent("command:link_flood", (sys.executable, "-S", str(AGENTS / "link_flood.py")),
                         baseline="oracle", readonly_paths=(str(PROJECT_ROOT),),
                         extra_env=(("MCPBENCH_FLOOD_TASK", flooded.id),))
    landed = []
    results = {r.run.task_id: r for r in run([flooded, other], agent, concurrency=2, landed=landed)}
    bad, good = results[flooded.id], results[other.id]
    assert bad.run.status == "failed" and bad.run.agent_error and not bad.run.timed_out
    assert bad.outcome.killed_reason == "connection limit" and bad.run.end_reason == "agent_exit"
    assert "flooding" in bad.outcome.stdout_tail
    assert good.run.passed, good.outcome.stderr_tail
    assert len(landed) == 2


def test_filling_the_disk_is_refused_and_is_the_agents_failure(dev_tasks, backend):
    # Each backend gives the agent a size-limited tmpfs HOME (a share of ``disk_mb``, not the same share
    # in each): not even the first 512 MiB file fits, and the agent sees ENOSPC, not a kill.
    task = dev_tasks[0].model_copy(update={"timeout_s": 60.0})
    (result,) = run([task], script_agent("diskfill"), sandbox=backend)
    assert result.run.sandbox == backend
    assert result.run.status == "failed" and result.run.agent_error and result.run.exit_code == 1
    assert not result.run.timed_out and result.outcome.killed_reason is None and not result.outcome.oom
    assert "wrote" not in result.outcome.stdout_tail
    stopped = re.fullmatch(r"stopped after (\d+) MiB: No space left on device", result.outcome.stderr_tail.strip())
    assert stopped, result.outcome.stderr_tail
    assert 0 < int(stopped[1]) <= ResourceLimits().disk_mb, "refused within the run's disk limit"
