"""A sealed month's published ``(task_id, sha256)`` list is a hiding commitment: rendering candidate
parameters from the public pool and its public ranges reproduces no hash and no id, even when the
candidates include the month's true parameters; only the operator, with the secret, rebuilds the
month; and the retired month's published plaintext still verifies."""

from __future__ import annotations

import json
from datetime import date

import pytest
from click.testing import CliRunner

from mcpbench.cli import main
from runstore.store import open_store
from tasks_catalog.hashing import canonical_json, task_hash
from tasks_catalog.months import attestation_key, historical_keys, load_month, rotate
from tasks_catalog.rotation import build_month
from tasks_catalog.sealed import month_seed
from tasks_catalog.templates import instantiate, render, sample_params
from tests.months.conftest import SECRET

#: Public guesses per task: parameter draws (and the nonces those guessed seeds would give). The true
#: parameters are among the candidates too, the strongest guess there is: more draws add time, not strength.
GUESSES = 4


@pytest.fixture(scope="module")
def months(tmp_path_factory, pool):
    store = open_store(str(tmp_path_factory.mktemp("store")))
    rotate(store, "2026-11", secret=SECRET, pool=pool, gate=False)
    rotate(store, "2026-12", secret=SECRET, pool=pool, gate=False, today=date(2026, 12, 1))
    return store


def _published(store, month: str) -> list[dict[str, str]]:
    return json.loads(store.get_bytes(attestation_key(month)))["tasks"]


def _unsalted_id_digest(template_id: str, params: dict) -> str:
    """How an id used to be made: a plain digest of the parameters (anyone can recompute it)."""
    import hashlib

    return hashlib.sha256(canonical_json({"t": template_id, "p": params})).hexdigest()[:10]


def test_brute_force_over_the_public_pool_recovers_no_task_of_a_sealed_month(months, pool):
    published = _published(months, "2026-12")
    assert len(published) == 160
    # the worst case for the defender: the attacker's candidates include the true parameters
    sealed = {t.id: t for t in load_month(months, "2026-12", SECRET).tasks}
    truth = {tid: t.template.params for tid, t in sealed.items()}
    by_id = {t.id: t for t in pool}
    attempts = hash_hits = id_hits = 0
    for entry in published:
        template = by_id[max((tid for tid in by_id if entry["task_id"].startswith(tid + "-")), key=len)]
        suffix = entry["task_id"].removeprefix(template.id + "-")
        candidates = [truth[entry["task_id"]]]
        candidates += [sample_params(template, f"guess-{i}".encode()) for i in range(GUESSES)]
        nonces = [render(template, f"guess-{i}".encode()).nonce for i in range(2)]
        for params in candidates:
            id_hits += _unsalted_id_digest(template.id, params) == suffix
            doc = instantiate(template, params, task_id=entry["task_id"], nonce=nonces[0]).to_json()
            doc.pop("$schema", None)
            guesses = [{k: v for k, v in doc.items() if k != "nonce"}] + [dict(doc, nonce=n) for n in nonces]
            if params is candidates[0]:  # control: the true parameters rebuild everything but the nonce
                real = sealed[entry["task_id"]].to_json()
                assert {k: v for k, v in real.items() if k not in ("nonce", "$schema")} == guesses[0]
            for guess in guesses:
                attempts += 1
                hash_hits += task_hash(guess) == entry["sha256"]
    assert attempts == 160 * (GUESSES + 1) * 3
    assert (hash_hits, id_hits) == (0, 0)


def test_the_operator_rebuilds_the_sealed_month_hash_for_hash(months, pool):
    previous = load_month(months, "2026-11", SECRET)
    again = build_month(pool, "2026-12", month_seed("2026-12", SECRET), previous)
    assert again.attestation() == _published(months, "2026-12")


def test_the_same_parameters_under_another_secret_give_another_id_nonce_and_hash(pool):
    template = pool[0]
    mine = render(template, month_seed("2026-12", SECRET))
    theirs = render(template, month_seed("2026-12", SECRET + "-someone-else"))
    forced = instantiate(template, mine.template.params, task_id=theirs.id, nonce=theirs.nonce)
    assert mine.id != theirs.id and mine.nonce != theirs.nonce
    assert task_hash(forced) != task_hash(mine)


def test_nonces_are_published_only_with_the_plaintext_at_retirement(months):
    live = months.get_bytes(attestation_key("2026-12")).decode()
    sealed_tasks = load_month(months, "2026-12", SECRET).tasks
    assert not any(t.nonce in live for t in sealed_tasks)
    tasks_key, _ = historical_keys("Historical-2026-11")
    retired = json.loads(months.get_bytes(tasks_key))
    assert len(retired) == 160 and all(len(doc["nonce"]) == 64 for doc in retired)
    assert not any(k.startswith("public/historical/Historical-2026-12") for k in months.list(""))


def test_attest_verify_of_the_retired_months_plaintext_passes(months):
    result = CliRunner().invoke(main, ["attest", "verify", "Historical-2026-11", "--store", months.root])
    assert result.exit_code == 0, result.output
    assert "160 tasks checked, 0 problems" in result.output
