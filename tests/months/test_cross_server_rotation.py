"""Cross-server templates in a month: a share of every month by level, up to MAX_INSTANCES tasks from one
template each with other parameters, none repeating last month's, a quarter of each level's templates
replaced the next month (leaked ones first), and a clear error naming the level when the pool is short.

The month here covers three servers (github, linear, slack), as a month of fewer servers than ten may in
tests, so that its cross-server templates can be small ones written here; tests/months/test_rotation.py
checks the ten-server month of the demonstration pool."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

import tasks_catalog.rotation as rotation
from tasks_catalog.rotation import MAX_INSTANCES, RotationError, build_month, check_pool, cross_quota
from tasks_catalog.sealed import month_seed
from tasks_catalog.templates import Template, load_pool
from tests.months.conftest import SECRET

CROSS_TASKS = Path(__file__).resolve().parents[1] / "cross_server_tasks"
SERVERS = ("github", "linear", "slack")
NOTES = [f"closed: shipped in release 1.{i}" for i in range(10)]


def _cross_template(n: int, difficulty: str) -> Template:
    task = json.loads((CROSS_TASKS / "x-close-fixed-bug.json").read_text(encoding="utf-8"))
    body = {k: v for k, v in task.items() if k not in ("$schema", "id", "servers", "difficulty", "category", "nonce")}
    body["reference_solution"][2]["arguments"]["text"] = "booking-api issue #17 is {{note}}"
    return Template.model_validate({"id": f"x-t-synthetic-{difficulty}-{n}", "servers": list(SERVERS),
                                    "difficulty": difficulty, "category": "standard",
                                    "params": {"note": {"choice": NOTES}}, "task": body})


def _cross_pool(easy: int, medium: int, hard: int) -> list[Template]:
    return [_cross_template(i, level) for level, k in (("easy", easy), ("medium", medium), ("hard", hard))
            for i in range(k)]


@pytest.fixture
def three_servers(monkeypatch):
    monkeypatch.setattr(rotation, "SERVER_NAMES", SERVERS)
    return [t for t in load_pool() if t.server in SERVERS]


def _december(pool):
    return build_month(pool, "2026-12", month_seed("2026-12", SECRET))


def test_a_month_draws_its_cross_server_share_by_level_at_most_max_instances_tasks_a_template(three_servers):
    pool = three_servers + _cross_pool(2, 5, 6)
    month = _december(pool)
    cross = [t for t in month.tasks if t.server is None]
    assert Counter(t.difficulty for t in cross) == cross_quota() == {"easy": 3, "medium": 12, "hard": 15}
    per_template = Counter(t.rendered_from().id for t in cross)
    assert max(per_template.values()) <= MAX_INSTANCES
    assert len(month.tasks) == len({t.id for t in month.tasks}) == 3 * rotation.PER_SERVER + 30
    for tid in per_template:
        params = [json.dumps(t.rendered_from().params) for t in cross if t.rendered_from().id == tid]
        assert len(params) == len(set(params)), f"{tid} rendered twice with the same parameters"
    assert check_pool(pool)["cross-server"] == 13


def test_the_next_month_replaces_a_quarter_of_a_levels_templates_and_never_repeats_last_months_parameters(
        three_servers):
    pool = three_servers + _cross_pool(3, 8, 8)
    december = _december(pool)
    january = build_month(pool, "2027-01", month_seed("2027-01", SECRET), december)
    before = {t.rendered_from().id for t in december.tasks if t.server is None}
    after = {t.rendered_from().id for t in january.tasks if t.server is None}
    cross_replaced = {old: new for old, new in january.replaced.items() if old.startswith("x-t-")}
    assert cross_replaced and set(cross_replaced) == before - after
    assert set(cross_replaced.values()).isdisjoint(before)
    assert all(_level(old) == _level(new) for old, new in cross_replaced.items())
    last = {(t.rendered_from().id, json.dumps(t.rendered_from().params)) for t in december.tasks}
    assert not any((t.rendered_from().id, json.dumps(t.rendered_from().params)) in last for t in january.tasks)
    assert Counter(t.difficulty for t in january.tasks if t.server is None) == cross_quota()


def _level(template_id: str) -> str:
    return template_id.split("-")[3]


def test_cross_server_tasks_flagged_as_leaked_are_replaced_first(three_servers):
    pool = three_servers + _cross_pool(3, 8, 8)
    december = _december(pool)
    hard = [t for t in december.tasks if t.server is None and t.difficulty == "hard"]
    flagged = {hard[0].id}
    january = build_month(pool, "2027-01", month_seed("2027-01", SECRET), december, flagged)
    assert hard[0].rendered_from().id in january.leaked_replaced
    assert hard[0].rendered_from().id not in {t.rendered_from().id for t in january.tasks}


def test_a_month_of_an_earlier_composition_rotates_into_this_one(three_servers, monkeypatch):
    pool = three_servers + _cross_pool(3, 8, 8)
    monkeypatch.setattr(rotation, "PER_SERVER", 12)
    monkeypatch.setattr(rotation, "CROSS_PER_SERVER", {"easy": 0, "medium": 0, "hard": 0})
    old = _december(pool)
    assert all(t.server is not None for t in old.tasks)
    monkeypatch.undo()
    monkeypatch.setattr(rotation, "SERVER_NAMES", SERVERS)
    january = build_month(pool, "2027-01", month_seed("2027-01", SECRET), old)
    assert Counter(t.server for t in january.tasks if t.server) == dict.fromkeys(SERVERS, rotation.PER_SERVER)
    assert Counter(t.difficulty for t in january.tasks if t.server is None) == cross_quota()


@pytest.mark.parametrize("levels, short", [((0, 3, 4), "easy"), ((1, 2, 4), "medium"), ((1, 3, 3), "hard")])
def test_a_pool_too_short_of_cross_server_templates_is_refused_naming_the_level(three_servers, levels, short):
    with pytest.raises(RotationError, match=rf"the pool has \d {short} cross-server templates; a month draws \d+ {short}"):
        _december(three_servers + _cross_pool(*levels))


def test_a_month_of_one_server_has_no_cross_server_tasks(monkeypatch):
    monkeypatch.setattr(rotation, "SERVER_NAMES", ("slack",))
    pool = [t for t in load_pool() if t.server == "slack"] + _cross_pool(1, 1, 1)
    month = _december(pool)
    assert cross_quota() == {"easy": 0, "medium": 0, "hard": 0}
    assert all(t.server == "slack" for t in month.tasks) and len(month.tasks) == rotation.PER_SERVER
