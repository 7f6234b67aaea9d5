"""A private month: 160 gated tasks, stratified, with recovery in every server; the next month keeps
about 75% of its templates with fresh parameters and replaces about 25%, leaked ones first."""

from collections import Counter

import pytest

from servers import SERVER_NAMES
from tasks_catalog.hashing import task_hash
from tasks_catalog.rotation import Month, build_month
from tasks_catalog.sealed import month_seed
from tests.months.conftest import SECRET

#: the session's gated months (tests/conftest.py) may be built inside the first test that asks for them
pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def december(pool):
    return build_month(pool, "2026-12", month_seed("2026-12", SECRET))


@pytest.fixture(scope="module")
def january(pool, december):
    return build_month(pool, "2027-01", month_seed("2027-01", SECRET), december)


def test_the_demo_pool_has_twenty_templates_per_server_with_recovery(pool):
    per_server = Counter(t.server for t in pool)
    assert all(per_server[s] >= 20 for s in SERVER_NAMES), per_server
    assert all(sum(t.category == "recovery" and t.server == s for t in pool) >= 2 for s in SERVER_NAMES)


def test_a_month_has_sixteen_stratified_tasks_per_server_with_recovery(december):
    assert len(december.tasks) == 160 and len({t.id for t in december.tasks}) == 160
    for server in SERVER_NAMES:
        mine = [t for t in december.tasks if t.server == server]
        assert len(mine) == 16
        levels = Counter(t.difficulty for t in mine)
        assert all(levels[d] >= 4 for d in ("easy", "medium", "hard")), (server, levels)
        assert sum(t.category == "recovery" for t in mine) >= 2


def test_every_task_of_a_rotated_month_passed_the_acceptance_gate_with_both_verifiers(rotated_months):
    """The session's months were gated inside ``rotate`` (tests/conftest.py); the gate is not run twice."""
    from tasks_catalog import ts_verifier

    for report in rotated_months["reports"].values():
        assert report["tasks"] == 160 and report["gate_failures"] == []
        assert report["verifiers"] == (["python", "typescript"] if ts_verifier.available() else ["python"])


def test_the_same_secret_and_month_give_the_same_month_and_another_secret_does_not(pool, december):
    again = build_month(pool, "2026-12", month_seed("2026-12", SECRET))
    assert [task_hash(t) for t in again.tasks] == [task_hash(t) for t in december.tasks]
    other = build_month(pool, "2026-12", month_seed("2026-12", SECRET + "-other"))
    assert {task_hash(t) for t in other.tasks}.isdisjoint({task_hash(t) for t in december.tasks})


def test_the_next_month_replaces_a_quarter_and_perturbs_the_rest(december, january):
    before = {t.template.id: t for t in december.tasks}
    after = {t.template.id: t for t in january.tasks}
    kept = set(before) & set(after)
    assert len(after) == 160 and len(january.replaced) == 40 and len(kept) == 120
    assert set(january.replaced) == set(before) - set(after)
    assert set(january.replaced.values()).isdisjoint(before), "replacements come from templates unused last month"
    for tid in kept:
        old, new = before[tid], after[tid]
        assert old.template.params != new.template.params, tid
        assert task_hash(old) != task_hash(new) and old.id != new.id


def test_tasks_flagged_as_leaked_are_replaced_first(pool, december):
    leaked = {t.id for t in december.tasks if t.server == "slack"}  # more than the quarter slack replaces
    leaked_templates = {t.template.id for t in december.tasks if t.id in leaked}
    january = build_month(pool, "2027-01", month_seed("2027-01", SECRET), december, leaked)
    replaced_slack = {old for old in january.replaced if old in leaked_templates}
    assert len(replaced_slack) == 4 and set(january.leaked_replaced) == replaced_slack
    one = {next(t.id for t in december.tasks if t.server == "github")}
    feb = build_month(pool, "2027-01", month_seed("2027-01", SECRET), december, one)
    assert next(t.template.id for t in december.tasks if t.id in one) in feb.replaced


def test_a_month_survives_its_json_round_trip(december):
    assert Month.from_json(december.to_json()).attestation() == december.attestation()
