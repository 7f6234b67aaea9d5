"""The exported task JSON Schema is current, and every task file points editors at it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcpbench.cli import main
from tasks_catalog.schema import SCHEMA_PATH, SCHEMA_REF, json_schema

ROOT = Path(__file__).resolve().parents[2]
DEV_FILES = sorted((ROOT / "tasks_catalog" / "dev").rglob("*.json"))


def test_the_committed_task_schema_is_up_to_date():
    result = CliRunner().invoke(main, ["tasks", "schema", "--check"])
    assert result.exit_code == 0, f"{result.output}\nrun `mcpbench tasks schema` and commit the result"
    assert json.loads(SCHEMA_PATH.read_text(encoding="utf-8")) == json_schema()


def test_schema_check_fails_on_a_stale_schema(monkeypatch, tmp_path):
    stale = tmp_path / "task.schema.json"
    stale.write_text("{}\n", encoding="utf-8")
    monkeypatch.setattr("tasks_catalog.schema.SCHEMA_PATH", stale)
    result = CliRunner().invoke(main, ["tasks", "schema", "--check"])
    assert result.exit_code == 1
    assert "out of date" in result.output


def test_there_are_dev_task_files():
    assert DEV_FILES


@pytest.mark.parametrize("path", DEV_FILES, ids=[str(p.relative_to(ROOT)) for p in DEV_FILES])
def test_every_dev_task_file_references_the_schema(path):
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc.get("$schema") == SCHEMA_REF == "../../task.schema.json"
    assert (path.parent / SCHEMA_REF).resolve() == SCHEMA_PATH.resolve()
