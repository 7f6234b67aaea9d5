"""The warehouse: DuckDB views (``warehouse/sql``) over the store's Parquet, data-quality suites,
the score card, the leaderboards and the HTML report. See ``docs/warehouse.md``.

* :mod:`warehouse.build`: ``build(store, db_path)``, ``connect(store)``, ``open_warehouse(db_path)``
* :mod:`warehouse.scorecard`: ``scorecard(submission_id, store=...)``, ``format_scorecard(card)``
* :mod:`warehouse.quality`: ``validate(con)`` (Great Expectations, imported only when called)
* :mod:`warehouse.report`: ``render_html(con)``, ``write_report(path, con)``

Importing this package imports nothing heavy; each submodule is imported where it is used.
"""

__all__ = ["build", "quality", "report", "scorecard"]
