"""A corrupted Parquet file in the store (truncated, empty, random bytes) stops `warehouse build`, the
readers and the score card with an error naming the file and how to recover, not a traceback blaming a
SQL view, and the process exits 1 (never by SIGABRT after the message); nothing landed is touched, the
previous warehouse stays, and after the documented recovery the build succeeds."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import weakref
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from mcpbench.cli import main
from runstore.store import LocalStore
from tests.warehouse.conftest import make_calls, make_run, ok
from warehouse.build import build, connect
from warehouse.sources import CorruptFileError, unreadable_files

ROOT = Path(__file__).resolve().parents[2]

BROKEN_RUN = "runs/month=2026-05/submission=sub-a/r1.parquet"
BROKEN_CALLS = "calls/month=2026-05/submission=sub-a/r2.parquet"


@pytest.fixture
def landed(store):
    for i in range(3):
        run = make_run(f"r{i}", tool_calls=2)
        store.land_run(run, make_calls(run, [ok(), ok()]))
    return store


def _truncate(store, key: str) -> None:
    path = store.path / key
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _snapshot(store) -> dict[str, bytes]:
    return {key: store.get_bytes(key) for key in store.list()}


def test_build_names_the_corrupt_file_keeps_the_store_and_the_previous_warehouse(landed, tmp_path):
    db = tmp_path / "w.duckdb"
    build(landed, db)
    _truncate(landed, BROKEN_RUN)
    before = _snapshot(landed)

    result = CliRunner().invoke(main, ["warehouse", "build", "--store", landed.root, "--db", str(db)])
    assert result.exit_code == 1
    assert "Traceback" not in result.output and ".sql" not in result.output
    assert f"{landed.url(BROKEN_RUN)}: not a readable Parquet file" in result.output
    assert "--submission-id" in result.output and "(r1)" in result.output
    assert _snapshot(landed) == before
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("select count(*) from run_facts").fetchone() == (3,)


def test_every_corrupt_file_is_named_runs_and_calls_alike(landed, tmp_path):
    _truncate(landed, BROKEN_RUN)
    (landed.path / BROKEN_CALLS).write_bytes(b"not parquet at all")
    with pytest.raises(CorruptFileError) as failure:
        build(landed, tmp_path / "w.duckdb")
    assert sorted(failure.value.files) == sorted([BROKEN_RUN, BROKEN_CALLS])
    assert not (tmp_path / "w.duckdb").exists()


def test_a_score_card_connection_names_the_corrupt_file_too(landed):
    _truncate(landed, BROKEN_RUN)
    with pytest.raises(CorruptFileError, match="r1.parquet"):
        connect(landed, submission_id="sub-a")


def test_the_documented_recovery_deletes_the_file_and_a_resume_re_runs_exactly_that_run(landed, tmp_path):
    _truncate(landed, BROKEN_RUN)
    (landed.path / BROKEN_RUN).unlink()  # as the error says: delete it ...
    report = landed.repair_landings("sub-a")  # ... and resume, which first tidies the orphan calls
    assert report.removed == ["r1"] and landed.landed_run_ids("sub-a") == {"r0", "r2"}
    assert build(landed, tmp_path / "w.duckdb").runs == 2


CORRUPTIONS = {
    "truncated": lambda data: data[: len(data) // 2],
    "zero bytes": lambda data: b"",
    "random bytes": lambda data: random.Random(7).randbytes(3000),
}


def _corrupt(store, key: str, how: str) -> None:
    path = store.path / key
    path.write_bytes(CORRUPTIONS[how](path.read_bytes()))


class _TrackedBytes(bytearray):
    """Bytes a test can hold a weak reference to."""


class _TrackingStore(LocalStore):
    """A local store that remembers (weakly) every buffer it hands out, and which of them were still held
    by someone when the next one was asked for (the read before it had returned by then)."""

    def __init__(self, root) -> None:
        super().__init__(root)
        self.handed_out: list[weakref.ref] = []
        self.held_past_their_read = 0

    def _get(self, key: str):
        data = super()._get(key)
        if data is None:
            return None
        self.held_past_their_read += sum(ref() is not None for ref in self.handed_out)
        self.handed_out = [ref for ref in self.handed_out if ref() is not None]
        tracked = _TrackedBytes(data)
        self.handed_out.append(weakref.ref(tracked))
        return tracked


def test_reading_landed_parquet_back_leaves_no_buffer_held_by_a_worker_thread(store, tmp_path):
    """The SIGABRT after the clean message: `pq.read_table` over bytes scans on pyarrow's worker threads,
    which kept the bytes after it returned (about 4 reads in 10) and released them later, needing the
    GIL; when that came after the interpreter began to exit, the process aborted. Every reader of landed
    Parquet bytes must be done with them when it returns."""
    for i in range(30):
        run = make_run(f"r{i}", tool_calls=2)
        store.land_run(run, make_calls(run, [ok(), ok()]))
    tracking = _TrackingStore(store.root)
    _corrupt(tracking, BROKEN_RUN, "truncated")
    assert [key for key, _ in unreadable_files(tracking)] == [BROKEN_RUN]
    assert tracking.held_past_their_read == 0
    assert [ref for ref in tracking.handed_out if ref() is not None] == []

    for i in range(30):  # a resume reads back every run whose index entry is missing
        tracking.delete(f"index/runs/r{i}.json")
    assert len(tracking.repair_landings("sub-a").indexed) == 29
    assert tracking.held_past_their_read == 0
    assert [ref for ref in tracking.handed_out if ref() is not None] == []


@pytest.mark.parametrize("how", CORRUPTIONS)
@pytest.mark.parametrize("reader", [["leaderboard"], ["warehouse", "query", "select 1"],
                                    ["report", "--html", "{tmp}/report.html"]], ids=lambda r: r[0])
def test_every_reader_names_a_corrupt_file_and_exits_1_without_a_traceback(landed, tmp_path, how, reader):
    _corrupt(landed, BROKEN_CALLS, how)
    args = [a.replace("{tmp}", str(tmp_path)) for a in reader]
    result = CliRunner().invoke(main, [*args, "--store", landed.root, "--db", str(tmp_path / "w.duckdb")])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), repr(result.exception)
    assert f"{landed.url(BROKEN_CALLS)}: not a readable Parquet file" in result.output
    assert "--submission-id" in result.output and "(r2)" in result.output


@pytest.mark.parametrize("how", CORRUPTIONS)
def test_the_score_card_of_run_names_a_corrupt_file_and_exits_1(landed, how):
    """`mcpbench run` resuming a submission whose landed calls file went bad: no agent runs (the run is
    landed), and the score card it prints is refused with the file named."""
    run_id = "sub-a--fs-set-log-level"
    landed.land_run(make_run(run_id, task_id="fs-set-log-level", split="dev", month="2026-05"), [])
    key = f"calls/month=2026-05/submission=sub-a/{run_id}.parquet"
    _corrupt(landed, key, how)
    result = CliRunner().invoke(main, ["run", "--agent", "noop", "--tasks", "fs-set-log-level", "--submission-id",
                                       "sub-a", "--store", landed.root])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), repr(result.exception)
    assert f"{landed.url(key)}: not a readable Parquet file" in result.output
    assert "Nothing was scored" in result.output


@pytest.mark.parametrize("how", CORRUPTIONS)
def test_the_real_process_exits_1_after_the_clean_message_never_by_a_signal(landed, tmp_path, how):
    """The process as an operator runs it: its exit status is the command's, never SIGABRT (-6)."""
    _corrupt(landed, BROKEN_CALLS, how)
    proc = subprocess.run([sys.executable, "-m", "mcpbench", "warehouse", "build", "--store", landed.root, "--db",
                           str(tmp_path / "w.duckdb")], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT)
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert f"{landed.url(BROKEN_CALLS)}: not a readable Parquet file" in proc.stderr
    assert "Traceback" not in proc.stderr and "terminate called" not in proc.stderr
