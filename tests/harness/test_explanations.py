"""A run that did not pass says why: which clause of its predicate failed, what was expected and what
the final state held, and which entities broke the frame. Stored on the run record as JSON, printed in
``mcpbench run``'s "did not pass" lines and given per run by ``--json``; a private month keeps the
clause ids only, and none of the state's values."""

from __future__ import annotations

import json

from click.testing import CliRunner

from mcpbench.cli import main
from runstore.records import Explanation
from tests.harness.conftest import run

ARCHIVE = "slack-archive-resolved-incident"


def _task(dev_tasks, task_id=ARCHIVE):
    return next(t for t in dev_tasks if t.id == task_id)


def test_a_failed_run_stores_which_clause_failed_with_what_was_expected_and_what_the_state_held(dev_tasks):
    (result,) = run([_task(dev_tasks)], "noop")
    assert result.run.end_reason == "predicate_false"
    why = Explanation.model_validate_json(result.run.explanation)
    (clause, *_) = why.clauses
    assert clause.clause == "$.all[0]" and clause.primitive == "slack.channelArchived" and not clause.negated
    assert clause.args == {"channel": "CCQRN6M6BG"}
    assert clause.expected == "'CCQRN6M6BG' archived"
    assert clause.found == "#incident-2041 (CCQRN6M6BG) is not archived"
    assert why.frame == [] and why.clauses_omitted == 0


def test_a_passed_run_has_no_explanation_and_a_frame_break_is_named_entity_by_entity(dev_tasks):
    from tasks_catalog.schema import ToolCall
    from tests.harness.test_frame_judging import _archive_task

    damage = ToolCall(tool="set_channel_topic", arguments={"channel_id": "general", "topic": "gone"})
    passed, broke = run([_task(dev_tasks), _archive_task(dev_tasks, damage).model_copy(update={"id": "damage"})],
                        "oracle")
    assert passed.run.passed and passed.run.explanation is None
    assert broke.run.end_reason == "frame_violated"
    why = Explanation.model_validate_json(broke.run.explanation)
    assert why.clauses == []  # the predicate held: only the frame broke
    (brk,) = why.frame
    assert (brk.entity, brk.id, brk.change, brk.fields, brk.reason) == \
        ("slack.channel", "CVTHUCYDB3", "update", ["topic"], "outside the frame (nearest: frame[0], whose ids do not include it)")
    private = Explanation.model_validate_json(broke.run.explanation).ids_only()
    assert [(f.entity, f.change, f.count) for f in private.frame] == [("slack.channel", "update", 1)]


def test_a_private_months_explanation_keeps_clause_ids_and_no_value_of_the_state(dev_tasks):
    task = _task(dev_tasks)
    (public,) = run([task], "noop")
    (private,) = run([task], "noop", private=True)
    why = Explanation.model_validate_json(private.run.explanation)
    assert why.is_ids_only() and [c.clause for c in why.clauses] == ["$.all[0]"]
    assert json.loads(private.run.explanation) == {"clauses": [{"clause": "$.all[0]"}], "clauses_omitted": 0,
                                                   "frame": [], "frame_omitted": 0}
    shown = Explanation.model_validate_json(public.run.explanation).clauses[0]
    for value in ("CCQRN6M6BG", "incident-2041", "slack.channelArchived", shown.found, shown.expected):
        assert value not in private.run.explanation


def test_the_did_not_pass_lines_and_json_name_the_failing_clause(tmp_path):
    store = str(tmp_path / "store")
    out = CliRunner().invoke(main, ["run", "--agent", "noop", "--tasks", ARCHIVE, "--store", store, "--json"])
    assert out.exit_code == 0, out.output
    card = json.loads(out.stdout)
    (only,) = card["runs"]
    assert (only["task_id"], only["status"], only["end_reason"]) == (ARCHIVE, "failed", "predicate_false")
    assert only["explanation"]["clauses"][0]["clause"] == "$.all[0]"
    assert only["explanation"]["clauses"][0]["found"] == "#incident-2041 (CCQRN6M6BG) is not archived"
    assert only["calls"] == []  # noop made none
    lines = out.stderr.splitlines()
    at = lines.index(f"  {ARCHIVE}: predicate_false | exit 0")
    assert lines[at + 1] == "      $.all[0] slack.channelArchived: expected 'CCQRN6M6BG' archived"
    assert lines[at + 2] == "          found: #incident-2041 (CCQRN6M6BG) is not archived"
    assert lines[at + 3] == "      calls: none"


def test_a_failing_run_names_the_calls_that_led_there_with_what_they_were_answered(dev_tasks, tmp_path):
    """From a failing run to its failing clause and the call that caused it, without SQL: the random
    agent calls tools (some unlisted) and fails; its lines name the calls, --json gives them whole."""
    from mcpbench.commands.run import calls_lines, run_json

    (result,) = run([_task(dev_tasks)], "random")
    assert not result.run.passed and result.calls
    (line,) = calls_lines(result.calls)
    last = result.calls[-1]
    assert line.startswith(f"calls: {len(result.calls)}; last #{last.seq} {last.tool} ")
    errors = [c for c in result.calls if c.is_error]
    assert errors and f"errors: #{errors[0].seq} {errors[0].tool} {errors[0].error_kind}" in line
    shown = run_json(result.run, result.calls)["calls"]
    assert [c["seq"] for c in shown] == [c.seq for c in result.calls]
    assert all(c["result"] is not None for c in shown)  # what each was answered
