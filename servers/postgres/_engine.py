"""The embedded SQL engine: a hardened in-memory DuckDB database loaded from, and dumped to, the state.

The connection cannot reach the host: external access is disabled (no file reads or writes, no
``COPY``, no ``ATTACH`` of files, no extension installs) and the configuration is locked so SQL
cannot turn it back on. Every statement batch runs under a deadline of CPU time (``STATEMENT_CPU_S``), with a
wall-clock backstop.
"""

from __future__ import annotations

import datetime as dt
import decimal
import functools
import itertools
import math
import os
import threading
import time
import uuid
import weakref
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, NamedTuple, TypeVar

import duckdb
import numpy as np
from pydantic import ValidationError

from servers.kit import format_validation_error
from servers.kit.recent import Recent
from servers.postgres.state import PostgresState, Table, fold, is_supported_type, supported_types_text

V = TypeVar("V")

#: CPU time one tool call's SQL may use, in seconds (see ``_Watchdog``); then the statement is
#: interrupted and the call rolled back.
STATEMENT_CPU_S = 5.0
#: The wall-clock backstop, as a multiple of the CPU budget: a statement that got less than a twelfth of
#: a core for 60 s is interrupted all the same. (A quarter was too little: two runs of five such statements
#: beside the test suite on two cores, load average 8, hit a 20 s backstop before the CPU budget.)
WALL_FACTOR = 12.0
#: The most rows the whole database may hold (every row is read back into the state).
MAX_TOTAL_ROWS = 50_000

_HARDENING = (
    # Never spill to disk: by default an in-memory database offloads large intermediates to `.tmp`
    # under the working directory, task values in plaintext. Past the memory limit a query fails.
    # (First: once external access is off, the setting can no longer change.)
    "SET temp_directory = ''",
    "SET enable_external_access = false",
    "SET autoinstall_known_extensions = false",
    "SET autoload_known_extensions = false",
    "SET allow_community_extensions = false",
    "SET memory_limit = '256MB'",
    "SET threads = 1",
    "SET lock_configuration = true",
)


class SQLError(Exception):
    """A statement the engine refused or failed; the message is meant for the agent."""


def quote(identifier: str) -> str:
    """A quoted SQL identifier."""
    return '"' + identifier.replace('"', '""') + '"'


def _engine() -> duckdb.DuckDBPyConnection:
    """A new hardened in-memory engine (its root connection)."""
    root = duckdb.connect(":memory:")
    for setting in _HARDENING:
        root.execute(setting)
    return root


