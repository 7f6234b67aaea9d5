"""Postgres state: the tables of the database, each with its typed columns and its rows.

The state is what the embedded engine holds, dumped back as plain JSON: a table is a name, its
columns (name, canonical DuckDB type, nullability, default expression), an optional primary key,
and its rows in insertion order, each a list of JSON values aligned with the columns.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, ClassVar

from pydantic import Field, field_validator, model_validator

from servers.kit import Model, ServerState

#: Column types the server stores (the canonical names DuckDB reports), besides ``DECIMAL(p,s)``.
INTEGER_TYPES = frozenset({"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER"})
FLOAT_TYPES = frozenset({"FLOAT", "DOUBLE"})
TEXT_TYPES = frozenset({"VARCHAR", "DATE", "TIME", "TIMESTAMP", "UUID"})
SCALAR_TYPES = INTEGER_TYPES | FLOAT_TYPES | TEXT_TYPES | {"BOOLEAN"}
DECIMAL = re.compile(r"^DECIMAL\(([1-9]|[1-3][0-9]),([0-9]|[1-3][0-9])\)$")
#: The largest integer magnitude a value may have: JSON numbers are exact only up to 2**53 - 1.
MAX_SAFE_INTEGER = 2**53 - 1

Value = int | float | str | bool | None
Identifier = Annotated[str, Field(min_length=1, max_length=128)]


def is_supported_type(name: str) -> bool:
    """True for a canonical type name this server stores, e.g. ``INTEGER`` or ``DECIMAL(10,2)``."""
    match = DECIMAL.match(name)
    if match:
        return int(match.group(2)) <= int(match.group(1)) <= 38
    return name in SCALAR_TYPES


#: Types in which the engine holds no value that ``value_fits`` refuses: a BIGINT may exceed 2**53 and a
#: FLOAT or DOUBLE may be NaN or infinite, but a DECIMAL is always a finite number and the text types
#: (an infinite DATE too) always read back as text.
_TYPES_THAT_FIT = (INTEGER_TYPES - {"BIGINT"}) | TEXT_TYPES | {"BOOLEAN"}


def every_value_fits(type_name: str) -> bool:
    """True when every value the engine can hold in a column of ``type_name`` is one the state stores
    (so writing one can never leave the database holding what the state cannot)."""
    return type_name in _TYPES_THAT_FIT or DECIMAL.match(type_name) is not None


def supported_types_text() -> str:
    return ", ".join(sorted(SCALAR_TYPES)) + ", DECIMAL(p,s)"


def fold(name: str) -> str:
    """An identifier folded for comparison: ASCII letters lower-cased, as the engine resolves names."""
    return name.translate(_ASCII_LOWER)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def value_fits(type_name: str, value: Value) -> str | None:
    """Why ``value`` cannot be stored in a column of ``type_name`` (None when it can)."""
    if value is None:
        return None
    if type_name == "BOOLEAN":
        return None if isinstance(value, bool) else "expected true or false"
    if isinstance(value, bool):
        return "expected a number or string, not a boolean"
    if type_name in INTEGER_TYPES:
        if not isinstance(value, int):
            return "expected an integer"
        return None if abs(value) <= MAX_SAFE_INTEGER else f"integer beyond ±{MAX_SAFE_INTEGER}"
    if type_name in FLOAT_TYPES or DECIMAL.match(type_name):
        if not isinstance(value, (int, float)):
            return "expected a number"
        if isinstance(value, float) and not math.isfinite(value):
            return "expected a finite number"
        if isinstance(value, int) and abs(value) > MAX_SAFE_INTEGER:
            return f"integer beyond ±{MAX_SAFE_INTEGER}"
        return None
    return None if isinstance(value, str) else "expected a string"


class Column(Model):
    """One column: its name, canonical type, whether it may hold NULL, and its default (SQL text)."""

    name: Identifier
    type: str = Field(description="Canonical DuckDB type name, e.g. INTEGER, VARCHAR, DATE, DECIMAL(10,2)")
    nullable: bool = True
    default: str | None = Field(default=None, description="SQL expression of the column default, e.g. 'pending'")

    @field_validator("type")
    @classmethod
    def _type_is_supported(cls, value: str) -> str:
        if not is_supported_type(value):
            raise ValueError(f"unsupported column type {value!r}; supported: {supported_types_text()}")
        return value


class ForeignKey(Model):
    """``columns`` of this table reference ``referenced_columns`` (the primary key) of table ``references``."""

    columns: list[Identifier] = Field(min_length=1)
    references: Identifier
    referenced_columns: list[Identifier] = Field(min_length=1)

    @model_validator(mode="after")
    def _same_arity(self) -> ForeignKey:
        if len(self.columns) != len(self.referenced_columns):
            raise ValueError(f"foreign key {self.columns} names {len(self.referenced_columns)} referenced columns")
        return self


class Table(Model):
    """A table: columns in order, an optional primary key, foreign keys, and rows aligned with the columns."""

    name: Identifier
    columns: list[Column] = Field(min_length=1)
    primary_key: list[Identifier] = Field(default_factory=list)
    foreign_keys: list[ForeignKey] = Field(default_factory=list)
    rows: list[list[Value]] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> Table:
        names = [fold(c.name) for c in self.columns]
        if len(set(names)) != len(names):
            raise ValueError(f"table {self.name!r} has two columns with the same name")
        for key in self.primary_key:
            if fold(key) not in names:
                raise ValueError(f"primary key column {key!r} is not a column of {self.name!r}")
        for fk in self.foreign_keys:
            for key in fk.columns:
                if fold(key) not in names:
                    raise ValueError(f"foreign key column {key!r} is not a column of {self.name!r}")
        if self._rows_fit():
            return self
        for i, row in enumerate(self.rows):
            problem = self.row_problem(row)
            if problem:
                raise ValueError(f"rows[{i}] of {self.name!r}{problem}")
        return self

    def _rows_fit(self) -> bool:
        """True only when ``row_problem`` finds nothing in any row, checked a column at a time (a world's
        tables hold hundreds of thousands of values, and a value at a time was a third of validating one).
        Strict: anything it is not sure of (a subclass, a missing value, a number near the edge) is False,
        and ``_consistent`` then checks row by row and names the first problem, as before."""
        width = len(self.columns)
        rows = self.rows
        if not rows:
            return True
        if any(len(row) != width for row in rows):
            return False
        for column, values in zip(self.columns, zip(*rows)):
            kinds = set(map(type, values))
            if type(None) in kinds:
                if not column.nullable:
                    return False
                kinds.discard(type(None))
                values = tuple(v for v in values if v is not None)
            name = column.type
            if name == "BOOLEAN":
                allowed: set[type] = {bool}
            elif name in INTEGER_TYPES:
                allowed = {int}
            elif name in FLOAT_TYPES or DECIMAL.match(name):
                allowed = {int, float}
            else:
                allowed = {str}
            if not kinds <= allowed:
                return False
            if int in kinds:
                ints = [v for v in values if type(v) is int] if float in kinds else values
                if min(ints) < -MAX_SAFE_INTEGER or max(ints) > MAX_SAFE_INTEGER:
                    return False
            if float in kinds and not all(map(math.isfinite, (v for v in values if type(v) is float))):
                return False
        return True

    def row_problem(self, row: list[Value]) -> str | None:
        """Why ``row`` cannot be a row of this table (None when it can): a suffix for ``rows[i] of 't'``,
        e.g. ``, column 'n': integer beyond ...``."""
        if len(row) != len(self.columns):
            return f" has {len(row)} values for {len(self.columns)} columns"
        for column, value in zip(self.columns, row):
            problem = value_fits(column.type, value)
            if value is None and not column.nullable:
                problem = "NULL in a NOT NULL column"
            if problem:
                return f", column {column.name!r}: {problem}"
        return None

    @property
    def holds_any_value(self) -> bool:
        """Whether every value the engine can write into this table's columns is one the state stores."""
        return all(every_value_fits(c.type) for c in self.columns)

    def column_index(self, name: str) -> int | None:
        """The position of column ``name`` (matched case-insensitively), or None."""
        wanted = fold(name)
        for i, column in enumerate(self.columns):
            if fold(column.name) == wanted:
                return i
        return None


