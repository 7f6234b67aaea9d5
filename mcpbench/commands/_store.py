"""The ``--store`` option every command shares, and the one way a command opens its store."""

from __future__ import annotations

import os

import click

STORE_HELP = "Store root: a folder or s3://bucket/prefix (default: $MCPBENCH_STORE or .mcpbench/store)."


def store_option(**extra):
    """``--store ROOT``, passed to the command as ``store_root``."""
    return click.option("--store", "store_root", metavar="ROOT", default=None, help=STORE_HELP, **extra)


def _where_from(root: str | None) -> str:
    """Where a store root came from, for an error message: the option, the environment, or the default."""
    if root:
        return "--store"
    return "MCPBENCH_STORE" if os.environ.get("MCPBENCH_STORE") else "the default store"


def open_store_for(root: str | None, usage: str):
    """The store at ``root`` checked for ``usage`` (``write`` or ``read``, see ``Store.check_usable``),
    before the command does anything else; a click error naming the store and why otherwise."""
    from runstore.store import StoreError, open_store

    try:
        return open_store(root, usage=usage)
    except StoreError as exc:
        raise click.ClickException(f"{_where_from(root)}: {exc}") from None


__all__ = ["STORE_HELP", "open_store_for", "store_option"]
