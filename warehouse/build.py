"""Build the DuckDB warehouse: the SQL files of ``warehouse/sql`` over a store's Parquet.

Staging files name their input as ``{{ source('runs') }}`` / ``{{ source('calls') }}``; the build
fills that with where the Parquet lives:

* a local store: ``read_parquet('<root>/runs/**/*.parquet')``, read in place;
* any other store (S3): the pyarrow dataset copied into a ``source_runs`` / ``source_calls`` table,
  since DuckDB's httpfs is not available here.

Each file becomes one view named after it, or a table where the file says ``-- materialized: table``
(``run_facts``: the one pass over the calls, so the marts read runs, not calls). The database is
therefore a snapshot: :func:`open_warehouse` rebuilds it when runs have landed in a local store since.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import duckdb

from runstore.records import CALL_SCHEMA, RUN_SCHEMA
from runstore.store import LocalStore, Store, open_store

SQL_DIR = Path(__file__).with_name("sql")
LAYERS = ("staging", "marts")
DEFAULT_DB = ".mcpbench/warehouse.duckdb"
KINDS = {"runs": RUN_SCHEMA, "calls": CALL_SCHEMA}
_SOURCE = re.compile(r"\{\{\s*source\('(\w+)'\)\s*\}\}")


def default_db_path() -> Path:
    """``MCPBENCH_WAREHOUSE`` if set, else ``.mcpbench/warehouse.duckdb``."""
    return Path(os.environ.get("MCPBENCH_WAREHOUSE") or DEFAULT_DB)


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


def _resolve_store(store: Store | str | None) -> Store:
    return store if isinstance(store, Store) else open_store(store)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def attach_sources(
    con: duckdb.DuckDBPyConnection, store: Store, *, submission_id: str | None = None, copy: bool = True
) -> dict[str, str]:
    """Make the store's runs and calls readable in ``con``; return what fills ``source(kind)``.

    A local store is read in place. Any other store's pyarrow dataset is copied into a table (``copy``,
    for a database file that must outlive this process) or registered (an in-memory connection)."""
    sources: dict[str, str] = {}
    for kind, schema in KINDS.items():
        if isinstance(store, LocalStore):
            schema_file = store.ensure_schema_file(kind)
            if submission_id is None:
                pattern = str(store.path / kind / "**" / "*.parquet")  # always matches the schema file
                sources[kind] = f"read_parquet({_quote(pattern)}, hive_partitioning = false)"
            else:
                patterns = [str(schema_file)]
                if store.files(kind, submission_id):
                    patterns.append(store.parquet_glob(kind, submission_id))
                listed = ", ".join(_quote(p) for p in patterns)
                sources[kind] = f"read_parquet([{listed}], hive_partitioning = false)"
            continue
        data = store.dataset(kind, submission_id)
        arrow = data if data is not None else schema.empty_table()
        name = f"source_{kind}"
        if copy:
            con.register("_arrow_source", arrow)
            con.execute(f"create or replace table {name} as select * from _arrow_source")
            con.unregister("_arrow_source")
        else:
            con.register(name, arrow)
        sources[kind] = name
    return sources


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

    def __init__(self, store: Store, bad: list[tuple[str, str]]) -> None:
        self.files = [key for key, _ in bad]
        lines = [f"{store.url(key)}: not a readable Parquet file ({why})" for key, why in bad]
        runs = sorted({key.rsplit("/", 1)[1].removesuffix(".parquet") for key in self.files})
        super().__init__(
            "\n".join(lines) + "\nThe warehouse was not built (a previous database file is kept) and nothing in the store was "
            "changed. To recover, "
            "restore the file from a backup, or delete it (and its run's other file under runs/ or calls/) and "
            "run that submission's evaluation again with the same --submission-id: it runs exactly the "
            f"missing runs ({', '.join(runs)}).")


def unreadable_files(store: Store) -> list[tuple[str, str]]:
    """Every landed Parquet file of ``store`` that does not read back whole, with the reason."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    bad = []
    for kind in KINDS:
        for key in store.list(f"{kind}/"):
            if not key.endswith(".parquet"):
                continue
            try:
                pq.read_table(pa.BufferReader(store.get_bytes(key)))
            except (pa.ArrowException, OSError) as exc:
                bad.append((key, str(exc).splitlines()[0] if str(exc) else type(exc).__name__))
    return bad


