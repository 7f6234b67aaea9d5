"""The model gateway's budgets under attack, over real HTTP with real concurrency: many requests at
once, ``n`` multipliers, caps asked in either field or not at all, streams that never settle, answers
with no usage block, fields the gateway does not know, a model the agent chose, and hostile bodies.
The upstream is a scripted server on loopback that bills the worst case it is allowed: a prompt token
per byte it received and every completion token of every choice."""

from __future__ import annotations

import json
import threading

import anyio
import httpx
import pytest

from mcpbench.agents.spec import ProcessAgent
from mcpbench.model_gateway import ModelGatewayHost, ModelSettingsError
from mcpbench.model_gateway.admission import MAX_DEPTH, PROMPT_OVERHEAD_TOKENS
from mcpbench.runner import model_settings_for
from tests.agents.conftest import settings
from tests.agents.test_anthropic_upstream import message
from tests.agents.upstream import Reply, ScriptedUpstream, Stream, completion, streamed

APIS = ["openai", "openai-stream", "anthropic"]


def gateway(upstream_settings, body):
    """Run ``body(http, route)`` against one mounted run, ``http`` an httpx client at its base URL."""
    async def go():
        with anyio.fail_after(60):
            host = ModelGatewayHost(upstream_settings)
            async with (host.running(), host.serve() as route,
                        httpx.AsyncClient(base_url=host.url(route), timeout=30) as http):
                return await body(http, route)

    return anyio.run(go)


def worst_case(api: str, gate: threading.Event | None = None):
    """An upstream that bills every request the most it could: its prompt a token per byte received,
    and the whole completion cap of each choice; it answers once ``gate`` is set, if one is given."""
    def answer(body, n):
        if gate is not None:
            gate.wait(30)
        prompt = len(json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode())
        if api == "anthropic":
            return Reply(200, message("ok", usage=(prompt, body["max_tokens"])))
        cap = body.get("max_tokens") or body.get("max_completion_tokens")
        usage = (prompt, cap * body.get("n", 1))
        return streamed("ok", usage=usage) if body.get("stream") else Reply(body=completion("ok", usage=usage))
    return answer


def api_settings(api: str, url: str, **overrides):
    return settings(url, model="m", upstream_api="anthropic" if api == "anthropic" else "openai", **overrides)


def ask(i: int, api: str, **fields) -> dict:
    return {"model": "m", "messages": [{"role": "user", "content": f"request {i}"}],
            **({"stream": True} if api == "openai-stream" else {}), **fields}


async def at_once(http: httpx.AsyncClient, bodies: list[dict], until=None) -> list[httpx.Response]:
    """POST every body concurrently; ``until(answered)`` is polled meanwhile (a bounded wait)."""
    answered: list[httpx.Response | None] = [None] * len(bodies)

    async def one(i: int) -> None:
        answered[i] = await http.post("/chat/completions", json=bodies[i])

    async with anyio.create_task_group() as tg:
        for i in range(len(bodies)):
            tg.start_soon(one, i)
        if until is not None:
            while not until(answered):
                await anyio.sleep(0.005)
    return answered


@pytest.mark.parametrize("api", APIS)
def test_thirty_concurrent_requests_under_a_budget_of_five_forward_exactly_five(api):
    """The upstream holds every answer until each of the 30 requests was either forwarded to it or
    refused, so all 30 are in the gateway at once."""
    gate = threading.Event()
    with ScriptedUpstream(worst_case(api, gate)) as upstream:
        def until(answered):
            refused = sum(r is not None and r.status_code == 403 for r in answered)
            if len(upstream.requests) + refused >= 30:
                gate.set()
            return gate.is_set()

        async def body(http, route):
            return await at_once(http, [ask(i, api) for i in range(30)], until), route.meter

        answered, meter = gateway(api_settings(api, upstream.url, max_requests=5), body)
        forwarded = len(upstream.requests)
    assert forwarded == 5
    assert sorted(r.status_code for r in answered) == [200] * 5 + [403] * 25
    assert all(r.json()["error"]["type"] == "budget_exceeded" for r in answered if r.status_code == 403)
    assert (meter.requests, meter.refused, meter.in_flight, meter.reserved_tokens) == (5, 25, 0, 0)