class _Engines:
    """Hardened engines that are empty and idle, for the next database to use.

    Starting an engine and shutting it down cost more than loading a 10,000-row world into it (about
    half of a run's backend build), so a closed database hands its engine back instead, once it is
    provably as new: the run's own connection is closed (which rolls back what it left open and takes
    its temporary tables, variables, prepared statements and random seed with it), every table is
    dropped, and an inventory of the engine's catalog must then come back empty: no table, view, macro,
    sequence, type, schema or attached database of any run survives into the next. Settings are locked
    by the hardening and cannot differ. An engine that fails any step is shut down, never reused.
    """

    #: The most idle engines kept (each holds no data, but about 6 MiB of built-in catalog).
    KEEP = 4

    #: What may be left after statements that make no catalog object (SELECT, INSERT, UPDATE, DELETE,
    #: MERGE, and this module's own loading, which makes only tables): every other kind of object needs
    #: a CREATE or ATTACH statement. Checked anyway, as the inventory of last resort.
    TABLES = ("(select count(*) from duckdb_tables()) + (select count(*) from duckdb_databases() "
              "where database_name not in ('memory', 'system', 'temp'))")
    #: After DDL, everything else a statement can make. Listing macros means listing every built-in
    #: function (about 20 ms), and the others cost about a millisecond each, so only after DDL.
    CATALOG = TABLES + " + " + " + ".join(f"(select count(*) from {source})" for source in (
        "duckdb_schemas() where not internal",
        "duckdb_views() where not internal",
        "duckdb_sequences()",
        "duckdb_types() where not internal",
        "duckdb_functions() where not internal",
    ))

    def __init__(self) -> None:
        self._forget()
        # Engines are not shared with a forked child (whose copy of them is unusable): it starts anew.
        os.register_at_fork(after_in_child=self._forget)

    def _forget(self) -> None:
        # In a forked child the parent's engines are neither used nor closed (shutting one down there
        # crashes the child): they are only kept from the garbage collector.
        self._inherited = [*getattr(self, "_inherited", ()), *getattr(self, "_idle", ()),
                           *getattr(self, "_leased", {}).values()]
        self._lock = threading.Lock()
        self._idle: list[duckdb.DuckDBPyConnection] = []
        # A leased connection's engine. Weak: a connection dropped without ``release`` takes its engine
        # with it to the garbage collector, which closes both, as before there was any reuse.
        self._leased: weakref.WeakKeyDictionary[duckdb.DuckDBPyConnection, duckdb.DuckDBPyConnection] = \
            weakref.WeakKeyDictionary()

    def lease(self) -> duckdb.DuckDBPyConnection:
        with self._lock:
            root = self._idle.pop() if self._idle else None
        root = root or _engine()
        conn = root.cursor()
        with self._lock:
            self._leased[conn] = root
        return conn

    def release(self, conn: duckdb.DuckDBPyConnection, ran_ddl: bool, order: list[str] | None) -> None:
        with self._lock:
            root = self._leased.pop(conn, None)
        if not _close(conn):  # still running a statement on another thread: that engine is not reused
            return
        if root is None:  # not leased here (or released already)
            return
        if self._emptied(root, ran_ddl, order):
            with self._lock:
                if len(self._idle) < self.KEEP:
                    self._idle.append(root)
                    return
        root.close()

    def idle(self) -> int:
        with self._lock:
            return len(self._idle)

    def _emptied(self, root: duckdb.DuckDBPyConnection, ran_ddl: bool, order: list[str] | None) -> bool:
        """Drop every table of ``root``'s engine, a table before those it references (``order``: them, in
        that order, when known); True when the inventory is then empty (all of it after DDL)."""
        conn = root.cursor()
        try:
            order = _drop_order(conn) if order is None else order
            if order:
                conn.execute(";\n".join(f"DROP TABLE {quote(name)}" for name in order))
            left = conn.execute(f"select {self.CATALOG if ran_ddl else self.TABLES}").fetchone()
            assert left is not None  # a count has a row
            return left[0] == 0
        except (duckdb.Error, SQLError):  # SQLError: references in a cycle, which the engine cannot make
            return False
        finally:
            conn.close()


def _close(conn: duckdb.DuckDBPyConnection, wait_s: float = 2.0) -> bool:
    """Close ``conn``. A connection busy with a statement on another thread refuses to close: the
    statement is interrupted, and the close retried for up to ``wait_s``; False if it never closed."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            conn.close()
            return True
        except duckdb.Error:
            if time.monotonic() > deadline:
                return False
            conn.interrupt()
            time.sleep(0.01)


def _drop_order(conn: duckdb.DuckDBPyConnection) -> list[str]:
    """The engine's tables as the catalog lists them, each before the tables it references."""
    names = [r[0] for r in conn.execute(
        "select table_name from duckdb_tables() where database_name = 'memory' and schema_name = 'main' "
        "and not temporary").fetchall()]
    references: dict[str, list[str]] = {fold(name): [] for name in names}
    for table, target in conn.execute(
        "select table_name, referenced_table from duckdb_constraints() "
        "where database_name = 'memory' and constraint_type = 'FOREIGN KEY'").fetchall():
        if fold(table) in references:
            references[fold(table)].append(target)
    return list(reversed(_referenced_first(names, lambda name: references[fold(name)])))


_ENGINES = _Engines()


def connect() -> duckdb.DuckDBPyConnection:
    """A connection to a fresh, empty, hardened in-memory database; hand it back with ``release``."""
    return _ENGINES.lease()


def release(conn: duckdb.DuckDBPyConnection, *, ran_ddl: bool = True, tables: list[Table] | None = None) -> None:
    """Close a connection from ``connect``; its engine is emptied and kept for another database.

    ``ran_ddl=False`` tells that no statement but SELECT, INSERT, UPDATE, DELETE and MERGE (and this
    module's own loading) ran on it, so it holds no catalog object but tables: the inventory of the
    rest is skipped. Then ``tables`` may say which tables it holds (what ``open_database`` loaded,
    which such statements cannot change), so that they need not be listed first."""
    order = None if ran_ddl or tables is None else [t.name for t in reversed(creation_order(tables))]
    _ENGINES.release(conn, ran_ddl, order)


