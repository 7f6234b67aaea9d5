"""Which host folders an agent may read: one rule, applied where ``--agent`` is parsed, before any run
starts, and again by every sandbox backend before it mounts anything.

A submitter writes the command line; the operator owns the host. So the command line never chooses what
the sandbox shows: a ``command:`` agent reads its program's own folder (the folder of the script or
executable its command names), or the one folder the operator declares for submissions
(``MCPBENCH_AGENT_DIR``), and nothing else from the host. That folder is refused when it is:

- at, under or above the host's live state and configuration (``/proc``, ``/sys``, ``/dev``, ``/run``,
  ``/etc``, ``/boot``), or ``/`` itself: these hold other processes' environments and command lines (a
  private month's goals among them), sockets and secrets;
- at, under or above shared scratch (``/tmp``, ``/var/tmp``, ``/dev/shm``) and homes (``/root``,
  ``/home``, the harness's ``$HOME``): other runs', users' and tools' files;
- at, under or above the store or the warehouse: every submission's records and call arguments;
- not readable by others, or below a folder that others cannot enter (the operator's 0700 folder says
  "private": its children stay private).

A folder the operator declares is the operator's decision: it may lie under a home or ``/tmp``, and its
parents' modes are not questioned, but it is still refused at or under the host's live state, above any
of the roots above, and at, under or above the store or the warehouse.

Backends apply the part that needs no knowledge of the run (:func:`mount_refusal`): nothing at, under or
above the host's live state, nothing that does not exist (the Docker engine would create it).
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterable
from pathlib import Path

#: The environment variable naming the one folder the operator declares for submissions.
AGENT_DIR_ENV = "MCPBENCH_AGENT_DIR"

#: The host's live state and configuration: never shown to an agent, nor anything above them.
LIVE_ROOTS = ("/proc", "/sys", "/dev", "/run", "/etc", "/boot")
#: Shared scratch and homes: never the folder a submitter's command line names, nor above it.
SHARED_ROOTS = ("/tmp", "/var/tmp", "/dev/shm", "/root", "/home")
#: What every sandbox has of its own (its own /proc, /dev, private /tmp, a few /etc files): a later argument
#: naming a path there (``--log /dev/stderr``) names the sandbox's, never the host's, and mounts nothing.
SANDBOX_OWN = ("/proc", "/sys", "/dev", "/run", "/tmp", "/etc")
#: Where the system's programs live: visible in every sandbox already (the local backend binds them;
#: an image has its own), so a program there names no folder of its own.
SYSTEM_ROOTS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


def python_installations() -> list[str]:
    """The interpreter trees a Python agent needs, which the local backend shows every agent: the base
    installation and, if any, the venv."""
    return sorted({os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix)})


def _real(path: str | os.PathLike[str]) -> str:
    return os.path.realpath(os.path.expanduser(os.fspath(path)))


def _within(path: str, root: str) -> bool:
    """Whether ``path`` is ``root`` or lies under it (both real, absolute paths)."""
    return path == root or path.startswith(root.rstrip("/") + "/")


def _relation(folder: str, root: str) -> str | None:
    """``"at"``, ``"under"`` or ``"above"`` when ``folder`` and ``root`` overlap, else None."""
    if folder == root:
        return "at"
    if _within(folder, root):
        return "under"
    if _within(root, folder):
        return "above"
    return None


def _roots(paths: Iterable[str]) -> list[str]:
    """Each path and, where it is a link (``/var/run`` -> ``/run``), its real target."""
    seen: list[str] = []
    for path in paths:
        for form in (os.path.normpath(path), _real(path)):
            if form not in seen:
                seen.append(form)
    return seen


def home() -> str | None:
    """The harness's home, real, or None when it has none worth protecting (``/``)."""
    try:
        path = _real(Path.home())
    except RuntimeError:
        return None
    return None if path == "/" else path


def system_visible(path: str | os.PathLike[str], extra: Iterable[str] = ()) -> bool:
    """Whether ``path`` lies where every sandbox already shows the system's programs (``SYSTEM_ROOTS``,
    and ``extra``: the Python installations the local backend binds)."""
    real = _real(path)
    return any(_within(real, _real(root)) for root in (*SYSTEM_ROOTS, *extra))


def sandbox_own(arg: str) -> bool:
    """Whether an absolute path names something every sandbox has of its own (``SANDBOX_OWN``)."""
    normal = os.path.normpath(arg)
    return os.path.isabs(arg) and any(_within(normal, root) for root in SANDBOX_OWN)


def mount_refusal(path: str | os.PathLike[str]) -> str | None:
    """Why a backend must not mount ``path`` read-only for an agent, or None: the rule that needs no
    knowledge of the run. ``/`` and anything at, under or above the host's live state is refused, and
    so is a path that does not exist."""
    real = _real(path)
    if not os.path.exists(real):
        return f"{os.fspath(path)!r} does not exist on this host"
    if real == "/":
        return f"{os.fspath(path)!r} is the host's root folder"
    for root in _roots(LIVE_ROOTS):
        how = _relation(real, root)
        if how is not None:
            return f"{os.fspath(path)!r} is {how} {root} (the host's live state)"
    return None


def _others_may(path: str, bits: int) -> bool:
    return os.stat(path).st_mode & bits == bits


def folder_refusal(folder: str | os.PathLike[str], *, declared: bool = False,
                   protected: Iterable[tuple[str, str | os.PathLike[str]]] = ()) -> str | None:
    """Why an agent may not read ``folder``, or None. ``declared``: the operator named it
    (``MCPBENCH_AGENT_DIR``) rather than a submitter's command line. ``protected``: (what, path) pairs
    of the operator's own data an agent must never see, e.g. ``("the store", root)``."""
    real = _real(folder)
    refused = mount_refusal(real)
    if refused is not None:
        return refused
    named = f"{os.fspath(folder)!r}" + (f" (really {real!r})" if real != os.path.normpath(os.fspath(folder)) else "")
    # (root, what it is, whether an operator's declared folder may lie inside it)
    dangers = [(root, "shared scratch or homes", True) for root in _roots(SHARED_ROOTS)]
    mine = home()
    if mine is not None:
        dangers.append((mine, "the harness's home", True))
    dangers += [(_real(path), what, False) for what, path in protected]
    for root, what, waivable in dangers:
        how = _relation(real, root)
        if how is not None and (how == "above" or not (declared and waivable)):
            return f"{named} is {how} {root} ({what})"
    if not os.path.isdir(real):
        return f"{named} is not a folder"
    if not _others_may(real, stat.S_IROTH | stat.S_IXOTH):
        return f"{named} is not readable by other users, and the agent is not the folder's owner"
    if not declared:
        parent = os.path.dirname(real)
        while parent != "/":
            if not _others_may(parent, stat.S_IXOTH):
                return f"{named} lies inside {parent!r}, which other users may not enter (the folder is private)"
            parent = os.path.dirname(parent)
    return None


def declared_folder() -> str | None:
    """The folder the operator declared for submissions (``MCPBENCH_AGENT_DIR``), real, or None."""
    value = os.environ.get(AGENT_DIR_ENV, "").strip()
    return _real(value) if value else None


__all__ = ["AGENT_DIR_ENV", "LIVE_ROOTS", "SHARED_ROOTS", "SYSTEM_ROOTS", "SANDBOX_OWN", "declared_folder",
           "folder_refusal", "home", "mount_refusal", "python_installations", "sandbox_own",
           "system_visible"]
