"""The ``local`` backend: bubblewrap, no network, a read-only view of the system, cgroup limits.

Each run gets:

- every namespace unshared (``--unshare-all``: user, pid, net, ipc, uts, cgroup), ``--die-with-parent``,
  ``--new-session`` and an empty capability set (``--cap-drop ALL``);
- a root made only of read-only binds: ``/usr`` and the ``/bin``/``/lib*`` links, a few files of
  ``/etc``, the Python installation running the harness, and ``AgentProcess.readonly_paths``; a fresh
  ``/proc`` and minimal ``/dev``, a private tmpfs ``/tmp``, and a writable ``/home/agent`` (HOME and cwd)
  backed by a host temporary directory removed afterwards;
- a network namespace holding only its own loopback; ``127.0.0.1:<gateway_port>`` inside is served by
  the forwarder (``forwarder.c`` compiled on first use, else ``_forwarder.py``), which relays to a Unix socket bound in from the host, which relays
  to the gateway (``_gateway_link.py``);
- a cgroup with the run's memory, pids and CPU limits (``_cgroup.py``), or rlimits where no cgroup can be
  made, as recorded in ``ProcessOutcome.limits_enforced_by``.
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

from . import _limits
from ._cgroup import CgroupError, RunCgroup
from ._forwarder_build import compiled_forwarder
from ._gateway_link import GatewayLink
from ._supervise import watch
from .interface import MCP_URL_ENV, AgentProcess, ProcessOutcome, SandboxUnavailable

log = logging.getLogger(__name__)

FORWARDER_SOURCE = Path(__file__).with_name("_forwarder.py")
INSIDE_HOME = "/home/agent"
INSIDE_LINK_DIR = "/run/mcpbench"
INSIDE_FORWARDER = f"{INSIDE_LINK_DIR}/forwarder.py"
INSIDE_COMPILED_FORWARDER = f"{INSIDE_LINK_DIR}/forwarder"
INSIDE_SOCKET = f"{INSIDE_LINK_DIR}/link/gateway.sock"
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
PASSWD = f"agent:x:0:0:MCPBench agent:{INSIDE_HOME}:/bin/sh\n"
GROUP = "agent:x:0:\n"


def python_installations() -> list[str]:
    """The interpreter trees a Python agent needs: the base installation and, if any, the venv."""
    roots = {os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix)}
    return sorted(roots)


class LocalSandbox:
    """bubblewrap plus cgroups on this machine. ``require_cgroups`` refuses to fall back to rlimits."""

    name = "local"
    isolates = True

    def __init__(self, *, bwrap: str | None = None, require_cgroups: bool = False) -> None:
        found = bwrap or shutil.which("bwrap")
        if not found or not os.access(found, os.X_OK):
            raise SandboxUnavailable(
                "the local sandbox needs bubblewrap: no `bwrap` executable on PATH "
                "(install the `bubblewrap` package, or choose another sandbox backend)"
            )
        self.bwrap = found
        self.require_cgroups = require_cgroups
        self.python_bin = os.path.join(os.path.realpath(sys.base_prefix), "bin")
        self.python = os.path.realpath(sys.executable)

    def command(self, spec: AgentProcess, *, home: Path, link_dir: Path | None, etc_dir: Path) -> list[str]:
        """The full bwrap argv for ``spec`` (exposed for tests and for reading what a run gets)."""
        args = [self.bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
        args += ["--clearenv", "--hostname", "mcpbench-agent"]
        for d in SYSTEM_DIRS:
            args += ["--ro-bind", d, d]
        for link in SYSTEM_LINKS:
            if os.path.islink(link):
                args += ["--symlink", os.readlink(link), link]
            elif os.path.isdir(link):
                args += ["--ro-bind", link, link]
        for path in ETC_FILES:
            args += ["--ro-bind-try", path, path]
        args += ["--ro-bind", str(etc_dir / "passwd"), "/etc/passwd"]
        args += ["--ro-bind", str(etc_dir / "group"), "/etc/group"]
        # The private /tmp comes before the extra binds: a project checked out under /tmp must stay
        # visible, not be hidden under the fresh tmpfs.
        args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
        for path in [*python_installations(), *spec.readonly_paths]:
            real = os.path.realpath(path)
            if not os.path.exists(real):
                raise SandboxUnavailable(f"read-only path {path!r} does not exist on this host")
            args += ["--ro-bind", real, real]
        args += ["--bind", str(home), INSIDE_HOME, "--chdir", INSIDE_HOME]
        for key, value in self._environment(spec).items():
            args += ["--setenv", key, value]
        args.append("--")
        if link_dir is None:
            return args + list(spec.argv)
        args = args[:-1] + ["--ro-bind", str(link_dir), os.path.dirname(INSIDE_SOCKET)]
        link = f"{spec.gateway_port}:{INSIDE_SOCKET}"
        compiled = compiled_forwarder()
        if compiled is not None:
            args += ["--ro-bind", str(compiled), INSIDE_COMPILED_FORWARDER, "--"]
            return args + [INSIDE_COMPILED_FORWARDER, link, "--", *spec.argv]
        args += ["--ro-bind", str(FORWARDER_SOURCE), INSIDE_FORWARDER, "--"]
        return args + [self.python, "-I", "-S", INSIDE_FORWARDER, link, "--", *spec.argv]

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

    async def run(self, spec: AgentProcess) -> ProcessOutcome:
        if spec.gateway_port is not None and spec.gateway_port < 1024:
            raise SandboxUnavailable(
                f"gateway port {spec.gateway_port} is privileged: the sandbox drops the capability to listen on "
                "ports below 1024, so serve the gateway on an unprivileged port"
            )
        t0 = time.perf_counter()
        started_at = datetime.now(UTC)
        notes: list[str] = []
        cgroup = self._cgroup(spec, notes)
        private = Path(tempfile.mkdtemp(prefix="mcpbench-sandbox-"))
        try:
            home, etc_dir = private / "home", private / "etc"
            home.mkdir()
            etc_dir.mkdir()
            (etc_dir / "passwd").write_text(PASSWD)
            (etc_dir / "group").write_text(GROUP)
            link_dir = None
            if spec.gateway_port is not None:
                link_dir = private / "link"
                link_dir.mkdir(mode=0o700)
            argv = self.command(spec, home=home, link_dir=link_dir, etc_dir=etc_dir)
            async with contextlib.AsyncExitStack() as stack:
                if link_dir is not None:
                    await stack.enter_async_context(GatewayLink(link_dir / "gateway.sock", spec.gateway_port))
                proc = await asyncio.create_subprocess_exec(
                    *_limits.entry_prefix(cgroup, spec.limits),
                    *argv,
                    stdin=asyncio.subprocess.PIPE if spec.stdin is not None else asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE,
                    env={},
                    start_new_session=True,
                )
                startup_ms = (time.perf_counter() - t0) * 1000

                def kill_tree() -> None:
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(proc.pid, signal.SIGKILL)  # bwrap; --die-with-parent takes the rest
                    if cgroup is not None:
                        cgroup.kill_all()

                watched = await watch(proc, stdin=spec.stdin, timeout_s=spec.timeout_s, kill_tree=kill_tree)
            usage = cgroup.usage() if cgroup is not None else None
        finally:
            await asyncio.to_thread(_clean_up, cgroup, private)  # rmdir of a memory cgroup takes ms
        if failure := _limits.entry_failure(watched):
            raise SandboxUnavailable(f"the local sandbox could not apply the run's limits: {failure}")
        return _limits.outcome(
            self.name,
            watched,
            started_at=started_at,
            startup_ms=startup_ms,
            oom=bool(usage and usage.oom),
            pids_limited=bool(usage and usage.pids_limited),
            enforced_by=cgroup.label if cgroup is not None else "rlimit",
            notes=notes,
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


def _clean_up(cgroup: RunCgroup | None, private: Path) -> None:
    if cgroup is not None:
        try:
            cgroup.remove()
        except OSError as exc:
            log.warning("could not remove cgroup %s: %s", cgroup.dirs[0], exc)
    shutil.rmtree(private, ignore_errors=True)
