"""A task file nested 100,000 levels deep is refused with an error naming the file and the JSON path,
in `tasks validate`, `tasks hash`, `run --tasks-dir` and the template loader; every other file of
the folder is still judged (and `run` still runs the valid tasks, then exits 1)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcpbench.cli import main
from servers.kit.safejson import MAX_DEPTH, NestingError, loads, too_deep
from tasks_catalog.loader import load_tasks
from tasks_catalog.templates import TemplateError, load_template

ROOT = Path(__file__).resolve().parents[2]
GOOD = ROOT / "tests" / "catalog" / "inline_tasks" / "fs-set-log-level.json"
DEPTH = 100_000


def _deep_task(directory: Path) -> Path:
    doc = json.loads(GOOD.read_text(encoding="utf-8"))
    doc["id"] = "fs-deep"
    text = json.dumps(doc).replace('"initial_state": {', '"initial_state": {"notes": ' + "[" * DEPTH + "]" * DEPTH + ", ", 1)
    path = directory / "deep.json"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def folder(tmp_path):
    shutil.copy(GOOD, tmp_path / "good.json")
    _deep_task(tmp_path)
    return tmp_path


def test_the_loader_names_the_file_and_path_and_still_loads_the_good_task(folder):
    tasks, errors = load_tasks([folder])
    assert [t.id for t in tasks] == ["fs-set-log-level"]
    (error,) = errors
    assert error.task == str(folder / "deep.json")
    assert error.path.startswith("$.initial_state.notes[0][0][0][0][0][0]…")
    assert f"more than {MAX_DEPTH} levels" in error.message


def test_tasks_validate_judges_every_other_file(folder):
    result = CliRunner().invoke(main, ["tasks", "validate", "--no-typescript", str(folder)])
    assert result.exit_code == 1 and not isinstance(result.exception, RecursionError)
    assert f"FAIL {folder / 'deep.json'}: $.initial_state.notes[0]" in result.output
    assert "1 valid, 1 failed, 2 tasks" in result.output


def test_tasks_hash_hashes_every_other_file(folder):
    result = CliRunner().invoke(main, ["tasks", "hash", str(folder / "good.json"), str(folder / "deep.json")])
    assert result.exit_code == 1 and not isinstance(result.exception, RecursionError)
    lines = result.output.splitlines()
    assert any(line.endswith(f"  {folder / 'good.json'}") and len(line.split()[0]) == 64 for line in lines)
    assert any(line.startswith(f"error: {folder / 'deep.json'}: $.initial_state.notes[0]") for line in lines)


def test_run_with_a_tasks_dir_judges_the_good_tasks_and_names_each_bad_file(folder, tmp_path_factory):
    doc = json.loads(GOOD.read_text(encoding="utf-8"))
    doc["id"], doc["nonce"] = "fs-bad-predicate", "0c7f3a91d5e2b8460a1e9d37c5b2f468"
    doc["success"] = {"filesystem.noSuchPrimitive": {"path": "x"}}
    (folder / "bad-predicate.json").write_text(json.dumps(doc), encoding="utf-8")
    store = tmp_path_factory.mktemp("store")
    result = CliRunner().invoke(main, ["run", "--agent", "oracle", "--tasks-dir", str(folder), "--store", str(store),
                                       "--submission-id", "folder-mixed", "--json"])
    assert result.exit_code == 1 and not isinstance(result.exception, RecursionError)
    assert "Traceback" not in result.output
    assert f"error: {folder / 'deep.json'}: $.initial_state.notes[0]" in result.stderr
    assert f"error: {folder / 'bad-predicate.json'}: fs-bad-predicate: $.success" in result.stderr
    assert "2 task files under" in result.stderr and "the other 1 tasks were judged" in result.stderr
    card = json.loads(result.stdout)
    assert (card["attempted"], card["passed"]) == (1, 1) and len(card["task_errors"]) == 2
    from runstore.store import open_store

    assert [r["task_id"] for r in open_store(str(store)).read_runs("folder-mixed").to_pylist()] == ["fs-set-log-level"]


def test_run_with_a_tasks_dir_where_nothing_loads_runs_nothing_and_says_so(tmp_path, tmp_path_factory):
    _deep_task(tmp_path)
    store = tmp_path_factory.mktemp("store")
    result = CliRunner().invoke(main, ["run", "--agent", "oracle", "--tasks-dir", str(tmp_path), "--store", str(store)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"error: {tmp_path / 'deep.json'}: $.initial_state.notes[0]" in result.stderr
    assert f"no task under {tmp_path} loads (1 errors above)" in result.stderr


def test_a_deep_template_file_is_a_template_error_naming_the_file(tmp_path):
    path = tmp_path / "deep-template.json"
    path.write_text('{"id": "x", "task": ' + "{\"a\": " * DEPTH + "1" + "}" * DEPTH + "}", encoding="utf-8")
    with pytest.raises(TemplateError, match=r"deep-template.json: \$\.task\.a\.a\.a"):
        load_template(path)


def test_nesting_up_to_the_limit_parses_and_one_more_level_is_refused():
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    with pytest.raises(NestingError) as refused:
        loads("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    assert refused.value.path.startswith("$[0][0]")


def test_brackets_inside_strings_and_escaped_quotes_do_not_count():
    text = json.dumps({"goal": "[" * 5000 + '\\" {{{', "list": [1, 2, {"k": "]]]"}]})
    assert too_deep(text) is None and loads(text)["list"][2] == {"k": "]]]"}


def test_the_path_names_keys_and_array_indexes_where_it_goes_too_deep():
    text = '{"a": 1, "b c": [0, 0, ' + "{\"k\": " * 10 + "0" + "}" * 10 + "]}"
    assert too_deep(text, limit=4) == '$["b c"][2].k.k'
