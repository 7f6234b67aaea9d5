"""A run's page from its records: model turns among the calls where they came, on the right page of a
paged run, and each failing clause with the calls whose arguments name what it is about."""

from __future__ import annotations

import re
from datetime import timedelta

from mcpbench.viewer.data import Trace
from mcpbench.viewer.pages import Links, run_page
from runstore.records import Explanation, FailedClause, TurnRecord
from runstore.store import open_store
from tests.warehouse.conftest import make_calls, make_run, ok


def _turn(run, seq: int, calls_before: int) -> TurnRecord:
    return TurnRecord(run_id=run.run_id, submission_id=run.submission_id, task_id=run.task_id, seq=seq,
                      ts=run.started_at + timedelta(milliseconds=100 * calls_before + 50), calls_before=calls_before,
                      model="m-1", status="ok", finish_reason="tool_calls", prompt_tokens=100 * seq,
                      completion_tokens=10, tokens_estimated=False, latency_ms=50.0, tool_calls=1,
                      text=f"thinking, turn {seq}", text_truncated=False, text_cap=16384)


def _order(html: str) -> list[str]:
    """The transcript as it reads: ``#n`` for a call, ``turn n`` for a model turn."""
    return [f"#{m[1]}" if m[1] else f"turn {m[2]}"
            for m in re.finditer(r'class="call[^"]*" id="call-(\d+)"|<b>model turn (\d+)</b>', html)]


def test_model_turns_sit_among_the_calls_and_on_the_right_page(tmp_path):
    store = open_store(str(tmp_path / "store"))
    run = make_run("sub-t--r", submission_id="sub-t", split="dev", month="2026-05", tool_calls=5, status="failed")
    # turns before any call, after call 2, after call 3 (the page break), and after the last call
    store.land_run(run, make_calls(run, [ok()] * 5), [_turn(run, 1, 0), _turn(run, 2, 2), _turn(run, 3, 3),
                                                        _turn(run, 4, 5)])
    whole = Trace(open_store(str(tmp_path / "store"), usage="read"))
    html = run_page(whole.run_page("sub-t--r"), Links(), where="", page_of=whole.page_of)
    assert _order(html) == ["turn 1", "#1", "#2", "turn 2", "#3", "turn 3", "#4", "#5", "turn 4"]
    assert "300 + 10 tokens" in html and "thinking, turn 3" in html
    paged = Trace(open_store(str(tmp_path / "store"), usage="read"), page_calls=3)
    pages = [_order(run_page(paged.run_page("sub-t--r", n), Links(), where="", page_of=paged.page_of))
             for n in (1, 2)]
    assert pages == [["turn 1", "#1", "#2", "turn 2", "#3"], ["turn 3", "#4", "#5", "turn 4"]]


def test_a_failing_clause_lists_the_calls_about_what_it_names(tmp_path):
    store = open_store(str(tmp_path / "store"))
    explanation = Explanation(clauses=[
        FailedClause(clause="$.all[0]", primitive="slack.messagePosted", args={"channel": "C05INC", "pattern": "fixed"},
                     expected="a message in 'C05INC' matching /fixed/", found="0 of 4 messages match"),
        FailedClause(clause="$.all[1]", primitive="slack.channelArchived", args={"channel": "C09OLD"},
                     expected="'C09OLD' archived", found="#old (C09OLD) is not archived")])
    run = make_run("sub-c--r", submission_id="sub-c", split="dev", month="2026-05", tool_calls=3, status="failed",
                   explanation=explanation.to_json())
    calls = make_calls(run, [ok("list_channels"), ok("post_message"), ok("post_message")])
    calls[1] = calls[1].model_copy(update={"arguments_json": '{"channel": "C05INC", "text": "looking"}'})
    calls[2] = calls[2].model_copy(update={"arguments_json": '{"channel": "C01GEN", "text": "fixed"}'})
    store.land_run(run, calls)
    trace = Trace(open_store(str(tmp_path / "store"), usage="read"))
    page = trace.run_page("sub-c--r")
    assert [c["seq"] for c in page.touching["$.all[0]"]] == [2, 3]  # the channel, and the pattern's text
    assert page.touching["$.all[1]"] == []
    html = run_page(page, Links(), where="", page_of=trace.page_of)
    assert '<a href="/run/sub-c--r#call-2">#2 post_message</a>' in html
    assert "no call's arguments name what this clause is about" in html


def test_runs_that_land_while_the_viewer_runs_are_shown_at_the_next_request(tmp_path):
    import threading
    import urllib.request

    from mcpbench.viewer.server import make_server

    store = open_store(str(tmp_path / "store"))
    first = make_run("sub-early--r", submission_id="sub-early", split="dev", month="2026-05")
    store.land_run(first, [])
    trace = Trace(open_store(str(tmp_path / "store"), usage="read"))
    server = make_server(trace)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/"

        def index() -> str:
            with urllib.request.urlopen(base, timeout=30) as answer:
                return answer.read().decode()

        assert "sub-early" in index() and "sub-late" not in index()
        late = make_run("sub-late--r", submission_id="sub-late", split="dev", month="2026-05")
        store.land_run(late, make_calls(late, [ok()]))
        assert "sub-late" in index()
        with urllib.request.urlopen(base + "run/sub-late--r", timeout=30) as answer:
            assert 'id="call-1"' in answer.read().decode()
    finally:
        server.shutdown()
        server.server_close()
        trace.close()