def open_database(state: PostgresState, only: set[str] | None = None,
                  conn: duckdb.DuckDBPyConnection | None = None) -> duckdb.DuckDBPyConnection:
    """A hardened database holding exactly ``state``'s tables and rows (referenced tables first).

    With ``only`` (folded table names), just those tables, without foreign keys: what a read-only query
    that names only them needs. ``conn`` is a fresh connection from ``connect()`` to load into. The
    tables are created and filled by one script (a call per table costs the engine's per-call overhead
    each time), with each table's rows as one registered Arrow batch."""
    conn = conn or connect()
    tables = loaded_tables(state, only)
    script: list[str] = []
    registered: list[str] = []
    try:
        for table in creation_order(tables):
            ddl = create_table_sql(table, foreign_keys=only is None)
            statements = conn.extract_statements(ddl)
            if len(statements) != 1 or statements[0].type != duckdb.StatementType.CREATE:
                raise SQLError(f"table {table.name!r}: a column default is not a single SQL expression")
            script.append(ddl)
            batch = _columnar(table) if len(table.rows) >= _BULK_ROWS else None
            if batch is not None:
                registered.append(f"_mcpbench_rows_{len(registered)}")
                conn.register(registered[-1], batch)
                script.append(f"INSERT INTO {quote(table.name)} SELECT * FROM {registered[-1]}")
            elif table.rows:  # row by row: what is scripted so far (this table's CREATE too) goes first
                conn.execute(";\n".join(script))
                script.clear()
                marks = ", ".join("?" for _ in table.columns)
                conn.executemany(f"INSERT INTO {quote(table.name)} VALUES ({marks})", table.rows)
        if script:
            conn.execute(";\n".join(script))
        for name in registered:
            conn.unregister(name)
    except duckdb.Error as exc:
        release(conn, ran_ddl=False)
        raise SQLError(f"the state cannot be loaded: {first_line(exc)}") from None
    except SQLError:
        release(conn, ran_ddl=False)
        raise
    return conn


def loaded_tables(state: PostgresState, only: set[str] | None = None) -> list[Table]:
    """The tables ``open_database(state, only)`` loads."""
    return state.tables if only is None else [t for t in state.tables if fold(t.name) in only]


#: Below this many rows a table is loaded row by row; from here on, as one columnar (Arrow) batch. The
#: engine's ``executemany`` costs about a millisecond a row (a 23-row table took 21 ms), a batch far less;
#: values Arrow cannot hold fall back to row by row.
_BULK_ROWS = 2


class _PerTable:
    """What was made from a ``Table`` model, kept for the ``size`` most recent tables. Entries are found
    by the model's id and hold the model, so that id cannot be reused while its entry is kept; models are
    never changed in place (a write makes new ones), so what was made from one stays true of it."""

    def __init__(self, size: int) -> None:
        self._recent: Recent[tuple[Table, Any]] = Recent(size)

    def get_or_make(self, table: Table, make: Callable[[], V]) -> V:
        found = self._recent.get(id(table))
        if found is not None and found[0] is table:
            return found[1]
        value = make()
        self.put(table, value)
        return value

    def put(self, table: Table, value: Any) -> None:
        self._recent.put(id(table), (table, value))


def _columnar(table: Table):
    """``table.rows`` as an Arrow table (None where Arrow cannot hold a value), made once per ``Table``:
    every run of a task opens a database from the same cached world, so the batch of a world's table is
    built once, not per run (about 19 ms of a default world's 67 ms build)."""
    return _COLUMNAR.get_or_make(table, lambda: _arrow_batch(table))


def _arrow_batch(table: Table):
    import pyarrow as pa

    try:
        return pa.table({f"c{i}": pa.array(list(column)) for i, column in enumerate(zip(*table.rows))})
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
        return None


#: Arrow batches of the last 128 tables.
_COLUMNAR = _PerTable(128)


def creation_order(tables: list[Table]) -> list[Table]:
    """``tables`` with every table after the tables its foreign keys reference (else in their order)."""
    by_name = {fold(t.name): t for t in tables}
    order = _referenced_first([t.name for t in tables],
                              lambda name: [fk.references for fk in by_name[fold(name)].foreign_keys])
    return [by_name[fold(name)] for name in order]


