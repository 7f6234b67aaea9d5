"""Cross-server tasks load like single-server ones: every static problem is an error naming the task
and the JSON path (``$.initial_state.<server>...``, a tool named without its server, a predicate or
frame on a server the task does not name), and a single-server task reads and hashes as before."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tasks_catalog.hashing import task_hash
from tasks_catalog.loader import TaskError, load_tasks, validate_task
from tasks_catalog.schema import CROSS_SERVER, Task, json_schema

ROOT = Path(__file__).resolve().parents[2]
CROSS = ROOT / "tests" / "cross_server_tasks"
TASK = CROSS / "x-incident-handover.json"
SINGLE = ROOT / "tests" / "catalog" / "inline_tasks" / "fs-set-log-level.json"


def _doc() -> dict[str, Any]:
    return json.loads(TASK.read_text(encoding="utf-8"))


def _errors(doc: Any) -> list[tuple[str, str]]:
    _, errors = validate_task(doc, "source.json")
    return [(e.path, e.message) for e in errors]


def _only(doc: Any) -> tuple[str, str]:
    errors = _errors(doc)
    assert len(errors) == 1, errors
    return errors[0]


def test_every_example_cross_server_task_loads_and_names_two_to_four_servers():
    tasks, errors = load_tasks([CROSS])
    assert errors == []
    assert len(tasks) >= 4
    assert all(2 <= len(t.server_names) <= 4 and t.cross_server and t.server is None for t in tasks)
    assert {len(t.server_names) for t in tasks} >= {2, 3}
    assert {t.server_label for t in tasks} == {CROSS_SERVER}


def test_a_cross_server_task_routes_prefixed_tool_names_to_its_servers():
    task = Task.model_validate(_doc())
    assert task.server_names == ("linear", "slack")
    assert task.route("slack__post_message") == ("slack", "post_message")
    assert task.route("linear__get_issue") == ("linear", "get_issue")
    assert task.route("post_message") is None  # a cross-server task names every tool with its server
    assert task.route("github__get_issue") is None  # a server the task does not name
    assert task.route("slack__") is None
    assert task.tool_name("slack", "post_message") == "slack__post_message"
    assert set(task.initial_states()) == {"linear", "slack"}


def test_a_single_server_task_keeps_its_one_server_and_its_tool_names():
    task = Task.model_validate(json.loads(SINGLE.read_text(encoding="utf-8")))
    assert task.server_names == ("filesystem",) and not task.cross_server
    assert task.server_label == "filesystem"
    assert task.route("edit_file") == ("filesystem", "edit_file")
    assert task.tool_name("filesystem", "edit_file") == "edit_file"
    assert task.initial_states() == {"filesystem": task.initial_state}
    assert "servers" not in task.to_json()


def test_a_single_server_tasks_hash_is_what_it_was_before_tasks_could_name_several_servers():
    task = Task.model_validate(json.loads(SINGLE.read_text(encoding="utf-8")))
    assert task_hash(task) == "0b5e553c2f896f987f6e2d34dab2737b2d152574f7ffa23fd81d6b2b5acee3aa"


def test_a_cross_server_task_hashes_its_servers_and_each_servers_state():
    doc = _doc()
    other = copy.deepcopy(doc)
    other["servers"] = ["slack", "linear"]
    changed = copy.deepcopy(doc)
    changed["initial_state"]["slack"]["channels"][0]["name"] = "incident-2042"
    hashes = {task_hash(d) for d in (doc, other, changed)}
    assert len(hashes) == 3


def test_a_task_naming_both_server_and_servers_is_an_error():
    doc = _doc()
    doc["server"] = "slack"
    path, message = _only(doc)
    assert path == "$" and "exactly one of the two" in message and "names both" in message


def test_a_task_naming_no_server_is_an_error():
    doc = _doc()
    del doc["servers"]
    path, message = _only(doc)
    assert path == "$" and "'server'" in message and "'servers'" in message


@pytest.mark.parametrize("servers, fragment", [
    (["slack"], "at least 2"),
    (["slack", "linear", "github", "gmail", "notion"], "at most 4"),
    (["slack", "slack"], "names a server twice"),
    (["slack", "jira"], "Input should be"),
])
def test_a_bad_list_of_servers_is_named_at_its_path(servers, fragment):
    doc = _doc()
    doc["servers"] = servers
    errors = _errors(doc)
    assert errors and all(p.startswith("$.servers") for p, _ in errors), errors
    assert any(fragment in m for _, m in errors), errors


def test_an_initial_state_for_a_server_the_task_does_not_name_is_an_error():
    doc = _doc()
    doc["initial_state"]["github"] = {"repos": []}
    assert _only(doc) == ("$.initial_state.github", ("'github' is not a server of this task (its servers: linear, "
                                                     "slack); a cross-server task's initial_state is keyed by its servers"))


def test_a_missing_servers_initial_state_is_named():
    doc = _doc()
    del doc["initial_state"]["linear"]
    errors = _errors(doc)
    assert ("$.initial_state.linear", "missing: a cross-server task gives every server's initial state") in errors


def test_a_bad_field_in_one_servers_state_is_named_under_that_server():
    doc = _doc()
    doc["initial_state"]["slack"]["channels"][0]["members"] = "U03KENJI"
    path, _ = _only(doc)
    assert path.startswith("$.initial_state.slack.channels[0].members"), path


def test_a_world_reference_of_another_generator_is_named_under_that_server():
    doc = _doc()
    doc["initial_state"]["slack"] = {"world": {"generator": "slack", "version": 999, "seed": 1}}
    path, message = _only(doc)
    assert path.startswith("$.initial_state.slack.world"), (path, message)
    assert "version 999" in message


def test_a_server_state_that_is_not_an_object_is_named():
    doc = _doc()
    doc["initial_state"]["linear"] = []
    path, message = _only(doc)
    assert path == "$.initial_state.linear" and "an object" in message


@pytest.mark.parametrize("name, fragment", [
    ("post_message", "names no server of this task"),
    ("github__get_issue", "names no server of this task"),
    ("slack__post_mesage", "slack has no tool 'post_mesage'"),
])
def test_a_tool_named_without_its_server_or_of_another_server_is_named(name, fragment):
    doc = _doc()
    doc["available_tools"].append(name)
    path, message = _only(doc)
    assert path == f"$.available_tools[{len(doc['available_tools']) - 1}]"
    assert fragment in message
    if "names no server" in fragment:
        assert "'<server>__<tool>', the server one of linear, slack" in message


def test_a_server_without_any_available_tool_is_an_error():
    doc = _doc()
    doc["available_tools"] = [t for t in doc["available_tools"] if t.startswith("slack__")]
    errors = _errors(doc)
    assert ("$.available_tools", ("lists no tool of linear: every server of a cross-server task gives the agent at "
                                  "least one tool")) in errors


def test_a_predicate_on_a_server_the_task_does_not_name_is_an_error_at_its_path():
    doc = _doc()
    doc["success"]["all"].append({"github.issueClosed": {"repo": "a/b", "issue": 1}})
    path, message = _only(doc)
    assert path == '$.success.all[4]["github.issueClosed"]'
    assert message == "primitive 'github.issueClosed' belongs to server 'github', which this task does not name " \
                      "(its servers: linear, slack)"


def test_a_predicate_may_use_every_server_the_task_names():
    doc = _doc()
    doc["success"]["all"].append({"linear.issueState": {"issue": "ENG-142", "state": "In Progress"}})
    assert _errors(doc) == []


def test_a_frame_on_a_server_the_task_does_not_name_is_an_error_at_its_path():
    doc = _doc()
    doc["frame"].append({"entity": "github.issue", "ids": ["a/b#1"]})
    path, message = _only(doc)
    assert path == "$.frame[2].entity"
    assert "not an entity of this task's servers" in message and "linear, slack" in message


def test_a_frame_kind_unknown_to_its_server_is_named():
    doc = _doc()
    doc["frame"].append({"entity": "linear.ticket", "ids": ["ENG-1"]})
    path, message = _only(doc)
    assert path == "$.frame[2].entity" and "linear has no entity kind 'ticket'" in message


def test_a_reference_call_with_bad_arguments_is_named_with_the_servers_tool_model():
    doc = _doc()
    doc["reference_solution"][2]["arguments"]["users"] = "U02MSILVA"
    path, _ = _only(doc)
    assert path == "$.reference_solution[2].arguments.users"


def test_a_wrong_solution_may_call_a_tool_of_its_servers_that_is_not_available_but_not_another_servers():
    doc = _doc()
    assert "linear__update_issue" not in doc["available_tools"]
    assert _errors(doc) == []  # wrong_solutions[2] calls it
    doc["wrong_solutions"][0]["calls"].append({"tool": "gmail__send_email", "arguments": {}})
    path, message = _only(doc)
    assert path == "$.wrong_solutions[0].calls[2].tool" and "names no server of this task" in message


def test_a_fault_on_an_unprefixed_tool_is_an_error():
    doc = _doc()
    doc["category"] = "recovery"
    doc["faults"] = [{"tool": "post_message", "kind": "rate_limit"}]
    path, message = _only(doc)
    assert path == "$.faults[0].tool" and "not in available_tools" in message


def test_the_exported_schema_asks_for_server_or_servers():
    schema = json_schema()
    assert "server" not in schema["required"] and "servers" not in schema["required"]
    assert schema["oneOf"] == [{"required": ["server"]}, {"required": ["servers"]}]
    servers = next(b for b in schema["properties"]["servers"]["anyOf"] if b.get("type") == "array")
    assert (servers["minItems"], servers["maxItems"]) == (2, 4)


def test_errors_name_the_task_id():
    doc = _doc()
    doc["available_tools"].append("post_message")
    _, errors = validate_task(doc, "source.json")
    assert all(isinstance(e, TaskError) and e.task == "x-incident-handover" for e in errors)
