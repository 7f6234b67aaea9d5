"""The issue's repro, as a user runs it: `mcpbench run --agent openai:x` against an unreachable model
endpoint is one counted infra error (`infra:model_unavailable`), with no traceback on the console; with
no endpoint named at all, or no model pinned for a command agent, nothing runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from mcpbench.agents.spec import PROJECT_ROOT
from tests.agents.upstream import Reply, ScriptedUpstream


def mcpbench(tmp_path, *args, **env):
    environ = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT), "MCPBENCH_MODEL_MAX_ATTEMPTS": "2",
               "MCPBENCH_MODEL_REQUEUES": "0", **env}
    for name in ("MCPBENCH_MODEL_UPSTREAM", "MCPBENCH_MODEL_UPSTREAM_API", "OPENAI_BASE_URL", "MCPBENCH_MODEL",
                 "MCPBENCH_MODEL_AGENT_CHOOSES"):
        if name not in env:
            environ.pop(name, None)
    return subprocess.run([sys.executable, "-m", "mcpbench", "run", "--store", str(tmp_path / "store"), *args],
                          capture_output=True, text=True, env=environ, timeout=240, cwd=tmp_path)


def test_an_unreachable_model_endpoint_is_one_counted_infra_error_and_no_traceback(tmp_path):
    done = mcpbench(tmp_path, "--agent", "openai:x", "--tasks", "slack-announce-release", "--json",
                    OPENAI_BASE_URL="http://127.0.0.1:9/v1", OPENAI_API_KEY="x")
    assert done.returncode == 0, done.stderr
    card = json.loads(done.stdout)
    assert card["infra_errors"] == 1 and card["attempted"] == 0
    assert "Traceback" not in done.stderr and "ExceptionGroup" not in done.stderr
    assert "the model stayed unavailable" in " ".join(done.stderr.split())  # the log wraps lines


def test_an_endpoint_answering_http_400_is_the_agents_counted_failure(tmp_path):
    with ScriptedUpstream(lambda body, n: Reply(400, {"error": {"message": "bad request"}})) as upstream:
        done = mcpbench(tmp_path, "--agent", "openai:x", "--tasks", "slack-announce-release", "--json",
                        OPENAI_BASE_URL=upstream.url, OPENAI_API_KEY="x")
    card = json.loads(done.stdout)
    assert (card["attempted"], card["passed"], card["infra_errors"]) == (1, 0, 0)
    assert "Traceback" not in done.stderr


def test_an_openai_agent_with_no_upstream_named_fails_before_any_run_and_tries_no_public_endpoint(tmp_path):
    done = mcpbench(tmp_path, "--agent", "openai:x", "--tasks", "slack-announce-release", "--json",
                    OPENAI_API_KEY="sk-would-go-to-a-public-endpoint")
    said = " ".join(done.stderr.split())
    assert done.returncode == 1 and done.stdout == ""
    assert "MCPBENCH_MODEL_UPSTREAM: no model upstream is named" in said and "no public default" in said
    assert "Traceback" not in done.stderr
    assert not list(tmp_path.rglob("*.parquet"))  # no run landed: none was tried


def test_a_command_agent_given_the_model_gateway_and_no_pinned_model_fails_before_any_run(tmp_path):
    done = mcpbench(tmp_path, "--agent", "command:true", "--tasks", "slack-announce-release", "--json",
                    OPENAI_BASE_URL="http://127.0.0.1:9/v1")
    said = " ".join(done.stderr.split())
    assert done.returncode == 1 and done.stdout == ""
    assert "MCPBENCH_MODEL: the agent reaches the model gateway and no model is pinned" in said
    assert "MCPBENCH_MODEL_AGENT_CHOOSES=1" in said and "Traceback" not in done.stderr
    assert not list(tmp_path.rglob("*.parquet"))
