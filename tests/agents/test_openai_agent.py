"""The built-in ``openai`` agent through the model gateway, against a scripted upstream on loopback:
every way a real server can behave ends as a pass, the agent's classified failure, or
``infra:model_unavailable``; never an uncounted infra error or a traceback."""

from __future__ import annotations

import json

import pytest

from tests.agents.conftest import run, settings
from tests.agents.upstream import Reply, ScriptedUpstream, Stream, completion, streamed


def solving(task, *, usage=None, stream=None):
    """An upstream that replays ``task``'s reference solution, one call a turn, then answers; streamed
    when the request asks (or ``stream`` says so)."""
    def answer(body, n):
        streaming = body.get("stream") is True if stream is None else stream
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        if turn < len(task.reference_solution):
            call = task.reference_solution[turn]
            calls = [(call.tool, json.dumps(call.arguments))]
            return streamed(calls=calls, usage=usage) if streaming else Reply(body=completion(calls=calls, usage=usage))
        return streamed("All done.", usage=usage) if streaming else Reply(body=completion("All done.", usage=usage))
    return answer


def test_the_loop_solves_a_task_streaming_through_the_gateway_which_holds_the_key(task):
    with ScriptedUpstream(solving(task, usage=(100, 7))) as upstream:
        (result,) = run([task], "openai:scripted-1", settings(upstream.url))
    assert result.run.passed, (result.run.stderr_tail, [c.error_message for c in result.calls])
    first = upstream.requests[0]
    assert first["stream"] is True and first["tool_choice"] == "auto" and first["max_tokens"] == 1024
    assert {t["function"]["name"] for t in first["tools"]} == set(task.available_tools)
    assert all(h["Authorization"] == "Bearer sk-upstream-secret" for h in upstream.headers)
    echoed = [m for m in upstream.requests[-1]["messages"] if m["role"] == "assistant"]
    assert echoed and all(isinstance(m["content"], str) for m in echoed)
    turns = len(task.reference_solution) + 1
    assert result.run.model_requests == turns == len(upstream.requests)
    assert (result.run.model_prompt_tokens, result.run.model_completion_tokens) == (100 * turns, 7 * turns)
    assert not result.run.model_tokens_estimated and result.run.model_errors == 0


def test_runs_share_one_tls_context_instead_of_loading_certificates_for_each_client(task, monkeypatch):
    """Each HTTP client would otherwise build a TLS context of its own (the system's CA certificates
    loaded again: a fifth of a short run): two per run, and the model gateway's one per evaluation."""
    import ssl

    from mcpbench.tls import shared_context

    shared_context()
    built = []
    real = ssl.create_default_context
    monkeypatch.setattr(ssl, "create_default_context", lambda *a, **k: built.append(1) or real(*a, **k))
    with ScriptedUpstream(solving(task)) as upstream:
        results = run([task, task], "openai:scripted-1", settings(upstream.url))
    assert [r.run.passed for r in results] == [True, True]
    assert built == []


def test_tokens_are_counted_when_the_upstream_reports_no_usage_and_streaming_can_be_turned_off(task, monkeypatch):
    monkeypatch.setenv("MCPBENCH_OPENAI_STREAM", "0")
    with ScriptedUpstream(solving(task)) as upstream:
        (result,) = run([task], "openai:scripted-1", settings(upstream.url))
    assert all(r["stream"] is False for r in upstream.requests)
    assert result.run.passed
    assert result.run.model_tokens_estimated
    assert result.run.model_prompt_tokens > 0 and result.run.model_completion_tokens > 0


def test_cost_comes_from_the_operators_price_table_in_integer_nanodollars(task):
    from mcpbench.model_gateway import Price, PriceTable

    prices = PriceTable({"scripted-1": Price(prompt=0.15, completion=0.6)})
    with ScriptedUpstream(solving(task, usage=(1000, 50))) as upstream:
        (result,) = run([task], "openai:scripted-1", settings(upstream.url, prices=prices))
    turns = len(task.reference_solution) + 1
    assert result.run.model_cost_nanousd == turns * (1000 * 150 + 50 * 600)


