import pytest

from servers import get_spec
from tasks_catalog.fixtures import load_cases
from tasks_catalog.predicates import check, evaluate, primitives

CASES = load_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_the_python_verifier_gives_the_expected_verdict(case):
    assert check(case.predicate, case.server) == []
    assert evaluate(case.predicate, case.load()) is case.expected


def test_every_registered_primitive_has_a_true_and_a_false_case():
    seen: dict[str, set[bool]] = {}

    def walk(pred, polarity, expected):
        (key, body), = pred.items()
        if key in ("all", "any"):
            for sub in body:
                walk(sub, polarity, expected)
        elif key == "not":
            walk(body, not polarity, expected)
        elif len(pred) == 1 and key in primitives():
            # a lone primitive (possibly under nots) has a known verdict
            seen.setdefault(key, set()).add(expected if polarity else not expected)

    for case in CASES:
        (key, _), = case.predicate.items()
        if key not in ("all", "any"):
            walk(case.predicate, True, case.expected)
    missing = {k: {True, False} - seen.get(k, set()) for k in primitives() if seen.get(k) != {True, False}}
    assert missing == {}, f"primitives without a true and a false case: {missing}"


FAILING = [c for c in CASES if c.failing is not None]


def test_the_corpus_names_failing_clauses_in_every_shape_on_every_server():
    single = {c.server for c in CASES if isinstance(c.server, str)}
    assert {c.server for c in FAILING if isinstance(c.server, str)} == single
    shapes = {clause.split("[")[0] if "[" in clause else clause for c in FAILING for clause in c.failing}
    assert {"$.all", "$.any", "$.not"} <= shapes
    assert any(".not" in clause and "any[" in clause for c in FAILING for clause in c.failing)


@pytest.mark.parametrize("case", FAILING, ids=[c.id for c in FAILING])
def test_the_python_verifier_names_the_failing_clauses_the_case_gives(case):
    from tasks_catalog.predicates import clause_ids, explain

    state = case.load()
    assert clause_ids(case.predicate, state) == case.failing
    clauses, omitted = explain(case.predicate, state)
    assert [c.clause for c in clauses] == list(case.failing) and omitted == 0
    assert all(c.expected and c.found and "could not be described" not in c.found for c in clauses)
    assert all(c.negated is c.clause.endswith(".not") for c in clauses)


@pytest.mark.parametrize("case", [c for c in CASES if not c.expected], ids=[c.id for c in CASES if not c.expected])
def test_every_false_case_is_explained_with_what_was_expected_and_what_the_state_held(case):
    from tasks_catalog.predicates import explain

    state = case.load()
    clauses, _ = explain(case.predicate, state)
    assert clauses and all(c.expected and c.found for c in clauses)
    assert all("could not be described" not in c.found for c in clauses), [c.found for c in clauses]
    primitive_clauses = [c for c in clauses if c.primitive in primitives()]
    assert all(c.args is not None for c in primitive_clauses)


def test_every_primitive_has_an_explainer():
    from tasks_catalog.predicates import explainers

    assert set(explainers()) == set(primitives())


def test_a_true_predicate_has_no_explanation_and_a_long_one_is_counted_past_the_cap():
    from runstore.records import EXPLAINED_CLAUSES
    from tasks_catalog.predicates import explain

    case = next(c for c in CASES if c.server == "slack" and c.expected and "slack.channelExists" in c.predicate)
    state = get_spec("slack").state_model.load(case.state)
    assert explain(case.predicate, state) == ([], 0)
    missing = [{"slack.channelExists": {"channel": f"nope-{i}"}} for i in range(EXPLAINED_CLAUSES + 3)]
    clauses, omitted = explain({"all": missing}, state)
    assert [c.clause for c in clauses] == [f"$.all[{i}]" for i in range(EXPLAINED_CLAUSES)] and omitted == 3
    assert "no channel named or with id 'nope-0'; channels: #release-train" in clauses[0].found


def test_an_explainer_that_breaks_costs_the_text_never_the_verdict(monkeypatch):
    from tasks_catalog.predicates import _registry, explain

    def broken(state, args):
        raise KeyError("boom")

    monkeypatch.setitem(_registry._EXPLAINERS, "slack.channelArchived", broken)
    case = next(c for c in CASES if c.name == "channelArchived false for an active channel")
    (clause,), _ = explain(case.predicate, get_spec("slack").state_model.load(case.state))
    assert clause.clause == "$" and clause.found == "(the state could not be described: KeyError)"


def test_the_corpus_has_cross_server_cases_of_two_three_and_four_servers_both_true_and_false():
    cross = [c for c in CASES if not isinstance(c.server, str)]
    assert {len(c.server) for c in cross} == {2, 3, 4}
    assert {c.expected for c in cross} == {True, False}
    for case in cross:
        used = {key.split(".")[0] for key in _primitive_keys(case.predicate)}
        assert len(used) >= 2 and used <= set(case.server), case.id


def _primitive_keys(pred):
    (key, body), = pred.items()
    if key in ("all", "any"):
        return [k for sub in body for k in _primitive_keys(sub)]
    return _primitive_keys(body) if key == "not" else [key]


def test_a_cross_server_predicate_decides_each_primitive_on_its_own_servers_state():
    """The same fact asked of the right server and of a server that has a lookalike entity: a Linear
    issue and a GitHub issue both numbered in the text, a Slack channel and nothing of that name elsewhere."""
    (case,) = [c for c in CASES if c.name == "an issue number of one server is not looked up on another"]
    states = case.load()
    assert evaluate({"linear.issueState": {"issue": "ENG-7", "state": "Done"}}, states) is True
    assert evaluate({"github.issueClosed": {"repo": "ferrylane/booking-api", "issue": 17}}, states) is False
    assert evaluate({"github.issueClosed": {"repo": "ferrylane/booking-api", "issue": 12}}, states) is True
