"""Building the warehouse database file, and the checked-build rule it records.

A build makes every view of ``warehouse/sql`` (:mod:`warehouse.views`) over the store's data
(:mod:`warehouse.sources`) in a new DuckDB file, written beside the target and renamed over it, so a
reader never opens a half-built warehouse. ``run_facts`` is stored as a table (the one pass over the
calls), so the file is a snapshot: :func:`warehouse.reader.open_warehouse` rebuilds it when runs have
landed in a local store since.

**The checked-build rule.** Every build records whether its data was checked (table
``warehouse_build``, column ``checked``): true when every run in it passed the quality suites, in this
build or an earlier one over the same store. A checked build validates only the runs that landed (or
changed) since the last checked build (table ``checked_runs``: run id and a fingerprint of the run and
its calls), so Great Expectations is imported only when something new landed. Readers refuse an
unchecked build unless told otherwise (:mod:`warehouse.reader`).

:func:`connect` makes the same views in memory, optionally over one submission's files only.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from runstore.store import DEFAULT_WAREHOUSE, Store, default_warehouse
from warehouse.database_file import check_database_path
from warehouse.sources import attach_sources, name_corrupt_files, quote, resolve_store
from warehouse.views import create_views

DEFAULT_DB = DEFAULT_WAREHOUSE


def default_db_path() -> Path:
    """``MCPBENCH_WAREHOUSE`` if set, else ``.mcpbench/warehouse.duckdb``."""
    return Path(default_warehouse())


@dataclass(frozen=True)
class BuildResult:
    """What a build made: the file, its views, how much data, how long, and whether it is checked."""

    path: Path
    views: list[str]
    runs: int  # runs landed
    calls: int  # calls of those runs
    seconds: float
    checked: bool = False  # every run in the build has passed the quality suites (now or before)
    runs_validated: int = 0  # runs the suites checked in this build (those new since the last check)


def connect(store: Store | str | None = None, *, submission_id: str | None = None) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with every view over ``store`` (optionally only one submission's
    runs, which is what a score card needs and is fast on a large store). Not a build: nothing in it
    was checked (see :func:`warehouse.reader.open_submission`)."""
    store = resolve_store(store)
    con = duckdb.connect()
    try:
        create_views(con, attach_sources(con, store, submission_id=submission_id, copy=False))
    except Exception as exc:
        con.close()
        name_corrupt_files(store, exc, stopped="Nothing was scored")
        raise
    return con


#: One fingerprint per run: its row, its calls and its turns. A re-landed run with any change is checked again.
_FINGERPRINTS = """
create or replace table run_fingerprints as
with calls as (
    select run_id, count(*) as n, bit_xor(hash(c)) as digest from stg_calls c group by run_id
),
turns as (
    select run_id, count(*) as n, bit_xor(hash(t)) as digest from stg_turns t group by run_id
)
select r.run_id, hash(r, coalesce(calls.n, 0), coalesce(calls.digest, 0), coalesce(turns.n, 0),
                      coalesce(turns.digest, 0)) as fingerprint
from stg_runs r left join calls on calls.run_id = r.run_id left join turns on turns.run_id = r.run_id
"""


def _previous_checks(con: duckdb.DuckDBPyConnection, target: Path, store_root: str) -> None:
    """``previously_checked(run_id, fingerprint)``: the runs the last build at ``target`` over the same
    store had checked (empty when there is none)."""
    con.execute("create or replace temp table previously_checked (run_id varchar, fingerprint ubigint)")
    if not target.exists():
        return
    try:
        con.execute(f"attach {quote(str(target))} as previous (read_only)")
    except duckdb.Error:
        return  # not a database we can read: check everything
    try:
        tables = {r[0] for r in con.execute("select table_name from duckdb_tables() where database_name = 'previous'")
                  .fetchall()}
        if {"checked_runs", "warehouse_build"} <= tables:
            ((built_over,),) = con.execute("select store from previous.warehouse_build").fetchall()
            if built_over == store_root:
                con.execute("insert into previously_checked select run_id, fingerprint from previous.checked_runs")
    finally:
        con.execute("detach previous")


def build(store: Store | str | None = None, db_path: str | os.PathLike[str] | None = None, *,
          check: bool = True) -> BuildResult:
    """Build the warehouse database file at ``db_path`` (default ``.mcpbench/warehouse.duckdb``).

    With ``check``, the runs that landed (or changed) since the last checked build over this store are
    validated first (:mod:`warehouse.quality`; nothing new: no suite runs and Great Expectations is not
    imported); if a suite fails, :class:`warehouse.quality.QualityError` is raised with the report, the
    store is left untouched and the previous database file, if any, stays in place. Without ``check``
    the build records which runs are unchecked. The file is written beside the target and renamed over
    it, so a reader never opens a half-built warehouse.

    Refused before anything is read or written: a ``db_path`` holding anything but a warehouse a build
    made (:class:`warehouse.database_file.WarehouseFileError`), and a ``store`` root where there is
    no store (``runstore.store.StoreError``)."""
    started = time.perf_counter()
    target = check_database_path(db_path or default_db_path())
    store = resolve_store(store)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.building")
    tmp.unlink(missing_ok=True)
    version = store.version()  # read before the data, so a run landing meanwhile makes the build stale
    con = duckdb.connect(str(tmp))
    con.execute("set preserve_insertion_order = false")  # lets the table copies run in parallel
    try:
        names = create_views(con, attach_sources(con, store, copy=True))
        con.execute(_FINGERPRINTS)
        _previous_checks(con, target, store.root)
        con.execute("create or replace temp table new_runs as select f.run_id from run_fingerprints f "
                    "anti join previously_checked p on p.run_id = f.run_id and p.fingerprint = f.fingerprint")
        ((new,),) = con.execute("select count(*) from new_runs").fetchall()
        ((orphans,),) = con.execute(
            "select (select count(*) from stg_calls c anti join stg_runs r on r.run_id = c.run_id)"
            " + (select count(*) from stg_turns t anti join stg_runs r on r.run_id = t.run_id)").fetchall()
        validated = 0
        if check and (new or orphans):
            from warehouse.quality import QualityError, validate

            report = validate(con, only_new=True)
            if not report.ok:
                raise QualityError(report)
            validated = new
        if check:
            con.execute("create table checked_runs as select run_id, fingerprint from run_fingerprints")
        else:
            con.execute("create table checked_runs as select run_id, fingerprint from run_fingerprints "
                        "semi join previously_checked p using (run_id, fingerprint)")
        checked = check or (new == 0 and orphans == 0)
        ((runs, calls),) = con.execute("select count(*), coalesce(sum(calls), 0)::bigint from run_facts").fetchall()
        con.execute("drop table run_fingerprints")
        con.execute("create or replace table warehouse_build as select ? as store, ? as store_version, "
                    "? as built_at, ? as runs, ? as calls, ? as checked, ? as unchecked_runs",
                    [store.root, version, datetime.now(UTC), runs, calls, checked,
                     0 if checked else new + orphans])
        con.close()
        os.replace(tmp, target)
    except BaseException as exc:
        con.close()
        tmp.unlink(missing_ok=True)
        Path(f"{tmp}.wal").unlink(missing_ok=True)
        name_corrupt_files(store, exc)
        raise
    return BuildResult(target, names, runs, calls, time.perf_counter() - started, checked, validated)


__all__ = ["DEFAULT_DB", "BuildResult", "build", "connect", "default_db_path"]
