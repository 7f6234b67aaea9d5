"""Postgres primitives, over the state's tables (see ``servers/postgres/state.py``).

Identifiers: table and column names are matched case-insensitively (ASCII letters only are folded),
as the SQL engine resolves unquoted names. Values: a cell is compared with ``same`` (numbers by
numeric value, strings exactly, no coercion between kinds; JSON ``null`` matches a NULL cell).
Cells of DATE/TIME/TIMESTAMP/UUID columns are ISO text in the state (``"2026-03-14"``,
``"2026-03-14 09:30:00"``); DECIMAL cells are numbers. A missing table or column makes a
primitive false, never an error.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from servers.postgres import PostgresState, SQLError, query_state
from servers.postgres.state import Table, is_supported_type, supported_types_text
from tasks_catalog.predicates._registry import (
    NOT_IN_GOAL,
    Args,
    Name,
    Scalar,
    closest,
    explains,
    listing,
    primitive,
    same,
    value,
)


def _canonical_type(value: str) -> str:
    if not is_supported_type(value):
        raise ValueError(f"not a canonical column type; use one of {supported_types_text()} (upper case, no spaces)")
    return value


Where = Annotated[dict[str, Scalar], Field(description="column name -> value; every pair must hold")]


class RowExists(Args):
    """True when table `table` exists and has at least one row in which every column named in `where`
    holds the given value (value equality: numbers by numeric value, strings exactly, no coercion
    between kinds, `null` matches NULL). An empty `where` asks for any row. A `where` column the table
    lacks makes it false."""

    table: Name
    where: Where


class TableExists(Args):
    """True when a table named `table` exists (case-insensitive name)."""

    table: Name


class QueryReturnsCount(Args):
    """True when the read-only SELECT `query`, run on a database loaded from the final state, returns
    exactly `count` rows (rows of the result, so `SELECT count(*) ...` returns 1 row). A query that
    fails (unknown table or column, syntax error, not exactly one SELECT) makes it false. The query
    is in DuckDB's SQL dialect; a verifier runs it with DuckDB on the tables it names, loaded from the
    state with their column types, NOT NULL, defaults and primary keys (so a value the engine refuses
    to load makes a query on its table false, and only on its table)."""

    query: Annotated[str, Field(min_length=1, description="one SELECT, DuckDB dialect", json_schema_extra=NOT_IN_GOAL)]
    count: Annotated[int, Field(ge=0, description="the exact number of result rows")]


class TableHasColumn(Args):
    """True when table `table` has a column named `column`; with `type`, the column's type must also
    equal it exactly. `type` is a canonical type name as the state stores it: INTEGER, BIGINT,
    SMALLINT, TINYINT, DOUBLE, FLOAT, DECIMAL(p,s) (no spaces), VARCHAR, BOOLEAN, DATE, TIME,
    TIMESTAMP, UUID (so INT is INTEGER, TEXT is VARCHAR, FLOAT8 is DOUBLE)."""

    table: Name
    column: Name
    type: Annotated[str, AfterValidator(_canonical_type)] | None = Field(
        default=None, description="canonical type name, e.g. INTEGER, VARCHAR, DECIMAL(10,2)")


class ColumnEquals(Args):
    """True when at least one row of `table` matches `where` (as in rowExists) and, in every matching
    row, column `column` holds `value` (value equality as in rowExists; `null` for NULL). False when no row matches or the
    table or a column is missing."""

    table: Name
    where: Where
    column: Name
    value: Scalar


def _matching_rows(table: Table, where: dict[str, Scalar]) -> list[list] | None:
    positions = {}
    for name, wanted in where.items():
        index = table.column_index(name)
        if index is None:
            return None
        positions[index] = wanted
    return [row for row in table.rows if all(same(v, row[i]) for i, v in positions.items())]


@primitive("postgres", "rowExists", RowExists)
def row_exists(state: PostgresState, args: RowExists) -> bool:
    table = state.table(args.table)
    if table is None:
        return False
    return bool(_matching_rows(table, args.where))


@primitive("postgres", "tableExists", TableExists)
def table_exists(state: PostgresState, args: TableExists) -> bool:
    return state.table(args.table) is not None


@primitive("postgres", "queryReturnsCount", QueryReturnsCount)
def query_returns_count(state: PostgresState, args: QueryReturnsCount) -> bool:
    try:
        _, rows = query_state(state, args.query)
    except SQLError:
        return False
    return len(rows) == args.count


@primitive("postgres", "tableHasColumn", TableHasColumn)
def table_has_column(state: PostgresState, args: TableHasColumn) -> bool:
    table = state.table(args.table)
    if table is None:
        return False
    index = table.column_index(args.column)
    if index is None:
        return False
    return args.type is None or table.columns[index].type == args.type


@primitive("postgres", "columnEquals", ColumnEquals)
def column_equals(state: PostgresState, args: ColumnEquals) -> bool:
    table = state.table(args.table)
    if table is None:
        return False
    rows = _matching_rows(table, args.where)
    index = table.column_index(args.column)
    if not rows or index is None:
        return False
    return all(same(args.value, row[index]) for row in rows)


# -- explainers: what each clause asks and what the state held -------------------------------------

def _no_table(state: PostgresState, name: str) -> str:
    return f"no table {name}; tables: {listing(t.name for t in state.tables)}"


def _where(where: dict[str, Scalar]) -> str:
    return ", ".join(f"{k} = {value(v)}" for k, v in where.items()) or "any values"


def _rows_or_why(state: PostgresState, table_name: str, where: dict[str, Scalar]) -> tuple[Table | None, str]:
    table = state.table(table_name)
    if table is None:
        return None, _no_table(state, table_name)
    unknown = [c for c in where if table.column_index(c) is None]
    if unknown:
        return None, (f"{table.name} has no column {listing(unknown)}; columns: "
                      f"{listing((c.name for c in table.columns), 12)}")
    return table, ""


def _as_dicts(table: Table, names: list[str]) -> list[dict]:
    idx = {n: i for n in names if (i := table.column_index(n)) is not None}
    return [{n: row[i] for n, i in idx.items()} for row in table.rows]


@explains("postgres", "rowExists")
def _explain_row_exists(state: PostgresState, args: RowExists) -> tuple[str, str]:
    expected = f"a row of {args.table} with {_where(args.where)}"
    table, why = _rows_or_why(state, args.table, args.where)
    if table is None:
        return expected, why
    near = closest(_as_dicts(table, list(args.where)), args.where, same)
    return expected, f"{table.name} has {len(table.rows)} rows; the nearest: {near}"


@explains("postgres", "tableExists")
def _explain_table_exists(state: PostgresState, args: TableExists) -> tuple[str, str]:
    table = state.table(args.table)
    found = _no_table(state, args.table) if table is None else f"table {table.name} exists ({len(table.rows)} rows)"
    return f"a table {args.table}", found


@explains("postgres", "queryReturnsCount")
def _explain_query_returns_count(state: PostgresState, args: QueryReturnsCount) -> tuple[str, str]:
    expected = f"the query to return {args.count} rows"
    try:
        _, rows = query_state(state, args.query)
    except SQLError as exc:
        return expected, f"the query fails: {str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__}"
    first = "; ".join(value(list(r)) for r in rows[:3]) or "none"
    return expected, f"it returns {len(rows)} rows; the first: {first}"


@explains("postgres", "tableHasColumn")
def _explain_table_has_column(state: PostgresState, args: TableHasColumn) -> tuple[str, str]:
    typed = f" of type {args.type}" if args.type is not None else ""
    expected = f"a column {args.column}{typed} in {args.table}"
    table = state.table(args.table)
    if table is None:
        return expected, _no_table(state, args.table)
    return expected, f"{table.name} has columns {listing((f'{c.name} {c.type}' for c in table.columns), 12)}"


@explains("postgres", "columnEquals")
def _explain_column_equals(state: PostgresState, args: ColumnEquals) -> tuple[str, str]:
    expected = f"{args.column} = {value(args.value)} in every row of {args.table} with {_where(args.where)}"
    table, why = _rows_or_why(state, args.table, {**args.where, args.column: args.value})
    if table is None:
        return expected, why
    rows = _matching_rows(table, args.where) or []
    if not rows:
        return expected, (f"no row of {table.name} has {_where(args.where)}; the nearest: "
                          f"{closest(_as_dicts(table, list(args.where)), args.where, same)}")
    index = table.column_index(args.column)
    if index is None:
        return expected, f"{table.name} has no column {args.column}"
    held = [row[index] for row in rows]
    return expected, f"{len(rows)} rows have {_where(args.where)}; their {args.column}: {listing(value(v) for v in held)}"