def _referenced_first(names: list[str], references: Callable[[str], list[str]]) -> list[str]:
    """``names`` with every name after the names it references (``references(name)``; names compare as
    the engine folds them, and a reference to itself or to a name not given is ignored), else in the
    given order. An ``SQLError`` if references form a cycle."""
    known = {fold(name): name for name in names}
    done: dict[str, str] = {}

    def visit(name: str, path: tuple[str, ...]) -> None:
        key = fold(name)
        if key in done:
            return
        if key in path:
            raise SQLError(f"foreign keys form a cycle through {name!r}")
        for target in references(name):
            if fold(target) in known and fold(target) != key:
                visit(known[fold(target)], (*path, key))
        done[key] = name

    for name in names:
        visit(name, ())
    return list(done.values())


def create_table_sql(table: Table, foreign_keys: bool = True) -> str:
    parts = []
    for column in table.columns:
        part = f"{quote(column.name)} {column.type}"
        if not column.nullable:
            part += " NOT NULL"
        if column.default is not None:
            part += f" DEFAULT ({column.default})"
        parts.append(part)
    if table.primary_key:
        parts.append(f"PRIMARY KEY ({', '.join(quote(k) for k in table.primary_key)})")
    for fk in table.foreign_keys if foreign_keys else ():
        parts.append(f"FOREIGN KEY ({', '.join(quote(k) for k in fk.columns)}) REFERENCES "
                     f"{quote(fk.references)} ({', '.join(quote(k) for k in fk.referenced_columns)})")
    return f"CREATE TABLE {quote(table.name)} ({', '.join(parts)})"


def first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


class _Armed(NamedTuple):
    conn: duckdb.DuckDBPyConnection
    cpu: Callable[[], float]  # the armed thread's CPU time, in seconds
    cpu_due: float  # ... at which the statement is interrupted
    wall_due: float  # time.monotonic() at which it is interrupted all the same


class _Watchdog:
    """One thread that interrupts each connection whose time is up: once the thread that armed it has
    used its CPU time budget (``STATEMENT_CPU_S``), or, as a backstop, once its wall-clock budget has
    passed. A tool call arms it and disarms it when done, instead of starting (and stopping) a timer
    thread of its own on every call.

    CPU time, not wall time: the engine runs a statement on the calling thread (``threads = 1``), so
    its CPU clock counts the statement's work and nothing else, and the same statement is cut at the
    same point however many runs share the machine. Wall time would cut it sooner the busier the
    machine, and the same calls would give another trace at another concurrency. A thread's CPU time
    grows at most as fast as the wall clock, so the watch sleeps until the earliest moment a budget
    could be spent and looks again then.

    The watch is woken only by a deadline sooner than the time it sleeps until: arming a call while an
    earlier one is pending (or one already disarmed, which the watch notices when it wakes) costs a
    lock and no thread switch. Waking it on every arm cost about 0.1-0.15 ms a call, the watch taking
    the interpreter lock while the engine ran the call's statement."""

    def __init__(self) -> None:
        self._tokens = itertools.count()
        self._reset()
        # A child forked while the watch held the lock would wait on it forever: it starts afresh.
        os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        self._changed = threading.Condition()
        self._armed: dict[int, _Armed] = {}
        self._fired: dict[int, str] = {}  # token -> which budget ran out ("cpu" or "wall")
        self._thread: threading.Thread | None = None
        self._wakes_at = math.inf  # when the watch wakes next on its own (inf: only when notified)

    def arm(self, conn: duckdb.DuckDBPyConnection, cpu_s: float, wall_s: float) -> int:
        """Watch ``conn`` for the calling thread, which must disarm before it ends (the watch reads its
        CPU clock only while it is armed)."""
        clock = time.pthread_getcpuclockid(threading.get_ident())
        cpu = functools.partial(time.clock_gettime, clock)
        now = time.monotonic()
        entry = _Armed(conn, cpu, cpu() + cpu_s, now + wall_s)
        with self._changed:
            token = next(self._tokens)
            self._armed[token] = entry
            if self._thread is None or not self._thread.is_alive():  # none yet
                self._thread = threading.Thread(target=self._watch, name="sql-deadlines", daemon=True)
                self._wakes_at = -math.inf  # it looks at what is armed before it first sleeps
                self._thread.start()
            elif now + min(cpu_s, wall_s) < self._wakes_at:
                self._wakes_at = -math.inf  # woken: it recomputes before it sleeps again
                self._changed.notify()
        return token

    def disarm(self, token: int) -> str | None:
        """Forget ``token``; which budget had run out if the watch interrupted it ("cpu" or "wall"), else None."""
        with self._changed:
            self._armed.pop(token, None)
            return self._fired.pop(token, None)

    def _watch(self) -> None:
        with self._changed:
            while True:
                now = time.monotonic()
                soonest = math.inf
                for token, armed in list(self._armed.items()):
                    cpu_left = armed.cpu_due - armed.cpu()
                    if cpu_left <= 0 or armed.wall_due <= now:
                        del self._armed[token]
                        self._fired[token] = "cpu" if cpu_left <= 0 else "wall"
                        try:
                            armed.conn.interrupt()
                        except duckdb.Error:  # closed while armed: nothing left to interrupt
                            pass
                    else:
                        soonest = min(soonest, now + cpu_left, armed.wall_due)
                self._wakes_at = soonest
                self._changed.wait(None if soonest == math.inf else soonest - now)


