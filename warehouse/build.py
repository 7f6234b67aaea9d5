"""Build the DuckDB warehouse: the SQL files of ``warehouse/sql`` over a store's Parquet.

Staging files name their input as ``{{ source('runs') }}``, ``{{ source('calls') }}`` or
``{{ source('turns') }}``; the build fills that with where the Parquet lives:

* a local store: ``read_parquet('<root>/runs/**/*.parquet')``, read in place;
* any other store (S3): the pyarrow dataset copied into a ``source_runs`` / ``source_calls`` /
  ``source_turns`` table, since DuckDB's httpfs is not available here.

Each file becomes one view named after it, or a table where the file says ``-- materialized: table``
(``run_facts``: the one pass over the calls, so the marts read runs, not calls). The database is
therefore a snapshot: :func:`open_warehouse` rebuilds it when runs have landed in a local store since.

Every build records whether its data was checked (table ``warehouse_build``, column ``checked``):
true when every run in it passed the quality suites, in this build or an earlier one over the same
store. A checked build validates only the runs that landed (or changed) since the last checked build
(table ``checked_runs``: run id and a fingerprint of the run and its calls), so Great Expectations is
imported only when something new landed. Readers (:func:`open_warehouse`) refuse an unchecked build
unless told otherwise.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import duckdb

from runstore.store import (DEFAULT_WAREHOUSE, PUBLISHED_MAX_BYTES, RECORD_KINDS, LocalStore, Store, default_warehouse,
                            open_store)
from runstore.store._base import read_parquet_bytes, schema_of
from warehouse.database_file import WarehouseFileError, check_database_path

SQL_DIR = Path(__file__).with_name("sql")
LAYERS = ("staging", "marts")
DEFAULT_DB = DEFAULT_WAREHOUSE
#: The landed kinds of records. Their Arrow schemas (``runstore.store.schema_of``) are read only where
#: needed: pyarrow costs ~0.3 s to import, and a rebuild over a local store does not need it.
KINDS = RECORD_KINDS
_SOURCE = re.compile(r"\{\{\s*source\('(\w+)'\)\s*\}\}")


def default_db_path() -> Path:
    """``MCPBENCH_WAREHOUSE`` if set, else ``.mcpbench/warehouse.duckdb``."""
    return Path(default_warehouse())


_MATERIALIZED = re.compile(r"^--\s*materialized:\s*(view|table)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class View:
    name: str
    layer: str
    path: Path
    sql: str

    @property
    def materialized(self) -> str:
        """``view`` (the default) or ``table``, from a ``-- materialized: table`` line in the file."""
        found = _MATERIALIZED.search(self.sql)
        return found.group(1) if found else "view"


@dataclass(frozen=True)
class BuildResult:
    path: Path
    views: list[str]
    runs: int  # runs landed
    calls: int  # calls of those runs
    seconds: float
    checked: bool = False  # every run in the build has passed the quality suites (now or before)
    runs_validated: int = 0  # runs the suites checked in this build (those new since the last check)


class UncheckedWarehouse(RuntimeError):
    """The warehouse holds runs that have not passed the quality suites; scores from it are not served
    unless the reader asks for unchecked data."""


def load_views() -> list[View]:
    """Every view, staging before marts, each after the views it reads."""
    found = [
        View(p.stem, layer, p, p.read_text())
        for layer in LAYERS
        for p in sorted((SQL_DIR / layer).glob("*.sql"))
    ]
    by_name = {v.name: v for v in found}
    ordered: list[View] = []
    state: dict[str, str] = {}

    def visit(view: View, trail: tuple[str, ...]) -> None:
        if state.get(view.name) == "done":
            return
        if state.get(view.name) == "visiting":
            raise ValueError(f"views reference each other in a cycle: {' -> '.join(trail + (view.name,))}")
        state[view.name] = "visiting"
        body = re.sub(r"--[^\n]*", "", view.sql)
        for other in by_name.values():
            if other.name != view.name and re.search(rf"\b{other.name}\b", body):
                visit(other, trail + (view.name,))
        state[view.name] = "done"
        ordered.append(view)

    for view in found:
        visit(view, ())
    return ordered


def _resolve_store(store: Store | str | None, usage: str | None = "read") -> Store:
    """``store`` itself, or the store at that root (default ``MCPBENCH_STORE``), refused unless it exists:
    the warehouse only reads a store and never makes one at a mistyped path."""
    return store if isinstance(store, Store) else open_store(store, usage=usage)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def attach_sources(
    con: duckdb.DuckDBPyConnection, store: Store, *, submission_id: str | None = None, copy: bool = True
) -> dict[str, str]:
    """Make the store's runs and calls readable in ``con``; return what fills ``source(kind)``.

    A local store is read in place. Any other store's pyarrow dataset is copied into a table (``copy``,
    for a database file that must outlive this process) or registered (an in-memory connection)."""
    sources: dict[str, str] = {}
    for kind in KINDS:
        if isinstance(store, LocalStore):
            schema_file = store.ensure_schema_file(kind)
            if submission_id is None:
                pattern = str(store.path / kind / "**" / "*.parquet")  # always matches the schema file
                sources[kind] = f"read_parquet({_quote(pattern)}, hive_partitioning = false, union_by_name = true)"
            else:
                patterns = [str(schema_file)]
                if store.files(kind, submission_id):
                    patterns.append(store.parquet_glob(kind, submission_id))
                listed = ", ".join(_quote(p) for p in patterns)
                sources[kind] = f"read_parquet([{listed}], hive_partitioning = false, union_by_name = true)"
            continue
        data = store.dataset(kind, submission_id)
        arrow = data if data is not None else schema_of(kind).empty_table()
        name = f"source_{kind}"
        if copy:
            con.register("_arrow_source", arrow)
            con.execute(f"create or replace table {name} as select * from _arrow_source")
            con.unregister("_arrow_source")
        else:
            con.register(name, arrow)
        sources[kind] = name
    sources["month_tasks"] = _attach_month_tasks(con, store, copy)
    return sources


def month_tasks(store: Store) -> list[tuple[str, str]]:
    """``(month, task_id)`` of every month whose task list was published at its start
    (``public/attestations/YYYY-MM.json``): ids only, what a submission must cover to rank."""
    import json

    rows: list[tuple[str, str]] = []
    for key in store.list("public/attestations/"):
        if not key.endswith(".json"):
            continue
        try:  # a published list is untrusted input: bounded by size (StoreError past it) and nesting
            doc = json.loads(store.get_bytes(key, limit=PUBLISHED_MAX_BYTES))
            rows += [(str(doc["month"]), str(e["task_id"])) for e in doc["tasks"]]
        except (ValueError, KeyError, TypeError, RecursionError) as exc:
            raise ValueError(f"{store.url(key)} is not an attestation list: {exc}") from None
    return rows


def _attach_month_tasks(con: duckdb.DuckDBPyConnection, store: Store, copy: bool) -> str:
    # plain SQL, not a registered Arrow table: registering makes DuckDB import pandas (~1-2 s)
    kind = "table" if copy else "temp table"
    con.execute(f"create or replace {kind} source_month_tasks (month varchar, task_id varchar)")
    rows = month_tasks(store)
    if rows:
        con.executemany("insert into source_month_tasks values (?, ?)", rows)
    return "source_month_tasks"


def create_views(con: duckdb.DuckDBPyConnection, sources: dict[str, str]) -> list[str]:
    """Create every view of ``warehouse/sql`` in ``con`` (a table where the file says
    ``-- materialized: table``); return their names in creation order."""
    for path in sorted((SQL_DIR / "macros").glob("*.sql")):
        for statement in con.extract_statements(path.read_text()):
            try:
                con.execute(statement)
            except duckdb.Error as exc:
                raise ValueError(f"{path}: {exc}") from exc
    names = []
    for view in load_views():
        def fill(match: re.Match) -> str:
            kind = match.group(1)
            if view.layer != "staging":
                raise ValueError(f"{view.path}: only staging may name a source, found source('{kind}')")
            if kind not in sources:
                raise ValueError(f"{view.path}: unknown source('{kind}'); known: {sorted(sources)}")
            return sources[kind]

        sql = _SOURCE.sub(fill, view.sql).strip().rstrip(";")
        try:
            con.execute(f"create or replace {view.materialized} {view.name} as\n{sql}")
        except duckdb.Error as exc:
            raise ValueError(f"{view.path}: {exc}") from exc
        names.append(view.name)
    return names


class CorruptFileError(ValueError):
    """Landed Parquet that cannot be read: the files, why, and how to recover. Nothing was deleted."""

    def __init__(self, store: Store, bad: list[tuple[str, str]],
                 stopped: str = "The warehouse was not built (a previous database file is kept)") -> None:
        self.files = [key for key, _ in bad]
        lines = [f"{store.url(key)}: not a readable Parquet file ({why})" for key, why in bad]
        runs = sorted({key.rsplit("/", 1)[1].removesuffix(".parquet") for key in self.files})
        super().__init__(
            "\n".join(lines) + f"\n{stopped} and nothing in the store was changed. To recover, "
            "restore the file from a backup, or delete it (and its run's other files under runs/, calls/ and turns/) and "
            "run that submission's evaluation again with the same --submission-id: it runs exactly the "
            f"missing runs ({', '.join(runs)}).")


def unreadable_files(store: Store) -> list[tuple[str, str]]:
    """Every landed Parquet file of ``store`` that does not read back whole, with the reason."""
    import pyarrow as pa

    bad = []
    for kind in KINDS:
        for key in store.list(f"{kind}/"):
            if not key.endswith(".parquet"):
                continue
            try:
                read_parquet_bytes(store.get_bytes(key))
            except (pa.ArrowException, OSError) as exc:
                bad.append((key, str(exc).splitlines()[0] if str(exc) else type(exc).__name__))
    return bad


def _name_corrupt_files(store: Store, exc: BaseException, **stopped: str) -> None:
    """When reading the store failed, raise ``CorruptFileError`` if unreadable files are the cause."""
    import pyarrow as pa

    if isinstance(exc, ValueError | duckdb.Error | pa.ArrowException | OSError):
        bad = unreadable_files(store)
        if bad:
            raise CorruptFileError(store, bad, **stopped) from None


def connect(store: Store | str | None = None, *, submission_id: str | None = None) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with every view over ``store`` (optionally only one submission's
    runs, which is what a score card needs and is fast on a large store)."""
    store = _resolve_store(store)
    con = duckdb.connect()
    try:
        create_views(con, attach_sources(con, store, submission_id=submission_id, copy=False))
    except Exception as exc:
        con.close()
        _name_corrupt_files(store, exc, stopped="Nothing was scored")
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
        con.execute(f"attach {_quote(str(target))} as previous (read_only)")
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
    store = _resolve_store(store)
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
        runs, calls = con.execute("select count(*), coalesce(sum(calls), 0)::bigint from run_facts").fetchone()
        con.execute("drop table run_fingerprints")
        con.execute("create or replace table warehouse_build as select ? as store, ? as store_version, "
                    "? as built_at, ? as runs, ? as calls, ? as checked, ? as unchecked_runs",
                    [store.root, version, datetime.now(timezone.utc), runs, calls, checked,
                     0 if checked else new + orphans])
        con.close()
        os.replace(tmp, target)
    except BaseException as exc:
        con.close()
        tmp.unlink(missing_ok=True)
        Path(f"{tmp}.wal").unlink(missing_ok=True)
        _name_corrupt_files(store, exc)
        raise
    return BuildResult(target, names, runs, calls, time.perf_counter() - started, checked, validated)


