"""Attestation hashing: RFC 8785 canonical JSON (the RFC's own examples) and SHA-256 of a task."""

from __future__ import annotations

import copy
import hashlib
import json
import struct
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcpbench.cli import main
from tasks_catalog.hashing import canonical_json, task_hash
from tasks_catalog.schema import Task

DEV_TASK = Path("tests/catalog/inline_tasks/fs-archive-meeting-notes.json")

# RFC 8785 section 3.2.2: the sample input, verbatim JSON text.
RFC_SAMPLE = r"""{
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}"""
RFC_SAMPLE_CANONICAL = r"""{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}"""
# RFC 8785 section 3.2.4: the same output as UTF-8 bytes, in hex.
RFC_SAMPLE_UTF8 = """
    7b 22 6c 69 74 65 72 61 6c 73 22 3a 5b 6e 75 6c 6c 2c 74 72
    75 65 2c 66 61 6c 73 65 5d 2c 22 6e 75 6d 62 65 72 73 22 3a
    5b 33 33 33 33 33 33 33 33 33 2e 33 33 33 33 33 33 33 2c 31
    65 2b 33 30 2c 34 2e 35 2c 30 2e 30 30 32 2c 31 65 2d 32 37
    5d 2c 22 73 74 72 69 6e 67 22 3a 22 e2 82 ac 24 5c 75 30 30
    30 66 5c 6e 41 27 42 5c 22 5c 5c 5c 5c 5c 22 2f 22 7d
"""

# RFC 8785 section 3.2.3: property sorting by UTF-16 code units.
RFC_SORTING_SAMPLE = r"""{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}"""
RFC_SORTED_VALUES = [
    "Carriage Return",
    "One",
    "Control",
    "Latin Small Letter O With Diaeresis",
    "Euro Sign",
    "Emoji: Grinning Face",
    "Hebrew Letter Dalet With Dagesh",
]

# RFC 8785 Appendix B: IEEE 754 bit patterns and their canonical text.
RFC_NUMBER_SAMPLES = [
    ("0000000000000000", "0"),
    ("8000000000000000", "0"),
    ("0000000000000001", "5e-324"),
    ("8000000000000001", "-5e-324"),
    ("7fefffffffffffff", "1.7976931348623157e+308"),
    ("ffefffffffffffff", "-1.7976931348623157e+308"),
    ("4340000000000000", "9007199254740992"),
    ("c340000000000000", "-9007199254740992"),
    ("4430000000000000", "295147905179352830000"),
    ("44b52d02c7e14af5", "9.999999999999997e+22"),
    ("44b52d02c7e14af6", "1e+23"),
    ("44b52d02c7e14af7", "1.0000000000000001e+23"),
    ("444b1ae4d6e2ef4e", "999999999999999700000"),
    ("444b1ae4d6e2ef4f", "999999999999999900000"),
    ("444b1ae4d6e2ef50", "1e+21"),
    ("3eb0c6f7a0b5ed8c", "9.999999999999997e-7"),
    ("3eb0c6f7a0b5ed8d", "0.000001"),
    ("41b3de4355555553", "333333333.3333332"),
    ("41b3de4355555554", "333333333.33333325"),
    ("41b3de4355555555", "333333333.3333333"),
    ("41b3de4355555556", "333333333.3333334"),
    ("41b3de4355555557", "333333333.33333343"),
    ("becbf647612f3696", "-0.0000033333333333333333"),
    ("43143ff3c1cb0959", "1424953923781206.2"),
]


def _double(bits: str) -> float:
    return struct.unpack(">d", bytes.fromhex(bits))[0]


def _dev_doc() -> dict:
    return json.loads(DEV_TASK.read_text(encoding="utf-8"))


def test_the_rfc_sample_object_canonicalises_as_in_section_3_2_2():
    assert canonical_json(json.loads(RFC_SAMPLE)).decode("utf-8") == RFC_SAMPLE_CANONICAL


def test_the_rfc_sample_object_has_the_utf8_bytes_of_section_3_2_4():
    assert canonical_json(json.loads(RFC_SAMPLE)) == bytes.fromhex("".join(RFC_SAMPLE_UTF8.split()))


def test_properties_are_sorted_by_utf16_code_units_as_in_section_3_2_3():
    out = canonical_json(json.loads(RFC_SORTING_SAMPLE)).decode("utf-8")
    assert list(json.loads(out).values()) == RFC_SORTED_VALUES
    assert out.startswith('{"\\r":"Carriage Return","1":"One","\u0080":"Control"')


