"""The one way out of the warehouse: open it under the checked-build rule, and read rows.

Every reader (the score card, the report, ``mcpbench leaderboard`` and ``warehouse query``, and every
flow task) opens the warehouse here and reads rows through :func:`query`:

* :func:`open_warehouse` opens the database file, rebuilding it first when it is missing, was built
  over another store, or (local stores) runs have landed since: the rebuild validates what landed
  since the last checked build. An unchecked build (``warehouse build --no-check``) is refused
  (:class:`warehouse.status.UncheckedWarehouse`) unless the caller asks for unchecked data, which it
  then labels (:meth:`Warehouse.label`), or asks for it to be checked now (``recheck``: rebuilt with
  the suites, what an unattended flow does);
* :func:`open_submission` makes the views in memory over one submission's files: the score card that
  ``mcpbench run`` prints right after its runs landed. It is not a build and is never published.

Rows leave as :class:`Rows`: column names and tuples, as dicts, or as JSON-ready dicts (Decimal as
float, dates as ISO text). Nothing here imports pyarrow or pandas unless Arrow is asked for.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

import duckdb

from runstore.store import Store
from warehouse.build import build, connect, default_db_path
from warehouse.database_file import check_database_path
from warehouse.sources import resolve_store
from warehouse.status import BuildStatus, UncheckedWarehouse, build_status

if TYPE_CHECKING:
    import pyarrow as pa


def plain(value: Any) -> Any:
    """``value`` as JSON can carry it: a Decimal as a float, a date or time as ISO text, inside lists
    and structs too."""
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class Rows:
    """A query's result: its column names and its rows as tuples of Python values."""

    columns: list[str]
    values: list[tuple]

    def __len__(self) -> int:
        return len(self.values)

    def dicts(self) -> list[dict[str, Any]]:
        """One dict per row, column name to value."""
        return [dict(zip(self.columns, row)) for row in self.values]

    def plain(self) -> list[dict[str, Any]]:
        """One dict per row with JSON-ready values (:func:`plain`)."""
        return [{c: plain(v) for c, v in zip(self.columns, row)} for row in self.values]


def query(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> Rows:
    """Run one query on an open warehouse connection and fetch its rows."""
    cur = con.execute(sql, params or [])
    return Rows([d[0] for d in cur.description or []], cur.fetchall())


def connection(source: Warehouse | duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """The DuckDB connection of an open :class:`Warehouse`, or ``source`` itself when it is one."""
    return source.con if isinstance(source, Warehouse) else source


class Warehouse:
    """An open warehouse: its DuckDB connection (read-only for a database file) and what its build says
    (``status``; None for the in-memory views of :func:`open_submission`). Close it, or use ``with``."""

    def __init__(self, con: duckdb.DuckDBPyConnection, status: BuildStatus | None, path: Path | None = None) -> None:
        self.con = con
        self.status = status
        self.path = path

    def label(self) -> str | None:
        """The loud line to print beside anything read from unchecked data; None when it is checked."""
        return self.status.label() if self.status is not None else None

    def query(self, sql: str, params: list | None = None) -> Rows:
        return query(self.con, sql, params)

    def rows(self, sql: str, params: list | None = None) -> list[dict[str, Any]]:
        """The rows of ``sql`` as dicts."""
        return query(self.con, sql, params).dicts()

    def arrow(self, sql: str) -> pa.Table:
        """The rows of ``sql`` as an Arrow table (imports pyarrow)."""
        return self.con.sql(sql).to_arrow_table()

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_warehouse(db_path: str | os.PathLike[str] | None = None, *, store: Store | str | None = None,
                   allow_unchecked: bool = False, recheck: bool = False) -> Warehouse:
    """Open the warehouse database file (default ``$MCPBENCH_WAREHOUSE`` or ``.mcpbench/warehouse.duckdb``),
    building it first if it is missing, was built over another store than ``store``, or (local stores)
    runs have landed since it was built. An S3-backed warehouse is a snapshot: ``mcpbench warehouse
    build`` refreshes it.

    The rebuild checks what landed since the last checked build, so a failing suite raises
    :class:`warehouse.quality.QualityError`. A build that is not checked raises
    :class:`warehouse.status.UncheckedWarehouse`, unless ``recheck`` (it is rebuilt with the suites
    first, the same QualityError if they fail) or ``allow_unchecked`` (then nothing is checked and
    :meth:`Warehouse.label` says so). Nothing new landed: Great Expectations is not imported.

    A path holding anything but a warehouse raises :class:`warehouse.database_file.WarehouseFileError`,
    and a store that is about to be read but does not exist ``runstore.store.StoreError``: neither is
    created, replaced or changed."""
    path = check_database_path(db_path or default_db_path())
    if path.exists():
        with duckdb.connect(str(path), read_only=True) as con:
            status = build_status(con)
        current = resolve_store(store if store is not None else status.store, usage=None)
        if current.root != status.store or status.store_version is not None:
            current.check_usable("read")  # about to be read: compared with the build, or built over
        stale = current.root != status.store or (status.store_version is not None
                                                 and current.version() != status.store_version)
        if stale or (recheck and not status.checked and not allow_unchecked):
            build(current, path, check=not allow_unchecked)
    else:
        build(resolve_store(store), path, check=not allow_unchecked)
    con = duckdb.connect(str(path), read_only=True)
    status = build_status(con)
    if not status.checked and not allow_unchecked:
        con.close()
        raise UncheckedWarehouse(f"the warehouse {path} holds {status.unchecked_runs or 'some'} runs that have not "
                                 "passed the quality suites: run `mcpbench warehouse build` (or read it anyway, "
                                 "labelled, with --unchecked)")
    return Warehouse(con, status, path)


def open_submission(submission_id: str, store: Store | str | None = None) -> Warehouse:
    """The views in memory over ``submission_id``'s files in ``store`` only (fast on a large store):
    what ``mcpbench run`` reads its score card from right after the runs landed. Not a build: it has
    no status and is never published."""
    return Warehouse(connect(store, submission_id=submission_id), None)


__all__ = ["Rows", "Warehouse", "connection", "open_submission", "open_warehouse", "plain", "query"]
