"""The issue's repro, as a user runs it: `mcpbench run --agent openai:x` against an unreachable model
endpoint is one counted infra error (`infra:model_unavailable`), with no traceback on the console."""

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
    environ.pop("MCPBENCH_MODEL_UPSTREAM", None)
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
