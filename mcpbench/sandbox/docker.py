"""The ``docker`` backend: the agent in a locked-down container whose only way out is the gateway.

Two containers per run, built from plain specifications (``relay_container_spec``,
``agent_container_spec``: keyword arguments for the Docker SDK's ``containers.create``):

- the **relay** has ``network_mode="none"`` (a loopback and nothing else) and runs ``socat`` from
  ``127.0.0.1:<gateway_port>`` to the host Unix socket of the run's ``GatewayLink``, bind-mounted in;
- the **agent** joins the relay's network namespace (``network_mode="container:<relay>"``), so it sees
  ``127.0.0.1:<gateway_port>`` exactly as in the ``local`` backend, and no interface that leads
  anywhere else. No Docker network is created, so there is none to misconfigure; the cost is that the
  engine must run on this host (the socket is a bind mount).

Both run with every capability dropped, ``no-new-privileges``, a read-only root filesystem, and memory
(swap included), pids and CPU limits; the agent runs as ``nobody`` with tmpfs HOME and /tmp.

The links count their connections as in ``local`` (``_gateway_link.py``): a run that holds too many is
ended (its agent container killed, ``killed_reason="connection limit"``, the agent's failure).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import os
import shlex
import shutil
import socket
import sys
import tempfile
import threading
import time
import traceback
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from runstore.leftovers import owner_alive, owner_tag

from . import _limits
from ._gateway_link import GatewayLink, flood_notes
from ._supervise import OutputTail, Watched
from .interface import MCP_URL_ENV, AgentProcess, ProcessOutcome, SandboxUnavailable
from .paths import mount_refusal

PROJECT_ROOT = Path(__file__).resolve().parents[2]
#: What the project's images are built from (``scripts/setup-docker.sh``); their content hash names the images.
CLIENT_FILES = ("mcpbench/__init__.py", "mcpbench/agents/__init__.py", "mcpbench/agents/_mcp_http.py",
                "mcpbench/agents/baselines.py")
RECIPE_FILES = ("docker/rootfs.sh",)
AGENT_RECIPE_FILES = ("docker/agent.Dockerfile",)
INSIDE_CLIENT = "/opt/mcpbench"
INSIDE_PYTHON = "/usr/bin/python3"
AGENT_IMAGE_ENV = "MCPBENCH_DOCKER_IMAGE"
RELAY_IMAGE_ENV = "MCPBENCH_DOCKER_RELAY_IMAGE"
INSIDE_HOME = "/home/agent"
INSIDE_LINK_DIR = "/run/mcpbench/link"
AGENT_USER = "65534:65534"
DEFAULT_ENGINE_SOCKET = "/var/run/docker.sock"
RELAY_READY_S = 10.0
KILL_GRACE_S = 30.0
LOCKDOWN: dict[str, Any] = {
    "cap_drop": ["ALL"],
    "security_opt": ["no-new-privileges:true"],
    "read_only": True,
    "privileged": False,
    "ipc_mode": "private",
}


def _content_hash(files: tuple[str, ...]) -> str:
    digest = hashlib.sha256()
    for name in files:
        path = PROJECT_ROOT / name
        digest.update(name.encode() + b"\0")
        digest.update(path.read_bytes() if path.exists() else b"(missing)")
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def image_tags() -> tuple[str, str, str]:
    """The base, agent and relay images that ``scripts/setup-docker.sh`` builds, named by the content hash
    of what each is built from: a changed recipe or baseline client means a new image, never a stale one."""
    base = _content_hash(RECIPE_FILES)
    return (f"mcpbench-base:{base}", f"mcpbench-agent:{_content_hash(RECIPE_FILES + AGENT_RECIPE_FILES + CLIENT_FILES)}",
            f"mcpbench-relay:{base}")


def default_images() -> tuple[str, str]:
    """The agent and relay images the backend uses unless told otherwise."""
    _, agent, relay = image_tags()
    return agent, relay


def relay_container_spec(ports: int | list[int], *, socket_dir: Path, image: str, name: str) -> dict[str, Any]:
    """The relay: loopback-only network namespace, ``127.0.0.1:<port>`` spliced to the host socket of
    each forwarded port (``port-<port>.sock`` in ``socket_dir``, bind-mounted read-only)."""
    ports = [ports] if isinstance(ports, int) else list(ports)
    if not ports:
        raise ValueError("a relay forwards at least one port")

    def socat(port: int) -> list[str]:
        return ["socat", "-d", "-d", f"TCP-LISTEN:{port},bind=127.0.0.1,fork,reuseaddr",
                f"UNIX-CONNECT:{INSIDE_LINK_DIR}/port-{port}.sock"]

    if len(ports) == 1:
        command = socat(ports[0])
    else:  # one socat per port under one shell; the container ends if any of them does
        script = " & ".join(shlex.join(socat(port)) for port in ports) + " & wait -n; exit 1"
        command = ["/bin/bash", "-c", script]
    return {
        **LOCKDOWN,
        "image": image,
        "name": name,
        "command": command,
        "network_mode": "none",
        "volumes": {str(socket_dir): {"bind": INSIDE_LINK_DIR, "mode": "ro"}},
        "mem_limit": "64m",
        "memswap_limit": "64m",
        "pids_limit": 64,
        "nano_cpus": 250_000_000,
        "labels": {"mcpbench.role": "gateway-relay", OWNER_LABEL: owner()},
        "log_config": {"type": "json-file", "config": {"max-size": "1m", "max-file": "1"}},
        "init": True,
        "detach": True,
    }


def mountable(paths: tuple[str, ...]) -> list[str]:
    """``paths`` as the agent container may mount them (read-only, at the same place), each checked by the
    rule every backend applies (``paths.mount_refusal``): the engine would bind ``/proc/1``'s folder over
    the container's ``/proc``, and create a path that does not exist. ``SandboxUnavailable`` names a refused one."""
    for path in paths:
        refused = mount_refusal(path)
        if refused is not None:
            raise SandboxUnavailable(f"read-only path {path!r} is refused: {refused}")
    return [os.path.realpath(path) for path in paths]