_WATCHDOG = _Watchdog()


class StatementTimeout(SQLError):
    """A statement was interrupted because its time was up (the call is rolled back)."""


@contextmanager
def deadline(conn: duckdb.DuckDBPyConnection, seconds: float | None = None) -> Iterator[None]:
    """Interrupt whatever ``conn`` runs once the calling thread has used ``seconds`` of CPU time (default
    ``STATEMENT_CPU_S``), or ``WALL_FACTOR`` times as long has passed on the wall clock. The interruption
    is reported as a ``StatementTimeout``, or, when something else interrupted the statement (the
    database closed under it), an ``SQLError`` saying so."""
    seconds = STATEMENT_CPU_S if seconds is None else seconds
    wall = seconds * WALL_FACTOR
    token = _WATCHDOG.arm(conn, seconds, wall)
    try:
        yield
    except duckdb.InterruptException:
        fired = _WATCHDOG.disarm(token)
        if fired is None:
            raise SQLError("cancelled: the database was closed while the statement ran") from None
        if fired == "cpu":
            raise StatementTimeout(f"cancelled: the statement ran longer than {seconds:g} s of CPU time") from None
        raise StatementTimeout(f"cancelled: the statement ran longer than {wall:g} s") from None
    finally:
        _WATCHDOG.disarm(token)


def fetch_bounded(result: duckdb.DuckDBPyConnection, keep: int) -> tuple[list[tuple], int]:
    """The first ``keep`` rows of ``result`` and how many rows it has in all. The rest are counted in
    chunks and dropped: fetching them all took the harness about 100 bytes a row (a SELECT of 50 million
    rows, gigabytes), whatever the engine's own memory limit; counting is bounded by the deadline."""
    rows = result.fetchmany(keep)
    total = len(rows)
    if total == keep:
        while chunk := result.fetchmany(_COUNT_CHUNK):
            total += len(chunk)
    return rows, total


#: Rows fetched at once while counting what ``fetch_bounded`` drops.
_COUNT_CHUNK = 65536


def split(conn: duckdb.DuckDBPyConnection, sql: str) -> list[Any]:
    """The statements of ``sql`` (an ``SQLError`` on a syntax error or when there are none)."""
    try:
        statements = conn.extract_statements(sql)
    except duckdb.Error as exc:
        raise SQLError(str(exc).strip()) from None
    if not statements:
        raise SQLError("no SQL statement given")
    return statements


def statement_kind(statement: Any) -> str:
    return statement.type.name


def run_read_only(conn: duckdb.DuckDBPyConnection, sql: str,
                  keep: int | None = None) -> tuple[list[str], list[tuple], int]:
    """Run one SELECT, changing nothing: ``(column names, rows, how many rows in all)``; with ``keep``, only
    the first ``keep`` rows are fetched (``fetch_bounded``).

    A SELECT writes only through DML in its WITH clause (``WITH gone AS (DELETE ...) SELECT ...``),
    which the engine accepts at the statement's top level alone (not in a subquery, nor in the text a
    ``query()`` call runs), so that its keyword is in the statement's text: a SELECT that may write
    (``may_write``) runs in a transaction that is always rolled back; any other needs none (the two
    statements of a transaction were a tenth of a small query's time)."""
    statements = split(conn, sql)
    if len(statements) != 1:
        raise SQLError(f"give exactly one statement; got {len(statements)}")
    kind = statement_kind(statements[0])
    if kind != "SELECT":
        raise SQLError(f"only SELECT is allowed here (read-only); got {kind}")
    guarded = may_write(statements[0])
    if guarded:
        conn.execute("BEGIN TRANSACTION")
    try:
        with deadline(conn):
            result = conn.execute(statements[0])
            columns = [d[0] for d in result.description or []]
            if keep is None:
                rows = result.fetchall()
                return columns, rows, len(rows)
            return columns, *fetch_bounded(result, keep)
    except duckdb.Error as exc:
        raise SQLError(str(exc).strip()) from None
    finally:
        if guarded:
            conn.execute("ROLLBACK")


