"""The model gateway on its own, driven by the standard openai client: streams relay intact with
their tool calls, usage is metered, the key stays with the gateway, unknown runs are refused."""

from __future__ import annotations

import anyio
import httpx
import pytest

from mcpbench.model_gateway import ModelGatewayHost
from tests.agents.conftest import settings
from tests.agents.upstream import Reply, ScriptedUpstream, completion, streamed

openai = pytest.importorskip("openai", reason="the standard client is a dev extra")


def serve(upstream_settings, body):
    """Run ``body(client, route)`` against one mounted run, with an openai client pointed at it."""
    async def go():
        with anyio.fail_after(60):
            host = ModelGatewayHost(upstream_settings.pinned("m"))
            async with host.running(), host.serve() as route:
                client = openai.AsyncOpenAI(base_url=host.url(route), api_key="placeholder", max_retries=0)
                try:
                    return await body(client, route, host)
                finally:
                    await client.close()

    return anyio.run(go)


def test_a_streamed_answer_with_tool_calls_reaches_the_client_intact_and_is_metered():
    answer = streamed("Let me look.", calls=[("list_channels", '{"limit": 5}')], usage=(321, 12))
    with ScriptedUpstream(lambda body, n: answer) as upstream:
        async def body(client, route, host):
            stream = await client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "hi"}], stream=True,
                tools=[{"type": "function", "function": {"name": "list_channels", "parameters": {}}}])
            text, args, name = "", "", ""
            async for chunk in stream:
                for choice in chunk.choices:
                    text += choice.delta.content or ""
                    for call in choice.delta.tool_calls or []:
                        name += call.function.name or ""
                        args += call.function.arguments or ""
            return text, name, args, route.meter

        text, name, args, meter = serve(settings(upstream.url), body)
        sent = upstream.requests[0]
    assert (text, name, args) == ("Let me look.", "list_channels", '{"limit": 5}')
    assert (meter.requests, meter.prompt_tokens, meter.completion_tokens) == (1, 321, 12)
    assert meter.tool_calls_emitted == 1 and meter.malformed_calls == 0
    assert sent["stream_options"] == {"include_usage": True}
    assert upstream.headers[0]["Authorization"] == "Bearer sk-upstream-secret"


def test_a_429_storm_reaches_the_client_as_model_unavailable_after_the_retries():
    storm = lambda body, n: Reply(429, {"error": {"message": "busy"}}, {"Retry-After": "0"})  # noqa: E731
    with ScriptedUpstream(storm) as upstream:
        async def body(client, route, host):
            with pytest.raises(openai.APIStatusError) as caught:
                await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
            return caught.value, route.meter

        error, meter = serve(settings(upstream.url, max_attempts=3), body)
    assert error.status_code == 503 and "model_unavailable" in str(error.body)
    assert meter.retries == 2 and meter.unavailable and "HTTP 429" in meter.unavailable
    assert (meter.requests, meter.in_flight, meter.reserved_tokens) == (0, 0, 0)  # its hold was released


def test_retry_after_sets_the_wait_before_the_next_attempt_capped_and_backoff_without_it():
    """The waits the gateway takes between attempts, seen through its sleep (not taken, so the test
    does not wait): Retry-After's seconds, exponential backoff from 0.01 s when there is none, and a
    Retry-After past the 20 s cap waits 20 s."""
    script = [Reply(429, {"error": {"message": "slow down"}}, {"Retry-After": "7"}),
              Reply(503, {"error": {"message": "loading"}}),
              Reply(429, {"error": {"message": "slow down"}}, {"Retry-After": "45"}),
              Reply(body=completion("hello", usage=(3, 1)))]
    with ScriptedUpstream(lambda body, n: script[n]) as upstream:
        async def body(client, route, host):
            waits = []

            async def sleep(seconds):
                waits.append(seconds)
                await anyio.sleep(0)

            host.sleep = sleep
            answer = await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
            return answer, waits, route.meter

        answer, waits, meter = serve(settings(upstream.url, retry_budget_s=30.0), body)
    assert answer.choices[0].message.content == "hello" and len(upstream.requests) == 4
    assert waits == [7.0, 0.02, 20.0]  # backoff 0.01 s doubled: the 503 was the second attempt
    assert meter.retries == 3 and meter.retry_wait_s == pytest.approx(27.02)


def test_a_path_that_names_no_run_is_refused():
    async def body(client, route, host):
        async with httpx.AsyncClient() as http:
            return await http.post(f"http://127.0.0.1:{host.port}/r/not-a-run/v1/chat/completions", json={})

    response = serve(settings("http://127.0.0.1:9/v1"), body)
    assert response.status_code == 404
