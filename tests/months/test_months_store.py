"""Months in the store: sealed at rest, attested at the start, published and verifiable when retired."""

import json

import pytest
from click.testing import CliRunner

from mcpbench.cli import main
from runstore.store import open_store
from tasks_catalog.months import MonthError, load_month, rotate, verify_historical
from tasks_catalog.rotation import CROSS_PER_SERVER, PER_SERVER, REPLACE_SHARE
from tasks_catalog.schema import CROSS_SERVER
from tasks_catalog.sealed import SealError
from tests.months.conftest import SECRET

#: the session's gated months (tests/conftest.py) may be built inside the first test that asks for them
pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def rotated(rotated_months):
    """The session's two gated months (tests/conftest.py), read-only."""
    reports = rotated_months["reports"]
    return open_store(str(rotated_months["store"])), reports["2026-11"], reports["2026-12"]


@pytest.fixture(scope="module")
def size(rotated_months):
    """How many tasks a month of the shared months' servers has: each server's, and the cross-server share."""
    k = len(rotated_months["servers"])
    return (PER_SERVER + sum(CROSS_PER_SERVER.values())) * k


def test_rotation_seals_attests_and_retires_the_month_before(rotated, rotated_months, size):
    store, first, second = rotated
    assert first["tasks"] == size and first["gate_failures"] == [] and first["retired"] is None
    assert first["by_server"][CROSS_SERVER] == sum(CROSS_PER_SERVER.values()) * len(rotated_months["servers"])
    november = {t.template.id for t in load_month(store, "2026-11", SECRET).tasks}
    assert second["retired"] == "Historical-2026-11"
    assert second["replaced"] >= round(PER_SERVER * REPLACE_SHARE) * len(rotated_months["servers"])
    assert second["carried"] + second["replaced"] == len(november)  # every template of November: kept or replaced
    keys = store.list("")
    assert "private/months/2026-11.sealed" in keys and "private/months/2026-12.sealed" in keys
    assert "public/attestations/2026-12.json" in keys
    assert "public/historical/Historical-2026-11/tasks.json" in keys
    assert not any(k.startswith("public/historical/Historical-2026-12") for k in keys), "a live month stays sealed"
    attested = json.loads(store.get_bytes("public/attestations/2026-12.json"))
    assert len(attested["tasks"]) == size and set(attested["tasks"][0]) == {"task_id", "sha256"}


def test_a_month_opens_only_with_the_operators_secret(rotated, size):
    store, _, _ = rotated
    assert len(load_month(store, "2026-12", SECRET).tasks) == size
    with pytest.raises(SealError):
        load_month(store, "2026-12", "someone-elses-secret-0000")
    with pytest.raises(MonthError, match="has not been built"):
        load_month(store, "2030-01", SECRET)


def test_a_month_is_built_once(rotated, pool):
    store, _, _ = rotated
    with pytest.raises(MonthError, match="already built"):
        rotate(store, "2026-12", secret=SECRET, pool=pool)


def test_attest_verify_passes_on_a_retired_month_and_names_a_tampered_task(rotated, size, tmp_path):
    store, _, _ = rotated
    report = verify_historical(store, "Historical-2026-11")
    assert report.ok and report.checked == size
    runner = CliRunner()
    ok = runner.invoke(main, ["attest", "verify", "Historical-2026-11", "--store", store.root])
    assert ok.exit_code == 0 and f"{size} tasks checked, 0 problems" in ok.output

    tampered = open_store(str(tmp_path / "copy"))
    for key in store.list("public/"):
        tampered.put_bytes(key, store.get_bytes(key))
    docs = json.loads(tampered.get_bytes("public/historical/Historical-2026-11/tasks.json"))
    victim = docs[7]
    victim["max_steps"] += 1
    tampered.put_bytes("public/historical/Historical-2026-11/tasks.json", json.dumps(docs).encode())
    report = verify_historical(tampered, "Historical-2026-11")
    assert not report.ok and len(report.problems) == 1 and report.problems[0].startswith(victim["id"])
    bad = runner.invoke(main, ["attest", "verify", "Historical-2026-11", "--store", tampered.root])
    assert bad.exit_code == 1 and victim["id"] in bad.output


def test_verify_of_an_unknown_tag_says_what_is_missing(rotated):
    store, _, _ = rotated
    with pytest.raises(MonthError, match="nothing published"):
        verify_historical(store, "Historical-2020-01")
    with pytest.raises(MonthError, match="Historical-YYYY-MM"):
        verify_historical(store, "2026-11")