def catalog_problem(conn: duckdb.DuckDBPyConnection) -> str | None:
    """Why the database holds something the state cannot represent (None when all is well)."""
    checks = (
        ("select schema_name from duckdb_schemas() where not internal",
         "only the main schema is supported; CREATE SCHEMA is not"),
        ("select table_name from duckdb_tables() where temporary or database_name <> 'memory' "
         "or schema_name <> 'main'", "temporary tables and other schemas are not supported"),
        ("select view_name from duckdb_views() where not internal", "views are not supported"),
        ("select sequence_name from duckdb_sequences()", "sequences are not supported"),
        ("select index_name from duckdb_indexes()", "indexes are not supported (tables are small)"),
        ("select function_name from duckdb_functions() where not internal", "macros are not supported"),
        ("select type_name from duckdb_types() where not internal", "user-defined types are not supported"),
        ("select constraint_type from duckdb_constraints() where database_name = 'memory' "
         "and constraint_type not in ('PRIMARY KEY', 'NOT NULL', 'FOREIGN KEY')",
         "only PRIMARY KEY, FOREIGN KEY and NOT NULL constraints are supported"),
    )
    for sql, message in checks:
        found = conn.execute(sql).fetchall()
        if found:
            return f"{message} (found {found[0][0]})"
    for table, column, type_name in conn.execute(
        "select table_name, column_name, data_type from duckdb_columns() "
        "where database_name = 'memory' and schema_name = 'main'"
    ).fetchall():
        if not is_supported_type(type_name):
            return (f"column {table}.{column} has type {type_name}, which this server does not store; "
                    f"supported: {supported_types_text()}")
    return None


class RowIndex(NamedTuple):
    """A table as the engine holds it: each row's rowid and a hash of its values, in rowid order, aligned
    with the rows of the ``Table`` model it belongs to (``hashes[i]`` is the hash of ``rows[i]``)."""

    rowids: np.ndarray
    hashes: np.ndarray

    def same(self, other: RowIndex) -> bool:
        return np.array_equal(self.rowids, other.rowids) and np.array_equal(self.hashes, other.hashes)


def row_index(conn: duckdb.DuckDBPyConnection, name: str, limit: int | None = None) -> RowIndex:
    """The rowids and row hashes of table ``name``, in rowid order (the order a dump gives its rows); with
    ``limit``, of at most that many rows (which, then, only tells that the table holds as many)."""
    cap = "" if limit is None else f" limit {int(limit)}"
    found = conn.execute(f"select rowid as i, hash(t) as h from {quote(name)} t{cap}").fetchnumpy()
    rowids, hashes = found["i"], found["h"]
    if len(rowids) > 1 and not (rowids[1:] > rowids[:-1]).all():  # a scan gives rowid order; make sure
        order = np.argsort(rowids, kind="stable")
        rowids, hashes = rowids[order], hashes[order]
    return RowIndex(rowids, hashes)


def indexed(conn: duckdb.DuckDBPyConnection, table: Table) -> RowIndex:
    """The row index of ``table``, which ``conn`` holds as it is (no write since it was loaded or read).

    A row's hash depends on its values alone, so an index holds for its ``Table`` in any database: the
    index of a world's table is made once per process, not once per run."""
    return _ROW_INDEX.get_or_make(table, lambda: row_index(conn, table.name))


#: Row indexes of the last 64 tables.
_ROW_INDEX = _PerTable(64)