@pytest.mark.parametrize("api", APIS)
def test_thirty_concurrent_requests_are_billed_no_more_than_the_token_budget(api):
    """Each asks 2,000 completion tokens of a 10,000-token budget: at most what fits is in flight, the
    rest wait for room or are refused once none is left, and what the upstream billed (its worst case)
    stays within the budget."""
    with ScriptedUpstream(worst_case(api)) as upstream:
        async def body(http, route):
            return await at_once(http, [ask(i, api, max_tokens=2000) for i in range(30)]), route.meter

        answered, meter = gateway(api_settings(api, upstream.url, max_tokens=10_000), body)
        caps = [r["max_tokens"] for r in upstream.requests]
    assert meter.prompt_tokens + meter.completion_tokens <= 10_000
    assert not meter.tokens_estimated and len(caps) == meter.requests >= 4
    assert all(1 <= cap <= 2000 for cap in caps)
    assert sorted(r.status_code for r in answered) == [200] * len(caps) + [403] * (30 - len(caps))
    assert all("token budget (10000 tokens) is spent" in r.json()["error"]["message"]
               for r in answered if r.status_code == 403)
    assert (meter.in_flight, meter.reserved_tokens, meter.refused) == (0, 0, 30 - len(caps))


def test_n_is_capped_and_when_allowed_its_choices_are_reserved_within_the_budget():
    """``n=50`` is refused by default (one choice a request); allowed, the request is granted the
    completion that fits 50 times in a 1,000-token budget beside its prompt's bound."""
    with ScriptedUpstream(worst_case("openai")) as upstream:
        async def refused(http, route):
            return await http.post("/chat/completions", json=ask(0, "openai", n=50)), route.meter

        response, meter = gateway(api_settings("openai", upstream.url, max_tokens=1000), refused)
        assert response.status_code == 400 and upstream.requests == []
        said = response.json()["error"]["message"]
        assert "n: at most 1 choice(s) a request (MCPBENCH_MODEL_MAX_CHOICES), got 50" in said
        assert meter.tokens == 0 and meter.errors == 1

        body = json.dumps(ask(0, "openai", n=50, max_tokens=1000)).encode()

        async def allowed(http, route):
            return await http.post("/chat/completions", content=body), route.meter

        response, meter = gateway(api_settings("openai", upstream.url, max_tokens=1000, max_choices=50), allowed)
        (sent,) = upstream.requests
    assert response.status_code == 200 and sent["n"] == 50
    assert sent["max_tokens"] == (1000 - len(body) - PROMPT_OVERHEAD_TOKENS) // 50
    assert meter.completion_tokens == 50 * sent["max_tokens"]
    assert meter.prompt_tokens + meter.completion_tokens <= 1000


@pytest.mark.parametrize("asked, field, forwarded", [
    ({"max_completion_tokens": 100_000}, "max_tokens", {"max_tokens": 4096}),
    ({}, "max_tokens", {"max_tokens": 4096}),
    ({"max_tokens": 300, "max_completion_tokens": 200}, "max_tokens", {"max_tokens": 200}),
    ({"max_tokens": 50}, "max_completion_tokens", {"max_completion_tokens": 50}),
])
def test_the_completion_cap_is_the_least_asked_at_most_the_operators_in_the_field_the_upstream_reads(
        asked, field, forwarded):
    with ScriptedUpstream(worst_case("openai")) as upstream:
        async def body(http, route):
            return await http.post("/chat/completions", json=ask(0, "openai", **asked))

        response = gateway(api_settings("openai", upstream.url, tokens_field=field), body)
        (sent,) = upstream.requests
    assert response.status_code == 200
    assert {k: v for k, v in sent.items() if k in ("max_tokens", "max_completion_tokens")} == forwarded


def test_a_stream_that_never_settles_holds_its_reservation_until_the_agent_hangs_up():
    """A's stream never ends and reports no usage; B does not fit beside A's hold, so it waits, and is
    forwarded once A's client hangs up. A is then billed what streamed, counted, never more than its
    hold though each chunk is long."""
    chunk = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "la " * 2000}}]}
    meters, seen_at_b = [], {}

    def answer(body, n):
        if n == 0:
            return Stream([chunk], delay=0.02, forever=True)
        seen_at_b["requests"] = meters[0].requests
        return Reply(body=completion("ok", usage=(100, 10)))

    with ScriptedUpstream(answer) as upstream:
        async def body(http, route):
            meters.append(route.meter)
            answers = []

            async def b():
                answers.append(await http.post("/chat/completions", json=ask(1, "openai", max_tokens=1000)))

            async with (http.stream("POST", "/chat/completions", json=ask(0, "openai-stream", max_tokens=1000)) as a,
                        anyio.create_task_group() as tg):
                chunks = a.aiter_bytes()  # held: a generator dropped early would close the stream
                await chunks.__anext__()
                tg.start_soon(b)
                while route.waiting == 0:
                    await anyio.sleep(0.005)
                assert len(upstream.requests) == 1 and route.meter.in_flight == 1
                await a.aclose()
            return answers[0], route.meter

        b_answer, meter = gateway(api_settings("openai", upstream.url, max_tokens=3000), body)
        sent_a = upstream.requests[0]
    assert b_answer.status_code == 200 and seen_at_b == {"requests": 1}
    assert meter.requests == 2 and meter.tokens_estimated
    assert 0 < meter.completion_tokens - 10 <= sent_a["max_tokens"] == 1000
    assert meter.prompt_tokens + meter.completion_tokens <= 3000


