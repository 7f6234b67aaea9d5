"""``mcpbench author``: the authoring tools behind one command group edit an author's files as they say
(a drafted frame, a collateral wrong solution, guards rewritten by id) and leave the rest as written."""

from __future__ import annotations

import json
import re
from pathlib import Path

import anyio
from click.testing import CliRunner

from mcpbench.cli import main
from tasks_catalog.authoring.propose import draft
from tasks_catalog.loader import load_task_file
from tasks_catalog.replay import apply_calls

INLINE = Path(__file__).resolve().parent / "inline_tasks"


def author(*args: str):
    return CliRunner().invoke(main, ["author", *args])


def test_propose_writes_the_drafted_frame_into_a_task_file_that_has_none(tmp_path):
    task, _ = load_task_file(INLINE / "fs-set-log-level.json")
    doc = json.loads((INLINE / "fs-set-log-level.json").read_text(encoding="utf-8"))
    del doc["frame"]
    f = tmp_path / "new-task.json"
    f.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")

    result = author("propose", str(f), "--write")
    assert result.exit_code == 0, result.output
    assert f"wrote the frame into {f}" in result.stderr
    _, errors = load_task_file(f)
    assert errors == []
    now = json.loads(f.read_text(encoding="utf-8"))
    assert now["frame"] == draft(task) == json.loads(result.stdout)[task.id]["frame"]
    assert {k: v for k, v in now.items() if k != "frame"} == doc

    before = f.read_text(encoding="utf-8")
    again = author("propose", str(f), "--write")
    assert again.exit_code == 0 and "wrote the frame" not in again.output
    assert f.read_text(encoding="utf-8") == before  # a file with a frame is never rewritten


def test_propose_names_a_file_that_does_not_load_and_exits_1(tmp_path):
    f = tmp_path / "broken.json"
    f.write_text(json.dumps({"id": "broken", "server": "slack"}), encoding="utf-8")
    result = author("propose", str(f))
    assert result.exit_code == 1
    assert f"{f}: $." in result.output and "Field required" in result.output


def test_guards_lists_a_name_keyed_guard_and_write_rewrites_it_by_id(tmp_path):
    doc = {"id": "slack-archive-2041", "server": "slack",
           "initial_state": {"channels": [{"id": "C05INC2047", "name": "incident-2047"},
                                          {"id": "C02INC2041", "name": "incident-2041"}]},
           "success": {"all": [{"slack.channelArchived": {"channel": "incident-2041"}},
                               {"not": {"slack.channelArchived": {"channel": "incident-2047"}}}]}}
    f = tmp_path / "task.json"
    f.write_text(json.dumps(doc, indent=2), encoding="utf-8")

    listed = author("guards", str(tmp_path))
    assert listed.exit_code == 0, listed.output
    assert listed.output.splitlines() == [
        f"{f}: $.success.all[1].not[\"slack.channelArchived\"].channel = 'incident-2047' -> 'C05INC2047'",
        "1 name-keyed guard arguments"]
    assert json.loads(f.read_text(encoding="utf-8")) == doc  # listing changes nothing

    assert author("guards", str(f), "--write").exit_code == 0
    rewritten = json.loads(f.read_text(encoding="utf-8"))
    assert rewritten["success"]["all"][1] == {"not": {"slack.channelArchived": {"channel": "C05INC2047"}}}
    assert {k: v for k, v in rewritten.items() if k != "success"} == {k: v for k, v in doc.items() if k != "success"}
    assert author("guards", str(f)).output.splitlines() == ["0 name-keyed guard arguments"]