def written_tables(statements: list[Any], tables: list[Table]) -> list[Table]:
    """The tables that ``statements`` (DML, and SELECTs) may have changed.

    DML changes only the table it names: the engine has no triggers, rules or views, and its foreign keys
    neither cascade nor set values. So a table whose name occurs nowhere in the text of the statements
    that may write (folded, and with its quotes doubled as a quoted identifier writes them) is unchanged.
    Text outside ASCII, where the engine's own name matching is not spelled out here, counts every table
    as named."""
    text = fold(" ".join(s.query for s in statements if may_write(s)))
    if not text:
        return []
    if not text.isascii():
        return list(tables)
    return [t for t in tables if fold(t.name) in text or fold(t.name).replace('"', '""') in text]


#: Statement kinds that change rows but never the catalog.
DML_KINDS = frozenset({"INSERT", "UPDATE", "DELETE", "MERGE_INTO"})
#: Words without which no statement writes a row: a SELECT writes only through a WITH clause holding
#: DML (``WITH gone AS (DELETE FROM t RETURNING *) SELECT count(*) FROM gone`` deletes, and is a SELECT).
_WRITE_WORDS = ("insert", "update", "delete", "merge")


def may_write(statement: Any) -> bool:
    """Whether ``statement`` (DML or a SELECT) may change rows: DML always; a SELECT when its text holds
    a DML keyword anywhere (a column ``updated_at`` too: a false alarm costs a read back, never a miss)."""
    kind = statement_kind(statement)
    if kind in DML_KINDS:
        return True
    text = fold(statement.query)
    return kind == "SELECT" and (not text.isascii() or any(word in text for word in _WRITE_WORDS))


def adds_no_rows(statements: list[Any]) -> bool:
    """Whether ``statements`` provably insert no row anywhere: each an UPDATE, DELETE or SELECT, and no
    INSERT or MERGE in their text, not even in a WITH clause (an UPDATE of a key column moves its row
    to the end of the table but keeps the count)."""
    text = fold(" ".join(s.query for s in statements))
    return (all(statement_kind(s) in ("UPDATE", "DELETE", "SELECT") for s in statements) and text.isascii()
            and "insert" not in text and "merge" not in text)


def refresh(conn: duckdb.DuckDBPyConnection, table: Table, before: RowIndex) -> Table:
    """``table`` as the engine holds it after DML, which cannot change its columns or keys: a row whose
    hash is unchanged is taken from ``table`` as it is, and only new or changed rows are read back and
    checked (an update of one order reads one row, not 2,200). ``before`` is ``table``'s index; the
    ``SQLError`` for a row the state cannot hold says ``rows[i] of 'name', column ...``."""
    after = row_index(conn, table.name, limit=MAX_TOTAL_ROWS + 1)
    if len(after.rowids) > MAX_TOTAL_ROWS:  # refused before its rows are read into the harness's memory
        raise SQLError(f"the database may hold at most {MAX_TOTAL_ROWS} rows in all")
    if after.same(before):
        return table
    rows: list[list[Any] | None]
    if np.array_equal(after.rowids, before.rowids):  # updates only: every row is where it was
        kept = after.hashes == before.hashes
        rows = list(table.rows)
    else:  # rows inserted or deleted: find each row by its rowid
        found = np.minimum(np.searchsorted(before.rowids, after.rowids), max(len(before.rowids) - 1, 0))
        kept = ((before.rowids[found] == after.rowids) & (before.hashes[found] == after.hashes)
                if len(before.rowids) else np.zeros(len(after.rowids), dtype=bool))
        rows = [table.rows[i] if keep else None for i, keep in zip(found.tolist(), kept.tolist())]
    missing = np.flatnonzero(~kept).tolist()
    if missing:
        target = quote(table.name)
        if 2 * len(missing) > len(rows):
            fetched = conn.execute(f"select * from {target} order by rowid").fetchall()
            fetched = [fetched[k] for k in missing]
        elif len(missing) == 1:
            fetched = conn.execute(f"select * from {target} where rowid = ?", [int(after.rowids[missing[0]])]).fetchall()
        else:
            wanted = ", ".join(str(int(r)) for r in after.rowids[missing])
            fetched = conn.execute(f"select * from {target} where rowid in ({wanted}) order by rowid").fetchall()
        if len(fetched) != len(missing):
            raise SQLError(f"table {table.name!r} changed while it was read back")
        for k, row in zip(missing, fetched):
            values = [to_json(v) for v in row]
            problem = table.row_problem(values)
            if problem:
                raise SQLError(f"rows[{k}] of {table.name!r}{problem}")
            rows[k] = values
    new = table.model_copy(update={"rows": rows})
    if not len(after.rowids) or after.rowids[-1] < LOCAL_ROWIDS:  # what the next write compares with
        _ROW_INDEX.put(new, after)
    return new


