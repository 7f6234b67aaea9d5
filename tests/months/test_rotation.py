"""A private month of the demonstration pool: 160 gated tasks, at least 40% cross-server and 30% hard,
stratified, its hard tier cross-server (single-server hard templates measured easy), with recovery in
every server; the next month keeps about 75% of its templates with fresh
parameters and replaces about 25%, leaked ones first (tests/months/test_cross_server_rotation.py checks
the cross-server draw on small months)."""

from collections import Counter

import pytest

from servers import SERVER_NAMES
from tasks_catalog.hashing import task_hash
from tasks_catalog.rotation import (
    CROSS,
    MAX_INSTANCES,
    PER_SERVER,
    REPLACE_SHARE,
    Month,
    build_month,
    check_pool,
    cross_quota,
)
from tasks_catalog.schema import CROSS_SERVER
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


def test_the_demo_pool_has_twenty_templates_per_server_with_recovery_and_a_months_cross_server_share(pool):
    per_server = Counter(t.server for t in pool)
    assert all(per_server[s] >= 20 for s in SERVER_NAMES), per_server
    assert all(sum(t.category == "recovery" and t.server == s for t in pool) >= 2 for s in SERVER_NAMES)
    assert check_pool(pool)[CROSS] >= 16  # check_pool raises, naming the level, when a level is short


def test_a_month_has_160_tasks_at_least_40_percent_cross_server_and_30_percent_hard(december):
    assert len(december.tasks) == 160 and len({t.id for t in december.tasks}) == 160
    for server in SERVER_NAMES:
        mine = [t for t in december.tasks if t.server == server]
        assert len(mine) == PER_SERVER
        assert Counter(t.difficulty for t in mine) == {"easy": 5, "medium": 1}, server
        assert sum(t.category == "recovery" for t in mine) >= 2
    cross = [t for t in december.tasks if t.server is None]
    assert Counter(t.difficulty for t in cross) == cross_quota() == {"easy": 10, "medium": 40, "hard": 50}
    assert len(cross) / len(december.tasks) >= 0.40
    assert sum(t.difficulty == "hard" for t in december.tasks) / len(december.tasks) >= 0.30
    assert all(2 <= len(t.server_names) <= 4 for t in cross)


def test_every_task_of_a_rotated_month_passed_the_acceptance_gate_with_both_verifiers(full_month, rotated_months):
    """The session's months were gated inside ``rotate`` (tests/conftest.py); the gate is not run twice: the
    ten-server month, and the smaller months the store tests read."""
    from tasks_catalog import ts_verifier

    assert full_month["tasks"] == 160 and full_month["by_server"][CROSS_SERVER] == 100
    for report in [full_month, *rotated_months["reports"].values()]:
        assert report["gate_failures"] == []
        assert report["verifiers"] == (["python", "typescript"] if ts_verifier.available() else ["python"])


def test_the_same_secret_and_month_give_the_same_month_and_another_secret_does_not(pool, december):
    again = build_month(pool, "2026-12", month_seed("2026-12", SECRET))
    assert [task_hash(t) for t in again.tasks] == [task_hash(t) for t in december.tasks]
    other = build_month(pool, "2026-12", month_seed("2026-12", SECRET + "-other"))
    assert {task_hash(t) for t in other.tasks}.isdisjoint({task_hash(t) for t in december.tasks})


def test_the_next_month_replaces_a_quarter_and_perturbs_the_rest(december, january):
    before = {t.template.id: t for t in december.tasks if t.server}
    after = {t.template.id: t for t in january.tasks if t.server}
    kept = set(before) & set(after)
    per_server = round(PER_SERVER * REPLACE_SHARE)
    single = {old for old in january.replaced if old in {t.template.id for t in december.tasks if t.server}}
    assert len(january.tasks) == 160 and len(single) == per_server * len(SERVER_NAMES)
    assert single == set(before) - set(after)
    assert set(january.replaced.values()).isdisjoint({t.template.id for t in december.tasks}), \
        "replacements come from templates unused last month"
    for tid in kept:
        old, new = before[tid], after[tid]
        assert old.template.params != new.template.params, tid
        assert task_hash(old) != task_hash(new) and old.id != new.id


def test_tasks_flagged_as_leaked_are_replaced_first(pool, december):
    leaked = {t.id for t in december.tasks if t.server == "slack"}  # more than the quarter slack replaces
    leaked_templates = {t.template.id for t in december.tasks if t.id in leaked}
    january = build_month(pool, "2027-01", month_seed("2027-01", SECRET), december, leaked)
    replaced_slack = {old for old in january.replaced if old in leaked_templates}
    assert len(replaced_slack) == len(leaked_templates) and set(january.leaked_replaced) == replaced_slack
    one = {next(t.id for t in december.tasks if t.server == "github")}
    feb = build_month(pool, "2027-01", month_seed("2027-01", SECRET), december, one)
    assert next(t.template.id for t in december.tasks if t.id in one) in feb.replaced


def test_a_month_of_the_earlier_composition_rotates_into_this_ones_strata(pool, december, monkeypatch):
    """A month rotated before single-server hard templates left the month (3 easy, 3 medium, 3 hard a server):
    the next month retires the hard ones and the surplus medium ones, and fills each server's easy share."""
    import tasks_catalog.rotation as rotation

    monkeypatch.setattr(rotation, "STRATA", {"easy": 3, "medium": 3, "hard": 3})
    monkeypatch.setattr(rotation, "PER_SERVER", 9)
    old = build_month(pool, "2026-11", month_seed("2026-11", SECRET))
    assert Counter(t.difficulty for t in old.tasks if t.server == "slack") == {"easy": 3, "medium": 3, "hard": 3}
    monkeypatch.undo()
    after = build_month(pool, "2026-12", month_seed("2026-12", SECRET), old)
    for server in SERVER_NAMES:
        mine = [t for t in after.tasks if t.server == server]
        assert Counter(t.difficulty for t in mine) == {"easy": 5, "medium": 1}, server
        assert sum(t.category == "recovery" for t in mine) >= 2
    kept = {t.template.id for t in after.tasks} & {t.template.id for t in old.tasks if t.server}
    assert kept and all(t.difficulty != "hard" for t in after.tasks if t.template.id in kept)


def test_a_leaked_hard_template_retires_though_the_month_uses_every_hard_template(pool, december):
    hard = [t for t in december.tasks if t.server is None and t.difficulty == "hard"]
    templates = {t.template.id for t in hard}
    assert templates == {t.id for t in pool if t.servers and t.difficulty == "hard"}  # no spare to swap in
    january = build_month(pool, "2027-01", month_seed("2027-01", SECRET), december, {hard[0].id})
    after = [t for t in january.tasks if t.server is None and t.difficulty == "hard"]
    assert hard[0].template.id in january.leaked_replaced
    assert hard[0].template.id not in {t.template.id for t in after} and len(after) == 50
    assert max(Counter(t.template.id for t in after).values()) <= MAX_INSTANCES


def test_a_month_survives_its_json_round_trip(december):
    assert Month.from_json(december.to_json()).attestation() == december.attestation()
