"""The postgres server: real SQL on an embedded, sandboxed engine (DuckDB in memory)."""

import duckdb

from servers.kit import ServerSpec
from servers.postgres import _engine
from servers.postgres._engine import SQLError
from servers.postgres.state import PostgresState, fold
from servers.postgres.tools import PostgresTools

SPEC = ServerSpec(
    name="postgres",
    description=(
        "A SQL database (PostgreSQL-like dialect). Use list_tables and describe_table to discover the "
        "schema, query for read-only SELECTs and execute for changes (INSERT, UPDATE, DELETE, CREATE/ALTER/DROP TABLE)."
    ),
    toolset=PostgresTools,
)



def query_state(state: PostgresState, sql: str) -> tuple[list[str], list[tuple]]:
    """Run one read-only SELECT over ``state`` on a fresh sandboxed engine: (column names, rows).

    What the verifier uses; raises ``SQLError`` for a query the engine refuses or cannot run. Only the
    tables the query names are loaded (a verdict on a 10,000-row world need not load all of it)."""
    conn = _engine.connect()
    try:
        named = {fold(name) for name in conn.get_table_names(sql)}
    except duckdb.Error:
        named = None  # let the full database report the problem as it always has
    conn = _engine.open_database(state, named, conn)
    try:
        columns, rows, _ = _engine.run_read_only(conn, sql)
        return columns, rows
    finally:
        _engine.release(conn, ran_ddl=False, tables=_engine.loaded_tables(state, named))  # one SELECT ran


__all__ = ["SPEC", "PostgresState", "PostgresTools", "SQLError", "query_state"]
