"""A task, template or server-state file larger than its bound is refused by size before it is read whole
or parsed, naming the file and the limit (a 50 MB task file took 6.26 GB of memory to judge): in
`tasks validate`, `tasks hash`, `run --tasks-dir`, the template loader and `serve --state`; a retired
month's published plaintext likewise in `attest verify`. Every other file is still judged."""

from __future__ import annotations

import json
import shutil
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcpbench.cli import main
from runstore.store import PUBLISHED_MAX_BYTES, StoreError, open_store
from servers.kit.safejson import MAX_BYTES, TooLargeError, read_document
from tasks_catalog.hashing import task_hash
from tasks_catalog.loader import load_task_file
from tasks_catalog.templates import POOL_DIR, TemplateError, load_template

ROOT = Path(__file__).resolve().parents[2]
GOOD = ROOT / "tests" / "catalog" / "inline_tasks" / "fs-set-log-level.json"
LIMIT = f"larger than {MAX_BYTES:,} bytes"


def _padded(source: Path, target: Path, size: int) -> Path:
    """``source`` as valid JSON grown to ``size`` bytes with whitespace: a document that would load."""
    text = source.read_text(encoding="utf-8").rstrip()
    target.write_text(text + " " * (size - len(text.encode())), encoding="utf-8")
    assert target.stat().st_size == size
    return target


def _sparse(path: Path, size: int) -> Path:
    """A file of ``size`` bytes that takes no disk space (all NUL)."""
    with open(path, "wb") as f:
        f.truncate(size)
    return path


@pytest.fixture
def folder(tmp_path):
    shutil.copy(GOOD, tmp_path / "good.json")
    doc = json.loads(GOOD.read_text(encoding="utf-8"))
    doc["id"], doc["nonce"] = "fs-big", "5d1e0b7a3c9f48e2a6b04d17c8e95f32"
    (tmp_path / "big.src").write_text(json.dumps(doc), encoding="utf-8")
    _padded(tmp_path / "big.src", tmp_path / "big.json", MAX_BYTES + 1)
    (tmp_path / "big.src").unlink()
    return tmp_path


def test_a_file_one_byte_over_the_bound_is_refused_and_one_at_the_bound_is_read(tmp_path):
    at = _padded(GOOD, tmp_path / "at.json", MAX_BYTES)
    assert json.loads(read_document(at))["id"] == "fs-set-log-level"
    over = _padded(GOOD, tmp_path / "over.json", MAX_BYTES + 1)
    with pytest.raises(TooLargeError, match=f"over.json: {LIMIT}"):
        read_document(over)


def test_a_50_mb_task_file_is_refused_without_being_read(tmp_path):
    big = _sparse(tmp_path / "big.json", 50 * 1024 * 1024)
    tracemalloc.start()
    try:
        task, errors = load_task_file(big)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert task is None and [(e.task, e.path) for e in errors] == [(str(big), "$")]
    assert errors[0].message.startswith(LIMIT) and "refused before parsing" in errors[0].message
    assert peak < MAX_BYTES, f"{peak:,} bytes allocated to refuse it"


def test_tasks_validate_names_the_file_and_the_limit_and_judges_the_others(folder):
    result = CliRunner().invoke(main, ["tasks", "validate", "--no-typescript", str(folder)])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert f"FAIL {folder / 'big.json'}: $: {LIMIT}" in result.output
    assert "1 valid, 1 failed, 2 tasks" in result.output


def test_tasks_hash_names_the_file_and_the_limit_and_hashes_the_others(folder):
    result = CliRunner().invoke(main, ["tasks", "hash", str(folder / "good.json"), str(folder / "big.json")])
    assert result.exit_code == 1
    assert f"error: {folder / 'big.json'}: {LIMIT}" in result.stderr
    assert result.stdout.strip().endswith(f"  {folder / 'good.json'}")


def test_run_with_a_tasks_dir_runs_the_good_task_and_names_the_big_file(folder, tmp_path_factory):
    store = tmp_path_factory.mktemp("store")
    result = CliRunner().invoke(main, ["run", "--agent", "oracle", "--tasks-dir", str(folder), "--store", str(store),
                                       "--json"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"error: {folder / 'big.json'}: $: {LIMIT}" in result.stderr
    assert json.loads(result.stdout)["passed"] == 1


def test_a_template_over_the_bound_is_a_template_error_naming_the_file(tmp_path):
    source = next(POOL_DIR.rglob("*.json"))
    big = _padded(source, tmp_path / "big-template.json", MAX_BYTES + 1)
    with pytest.raises(TemplateError, match=f"big-template.json: {LIMIT}"):
        load_template(big)
    assert load_template(_padded(source, tmp_path / "fine.json", MAX_BYTES)).id


def test_serve_refuses_a_state_file_over_the_bound_naming_it(tmp_path):
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"channels": []}), encoding="utf-8")
    big = _padded(state, tmp_path / "big-state.json", MAX_BYTES + 1)
    result = CliRunner().invoke(main, ["serve", "slack", "--state", str(big)])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert f"bad state for server slack:\n{big}: {LIMIT}" in result.output


def _publish(store, tasks_json: bytes) -> None:
    """A retired month 2026-05 as it is published: the list committed at its start, and its plaintext."""
    doc = json.loads(GOOD.read_text(encoding="utf-8"))
    store.put_bytes("public/attestations/2026-05.json", json.dumps(
        {"month": "2026-05", "tasks": [{"task_id": doc["id"], "sha256": task_hash(doc)}]}).encode())
    store.put_bytes("public/historical/Historical-2026-05/attestation.json", b"{}")
    store.put_bytes("public/historical/Historical-2026-05/tasks.json", tasks_json)


def test_attest_verify_refuses_a_published_plaintext_over_the_bound_by_size(tmp_path):
    store = open_store(str(tmp_path / "store"))
    plaintext = ("[" + GOOD.read_text(encoding="utf-8") + "]").encode()
    _publish(store, plaintext)
    fine = CliRunner().invoke(main, ["attest", "verify", "Historical-2026-05", "--store", store.root])
    assert fine.exit_code == 0 and "1 tasks checked, 0 problems" in fine.output, fine.output

    _publish(store, plaintext + b" " * (PUBLISHED_MAX_BYTES + 1 - len(plaintext)))  # still valid, and matching
    result = CliRunner().invoke(main, ["attest", "verify", "Historical-2026-05", "--store", store.root])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert (f"{store.url('public/historical/Historical-2026-05/tasks.json')} is larger than "
            f"{PUBLISHED_MAX_BYTES:,} bytes") in result.output


@pytest.fixture
def endpoint(monkeypatch):
    from tests.warehouse.conftest import moto_endpoint

    yield from moto_endpoint(monkeypatch)


def test_a_bounded_read_from_s3_asks_for_no_more_than_the_bound(endpoint):
    store = open_store("s3://bench/published", attempts=1)
    store.put_bytes("public/a.json", b"x" * 2000)
    store.put_bytes("public/empty.json", b"")
    ranges = []
    store.client.meta.events.register("before-send.s3.GetObject",
                                      lambda request, **kw: ranges.append(request.headers.get("Range")))
    assert store.get_bytes("public/a.json", limit=2000) == b"x" * 2000
    with pytest.raises(StoreError, match=r"public/a.json is larger than 1,999 bytes"):
        store.get_bytes("public/a.json", limit=1999)
    assert store.get_bytes("public/empty.json", limit=10) == b""
    assert [r.decode() if isinstance(r, bytes) else r for r in ranges[:2]] == ["bytes=0-2000", "bytes=0-1999"]
