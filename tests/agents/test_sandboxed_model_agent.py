"""A real LLM agent packaged as a command: the example agent (the standard openai client and the mcp
SDK) in the local sandbox reaches the model gateway through its second forwarded port, completes a
dev task, and can reach nothing else: probes to the upstream itself are refused."""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import fields
from pathlib import Path

import pytest

from mcpbench.agents.spec import PROJECT_ROOT, ProcessAgent
from mcpbench.sandbox import AgentProcess, get_sandbox
from tests.agents.conftest import run, settings
from tests.agents.test_openai_agent import solving
from tests.agents.upstream import ScriptedUpstream

pytest.importorskip("openai", reason="the example agent needs the openai client (dev extras)")
pytestmark = pytest.mark.skipif("extra_ports" not in {f.name for f in fields(AgentProcess)},
                                reason="the sandbox cannot forward a second port (AgentProcess.extra_ports)")

EXAMPLE = PROJECT_ROOT / "examples" / "openai_agent.py"
PROBING = Path(__file__).parent / "agents" / "probing_openai_agent.py"


def test_a_sandboxed_openai_client_agent_completes_a_task_through_the_model_gateway_and_nothing_else(task, agent_dir):
    # the agent's program in a folder a submitter's may be in (the checkout may lie under /tmp, which is refused)
    probing, example = shutil.copy(PROBING, agent_dir), shutil.copy(EXAMPLE, agent_dir)
    box = get_sandbox("local")
    with ScriptedUpstream(solving(task, usage=(200, 20))) as upstream:
        upstream_port = int(upstream.url.split(":")[2].split("/")[0])
        agent = ProcessAgent("command:openai-example", (sys.executable, str(probing)), folder=str(agent_dir),
                             extra_env=(("MCPBENCH_EXAMPLE", str(example)),
                                        ("MCPBENCH_PROBE_PORTS", str(upstream_port))))
        (result,) = run([task], agent, settings(upstream.url, model="scripted-1"), sandbox=box)
    report = json.loads(result.outcome.stdout_tail.splitlines()[0])
    assert report["model_gateway"] == "connected"
    assert report["probes"] == {str(upstream_port): "ConnectionRefusedError"}
    assert report["env_has_upstream_key"] is False
    assert result.run.passed, (result.run.stderr_tail, [c.error_message for c in result.calls])
    assert result.run.sandbox == "local"
    assert result.run.model_requests == len(task.reference_solution) + 1
    assert result.run.model_prompt_tokens == 200 * result.run.model_requests
    assert all(h["Authorization"] == "Bearer sk-upstream-secret" for h in upstream.headers)
