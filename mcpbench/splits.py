"""Loading the tasks of a split: the dev set, a folder, a sealed private month or a retired one.

Its own module, below both ``evaluation`` (which runs what it loads) and ``_worker`` (which keeps what
it loads once per process). A private month is unsealed here, in memory only.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import TYPE_CHECKING

from runstore.split import Split
from tasks_catalog.loader import DEV_DIR
from tasks_catalog.schema import Task

if TYPE_CHECKING:
    from tasks_catalog.loader import TaskError


#: The characters that make a ``--tasks`` entry a pattern (``fnmatch``: ``slack-*``, ``pg-?-order``, ``[ab]*``).
GLOB = frozenset("*?[")


def task_selection(values: list[str] | tuple[str, ...] | None) -> list[str] | None:
    """The task ids and patterns in ``values`` (``--tasks`` repeated, each a comma-separated list), in
    order and without repeats; None when there are none (every task). ``ValueError`` for an empty entry."""
    if not values:
        return None
    out: list[str] = []
    for value in values:
        for item in value.split(","):
            item = item.strip()
            if not item:
                raise ValueError(f"--tasks {value!r} has an empty entry: give task ids or patterns separated by commas")
            if item not in out:
                out.append(item)
    return out


def select_tasks(tasks: list[Task], selection: list[str], where: str) -> list[Task]:
    """The tasks whose id is one of ``selection`` or matches one of its patterns (``fnmatch``), in the
    split's order. ``LookupError`` naming every entry that selects nothing (``where``: the split)."""
    empty = [s for s in selection if not any(fnmatch.fnmatchcase(t.id, s) for t in tasks)]
    if empty:
        kinds = ["pattern" if GLOB & set(s) else "task id" for s in empty]
        raise LookupError(f"no task of {where} matches " + ", ".join(f"{k} {s!r}" for k, s in zip(kinds, empty)))
    return [t for t in tasks if any(fnmatch.fnmatchcase(t.id, s) for s in selection)]


def load_split(split: str | Split, *, store=None, secret: str | bytes | None = None,
               task_ids: list[str] | None = None, tasks_dir: Path | None = None) -> list[Task]:
    """The tasks of ``split`` (see :class:`runstore.split.Split`): ``dev`` (the public dev set), a
    private month ``YYYY-MM`` (unsealed in memory with the operator's secret), a retired month
    ``Historical-YYYY-MM`` (its published plaintext, checked against its attestation first), or
    ``dir:<name>`` with ``tasks_dir``. ``task_ids`` may hold patterns (``slack-*``): every task whose id
    matches one is taken, and a pattern matching none is a ``LookupError`` naming it."""
    from tasks_catalog.loader import TaskLoadError

    parsed = Split.parse(split)
    if task_ids and any(GLOB & set(i) for i in task_ids):
        return select_tasks(load_split(parsed, store=store, secret=secret, tasks_dir=tasks_dir), task_ids,
                            f"split {parsed.text}")
    if parsed.kind == "folder" and tasks_dir is None:
        raise ValueError(f"split {parsed.text!r} names a folder of task files: pass tasks_dir (--tasks-dir)")
    if parsed.kind in ("dev", "folder") or tasks_dir is not None:
        tasks, errors = load_folder(tasks_dir or DEV_DIR, task_ids)
        if errors:
            raise TaskLoadError(errors)
        return tasks
    if parsed.kind == "historical":
        from tasks_catalog.months import load_historical_tasks

        assert parsed.tag is not None  # a historical split has its tag
        return load_historical_tasks(store, parsed.tag, task_ids)
    from tasks_catalog.months import load_month_tasks

    return load_month_tasks(store, parsed.text, secret, task_ids)


def load_folder(tasks_dir: Path, task_ids: list[str] | None = None) -> tuple[list[Task], list[TaskError]]:
    """The valid tasks under ``tasks_dir`` (only ``task_ids``, if given) and an error, naming its file and
    JSON path, for every file that is not one; one bad file never hides the others. ``LookupError``
    when a requested id is in no valid task."""
    from tasks_catalog.loader import load_tasks

    tasks, errors = load_tasks([tasks_dir])
    if task_ids and any(GLOB & set(i) for i in task_ids):
        return select_tasks(tasks, task_ids, str(tasks_dir)), errors
    if task_ids:
        # an id whose file is refused is reported by its error, not as unknown
        unknown = sorted(set(task_ids) - {t.id for t in tasks} - {e.task for e in errors})
        if unknown:
            raise LookupError(f"no such task: {', '.join(unknown)}")
        tasks = [t for t in tasks if t.id in set(task_ids)]
    return tasks, errors


__all__ = ["GLOB", "load_folder", "load_split", "select_tasks", "task_selection"]