def test_an_upstream_429_storm_is_an_infra_error_not_the_agents_failure(task):
    storm = lambda body, n: Reply(429, {"error": {"message": "rate limited"}}, {"Retry-After": "0"})  # noqa: E731
    with ScriptedUpstream(storm) as upstream:
        (result,) = run([task], "openai:scripted-1", settings(upstream.url, max_attempts=3, requeues=1))
    assert result.run.status == "infra_error" and result.run.end_reason == "infra:model_unavailable"
    assert "HTTP 429" in result.run.infra_error
    assert len(upstream.requests) == 2 * 3  # three attempts, then the run was requeued once
    assert result.run.model_retries == 2 and result.run.model_errors == 1


def test_a_503_then_a_429_with_retry_after_are_retried_and_the_run_passes(task):
    def flaky(body, n):
        if n == 0:
            return Reply(503, {"error": {"message": "loading model"}})
        if n == 1:
            return Reply(429, {"error": {"message": "slow down"}}, {"Retry-After": "0.05"})
        return solving(task)(body, n)

    with ScriptedUpstream(flaky) as upstream:
        (result,) = run([task], "openai:scripted-1", settings(upstream.url))
    assert result.run.passed and result.run.model_retries == 2


def test_an_unreachable_upstream_is_infra_model_unavailable(task):
    (result,) = run([task], "openai:x", settings("http://127.0.0.1:9/v1", max_attempts=2))
    assert result.run.status == "infra_error" and result.run.end_reason == "infra:model_unavailable"
    assert "could not be reached" in result.run.infra_error


@pytest.mark.parametrize("body, reason", [
    (b"<html>gateway</html>", "malformed answer: the answer is not JSON"),
    ({"object": "list", "data": []}, "malformed answer: the answer is not a chat completion"),
])
def test_an_answer_that_is_not_a_chat_completion_is_the_agents_failure_with_its_reason(task, body, reason):
    with ScriptedUpstream(lambda b, n: Reply(200, body)) as upstream:
        (result,) = run([task], "openai:scripted-1", settings(upstream.url))
    assert result.run.status == "failed" and result.run.end_reason == "agent_exit"
    assert reason in result.run.stderr_tail and "ExceptionGroup" not in result.run.stderr_tail
    assert result.run.model_errors == 1


def test_an_http_400_from_the_endpoint_is_the_agents_failure_and_says_so(task):
    with ScriptedUpstream(lambda b, n: Reply(400, {"error": {"message": "content must be a string"}})) as upstream:
        (result,) = run([task], "openai:scripted-1", settings(upstream.url))
    assert result.run.status == "failed"
    assert "chat endpoint answered HTTP 400: content must be a string" in result.run.stderr_tail


def test_malformed_tool_calls_are_steps_and_errors_and_an_unknown_name_is_a_hallucination(task):
    listed = task.available_tools[0]

    def answer(body, n):
        if n == 0:
            return streamed(calls=[(listed, '{"channel": "gen'), ("delete_everything", "[1, 2]"),
                                   ("invented_tool", "{}")])
        return streamed("done")

    with ScriptedUpstream(answer) as upstream:
        (result,) = run([task], "openai:scripted-1", settings(upstream.url))
    by_tool = {c.tool: c for c in result.calls}
    assert by_tool[listed].error_kind == "malformed_call" and by_tool[listed].listed
    assert "not valid JSON" in by_tool[listed].error_message
    assert by_tool["delete_everything"].error_kind == "malformed_call" and not by_tool["delete_everything"].listed
    assert "not an object" in by_tool["delete_everything"].error_message
    assert by_tool["invented_tool"].error_kind == "unlisted_tool"  # well-formed: the MCP gateway saw it
    assert result.run.tool_calls == 3 and result.run.errors_observed == 3
    fed_back = [m["content"] for m in upstream.requests[1]["messages"] if m["role"] == "tool"]
    assert sum(c.startswith("error: malformed tool call") for c in fed_back) == 2


def test_finish_reason_length_is_reported_as_the_agents_failure(task):
    with ScriptedUpstream(lambda b, n: streamed("I will now explain at gre", finish="length")) as upstream:
        (result,) = run([task], "openai:scripted-1", settings(upstream.url))
    assert result.run.status == "failed" and "finish_reason length" in result.run.stderr_tail


def test_a_model_that_never_stops_calling_tools_stops_when_the_step_budget_is_spent(task):
    tight = task.model_copy(update={"max_steps": 3})
    tool = task.available_tools[0]
    with ScriptedUpstream(lambda b, n: streamed(calls=[(tool, "{}")])) as upstream:
        (result,) = run([tight], "openai:scripted-1", settings(upstream.url))
    assert len(upstream.requests) == 3 and result.run.tool_calls == 3
    assert not result.run.over_budget and result.run.end_reason == "predicate_false"


