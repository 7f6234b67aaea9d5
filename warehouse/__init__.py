"""The warehouse: DuckDB views (``warehouse/sql``) over the store's Parquet, data-quality suites,
the score card, the leaderboards and the HTML report. See ``docs/warehouse.md``.

* :mod:`warehouse.views`: the SQL files, what each declares (``-- depends:``, ``-- grain:``,
  ``-- check:``) and the order they are made in; :mod:`warehouse.views_doc` writes their reference
* :mod:`warehouse.sources`: where the store's Parquet is, for the staging views
* :mod:`warehouse.build`: ``build(store, db_path)`` (and the checked-build rule), ``connect(store)``
* :mod:`warehouse.status`: what a database file says about its build (``build_status(con)``)
* :mod:`warehouse.reader`: ``open_warehouse(db_path)``, ``open_submission(id, store)``: the one way to read
* :mod:`warehouse.scorecard`: ``scorecard(submission_id, store=...)``, ``format_scorecard(card)``
* :mod:`warehouse.quality`: ``validate(con)`` (Great Expectations, imported only when called)
* :mod:`warehouse.report`: ``render_html(warehouse)``, ``write_report(path, warehouse)``

Importing this package imports nothing heavy; each submodule is imported where it is used.
"""

__all__ = ["build", "database_file", "quality", "reader", "report", "scorecard", "sources", "status", "views",
           "views_doc"]
