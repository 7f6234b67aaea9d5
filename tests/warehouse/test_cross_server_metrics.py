"""Cross-server runs in the warehouse: their run-level metrics form a 'cross-server' row of their own,
each of their calls counts in the row of the server it went to, every run and call is counted once in
the totals, and the score card, the leaderboards and the report show the cross-server row."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from runstore.records import CallRecord, RunRecord
from tests.warehouse.conftest import make_calls, make_run
from warehouse.build import build, connect
from warehouse.scorecard import format_scorecard, scorecard

CROSS = "cross-server"


def calls_of(run: RunRecord, spec: list[tuple[str, str, bool, bool]]) -> list[CallRecord]:
    """Calls of ``run`` from ``(server, tool, listed, is_error)``, in order (``make_calls``'s, redacted as
    the gateway redacts them on a private month, each at its server)."""
    calls = make_calls(run, [(tool, listed, is_error) for _, tool, listed, is_error in spec])
    return [call.model_copy(update={"server": server}) for call, (server, *_) in zip(calls, spec)]


def cross_run(run_id: str, *, status: str = "passed", **fields) -> RunRecord:
    return make_run(run_id, status=status, server=CROSS, servers=["linear", "slack"], task_id=fields.pop("task_id", "x-1"),
                    **fields)


@pytest.fixture
def landed(store):
    """One submission: two single-server slack runs, two cross-server (linear + slack) runs, one
    cross-server run over github and linear; and another submission with single-server runs only."""
    runs = [
        (make_run("s1", tool_calls=2), [("slack", "post_message", True, False), ("slack", "nope", False, True)]),
        (make_run("s2", status="failed", task_id="slack-002", tool_calls=1), [("slack", "list_channels", True, False)]),
        (cross_run("x1", tool_calls=3), [("linear", "get_issue", True, False), ("slack", "post_message", True, False),
                                         ("slack", "slack__delete_everything", False, True)]),
        (cross_run("x2", status="failed", task_id="x-2", tool_calls=2),
         [("linear", "update_issue", True, False), (CROSS, "delete_everything", False, True)]),
        (make_run("x3", server=CROSS, servers=["github", "linear"], task_id="x-3", tool_calls=2),
         [("github", "update_issue", True, False), ("linear", "update_issue", True, False)]),
        (make_run("o1", submission_id="sub-b", tool_calls=1), [("slack", "post_message", True, False)]),
    ]
    for run, spec in runs:
        store.land_run(run, calls_of(run, spec))
    return store


def _rows(con, sql, params=()):
    cur = con.execute(sql, list(params))
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row)) for row in cur.fetchall()]


def test_cross_server_runs_have_a_row_of_their_own_and_each_call_counts_where_it_went(landed):
    con = connect(landed)
    rows = {r["server"]: r for r in _rows(con, "select * from metrics_by_submission_server where submission_id = 'sub-a'")}
    assert set(rows) == {"slack", "linear", "github", CROSS}
    assert (rows[CROSS]["runs"], rows[CROSS]["attempted"], rows[CROSS]["passed"]) == (3, 3, 2)
    assert (rows["slack"]["runs"], rows["slack"]["passed"]) == (2, 1)
    # calls: slack's own runs' 3, plus x1's two slack calls; linear's and github's come from cross-server runs only
    assert (rows["slack"]["calls"], rows["slack"]["unlisted_calls"]) == (5, 2)
    assert (rows["linear"]["calls"], rows["linear"]["unlisted_calls"], rows["linear"]["attempted"]) == (3, 0, 0)
    assert rows["linear"]["success_rate"] is None and rows["linear"]["hallucination_rate"] == 0
    assert (rows["github"]["calls"], rows["github"]["runs"]) == (1, 0)
    # a call that named no server of its task counts in the cross-server row
    assert (rows[CROSS]["calls"], rows[CROSS]["unlisted_calls"]) == (1, 1)
    assert rows[CROSS]["success_rate"] == pytest.approx(2 / 3)
    total = _rows(con, "select * from metrics_by_submission where submission_id = 'sub-a'")[0]
    assert (total["runs"], total["attempted"], total["passed"], total["calls"], total["unlisted_calls"]) == (5, 5, 3, 10, 3)
    assert total["servers"] == 3  # slack, linear, github: the cross-server row is not a server
    con.close()


def test_run_facts_count_every_call_of_a_cross_server_run_and_keep_its_servers(landed):
    con = connect(landed)
    facts = {r["run_id"]: r for r in _rows(con, "select run_id, server, servers, calls, unlisted_calls from run_facts")}
    assert (facts["x1"]["server"], facts["x1"]["servers"], facts["x1"]["calls"], facts["x1"]["unlisted_calls"]) == \
        (CROSS, ["linear", "slack"], 3, 1)
    assert facts["s1"]["servers"] == ["slack"]  # a single-server record names its one server
    con.close()


def test_the_score_card_shows_the_cross_server_row_last(landed):
    card = scorecard("sub-a", store=landed)
    assert list(card["by_server"]) == ["github", "linear", "slack", CROSS]
    assert card["by_server"][CROSS]["attempted"] == 3 and card["by_server"][CROSS]["passed"] == 2
    assert card["by_server"]["github"]["attempted"] == 0 and card["by_server"]["github"]["success_rate"] is None
    assert list(card["trials"]["by_server"]) == ["slack", CROSS]  # trials are per task: tasks of a row
    text = format_scorecard(card)
    lines = text.splitlines()
    cross_line = next(i for i, line in enumerate(lines) if line.startswith(CROSS))
    assert lines[cross_line + 1].startswith("overall")
    assert "66.7%" in lines[cross_line]


MONTH = ["slack-001", "x-1", "x-2"]


@pytest.fixture
def month(store):
    """A private month of a slack task and two cross-server tasks (its list published): sub-a ran all
    three (the cross-server ones 1 of 2 passed), sub-b only the slack one's runs (and all three tasks)."""
    store.put_bytes("public/attestations/2026-05.json", json.dumps(
        {"month": "2026-05", "tasks": [{"task_id": t, "sha256": "0" * 64} for t in MONTH]}).encode())
    store.land_run(make_run("a-s", submission_id="sub-a", task_id="slack-001"), [])
    store.land_run(cross_run("a-x", submission_id="sub-a", task_id="x-1"), [])
    store.land_run(cross_run("a-y", submission_id="sub-a", task_id="x-2", status="failed"), [])
    for task in MONTH:
        store.land_run(make_run(f"b-{task}", submission_id="sub-b", agent="agent-b", task_id=task), [])
    return store


