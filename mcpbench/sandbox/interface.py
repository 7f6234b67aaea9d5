"""What every sandbox backend takes and gives back: an ``AgentProcess`` in, a ``ProcessOutcome`` out.

A backend is anything with a ``name``, an ``isolates`` flag and ``async run(spec)``. The harness never
looks past this interface: which backend ran an agent changes how it was contained, never what the
outcome means.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol, runtime_checkable

MCP_URL_ENV = "MCPBENCH_MCP_URL"
TAIL_BYTES = 4096
HEAD_BYTES = 1024


class SandboxUnavailable(RuntimeError):
    """The requested backend cannot contain an agent on this machine; the harness records an infra_error."""


@dataclass(frozen=True)
class ResourceLimits:
    """Per-run ceilings, enforced by cgroups where available (rlimits otherwise)."""

    memory_mb: int = 1024
    pids: int = 256
    cpu_cores: float = 1.0
    file_size_mb: int = 1024  # RLIMIT_FSIZE: the largest single file the agent may write
    #: all the agent may write in total (its HOME and /tmp, size-limited tmpfs in ``local``); writes past
    #: it fail with ENOSPC. tmpfs lives in memory, so it also counts against ``memory_mb``.
    disk_mb: int = 512

    def __post_init__(self) -> None:
        if self.memory_mb < 16:
            raise ValueError(f"memory_mb must be at least 16, got {self.memory_mb}")
        if self.pids < 4:
            raise ValueError(f"pids must be at least 4 (the sandbox needs a few itself), got {self.pids}")
        if not 0.01 <= self.cpu_cores <= 1024:
            raise ValueError(f"cpu_cores must be between 0.01 and 1024, got {self.cpu_cores}")
        if self.disk_mb < 4:
            raise ValueError(f"disk_mb must be at least 4, got {self.disk_mb}")


@dataclass(frozen=True)
class AgentProcess:
    """One agent process to contain.

    ``gateway_port`` is the host loopback port of this run's MCP gateway. Inside every backend the agent
    reaches it at ``127.0.0.1:<gateway_port>`` and nothing else; unless ``env`` already sets it, the
    backend puts ``MCPBENCH_MCP_URL=http://127.0.0.1:<gateway_port>/mcp`` in the agent's environment.
    ``None`` means the agent gets no endpoint at all.

    ``extra_ports`` are further host loopback ports the agent may reach, each at the same
    ``127.0.0.1:<port>`` inside (e.g. the model gateway); every other port stays unreachable. Each has
    its own link and the same per-run connection cap as the gateway.

    The agent's environment is ``env`` on top of a small neutral base (PATH, HOME, TMPDIR, LANG); nothing
    of the harness's own environment leaks in. Its HOME and cwd is a private writable directory,
    deleted when the run ends. ``readonly_paths`` are extra host paths it may read (e.g. the project
    directory); the Python installation running the harness is always readable.

    ``timeout_s`` is the agent's own time. ``waited()``, when given, says how many seconds of the run so
    far the agent spent waiting on the harness (its calls in the gateway, a stalled event loop: see
    ``mcpbench.gateway.HarnessWait``); they are not charged: the deadline moves later by as much, so a
    run slowed by the harness never times out for it. Every backend keeps the deadline this way.
    """

    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    stdin: str | None = None
    gateway_port: int | None = None
    timeout_s: float = 600.0
    limits: ResourceLimits = field(default_factory=ResourceLimits)
    readonly_paths: tuple[str, ...] = ()
    extra_ports: tuple[int, ...] = ()
    waited: Callable[[], float] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not self.argv:
            raise ValueError("argv must name a program to run")
        if self.timeout_s <= 0:
            raise ValueError(f"timeout_s must be positive, got {self.timeout_s}")
        if self.gateway_port is not None and not 0 < self.gateway_port < 65536:
            raise ValueError(f"gateway_port must be a TCP port, got {self.gateway_port}")
        for port in self.extra_ports:
            if not 0 < port < 65536:
                raise ValueError(f"extra_ports must hold TCP ports, got {port}")
        if len(set(self.ports)) != len(self.ports):
            raise ValueError(f"gateway_port and extra_ports must all differ, got {self.ports}")

    @property
    def ports(self) -> tuple[int, ...]:
        """Every host loopback port the agent may reach: the gateway's first, then ``extra_ports``."""
        return ((self.gateway_port,) if self.gateway_port is not None else ()) + tuple(self.extra_ports)

    def deadline(self, began: float) -> Deadline:
        """The deadline of this process, spawned at ``began`` (``time.perf_counter()``)."""
        return Deadline(began, self.timeout_s, self.waited)

    @property
    def mcp_url(self) -> str | None:
        """The gateway URL as the agent sees it (the same in every backend)."""
        if self.gateway_port is None:
            return None
        return f"http://127.0.0.1:{self.gateway_port}/mcp"