def agent_container_spec(spec: AgentProcess, *, image: str, relay_name: str | None, name: str) -> dict[str, Any]:
    """The agent: the relay's namespace (or none at all), no privileges, only the limits' worth of resources."""
    limits = spec.limits
    memory = f"{limits.memory_mb}m"
    file_size = limits.file_size_mb * 1024 * 1024
    # All the agent may write: its HOME and /tmp, size-limited tmpfs (in memory, so also within mem_limit).
    disk_mb = int(getattr(limits, "disk_mb", 320))
    home_mb = max(1, disk_mb * 3 // 4)
    uid, gid = AGENT_USER.split(":")
    environment = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": INSIDE_HOME, "TMPDIR": "/tmp", "LANG": "C.UTF-8"}
    if spec.mcp_url:
        environment[MCP_URL_ENV] = spec.mcp_url
    environment.update(spec.env)
    return {
        **LOCKDOWN,
        "image": image,
        "name": name,
        "command": list(spec.argv),
        "user": AGENT_USER,
        "working_dir": INSIDE_HOME,
        "environment": environment,
        "network_mode": f"container:{relay_name}" if relay_name else "none",
        "mem_limit": memory,
        "memswap_limit": memory,
        "pids_limit": limits.pids,
        "nano_cpus": int(limits.cpu_cores * 1_000_000_000),
        # Owned by the agent's uid: a directory the image lacks would otherwise be root's, mode 0755.
        "tmpfs": {INSIDE_HOME: f"rw,exec,nosuid,nodev,size={home_mb}m,uid={uid},gid={gid},mode=0700",
                  "/tmp": f"rw,exec,nosuid,nodev,size={disk_mb - home_mb}m,uid={uid},gid={gid},mode=1777"},
        "volumes": {path: {"bind": path, "mode": "ro"} for path in mountable(spec.readonly_paths)},
        "ulimits": [
            {"name": "core", "soft": 0, "hard": 0},
            {"name": "fsize", "soft": file_size, "hard": file_size},
        ],
        "init": True,  # a real pid 1 reaps zombies and forwards the kill
        "stdin_open": spec.stdin is not None,
        "log_config": {"type": "none"},  # output is read over the attach stream, never stored by the engine
        "labels": {"mcpbench.role": "agent", OWNER_LABEL: owner()},
        # Not detached: the engine then also sets StdinOnce, so the agent sees end-of-file on stdin once
        # the harness has written the goal and closed its side of the attach stream.
        "detach": False,
    }


#: The label naming the harness process that made a container: ``<boot id>/<pid>.<start ticks>-``.
OWNER_LABEL = "mcpbench.owner"


def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return "unknown"


def owner() -> str:
    """This process as a container's owner: the host's boot id and the process's pid and start time, so
    that only a process of this host and boot can be found dead, and a recycled pid is not the owner."""
    return f"{_boot_id()}/{owner_tag()}"


def sweep_dead_owners(client) -> list[str]:
    """Remove the containers that harnesses of this host, now dead, left behind (names of those removed).

    A run removes its own containers on every exit path it lives through; a harness killed outright, or
    one that lost its connection to the engine mid-run, cannot. A container of another host or boot, or
    of a live process, or without the label, is never touched."""
    import docker.errors

    boot, removed = _boot_id(), []
    # Other harnesses share the engine: a container one of them removes after the listing and before the
    # look at it that follows is gone already, which is what a sweep wants (``ignore_removed``).
    for container in client.containers.list(all=True, filters={"label": OWNER_LABEL}, ignore_removed=True):
        host, _, tag = container.labels.get(OWNER_LABEL, "").partition("/")
        if host != boot or host == "unknown" or owner_alive(tag) is not False:
            continue
        with contextlib.suppress(docker.errors.NotFound):
            container.remove(force=True)
            removed.append(container.name)
    return removed


def _docker_client():
    try:
        import docker
    except ImportError as exc:
        raise SandboxUnavailable(
            "the docker sandbox needs the `docker` Python package (pip install docker)"
        ) from exc
    if not os.environ.get("DOCKER_HOST") and not os.path.exists(DEFAULT_ENGINE_SOCKET):
        raise SandboxUnavailable(
            f"the docker sandbox needs a Docker engine: {DEFAULT_ENGINE_SOCKET} does not exist and DOCKER_HOST is "
            "not set (scripts/setup-docker.sh installs and starts one)"
        )
    if not os.environ.get("DOCKER_HOST"):
        _probe_engine_socket(DEFAULT_ENGINE_SOCKET)
    client = None
    try:
        client = docker.from_env()
        client.ping()
    except Exception as exc:
        if client is not None:
            client.close()
        raise SandboxUnavailable(f"the docker sandbox needs a reachable Docker engine: {exc}") from exc
    return client


def _probe_engine_socket(path: str) -> None:
    """Refuse early, with our own socket closed, when nothing listens on the engine's socket: docker-py's
    client asks for the API version while it is built and, when that fails, leaks its socket."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(5)
        try:
            probe.connect(path)
        except OSError as exc:
            raise SandboxUnavailable(f"the docker sandbox needs a reachable Docker engine: {path}: {exc}") from exc


class EngineLost(SandboxUnavailable):
    """The Docker engine failed or went away during a run: an ``infra:engine`` error, never the agent's."""

    infra_kind = "engine"


def in_image(spec: AgentProcess) -> AgentProcess:
    """``spec`` as it runs in the agent image: the harness's own interpreter (a host path) becomes the
    image's ``python3``, and the project tree on ``PYTHONPATH`` (the built-in baselines) becomes the
    image's copy of the baselines' client, so the project directory is not mounted into the container."""
    argv, env, readonly = list(spec.argv), dict(spec.env), list(spec.readonly_paths)
    if argv[0] in {sys.executable, os.path.realpath(sys.executable)}:
        argv[0] = INSIDE_PYTHON
    if env.get("PYTHONPATH") == str(PROJECT_ROOT):
        env["PYTHONPATH"] = INSIDE_CLIENT
        readonly = [path for path in readonly if path not in (str(PROJECT_ROOT), str(PROJECT_ROOT / "mcpbench"))]
    return dataclasses.replace(spec, argv=argv, env=env, readonly_paths=tuple(readonly))


class DockerSandbox:
    name = "docker"
    isolates = True

    def __init__(self, *, image: str | None = None, relay_image: str | None = None) -> None:
        agent_default, relay_default = default_images()
        self.image = image or os.environ.get(AGENT_IMAGE_ENV) or agent_default
        self.relay_image = relay_image or os.environ.get(RELAY_IMAGE_ENV) or relay_default
        self.client = _docker_client()
        for image_name in (self.image, self.relay_image):
            try:
                self.client.images.get(image_name)
            except Exception as exc:  # noqa: BLE001 - missing, refused or unreachable: any failure means the image cannot be used
                self.client.close()
                raise SandboxUnavailable(
                    f"the docker sandbox's image {image_name!r} is not on this engine ({exc}); build the project's "
                    f"images with scripts/setup-docker.sh, or name your own with {AGENT_IMAGE_ENV} / {RELAY_IMAGE_ENV}"
                ) from None
        try:
            sweep_dead_owners(self.client)
        except Exception as exc:  # noqa: BLE001 - a sweep that fails must not stop today's runs
            _drop_frames(exc)

    def close(self) -> None:
        """Close the connection to the engine (idempotent)."""
        client, self.client = getattr(self, "client", None), None
        if client is not None:
            with contextlib.suppress(Exception):
                client.close()

    def __del__(self) -> None:
        self.close()

    async def run(self, spec: AgentProcess) -> ProcessOutcome:
        t0 = time.perf_counter()
        started_at = datetime.now(UTC)
        run_id = uuid.uuid4().hex[:12]
        spec = in_image(spec)
        link_dir = Path(tempfile.mkdtemp(prefix="mcpbench-docker-"))
        ports = forwarded_ports(spec)
        # Set when the agent's output closes or a link ends the run for a flood: the run's thread waits on it.
        wake = threading.Event()
        links: list[GatewayLink] = []
        try:
            async with contextlib.AsyncExitStack() as stack:
                for port in ports:
                    link = GatewayLink(link_dir / f"port-{port}.sock", port, on_flood=wake.set)
                    links.append(await stack.enter_async_context(link))
                relay_name = f"mcpbench-relay-{run_id}" if ports else None
                relay_kwargs = (
                    relay_container_spec(ports, socket_dir=link_dir, image=self.relay_image, name=relay_name)
                    if relay_name else None
                )
                agent_kwargs = agent_container_spec(spec, image=self.image, relay_name=relay_name,
                                                    name=f"mcpbench-agent-{run_id}")
                try:
                    watched, oom, pids_limited, startup_ms = await asyncio.to_thread(
                        self._run_blocking, spec, relay_kwargs, agent_kwargs, len(ports), t0,
                        wake, lambda: any(link.flooded for link in links))
                except EngineLost:
                    # Drop every pooled connection to the engine that went away (the client opens new ones).
                    with contextlib.suppress(Exception):
                        self.client.api.close()
                    raise
        finally:
            shutil.rmtree(link_dir, ignore_errors=True)
        return _limits.outcome(
            self.name,
            watched,
            started_at=started_at,
            startup_ms=startup_ms,
            oom=oom,
            pids_limited=pids_limited,
            enforced_by="docker",
            notes=flood_notes(links),
            abort_reason="connection limit",
        )

    def _run_blocking(self, spec: AgentProcess, relay_kwargs, agent_kwargs, n_ports: int, t0: float,
                      wake: threading.Event, flooded: Callable[[], bool]) -> tuple[Watched, bool, bool, float]:
        """The run in the engine, in a worker thread: it ends when the agent exits, at its deadline, or
        when ``flooded()`` turns true (``wake`` is set then, and when the agent's output closes)."""
        import docker.errors
        import requests

        containers, stream, reader, pids = [], None, None, None
        try:
            try:
                if relay_kwargs is not None:
                    relay = self.client.containers.run(**relay_kwargs)
                    containers.append(relay)
                    _wait_for_relay(relay, n_ports)
                agent = self.client.containers.create(**agent_kwargs)
                containers.append(agent)
                stream = agent.attach_socket(params={"stdin": int(spec.stdin is not None), "stdout": 1, "stderr": 1,
                                                     "stream": 1})
                agent.start()
                pids = _PidsWatch(agent.id)
            except docker.errors.APIError as exc:  # the engine answered, and refused our containers
                raise SandboxUnavailable(f"the Docker engine refused the run's containers: {exc}") from exc
            except requests.exceptions.RequestException as exc:
                _drop_frames(exc)
                raise EngineLost(f"the Docker engine could not be reached to start the run: {exc}") from exc
            startup_ms = (time.perf_counter() - t0) * 1000
            began = time.perf_counter()
            stdout, stderr = OutputTail(), OutputTail()
            reader = _pump_output(stream, spec.stdin, stdout, stderr, wake)
            # The attach stream ends when the agent's output closes, normally because it exited; then the
            # engine says whether it did (an agent may close its output and run on to the deadline).
            deadline = spec.deadline(began)  # the agent's own time: it moves later by what it waited on us
            for left in deadline.waits():
                if wake.wait(timeout=left):
                    break
            try:
                state = _state_by(agent, deadline.at, give_up=flooded)
                aborted = flooded()  # a flood ends the run as the agent's failure, even in its last instant
                timed_out = state is None and not aborted
                if state is None:
                    with contextlib.suppress(docker.errors.APIError):
                        agent.kill()
                    state = _state_by(agent, time.perf_counter() + KILL_GRACE_S) or {}
            except (docker.errors.APIError, requests.exceptions.RequestException) as exc:
                _drop_frames(exc)
                raise EngineLost(f"the Docker engine went away while the agent ran: {exc}") from exc
            wall_s = time.perf_counter() - began
            reader.join(timeout=2.0)
            pids_limited, pids = pids.stop(), None
            oom = bool(state.get("OOMKilled"))
            code = None if timed_out or aborted else int(state.get("ExitCode", -1))
            watched = Watched(returncode=code, timed_out=timed_out, aborted=aborted, wall_s=wall_s, stdout=stdout,
                              stderr=stderr)
            return watched, oom, pids_limited, startup_ms
        finally:
            if pids is not None:  # the run failed: stop watching a container that is about to go
                pids.stop()
            for container in containers:
                try:
                    container.remove(force=True)
                except Exception as exc:  # noqa: BLE001 - best effort; the engine may be gone
                    _drop_frames(exc)
            # Removing the agent ends its attach stream, so the reader finishes; then nothing is left open.
            if reader is not None:
                reader.join(timeout=5.0)
            if stream is not None:
                _close_stream(stream)


class _PidsWatch:
    """Whether the container ever hit its pids limit: the engine does not say, but the kernel counts it in
    the container's ``pids.events`` (the engine runs on this host), read while the container lives."""

    CANDIDATES = ("/sys/fs/cgroup/pids/docker/{id}/pids.events", "/sys/fs/cgroup/docker/{id}/pids.events",
                  "/sys/fs/cgroup/system.slice/docker-{id}.scope/pids.events")

    def __init__(self, container_id: str) -> None:
        self.paths = [Path(c.format(id=container_id)) for c in self.CANDIDATES]
        self.hits = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True, name="docker-pids")
        self._thread.start()

    def _watch(self) -> None:
        while True:
            for path in self.paths:
                with contextlib.suppress(OSError, ValueError):
                    for line in path.read_text().splitlines():
                        if line.startswith("max "):
                            self.hits = max(self.hits, int(line.split()[1]))
            if self._done.wait(0.1):
                return

    def stop(self) -> bool:
        self._done.set()
        self._thread.join(timeout=1.0)
        return self.hits > 0


