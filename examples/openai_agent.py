"""A ``command:`` agent that uses a model through MCPBench's model gateway, with the standard
``openai`` Python client and the ``mcp`` SDK.

    OPENAI_BASE_URL=http://127.0.0.1:8080/v1 MCPBENCH_MODEL=local \\
        mcpbench run --agent "command:python examples/openai_agent.py" --tasks slack-announce-release

In the sandbox it can reach two endpoints and nothing else: the run's MCP gateway
(``MCPBENCH_MCP_URL``) and the run's model gateway (``OPENAI_BASE_URL``, also ``MCPBENCH_MODEL_URL``).
``OPENAI_API_KEY`` is a placeholder: the model gateway holds the operator's key and forwards to the
operator's upstream. The model is the operator's (``MCPBENCH_MODEL``, which the gateway pins); the name sent,
``MCPBENCH_AGENT_MODEL``, counts only where the operator lets the agent choose.
Exit 0 means "I am done"; pass or fail is decided from the server's final state, not from this.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys

from mcp import Client
from openai import AsyncOpenAI, OpenAIError

SYSTEM = ("You operate a service through the tools you are given. Do exactly what the user asks, "
          "using the tools; when done, answer with a one-line summary and no tool call.")


def as_function(tool) -> dict:
    schema = dict(tool.input_schema or {"type": "object", "properties": {}})
    schema.pop("title", None)
    return {"type": "function", "function": {"name": tool.name, "description": tool.description or "",
                                             "parameters": schema}}


async def call(mcp: Client, name: str, raw_arguments: str) -> str:
    try:
        arguments = json.loads(raw_arguments or "{}")
    except json.JSONDecodeError as exc:
        return f"error: the arguments are not valid JSON ({exc.msg}); call the tool again"
    if not isinstance(arguments, dict):
        return "error: the arguments must be a JSON object; call the tool again"
    result = await mcp.call_tool(name, arguments)
    text = "".join(getattr(part, "text", "") for part in result.content)
    return f"error: {text}" if result.is_error else text


async def main() -> int:
    goal = os.environ["MCPBENCH_GOAL"]
    max_steps = int(os.environ.get("MCPBENCH_MAX_STEPS", "20"))
    model = os.environ.get("MCPBENCH_AGENT_MODEL", "default")
    llm = AsyncOpenAI(max_retries=0)  # OPENAI_BASE_URL and OPENAI_API_KEY come from the harness
    async with Client(os.environ["MCPBENCH_MCP_URL"]) as mcp:
        tools = [as_function(t) for t in (await mcp.list_tools()).tools]
        messages: list[dict] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": goal}]
        steps = 0
        while steps < max_steps:
            try:
                reply = await llm.chat.completions.create(model=model, messages=messages, tools=tools,
                                                          tool_choice="auto", max_tokens=512)
            except OpenAIError as exc:
                print(f"model call failed: {exc}", file=sys.stderr)
                return 1
            message = reply.choices[0].message
            calls = message.tool_calls or []
            messages.append({"role": "assistant", "content": message.content or "",
                             **({"tool_calls": [c.model_dump() for c in calls]} if calls else {})})
            if not calls:
                print(message.content or "")
                return 0
            for tool_call in calls:
                steps += 1
                content = (await call(mcp, tool_call.function.name, tool_call.function.arguments)
                           if steps <= max_steps else "error: not executed: the step budget is spent")
                messages.append({"role": "tool", "tool_call_id": tool_call.id, "content": content})
    print("stopped: the step budget is spent")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
