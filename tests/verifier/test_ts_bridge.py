"""The Python bridge to the TypeScript verifier (tasks_catalog/ts_verifier.py)."""

from __future__ import annotations

import subprocess

import pytest

from tasks_catalog import ts_verifier

STATE = {"files": {"a.txt": "release 4.19\n"}, "directories": []}


def test_evaluate_many_answers_booleans_in_order(ts_cli):
    cases = [("filesystem", STATE, {"filesystem.fileContentMatches": {"path": "a.txt", "pattern": r"4\.19$"}}),
             ("filesystem", STATE, {"filesystem.fileExists": {"path": "b.txt"}})]
    assert ts_verifier.evaluate_many(cases) == [True, False]


def test_a_malformed_predicate_has_no_verdict_and_says_which_json_path(ts_cli):
    (answer,) = ts_verifier.evaluate_many([("filesystem", STATE, {"all": [{"filesystem.fileExists": {"path": 1}}]})])
    assert isinstance(answer, ts_verifier.NoVerdict)
    assert '$.all[0]["filesystem.fileExists"].path' in str(answer)
    with pytest.raises(TypeError):
        bool(answer)


def test_sql_outside_the_subset_has_no_verdict_rather_than_a_guess(ts_cli):
    state = {"tables": [{"name": "t", "columns": [{"name": "id", "type": "INTEGER", "nullable": True, "default": None}],
                         "primary_key": [], "rows": [[1]]}]}
    pred = {"postgres.queryReturnsCount": {"query": "WITH x AS (SELECT 1) SELECT * FROM x", "count": 1}}
    (answer,) = ts_verifier.evaluate_many([("postgres", state, pred)])
    assert isinstance(answer, ts_verifier.NoVerdict) and "outside the SQL subset" in answer.error


def test_malformed_input_is_an_error_with_the_cli_message(ts_cli):
    proc = subprocess.run(["node", str(ts_cli)], input="{}", capture_output=True, text=True)
    assert proc.returncode == 2 and "JSON array" in proc.stderr
    with pytest.raises(ts_verifier.TypeScriptVerifierError, match="unknown server"):
        ts_verifier.run([("nope", {}, {})])


def test_the_typescript_unit_tests_pass(ts_cli):
    proc = subprocess.run(["node", "--test", str(ts_cli.parent / "test")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]


def test_a_cli_that_exits_0_without_json_is_an_error_that_says_so(tmp_path, monkeypatch):
    """What a run against a dist/ being rebuilt saw: an empty cli.js exits 0 and writes nothing."""
    empty = tmp_path / "cli.js"
    empty.write_text("")
    monkeypatch.setattr(ts_verifier, "CLI", empty)
    with pytest.raises(ts_verifier.TypeScriptVerifierError, match="no JSON"):
        ts_verifier.evaluate_many([("filesystem", STATE, {"filesystem.fileExists": {"path": "a.txt"}})])
    with pytest.raises(ts_verifier.TypeScriptVerifierError, match="no JSON"):
        ts_verifier.frame_violations_many([("filesystem", STATE, STATE, [])])
    with pytest.raises(ts_verifier.TypeScriptVerifierError, match="no JSON"):
        ts_verifier.judge_many([], [("filesystem", STATE, STATE, [])])


def test_judge_many_answers_as_the_two_calls_do_and_sends_each_state_once(ts_cli, monkeypatch):
    emptied = {"files": {}, "directories": []}
    touched = {"files": {"a.txt": "release 4.20\n"}, "directories": []}
    exists = {"filesystem.fileExists": {"path": "a.txt"}}
    verdict_cases = [("filesystem", s, exists) for s in (STATE, emptied, touched)]
    frame = [{"entity": "filesystem.file", "ids": ["a.txt"], "change": ["update"]}]
    frame_cases = [("filesystem", STATE, final, frame) for final in (emptied, touched)]
    sent = []
    real_run = subprocess.run

    def spy(argv, **kwargs):
        sent.append(kwargs["input"])
        return real_run(argv, **kwargs)

    monkeypatch.setattr(ts_verifier.subprocess, "run", spy)
    verdicts, frames = ts_verifier.judge_many(verdict_cases, frame_cases)
    assert len(sent) == 1 and sent[0].count('"release 4.19\\n"') == 1 and sent[0].count('"release 4.20\\n"') == 1
    assert verdicts == ts_verifier.evaluate_many(verdict_cases) == [True, False, True]
    assert frames == ts_verifier.frame_violations_many(frame_cases)
    assert frames[0][0]["id"] == "a.txt" and frames[0][0]["change"] == "delete" and frames[1] == []
    # equal states that are different objects are sent as they are: identity, not a comparison, shares them
    again = ts_verifier.judge_many([("filesystem", dict(STATE), exists)], [("filesystem", dict(STATE), STATE, [])])
    assert again == ([True], [[]]) and sent[-1].count('"release 4.19\\n"') == 3
