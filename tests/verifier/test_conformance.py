"""The conformance run: the Python and the TypeScript verifier on every case of the shared corpus.

Run it alone with ``python -m pytest tests/verifier -q`` (see the README)."""

from __future__ import annotations

import dataclasses
import json
import subprocess

import pytest
from _compare import disagreements

from tasks_catalog import ts_verifier
from tasks_catalog.predicates import _registry, check, primitives


def test_both_verifiers_agree_on_every_fixture_case(ts_cli):
    total, found = disagreements()
    assert total >= 400
    assert not found, f"{len(found)} of {total} cases disagree:\n" + "\n".join(map(str, found))


def test_the_typescript_verifier_gives_the_expected_verdict_on_every_fixture_case(ts_cli):
    from _compare import corpus

    cases = corpus()
    answers = ts_verifier.run([(case.server, dumped, case.predicate) for case, _, dumped in cases])
    wrong = [f"{case.id}: typescript {got}, expected {case.expected}" for (case, _, _), got in zip(cases, answers)
             if got is not case.expected]
    assert not wrong, "\n".join(wrong)


def test_a_broken_python_primitive_makes_the_conformance_fail(ts_cli, monkeypatch):
    prim = primitives()["slack.channelExists"]
    inverted = dataclasses.replace(prim, fn=lambda state, args: not prim.fn(state, args))
    monkeypatch.setitem(_registry._PRIMITIVES, prim.key, inverted)
    _, found = disagreements()
    assert found
    assert all("slack.channelExists" in json.dumps(d.case.predicate) for d in found)
    assert any(d.case.name == "channelExists true by name" and d.python is False and d.typescript is True for d in found)


def test_a_broken_typescript_primitive_is_caught_on_the_cross_server_cases_too(ts_cli):
    _, found = disagreements(break_primitive="linear.issueState")
    cross = [d for d in found if not isinstance(d.case.server, str)]
    assert cross and all("linear.issueState" in json.dumps(d.case.predicate) for d in found)
    assert {d.case.name for d in cross} >= {"a fact of each server holds on its own state",
                                           "three servers agree on a release"}


def test_a_broken_typescript_primitive_makes_the_conformance_fail(ts_cli):
    _, found = disagreements(break_primitive="postgres.rowExists")
    assert found
    assert all("postgres.rowExists" in json.dumps(d.case.predicate) for d in found)
    report = str(found[0])
    assert "python" in report and "typescript" in report and "predicate" in report


def test_both_verifiers_know_the_same_primitives_with_the_same_arguments(ts_cli):
    proc = subprocess.run(["node", str(ts_cli), "--primitives"], capture_output=True, text=True, check=True)
    typescript = json.loads(proc.stdout)
    python = {key: {name: {"required": field.is_required()} for name, field in prim.args.model_fields.items()}
              for key, prim in primitives().items()}
    assert typescript == python


MALFORMED = [
    ("slack", {"slack.nope": {}}, '$["slack.nope"]'),
    ("slack", {"all": []}, "$.all"),
    ("slack", {"any": [{"slack.channelExists": {"channel": "a"}}, {"not": {"any": []}}]}, "$.any[1].not.any"),
    ("slack", {"slack.channelExists": {}}, '$["slack.channelExists"].channel'),
    ("slack", {"slack.channelExists": {"channel": "a", "name": "b"}}, '$["slack.channelExists"].name'),
    ("slack", {"slack.channelExists": {"channel": ""}}, '$["slack.channelExists"].channel'),
    ("slack", {"slack.messagePosted": {"channel": "a", "pattern": "(?<=a)b"}}, '$["slack.messagePosted"].pattern'),
    ("slack", {"slack.messagePosted": {"channel": "a", "pattern": "(a"}}, '$["slack.messagePosted"].pattern'),
    ("slack", {"github.issueClosed": {"repo": "a/b", "issue": 1}}, '$["github.issueClosed"]'),
    ("github", {"github.issueClosed": {"repo": "a/b", "issue": "1"}}, '$["github.issueClosed"].issue'),
    ("github", {"github.issueClosed": {"repo": "ab", "issue": 1}}, '$["github.issueClosed"].repo'),
    ("stripe", {"stripe.refundIssued": {"charge": "ch_1", "amount": True}}, '$["stripe.refundIssued"].amount'),
    ("postgres", {"postgres.tableHasColumn": {"table": "t", "column": "c", "type": "int"}}, '$["postgres.tableHasColumn"].type'),
    ("postgres", {"postgres.rowExists": {"table": "t", "where": {"a": [1]}}}, '$["postgres.rowExists"].where.a'),
    ("calendar", {"calendar.eventCount": {"count": -1}}, '$["calendar.eventCount"].count'),
    ("slack", {"slack.channelExists": {"channel": "a"}, "not": {}}, "$"),
    ("slack", ["slack.channelExists"], "$"),
]


CROSS_MALFORMED = [
    (("linear", "slack"), {"all": [{"slack.channelExists": {"channel": "a"}}, {"github.issueClosed": {"repo": "a/b", "issue": 1}}]},
     '$.all[1]["github.issueClosed"]'),
    (("linear", "slack"), {"linear.issueState": {"issue": "ENG-1"}}, '$["linear.issueState"].state'),
]