def test_the_leaderboards_carry_each_submissions_cross_server_success(month):
    con = connect(month)
    board = {r["submission_id"]: r for r in _rows(con, "select * from leaderboard_contemporary")}
    assert board["sub-a"]["rank"] is not None and board["sub-a"]["cross_server_attempted"] == 2
    assert board["sub-a"]["cross_server_success_rate"] == pytest.approx(0.5)
    assert board["sub-a"]["cross_server_success_rate_ci_low"] < 0.5 < board["sub-a"]["cross_server_success_rate_ci_high"]
    assert board["sub-b"]["cross_server_attempted"] is None and board["sub-b"]["cross_server_success_rate"] is None
    con.close()


def test_the_report_shows_the_cross_server_column_and_row(month):
    from warehouse.report import render_html

    con = connect(month)
    page = render_html(con)
    con.close()
    board = page[page.index("<h2>Contemporary"):page.index("<h2>Per server")]
    assert "cross server success rate 95ci" in board and "50.0% [" in board
    per_server = page[page.index("<h2>Per server"):page.index("<h2>Anomaly")]
    assert per_server.index(">slack<") < per_server.index(">cross-server<")  # the cross-server row last


def test_a_build_with_cross_server_runs_passes_the_quality_suites(landed, tmp_path):
    result = build(landed, tmp_path / "w.duckdb")
    assert result.checked and result.runs == 6


def test_a_run_landed_before_servers_was_kept_stages_with_its_one_server(store, tmp_path):
    from runstore.records import RUN_SCHEMA

    run = make_run("old")
    store.land_run(run, [])
    # rewrite the landed file as an older harness wrote it: without the servers column
    (path,) = [p for p in (store.path / "runs").rglob("*.parquet") if "_schema" not in p.name and "old" in p.name]
    table = pq.read_table(path)
    pq.write_table(table.drop_columns(["servers"]), path)
    assert "servers" in RUN_SCHEMA.names and "servers" not in pq.read_schema(path).names
    con = connect(store)
    assert _rows(con, "select servers from stg_runs where run_id = 'old'") == [{"servers": ["slack"]}]
    con.close()
    assert isinstance(table.schema.field("servers").type, pa.ListType)

