"""Loading the tasks of a split: the dev set, a folder, a sealed private month or a retired one.

Its own module, below both ``evaluation`` (which runs what it loads) and ``_worker`` (which keeps what
it loads once per process). A private month is unsealed here, in memory only.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from runstore.split import Split
from tasks_catalog.loader import DEV_DIR
from tasks_catalog.schema import Task

if TYPE_CHECKING:
    from tasks_catalog.loader import TaskError


def load_split(split: str | Split, *, store=None, secret: str | bytes | None = None,
               task_ids: list[str] | None = None, tasks_dir: Path | None = None) -> list[Task]:
    """The tasks of ``split`` (see :class:`runstore.split.Split`): ``dev`` (the public dev set), a
    private month ``YYYY-MM`` (unsealed in memory with the operator's secret), a retired month
    ``Historical-YYYY-MM`` (its published plaintext, checked against its attestation first), or
    ``dir:<name>`` with ``tasks_dir``."""
    from tasks_catalog.loader import TaskLoadError

    parsed = Split.parse(split)
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
    if task_ids:
        # an id whose file is refused is reported by its error, not as unknown
        unknown = sorted(set(task_ids) - {t.id for t in tasks} - {e.task for e in errors})
        if unknown:
            raise LookupError(f"no such task: {', '.join(unknown)}")
        tasks = [t for t in tasks if t.id in set(task_ids)]
    return tasks, errors


__all__ = ["load_folder", "load_split"]
