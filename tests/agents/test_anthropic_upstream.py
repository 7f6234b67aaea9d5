"""An Anthropic Messages API upstream behind the model gateway: agents keep speaking chat completions
(the standard openai client, the built-in loop), the gateway translates requests and answers, tools
included, holds the key as ``x-api-key``, meters usage, and turns an overload storm into
``model_unavailable``. The upstream is a scripted Messages server on loopback."""

from __future__ import annotations

import anyio
import pytest

from mcpbench.model_gateway import ModelGatewayHost, ModelSettings, ModelSettingsError, Price, PriceTable
from tests.agents.conftest import run, settings
from tests.agents.upstream import Reply, ScriptedUpstream

openai = pytest.importorskip("openai", reason="the standard client is a dev extra")


def message(text: str = "", calls: list[tuple[str, dict]] = (), *, stop: str | None = None,
            usage: tuple[int, int] | None = (120, 9)) -> dict:
    """A Messages API answer; ``calls`` are ``(name, input)``."""
    content = ([{"type": "text", "text": text}] if text else []) + [
        {"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": args} for i, (name, args) in enumerate(calls)]
    body = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test", "content": content,
            "stop_reason": stop or ("tool_use" if calls else "end_turn"), "stop_sequence": None}
    if usage:
        body["usage"] = {"input_tokens": usage[0], "output_tokens": usage[1]}
    return body


def anthropic_settings(url: str, **overrides) -> ModelSettings:
    return settings(url, upstream_api="anthropic", **overrides)


def serve(upstream_settings, body):
    async def go():
        with anyio.fail_after(60):
            host = ModelGatewayHost(upstream_settings.pinned("claude-test"))
            async with host.running(), host.serve() as route:
                client = openai.AsyncOpenAI(base_url=host.url(route), api_key="placeholder", max_retries=0)
                try:
                    return await body(client, route)
                finally:
                    await client.close()

    return anyio.run(go)


TOOLS = [{"type": "function", "function": {"name": "list_channels", "description": "List channels.",
                                           "parameters": {"type": "object", "properties": {"limit": {"type": "integer"}}}}}]
HISTORY = [
    {"role": "system", "content": "You use tools."},
    {"role": "user", "content": "Post in #general."},
    {"role": "assistant", "content": "", "tool_calls": [
        {"id": "toolu_a", "type": "function", "function": {"name": "list_channels", "arguments": '{"limit": 5}'}}]},
    {"role": "tool", "tool_call_id": "toolu_a", "content": '{"channels": ["general"]}'},
]


@pytest.mark.parametrize("stream", [False, True])
def test_a_chat_request_with_tools_is_translated_both_ways_and_metered(stream):
    answer = message("Posting now.", calls=[("list_channels", {"limit": 1})], usage=(321, 12))
    with ScriptedUpstream(lambda body, n: Reply(200, answer)) as upstream:
        async def body(client, route):
            kwargs = dict(model="claude-test", messages=HISTORY, tools=TOOLS, tool_choice="auto", max_tokens=256)
            if not stream:
                done = await client.chat.completions.create(**kwargs)
                choice = done.choices[0]
                return (choice.message.content, [(c.function.name, c.function.arguments) for c in choice.message.tool_calls],
                        choice.finish_reason, done.usage.prompt_tokens, route.meter)
            text, calls, finish = "", {}, None
            async for chunk in await client.chat.completions.create(stream=True, **kwargs):
                for choice in chunk.choices:
                    text += choice.delta.content or ""
                    for call in choice.delta.tool_calls or []:
                        name, args = calls.get(call.index, ("", ""))
                        calls[call.index] = (name + (call.function.name or ""), args + (call.function.arguments or ""))
                    finish = choice.finish_reason or finish
            return text, list(calls.values()), finish, None, route.meter

        text, calls, finish, prompt_tokens, meter = serve(anthropic_settings(upstream.url), body)
        (sent,), (headers,), (path,) = upstream.requests, upstream.headers, upstream.paths
    assert (text, calls, finish) == ("Posting now.", [("list_channels", '{"limit": 1}')], "tool_calls")
    assert prompt_tokens in (None, 321)
    assert (meter.requests, meter.prompt_tokens, meter.completion_tokens, meter.tool_calls_emitted) == (1, 321, 12, 1)
    assert not meter.tokens_estimated and meter.errors == 0
    # the request as the Messages API wants it, where it wants it
    assert path == "/v1/messages"
    assert sent["system"] == "You use tools." and sent["max_tokens"] == 256 and "stream" not in sent
    assert sent["tools"] == [{"name": "list_channels", "description": "List channels.",
                              "input_schema": TOOLS[0]["function"]["parameters"]}]
    assert sent["tool_choice"] == {"type": "auto"}
    assert [m["role"] for m in sent["messages"]] == ["user", "assistant", "user"]
    assert sent["messages"][1]["content"] == [{"type": "tool_use", "id": "toolu_a", "name": "list_channels",
                                               "input": {"limit": 5}}]
    assert sent["messages"][2]["content"] == [{"type": "tool_result", "tool_use_id": "toolu_a",
                                               "content": '{"channels": ["general"]}'}]
    # the key travels as Anthropic wants it, and only to the upstream
    assert headers["x-api-key"] == "sk-upstream-secret" and headers["anthropic-version"] == "2023-06-01"
    assert "Authorization" not in headers


