"""The TypeScript verifier for these tests: skipped only when node is missing; built when it is not
built yet or its sources are newer than the build (under a lock, as xdist workers share it)."""

from __future__ import annotations

import fcntl
import shutil
import tempfile
from pathlib import Path

import pytest

from tasks_catalog import ts_verifier


def _stale() -> bool:
    if not ts_verifier.CLI.exists():
        return True
    built = ts_verifier.CLI.stat().st_mtime
    sources = [*(ts_verifier.PACKAGE / "src").rglob("*.ts"), ts_verifier.PACKAGE / "package-lock.json"]
    return any(p.stat().st_mtime > built for p in sources)


@pytest.fixture(scope="session")
def ts_cli() -> Path:
    if shutil.which("node") is None:
        pytest.skip("node is not installed, so the TypeScript verifier cannot run (CI installs Node 20)")
    lock = Path(tempfile.gettempdir()) / "mcpbench-verifier-ts-build.lock"
    with lock.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            if _stale():
                if shutil.which("npm") is None:
                    pytest.fail(f"{ts_verifier.CLI} is missing or stale and npm is not installed to build it")
                try:
                    ts_verifier.build()
                except ts_verifier.TypeScriptVerifierError as exc:
                    pytest.fail(f"could not build the TypeScript verifier: {exc}")
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
    assert ts_verifier.available(), ts_verifier.unavailable_reason()
    return ts_verifier.CLI
