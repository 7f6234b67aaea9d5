"""The attestation rule can be followed by a third party: with only the exported task.schema.json,
the ``rfc8785`` library and hashlib (nothing of ours), a hash is rebuilt from a minimal hand-written
document and from every dev task, and ``mcpbench tasks hash --help`` names every default it fills."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import rfc8785
from click.testing import CliRunner

from mcpbench.cli import main
from tasks_catalog.hashing import task_hash

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "tasks_catalog" / "task.schema.json").read_text(encoding="utf-8"))

MINIMAL = {
    "id": "fs-handwritten-minimal",
    "server": "filesystem",
    "difficulty": "easy",
    "category": "recovery",
    "nonce": "9d41c07be2a85f3619e0c47d2b8a53f1",
    "goal": "Move notes/old.md into the archive folder as archive/old.md.",
    "initial_state": {"files": {"notes/old.md": "obsolete\n"}, "directories": ["archive"]},
    "faults": [{"tool": "move_file"}],
    "available_tools": ["list_directory", "move_file"],
    "max_steps": 4,
    "timeout_s": 30,
    "frame": [{"entity": "filesystem.file", "change": ["create", "delete"]}, {"entity": "filesystem.directory"}],
    "success": {"filesystem.fileExists": {"path": "archive/old.md"}},
    "reference_solution": [{"tool": "list_directory"},
                           {"tool": "move_file", "arguments": {"source": "notes/old.md", "destination": "archive/old.md"}}],
    "wrong_solutions": [{"why": "only looks around", "calls": [{"tool": "list_directory"}]}],
}


# ---- a third party's implementation of the rule, from the schema alone ----

def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = SCHEMA["$defs"][node["$ref"].rsplit("/", 1)[1]]
    return node


def _branch(node: dict[str, Any], value: Any) -> dict[str, Any]:
    """The anyOf branch for a non-null value (our schema has at most one)."""
    node = _resolve(node)
    if "anyOf" in node:
        branches = [_resolve(b) for b in node["anyOf"] if b.get("type") != "null"]
        assert len(branches) == 1, node
        return branches[0]
    return node


def _fill(node: dict[str, Any], value: Any) -> Any:
    node = _branch(node, value)
    if isinstance(value, dict) and "properties" in node:
        out = {}
        for key, item in value.items():
            if item is None and key in node["properties"]:
                continue  # a null of a declared property means absent
            out[key] = _fill(node["properties"][key], item) if key in node["properties"] else item
        for key, prop in node["properties"].items():
            default = _resolve(prop).get("default", prop.get("default"))
            if key not in out and default is not None:
                out[key] = _fill(prop, copy.deepcopy(default))
        return out
    if isinstance(value, list) and isinstance(node.get("items"), dict):
        return [_fill(node["items"], item) for item in value]
    return value


def third_party_hash(document: dict[str, Any]) -> str:
    doc = {k: v for k, v in document.items() if k != "$schema"}
    return hashlib.sha256(rfc8785.dumps(_fill(SCHEMA, doc))).hexdigest()


# ---- the tests ----

def test_the_schema_exports_the_defaults_filled_in_before_hashing():
    props = SCHEMA["properties"]
    assert props["faults"]["default"] == []
    assert SCHEMA["$defs"]["ToolCall"]["properties"]["arguments"]["default"] == {}
    fault = SCHEMA["$defs"]["Fault"]["properties"]
    assert (fault["times"]["default"], fault["on_call"]["default"], fault["kind"]["default"]) == (1, 1, "rate_limit")
    assert "nonce" in SCHEMA["required"] and "RFC 8785" in SCHEMA["$comment"]


def test_a_minimal_hand_written_task_hashes_as_the_schema_and_the_rfc_say():
    expected = third_party_hash(MINIMAL)
    assert task_hash(MINIMAL) == expected
    filled = _fill(SCHEMA, dict(MINIMAL))
    assert filled["faults"] == [{"tool": "move_file", "on_call": 1, "times": 1, "kind": "rate_limit"}]
    assert filled["reference_solution"][0] == {"tool": "list_directory", "arguments": {}}
    assert filled["frame"][1]["change"] == ["update"] and "template" not in filled


def test_the_hash_command_prints_the_third_party_hash(tmp_path):
    path = tmp_path / "minimal.json"
    path.write_text(json.dumps(dict(MINIMAL, **{"$schema": "../../task.schema.json", "template": None})),
                    encoding="utf-8")
    result = CliRunner().invoke(main, ["tasks", "hash", str(path)])
    assert result.exit_code == 0, result.output
    assert result.output.split()[0] == third_party_hash(MINIMAL)


def test_every_dev_task_hash_is_rebuilt_by_the_third_party_rule():
    files = sorted((ROOT / "tasks_catalog" / "dev").rglob("*.json"))
    assert sum(f.parent.name != "cross-server" for f in files) == 40
    assert sum(f.parent.name == "cross-server" and not f.name.startswith(("x-eng-", "x-h-")) for f in files) == 8
    assert sum(f.parent.name == "cross-server" and f.name.startswith("x-h-") for f in files) == 4
    for f in files:
        doc = json.loads(f.read_text(encoding="utf-8"))
        assert third_party_hash(doc) == task_hash(doc), f


def test_every_example_cross_server_task_hash_is_rebuilt_by_the_third_party_rule():
    files = sorted((ROOT / "tests" / "cross_server_tasks").glob("*.json"))
    assert len(files) >= 4
    for f in files:
        doc = json.loads(f.read_text(encoding="utf-8"))
        assert "servers" in doc and "server" not in doc
        assert third_party_hash(doc) == task_hash(doc), f


def test_the_hash_help_names_every_default_the_schema_exports():
    help_text = " ".join(CliRunner().invoke(main, ["tasks", "hash", "--help"]).output.split())
    defaults = []
    for model in [SCHEMA, *SCHEMA["$defs"].values()]:
        for name, prop in model.get("properties", {}).items():
            if prop.get("default") is not None:
                defaults.append(f"{name}: {json.dumps(prop['default'])}")
    assert defaults and [d for d in defaults if d not in help_text] == []
    assert "RFC 8785" in help_text and "nonce" in help_text
