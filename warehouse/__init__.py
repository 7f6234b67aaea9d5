"""The warehouse: DuckDB views (``warehouse/sql``) over the store's Parquet, data-quality suites,
the score card, the leaderboards and the HTML report. See ``docs/warehouse.md``.

Importing this package is cheap; DuckDB views are built by :func:`warehouse.build.build` or
:func:`warehouse.build.connect`, and Great Expectations is imported only by :mod:`warehouse.quality`.
"""

from warehouse.build import DEFAULT_DB, BuildResult, build, connect, default_db_path, open_warehouse

__all__ = ["DEFAULT_DB", "BuildResult", "build", "connect", "default_db_path", "open_warehouse"]