def test_both_verifiers_reject_a_cross_server_predicate_on_a_server_the_case_does_not_name(ts_cli):
    answers = ts_verifier.run([(servers, {s: {} for s in servers}, pred) for servers, pred, _ in CROSS_MALFORMED])
    for (servers, pred, path), answer in zip(CROSS_MALFORMED, answers, strict=True):
        python = check(pred, servers)
        assert [e.path for e in python] == [path], (pred, python)
        assert isinstance(answer, dict) and answer["verdict"] is None, (pred, answer)
        assert [p["path"] for p in answer["problems"]] == [path]
        if "belongs to server" in python[0].message:  # the same words in both (argument errors differ)
            assert [p["message"] for p in answer["problems"]] == [e.message for e in python]


@pytest.mark.parametrize("case, message", [
    ({"servers": ["slack"], "state": {"slack": {}}, "predicate": {}}, "$[0].servers: expected a list of 2 to 4 servers"),
    ({"servers": ["slack", "slack"], "state": {"slack": {}}, "predicate": {}}, "$[0].servers: names a server twice"),
    ({"servers": ["slack", "jira"], "state": {}, "predicate": {}}, '$[0].servers[1]: unknown server "jira"'),
    ({"server": "slack", "servers": ["slack", "linear"], "state": {}, "predicate": {}}, "exactly one of the two"),
    ({"servers": ["slack", "linear"], "state": {"slack": {}}, "predicate": {}},
     "$[0].state: expected an object holding a dumped state for each of slack, linear"),
    ({"servers": ["slack", "linear"], "state": {"slack": {}, "linear": {}, "github": {}}, "predicate": {}},
     "$[0].state: expected an object holding a dumped state for each of slack, linear"),
])
def test_a_malformed_cross_server_case_is_refused_by_the_cli_naming_where(ts_cli, case, message):
    proc = subprocess.run(["node", str(ts_cli)], input=json.dumps([case]), capture_output=True, text=True, check=False)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr


def test_both_verifiers_reject_malformed_predicates_naming_the_json_path(ts_cli):
    answers = ts_verifier.run([(server, {}, pred) for server, pred, _ in MALFORMED])
    for (server, pred, path), answer in zip(MALFORMED, answers, strict=True):
        python_paths = [e.path for e in check(pred, server)]
        assert any(p == path or p.startswith(path + ".") for p in python_paths), (pred, python_paths)
        assert isinstance(answer, dict) and answer["verdict"] is None, (pred, answer)
        assert [p["path"] for p in answer["problems"]] == [path], (pred, answer)


def test_both_verifiers_name_the_same_failing_clauses_on_every_false_case(ts_cli):
    """The explanation's contract: on every case whose verdict is false, the TypeScript verifier names
    the clauses the Python one names, in the same order; where the corpus gives them, both name those."""
    from _compare import corpus

    from tasks_catalog.predicates import Refuted, clause_ids

    cases = [(case, state, dumped) for case, state, dumped in corpus() if not case.expected]
    answers = ts_verifier.evaluate_many([(case.server, dumped, case.predicate) for case, _, dumped in cases],
                                        explain=True)
    assert all(isinstance(a, Refuted) for a in answers)
    wrong = [f"{case.id}: python {clause_ids(case.predicate, state)}, typescript {answer.clauses}"
             for (case, state, _), answer in zip(cases, answers) if answer.clauses != clause_ids(case.predicate, state)]
    assert not wrong, "\n".join(wrong)
    given = [(case, answer) for (case, _, _), answer in zip(cases, answers) if case.failing is not None]
    assert len(given) >= 10 and all(answer.clauses == case.failing for case, answer in given)


def test_the_typescript_verifier_explains_every_failing_clause_with_its_arguments_and_the_state(ts_cli):
    from _compare import corpus

    cases = [(case, dumped) for case, _, dumped in corpus() if not case.expected]
    explained = ts_verifier.explain_many([(case.server, dumped, case.predicate) for case, dumped in cases])
    for (case, _), clauses in zip(cases, explained):
        assert clauses, case.id
        for clause in clauses:
            assert clause["expected"] and clause["found"], case.id
            assert "could not be described" not in clause["found"], (case.id, clause["found"])
            assert clause["negated"] is clause["clause"].endswith(".not")
    nested = next(clauses for (case, _), clauses in zip(cases, explained)
                  if case.server == "slack" and case.name.startswith("nested"))
    assert nested[0]["primitive"] == "slack.channelExists" and nested[0]["found"].startswith("no channel named")
    assert nested[2]["primitive"] == "all" and nested[2]["found"] == "it holds"


def test_true_verdicts_stay_plain_booleans_when_explained(ts_cli):
    from _compare import corpus

    cases = [(case.server, dumped, case.predicate) for case, _, dumped in corpus() if case.expected][:20]
    assert ts_verifier.evaluate_many(cases, explain=True) == [True] * len(cases)
