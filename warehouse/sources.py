"""Where the warehouse's data comes from: the store's landed Parquet and published task lists, made
readable in a DuckDB connection, and what is said when a landed file does not read back.

This is the one module that knows where the Parquet lives; the staging views name what they read as
``{{ source('runs') }}``, ``{{ source('calls') }}``, ``{{ source('turns') }}`` and ``{{ source('month_tasks') }}``, and
:func:`attach_sources` says what fills each:

* a local store: ``read_parquet('<root>/runs/**/*.parquet')``, read in place;
* any other store (S3): the pyarrow dataset copied into a ``source_runs`` / ``source_calls`` / ``source_turns`` table,
  since DuckDB's httpfs is not available here;
* ``month_tasks``: the ``(month, task_id)`` lists published at each month's start, as a small table.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from runstore.store import PUBLISHED_MAX_BYTES, RECORD_KINDS, LocalStore, Store, open_store
from runstore.store._base import read_parquet_bytes, schema_of

if TYPE_CHECKING:
    import duckdb

#: The landed kinds of records. Their Arrow schemas (``runstore.store.schema_of``) are read only where
#: needed: pyarrow costs ~0.3 s to import, and a rebuild over a local store does not need it.
KINDS = RECORD_KINDS


def resolve_store(store: Store | str | None, usage: str | None = "read") -> Store:
    """``store`` itself, or the store at that root (default ``MCPBENCH_STORE``), refused unless it exists:
    the warehouse only reads a store and never makes one at a mistyped path."""
    return store if isinstance(store, Store) else open_store(store, usage=usage)


def quote(text: str) -> str:
    """``text`` as a SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def attach_sources(
    con: duckdb.DuckDBPyConnection, store: Store, *, submission_id: str | None = None, copy: bool = True,
    read_only: bool = False,
) -> dict[str, str]:
    """Make the store's runs and calls readable in ``con``; return what fills ``source(kind)``.

    A local store is read in place. Any other store's pyarrow dataset is copied into a table (``copy``,
    for a database file that must outlive this process) or registered (an in-memory connection).
    ``read_only`` writes nothing to the store, not even a local store's schema files
    (``LocalStore.ensure_schema_file``): its pyarrow dataset is registered (or copied) like any other
    store's, with the contract's schema (what ``mcpbench view`` reads, over a store it may not write)."""
    sources: dict[str, str] = {}
    for kind in KINDS:
        if isinstance(store, LocalStore) and not read_only:
            schema_file = store.ensure_schema_file(kind)
            if submission_id is None:
                pattern = str(store.path / kind / "**" / "*.parquet")  # always matches the schema file
                sources[kind] = f"read_parquet({quote(pattern)}, hive_partitioning = false, union_by_name = true)"
            else:
                patterns = [str(schema_file)]
                if store.files(kind, submission_id):
                    patterns.append(store.parquet_glob(kind, submission_id))
                listed = ", ".join(quote(p) for p in patterns)
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


def name_corrupt_files(store: Store, exc: BaseException, **stopped: str) -> None:
    """When reading the store failed, raise :class:`CorruptFileError` if unreadable files are the cause."""
    import duckdb
    import pyarrow as pa

    if isinstance(exc, ValueError | duckdb.Error | pa.ArrowException | OSError):
        bad = unreadable_files(store)
        if bad:
            raise CorruptFileError(store, bad, **stopped) from None


__all__ = ["KINDS", "CorruptFileError", "attach_sources", "month_tasks", "name_corrupt_files", "quote",
           "resolve_store", "unreadable_files"]
