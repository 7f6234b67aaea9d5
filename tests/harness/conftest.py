"""Helpers for harness tests: run tasks end to end with real gateways and real sandboxes."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from mcpbench.agents.spec import PROJECT_ROOT, ProcessAgent, parse_agent
from mcpbench.runner import Submission, run_tasks
from mcpbench.sandbox import ResourceLimits, get_sandbox
from tasks_catalog.loader import load_valid_tasks

AGENTS = Path(__file__).parent / "agents"
DEV = PROJECT_ROOT / "tasks_catalog" / "dev"


@pytest.fixture(params=["local", "docker"])
def backend(request) -> str:
    """Each isolating sandbox backend by name; ``docker`` is skipped, with the reason, where it cannot run."""
    from mcpbench.sandbox import SandboxUnavailable

    try:
        get_sandbox(request.param)
    except SandboxUnavailable as exc:
        if request.param == "docker":
            pytest.skip(f"the docker sandbox is unavailable here: {exc}")
        raise
    return request.param


@pytest.fixture(scope="session")
def dev_tasks():
    return load_valid_tasks([DEV])


def script_agent(name: str, **limits) -> ProcessAgent:
    """A hostile or test agent from tests/harness/agents, with the stdlib MCP client importable."""
    return ProcessAgent(f"command:{name}", (sys.executable, "-S", str(AGENTS / f"{name}.py")),
                        limits=ResourceLimits(**limits) if limits else ResourceLimits(),
                        readonly_paths=(str(PROJECT_ROOT),),
                        extra_env=(("MCPBENCH_AGENT_LIB", str(PROJECT_ROOT)),))


def run(tasks, agent, *, sandbox="local", concurrency=2, submission_id="test", landed=None, private=False):
    """Run ``tasks`` with ``agent`` (a spec string or an agent) and return the results; ``private``: as
    runs of a sealed month (split 2026-12), whose records keep no goal and no agent output."""
    agent = parse_agent(agent) if isinstance(agent, str) else agent
    box = get_sandbox(sandbox, allow_unisolated=sandbox == "none")
    sub = (Submission(submission_id, "tester", agent.name, "2026-12", "2026-12", private=True) if private
           else Submission(submission_id, "tester", agent.name, "dev", "2026-12"))
    land = None if landed is None else landed.append

    async def go():
        with anyio.fail_after(600):
            return await run_tasks(tasks, agent, sandbox=box, submission=sub, concurrency=concurrency, land=land)

    return anyio.run(go)


class CountingSandbox:
    """A real sandbox that counts the runs it is given (how often a run was requeued)."""

    isolates = True

    def __init__(self, inner) -> None:
        self.inner, self.name, self.calls = inner, inner.name, 0

    async def run(self, spec):
        self.calls += 1
        return await self.inner.run(spec)
