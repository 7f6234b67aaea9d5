"""What every store does, on top of five primitives a backend provides (put, get, exists, list, delete)."""

from __future__ import annotations

import builtins
import io
import json
import random
import re
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the records (pydantic) and pyarrow are imported on first use
    # pyarrow is imported on first use: it costs ~0.3 s, and opening a store should not
    import pyarrow as pa
    import pyarrow.dataset as ds

    from runstore.records import CallRecord, RunRecord, TurnRecord

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$")
#: The folders a store's writes make at its root: runs and calls land in ``runs/`` and ``calls/``, ``index/``
#: marks them landed, ``private/`` and ``public/`` hold the months. A root holding none of them is no store.
LAYOUT = ("runs", "calls", "index", "private", "public")
#: What a command is about to do with a store (see ``Store.check_usable``).
USAGES = ("read", "write")
_MONTH = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")


#: The kinds of landed records, each a folder of Parquet files, one per run: the run's row, its MCP calls,
#: and its model turns (a turns file only for a run whose agent used the model gateway).
RECORD_KINDS = ("runs", "calls", "turns")


def schema_of(kind: str) -> pa.Schema:
    """The Parquet schema of ``runs``, ``calls`` or ``turns`` (the contract in ``runstore.records``)."""
    from runstore import records

    return {"runs": records.RUN_SCHEMA, "calls": records.CALL_SCHEMA, "turns": records.TURN_SCHEMA}[kind]


class StoreError(RuntimeError):
    """A store operation failed; the message names the key (or the record) and why."""


def _check_id(what: str, value: str) -> None:
    if not _ID.match(value):
        raise StoreError(f"{what} {value!r} cannot be used in a storage key: use letters, digits, '.', '_', '-'")


def partition(month: str, submission_id: str) -> str:
    """``month=YYYY-MM/submission=<id>``: the partition a run's files live in."""
    if not _MONTH.match(month):
        raise StoreError(f"month {month!r} is not YYYY-MM")
    _check_id("submission_id", submission_id)
    return f"month={month}/submission={submission_id}"