@pytest.mark.parametrize(("bits", "text"), RFC_NUMBER_SAMPLES, ids=[b for b, _ in RFC_NUMBER_SAMPLES])
def test_numbers_serialise_as_in_appendix_b(bits, text):
    assert canonical_json(_double(bits)) == text.encode("ascii")


@pytest.mark.parametrize("bits", ["7fffffffffffffff", "7ff0000000000000", "fff0000000000000"])
def test_nan_and_infinity_cannot_be_canonicalised(bits):
    with pytest.raises(ValueError, match="cannot canonicalise"):
        canonical_json(_double(bits))


def test_nested_objects_are_sorted_and_whitespace_is_dropped():
    assert canonical_json({"b": [3, {"z": 1, "y": 2}], "a": {"d": None, "c": "x y"}}) == \
        b'{"a":{"c":"x y","d":null},"b":[3,{"y":2,"z":1}]}'


def test_a_task_hash_is_the_sha256_of_its_canonical_json_without_schema():
    doc = Task.model_validate(_dev_doc()).to_json()
    bare = {k: v for k, v in doc.items() if k != "$schema"}
    assert task_hash(doc) == hashlib.sha256(canonical_json(bare)).hexdigest()
    assert len(task_hash(doc)) == 64


def test_the_hash_is_stable_across_key_order_and_whitespace():
    text = DEV_TASK.read_text(encoding="utf-8")
    doc = json.loads(text)
    reordered = {k: doc[k] for k in reversed(list(doc))}
    reordered["success"] = json.loads(json.dumps(doc["success"], indent=7))
    compact = json.loads(json.dumps(doc, separators=(",", ":")))
    spaced = json.loads(json.dumps(reordered, indent=4, sort_keys=False))
    assert task_hash(doc) == task_hash(reordered) == task_hash(compact) == task_hash(spaced)


def test_the_hash_ignores_schema():
    doc = _dev_doc()
    moved = dict(doc, **{"$schema": "https://example.org/elsewhere.json"})
    bare = {k: v for k, v in doc.items() if k != "$schema"}
    assert task_hash(doc) == task_hash(moved) == task_hash(bare)


def test_a_task_hashes_like_the_file_it_came_from_and_the_file_it_writes():
    doc = _dev_doc()
    task = Task.model_validate(doc)
    rewritten = json.loads(json.dumps(task.to_json()))
    assert task_hash(task) == task_hash(doc) == task_hash(rewritten)


def test_any_change_to_the_task_changes_the_hash():
    doc = _dev_doc()
    base = task_hash(doc)
    goal = copy.deepcopy(doc)
    goal["goal"] += " "
    pred = copy.deepcopy(doc)
    pred["success"]["all"][1]["filesystem.fileContentMatches"]["pattern"] = "freeze Travel spend"
    steps = copy.deepcopy(doc)
    steps["max_steps"] += 1
    nonce = dict(doc, nonce="0123456789abcdef0123456789abcdef")
    assert len({base, task_hash(goal), task_hash(pred), task_hash(steps), task_hash(nonce)}) == 5


def test_numbers_that_are_equal_hash_equal():
    doc = _dev_doc()
    as_float = dict(doc, timeout_s=60.0, max_steps=10)
    as_int = dict(doc, timeout_s=60, max_steps=10)
    assert task_hash(as_float) == task_hash(as_int)


def test_the_hash_command_prints_one_hash_per_file(tmp_path):
    other = tmp_path / "reordered.json"
    doc = _dev_doc()
    other.write_text(json.dumps({k: doc[k] for k in sorted(doc)}, indent=1), encoding="utf-8")
    result = CliRunner().invoke(main, ["tasks", "hash", str(DEV_TASK), str(other)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines == [f"{task_hash(doc)}  {DEV_TASK}", f"{task_hash(doc)}  {other}"]


def test_the_hash_command_exits_1_on_a_file_that_is_not_json(tmp_path):
    bad = tmp_path / "broken.json"
    bad.write_text("{not json", encoding="utf-8")
    result = CliRunner().invoke(main, ["tasks", "hash", str(DEV_TASK), str(bad)])
    assert result.exit_code == 1
    assert f"{task_hash(_dev_doc())}  {DEV_TASK}" in result.output
    assert f"error: {bad}" in result.output


def test_the_hash_command_exits_1_on_a_document_that_is_not_an_object(tmp_path):
    bad = tmp_path / "list.json"
    bad.write_text("[1, 2]", encoding="utf-8")
    result = CliRunner().invoke(main, ["tasks", "hash", str(bad)])
    assert result.exit_code == 1
    assert "JSON object" in result.output