@dataclass(frozen=True)
class BuildStatus:
    """What ``warehouse_build`` says about a database file."""

    store: str
    built_at: datetime | None
    checked: bool
    unchecked_runs: int

    def label(self) -> str | None:
        """A loud line for output read from an unchecked build (None when checked)."""
        if self.checked:
            return None
        return (f"UNCHECKED DATA: {self.unchecked_runs or 'some'} runs in this warehouse have not passed the "
                "quality suites; these scores are not to be published (run `mcpbench warehouse build`)")


def build_status(con: duckdb.DuckDBPyConnection) -> BuildStatus:
    columns = {r[0] for r in con.execute("select column_name from (describe warehouse_build)").fetchall()}
    if "checked" not in columns:  # a database built before builds recorded their checks
        ((store, built_at),) = con.execute("select store, built_at from warehouse_build").fetchall()
        return BuildStatus(store, built_at, False, 0)
    (row,) = con.execute("select store, built_at, checked, unchecked_runs from warehouse_build").fetchall()
    return BuildStatus(*row)


def open_warehouse(db_path: str | os.PathLike[str] | None = None, *, store: Store | str | None = None,
                   read_only: bool = True, allow_unchecked: bool = False) -> duckdb.DuckDBPyConnection:
    """Open the warehouse database file, building it first if it is missing, was built over another
    store than ``store``, or (local stores) runs have landed since it was built. An S3-backed warehouse
    is a snapshot: ``mcpbench warehouse build`` refreshes it.

    The rebuild checks what landed since the last checked build, so a failing suite raises
    :class:`warehouse.quality.QualityError` and a build that is not checked raises
    :class:`UncheckedWarehouse`, unless ``allow_unchecked`` (then nothing is checked; label what you
    print with :func:`build_status`). Nothing new landed: Great Expectations is not imported.

    A path holding anything but a warehouse raises :class:`warehouse.database_file.WarehouseFileError`,
    and a store that is about to be read but does not exist ``runstore.store.StoreError``: neither is
    created, replaced or changed."""
    path = check_database_path(db_path or default_db_path())
    if path.exists():
        with duckdb.connect(str(path), read_only=True) as con:
            built_over, built_version = con.execute("select store, store_version from warehouse_build").fetchone()
            status = build_status(con)
        current = _resolve_store(store if store is not None else built_over, usage=None)
        if current.root != built_over or built_version is not None:
            current.check_usable("read")  # about to be read: compared with the build, or built over
        if current.root != built_over or (built_version is not None and current.version() != built_version):
            status = _rebuild(current, path, allow_unchecked)  # another store, or runs landed since the build
    else:
        status = _rebuild(_resolve_store(store), path, allow_unchecked)
    if not status.checked and not allow_unchecked:
        raise UncheckedWarehouse(f"the warehouse {path} holds {status.unchecked_runs or 'some'} runs that have not "
                                 "passed the quality suites: run `mcpbench warehouse build` (or read it anyway, "
                                 "labelled, with --unchecked)")
    return duckdb.connect(str(path), read_only=read_only)


def _rebuild(store: Store, path: Path, allow_unchecked: bool) -> BuildStatus:
    result = build(store, path, check=not allow_unchecked)
    with duckdb.connect(str(result.path), read_only=True) as con:
        return build_status(con)


__all__ = ["DEFAULT_DB", "BuildResult", "BuildStatus", "CorruptFileError", "UncheckedWarehouse", "View",
           "WarehouseFileError",
           "attach_sources", "build", "build_status", "connect", "create_views", "default_db_path", "load_views",
           "month_tasks", "open_warehouse", "unreadable_files"]
