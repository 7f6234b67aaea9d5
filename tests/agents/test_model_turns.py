"""The model's turns go beside the calls: every request the model gateway metered for a run is a turn
record (when, after how many MCP calls, tokens, latency, how it ended, the model's text capped), landed
with the run and read by the warehouse (``stg_turns``); a private month keeps none of the text."""

from __future__ import annotations

import json

import anyio

from mcpbench.agents.spec import parse_agent
from mcpbench.runner import Submission, run_tasks
from runstore.records import TURN_TEXT_KEPT
from runstore.store import open_store
from tests.agents.conftest import run, settings
from tests.agents.upstream import Reply, ScriptedUpstream, completion, streamed


def narrating(task, *, say: str = "Next I call {tool}."):
    """An upstream that replays ``task``'s reference solution one call a turn, saying what it does, then
    answers "All done."."""
    def answer(body, n):
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        if turn < len(task.reference_solution):
            call = task.reference_solution[turn]
            return streamed(say.format(tool=call.tool), calls=[(call.tool, json.dumps(call.arguments))],
                            usage=(100 + turn, 7))
        return Reply(body=completion("All done.", usage=(200, 3)))
    return answer


def test_every_model_request_is_a_turn_placed_among_the_calls_it_led_to(task):
    with ScriptedUpstream(narrating(task)) as upstream:
        (result,) = run([task], "openai:scripted-1", settings(upstream.url))
    assert result.run.passed
    n = len(task.reference_solution)
    turns = result.turns
    assert [t.seq for t in turns] == list(range(1, n + 2)) == [i + 1 for i in range(len(upstream.requests))]
    # turn k asked after the k-1 calls the earlier turns led to: a viewer interleaves them by calls_before
    assert [t.calls_before for t in turns] == list(range(n + 1)) and len(result.calls) == n
    assert [t.text for t in turns] == [f"Next I call {c.tool}." for c in task.reference_solution] + ["All done."]
    assert [t.tool_calls for t in turns] == [1] * n + [0]
    assert [t.finish_reason for t in turns] == ["tool_calls"] * n + ["stop"]
    assert all(t.status == "ok" and t.model == "scripted-1" and t.latency_ms > 0 for t in turns)
    assert [(t.prompt_tokens, t.completion_tokens) for t in turns] == [(100 + i, 7) for i in range(n)] + [(200, 3)]
    assert sum(t.prompt_tokens + t.completion_tokens for t in turns) == \
        result.run.model_prompt_tokens + result.run.model_completion_tokens
    assert all(t.run_id == result.run.run_id and t.text_cap == TURN_TEXT_KEPT and t.text_truncated is False
               for t in turns)
    assert all(a.ts <= b.ts for a, b in zip(turns, turns[1:]))


def test_a_long_answer_is_cut_at_the_cap_and_a_refused_request_is_a_turn_too(task):
    long = "x" * (TURN_TEXT_KEPT + 10)
    tool = task.available_tools[0]
    with ScriptedUpstream(lambda b, n: streamed(long, calls=[(tool, "{}")], usage=(10, 1))) as upstream:
        (result,) = run([task], "openai:scripted-1", settings(upstream.url, max_requests=2))
    assert len(upstream.requests) == 2
    first, second, refused = result.turns
    assert first.text == "x" * TURN_TEXT_KEPT and first.text_truncated is True
    assert refused.status == "refused" and (refused.prompt_tokens, refused.completion_tokens) == (0, 0)
    assert refused.calls_before == 2 and refused.latency_ms == 0.0


def test_turns_land_beside_the_run_and_the_warehouse_reads_them(task, tmp_path):
    from warehouse.build import connect

    store = open_store(str(tmp_path / "store"))
    with ScriptedUpstream(narrating(task)) as upstream:
        (result,) = run([task], "openai:scripted-1", settings(upstream.url),
                        landed=_Lander(store))
    key = f"turns/month=2026-12/submission=model-test/{result.run.run_id}.parquet"
    assert store.exists(key)
    assert store.read_turns("model-test").num_rows == len(result.turns)
    with connect(store) as con:
        rows = con.execute("select seq, calls_before, text from stg_turns order by seq").fetchall()
        interleaved = con.execute("""
            select kind, n from (
                select 'turn' as kind, seq as n, calls_before + 0.5 as place from stg_turns
                union all select 'call', seq, seq from stg_calls)
            order by place""").fetchall()
    assert [r[0] for r in rows] == [t.seq for t in result.turns] and rows[-1][2] == "All done."
    kinds = [k for k, _ in interleaved]
    assert kinds == ["turn", "call"] * len(task.reference_solution) + ["turn"]


def test_a_private_months_turns_keep_counts_and_no_text(task):
    agent = parse_agent("openai:scripted-1")
    sub = Submission("model-private", "tester", agent.name, "2026-11", "2026-11", private=True)
    with ScriptedUpstream(narrating(task, say="Refunding ch_3QpX for {tool}")) as upstream:
        async def go():
            with anyio.fail_after(300):
                return await run_tasks([task], agent, sandbox=None, submission=sub,
                                       model_settings=settings(upstream.url))
        (result,) = anyio.run(go)
    assert result.turns and all(t.text is None and t.text_truncated is None and t.text_cap is None
                                for t in result.turns)
    assert [t.calls_before for t in result.turns] == list(range(len(result.turns)))
    assert all(t.prompt_tokens > 0 for t in result.turns)


class _Lander(list):
    """``landed`` for ``run``: lands each result in ``store`` as ``evaluate`` does."""

    def __init__(self, store) -> None:
        super().__init__()
        self.store = store

    def append(self, result) -> None:
        self.store.land_run(result.run, result.calls, result.turns)
        super().append(result)