class PostgresState(ServerState):
    """``tables``: every table of the database's ``main`` schema, sorted by name."""

    world_generator: ClassVar[str] = "postgres"

    tables: list[Table] = Field(default_factory=list)

    @field_validator("tables")
    @classmethod
    def _unique_and_sorted(cls, tables: list[Table]) -> list[Table]:
        seen: set[str] = set()
        for table in tables:
            if fold(table.name) in seen:
                raise ValueError(f"two tables are named {table.name!r} (names are case-insensitive)")
            seen.add(fold(table.name))
        return sorted(tables, key=lambda t: t.name)

    @model_validator(mode="after")
    def _foreign_keys_resolve(self) -> PostgresState:
        for table in self.tables:
            for fk in table.foreign_keys:
                target = self.table(fk.references)
                if target is None:
                    raise ValueError(f"table {table.name!r} has a foreign key to unknown table {fk.references!r}")
                for key in fk.referenced_columns:
                    if target.column_index(key) is None:
                        raise ValueError(f"foreign key of {table.name!r} names {key!r}, not a column of {target.name!r}")
        return self

    @classmethod
    def with_tables(cls, tables: list[Table]) -> PostgresState:
        """The state holding ``tables``, models already valid each, which are taken as they are: a table
        the engine did not change is not checked again, row by row, on every write. The state's own
        checks (unique names, foreign keys, the order) run as ``model_validate`` runs them; a
        ``ValueError`` says what is wrong."""
        state = cls.model_construct(tables=cls._unique_and_sorted(list(tables)))
        return state._foreign_keys_resolve()  # type: ignore[operator]  # a model_validator is a plain method once the class is built

    def table(self, name: str) -> Table | None:
        """The table called ``name`` (matched case-insensitively), or None."""
        wanted = fold(name)
        return next((t for t in self.tables if fold(t.name) == wanted), None)
