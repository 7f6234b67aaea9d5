"""The object store where runs and calls land as Parquet: a local folder or ``s3://bucket/prefix``.

Layout under the root::

    runs/month=YYYY-MM/submission=<submission_id>/<run_id>.parquet    one row, RUN_SCHEMA
    calls/month=YYYY-MM/submission=<submission_id>/<run_id>.parquet   the run's calls, CALL_SCHEMA
    turns/month=YYYY-MM/submission=<submission_id>/<run_id>.parquet   the run's model turns, TURN_SCHEMA
                                                                      (only runs whose agent used a model)
    index/runs/<run_id>.json                                          where a run landed (the commit mark)
    <anything else>                                                   artefacts via put_bytes/get_bytes

A run counts as landed once its index entry exists; the entry is written last, after the Parquet
files (calls, turns, then the run row). A landing that fails (after bounded retries) removes what it wrote and raises ``StoreError``;
a kill between a run's Parquet and its index entry leaves a complete run without its entry, which
``Store.repair_landings`` (called when an evaluation resumes) indexes, so the run is not run again.

Every command that takes a store opens it with ``open_store(root, usage=...)``, which decides once,
before anything runs, whether the store can serve what the command is about to do
(``Store.check_usable``): runs land only where a store folder is or can be made, and a command that
only reads never creates a store at a mistyped path.
"""

from __future__ import annotations

import os

from runstore.store._base import LAYOUT, RECORD_KINDS, USAGES, LandingRepair, Store, StoreError
from runstore.store._local import LocalStore

#: The store used when neither an argument nor ``MCPBENCH_STORE`` names one.
DEFAULT_ROOT = ".mcpbench/store"
#: The most read of an artefact published in a store (a retired month's plaintext, an attestation list),
#: which anyone may have handed us: read with ``Store.get_bytes(key, limit=PUBLISHED_MAX_BYTES)``, so a
#: larger one is refused before it is read whole. A month of the public pool (160 tasks, 50 of them
#: cross-server hard tasks whose cases carry world patches of 100-500 KB) is about 20 MiB as published;
#: the bound leaves room for a pool of larger cases, and a JSON text of 64 MiB parses into a few hundred MB.
PUBLISHED_MAX_BYTES = 64 * 1024 * 1024


#: The warehouse database used when neither an argument nor ``MCPBENCH_WAREHOUSE`` names one.
DEFAULT_WAREHOUSE = ".mcpbench/warehouse.duckdb"


def default_root() -> str:
    """``MCPBENCH_STORE`` if set, else ``.mcpbench/store``."""
    return os.environ.get("MCPBENCH_STORE") or DEFAULT_ROOT


def default_warehouse() -> str:
    """``MCPBENCH_WAREHOUSE`` if set, else ``.mcpbench/warehouse.duckdb``: the operator's data, like the
    store (the warehouse builds it; the harness keeps agents away from it)."""
    return os.environ.get("MCPBENCH_WAREHOUSE") or DEFAULT_WAREHOUSE


def open_store(root: str | None = None, *, usage: str | None = None, **options) -> Store:
    """Open the store at ``root``: a local folder, or ``s3://bucket/prefix``.

    ``usage`` is what the caller is about to do: ``"write"`` (land runs, seal months) or ``"read"``
    (score, rank, verify); the store is checked for it first (``Store.check_usable``) and a
    ``StoreError`` says why it cannot serve it, before anything else happens. Without ``usage``
    nothing is checked: for a caller whose command already decided (a flow's tasks, tests).

    S3 endpoint, region and credentials come from the standard AWS settings (``AWS_ENDPOINT_URL``,
    ``AWS_ACCESS_KEY_ID``, profiles, ...), so MinIO or moto work as well as AWS. ``options`` go to the
    store's constructor (for S3: ``attempts``, ``backoff_s``, ``timeout_s``).
    """
    if usage is not None and usage not in USAGES:
        raise ValueError(f"usage must be one of {USAGES}, got {usage!r}")
    root = root or default_root()
    if root.startswith("s3://"):
        from runstore.store._s3 import S3Store

        store: Store = S3Store(root, **options)
    elif "://" in root:
        raise StoreError(f"unsupported store root {root!r}: use a local folder or s3://bucket/prefix")
    else:
        store = LocalStore(root, **options)
    if usage is not None:
        store.check_usable(usage)
    return store


__all__ = ["DEFAULT_ROOT", "DEFAULT_WAREHOUSE", "LAYOUT", "PUBLISHED_MAX_BYTES", "RECORD_KINDS", "USAGES", "LandingRepair", "LocalStore",
           "Store", "StoreError", "default_root", "default_warehouse", "open_store"]