def test_an_answer_without_usage_is_counted_no_higher_than_its_hold():
    """10,000 characters back for a cap of 100 tokens and no usage block: the count (about 2,500) would
    pass the 2,000-token budget; the request could not have been billed more than its cap."""
    with ScriptedUpstream(lambda body, n: Reply(body=completion("x" * 10_000))) as upstream:
        async def body(http, route):
            return await http.post("/chat/completions", json=ask(0, "openai", max_tokens=100)), route.meter

        response, meter = gateway(api_settings("openai", upstream.url, max_tokens=2000), body)
    assert response.status_code == 200 and upstream.requests[0]["max_tokens"] == 100
    assert meter.tokens_estimated and meter.completion_tokens == 100
    assert meter.prompt_tokens + meter.completion_tokens <= 2000


def test_a_stream_that_broke_mid_answer_is_counted_for_what_came_never_past_its_hold():
    """The upstream billed the prompt and what it streamed before the connection broke, with no usage
    block to say so: counted from the text (8,000 characters), at most the cap of 500."""
    events = [{"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "x" * 4000}}]}] * 2
    with ScriptedUpstream(lambda body, n: Stream(events, cut=True)) as upstream:
        async def body(http, route):
            async with http.stream("POST", "/chat/completions", json=ask(0, "openai-stream", max_tokens=500)) as r:
                await r.aread()
            return route.meter

        meter = gateway(api_settings("openai", upstream.url, max_tokens=5000), body)
    assert "the upstream's stream broke" in meter.unavailable and meter.errors == 1
    assert meter.tokens_estimated and meter.prompt_tokens > 0 and meter.completion_tokens == 500
    assert (meter.requests, meter.in_flight, meter.reserved_tokens) == (1, 0, 0)


def test_a_request_still_arriving_when_its_run_ends_is_never_forwarded():
    """Half a body, then the run ends, then the rest: the request went with its run, so nothing reaches
    the upstream on the run's behalf after its record was read."""
    body = json.dumps(ask(0, "openai")).encode()
    release = anyio.Event()

    async def parts():
        yield body[:10]
        await release.wait()
        yield body[10:]

    with ScriptedUpstream(worst_case("openai")) as upstream:
        async def go():
            with anyio.fail_after(60):
                host = ModelGatewayHost(api_settings("openai", upstream.url))
                async with host.running(), httpx.AsyncClient(timeout=30) as http, anyio.create_task_group() as tg:
                    async with host.serve() as route:
                        answered = []

                        async def post():
                            try:
                                answered.append(await http.post(f"{host.url(route)}/chat/completions",
                                                                content=parts()))
                            except httpx.TransportError as exc:  # the gateway hung up
                                answered.append(exc)

                        tg.start_soon(post)
                        while not route.scopes:  # the gateway is reading the body
                            await anyio.sleep(0.005)
                    release.set()
                return answered, route.meter

        answered, meter = anyio.run(go)
    assert upstream.requests == [] and meter.requests == 0
    (answer,) = answered
    assert isinstance(answer, httpx.TransportError) or answer.status_code >= 500


def test_only_the_fields_the_gateway_knows_are_forwarded():
    known = {"tools": [{"type": "function", "function": {"name": "list_channels", "description": "List.",
                                                         "parameters": {"type": "object", "properties": {}}}}],
             "tool_choice": {"type": "function", "function": {"name": "list_channels"}},
             "parallel_tool_calls": False, "response_format": {"type": "json_object"}, "temperature": 0.2,
             "top_p": 0.9, "seed": 7, "stop": ["END"], "max_tokens": 64, "stream": True}
    unknown = {"store": True, "metadata": {"leak": "x"}, "service_tier": "priority", "user": "u-1",
               "prediction": {"type": "content", "content": "y" * 100}, "best_of": 20, "use_beam_search": True,
               "audio": {"voice": "alloy"}, "modalities": ["text", "audio"], "web_search_options": {},
               "top_k": 5, "stream_options": {"include_usage": False}}
    messages = [{"role": "system", "content": "Use tools."},
                {"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": {"type": "x"}}]},
                {"role": "assistant", "content": None, "refusal": None, "audio": {"id": "audio_1"},
                 "tool_calls": [{"id": "call_1", "type": "function",
                                 "function": {"name": "list_channels", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "call_1", "content": "[]"}]
    with ScriptedUpstream(lambda body, n: streamed("ok", usage=(5, 1))) as upstream:
        async def body(http, route):
            return await http.post("/chat/completions", json={"model": "m", "messages": messages, **known, **unknown})

        response = gateway(api_settings("openai", upstream.url), body)
        (sent,) = upstream.requests
    assert response.status_code == 200
    assert set(sent) == {"model", "messages", "stream_options", *known}
    assert sent["stream_options"] == {"include_usage": True}  # the meter reads usage, whatever the agent asked
    assert {k: sent[k] for k in known} == known
    assert sent["messages"][1] == {"role": "user", "content": [{"type": "text", "text": "hi"}]}
    assert sent["messages"][2] == {"role": "assistant", "content": None, "tool_calls": messages[2]["tool_calls"]}


def test_the_model_is_the_operators_unless_the_operator_lets_the_agent_choose():
    with ScriptedUpstream(lambda body, n: Reply(body=completion("ok", usage=(5, 1)))) as upstream:
        async def body(http, route):
            listed = await http.get("/models")
            await http.post("/chat/completions", json={**ask(0, "openai"), "model": "gpt-expensive"})
            return listed.json()["data"][0]["id"]

        assert gateway(settings(upstream.url).pinned("scripted-1"), body) == "scripted-1"
        gateway(settings(upstream.url, agent_chooses_model=True), body)
        gateway(settings(upstream.url, model="operators", agent_chooses_model=True), body)
        assert [r["model"] for r in upstream.requests] == ["scripted-1", "gpt-expensive", "operators"]
    command = ProcessAgent("command:agent", ("agent",))
    with pytest.raises(ModelSettingsError, match="MCPBENCH_MODEL: the agent reaches the model gateway and no model is"):
        model_settings_for(command, settings(upstream.url))
    with pytest.raises(ModelSettingsError, match="MCPBENCH_MODEL_AGENT_CHOOSES=1"):
        ModelGatewayHost(settings(upstream.url))
    assert model_settings_for(command, settings(upstream.url, model="x")).model == "x"


DEEP = b'{"model": "m", "messages": ' + b"[" * 200_000 + b"]" * 200_000 + b"}"
SCHEMA = {"type": "json_schema", "json_schema": {"schema": json.loads("[" * MAX_DEPTH + "]" * MAX_DEPTH)}}
USER = [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize("api, body, named", [
    ("openai", DEEP, f"the body nests deeper than {MAX_DEPTH} levels"),
    ("openai", {"model": "m", "messages": USER, "response_format": SCHEMA}, f"nests deeper than {MAX_DEPTH} levels"),
    ("openai", b'{"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": NaN}',
     "the body is not JSON: NaN is not a JSON number"),
    ("openai", {"model": "m", "messages": [{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "http://x/y.png"}}]}]},
     'messages[0].content[0].type: only text parts are forwarded, got "image_url"'),
    ("openai", {"model": "m", "messages": USER, "tools": [{"function": "x"}]},
     "tools[0].function: expected an object, got \"x\""),
    ("openai", {"model": "m", "messages": USER, "n": "many"}, 'n: expected a positive integer, got "many"'),
    ("openai", {"model": "m", "messages": USER, "max_tokens": 0}, "max_tokens: expected a positive integer, got 0"),
    ("anthropic", {"model": "m", "messages": [{"role": "assistant", "tool_calls": ["x"]}]},
     'messages[0].tool_calls[0]: expected an object, got "x"'),
    ("anthropic", {"model": "m", "messages": USER, "stop": 5}, "stop: expected a list, got 5"),
    ("openai", {"model": "m", "messages": USER * 20_000 + [{"role": "user", "content": [{"type": "input_audio"}]}]},
     'messages[20000].content[0].type: only text parts are forwarded, got "input_audio"'),  # read in a thread
])
def test_a_hostile_body_is_a_clean_400_naming_what_is_wrong_and_the_next_request_goes_through(api, body, named):
    with ScriptedUpstream(worst_case(api)) as upstream:
        async def go(http, route):
            content = body if isinstance(body, bytes) else json.dumps(body).encode()
            bad = await http.post("/chat/completions", content=content)
            good = await http.post("/chat/completions", json=ask(0, api))
            return bad, good

        bad, good = gateway(api_settings(api, upstream.url), go)
        forwarded = len(upstream.requests)
    assert bad.status_code == 400, bad.text
    assert bad.json()["error"]["type"] == "invalid_request_error" and named in bad.json()["error"]["message"]
    assert good.status_code == 200 and forwarded == 1
