"""What the spawned child does to itself before exec, and how a watched process becomes an outcome."""

from __future__ import annotations

import resource
from collections.abc import Callable
from datetime import datetime, timedelta

from ._cgroup import RunCgroup
from ._supervise import Watched
from .interface import ProcessOutcome, ResourceLimits


def child_setup(cgroup: RunCgroup | None, limits: ResourceLimits | None) -> Callable[[], None]:
    """A ``preexec_fn``: join the run's cgroup (so every descendant is born inside it), then set rlimits.

    No core dumps ever; file size always bounded. Without a cgroup, RLIMIT_AS stands in for the memory
    limit (a cruder bound: it counts address space, not resident memory). ``limits=None`` (the
    unisolated backend) sets only the core-dump limit.
    """

    file_size = None if limits is None else limits.file_size_mb * 1024 * 1024
    address_space = None if limits is None or cgroup is not None else limits.memory_mb * 1024 * 1024

    def setup() -> None:
        if cgroup is not None:
            cgroup.enter_from_child()
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if file_size is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))
        if address_space is not None:
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))

    return setup


def outcome(
    sandbox: str,
    watched: Watched,
    *,
    started_at: datetime,
    startup_ms: float,
    oom: bool = False,
    pids_limited: bool = False,
    enforced_by: str,
    notes: list[str] | tuple[str, ...] = (),
) -> ProcessOutcome:
    killed_reason = None
    if watched.timed_out:
        killed_reason = "timeout"
    elif oom and watched.returncode != 0:
        killed_reason = "memory limit"
    return ProcessOutcome(
        sandbox=sandbox,
        exit_code=watched.returncode,
        timed_out=watched.timed_out,
        killed_reason=killed_reason,
        stdout_tail=watched.stdout.text(),
        stderr_tail=watched.stderr.text(),
        stdout_bytes=watched.stdout.total,
        stderr_bytes=watched.stderr.total,
        started_at=started_at,
        ended_at=started_at + timedelta(milliseconds=startup_ms, seconds=watched.wall_s),
        wall_s=watched.wall_s,
        startup_ms=startup_ms,
        oom=oom,
        pids_limited=pids_limited,
        limits_enforced_by=enforced_by,
        notes=tuple(notes),
    )