def test_wrongs_plans_a_collateral_and_applying_the_plan_appends_it(tmp_path, monkeypatch):
    f = tmp_path / "fs-set-log-level.json"
    doc = json.loads((INLINE / "fs-set-log-level.json").read_text(encoding="utf-8"))
    doc["wrong_solutions"] = [w for w in doc["wrong_solutions"] if w["kind"] != "collateral"]
    f.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)

    planned = author("wrongs", str(f), "--plan", "plan.json")
    assert planned.exit_code == 0, planned.output
    plan = json.loads((tmp_path / "plan.json").read_text(encoding="utf-8"))[str(f)]
    assert plan["collateral"]["kind"] == "collateral" and plan["collateral"]["why"].startswith("does the task, then")
    assert planned.output.startswith(f"{doc['id']}: collateral {plan['collateral']['why']!r}; lookalikes ")
    assert json.loads(f.read_text(encoding="utf-8")) == doc  # planning edits nothing

    assert author("wrongs", "--apply", "plan.json").exit_code == 0
    wrongs = json.loads(f.read_text(encoding="utf-8"))["wrong_solutions"]
    assert wrongs[:-1] == [{**w, "kind": plan["kinds"][w["why"]]} for w in doc["wrong_solutions"]]
    assert wrongs[-1] == plan["collateral"]
    written, errors = load_task_file(f)
    assert errors == [] and written.wrong_solutions[-1].kind == "collateral"


def test_wrongs_needs_files_to_plan_or_a_plan_to_apply():
    assert author("wrongs").exit_code == 2
    assert "give the task or template files" in author("wrongs").output


def test_leave_out_names_a_write_whose_clause_the_initial_state_already_meets_and_no_write_the_judge_needs(tmp_path):
    """The announcement's post is needed: its clause asks for the new message. Judged instead by a clause the
    world already meets (a message the channel holds from the start), the post can be left out, and
    `leave-out` names it; the lookups are reads and are never named."""
    source = Path(__file__).resolve().parents[2] / "tasks_catalog" / "dev" / "slack" / "slack-announce-release.json"
    doc = json.loads(source.read_text(encoding="utf-8"))
    result = author("leave-out", str(source))
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == ["0 writes can be left out, over 1 tasks"]

    task, _ = load_task_file(source)
    assert task is not None
    state, _ = anyio.run(apply_calls, task, [])
    channel = state.channel("CQAPJ6AEN4")
    old = channel.messages[0].text  # a message the channel holds before any call
    vacuous = {**doc, "id": "slack-announce-release-vacuous",
               "success": {"all": [{"slack.messagePosted": {"channel": "CQAPJ6AEN4", "pattern": re.escape(old[:40])}},
                                   doc["success"]["all"][1]]}}
    f = tmp_path / "vacuous.json"
    f.write_text(json.dumps(vacuous), encoding="utf-8")
    result = author("leave-out", str(f))
    assert result.exit_code == 0, result.output
    post = next(i for i, c in enumerate(doc["reference_solution"]) if c["tool"] == "post_message") + 1
    assert result.output.splitlines() == [f"slack-announce-release-vacuous: passes without call {post} (post_message)",
                                          "1 writes can be left out, over 1 tasks"]


def test_leave_out_samples_a_template_whose_cases_cannot_be_listed_and_names_an_invalid_one(tmp_path):
    """`--all-cases` on a template with a free parameter checks `--seeds` renderings and says so; a template that
    does not load is named with what is wrong, and the templates after it are still checked."""
    pool = Path(__file__).resolve().parents[2] / "tasks_catalog" / "templates" / "github"
    free = pool / "gh-t-release-notes-via-pr.json"  # `h` is a sample, not a choice
    broken = json.loads((pool / "gh-t-close-duplicates.json").read_text(encoding="utf-8"))
    broken["params"]["d"]["choice"] = broken["params"]["d"]["choice"][:3]
    folder = tmp_path / "pool"
    folder.mkdir()
    (folder / "a-broken.json").write_text(json.dumps(broken), encoding="utf-8")
    (folder / "b-free.json").write_text(free.read_text(encoding="utf-8"), encoding="utf-8")
    result = author("leave-out", "--all-cases", "--seeds", "1", str(folder))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("not a valid template: ") and "a-broken.json: $.params.d" in lines[0]
    assert any(line.startswith("gh-t-release-notes-via-pr: 1 renderings instead of every case (") for line in lines)
    assert lines[-1] == "0 writes can be left out, over 1 tasks"
