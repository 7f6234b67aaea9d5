"""What every flow shares: store locations as absolute strings, task options that keep anything a
task touches out of Prefect's result storage and caches, and the one way a flow reads the warehouse."""

from __future__ import annotations

import os
from typing import Any

from prefect.cache_policies import NO_CACHE

#: Options for every task: nothing is cached or persisted by Prefect. Tasks return ids and counts, and
#: the ones that decrypt a private month must never have anything of it serialised.
PRIVATE: dict[str, Any] = {"persist_result": False, "cache_policy": NO_CACHE}


def logger():
    """The run's logger inside a flow or task run; a plain logger when a task's ``.fn`` is called directly."""
    import logging

    from prefect.exceptions import MissingContextError
    from prefect.logging import get_run_logger

    try:
        return get_run_logger()
    except MissingContextError:
        return logging.getLogger("mcpbench.flows")


def run_name(template: str):
    """A ``flow_run_name`` that says what ran, from the run's parameters (``named``)."""

    def name() -> str:
        from prefect.runtime import flow_run

        return named(template, flow_run.parameters)

    return name


def named(template: str, params: dict) -> str:
    """``template`` filled from a run's ``params``: ``{name}`` is a parameter, ``{a|b}`` the first of them
    that is set, ``{name.attribute}`` an attribute of one (e.g. ``{submission.submission_id}``), ``'text'``
    a text to use when none is. Only ids, months and splits go into a name, never task text."""
    import re

    def value(match: re.Match) -> str:
        for choice in match.group(1).split("|"):
            if choice.startswith("'"):
                return choice.strip("'")
            head, *attrs = choice.split(".")
            found = params.get(head)
            for attr in attrs:
                found = found.get(attr) if isinstance(found, dict) else getattr(found, attr, None)
            if found not in (None, ""):
                return str(found)
        return "-"

    return re.sub(r"\{([^}]+)\}", value, template)


def store_root(store: str | None, usage: str) -> str:
    """The store as a location another process can open: an ``s3://`` URL, or an absolute folder
    (default ``MCPBENCH_STORE`` or ``.mcpbench/store``), after checking that it can serve ``usage``
    (``write`` or ``read``: ``runstore.store.Store.check_usable``), so a flow refuses an unusable store
    before any of its tasks runs; ``StoreError`` says why."""
    from runstore.store import default_root, open_store

    root = store or default_root()
    open_store(root, usage=usage)
    return root if "://" in root else os.path.abspath(root)  # noqa: PTH100 - abspath, not resolve: a store reached through a symlink keeps the path given


def db_location(db_path: str | None) -> str:
    """The warehouse database file as an absolute path, after checking that it holds nothing but a
    warehouse a build made (``warehouse.database_file.check_database_path``): a flow refuses any other
    file before any of its tasks runs, rather than replace it at the end."""
    from warehouse.build import default_db_path
    from warehouse.database_file import check_database_path

    return os.path.abspath(check_database_path(db_path or default_db_path()))  # noqa: PTH100 - abspath, not resolve: the database file keeps the path given


def open_checked(db_path: str, store: str):
    """The warehouse at ``db_path`` over ``store``, for a flow task to read: every flow read goes through
    here. ``warehouse.reader.open_warehouse`` with ``recheck``: rebuilt when runs have landed since its
    build (validating what is new), and a build made without the check is checked now, so nothing a
    flow reads (scores, anomaly flags deciding what a rotation replaces) comes from unchecked data; a
    failing suite raises ``QualityError`` and fails the task."""
    from warehouse.reader import open_warehouse

    return open_warehouse(db_path, store=store, recheck=True)


__all__ = ["PRIVATE", "db_location", "logger", "named", "open_checked", "run_name", "store_root"]