def test_an_overloaded_upstream_is_retried_then_model_unavailable_and_its_errors_read_as_openai_errors():
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    bad = {"type": "error", "error": {"type": "invalid_request_error", "message": "messages: roles must alternate"}}
    with ScriptedUpstream(lambda body, n: Reply(529, overloaded)) as upstream:
        async def storm(client, route):
            with pytest.raises(openai.APIStatusError) as caught:
                await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
            return caught.value, route.meter

        error, meter = serve(anthropic_settings(upstream.url, max_attempts=3), storm)
        assert len(upstream.requests) == 3
    assert error.status_code == 503 and "model_unavailable" in str(error.body)
    assert meter.retries == 2 and "HTTP 529" in meter.unavailable
    with ScriptedUpstream(lambda body, n: Reply(400, bad)) as upstream:
        async def refused(client, route):
            with pytest.raises(openai.BadRequestError) as caught:
                await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
            return caught.value, route.meter

        error, meter = serve(anthropic_settings(upstream.url), refused)
    assert error.body["message"] == "messages: roles must alternate" and meter.errors == 1


def solving(task):
    """A Messages upstream replaying ``task``'s reference solution, one tool_use a turn, then ending."""
    def answer(body, n):
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        if turn < len(task.reference_solution):
            call = task.reference_solution[turn]
            return Reply(200, message(calls=[(call.tool, call.arguments)], usage=(200, 15)))
        return Reply(200, message("All done.", usage=(200, 5)))
    return answer


def test_the_built_in_agent_solves_a_task_through_an_anthropic_upstream_with_tokens_and_cost(task):
    prices = PriceTable({"claude-test": Price(prompt=3.0, completion=15.0)})
    with ScriptedUpstream(solving(task)) as upstream:
        (result,) = run([task], "openai:claude-test", anthropic_settings(upstream.url, prices=prices))
    assert result.run.passed, (result.run.stderr_tail, [c.error_message for c in result.calls])
    turns = len(task.reference_solution) + 1
    assert result.run.model_requests == turns == len(upstream.requests)
    steps = len(task.reference_solution)
    assert (result.run.model_prompt_tokens, result.run.model_completion_tokens) == (200 * turns, 15 * steps + 5)
    assert result.run.model_cost_nanousd == 200 * turns * 3000 + (15 * steps + 5) * 15000
    assert {t["name"] for t in upstream.requests[0]["tools"]} == set(task.available_tools)
    last = upstream.requests[-1]["messages"]
    assert [b["type"] for b in last[-1]["content"]] == ["tool_result"]


def test_the_upstream_api_is_chosen_by_name_with_anthropics_defaults():
    s = ModelSettings.from_env({"MCPBENCH_MODEL_UPSTREAM_API": "anthropic", "ANTHROPIC_API_KEY": "ak",
                                "OPENAI_BASE_URL": "http://127.0.0.1:8080/v1", "OPENAI_API_KEY": "ok"})
    assert (s.upstream_api, s.upstream_url, s.upstream_key) == ("anthropic", "https://api.anthropic.com/v1", "ak")
    assert ModelSettings.configured({"MCPBENCH_MODEL_UPSTREAM_API": "anthropic"})
    with pytest.raises(ModelSettingsError, match="MCPBENCH_MODEL_UPSTREAM_API"):
        ModelSettings.from_env({"MCPBENCH_MODEL_UPSTREAM_API": "gemini"})
    assert ModelSettings.from_env({"OPENAI_BASE_URL": "http://a/v1"}).upstream_api == "openai"
