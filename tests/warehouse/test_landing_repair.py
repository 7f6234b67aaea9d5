"""A landing that fails is retried, then leaves nothing half-written; a landing a kill interrupted is
finished (or undone) when the evaluation resumes, so no complete run stays marked "not landed"."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from runstore.store import LocalStore, StoreError, open_store
from tests.warehouse.conftest import err, make_calls, make_run, ok

ROOT = Path(__file__).resolve().parents[2]


class FlakyStore(LocalStore):
    """A local store whose writes of keys starting with ``prefix`` fail ``failures`` times."""

    def __init__(self, root, prefix: str, failures: int) -> None:
        super().__init__(root, fsync=False)
        self.prefix, self.failures, self.tries = prefix, failures, 0
        self.land_backoff_s = 0.001

    def _put(self, key: str, data: bytes) -> None:
        if key.startswith(self.prefix):
            self.tries += 1
            if self.tries <= self.failures:
                raise StoreError(f"could not write {key}: [Errno 5] Input/output error")
        super()._put(key, data)


def test_a_write_that_fails_twice_is_retried_and_the_run_lands(tmp_path):
    store = FlakyStore(tmp_path, "runs/", failures=2)
    run = make_run("r1")
    store.land_run(run, make_calls(run, [ok(), err()]))
    assert store.tries == 3 and store.has_run("r1")
    assert store.read_calls().num_rows == 2


def test_a_landing_that_keeps_failing_names_the_run_and_leaves_nothing_behind(tmp_path):
    store = FlakyStore(tmp_path, "runs/", failures=100)
    run = make_run("r1")
    with pytest.raises(StoreError, match=r"run r1 did not land \(3 tries\): could not write runs/"):
        store.land_run(run, make_calls(run, [ok()]))
    assert store.tries == 3  # bounded
    assert store.list() == [] and not store.has_run("r1")
    assert [p for p in Path(tmp_path).rglob("*") if p.is_file()] == []


def test_a_re_landing_that_fails_after_its_calls_removes_the_mixed_run_so_it_is_run_again(tmp_path):
    good = LocalStore(tmp_path, fsync=False)
    first = make_run("r1", status="infra_error")
    good.land_run(first, [])
    store = FlakyStore(tmp_path, "runs/", failures=100)
    second = make_run("r1", status="passed")
    with pytest.raises(StoreError):
        store.land_run(second, make_calls(second, [ok(), ok()]))
    # the old row with the new calls would be a run that never happened: both are gone
    assert store.list() == [] and store.landed_run_ids("sub-a") == set()


class DiesAtTheIndex(LocalStore):
    """The service goes away while writing the index entry: that write and every later request fail."""

    def __init__(self, root) -> None:
        super().__init__(root, fsync=False)
        self.down = False
        self.land_backoff_s = 0.001

    def _put(self, key: str, data: bytes) -> None:
        self.down = self.down or key.startswith("index/")
        if self.down:
            raise StoreError(f"could not write {key}: connection refused")
        super()._put(key, data)

    def _get(self, key: str) -> bytes | None:
        if self.down:
            raise StoreError(f"could not read {key}: connection refused")
        return super()._get(key)


def test_a_landing_whose_later_attempts_fail_sooner_still_removes_what_the_first_attempt_wrote(tmp_path):
    store = DiesAtTheIndex(tmp_path)
    run = make_run("r1")
    with pytest.raises(StoreError, match="could not write index/runs/r1.json"):
        store.land_run(run, make_calls(run, [ok()]))
    assert store.list() == []  # not a complete-looking run that a resume would index


def _land_and_die(root: Path, die_at: str) -> subprocess.CompletedProcess:
    """Land r1 in a child process that is SIGKILLed just before it writes the first key under ``die_at``."""
    script = textwrap.dedent(f"""
        import os, signal
        from runstore.store import LocalStore
        from tests.warehouse.conftest import make_calls, make_run, ok

        class Dies(LocalStore):
            def _put(self, key, data):
                if key.startswith({die_at!r}):
                    os.kill(os.getpid(), signal.SIGKILL)
                super()._put(key, data)

        LocalStore({str(root)!r}).land_run(make_run("r0"), [])
        run = make_run("r1", tool_calls=2)
        Dies({str(root)!r}).land_run(run, make_calls(run, [ok(), ok()]))
    """)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, timeout=120, cwd=ROOT)


def test_a_kill_between_the_run_row_and_its_index_entry_is_indexed_on_resume(tmp_path):
    proc = _land_and_die(tmp_path, "index/runs/r1")
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()
    store = open_store(str(tmp_path))
    assert not store.has_run("r1") and store.landed_run_ids("sub-a") == {"r0", "r1"}
    report = store.repair_landings("sub-a")
    assert (report.indexed, report.removed) == (["r1"], [])
    assert store.has_run("r1") and store.read_calls("sub-a").num_rows == 2
    assert store.repair_landings("sub-a").indexed == []  # nothing left to do


def test_a_kill_after_the_calls_file_leaves_nothing_of_the_run_after_resume(tmp_path):
    proc = _land_and_die(tmp_path, "runs/")
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()
    store = open_store(str(tmp_path))
    assert store.read_calls("sub-a").num_rows == 2  # orphan calls of a run that never landed
    report = store.repair_landings("sub-a")
    assert (report.indexed, report.removed) == ([], ["r1"])
    assert store.read_calls("sub-a").num_rows == 0 and store.landed_run_ids("sub-a") == {"r0"}


def test_a_run_row_whose_calls_file_is_corrupt_is_removed_for_a_re_run_not_indexed(tmp_path):
    proc = _land_and_die(tmp_path, "index/runs/r1")
    assert proc.returncode == -signal.SIGKILL
    calls = tmp_path / "calls/month=2026-05/submission=sub-a/r1.parquet"
    calls.write_bytes(calls.read_bytes()[:40])
    store = open_store(str(tmp_path))
    report = store.repair_landings("sub-a")
    assert (report.indexed, report.removed) == ([], ["r1"])
    assert not store.has_run("r1") and store.landed_run_ids("sub-a") == {"r0"}