def test_finish_reason_length_with_tool_calls_goes_on_and_is_noted_in_the_run_record(task):
    """Cut off mid-call: the cut-off call is malformed (in the trace), the loop goes on, and the run
    record's stderr says the answer was cut off, even though the run itself ends normally."""
    tool = task.available_tools[0]

    def answer(body, n):
        if n == 0:
            return streamed(calls=[(tool, "{}"), (tool, '{"chan')], finish="length")
        return streamed("done")

    with ScriptedUpstream(answer) as upstream:
        (result,) = run([task], "openai:scripted-1", settings(upstream.url))
    assert len(upstream.requests) == 2 and result.run.end_reason == "predicate_false"
    assert sum(c.error_kind == "malformed_call" for c in result.calls) == 1 and result.run.tool_calls == 2
    assert "turn 1: the model's answer was cut off by max_tokens (finish_reason length) after 2 tool call(s)" \
        in result.run.stderr_tail


def test_requests_past_the_runs_model_budget_are_refused_and_counted(task):
    """The loop stops where the gateway refuses it, as at the step budget: the run ends ``over_budget``
    (the budget stopped it), not ``agent_exit``, and its stderr says which budget."""
    tool = task.available_tools[0]
    with ScriptedUpstream(lambda b, n: streamed(calls=[(tool, "{}")], usage=(10, 1))) as upstream:
        (result,) = run([task], "openai:scripted-1", settings(upstream.url, max_requests=2))
    assert len(upstream.requests) == 2
    assert result.run.model_refused == 1 and result.run.over_budget
    assert result.run.status == "failed" and result.run.end_reason == "over_budget"
    assert result.run.exit_code == 0 and not result.run.agent_error
    assert "stopped: the run's model request budget (2 requests) is spent" in result.run.stderr_tail


def test_the_runs_token_budget_caps_each_requests_max_tokens_then_refuses(task):
    """MCPBENCH_MODEL_MAX_TOKENS=8000 with 100 + 10 tokens an answer and prompts of about 4.5 KB that grow
    each turn: the gateway holds each request's worst case (its bytes, the template's overhead and the
    completion it grants), so it grants the loop's 1024 while they fit, then less, then refuses the
    request whose prompt alone no longer fits: counted, over budget, well before 8000 tokens were
    billed."""
    tool = task.available_tools[0]
    roomy = task.model_copy(update={"max_steps": 50})
    with ScriptedUpstream(lambda b, n: streamed(calls=[(tool, "{}")], usage=(100, 10))) as upstream:
        (result,) = run([roomy], "openai:scripted-1", settings(upstream.url, max_tokens=8000))
    caps = [r["max_tokens"] for r in upstream.requests]
    assert caps[0] == 1024 and caps == sorted(caps, reverse=True) and caps[-1] < 1024
    assert (result.run.model_requests, result.run.model_refused) == (len(caps), 1)
    assert result.run.model_prompt_tokens + result.run.model_completion_tokens == 110 * len(caps)
    assert result.run.over_budget and result.run.end_reason == "over_budget"
    assert "the run's model token budget (8000 tokens) is spent" in result.run.stderr_tail


#: A run's deadline in the deadline tests: short, so they do not sit idle for most of their time (on an
#: idle machine the agent's first request reaches the model within 0.05 s); the longer one only when the
#: agent had not reached the model before the short one ran out (a loaded machine), which each test
#: checks rather than assumes.
DEADLINES_S = (1.0, 10.0)


def _run_to_the_deadline(task, answer, reached):
    """Run ``task`` against an upstream answering with ``answer`` under each of ``DEADLINES_S`` in turn,
    until ``reached(result, upstream)`` says the agent reached the model before the deadline (the last
    deadline's run is returned whatever it says): ``(result, upstream)``, the upstream no longer
    accepting (a request it is still answering goes on until the other end hangs up)."""
    for timeout in DEADLINES_S:
        with ScriptedUpstream(answer) as upstream:
            (result,) = run([task.model_copy(update={"timeout_s": timeout})], "openai:scripted-1",
                            settings(upstream.url))
            if reached(result, upstream) or timeout == DEADLINES_S[-1]:
                return result, upstream
    raise AssertionError("unreachable")


