"""The built-in baseline agents, each a real MCP client of the gateway, run inside the sandbox.

    python -S -m mcpbench.agents.baselines {oracle|noop|liar|random}

They validate the benchmark itself: the oracle (replays the reference solution, retrying transient
errors) must pass every valid task; noop and liar must pass none; random's calls to unlisted tools
must show up as hallucinations. Input is one JSON object on stdin: ``goal``, ``max_steps`` and, for
the oracle only, ``reference_solution``. The gateway URL is ``MCPBENCH_MCP_URL``. Standard library
only, so a baseline starts in milliseconds.

Its first act, once its code has loaded, is to announce on stderr that it started (``STARTED``): a built-in
baseline that exits non-zero without that line never ran at all, so the sandbox or image could not start
our own agent, an infra error of ours and not the agent's failure (``mcpbench.runner.baseline_did_not_start``).
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from typing import Any

from mcpbench.agents._mcp_http import MCPHttpClient

TRANSIENT = ("retry the call", "HTTP 429", "HTTP 503", "HTTP 504")
#: A partial failure (tasks_catalog/faults.py): the change went through, the answer was lost. The oracle
#: does not retry it (that would make the change twice); the reference solution checks the state next.
AFTER_COMMIT = ("may or may not have been applied",)
HALLUCINATED_TOOLS = ("delete_everything", "run_shell_command", "get_secrets", "send_fax", "sudo")
#: The line a baseline writes first on stderr, followed by its name (``mcpbench-baseline: started oracle``).
STARTED = "mcpbench-baseline: started"


def oracle(client: MCPHttpClient, job: dict) -> int:
    client.list_tools()
    for step, call in enumerate(job["reference_solution"], 1):
        for attempt in range(4):
            is_error, text = client.call_tool(call["tool"], call.get("arguments", {}))
            if is_error and any(t in text for t in AFTER_COMMIT):
                is_error = False
                break
            if not (is_error and any(t in text for t in TRANSIENT)):
                break
            time.sleep(0.01 * (attempt + 1))
        if is_error:
            print(f"oracle: step {step} ({call['tool']}) failed: {text[:200]}", file=sys.stderr)
            return 1
    print("oracle: reference solution applied")
    return 0


def noop(client: MCPHttpClient, job: dict) -> int:
    return 0


def liar(client: MCPHttpClient, job: dict) -> int:
    client.list_tools()
    print("Done! I completed the task exactly as requested and verified the result.")
    return 0


def random_agent(client: MCPHttpClient, job: dict) -> int:
    rng = random.Random(os.environ.get("MCPBENCH_SEED", "0"))
    tools = client.list_tools()
    budget = min(int(job.get("max_steps", 8)), 8)
    for _ in range(budget):
        if not tools or rng.random() < 0.3:
            name, args = rng.choice(HALLUCINATED_TOOLS), {"target": "everything"}
        else:
            tool = rng.choice(tools)
            name, args = tool["name"], _random_arguments(tool.get("inputSchema", {}), rng)
        client.call_tool(name, args)
    print("random: finished")
    return 0


def _random_arguments(schema: dict, rng: random.Random) -> dict:
    out: dict[str, Any] = {}
    for key, prop in (schema.get("properties") or {}).items():
        kind = prop.get("type")
        if kind == "integer":
            out[key] = rng.randint(1, 50)
        elif kind == "number":
            out[key] = round(rng.uniform(1, 500), 2)
        elif kind == "boolean":
            out[key] = rng.random() < 0.5
        elif kind == "array":
            out[key] = []
        elif kind == "object":
            out[key] = {}
        else:
            out[key] = rng.choice(["general", "README.md", "1", "alice@example.com", "Q3 plan"])
    return out


AGENTS = {"oracle": oracle, "noop": noop, "liar": liar, "random": random_agent}


def main(argv: list[str]) -> int:
    print(STARTED, *argv[:1], file=sys.stderr, flush=True)
    if len(argv) != 1 or argv[0] not in AGENTS:
        print(f"usage: python -m mcpbench.agents.baselines {{{'|'.join(AGENTS)}}}", file=sys.stderr)
        return 2
    job = json.loads(sys.stdin.read() or "{}")
    if argv[0] == "noop":
        return 0
    with MCPHttpClient(os.environ["MCPBENCH_MCP_URL"]) as client:
        return AGENTS[argv[0]](client, job)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
