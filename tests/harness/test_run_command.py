"""``mcpbench run`` for an agent builder: ``--tasks`` takes lists and patterns (an entry that selects
nothing is an error before anything runs), ``--label`` names the agent and its version on every record
and the score card, and progress lines are printed when stderr is not a terminal."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from mcpbench.cli import main
from mcpbench.progress import ProgressLines
from mcpbench.splits import load_split, task_selection
from tasks_catalog.loader import DEV_DIR, load_valid_tasks


def _run(tmp_path, *args):
    return CliRunner().invoke(main, ["run", "--agent", "noop", "--store", str(tmp_path / "store"), *args])


def _landed(tmp_path):
    return [row for path in sorted((tmp_path / "store" / "runs").rglob("*.parquet"))
            for row in pq.read_table(path).to_pylist()]


def test_tasks_takes_comma_lists_and_patterns_and_runs_exactly_those(tmp_path):
    out = _run(tmp_path, "--tasks", "slack-a*,fs-set-log-level", "--tasks", "github-*-issue", "--json")
    assert out.exit_code == 0, out.output
    dev = sorted(t.id for t in load_valid_tasks([DEV_DIR]))
    expected = [i for i in dev if i.startswith("slack-a") or i == "fs-set-log-level"
                or (i.startswith("github-") and i.endswith("-issue"))]
    ran = sorted(r["task_id"] for r in json.loads(out.stdout)["runs"])
    assert ran == expected == ["fs-set-log-level", "github-close-duplicate-issue", "slack-announce-release",
                               "slack-archive-resolved-incident"]


def test_a_pattern_or_id_that_selects_no_task_is_named_and_nothing_runs(tmp_path):
    out = _run(tmp_path, "--tasks", "slack-*,nope-*", "--tasks", "no-such-task")
    assert out.exit_code == 1
    assert "no task of split dev matches pattern 'nope-*'" in out.output
    assert not (tmp_path / "store" / "runs").exists()
    out = _run(tmp_path, "--tasks", "slack-*,,x")
    assert out.exit_code == 2 and "has an empty entry" in out.output


def test_task_selection_splits_lists_and_drops_repeats():
    assert task_selection(("a,b", "b", " c ")) == ["a", "b", "c"]
    assert task_selection(()) is None
    with pytest.raises(ValueError, match="empty entry"):
        task_selection(("a,",))
    assert [t.id for t in load_split("dev", task_ids=["pg-*-1042"])] == ["pg-ship-order-1042"]


def test_the_label_is_stored_on_every_run_and_shown_on_the_score_card(tmp_path):
    out = _run(tmp_path, "--tasks", "slack-archive-resolved-incident,fs-set-log-level", "--label", "my-agent@1.2")
    assert out.exit_code == 0, out.output
    assert {r["label"] for r in _landed(tmp_path)} == {"my-agent@1.2"}
    assert out.stdout.splitlines()[0].endswith(": my-agent@1.2 (noop), submitter " +
                                               out.stdout.splitlines()[0].split("submitter ")[1])
    assert "my-agent@1.2 (noop)" in out.stdout
    card = json.loads(_run(tmp_path, "--tasks", "fs-set-log-level", "--label", "my-agent@1.3", "--json").stdout)
    assert card["label"] == "my-agent@1.3"


def test_two_submissions_started_in_the_same_second_never_share_an_id():
    """The default id carries the second it started for a reader; two evaluations started within it (the
    second run of the test above, a scheduler firing twice) must not land their runs under one id."""
    from mcpbench.agents.spec import parse_agent
    from mcpbench.evaluation import make_submission

    ids = {make_submission(parse_agent("noop"), "dev").submission_id for _ in range(50)}
    assert len(ids) == 50 and all(i.startswith("local-noop-") for i in ids)


@pytest.mark.parametrize("label", ["", "-x", "a\nb", "x" * 101, "mine;rm"])
def test_a_label_that_is_not_one_is_refused_naming_the_option(tmp_path, label):
    out = _run(tmp_path, "--tasks", "fs-set-log-level", "--label", label)
    assert out.exit_code == 2 and "--label" in out.output and "not a valid agent label" in out.output
    assert not (tmp_path / "store").exists()


def test_progress_lines_are_printed_when_stderr_is_not_a_terminal(tmp_path):
    out = _run(tmp_path, "--tasks", "slack-*")
    assert out.exit_code == 0, out.output
    lines = out.stderr.splitlines()
    assert lines[0].startswith("running 4 runs of noop on dev (submission local-noop-")
    progress = [line for line in lines if line.startswith("progress: ")]
    assert progress[-1].startswith("progress: 4/4 runs done (4 failed), ")


def test_progress_lines_come_every_tenth_of_the_work_and_while_nothing_finishes():
    now = [0.0]
    lines: list[str] = []
    progress = ProgressLines(40, "runs", write=lines.append, every_s=15, clock=lambda: now[0])
    progress.say("starting")
    for _ in range(3):
        progress.advance("passed")
    assert lines == ["starting [0 s]"]  # a line per 4 runs (a tenth of 40)
    progress.advance("failed")
    assert lines[-1] == "progress: 4/40 runs done (3 passed, 1 failed), 0 s"
    now[0] = 14.0
    progress.tick()
    assert len(lines) == 2
    now[0] = 15.0
    progress.tick()
    assert lines[-1] == "still working: 4/40 runs done (3 passed, 1 failed), 15 s"
    now[0] = 31.0
    progress.advance("passed")  # not a tenth, but the last line is 16 s old
    assert lines[-1] == "progress: 5/40 runs done (4 passed, 1 failed), 31 s"