#: Where the engine numbers the rows a transaction inserted until it commits (DuckDB's ``MAX_ROW_ID``):
#: an index read inside that transaction does not hold after it, when they are numbered anew.
LOCAL_ROWIDS = 36028797018960000


def dump(conn: duckdb.DuckDBPyConnection, *, check_catalog: bool = True,
         before: Mapping[str, tuple[Table, RowIndex]] | None = None) -> PostgresState:
    """The database's tables, read back into the state model (an ``SQLError`` if it does not fit).

    ``check_catalog=False`` skips :func:`catalog_problem`, for a caller that knows no statement could
    have changed the catalog. ``before``: tables the database held (by exact name, each with its row
    index as it was then); one that still has that name, columns and keys is refreshed (only its new or
    changed rows are read back) instead of read whole: a CREATE TABLE next to a world's 10,000 rows
    reads the new table alone."""
    problem = catalog_problem(conn) if check_catalog else None
    if problem:
        raise SQLError(problem)
    names = [r[0] for r in conn.execute(
        "select table_name from duckdb_tables() where database_name = 'memory' and schema_name = 'main' "
        "order by table_name").fetchall()]
    total = 0
    tables = []
    for name in names:
        counted = conn.execute(f"select count(*) from {quote(name)}").fetchone()
        assert counted is not None  # a count has a row
        total += counted[0]
        if total > MAX_TOTAL_ROWS:
            raise SQLError(f"the database may hold at most {MAX_TOTAL_ROWS} rows in all")
        columns = [
            {"name": c, "type": t, "nullable": n, "default": d}
            for c, t, n, d in conn.execute(
                "select column_name, data_type, is_nullable, column_default from duckdb_columns() "
                "where database_name = 'memory' and schema_name = 'main' and table_name = ? "
                "order by column_index", [name]).fetchall()
        ]
        keys = conn.execute(
            "select constraint_column_names from duckdb_constraints() where database_name = 'memory' "
            "and table_name = ? and constraint_type = 'PRIMARY KEY'", [name]).fetchall()
        foreign = conn.execute(
            "select constraint_column_names, referenced_table, referenced_column_names from duckdb_constraints() "
            "where database_name = 'memory' and table_name = ? and constraint_type = 'FOREIGN KEY' "
            "order by constraint_index", [name]).fetchall()
        known = before.get(name) if before else None
        if known is not None and _same_schema(known[0], columns, keys, foreign):
            try:
                tables.append(refresh(conn, *known))
            except SQLError as exc:
                raise SQLError(f"the result cannot be stored: tables[{len(tables)}]: {exc}") from None
            continue
        rows = conn.execute(f"select * from {quote(name)} order by rowid").fetchall()
        table = {"name": name, "columns": columns, "primary_key": list(keys[0][0]) if keys else [],
                 "rows": [[to_json(v) for v in row] for row in rows]}
        if foreign:
            table["foreign_keys"] = [{"columns": list(c), "references": t, "referenced_columns": list(r)}
                                     for c, t, r in foreign]
        try:
            tables.append(Table.model_validate(table))
        except ValidationError as exc:
            where = f"tables[{len(tables)}]"
            raise SQLError("the result cannot be stored: " + format_validation_error(exc, where)) from None
    try:
        return PostgresState.with_tables(tables)
    except ValueError as exc:
        raise SQLError(f"the result cannot be stored: {exc}") from None


def _same_schema(table: Table, columns: list[dict[str, Any]], keys: list[tuple], foreign: list[tuple]) -> bool:
    """Whether ``table`` has the columns, primary key and foreign keys the catalog lists (as ``dump``
    reads them)."""
    return ([(c.name, c.type, c.nullable, c.default) for c in table.columns]
            == [(c["name"], c["type"], c["nullable"], c["default"]) for c in columns]
            and table.primary_key == (list(keys[0][0]) if keys else [])
            and [(fk.columns, fk.references, fk.referenced_columns) for fk in table.foreign_keys]
            == [(list(c), t, list(r)) for c, t, r in foreign])


def to_json(value: Any) -> Any:
    """A value the engine returned, as plain JSON data (dates and times as ISO text, decimals as numbers)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, (uuid.UUID, dt.timedelta)):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    return str(value)