def _state_by(container, deadline: Callable[[], float] | float,
              give_up: Callable[[], bool] | None = None) -> dict | None:
    """The container's state once it has exited, or None if it still runs at ``deadline`` (perf_counter;
    a callable for one that moves) or when ``give_up()`` turns true."""
    due = deadline if callable(deadline) else (lambda: deadline)
    while True:
        container.reload()
        state = container.attrs.get("State", {})
        if state.get("Status") in ("exited", "dead"):
            return state
        if time.perf_counter() >= due() or (give_up is not None and give_up()):
            return None
        time.sleep(min(0.05, max(0.0, due() - time.perf_counter())))


def forwarded_ports(spec: AgentProcess) -> list[int]:
    """The host loopback ports the agent reaches as ``127.0.0.1:<port>``: the gateway, then any extra ones."""
    extra = [int(p) for p in getattr(spec, "extra_ports", ()) or ()]
    return ([spec.gateway_port] if spec.gateway_port is not None else []) + [p for p in extra if p != spec.gateway_port]


def _wait_for_relay(relay, n_ports: int) -> None:
    deadline = time.monotonic() + RELAY_READY_S
    while time.monotonic() < deadline:
        if relay.logs(stdout=False, stderr=True).count(b"listening on") >= n_ports:
            return
        relay.reload()
        if relay.status == "exited":
            break
        time.sleep(0.02)
    raise SandboxUnavailable(f"the gateway relay container did not start listening within {RELAY_READY_S} s")