def test_a_stream_that_outlives_the_deadline_is_cancelled_upstream(task):
    chunk = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "la "}}]}
    result, upstream = _run_to_the_deadline(task, lambda b, n: Stream([chunk], delay=0.05, forever=True),
                                            lambda result, _: result.run.model_completion_tokens > 0)
    # the stream never ends on its own: only the gateway hanging up stops it
    assert upstream.disconnected.wait(10), "the upstream request was still being read after the run ended"
    assert result.run.timed_out and result.run.end_reason == "timeout"
    assert result.run.model_requests == 1 and result.run.model_completion_tokens > 0


def test_a_whole_answer_still_pending_at_the_deadline_is_dropped_and_metered(task, monkeypatch):
    monkeypatch.setenv("MCPBENCH_OPENAI_STREAM", "0")
    result, upstream = _run_to_the_deadline(task, lambda b, n: Reply(body=completion("late"), delay=20),
                                            lambda _, upstream: len(upstream.requests) == 1)
    assert result.run.timed_out and len(upstream.requests) == 1
    assert result.run.model_requests == 1 and result.run.model_prompt_tokens > 0 and result.run.model_tokens_estimated


def test_trials_run_each_task_k_times_on_fresh_backends_with_distinct_run_ids(task):
    with ScriptedUpstream(solving(task, usage=(5, 1))) as upstream:
        results = run([task], "openai:scripted-1", settings(upstream.url), trials=3)
    assert [r.run.trial for r in results] == [1, 2, 3]
    assert len({r.run.run_id for r in results}) == 3 and results[0].run.run_id == "model-test--" + task.id
    assert all(r.run.passed for r in results)  # each trial started from the task's initial state


def test_a_fan_out_of_model_runs_uses_the_processs_gateway_host_and_one_model_gateway(dev_tasks, monkeypatch, tmp_path):
    """``evaluate_task`` (what each flow task runs) serves a model agent's runs from the process's one gateway
    host and one model gateway for the operator's model settings, each run metered apart; a model that
    stays unavailable is requeued as ``evaluate`` requeues it, then lands as ``infra:model_unavailable``."""
    from mcpbench import _worker
    from mcpbench.agents.spec import parse_agent
    from mcpbench.evaluation import evaluate_task, make_submission
    from runstore.store import open_store

    tasks = [t for t in dev_tasks if t.category == "standard"][:3]

    def by_goal(body, n):
        goal = next(m["content"] for m in body["messages"] if m["role"] == "user")
        return solving(next(t for t in tasks if t.goal in goal), stream=False)(body, n)

    store = open_store(str(tmp_path / "store"))
    submission = make_submission(parse_agent("openai:scripted-1"), "dev", submission_id="fan-out", submitter="t")
    before = _worker.stats()
    monkeypatch.setenv("MCPBENCH_OPENAI_STREAM", "0")
    with ScriptedUpstream(by_goal) as upstream:
        monkeypatch.setenv("MCPBENCH_MODEL_UPSTREAM", upstream.url)
        outcomes = [evaluate_task(t.id, "openai:scripted-1", submission, store=store) for t in tasks]
    during = _worker.stats()
    assert [o.status for o in outcomes] == ["passed"] * 3, outcomes
    assert during["model_gateways"] - before["model_gateways"] == 1 and during["gateway_hosts"] == 1
    runs = {r["task_id"]: r for r in store.read_runs("fan-out").to_pylist()}
    assert [runs[t.id]["model_requests"] for t in tasks] == [len(t.reference_solution) + 1 for t in tasks]
    assert sum(runs[t.id]["model_requests"] for t in tasks) == len(upstream.requests)

    down = lambda body, n: Reply(503, {"error": {"message": "overloaded"}}, {"Retry-After": "0"})  # noqa: E731
    monkeypatch.setenv("MCPBENCH_MODEL_MAX_ATTEMPTS", "2")
    monkeypatch.setenv("MCPBENCH_MODEL_REQUEUES", "1")
    with ScriptedUpstream(down) as upstream:
        monkeypatch.setenv("MCPBENCH_MODEL_UPSTREAM", upstream.url)
        outcome = evaluate_task(tasks[0].id, "openai:scripted-1", submission, store=store)
    assert (outcome.status, outcome.end_reason) == ("infra_error", "infra:model_unavailable")
    assert len(upstream.requests) == 2 * 2  # two attempts, then the run was requeued once
    after = _worker.stats()
    assert after["model_gateways"] - during["model_gateways"] == 1 and after["gateway_hosts"] == 1
