"""An operator's private template pool is sealed into the store (``mcpbench author seal-pool``) and every
later rotation renders from it, with no plaintext at rest and no fallback to the public pool."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcpbench.cli import main
from runstore.store import open_store
from tasks_catalog.months import POOL_KEY, load_month, rotate
from tasks_catalog.rotation import PER_SERVER, drawn_levels
from tasks_catalog.sealed import SealError
from tasks_catalog.templates import POOL_DIR, load_pool
from tests.months.conftest import SECRET


def private_pool(root: Path, *, drop: str | None = None) -> Path:
    """The demonstration pool as an operator's own: every template under another id (``op-...``), so a
    month rendered from it is told apart from one rendered from the public pool; ``drop`` leaves out all
    but three of that server's templates."""
    for path in sorted(POOL_DIR.rglob("*.json")):
        folder = root / path.parent.name
        folder.mkdir(parents=True, exist_ok=True)
        if path.parent.name == drop and len(list(folder.glob("*.json"))) >= 3:
            continue
        doc = json.loads(path.read_text(encoding="utf-8"))
        doc["id"] = "op-" + doc["id"]
        (folder / f"op-{path.name}").write_text(json.dumps(doc), encoding="utf-8")
    return root


def seal(pool: Path, store: Path, *extra: str):
    return CliRunner().invoke(main, ["author", "seal-pool", str(pool), "--store", str(store), *extra])


def test_a_sealed_pool_is_what_the_next_rotation_renders_from(tmp_path, monkeypatch):
    monkeypatch.setenv("MCPBENCH_SECRET", SECRET)
    pool = private_pool(tmp_path / "pool")
    result = seal(pool, tmp_path / "store")
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"sealed {len(load_pool())} templates (20 browser, 20 calendar, ")
    assert f"{sum(t.servers is not None for t in load_pool())} cross-server)" in result.output
    assert "op-" not in result.output  # counts only

    store = open_store(str(tmp_path / "store"))
    blob = store.get_bytes(POOL_KEY)
    for plaintext in (b"op-sl-t-post-message", b'"params"', b'"choice"', b"reference_solution"):
        assert plaintext not in blob  # nothing readable at rest

    shutil.rmtree(pool)  # the plaintext folder need not stay beside the pipeline
    report = rotate(store, "2026-12", secret=SECRET, gate=False)  # no pool given: the operator's sealed one
    month = load_month(store, "2026-12", SECRET)
    assert report.tasks == len(month.tasks) == 160
    assert all(t.template.id.startswith("op-") and t.id.startswith("op-") for t in month.tasks)

    with pytest.raises(SealError, match="cannot open the sealed pool"):  # never the public pool instead
        rotate(store, "2027-01", secret="another-operator-secret-0123456789", gate=False)


def test_a_pool_already_sealed_is_replaced_only_when_asked(tmp_path, monkeypatch):
    monkeypatch.setenv("MCPBENCH_SECRET", SECRET)
    pool = private_pool(tmp_path / "pool")
    assert seal(pool, tmp_path / "store").exit_code == 0
    first = open_store(str(tmp_path / "store")).get_bytes(POOL_KEY)

    again = seal(pool, tmp_path / "store")
    assert again.exit_code == 1 and "already holds a sealed pool" in again.output and "--replace" in again.output
    assert open_store(str(tmp_path / "store")).get_bytes(POOL_KEY) == first

    assert seal(pool, tmp_path / "store", "--replace").exit_code == 0
    assert open_store(str(tmp_path / "store")).get_bytes(POOL_KEY) != first  # sealed afresh (a new nonce)


def test_a_pool_that_cannot_fill_a_month_or_has_no_secret_is_refused_and_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.delenv("MCPBENCH_SECRET", raising=False)
    pool = private_pool(tmp_path / "pool")
    refused = seal(pool, tmp_path / "store")
    assert refused.exit_code == 1 and "MCPBENCH_SECRET" in refused.output

    monkeypatch.setenv("MCPBENCH_SECRET", SECRET)
    small = private_pool(tmp_path / "small", drop="notion")
    refused = seal(small, tmp_path / "store")
    assert refused.exit_code == 1
    drawn = " or ".join(drawn_levels())  # its three: two medium, one hard (a month draws no single-server hard one)
    assert f"the pool cannot fill a month: the pool has 2 {drawn} templates for notion; a month needs {PER_SERVER}" \
        in refused.output
    assert not open_store(str(tmp_path / "store")).exists(POOL_KEY)
