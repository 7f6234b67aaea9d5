"""What the acceptance gate has already accepted: a task it passed is not judged again while neither
the task nor the code that judged it has changed.

Gating a month's 160 tasks costs about a minute of CPU; a rotation that stops on one bad template is
fixed and run again, and then only the changed tasks need judging. The gate keeps, per accepted task,
a record that carries none of the task's content, under a folder (``MCPBENCH_GATE_CACHE``, or
``acceptance_gate(cache=...)``):

    <root>/<fingerprint>/<task hash>.json      {"task": id, "verifiers": [...], "gated_at": ...}

* The task hash is the attestation hash (``tasks_catalog.hashing.task_hash``: every field of the task,
  its nonce included), so any change to a goal, a state, a predicate, a frame, a reference or a wrong
  solution misses.
* The fingerprint covers everything else a verdict depends on: every file of the ``servers``,
  ``tasks_catalog`` and ``mcpbench`` packages (the task folders aside; the built TypeScript verifier
  included), the Python version, the versions of the libraries the servers and verifiers run on (and of
  node, when the TypeScript verifier is consulted), the verifiers consulted and the TypeScript
  verifier's test hook (``MCPBENCH_TS_BREAK``). Change any of it and nothing recorded under the old
  fingerprint is used.
* Only passes are recorded: a failing task is judged every time, and its reasons (which can quote a
  private month's sampled values) are never written. A record names a task id and a hash, which the
  month's attestation publishes anyway.

Gates that share a folder share the work, too: before judging a task a gate claims it (an advisory
lock on ``<task hash>.lock``, released when the gate is done with it or its process ends), and a task
another gate is judging is left for later, by which time it is usually accepted. Two processes gating
the same month at once each judge about half of it.

The folder can be deleted at any time (while no gate runs); it only saves work.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from importlib import metadata
from pathlib import Path

#: The folder a gate keeps its accepted tasks under; unset, nothing is kept.
CACHE_ENV = "MCPBENCH_GATE_CACHE"
#: The libraries whose behaviour a verdict depends on (their versions enter the fingerprint).
LIBRARIES = ("mcp", "pydantic", "anyio", "rfc8785", "jsonschema", "duckdb", "tzdata")
_PACKAGES = ("servers", "tasks_catalog", "mcpbench")
_TASK_FOLDERS = (("tasks_catalog", "dev"), ("tasks_catalog", "templates"))


def _source_files(root: Path) -> list[Path]:
    out = []
    for package in _PACKAGES:
        for path in (root / package).rglob("*"):
            parts = path.relative_to(root).parts
            if "__pycache__" in parts or "node_modules" in parts or path.suffix == ".pyc" or not path.is_file():
                continue
            if parts[:2] in _TASK_FOLDERS and path.suffix == ".json":
                continue  # task documents: their content is in each task's own hash
            out.append(path)
    return sorted(out)


def fingerprint_of(root: Path) -> str:
    """SHA-256 over the judging code under ``root`` (a checkout) and its environment."""
    h = hashlib.sha256()
    for path in _source_files(root):
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())
    h.update(sys.version.encode())
    for name in LIBRARIES:
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            version = "-"
        h.update(f"\0{name}={version}".encode())
    return h.hexdigest()


@cache
def code_fingerprint() -> str:
    """:func:`fingerprint_of` this checkout, computed once per process (about 60 ms)."""
    return fingerprint_of(Path(__file__).resolve().parents[1])


@cache
def _node_version() -> str:
    import subprocess

    try:
        return subprocess.run(["node", "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "-"


@dataclass(frozen=True)
class GateCache:
    """The accepted tasks under ``root`` for a gate consulting ``verifiers``."""

    root: Path
    verifiers: tuple[str, ...]

    def _folder(self) -> Path:
        from tasks_catalog.ts_verifier import BREAK_ENV

        h = hashlib.sha256(code_fingerprint().encode())
        h.update(("\0" + ",".join(self.verifiers) + "\0" + os.environ.get(BREAK_ENV, "")).encode())
        if "typescript" in self.verifiers:
            h.update(_node_version().encode())
        return self.root / h.hexdigest()[:32]

    def _path(self, digest: str, suffix: str = ".json") -> Path:
        if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            raise ValueError(f"not a task hash: {digest!r}")
        return self._folder() / f"{digest}{suffix}"

    def accepted(self, task_id: str, digest: str) -> bool:
        """Whether the task ``task_id`` hashing to ``digest`` (``task_hash``) was accepted by this very
        code and these verifiers."""
        try:
            record = json.loads(self._path(digest).read_text())
        except (OSError, ValueError):
            return False
        return isinstance(record, dict) and record.get("task") == task_id \
            and record.get("verifiers") == list(self.verifiers)

    def claim(self, digest: str, *, wait: bool = False) -> Claim | None:
        """The right to judge the task hashing to ``digest`` until released; None if another gate holds
        it (unless ``wait``: then this waits until that gate is done with it)."""
        path = self._path(digest, ".lock")
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        except BaseException:
            os.close(fd)
            raise
        return Claim(fd)

    def record(self, task_id: str, digest: str) -> None:
        """Note that the task passed (written whole or not at all, so readers never see half a record)."""
        path = self._path(digest)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"task": task_id, "verifiers": list(self.verifiers),
                                   "gated_at": datetime.now(UTC).isoformat(timespec="seconds")}))
        os.replace(tmp, path)


class Claim:
    """A task claimed for judging (see :meth:`GateCache.claim`)."""

    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops its lock
            self._fd = None


def cache_from(setting: str | os.PathLike | None, verifiers: list[str]) -> GateCache | None:
    """The cache a gate uses: ``setting`` if given, else ``$MCPBENCH_GATE_CACHE``, else none."""
    folder = setting if setting is not None else os.environ.get(CACHE_ENV) or None
    return GateCache(Path(folder), tuple(verifiers)) if folder else None


__all__ = ["CACHE_ENV", "Claim", "GateCache", "LIBRARIES", "cache_from", "code_fingerprint", "fingerprint_of"]