def _name_corrupt_files(store: Store, exc: BaseException) -> None:
    """When reading the store failed, raise ``CorruptFileError`` if unreadable files are the cause."""
    import pyarrow as pa

    if isinstance(exc, ValueError | duckdb.Error | pa.ArrowException | OSError):
        bad = unreadable_files(store)
        if bad:
            raise CorruptFileError(store, bad) from None


def connect(store: Store | str | None = None, *, submission_id: str | None = None) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with every view over ``store`` (optionally only one submission's
    runs, which is what a score card needs and is fast on a large store)."""
    store = _resolve_store(store)
    con = duckdb.connect()
    try:
        create_views(con, attach_sources(con, store, submission_id=submission_id, copy=False))
    except Exception as exc:
        _name_corrupt_files(store, exc)
        raise
    return con


def build(store: Store | str | None = None, db_path: str | os.PathLike[str] | None = None, *,
          check: bool = True, published_submissions: tuple[str, ...] = ()) -> BuildResult:
    """Build the warehouse database file at ``db_path`` (default ``.mcpbench/warehouse.duckdb``).

    With ``check``, the landed data is first validated (:mod:`warehouse.quality`); if a suite fails,
    :class:`warehouse.quality.QualityError` is raised with the report, the store is left untouched and
    the previous database file, if any, stays in place. The file is written beside the target and
    renamed over it, so a reader never opens a half-built warehouse."""
    started = time.perf_counter()
    store = _resolve_store(store)
    target = Path(db_path) if db_path else default_db_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.building")
    tmp.unlink(missing_ok=True)
    version = store.version()  # read before the data, so a run landing meanwhile makes the build stale
    con = duckdb.connect(str(tmp))
    con.execute("set preserve_insertion_order = false")  # lets the table copies run in parallel
    try:
        names = create_views(con, attach_sources(con, store, copy=True))
        if check:
            from warehouse.quality import QualityError, validate

            report = validate(con, published_submissions=published_submissions)
            if not report.ok:
                raise QualityError(report)
        runs, calls = con.execute("select count(*), coalesce(sum(calls), 0)::bigint from run_facts").fetchone()
        con.execute("create or replace table warehouse_build as select ? as store, ? as store_version, "
                    "? as built_at, ? as runs, ? as calls",
                    [store.root, version, datetime.now(timezone.utc), runs, calls])
        con.close()
        os.replace(tmp, target)
    except BaseException as exc:
        con.close()
        tmp.unlink(missing_ok=True)
        Path(f"{tmp}.wal").unlink(missing_ok=True)
        _name_corrupt_files(store, exc)
        raise
    return BuildResult(target, names, runs, calls, time.perf_counter() - started)


def open_warehouse(db_path: str | os.PathLike[str] | None = None, *, store: Store | str | None = None,
                   read_only: bool = True) -> duckdb.DuckDBPyConnection:
    """Open the warehouse database file, building it first (without the quality check) if it is missing,
    was built over another store than ``store``, or (local stores) runs have landed since it was built.
    An S3-backed warehouse is a snapshot: ``mcpbench warehouse build`` refreshes it."""
    path = Path(db_path) if db_path else default_db_path()
    if path.exists():
        with duckdb.connect(str(path), read_only=True) as con:
            built_over, built_version = con.execute("select store, store_version from warehouse_build").fetchone()
        current = _resolve_store(store if store is not None else built_over)
        if current.root != built_over or (built_version is not None and current.version() != built_version):
            build(current, path, check=False)  # another store, or runs landed since the build
    else:
        build(store, path, check=False)
    return duckdb.connect(str(path), read_only=read_only)


__all__ = ["DEFAULT_DB", "BuildResult", "CorruptFileError", "View", "attach_sources", "build", "connect",
           "create_views", "default_db_path", "load_views", "open_warehouse", "unreadable_files"]