def _drop_frames(exc: BaseException | None) -> None:
    """Free what a failed engine call's frames hold, now rather than at some later garbage collection.

    docker-py's unix-socket connection leaves its socket open when ``connect()`` fails (the engine went
    away), referenced only from the failed call's frames, which sit in a reference cycle with the
    exception. Clearing the frames closes such sockets here; a harness that outlives a flapping engine
    does not accumulate descriptors until the collector happens to run."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        traceback.clear_frames(exc.__traceback__)  # frames still running (ours) are left as they are
        exc = exc.__cause__ or exc.__context__


def _close_stream(stream) -> None:
    """Close the attach stream for good: the HTTP response that was hijacked for it holds references of its
    own to the socket, so closing only the socket would leave its descriptor open."""
    response = getattr(stream, "_response", None)
    for part in (stream, response, getattr(response, "raw", None), getattr(stream, "_sock", None)):
        with contextlib.suppress(Exception):
            if part is not None:
                part.close()


def _pump_output(stream, stdin: str | None, stdout: OutputTail, stderr: OutputTail,
                 closed: threading.Event | None = None) -> threading.Thread:
    """Feed ``stdin`` (then close it: the container was created with ``stdin_once``) and demultiplex the
    attached stdout/stderr into the tails, in a thread that ends (setting ``closed``) when the container's
    streams close."""
    from docker.utils.socket import frames_iter

    raw = getattr(stream, "_sock", stream)

    def pump() -> None:
        try:
            if stdin is not None:
                with contextlib.suppress(OSError):
                    raw.sendall(stdin.encode())
                    raw.shutdown(socket.SHUT_WR)
            with contextlib.suppress(Exception):
                for stream_id, chunk in frames_iter(stream, tty=False):
                    (stderr if stream_id == 2 else stdout).feed(chunk)
        finally:
            _close_stream(stream)
            if closed is not None:
                closed.set()

    thread = threading.Thread(target=pump, daemon=True, name="docker-attach")
    thread.start()
    return thread


__all__ = ["AGENT_IMAGE_ENV", "DockerSandbox", "EngineLost", "RELAY_IMAGE_ENV", "agent_container_spec",
           "default_images", "forwarded_ports", "image_tags", "in_image", "relay_container_spec"]
