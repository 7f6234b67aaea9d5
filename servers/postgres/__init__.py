"""The postgres server: real SQL on an embedded, sandboxed engine (DuckDB in memory)."""

from servers._kit import ServerSpec
from servers.postgres.state import PostgresState
from servers.postgres.tools import PostgresTools

SPEC = ServerSpec(
    name="postgres",
    description=(
        "A SQL database (PostgreSQL-like dialect). Use list_tables and describe_table to discover the "
        "schema, query for read-only SELECTs and execute for changes (INSERT, UPDATE, DELETE, CREATE/ALTER/DROP TABLE)."
    ),
    toolset=PostgresTools,
)

__all__ = ["SPEC", "PostgresState", "PostgresTools"]