class Deadline:
    """When an agent's time is up: ``timeout_s`` of its own time after it started at ``began``
    (``time.perf_counter()``), that is, later by what ``waited()`` has grown since (its time waiting on
    the harness, see ``AgentProcess``, which only ever grows). It only ever moves later."""

    def __init__(self, began: float, timeout_s: float, waited: Callable[[], float] | None = None) -> None:
        self.began, self.timeout_s, self.waited = began, timeout_s, waited
        self._before = waited() if waited is not None else 0.0

    def at(self) -> float:
        """The deadline as it stands now (``time.perf_counter()`` time)."""
        extra = max(0.0, self.waited() - self._before) if self.waited is not None else 0.0
        return self.began + self.timeout_s + extra

    def waits(self) -> Iterator[float]:
        """How long to wait, again and again, until the deadline has passed: it is asked anew after each
        wait (waiting until it and asking again never overshoots, since it only moves later)."""
        while (left := self.at() - time.perf_counter()) > 0:
            yield left


@dataclass(frozen=True)
class ProcessOutcome:
    """How a contained agent process ended.

    ``exit_code`` is None when the harness killed the process (see ``killed_reason``: ``"timeout"``,
    ``"memory limit"``, or ``"connection limit"`` when the agent held more connections to an endpoint
    than one link may hold at once, or the most of any run when the harness's budget across runs was
    spent; ``notes`` says which); a process that
    died of a signal it did not receive from the harness reports ``-signal``. ``startup_ms`` is the
    harness-side setup before the process was spawned (cgroup, private directories, gateway link);
    ``wall_s`` runs from spawn to exit, so it includes the backend's own start (bubblewrap's namespace
    setup, the in-sandbox forwarder). The tails hold the last ``TAIL_BYTES`` of each stream, decoded
    with replacement; ``stderr_head`` the first ``HEAD_BYTES`` of stderr (where a built-in baseline
    announces that it started, however much it writes after); ``*_bytes`` count everything the agent wrote.
    """

    sandbox: str
    exit_code: int | None
    timed_out: bool
    killed_reason: str | None
    stdout_tail: str
    stderr_tail: str
    stdout_bytes: int
    stderr_bytes: int
    started_at: datetime
    ended_at: datetime
    wall_s: float
    startup_ms: float
    oom: bool = False
    pids_limited: bool = False
    limits_enforced_by: str = "none"  # "cgroup-v1", "cgroup-v2", "rlimit", "docker" or "none"
    notes: tuple[str, ...] = ()
    stderr_head: str = ""

    @property
    def succeeded(self) -> bool:
        return self.exit_code == 0 and not self.timed_out and self.killed_reason is None


@runtime_checkable
class Sandbox(Protocol):
    """A way to run an agent process contained (or, for ``none``, not)."""

    name: str
    isolates: bool

    async def run(self, spec: AgentProcess) -> ProcessOutcome: ...
