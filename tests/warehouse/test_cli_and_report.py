"""The warehouse commands and the HTML report, through the real CLI."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from mcpbench.cli import main
from tests.warehouse.conftest import err, make_run, ok, unlisted
from warehouse.scorecard import METRICS, scorecard

COMMANDS = [["warehouse"], ["warehouse", "build"], ["warehouse", "query"], ["leaderboard"], ["report"]]


@pytest.fixture
def cli(store, tmp_path, monkeypatch):
    monkeypatch.setenv("MCPBENCH_STORE", store.root)
    monkeypatch.setenv("MCPBENCH_WAREHOUSE", str(tmp_path / "warehouse.duckdb"))
    runner = CliRunner()

    def invoke(*args: str):
        result = runner.invoke(main, list(args), catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.output

    return invoke


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_warehouse_command_has_help_with_an_example(command):
    result = CliRunner().invoke(main, [*command, "--help"])
    assert result.exit_code == 0 and "Example" in result.output


def test_query_returns_the_same_metrics_as_the_score_card(cli, store, land):
    land(make_run("r1", server="slack", tool_calls=2, category="recovery"), [err(), ok()])
    land(make_run("r2", server="github", status="failed"), [unlisted("gh_push")])
    rows = json.loads(cli("warehouse", "query", "--json", "select * from metrics_by_submission"))
    assert len(rows) == 1
    card = scorecard("sub-a", store=store)
    assert {k: rows[0][k] for k in METRICS} == card["overall"]
    assert "sub-a" in cli("warehouse", "query", "select submission_id, success_rate from metrics_by_submission")


def test_leaderboard_lists_private_submissions_and_not_the_dev_set(cli, land):
    land(make_run("r1", submission_id="sub-month"), [ok()])
    land(make_run("r2", submission_id="sub-dev", split="dev"), [ok()])
    rows = json.loads(cli("leaderboard", "--json"))
    assert [r["submission_id"] for r in rows] == ["sub-month"]


def test_the_report_is_a_static_page_with_the_leaderboard_charts_and_flags(cli, land, tmp_path):
    land(make_run("r1", submission_id="sub-month", agent="clever-agent", server="slack"), [ok()])
    land(make_run("r2", submission_id="sub-month", agent="clever-agent", server="github", status="failed"),
         [ok("merge_pr")])
    out = tmp_path / "report.html"
    cli("report", "--html", str(out))
    page = out.read_text()
    assert "<h2>Contemporary: 2026-05</h2>" in page
    assert "<th>collateral damage</th>" in page  # with the other four metrics
    assert "clever-agent" in page and "sub-month" in page
    assert page.count("<svg") == 3 and "Success rate by server" in page and "github" in page  # and by month
    assert "Anomaly flags" in page and "No submission flagged." in page
    assert "<script" not in page and "http://" not in page.replace("http://www.w3.org/2000/svg", "")


def test_a_failed_quality_check_makes_build_exit_with_the_report(store, land, tmp_path, monkeypatch):
    land(make_run("r1", tool_calls=-5))
    monkeypatch.setenv("MCPBENCH_STORE", store.root)
    result = CliRunner().invoke(main, ["warehouse", "build", "--db", str(tmp_path / "w.duckdb")])
    assert result.exit_code == 1
    assert "scoring stopped, the data is kept" in result.output and "tool_calls" in result.output


def test_query_sees_runs_landed_after_the_warehouse_was_built(cli, land):
    land(make_run("r1", submission_id="sub-first"), [ok()])
    assert json.loads(cli("warehouse", "query", "--json", "select count(*) as n from run_facts")) == [{"n": 1}]
    land(make_run("r2", submission_id="sub-second"), [ok()])
    assert json.loads(cli("warehouse", "query", "--json", "select count(*) as n from run_facts")) == [{"n": 2}]


def test_query_printed_to_a_pipe_keeps_every_column_whole(cli, land):
    land(make_run("r1", submission_id="sub-with-a-rather-long-identifier", agent="an-agent-with-a-long-name"), [ok()])
    out = cli("warehouse", "query", "select * from run_facts")
    header, *rows = [line for line in out.splitlines() if line.strip()]
    assert max(len(line) for line in out.splitlines()) > 200, "squeezed to a terminal's width"
    for column in ("submission_id", "steps_used_ratio", "observed_error", "started_at"):
        assert column in header
    assert any("sub-with-a-rather-long-identifier" in row and "an-agent-with-a-long-name" in row for row in rows)


def _labelled(land, run_id, submission_id, label, **fields):
    return land(make_run(run_id, submission_id=submission_id, label=label, **fields), [ok()])


def test_leaderboard_is_compact_in_percent_by_default_and_wide_on_request(cli, land):
    _labelled(land, "r1", "sub-a", "my-agent@1.2", agent="command:python agent.py")
    land(make_run("r2", submission_id="sub-b", status="failed", agent="command:python agent.py"), [ok()])
    out = cli("leaderboard")
    header, first, second = [[c.strip() for c in line.replace("┃", "│").split("│")]
                             for line in out.splitlines() if line.strip() and "━" not in line][:3]
    assert header == ["rank", "submission", "agent", "success (95% CI)", "efficiency", "hallucination", "collateral",
                      "coverage", "note"]
    assert first == ["1", "sub-a", "my-agent@1.2 (command:python agent.py)", "100.0% [20.7-100.0]", "10.0%", "0.0%",
                     "0.0%", "1/1", "not separable"]
    assert second[:4] == ["2", "sub-b", "command:python agent.py", "0.0% [0.0-79.3]"] and second[-1] == ""
    assert max(len(line) for line in out.splitlines()) < 160  # was about 600 with every column
    wide = cli("leaderboard", "--wide")
    assert "pass_hat_k_ci_low" in wide and "tokens_per_run" in wide and "label" in wide
    assert "my-agent@1.2" in wide and " 0.207" not in wide and "20.7%" in wide
    rows = json.loads(cli("leaderboard", "--json"))
    assert rows[0]["label"] == "my-agent@1.2" and rows[0]["success_rate"] == 1.0 and rows[1]["label"] is None


def test_data_is_printed_as_it_is_never_read_as_markup(cli, land):
    land(make_run("r1", submission_id="sub-a", agent="[bold]agent[/bold]"), [unlisted("post_messages")])
    out = cli("warehouse", "query", "select goal, tool, agent from stg_runs join stg_calls using (run_id)")
    assert "[redacted]" in out and "[unlisted]" in out and "[bold]agent[/bold]" in out
    assert "[bold]agent[/bold]" in cli("leaderboard") and "[bold]agent[/bold]" in cli("leaderboard", "--wide")


def test_the_score_card_and_the_report_show_the_label(cli, land, store, tmp_path):
    from warehouse.scorecard import format_scorecard, scorecard

    _labelled(land, "r1", "sub-month", "clever@2.0", agent="clever-agent")
    card = scorecard("sub-month", store=store)
    assert card["label"] == "clever@2.0"
    assert format_scorecard(card).splitlines()[0] == \
        "submission sub-month: clever@2.0 (clever-agent), submitter alice, split 2026-05"
    out = tmp_path / "report.html"
    cli("report", "--html", str(out))
    assert "clever@2.0 (clever-agent)" in out.read_text()
