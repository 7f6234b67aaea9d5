"""The warehouse database file: a build replaces, and a reader opens, only a file a build made.

A build writes the table ``warehouse_build`` (the store it read, when, whether it was checked) into
every database it makes; that table, not the file's name or extension, is how a file is recognised
as a warehouse. Any other file at the path (a text file, another program's DuckDB database, a
folder, a path under a file) is refused, naming the path, before anything is read or written.
"""

from __future__ import annotations

import os
from pathlib import Path

#: The table every build writes, by which a database file is recognised as a warehouse.
MARK_TABLE = "warehouse_build"
#: DuckDB's file header carries these bytes at offset 8.
_DUCKDB_MAGIC = b"DUCK"


class WarehouseFileError(ValueError):
    """The warehouse path holds something a build did not make; the message names it and why."""


def check_database_path(path: str | os.PathLike[str]) -> Path:
    """``path`` as a ``Path`` if a build may write a warehouse there and a reader may open one: nothing is
    there yet (and its folder can be made), or a DuckDB file with ``MARK_TABLE``. Otherwise
    :class:`WarehouseFileError`; nothing is changed either way."""
    path = Path(path)
    if path.is_dir():
        raise WarehouseFileError(f"the warehouse path {path} is a folder; name a database file (--db)")
    if path.exists() or path.is_symlink():
        why = _not_a_warehouse(path)
        if why:
            raise WarehouseFileError(f"{path} is not a warehouse this project built ({why}); it is left as it is. "
                                     "Name another file with --db (or MCPBENCH_WAREHOUSE), or move this one away")
        return path
    found = path.parent
    while not found.exists() and found != found.parent:
        found = found.parent
    if not found.is_dir():
        raise WarehouseFileError(f"the warehouse {path} cannot be made: {found} is a file, not a folder")
    return path


def _not_a_warehouse(path: Path) -> str | None:
    """Why the file at ``path`` is not a warehouse, or None when it is one."""
    if path.exists() and not path.is_file():  # a pipe or a device: opening it could block, or read forever
        return "it is not a regular file"
    try:
        with open(path, "rb") as f:
            header = f.read(12)
    except OSError as exc:
        return f"it cannot be read: {exc.strerror or exc}"
    if header[8:12] != _DUCKDB_MAGIC:
        return "it is not a DuckDB database" if header else "it is an empty file"
    import duckdb

    try:
        with duckdb.connect(str(path), read_only=True) as con:
            counted = con.execute("select count(*) from duckdb_tables() where database_name = current_database() "
                                  "and schema_name = 'main' and table_name = ?", [MARK_TABLE]).fetchone()
            assert counted is not None  # a count has its row
            found = counted[0]
    except duckdb.Error as exc:
        return f"DuckDB cannot open it: {str(exc).splitlines()[0]}"
    return None if found else f"a DuckDB database without the {MARK_TABLE} table every build writes"


__all__ = ["MARK_TABLE", "WarehouseFileError", "check_database_path"]
