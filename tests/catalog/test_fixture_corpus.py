import pytest

from servers import get_spec
from tasks_catalog.fixtures import load_cases
from tasks_catalog.predicates import check, evaluate, primitives

CASES = load_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_the_python_verifier_gives_the_expected_verdict(case):
    assert check(case.predicate, case.server) == []
    state = get_spec(case.server).state_model.load(case.state)
    assert evaluate(case.predicate, state) is case.expected


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
