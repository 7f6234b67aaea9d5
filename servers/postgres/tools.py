"""Postgres tools, named after the reference Postgres MCP servers, over a real embedded SQL engine.

``query`` runs one read-only SELECT; ``execute`` runs DDL/DML in one transaction that is rolled back
as a whole on any error. The engine is DuckDB in memory with no access to the host (see ``_engine``),
so the SQL dialect is DuckDB's, which follows PostgreSQL closely.
"""

from __future__ import annotations

from typing import Annotated, Any

import duckdb
from pydantic import Field

from servers.kit import CallTimeout, ToolError, Toolset, tool
from servers.postgres import _engine
from servers.postgres._engine import SQLError
from servers.postgres.state import PostgresState, Table, fold

Sql = Annotated[str, Field(min_length=1, description="SQL text (DuckDB dialect, close to PostgreSQL)")]
TableName = Annotated[str, Field(min_length=1, description="Table name, e.g. 'orders' (case-insensitive)")]

#: Rows a read returns at most; the answer says when it was cut.
MAX_RESULT_ROWS = 500
#: Statement kinds ``execute`` accepts.
WRITE_KINDS = frozenset({"SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "ALTER", "MERGE_INTO"})


class PostgresTools(Toolset[PostgresState]):
    state_model = PostgresState
    # never called, ``state`` is the ``_state`` it was opened on: nothing is read back before a write
    keeps_given_state = True

    def __init__(self, state: PostgresState) -> None:
        # No copy of ``state``: the database holds the live data, and the state is only ever replaced by
        # one read back after writes, never changed in place (``snapshot`` copies).
        self._state = state
        # Tables written since the state was last read back (by writes that add no row; see ``execute``),
        # by folded name: each as the state holds it, with its row index then. Their rows are read back
        # when the state is next wanted (``state``), not on every write.
        self._unread: dict[str, tuple[Table, _engine.RowIndex]] = {}
        self._ran_ddl = False  # whether a CREATE, ALTER or DROP ran (even one rolled back)
        try:
            self.conn = _engine.open_database(self._state)
        except SQLError as exc:
            raise ValueError(str(exc)) from None

    @property
    def state(self) -> PostgresState:  # type: ignore[override]
        """The database as the state model, with every write read back."""
        if self._unread:
            with _engine.deadline(self.conn):
                self._state = self._refreshed(*zip(*self._unread.values()))
            self._unread.clear()
        return self._state

    def close(self) -> None:
        # Without DDL, the tables are the ones loaded (DML changes rows only, so rows not read back do
        # not matter here).
        _engine.release(self.conn, ran_ddl=self._ran_ddl, tables=self._state.tables)

    # -- helpers -----------------------------------------------------------------------------
    def _table(self, name: str):
        table = self.state.table(name)
        if table is None:
            known = ", ".join(t.name for t in self.state.tables) or "none"
            raise ToolError(f"unknown table {name!r}; tables: {known}")
        return table

    @staticmethod
    def _rows(columns: list[str], rows: list[tuple], total: int) -> dict[str, Any]:
        """A result as the tools answer it: its first ``MAX_RESULT_ROWS`` rows (of ``rows``, fetched with
        ``_engine.fetch_bounded``) and its ``total`` row count."""
        out: dict[str, Any] = {
            "columns": columns,
            "rows": [[_engine.to_json(v) for v in row] for row in rows[:MAX_RESULT_ROWS]],
            "row_count": total,
        }
        if total > MAX_RESULT_ROWS:
            out["truncated"] = f"only the first {MAX_RESULT_ROWS} rows are shown; add LIMIT/OFFSET or a WHERE"
        return out

    def _refreshed(self, written: tuple[Table, ...], before: tuple[_engine.RowIndex, ...]) -> PostgresState:
        """The state after DML that may have changed ``written`` (with their row indexes ``before``): every
        other table is kept as it is, and of a written table only its new or changed rows are read back."""
        changed = {}
        for table, index in zip(written, before):
            try:
                new = _engine.refresh(self.conn, table, index)
            except SQLError as exc:
                where = next(i for i, t in enumerate(self._state.tables) if t.name == table.name)
                raise SQLError(f"the result cannot be stored: tables[{where}]: {exc}") from None
            if new is not table:
                changed[table.name] = new
        if not changed:
            return self._state
        tables = [changed.get(t.name, t) for t in self._state.tables]
        if sum(len(t.rows) for t in tables) > _engine.MAX_TOTAL_ROWS:
            raise SQLError(f"the database may hold at most {_engine.MAX_TOTAL_ROWS} rows in all")
        # Same names, columns and keys in the same order (DML changes only rows): the state's own checks hold.
        return PostgresState.model_construct(tables=tables)

    # -- tools -------------------------------------------------------------------------------
    @tool(read_only=True)
    def query(self, sql: Sql) -> dict:
        """Run one read-only SELECT (WITH ... SELECT allowed) and return its columns and rows as JSON.
        Writes are refused here; use execute for INSERT/UPDATE/DELETE/CREATE/ALTER/DROP."""
        try:
            columns, rows, total = _engine.run_read_only(self.conn, sql, keep=MAX_RESULT_ROWS)
        except SQLError as exc:
            raise _sql_error(exc) from None
        return self._rows(columns, rows, total)

    @tool(destructive=True)
    def execute(self, sql: Sql) -> dict:
        """Run one or more SQL statements (INSERT, UPDATE, DELETE, CREATE TABLE, ALTER TABLE, DROP TABLE,
        SELECT) separated by semicolons, in a single transaction: if any statement fails, nothing is
        changed. Reports rows affected per statement (and the rows of a SELECT). Transaction control,
        COPY, ATTACH, SET, views, indexes and sequences are not supported."""
        try:
            statements = _engine.split(self.conn, sql)
        except SQLError as exc:
            raise ToolError(f"SQL error: {exc}") from None
        for i, statement in enumerate(statements, 1):
            kind = _engine.statement_kind(statement)
            if kind not in WRITE_KINDS:
                raise ToolError(
                    f"statement {i} is {kind}, which execute does not accept; allowed: "
                    f"{', '.join(sorted(WRITE_KINDS))} (each call already runs in its own transaction)"
                )
        ddl = any(_engine.statement_kind(s) in ("CREATE", "DROP", "ALTER") for s in statements)
        self._ran_ddl |= ddl
        # DML keeps every table's name, columns and keys: the tables it may write are known without
        # reading back what earlier writes left unread.
        written = [] if ddl else _engine.written_tables(statements, self._state.tables)
        # Writes that add no row, to tables whose column types hold only values the state stores, cannot
        # leave the database holding what the state refuses once the engine took them: their rows are
        # read back when the state is next wanted, once for any number of such writes (a write of one
        # row then costs its own statement and the transaction, not two scans of the table). Anything
        # else first reads back what is unread and is read back itself before it commits, so that a
        # result the state cannot hold is refused, and rolled back, by the call that made it.
        deferred = _engine.adds_no_rows(statements) and all(t.holds_any_value for t in written)  # (no DDL)
        if not deferred and self._unread:
            state = self.state
            written = [state.table(t.name) for t in written]  # type: ignore[misc]  # DML drops no table: each is there
        report = []
        self.conn.execute("BEGIN TRANSACTION")
        try:
            with _engine.deadline(self.conn):
                # The tables as they are, each with its row index: what a write reads back is compared
                # with them. DDL may change any table; DML only the tables it names. (A table with
                # unread writes keeps the index of the rows the state still holds for it.)
                tables = self._state.tables if ddl else [t for t in written if fold(t.name) not in self._unread]
                before = [_engine.indexed(self.conn, table) for table in tables]
                for statement in statements:
                    kind = _engine.statement_kind(statement)
                    result = self.conn.execute(statement)
                    columns = [d[0] for d in result.description or []]
                    rows, total = _engine.fetch_bounded(result, MAX_RESULT_ROWS) if columns else ([], 0)
                    if kind in _engine.DML_KINDS and columns == ["Count"] and total == 1:
                        report.append({"statement": kind, "rows_affected": rows[0][0]})
                    elif kind == "SELECT" or kind in _engine.DML_KINDS:  # DML with RETURNING gives rows
                        report.append({"statement": kind, **self._rows(columns, rows, total)})
                    else:
                        report.append({"statement": kind, "status": "ok"})
                if ddl:
                    new_state = _engine.dump(self.conn, before={t.name: (t, index) for t, index
                                                                in zip(self._state.tables, before)})
                elif not deferred:
                    new_state = self._refreshed(tuple(written), tuple(before))
        except (duckdb.Error, SQLError) as exc:
            self.conn.execute("ROLLBACK")
            raise _sql_error(exc, "; the transaction was rolled back, nothing changed") from None
        self.conn.execute("COMMIT")
        if deferred:
            self._unread.update((fold(t.name), (t, index)) for t, index in zip(tables, before))
        else:
            self._state = new_state
        return {"executed": len(statements), "results": report}

    @tool(read_only=True)
    def list_schemas(self) -> list:
        """List the database's schemas with their table counts (this database has one schema, main)."""
        return [{"schema": "main", "tables": len(self._state.tables)}]

    @tool(read_only=True)
    def list_tables(self) -> list:
        """List every table with its number of columns and rows."""
        return [{"table": t.name, "columns": len(t.columns), "rows": len(t.rows)} for t in self.state.tables]

    @tool(read_only=True)
    def describe_table(self, table: TableName) -> dict:
        """Describe a table: its columns (name, type, nullable, default, primary key), the foreign keys it
        holds (which table each references) and its row count."""
        found = self._table(table)
        keys = {fold(k) for k in found.primary_key}
        return {
            "table": found.name,
            "columns": [
                {"name": c.name, "type": c.type, "nullable": c.nullable, "default": c.default,
                 "primary_key": fold(c.name) in keys}
                for c in found.columns
            ],
            "foreign_keys": [{"columns": fk.columns, "references": fk.references,
                              "referenced_columns": fk.referenced_columns} for fk in found.foreign_keys],
            "rows": len(found.rows),
        }

    @tool(read_only=True)
    def explain_query(self, sql: Sql) -> str:
        """Show the engine's execution plan for one SELECT, without running it."""
        try:
            statements = _engine.split(self.conn, sql)
        except SQLError as exc:
            raise ToolError(f"SQL error: {exc}") from None
        if len(statements) != 1 or _engine.statement_kind(statements[0]) != "SELECT":
            raise ToolError("explain_query takes exactly one SELECT statement")
        try:
            with _engine.deadline(self.conn):
                rows = self.conn.execute("EXPLAIN " + statements[0].query.rstrip().rstrip(";")).fetchall()
        except (duckdb.Error, SQLError) as exc:
            raise _sql_error(exc) from None
        return "\n".join(str(r[1]) for r in rows)



def _sql_error(exc: Exception, after: str = "") -> ToolError:
    """The tool error for ``exc`` (the engine's error or ours): a ``CallTimeout`` when the statement ran
    out of time, so that the gateway records it as such."""
    kind = CallTimeout if isinstance(exc, _engine.StatementTimeout) else ToolError
    return kind(f"SQL error: {str(exc).strip()}{after}")
