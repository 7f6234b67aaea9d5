"""How the spawned process limits itself before the agent exists, and how a watched process becomes an outcome.

The limits are applied by a one-line ``/bin/sh`` entry that joins the run's cgroup (writing ``0``, i.e.
itself, into each ``cgroup.procs``), sets rlimits with ``ulimit`` and then ``exec``s the sandbox. A shell
rather than a ``preexec_fn``: without Python code to run in the child, ``subprocess`` can use ``vfork``,
which keeps each spawn to about a millisecond instead of a full fork of the harness blocking the event
loop (measured: 27 ms per spawn under load with a ``preexec_fn``).
"""

from __future__ import annotations

import shlex
from datetime import datetime, timedelta

from ._cgroup import RunCgroup
from ._gateway_link import original_soft_limit
from ._supervise import Watched
from .interface import ProcessOutcome, ResourceLimits

ENTRY_FAILED = 125
ENTRY_MARKER = "mcpbench-sandbox-entry:"


def entry_prefix(cgroup: RunCgroup | None, limits: ResourceLimits | None) -> list[str]:
    """The argv prefix that joins ``cgroup`` (so every descendant is born inside it) and sets rlimits.

    No core dumps ever; file size always bounded; the open-file limit the harness started with, if it
    raised its own (``_gateway_link.raise_open_file_limit``), so the agent's is what it always was. Without a cgroup, RLIMIT_AS stands in for the memory
    limit (a cruder bound: it counts address space, not resident memory). ``limits=None`` (the
    unisolated backend) sets only the core-dump limit. A failure exits ``ENTRY_FAILED`` with
    ``ENTRY_MARKER`` on stderr, before anything of the agent ran.
    """
    steps = []
    for path in cgroup.procs_files if cgroup is not None else []:
        steps.append((f"echo 0 > {shlex.quote(path)}", f"cannot join cgroup {path}"))
    steps.append(("ulimit -c 0", "cannot disable core dumps"))
    if (nofile := original_soft_limit()) is not None:
        steps.append((f"ulimit -S -n {nofile}", "cannot restore the open-file limit"))
    if limits is not None:
        steps.append((f"ulimit -f {limits.file_size_mb * 2048}", "cannot limit file size"))  # 512-byte blocks
        if cgroup is None:
            steps.append((f"ulimit -v {limits.memory_mb * 1024}", "cannot limit address space"))  # KiB
    script = "; ".join(
        f"{{ {command}; }} 2>/dev/null || {{ echo {shlex.quote(f'{ENTRY_MARKER} {why}')} >&2; exit {ENTRY_FAILED}; }}"
        for command, why in steps
    )
    return ["/bin/sh", "-c", f'{script}; exec "$@"', "mcpbench-entry"]


def entry_failure(watched: Watched) -> str | None:
    """The entry's own error message, if the run never got past it."""
    text = watched.stderr.text()
    if watched.returncode == ENTRY_FAILED and text.startswith(ENTRY_MARKER):
        return text.strip()
    return None


def outcome(  # noqa: PLR0913 - past the second, keyword-only facts of one finished process
    sandbox: str,
    watched: Watched,
    *,
    started_at: datetime,
    startup_ms: float,
    oom: bool = False,
    pids_limited: bool = False,
    enforced_by: str,
    notes: list[str] | tuple[str, ...] = (),
    abort_reason: str = "aborted",
) -> ProcessOutcome:
    killed_reason = None
    if watched.aborted:
        killed_reason = abort_reason
    elif watched.timed_out:
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
        stderr_head=watched.stderr.head(),
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
