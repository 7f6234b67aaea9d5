"""The object store where runs and calls land as Parquet: a local folder or ``s3://bucket/prefix``.

Layout under the root::

    runs/month=YYYY-MM/submission=<submission_id>/<run_id>.parquet    one row, RUN_SCHEMA
    calls/month=YYYY-MM/submission=<submission_id>/<run_id>.parquet   the run's calls, CALL_SCHEMA
    index/runs/<run_id>.json                                          where a run landed (the commit mark)
    <anything else>                                                   artefacts via put_bytes/get_bytes

A run counts as landed once its index entry exists; the entry is written last, after both Parquet
files. A landing that fails (after bounded retries) removes what it wrote and raises ``StoreError``;
a kill between a run's Parquet and its index entry leaves a complete run without its entry, which
``Store.repair_landings`` (called when an evaluation resumes) indexes, so the run is not run again.
"""

from __future__ import annotations

import os

from runstore.store._base import LandingRepair, Store, StoreError
from runstore.store._local import LocalStore

#: The store used when neither an argument nor ``MCPBENCH_STORE`` names one.
DEFAULT_ROOT = ".mcpbench/store"


#: The warehouse database used when neither an argument nor ``MCPBENCH_WAREHOUSE`` names one.
DEFAULT_WAREHOUSE = ".mcpbench/warehouse.duckdb"


def default_root() -> str:
    """``MCPBENCH_STORE`` if set, else ``.mcpbench/store``."""
    return os.environ.get("MCPBENCH_STORE") or DEFAULT_ROOT


def default_warehouse() -> str:
    """``MCPBENCH_WAREHOUSE`` if set, else ``.mcpbench/warehouse.duckdb``: the operator's data, like the
    store (the warehouse builds it; the harness keeps agents away from it)."""
    return os.environ.get("MCPBENCH_WAREHOUSE") or DEFAULT_WAREHOUSE


def open_store(root: str | None = None, **options) -> Store:
    """Open the store at ``root``: a local folder, or ``s3://bucket/prefix``.

    S3 endpoint, region and credentials come from the standard AWS settings (``AWS_ENDPOINT_URL``,
    ``AWS_ACCESS_KEY_ID``, profiles, ...), so MinIO or moto work as well as AWS. ``options`` go to the
    store's constructor (for S3: ``attempts``, ``backoff_s``, ``timeout_s``).
    """
    root = root or default_root()
    if root.startswith("s3://"):
        from runstore.store._s3 import S3Store

        return S3Store(root, **options)
    if "://" in root:
        raise StoreError(f"unsupported store root {root!r}: use a local folder or s3://bucket/prefix")
    return LocalStore(root, **options)


__all__ = ["DEFAULT_ROOT", "DEFAULT_WAREHOUSE", "LandingRepair", "LocalStore", "Store", "StoreError", "default_root",
           "default_warehouse", "open_store"]
