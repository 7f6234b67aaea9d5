"""Versions and alternative solutions on tasks and templates (issue 32): a version is part of the hashed
document when stated (a task written before versions hashes as it did), a rendered task takes its
template's, and alternative solutions are checked like the reference's calls."""

from __future__ import annotations

import json

import pytest

from tasks_catalog.hashing import task_hash
from tasks_catalog.loader import DEV_DIR, validate_task
from tasks_catalog.schema import Task
from tasks_catalog.templates import POOL_DIR, Template, load_template, render


def _doc(name: str) -> dict:
    return json.loads(next(DEV_DIR.rglob(f"{name}.json")).read_text(encoding="utf-8"))


def test_a_task_without_a_version_is_at_version_1_and_hashes_without_one():
    doc = _doc("slack-announce-release")
    doc.pop("version")
    task = Task.model_validate(doc)
    assert task.version is None and task.task_version == 1
    assert "version" not in task.to_json()
    assert task_hash(doc) == task_hash(task) != task_hash({**doc, "version": 1})


def test_a_version_is_part_of_the_hashed_document():
    doc = _doc("github-codeowners-on-branch")
    assert Task.model_validate(doc).task_version == 2
    assert task_hash(doc) != task_hash({**doc, "version": 3})


def test_a_version_below_1_is_a_validation_error_naming_the_path():
    _, errors = validate_task({**_doc("slack-announce-release"), "version": 0})
    assert [(e.task, e.path) for e in errors] == [("slack-announce-release", "$.version")]


def test_a_rendered_task_takes_its_templates_version_and_a_template_task_may_not_set_one():
    path = next(POOL_DIR.rglob("cal-t-add-attendee.json"))
    template = load_template(path)
    assert template.version == 2 and render(template, b"seed").version == 2
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["task"]["version"] = 5
    with pytest.raises(ValueError, match=r"task must not set \['version'\]"):
        Template.model_validate(doc)


def test_an_alternative_solution_may_use_only_the_tools_the_task_lists(tmp_path):
    doc = _doc("github-codeowners-on-branch")
    doc["alternative_solutions"][0]["calls"].append({"tool": "merge_pull_request", "arguments": {
        "owner": "kestrel-freight", "repo": "driver-app", "pullNumber": 1}})
    _, errors = validate_task(doc)
    n = len(doc["alternative_solutions"][0]["calls"]) - 1
    assert [(e.path, e.message) for e in errors] == [
        (f"$.alternative_solutions[0].calls[{n}].tool", "tool 'merge_pull_request' is not in available_tools")]


def test_an_alternative_solution_with_a_bad_argument_is_named_by_its_path():
    doc = _doc("github-codeowners-on-branch")
    doc["alternative_solutions"][0]["calls"][0]["arguments"] = {"owner": "kestrel-freight"}
    _, errors = validate_task(doc)
    assert errors and all(e.path.startswith("$.alternative_solutions[0].calls[0].arguments") for e in errors)
