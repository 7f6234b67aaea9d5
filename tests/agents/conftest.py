"""Helpers for agent and model-gateway tests: real gateways, a scripted upstream on loopback."""

from __future__ import annotations

import anyio
import pytest

from mcpbench.agents.spec import parse_agent
from mcpbench.model_gateway import ModelSettings
from mcpbench.runner import Submission, run_tasks
from tasks_catalog.loader import DEV_DIR, load_valid_tasks


@pytest.fixture(scope="session")
def dev_tasks():
    return load_valid_tasks([DEV_DIR])


@pytest.fixture
def task(dev_tasks):
    """A standard dev task with a reference solution of at least two calls."""
    return next(t for t in dev_tasks if t.category == "standard" and len(t.reference_solution) >= 2)


def settings(upstream_url: str, **overrides) -> ModelSettings:
    """Fast retries for tests: the budgets are what is under test, not the waiting."""
    values = dict(upstream_url=upstream_url, upstream_key="sk-upstream-secret", backoff_s=0.01,
                  retry_budget_s=2.0, max_attempts=4, requeues=0)
    values.update(overrides)
    return ModelSettings(**values)


def run(tasks, agent, model_settings, *, sandbox=None, trials=1, submission_id="model-test", landed=None):
    agent = parse_agent(agent) if isinstance(agent, str) else agent
    sub = Submission(submission_id, "tester", agent.name, "dev", "2026-12")

    async def go():
        with anyio.fail_after(300):
            return await run_tasks(tasks, agent, sandbox=sandbox, submission=sub, concurrency=2, trials=trials,
                                   model_settings=model_settings,
                                   land=None if landed is None else landed.append)

    return anyio.run(go)
