import pytest

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
