"""What a warehouse database file says about itself: the store it was built over, when, and whether
its data was checked (table ``warehouse_build``, written by every build: :mod:`warehouse.build`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb


class UncheckedWarehouse(RuntimeError):
    """The warehouse holds runs that have not passed the quality suites; scores from it are not served
    unless the reader asks for unchecked data."""


@dataclass(frozen=True)
class BuildStatus:
    """What ``warehouse_build`` says about a database file."""

    store: str
    built_at: datetime | None
    checked: bool
    unchecked_runs: int
    store_version: str | None = None  # the store's version token when the build read it (local stores)

    def label(self) -> str | None:
        """A loud line for output read from an unchecked build (None when checked)."""
        if self.checked:
            return None
        return (f"UNCHECKED DATA: {self.unchecked_runs or 'some'} runs in this warehouse have not passed the "
                "quality suites; these scores are not to be published (run `mcpbench warehouse build`)")


def build_status(con: duckdb.DuckDBPyConnection) -> BuildStatus:
    """The status of the warehouse open in ``con``."""
    columns = {r[0] for r in con.execute("select column_name from (describe warehouse_build)").fetchall()}
    if "checked" not in columns:  # a database built before builds recorded their checks
        ((store, version, built_at),) = con.execute("select store, store_version, built_at from warehouse_build"
                                                    ).fetchall()
        return BuildStatus(store, built_at, False, 0, version)
    (row,) = con.execute("select store, built_at, checked, unchecked_runs, store_version from warehouse_build"
                         ).fetchall()
    return BuildStatus(*row)


__all__ = ["BuildStatus", "UncheckedWarehouse", "build_status"]
