"""The ``local`` backend: bubblewrap, no network, a read-only view of the system, cgroup limits.

Each run gets:

- every namespace unshared (``--unshare-all``: user, pid, net, ipc, uts, cgroup), ``--die-with-parent``,
  ``--new-session``, no capabilities and no new privileges;
- an agent uid that is not host root: inside it is uid 1000, on the host ``agent_host_uid`` (see
  ``_userns.py``; the agent can create no user namespace of its own);
- a root made only of read-only binds: ``/usr`` and the ``/bin``/``/lib*`` links, a few files of
  ``/etc``, the Python installation running the harness, and ``AgentProcess.readonly_paths``; a fresh
  ``/proc`` whose host-wide knobs (``/proc/sys``, ``/proc/sysrq-trigger``, ...) are read-only, no
  ``/sys``, a minimal ``/dev``, and size-limited tmpfs ``/home/agent`` (HOME and cwd), ``/tmp`` and
  ``/dev/shm`` that together hold at most ``ResourceLimits.disk_mb``;
- a network namespace holding only its own loopback; ``127.0.0.1:<port>`` inside, for the gateway and
  each of ``extra_ports``, is served by the forwarder (``forwarder.c`` compiled on first use, else
  ``_forwarder.py``), which relays to a Unix socket bound in from the host, which relays to the port
  (``_gateway_link.py``, with caps on connections held at once, per link and across all runs: a
  flood ends the run);
- a cgroup with the run's memory, pids and CPU limits (``_cgroup.py``), or rlimits where no cgroup can be
  made, as recorded in ``ProcessOutcome.limits_enforced_by``.

Everything the run leaves on the host is named after the harness process (``runstore/leftovers.py``) and removed on
every exit path; what a killed harness left is swept when the next one opens the backend.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import signal
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from runstore.leftovers import owner_tag, sweep

from . import _limits, _userns
from ._cgroup import CgroupError, RunCgroup, sweep_dead_groups
from ._forwarder_build import compiled_forwarder
from ._gateway_link import GatewayLink, flood_notes
from ._supervise import watch
from ._userns import AGENT_UID
from .interface import MCP_URL_ENV, AgentProcess, ProcessOutcome, SandboxUnavailable
from .paths import mount_refusal, python_installations

log = logging.getLogger(__name__)

FORWARDER_SOURCE = Path(__file__).with_name("_forwarder.py")
INSIDE_HOME = "/home/agent"
INSIDE_LINK_DIR = "/run/mcpbench"
INSIDE_FORWARDER = f"{INSIDE_LINK_DIR}/forwarder.py"
INSIDE_COMPILED_FORWARDER = f"{INSIDE_LINK_DIR}/forwarder"
INSIDE_SOCKETS = f"{INSIDE_LINK_DIR}/link"
PRIVATE_PREFIX = "mcpbench-sandbox-"
SYSTEM_DIRS = ("/usr",)
SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_FILES = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/localtime",
    "/etc/nsswitch.conf",
    "/etc/mime.types",
)
#: Parts of the fresh /proc that reach the whole host, bound read-only over themselves (bubblewrap
#: covers only a few of them, and skips /proc/sys when its directory is not writable, which it never is).
PROC_READ_ONLY = ("sys", "sysrq-trigger", "irq", "bus", "fs", "acpi", "scsi", "driver", "mtrr")
PASSWD = f"agent:x:{AGENT_UID}:{AGENT_UID}:MCPBench agent:{INSIDE_HOME}:/bin/sh\n"
GROUP = f"agent:x:{AGENT_UID}:\n"
#: How ResourceLimits.disk_mb is shared: /tmp a quarter, /dev/shm (POSIX semaphores, shared memory)
#: an eighth, HOME the rest.
TMP_SHARE, SHM_SHARE = 4, 8

_swept = False


def sweep_leftovers() -> list[Path]:
    """Remove the private directories and cgroups of sandbox runs whose harness is no longer running."""
    return sweep(Path(tempfile.gettempdir()), PRIVATE_PREFIX) + sweep_dead_groups()


class _Mounts:
    """bwrap mount arguments, making each destination's missing parents world-searchable first
    (bwrap would make them 0700, unreadable for the agent's uid)."""

    def __init__(self) -> None:
        self.args: list[str] = []
        self._made: set[str] = {"/"}
        self._read_only: list[str] = []

    def _parents(self, dest: str) -> None:
        parts = dest.strip("/").split("/")[:-1]
        for i in range(1, len(parts) + 1):
            parent = "/" + "/".join(parts[:i])
            inside_ro = any(parent == d or parent.startswith(d + "/") for d in self._read_only)
            if parent not in self._made and not inside_ro:
                self.args += ["--perms", "0755", "--dir", parent]
            self._made.add(parent)

    def add(self, option: str, dest: str, *before: str, source: str | None = None) -> None:
        self._parents(dest)
        self.args += [*before, option, *([source] if source is not None else []), dest]
        self._made.add(dest)
        if option.startswith("--ro-bind"):
            self._read_only.append(dest)


class LocalSandbox:
    """bubblewrap plus cgroups on this machine. ``require_cgroups`` refuses to fall back to rlimits.

    Run as root (as the harness is here), the agent gets ``agent_host_uid`` on the host; run as
    another user, bubblewrap maps the agent to that user.
    """

    name = "local"
    isolates = True

    def __init__(self, *, bwrap: str | None = None, require_cgroups: bool = False,
                 agent_host_uid: int = _userns.AGENT_HOST_UID) -> None:
        found = bwrap or shutil.which("bwrap")
        if not found or not os.access(found, os.X_OK):
            raise SandboxUnavailable(
                "the local sandbox needs bubblewrap: no `bwrap` executable on PATH "
                "(install the `bubblewrap` package, or choose another sandbox backend)"
            )
        self.bwrap = found
        self.require_cgroups = require_cgroups
        self.privileged = os.geteuid() == 0
        if self.privileged and agent_host_uid == 0:
            raise SandboxUnavailable("agent_host_uid must not be 0: the agent is never host root")
        self.agent_host_uid = agent_host_uid
        self.setpriv = _userns.find_setpriv() if self.privileged else None
        self.python_bin = os.path.join(os.path.realpath(sys.base_prefix), "bin")
        self.python = os.path.realpath(sys.executable)
        global _swept
        if not _swept:
            _swept = True
            sweep_leftovers()

    def command(self, spec: AgentProcess, *, link_dir: Path | None, etc_dir: Path,  # noqa: C901, PLR0912 - bwrap's argv, one branch per kind of mount
                sync_fds: tuple[int, ...] | None = None) -> list[str]:
        """The full bwrap argv for ``spec`` (exposed for tests and for reading what a run gets).
        ``sync_fds`` (info, block) are the user-namespace handshake pipes of a privileged run."""
        args = [self.bwrap, "--unshare-all", "--unshare-user", "--die-with-parent", "--new-session"]
        args += ["--cap-drop", "ALL", "--clearenv", "--hostname", "mcpbench-agent"]
        if self.privileged:
            if sync_fds is None:
                raise ValueError("a privileged run needs the user-namespace handshake pipes")
            args += ["--info-fd", str(sync_fds[0]), "--userns-block-fd", str(sync_fds[1])]
            for cap in _userns.STAGE_CAPS:
                args += ["--cap-add", cap]
        else:
            args += ["--disable-userns", "--uid", str(AGENT_UID), "--gid", str(AGENT_UID)]
        m = _Mounts()
        for d in SYSTEM_DIRS:
            m.add("--ro-bind", d, source=d)
        for link in SYSTEM_LINKS:
            if os.path.islink(link):
                m.add("--symlink", link, source=os.readlink(link))
            elif os.path.isdir(link):
                m.add("--ro-bind", link, source=link)
        for path in ETC_FILES:
            m.add("--ro-bind-try", path, source=path)
        m.add("--ro-bind", "/etc/passwd", source=str(etc_dir / "passwd"))
        m.add("--ro-bind", "/etc/group", source=str(etc_dir / "group"))
        m.add("--proc", "/proc")
        for entry in PROC_READ_ONLY:
            m.add("--ro-bind-try", f"/proc/{entry}", source=f"/proc/{entry}")
        if self.privileged:  # the first stage sets the sandbox's user.max_user_namespaces to 0 through it
            m.add("--bind", "/proc/sys/user", source="/proc/sys/user")
        m.add("--dev", "/dev")
        disk = spec.limits.disk_mb * 1024 * 1024
        m.add("--tmpfs", "/dev/shm", "--perms", "1777", "--size", str(disk // SHM_SHARE))
        # The private /tmp comes before the extra binds: a project checked out under /tmp must stay
        # visible, not be hidden under the fresh tmpfs.
        m.add("--tmpfs", "/tmp", "--perms", "1777", "--size", str(disk // TMP_SHARE))
        for path in [*python_installations(), *spec.readonly_paths]:
            real = os.path.realpath(path)
            refused = mount_refusal(real)
            if refused is not None:
                raise SandboxUnavailable(f"read-only path {path!r} is refused: {refused}")
            if self.privileged and not _readable_by_others(real):
                raise SandboxUnavailable(
                    f"read-only path {path!r} is not readable by other users, and the agent is not root: "
                    "make it world-readable (e.g. chmod o+rX) or choose another path"
                )
            m.add("--ro-bind", real, source=real)
        m.add("--tmpfs", INSIDE_HOME, "--perms", "0777", "--size", str(disk - disk // TMP_SHARE - disk // SHM_SHARE))
        program: list[str] = []
        if link_dir is not None:
            links = [f"{port}:{INSIDE_SOCKETS}/{port}.sock" for port in spec.ports]
            m.add("--ro-bind", INSIDE_SOCKETS, source=str(link_dir))
            compiled = compiled_forwarder()
            if compiled is not None:
                m.add("--ro-bind", INSIDE_COMPILED_FORWARDER, source=str(compiled))
                program = [INSIDE_COMPILED_FORWARDER, *links, "--"]
            else:
                m.add("--ro-bind", INSIDE_FORWARDER, source=str(FORWARDER_SOURCE))
                program = [self.python, "-I", "-S", INSIDE_FORWARDER, *links, "--"]
        args += m.args + ["--chdir", INSIDE_HOME]
        for key, value in self._environment(spec).items():
            args += ["--setenv", key, value]
        stage = _userns.first_stage(self.setpriv) if self.setpriv is not None else []  # set when privileged
        return [*args, "--", *stage, *program, *spec.argv]

    def _environment(self, spec: AgentProcess) -> dict[str, str]:
        env = {
            "PATH": f"{self.python_bin}:/usr/local/bin:/usr/bin:/bin",
            "HOME": INSIDE_HOME,
            "TMPDIR": "/tmp",
            "LANG": "C.UTF-8",
            "USER": "agent",
        }
        if spec.mcp_url:
            env[MCP_URL_ENV] = spec.mcp_url
        env.update(spec.env)
        return env

    @property
    def _agent_owner(self) -> tuple[int, int] | None:
        """Who must own what the agent uses on the host (its link sockets), if not the harness."""
        return (self.agent_host_uid, self.agent_host_uid) if self.privileged else None

    async def run(self, spec: AgentProcess) -> ProcessOutcome:
        low = [p for p in spec.ports if p < 1024]
        if low:
            raise SandboxUnavailable(
                f"port {low[0]} is privileged: the sandbox drops the capability to listen on "
                "ports below 1024, so serve the gateway (and any extra endpoint) on an unprivileged port"
            )
        t0 = time.perf_counter()
        started_at = datetime.now(UTC)
        notes: list[str] = []
        cgroup = self._cgroup(spec, notes)
        abort = asyncio.Event()
        links: list[GatewayLink] = []
        try:
            private = Path(tempfile.mkdtemp(prefix=f"{PRIVATE_PREFIX}{owner_tag()}"))
        except BaseException:
            await asyncio.to_thread(_clean_up, cgroup, None)
            raise
        sync: _userns.Handshake | None = None
        try:
            sync = _userns.Handshake() if self.privileged else None
            etc_dir = private / "etc"
            etc_dir.mkdir()
            (etc_dir / "passwd").write_text(PASSWD)
            (etc_dir / "group").write_text(GROUP)
            link_dir = None
            if spec.ports:
                link_dir = private / "link"
                link_dir.mkdir(mode=0o700)
                if self._agent_owner is not None:
                    os.chown(link_dir, *self._agent_owner)
            argv = self.command(spec, link_dir=link_dir, etc_dir=etc_dir,
                                sync_fds=sync.child_fds if sync is not None else None)
            async with contextlib.AsyncExitStack() as stack:
                for port in spec.ports if link_dir is not None else ():
                    assert link_dir is not None
                    link = GatewayLink(link_dir / f"{port}.sock", port, on_flood=abort.set, owner=self._agent_owner)
                    links.append(await stack.enter_async_context(link))
                proc = await asyncio.create_subprocess_exec(
                    *_limits.entry_prefix(cgroup, spec.limits),
                    *argv,
                    stdin=asyncio.subprocess.PIPE if spec.stdin is not None else asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE,
                    env={},
                    start_new_session=True,
                    pass_fds=sync.child_fds if sync is not None else (),
                )

                def kill_tree() -> None:
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(proc.pid, signal.SIGKILL)  # bwrap; --die-with-parent takes the rest
                    if cgroup is not None:
                        cgroup.kill_all()

                if sync is not None:
                    try:
                        await sync.complete(self.agent_host_uid)
                    except BaseException:
                        kill_tree()
                        with contextlib.suppress(Exception):
                            await asyncio.wait_for(proc.wait(), 5)
                        raise
                startup_ms = (time.perf_counter() - t0) * 1000
                watched = await watch(proc, stdin=spec.stdin, timeout_s=spec.timeout_s, waited=spec.waited, kill_tree=kill_tree,
                                      abort=abort)
                if any(link.flooded for link in links) and not watched.timed_out:
                    # ended for a flood, even if it exited in the same instant: the agent's failure
                    watched.aborted, watched.returncode = True, None
            usage = cgroup.usage() if cgroup is not None else None
        finally:
            if sync is not None:
                sync.close()
            await asyncio.to_thread(_clean_up, cgroup, private)  # rmdir of a memory cgroup takes ms
        if failure := _limits.entry_failure(watched):
            raise SandboxUnavailable(f"the local sandbox could not apply the run's limits: {failure}")
        notes += flood_notes(links)
        return _limits.outcome(
            self.name,
            watched,
            started_at=started_at,
            startup_ms=startup_ms,
            oom=bool(usage and usage.oom),
            pids_limited=bool(usage and usage.pids_limited),
            enforced_by=cgroup.label if cgroup is not None else "rlimit",
            notes=notes,
            abort_reason="connection limit",
        )

    def _cgroup(self, spec: AgentProcess, notes: list[str]) -> RunCgroup | None:
        try:
            return RunCgroup.create(spec.limits)
        except CgroupError as exc:
            if self.require_cgroups:
                raise SandboxUnavailable(f"the local sandbox cannot create a cgroup for the run: {exc}") from exc
            notes.append(f"cgroups unavailable ({exc}); memory bounded by RLIMIT_AS, pids and CPU unbounded")
            log.warning("sandbox limits fall back to rlimits: %s", exc)
            return None


def _readable_by_others(path: str) -> bool:
    mode = os.stat(path).st_mode
    need = 0o005 if os.path.isdir(path) else 0o004
    return mode & need == need


def _clean_up(cgroup: RunCgroup | None, private: Path | None) -> None:
    if cgroup is not None:
        try:
            cgroup.remove()
        except OSError as exc:
            log.warning("could not remove cgroup %s: %s", cgroup.dirs[0], exc)
    if private is not None:
        shutil.rmtree(private, ignore_errors=True)
