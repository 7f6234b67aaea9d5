"""Loading tasks: every static problem is an error naming the task id and the JSON path; one bad task
never hides the others; malformed documents never crash the loader."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tasks_catalog.loader import TaskError, load_tasks, validate_task
from tasks_catalog.predicates import primitives

ROOT = Path(__file__).resolve().parents[2]
DEV_TASK = ROOT / "tests" / "catalog" / "inline_tasks" / "fs-archive-meeting-notes.json"
TASK_ID = "fs-archive-meeting-notes"


def _doc() -> dict[str, Any]:
    return json.loads(DEV_TASK.read_text(encoding="utf-8"))


def _errors(doc: Any) -> list[TaskError]:
    _, errors = validate_task(doc, "source.json")
    return errors


def _only(doc: Any) -> TaskError:
    errors = _errors(doc)
    assert len(errors) == 1, errors
    return errors[0]


def test_the_dev_task_loads_without_errors():
    task, errors = validate_task(_doc())
    assert errors == []
    assert task is not None and task.id == TASK_ID


def test_an_unknown_primitive_is_named_with_its_path():
    doc = _doc()
    doc["success"]["all"][0] = {"filesystem.fileIsThere": {"path": "archive/2026/2026-03-14-budget-review.md"}}
    err = _only(doc)
    assert (err.task, err.path) == (TASK_ID, '$.success.all[0]["filesystem.fileIsThere"]')
    assert "unknown primitive 'filesystem.fileIsThere'" in err.message
    assert "fileExists" in err.message  # it lists what the server has


def test_a_primitive_of_another_server_is_an_error():
    doc = _doc()
    foreign = sorted(k for k, p in primitives().items() if p.server != "filesystem")
    key = foreign[0] if foreign else "slack.channelExists"
    doc["success"]["all"][2] = {"not": {key: {}}}
    err = _only(doc)
    assert (err.task, err.path) == (TASK_ID, f'$.success.all[2].not["{key}"]')
    if foreign:
        assert f"belongs to server {primitives()[key].server!r}, not 'filesystem'" in err.message
    else:
        assert f"unknown primitive {key!r}" in err.message


def test_a_missing_argument_is_named():
    doc = _doc()
    doc["success"]["all"][1] = {"filesystem.fileContentMatches": {"path": "archive/2026/2026-03-14-budget-review.md"}}
    err = _only(doc)
    assert err.path == '$.success.all[1]["filesystem.fileContentMatches"].pattern'
    assert "required" in err.message.lower()


def test_a_mistyped_argument_is_named():
    doc = _doc()
    doc["success"]["all"][0] = {"filesystem.fileExists": {"path": 1}}
    err = _only(doc)
    assert (err.task, err.path) == (TASK_ID, '$.success.all[0]["filesystem.fileExists"].path')
    assert "string" in err.message


def test_an_unknown_argument_is_named():
    doc = _doc()
    doc["success"]["all"][0]["filesystem.fileExists"]["recursive"] = True
    err = _only(doc)
    assert err.path == '$.success.all[0]["filesystem.fileExists"].recursive'


def test_an_invalid_pattern_is_named():
    doc = _doc()
    doc["success"]["all"][1]["filesystem.fileContentMatches"]["pattern"] = "freeze (travel"
    err = _only(doc)
    assert err.path == '$.success.all[1]["filesystem.fileContentMatches"].pattern'
    assert "regular expression" in err.message


def test_empty_all_and_any_are_errors():
    doc = _doc()
    doc["success"] = {"all": [{"any": []}, {"not": {"all": []}}]}
    errors = _errors(doc)
    assert [(e.task, e.path) for e in errors] == [
        (TASK_ID, "$.success.all[0].any"),
        (TASK_ID, "$.success.all[1].not.all"),
    ]
    assert all("non-empty list" in e.message for e in errors)


def test_a_predicate_with_two_keys_is_an_error():
    doc = _doc()
    doc["success"] = {"all": [doc["success"]["all"][0]], "any": [doc["success"]["all"][0]]}
    err = _only(doc)
    assert err.path == "$.success"
    assert "exactly one key" in err.message


def test_a_bad_initial_state_field_is_named():
    doc = _doc()
    doc["initial_state"]["permissions"] = {"notes": "ro"}
    doc["initial_state"]["files"]["notes/2026-03-21-hiring-sync.md"] = 42
    errors = _errors(doc)
    assert {(e.task, e.path) for e in errors} == {
        (TASK_ID, "$.initial_state.permissions"),
        (TASK_ID, '$.initial_state.files.notes/2026-03-21-hiring-sync.md'),
    }


def test_an_initial_state_the_server_model_rejects_is_named():
    doc = _doc()
    doc["initial_state"]["files"]["/etc/passwd"] = "root:x:0:0"
    err = _only(doc)
    assert err.path.startswith("$.initial_state.files")
    assert "absolute" in err.message


def test_an_unknown_tool_in_available_tools_is_named():
    doc = _doc()
    doc["available_tools"].append("delete_file")
    err = _only(doc)
    assert (err.task, err.path) == (TASK_ID, "$.available_tools[6]")
    assert "filesystem has no tool 'delete_file'" in err.message


def test_a_reference_solution_using_a_tool_not_in_available_tools_is_an_error():
    doc = _doc()
    doc["reference_solution"].append({"tool": "write_file", "arguments": {"path": "log.txt", "content": "done"}})
    err = _only(doc)
    assert (err.task, err.path) == (TASK_ID, "$.reference_solution[2].tool")
    assert "not in available_tools" in err.message


def test_a_reference_solution_using_an_unknown_tool_is_an_error():
    doc = _doc()
    doc["reference_solution"][0]["tool"] = "ls"
    err = _only(doc)
    assert err.path == "$.reference_solution[0].tool"
    assert "has no tool 'ls'" in err.message


def test_bad_tool_arguments_are_named():
    doc = _doc()
    doc["reference_solution"][1]["arguments"] = {"source": "notes/2026-03-14-budget-review.md", "dest": 3}
    errors = _errors(doc)
    assert {(e.task, e.path) for e in errors} == {
        (TASK_ID, "$.reference_solution[1].arguments.destination"),
        (TASK_ID, "$.reference_solution[1].arguments.dest"),
    }


def test_bad_arguments_in_a_wrong_solution_are_named():
    doc = _doc()
    doc["wrong_solutions"][1]["calls"][0]["arguments"]["source"] = ["a", "b"]
    err = _only(doc)
    assert err.path == "$.wrong_solutions[1].calls[0].arguments.source"


def test_a_recovery_task_without_faults_is_an_error():
    doc = _doc()
    doc["category"] = "recovery"
    err = _only(doc)
    assert (err.task, err.path) == (TASK_ID, "$.faults")
    assert "recovery task needs at least one fault" in err.message


def test_a_standard_task_with_faults_is_an_error():
    doc = _doc()
    doc["faults"] = [{"tool": "move_file"}]
    err = _only(doc)
    assert err.path == "$.faults"
    assert "only recovery tasks" in err.message


def test_a_fault_on_a_tool_that_is_not_available_is_an_error():
    doc = _doc()
    doc["category"] = "recovery"
    doc["faults"] = [{"tool": "write_file", "kind": "rate_limit"}]
    err = _only(doc)
    assert err.path == "$.faults[0].tool"


def test_a_max_steps_below_the_reference_solution_is_an_error():
    doc = _doc()
    doc["max_steps"] = 1
    err = _only(doc)
    assert err.path == "$.max_steps"


def test_a_model_level_error_names_the_task_and_the_field():
    doc = _doc()
    doc["difficulty"] = "extreme"
    del doc["goal"]
    doc["max_steps"] = "ten"
    task, errors = validate_task(doc, "source.json")
    assert task is None
    assert {(e.task, e.path) for e in errors} == {
        (TASK_ID, "$.difficulty"),
        (TASK_ID, "$.goal"),
        (TASK_ID, "$.max_steps"),
    }


def test_a_document_without_a_usable_id_is_named_by_its_source():
    doc = _doc()
    doc["id"] = 17
    errors = _errors(doc)
    assert errors and all(e.task == "source.json" for e in errors)
    assert [e.path for e in errors] == ["$.id"]


def test_an_empty_id_is_named_by_its_source():
    doc = _doc()
    doc["id"] = ""
    errors = _errors(doc)
    assert errors and all(e.task == "source.json" for e in errors)


def _write(directory: Path, name: str, doc: Any) -> Path:
    path = directory / name
    path.write_text(json.dumps(doc, indent=2) if not isinstance(doc, str) else doc, encoding="utf-8")
    return path


def test_duplicate_ids_across_files_are_an_error(tmp_path):
    _write(tmp_path, "a.json", _doc())
    (tmp_path / "copy").mkdir()
    _write(tmp_path / "copy", "b.json", _doc())
    tasks, errors = load_tasks([tmp_path])
    assert [t.id for t in tasks] == [TASK_ID]
    assert len(errors) == 1
    assert (errors[0].task, errors[0].path) == (TASK_ID, "$.id")
    assert "duplicate id" in errors[0].message and "a.json" in errors[0].message


def test_a_task_without_a_nonce_is_an_error_at_its_path():
    doc = _doc()
    del doc["nonce"]
    err = _only(doc)
    assert (err.task, err.path) == (TASK_ID, "$.nonce")


@pytest.mark.parametrize("nonce", ["5f0c2a9e41d87b3c6e1f09a2d4b7c85", "5F0C2A9E41D87B3C6E1F09A2D4B7C853",
                                   "5f0c2a9e41d87b3c6e1f09a2d4b7c85z", 1234])
def test_a_nonce_shorter_than_128_bits_or_not_lowercase_hex_is_an_error(nonce):
    doc = _doc()
    doc["nonce"] = nonce
    assert _only(doc).path == "$.nonce"


def test_a_filler_nonce_is_refused_as_not_random():
    doc = _doc()
    doc["nonce"] = "0" * 32
    err = _only(doc)
    assert err.path == "$.nonce" and "not random" in err.message


def test_every_dev_task_has_its_own_nonce():
    tasks, errors = load_tasks([ROOT / "tasks_catalog" / "dev"])
    assert errors == [] and sum(not t.cross_server for t in tasks) == 40
    assert sum(t.id.startswith("x-") and not t.id.startswith(("x-eng-", "x-h-")) for t in tasks) == 8  # the business side's
    assert sum(t.id.startswith("x-h-") for t in tasks) == 4  # the long, hard business tasks
    assert len({t.nonce for t in tasks}) == len(tasks)


def test_a_copied_task_that_keeps_the_nonce_is_an_error(tmp_path):
    _write(tmp_path, "a.json", _doc())
    copy_ = _doc()
    copy_["id"] = "fs-archive-meeting-notes-copy"
    _write(tmp_path, "b.json", copy_)
    tasks, errors = load_tasks([tmp_path])
    assert [t.id for t in tasks] == [TASK_ID]
    assert [(e.task, e.path) for e in errors] == [("fs-archive-meeting-notes-copy", "$.nonce")]
    assert TASK_ID in errors[0].message


def test_one_bad_task_never_hides_the_others(tmp_path):
    good = _doc()
    bad_predicate = _doc()
    bad_predicate["id"] = "fs-bad-predicate"
    bad_predicate["success"] = {"any": []}
    bad_tool = _doc()
    bad_tool["id"] = "fs-bad-tool"
    bad_tool["available_tools"] = ["rm_rf"]
    _write(tmp_path, "1-good.json", good)
    _write(tmp_path, "2-bad-predicate.json", bad_predicate)
    _write(tmp_path, "3-bad-tool.json", bad_tool)
    tasks, errors = load_tasks([tmp_path])
    assert [t.id for t in tasks] == [TASK_ID]
    assert {e.task for e in errors} == {"fs-bad-predicate", "fs-bad-tool"}
    assert ("fs-bad-predicate", "$.success.any") in {(e.task, e.path) for e in errors}
    assert ("fs-bad-tool", "$.available_tools[0]") in {(e.task, e.path) for e in errors}


def test_a_file_that_is_not_json_is_named_by_its_path(tmp_path):
    _write(tmp_path, "good.json", _doc())
    broken = _write(tmp_path, "broken.json", '{"id": "fs-broken",')
    tasks, errors = load_tasks([tmp_path])
    assert [t.id for t in tasks] == [TASK_ID]
    assert [(e.task, e.path) for e in errors] == [(str(broken), "$")]
    assert "not valid JSON" in errors[0].message


# -- fuzzing: malformed task JSON is always a clear error, never a crash ------------------------

JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**40), max_value=2**40),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["", "filesystem", "recovery", "move_file", "notes", "$", "all", "not", "../x", "/abs"]),
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
PREDICATE_KEYS = st.one_of(
    st.sampled_from(["all", "any", "not", "filesystem.fileExists", "filesystem.fileContentMatches",
                     "filesystem.directoryHasFiles", "filesystem.nope", "slack.channelExists", "linear.issueState",
                     "nope", "", "a.b.c"]),
    st.text(max_size=10),
)
PREDICATES = st.recursive(
    st.one_of(
        st.dictionaries(PREDICATE_KEYS, st.dictionaries(st.sampled_from(["path", "pattern", "files", "x"]),
                                                        JSON_VALUES, max_size=3), min_size=1, max_size=2),
        JSON_SCALARS,
    ),
    lambda inner: st.one_of(
        st.builds(lambda k, v: {k: v}, st.sampled_from(["all", "any"]), st.lists(inner, max_size=3)),
        st.builds(lambda v: {"not": v}, inner),
        st.lists(inner, max_size=2),
    ),
    max_leaves=8,
)


def _locations(value: Any, here: tuple = ()) -> list[tuple]:
    """Every location inside ``value`` (keys and indexes), the root included."""
    out = [here]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _locations(v, here + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _locations(v, here + (i,))
    return out


def _mutate(doc: Any, loc: tuple, how: str, value: Any) -> Any:
    if not loc:
        return value if how != "delete" else {}
    parent = doc
    for part in loc[:-1]:
        parent = parent[part]
    if how == "delete":
        del parent[loc[-1]]
    else:
        parent[loc[-1]] = value
    return doc


@st.composite
def malformed_tasks(draw) -> Any:
    doc: Any = _doc()
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        loc = draw(st.sampled_from(_locations(doc)))
        how = draw(st.sampled_from(["delete", "replace", "retype", "predicate"]))
        if how == "retype":
            value = draw(JSON_SCALARS | st.just([]) | st.just({}))
        elif how == "predicate":
            value = draw(PREDICATES)
        else:
            value = draw(JSON_VALUES)
        doc = _mutate(doc, loc, how, value)
    if draw(st.booleans()):
        doc = _mutate(doc, ("success",), "replace", draw(PREDICATES)) if isinstance(doc, dict) else doc
    return doc


def _assert_clear(doc: Any) -> None:
    snapshot = copy.deepcopy(doc)
    task, errors = validate_task(doc, "fuzz.json")
    assert task is not None or errors, "a rejected task must say why"
    for e in errors:
        assert isinstance(e, TaskError)
        assert isinstance(e.task, str) and e.task
        assert isinstance(e.path, str) and e.path.startswith("$"), e
        assert isinstance(e.message, str) and e.message
    if task is not None and not errors:
        assert task.id == snapshot["id"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(malformed_tasks())
def test_malformed_task_documents_always_give_clear_errors_and_never_crash(doc):
    _assert_clear(doc)


@settings(max_examples=100, deadline=None)
@given(JSON_VALUES)
def test_arbitrary_json_documents_always_give_clear_errors_and_never_crash(doc):
    _assert_clear(doc)


def test_the_engineering_side_has_eight_cross_server_dev_tasks_each_on_two_to_four_servers():
    tasks, errors = load_tasks([ROOT / "tasks_catalog" / "dev" / "cross-server"])
    eng = [t for t in tasks if t.id.startswith("x-eng-")]
    assert errors == [] and len(eng) == 8
    assert all(t.cross_server and 2 <= len(t.server_names) <= 4 for t in eng)
    # none reaches a cross-server hard task's 25 reference calls (tasks_catalog/stats.py, CROSS_SERVER_CALLS)
    assert sorted(t.difficulty for t in eng) == ["easy"] + ["medium"] * 7


def test_a_folder_loaded_again_does_not_validate_its_worlds_again_and_a_bad_state_is_named_each_time(monkeypatch):
    """A process keeps only the last few validated worlds, fewer than the dev set holds: every command that
    read it (``tasks show`` of one task) validated them all again. A state found valid is valid again;
    a bad one is reported every time it is loaded."""
    import servers.kit.world as world
    from tasks_catalog.loader import DEV_DIR

    validated: list[str] = []
    real = world._validate

    def counting(model, data):
        validated.append(model.__name__)
        return real(model, data)

    monkeypatch.setattr(world, "_validate", counting)
    first, errors = load_tasks([DEV_DIR])
    assert errors == [] and len(first) >= 40
    validated.clear()
    again, errors = load_tasks([DEV_DIR])
    assert errors == [] and [t.id for t in again] == [t.id for t in first]
    assert validated == []
    doc = json.loads((DEV_DIR / "slack" / "slack-archive-resolved-incident.json").read_text(encoding="utf-8"))
    doc["initial_state"]["patch"] = [{"op": "remove", "in": ["channels"], "id": "C-NO-SUCH"}]
    for _ in range(2):
        assert [(e.path, e.message) for e in _errors(doc)] == [
            ("$.initial_state.patch[0].id", "no entity with id 'C-NO-SUCH'")]