def read_parquet_bytes(data: bytes) -> pa.Table:
    """The table in one Parquet file's bytes, read on this thread alone; ``pyarrow.ArrowException`` or
    ``OSError`` when the bytes are not a whole Parquet file.

    Not ``pq.read_table``: that scans through pyarrow's dataset machinery, whose worker threads can
    still hold ``data`` after it returns and release it later; at interpreter exit such a release
    (which needs the GIL) aborts the process (SIGABRT) after whatever it printed last."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    return pq.ParquetFile(pa.BufferReader(data)).read(use_threads=False)


def parquet_bytes(rows: list[dict], schema: pa.Schema) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist(rows, schema=schema)
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="zstd")
    return buf.getvalue()


@dataclass
class LandingRepair:
    """What ``Store.repair_landings`` did: runs whose index entry it wrote, runs whose files it removed."""

    indexed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)


class Store(ABC):
    """Where runs, calls and other artefacts land. Open one with :func:`runstore.store.open_store`."""

    root: str
    #: How often a whole landing is tried before the run is given up as not landed, and the first
    #: backoff (doubled each time, jittered). Bounded: a run waits at most ~1.5 s more by default.
    land_attempts: int = 3
    land_backoff_s: float = 0.25

    # -- primitives a backend provides -------------------------------------------------------
    @abstractmethod
    def _put(self, key: str, data: bytes) -> None:
        """Write ``data`` at ``key`` atomically: a reader sees the old object or the new, never half."""

    @abstractmethod
    def _get(self, key: str) -> bytes | None:
        """The bytes at ``key``, or None if there is no such key."""

    @abstractmethod
    def _exists(self, key: str) -> bool: ...

    @abstractmethod
    def _list(self, prefix: str) -> list[str]:
        """Every key under ``prefix`` (recursively), relative to the root."""

    @abstractmethod
    def _children(self, prefix: str) -> list[str]:
        """The names one level below ``prefix`` (a folder-like prefix ending in '/')."""

    @abstractmethod
    def _delete(self, key: str) -> None: ...

    @abstractmethod
    def _head(self, key: str, size: int) -> bytes | None:
        """At most the first ``size`` bytes at ``key`` (all of a smaller object), or None if there is no
        such key: what a bounded read needs to know, without reading an object of any size whole."""

    @abstractmethod
    def _check_writable(self) -> None:
        """Raise ``StoreError`` saying why runs cannot land here (creating nothing)."""

    def _why_absent(self) -> str:
        """Why there is no store at the root (for ``check_usable``'s message)."""
        return f"nothing is there (none of {', '.join(f'{name}/' for name in LAYOUT)})"

    @abstractmethod
    def dataset(self, kind: str, submission_id: str | None = None) -> ds.Dataset | None:
        """A pyarrow dataset over the landed ``runs``, ``calls`` or ``turns`` (optionally one submission's),
        or None when nothing has landed."""

    def version(self) -> str | None:
        """A token that changes whenever a run lands, or None where that is not cheap to know (S3)."""
        return None

    # -- artefacts -----------------------------------------------------------------------------
    def put_bytes(self, key: str, data: bytes) -> None:
        """Write an artefact (e.g. a published attestation list) atomically at ``key``."""
        self._put(self._check_key(key), data)

    def get_bytes(self, key: str, *, limit: int | None = None) -> bytes:
        """The object at ``key``; with ``limit``, a ``StoreError`` naming the key and the limit for an
        object larger than ``limit`` bytes, which is never read whole (an artefact someone else
        published is read as untrusted input)."""
        self._check_key(key)
        data = self._get(key) if limit is None else self._head(key, limit + 1)
        if data is None:
            raise KeyError(f"no object at {self.url(key)}")
        if limit is not None and len(data) > limit:
            raise StoreError(f"{self.url(key)} is larger than {limit:,} bytes, the most read from it; "
                             "refused before reading it whole")
        return data

    def exists(self, key: str) -> bool:
        return self._exists(self._check_key(key))

    def list(self, prefix: str = "") -> list[str]:
        """Keys under ``prefix``, sorted (temporary files of writes in progress are never listed)."""
        return sorted(self._list(prefix))

    def delete(self, key: str) -> None:
        self._delete(self._check_key(key))

    def url(self, key: str = "") -> str:
        return f"{self.root.rstrip('/')}/{key}"

    def check_usable(self, usage: str) -> None:
        """Refuse, with a ``StoreError`` that says why, a store that cannot serve ``usage``, before a
        command does anything with it:

        * ``write`` (runs land, months are sealed): an existing folder or one that can be made (never a
          file, nor a path under a file); on S3 a bucket that exists (a store never makes buckets);
        * ``read`` (scores, leaderboards, attestations): a store that exists, i.e. holds at least one
          of ``LAYOUT``; a mistyped path is an error, and nothing is created there.

        Nothing is written either way."""
        if usage == "write":
            self._check_writable()
        elif usage == "read":
            if not set(self._children("")) & set(LAYOUT):
                raise StoreError(f"there is no store at {self.root}: {self._why_absent()}")
        else:
            raise ValueError(f"usage must be one of {USAGES}, got {usage!r}")

    @staticmethod
    def _check_key(key: str) -> str:
        parts = key.split("/")
        if not key or key.startswith("/") or any(p in ("", ".", "..") for p in parts):
            raise StoreError(f"bad key {key!r}: use a relative path like 'attestations/2026-05.json'")
        return key

    # -- runs and calls --------------------------------------------------------------------------
    def land_run(self, run: RunRecord, calls: builtins.list[CallRecord], turns: builtins.list[TurnRecord] | None = None) -> None:  # list: the method below
        """Land one run, its calls and its model turns. Atomic per file and idempotent: re-landing a
        ``run_id`` replaces its files (also when it moves to another month or submission, and a turns
        file it no longer has is removed), never duplicates rows.

        A failed write is retried, the whole landing ``land_attempts`` times with exponential backoff
        (on top of a backend's own retries); if it still fails, what this landing wrote is removed
        (best effort, see ``repair_landings`` for what a dead store leaves) and a ``StoreError``
        names the run: the run is then not landed, and a resumed evaluation runs it again."""
        _check_id("run_id", run.run_id)
        where = partition(run.month, run.submission_id)
        turns = turns or []
        for kind, rows in (("call", calls), ("turn", turns)):
            for row in rows:
                if row.run_id != run.run_id or row.submission_id != run.submission_id:
                    raise StoreError(
                        f"{kind} seq={row.seq} of run {row.run_id!r} (submission {row.submission_id!r}) "
                        f"does not belong to run {run.run_id!r} (submission {run.submission_id!r})"
                    )
        files = {"calls": parquet_bytes([c.model_dump() for c in calls], schema_of("calls"))}
        if turns:
            files["turns"] = parquet_bytes([t.model_dump() for t in turns], schema_of("turns"))
        files["runs"] = parquet_bytes([run.model_dump()], schema_of("runs"))
        first: StoreError | None = None
        progress: dict = {"previous": None, "written": []}  # over all attempts
        for attempt in range(max(1, self.land_attempts)):
            try:
                self._land_once(run.run_id, where, files, progress)
                return
            except StoreError as exc:
                first = first or exc  # where it broke; later attempts may fail earlier, on the lookup
                if attempt + 1 < self.land_attempts:
                    time.sleep(self.land_backoff_s * (2**attempt) * (0.5 + random.random() / 2))
        self._roll_back(run.run_id, where, progress)
        raise StoreError(f"run {run.run_id} did not land ({self.land_attempts} tries): {first}") from first

    def _land_once(self, run_id: str, where: str, files: dict[str, bytes], progress: dict) -> None:
        index_key = f"index/runs/{run_id}.json"
        previous = self._get(index_key)
        if progress["previous"] is None:  # what was there before this landing's first write
            progress["previous"] = previous is not None
        old_where = json.loads(previous)["partition"] if previous else None
        if previous and "turns" not in files:  # an earlier landing's turns are not this one's
            self._delete(f"turns/{where}/{run_id}.parquet")
        # calls (and turns) first, the run row next (it marks the run landed), the locator last
        writes = [(f"{kind}/{where}/{run_id}.parquet", data) for kind, data in files.items()]
        for key, data in [*writes, (index_key, json.dumps({"partition": where}).encode())]:
            if key not in progress["written"]:
                progress["written"].append(key)  # before the write: a failed PUT may still have happened
            self._put(key, data)
        if old_where and old_where != where:
            for kind in RECORD_KINDS:
                self._delete(f"{kind}/{old_where}/{run_id}.parquet")

    def _roll_back(self, run_id: str, where: str, progress: dict) -> None:
        """After a landing that failed for good, leave nothing half-written: remove the run's files
        (it is not landed and is run again), unless no attempt wrote anything, or none got past the
        first file over an earlier landing, which then stays as it was."""
        written = progress["written"]
        if not written or (len(written) == 1 and progress["previous"]):
            return
        for key in (f"index/runs/{run_id}.json", *(f"{kind}/{where}/{run_id}.parquet" for kind in RECORD_KINDS)):
            try:
                self._delete(key)
            except (StoreError, OSError):
                pass  # the store is gone: repair_landings tidies up when the evaluation resumes

    def repair_landings(self, submission_id: str) -> LandingRepair:
        """Finish or undo landings that a kill or a dead store interrupted, for one submission.

        A run whose row landed but whose index entry did not (killed between the two) is complete:
        its calls and turns files are written whole before the run row, and the run row before the
        index. When its files read back and belong to the run, its index entry is written (the run
        counts as landed); otherwise its files are removed and the run is run again. Calls or turns
        without a run row, and index entries whose run row is gone, are removed. Resuming an
        evaluation calls this first, before it starts a run; never call it while another process may
        be landing runs of the same submission."""
        _check_id("submission_id", submission_id)
        files = {kind: self._submission_files(kind, submission_id) for kind in RECORD_KINDS}
        runs, calls, turns = files["runs"], files["calls"], files["turns"]
        report = LandingRepair()
        for run_id, where in sorted(runs.items()):
            if self._exists(f"index/runs/{run_id}.json"):
                continue
            if (calls.get(run_id) == where and turns.get(run_id, where) == where
                    and self._landing_reads_back(run_id, where, submission_id, run_id in turns)):
                self._put(f"index/runs/{run_id}.json", json.dumps({"partition": where}).encode())
                report.indexed.append(run_id)
            else:
                for kind in RECORD_KINDS:
                    self._delete(f"{kind}/{where}/{run_id}.parquet")
                report.removed.append(run_id)
        for run_id in sorted((calls.keys() | turns.keys()) - runs.keys()):
            for kind, at in (("calls", calls), ("turns", turns)):
                if run_id in at:
                    self._delete(f"{kind}/{at[run_id]}/{run_id}.parquet")
                    if self._index_partition(run_id) == at[run_id]:
                        self._delete(f"index/runs/{run_id}.json")
            report.removed.append(run_id)
        return report

    def _submission_files(self, kind: str, submission_id: str) -> dict[str, str]:
        """run id -> partition of every ``kind`` file of one submission."""
        out = {}
        for month in self._children(f"{kind}/"):
            for key in self._list(f"{kind}/{month}/submission={submission_id}/"):
                if key.endswith(".parquet"):
                    out[key.rsplit("/", 1)[1].removesuffix(".parquet")] = f"{month}/submission={submission_id}"
        return out

    def _index_partition(self, run_id: str) -> str | None:
        raw = self._get(f"index/runs/{run_id}.json")
        try:
            return json.loads(raw)["partition"] if raw else None
        except (ValueError, KeyError, TypeError):
            return None

    def _landing_reads_back(self, run_id: str, where: str, submission_id: str, with_turns: bool = False) -> bool:
        import pyarrow as pa

        try:
            run = read_parquet_bytes(self._get(f"runs/{where}/{run_id}.parquet") or b"")
            parts = [read_parquet_bytes(self._get(f"{kind}/{where}/{run_id}.parquet") or b"")
                     for kind in ("calls", "turns")[:1 + with_turns]]
        except (pa.ArrowException, OSError):
            return False
        return (run.num_rows == 1 and run.column("run_id").to_pylist() == [run_id]
                and run.column("submission_id").to_pylist() == [submission_id]
                and all(set(part.column("run_id").to_pylist()) <= {run_id} for part in parts))

    def land_runs(self, batch: Iterable[tuple[RunRecord, builtins.list[CallRecord]] | tuple[RunRecord, builtins.list[CallRecord],
                                                                                             builtins.list[TurnRecord]]],
                  *, workers: int = 8) -> builtins.list[str]:
        """Land many ``(run, calls[, turns])``, ``workers`` at a time (worth it on S3, where each write is a
        round trip).

        Every run that can land does; if any fail, a :class:`StoreError` lists them after the rest
        have landed. Returns the run ids landed."""
        batch = list(batch)
        failures: list[str] = []
        landed: list[str] = []

        def one(item: tuple) -> str:
            self.land_run(*item)
            return item[0].run_id

        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            futures = [(item[0].run_id, pool.submit(one, item)) for item in batch]
            for run_id, future in futures:
                try:
                    landed.append(future.result())
                except StoreError as exc:
                    failures.append(f"{run_id}: {exc}")
        if failures:
            raise StoreError(f"{len(failures)} of {len(batch)} runs did not land:\n  " + "\n  ".join(failures))
        return landed

    def has_run(self, run_id: str) -> bool:
        """Whether ``run_id`` has landed (one lookup, whatever the store's size)."""
        _check_id("run_id", run_id)
        return self._exists(f"index/runs/{run_id}.json")

    def landed_run_ids(self, submission_id: str) -> set[str]:
        """The run ids of one submission that have landed, in every month (for resuming)."""
        _check_id("submission_id", submission_id)
        ids: set[str] = set()
        for month in self._children("runs/"):
            for key in self._list(f"runs/{month}/submission={submission_id}/"):
                if key.endswith(".parquet"):
                    ids.add(key.rsplit("/", 1)[1].removesuffix(".parquet"))
        return ids

    def read_runs(self, submission_id: str | None = None) -> pa.Table:
        """Landed runs (one submission's, or all) as an Arrow table with ``RUN_SCHEMA``."""
        return self._read("runs", submission_id)

    def read_calls(self, submission_id: str | None = None) -> pa.Table:
        """Landed calls (one submission's, or all) as an Arrow table with ``CALL_SCHEMA``."""
        return self._read("calls", submission_id)

    def read_turns(self, submission_id: str | None = None) -> pa.Table:
        """Landed model turns (one submission's, or all) as an Arrow table with ``TURN_SCHEMA``."""
        return self._read("turns", submission_id)

    def _read(self, kind: str, submission_id: str | None) -> pa.Table:
        if submission_id is not None:
            _check_id("submission_id", submission_id)
        import pyarrow as pa

        try:
            data = self.dataset(kind, submission_id)
            if data is None:
                return schema_of(kind).empty_table()
            return data.to_table()
        except (OSError, pa.ArrowException) as exc:  # the service is down, or a file does not read back
            text = str(exc).strip()
            raise StoreError(f"could not read the {kind} of {self.url()}: "
                             f"{text.splitlines()[0] if text else type(exc).__name__}") from exc

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.root!r})"
