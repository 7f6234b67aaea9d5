"""Frame authoring tools (tasks_catalog/authoring, ``mcpbench author``): a frame is drafted from the
reference solution's diff by stable id, a template's draft generalises back to placeholders, file edits
keep the rest of a file as written, and every committed frame lets its reference solution through while
a damaging extra call breaks it."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from tasks_catalog.authoring.guards import by_id, name_keyed
from tasks_catalog.authoring.propose import draft, draft_template, final_state, generalise, insert_frame
from tasks_catalog.authoring.wrongs import append_wrong, collateral, set_kind
from tasks_catalog.frames import frame_violations
from tasks_catalog.loader import DEV_DIR, load_tasks
from tasks_catalog.schema import Task
from tasks_catalog.templates import load_pool, render, substitute

DEV_TASKS, _ = load_tasks([DEV_DIR])
BY_ID = {t.id: t for t in DEV_TASKS}
POOL = load_pool()


def test_an_update_is_allowed_by_row_id_and_only_the_changed_column():
    assert draft(BY_ID["pg-ship-order-1042"]) == [
        {"entity": "postgres.row", "ids": ["orders/1042"], "fields": ["status"]}]


def test_a_created_message_is_bounded_by_its_channel_and_a_max():
    assert draft(BY_ID["slack-announce-release"]) == [
        {"entity": "slack.message", "change": ["create"], "where": {"channel": "CQAPJ6AEN4"}, "max": 1}]


def test_a_template_draft_generalises_to_placeholders_and_renders_back_for_other_seeds():
    template = next(t for t in POOL if t.id == "fs-t-move-into-archive")
    frame, problems = draft_template(template, [b"a", b"b", b"c"])
    assert problems == []
    assert any("{{topic}}" in i for a in frame for i in a.get("ids", []))
    task = render(template, b"d")
    assert substitute(frame, task.template.params) == draft(task, created_refs=False)


def test_generalise_leaves_a_value_that_only_contains_a_parameter_inside_a_word():
    assert generalise("members", {"p": "ember"}) == "members"
    assert generalise("proj-ember", {"p": "ember"}) == "proj-{{p}}"


def test_inserting_a_frame_changes_nothing_else_in_the_file(tmp_path: Path):
    text = '{\n  "id": "x",\n  "success": {"a": 1},\n  "wrong_solutions": [\n    {"why": "w", "calls": []}\n  ]\n}\n'
    frame = [{"entity": "postgres.row", "ids": ["t/1"]}]
    out = insert_frame(text, frame)
    assert json.loads(out) == {**json.loads(text), "frame": frame}
    out = append_wrong(out, {"why": "v", "calls": []})
    out = set_kind(out, "v", "collateral")
    assert json.loads(out)["wrong_solutions"] == [{"why": "w", "calls": []},
                                                  {"why": "v", "kind": "collateral", "calls": []}]
    with pytest.raises(ValueError, match="already"):
        insert_frame(out, frame)


@pytest.mark.parametrize("task", DEV_TASKS, ids=lambda t: t.id)
def test_every_dev_frame_lets_its_reference_solution_through(task):
    assert task.frame is not None
    initial, final, errors = anyio.run(final_state, task, task.reference_solution)
    assert errors == []
    assert [v.describe() for v in frame_violations(task.scope, task.frame, initial, final)] == []


@pytest.mark.parametrize("template", POOL, ids=lambda t: t.id)
def test_every_template_frame_lets_its_reference_solution_through(template):
    task = render(template, b"frame-authoring")
    assert task.frame is not None
    initial, final, errors = anyio.run(final_state, task, task.reference_solution)
    assert errors == []
    assert [v.describe() for v in frame_violations(task.scope, task.frame, initial, final)] == []


def test_the_drafted_collateral_keeps_the_predicate_true_and_breaks_the_frame():
    wrong = collateral(BY_ID["fs-set-log-level"])
    assert wrong is not None and wrong["kind"] == "collateral"
    assert wrong["why"].startswith("does the task, then")


#: Templates whose guard is about a NAME on purpose: the task renames the entity (or swaps titles), so
#: "no event titled X" is the check; the frame forbids every other change to that entity.
NAME_GUARDS_ON_PURPOSE = {"cal-t-rename-event", "cal-t-swap-slots", "notion-t-rename-database", "notion-t-rename-page",
                          "sl-t-rename-and-staff", "sl-t-rename-channel"}


def test_a_name_keyed_guard_is_found_and_rewritten_to_the_entity_id():
    state = {"channels": [{"id": "C05INC2047", "name": "incident-2047"}, {"id": "C02INC2041", "name": "incident-2041"}]}
    success = {"all": [{"slack.channelArchived": {"channel": "incident-2041"}},
                       {"not": {"slack.channelArchived": {"channel": "incident-2047"}}}]}
    assert [h[2:] for h in name_keyed("slack", state, success)] == [("incident-2047", "C05INC2047")]
    assert by_id("slack", state, success) == {"all": [{"slack.channelArchived": {"channel": "incident-2041"}},
                                                      {"not": {"slack.channelArchived": {"channel": "C05INC2047"}}}]}


def test_a_gmail_guard_naming_a_user_label_by_name_is_found_and_rewritten_to_its_id():
    state = {"labels": [{"id": "Label_6", "name": "Travel"}, {"id": "Label_9", "name": "Projects/Atlas"}],
             "messages": []}
    success = {"all": [{"gmail.messageLabelApplied": {"message": "m1", "label": "Travel"}},
                       {"not": {"gmail.messageLabelApplied": {"message": "m2", "label": "Travel"}}},
                       {"not": {"gmail.messageLabelApplied": {"message": "m2", "label": "INBOX"}}}]}
    assert [h[2:] for h in name_keyed("gmail", state, success)] == [("Travel", "Label_6")]  # system labels are ids
    assert by_id("gmail", state, success)["all"][1] == {
        "not": {"gmail.messageLabelApplied": {"message": "m2", "label": "Label_6"}}}


def test_no_dev_task_or_template_guards_an_existing_entity_by_name():
    offenders = [t.id for t in DEV_TASKS if name_keyed(t.server, t.initial_state, t.success)]
    # a template is checked on a rendering: on a world, the names to look for are the world's
    rendered = [(t.id, render(t, b"guards")) for t in POOL if t.id not in NAME_GUARDS_ON_PURPOSE]
    offenders += [tid for tid, task in rendered if name_keyed(task.server, task.initial_state, task.success)]
    assert offenders == []


def test_a_guard_naming_a_world_channel_by_its_name_is_found_in_the_generated_world():
    # A task on a world has no channels in its initial_state as written: the guard check resolves it.
    from servers.kit.world import resolve

    world = {"world": {"generator": "slack", "version": 1, "seed": 1, "size": "default"}}
    channel = resolve(world)[1]["channels"][0]
    guard = {"all": [{"slack.channelExists": {"channel": "C0NEW"}},
                     {"not": {"slack.channelArchived": {"channel": channel["name"]}}}]}
    assert name_keyed("slack", world, guard) == [
        ('$.success.all[1].not["slack.channelArchived"].channel', "channel", channel["name"], channel["id"])]
    assert name_keyed("slack", world, by_id("slack", world, guard)) == []


# -- tightening a frame to field level (issue 32) ------------------------------------------------------

def _dev_task(name: str, frame: list) -> Task:
    doc = json.loads(next(DEV_DIR.rglob(f"{name}.json")).read_text(encoding="utf-8"))
    return Task.model_validate({**doc, "frame": frame})


def test_tighten_narrows_a_whole_property_map_to_the_keys_changed_and_bounds_the_list_it_changes():
    from tasks_catalog.authoring.tighten import tighten

    task = _dev_task("notion-move-claire-to-offer", [
        {"entity": "notion.page", "ids": ["4f48c38d-3a90-48fe-99f1-2db14a4e4979"], "fields": ["properties"]}])
    [a] = tighten(task)
    assert a["fields"] == ["properties.Interviewers", "properties.Stage"]
    assert a["values"] == {"properties.Interviewers": {"add": ["801e4030-7565-4a58-928e-e6088c0533b4"]}}  # Sam Patel


def test_tighten_bounds_a_created_channels_members_and_keeps_its_blocks_in_the_page_it_creates():
    from tasks_catalog.authoring.tighten import tighten

    slack = _dev_task("slack-launch-channel-with-team", [
        {"entity": "slack.channel", "change": ["create"], "where": {"name": "oncall-security-q2", "is_private": True}},
        {"entity": "slack.message", "change": ["create"], "where": {"text": "Security on-call rotation starts 1 April"},
         "max": 1}])
    channel, message = tighten(slack)
    assert channel["values"] == {"members": {"add": ["UB6S3UKMJC", "UG21P21543"]}} and channel["max"] == 1
    assert message["parent"] == "created"
    notion = _dev_task("notion-start-weekly-ops-sync", [
        {"entity": "notion.page", "change": ["create"], "where": {"parent_id": "d5335d9e-98e1-4dc1-8b3e-7c6b2aa54d64",
                                                                 "title": "Weekly Ops Sync 2026-03-16"}, "max": 1},
        {"entity": "notion.block", "change": ["create"], "max": 4}])
    _, blocks = tighten(notion)
    assert blocks["parent"] == "created" and blocks["max"] == 2


def test_tighten_leaves_a_tight_frame_as_it_is_and_the_command_says_so():
    import json

    from click.testing import CliRunner

    from mcpbench.cli import main
    from tasks_catalog.loader import DEV_DIR

    path = next(DEV_DIR.rglob("calendar-add-aisha-to-budget-review.json"))
    result = CliRunner().invoke(main, ["author", "tighten", str(path)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["calendar-add-aisha-to-budget-review"]["changed"] is False
