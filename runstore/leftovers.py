"""Leftovers of dead harnesses: everything a run leaves on the host is named after the process that
made it, so a later process can tell a dead owner's leftovers from a live one's and remove them.

A harness killed with SIGKILL (or a crashed machine's reboot-less restart) runs no ``finally``; what it
had made stays: the sandbox's private directory, its cgroups, the filesystem server's workspace under
``/dev/shm``. Each is named ``<prefix><pid>.<start>-<random>``, where ``<start>`` is the process's start
time in clock ticks since boot, so a recycled pid does not pass for the dead owner. ``sweep`` removes
what belongs to owners no longer running; it never touches a name without such a tag.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)

_TAG = re.compile(r"^(\d+)\.(\d+)-")


def _start_ticks(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    # the command name may hold spaces and parentheses: fields are counted after the last ')'
    return int(stat[stat.rindex(b")") + 2 :].split()[19])


def owner_tag() -> str:
    """``<pid>.<start ticks>-`` of this process, the prefix of every leftover-prone name it makes."""
    pid = os.getpid()
    return f"{pid}.{_start_ticks(pid)}-"


def owner_alive(name: str) -> bool | None:
    """Whether the owner named in ``name`` (after its prefix) still runs; None for an untagged name."""
    match = _TAG.match(name)
    if match is None:
        return None
    pid, start = int(match.group(1)), int(match.group(2))
    return _start_ticks(pid) == start


def sweep(parent: Path, prefix: str, remove: Callable[[Path], None] | None = None) -> list[Path]:
    """Remove every ``parent/<prefix><tag>...`` whose owner is dead; returns what was removed."""
    removed: list[Path] = []
    try:
        entries = list(parent.iterdir())
    except OSError:
        return removed
    for entry in entries:
        if not entry.name.startswith(prefix) or owner_alive(entry.name[len(prefix) :]) is not False:
            continue
        try:
            (remove or _remove_tree)(entry)
        except OSError as exc:
            log.warning("could not remove %s, left by a dead process: %s", entry, exc)
            continue
        removed.append(entry)
    if removed:
        log.info("removed %d leftover(s) of dead processes under %s", len(removed), parent)
    return removed


def _remove_tree(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()
