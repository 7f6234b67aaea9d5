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
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import tempfile
import threading
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from . import _limits
from ._gateway_link import GatewayLink
from ._supervise import OutputTail, Watched
from .interface import MCP_URL_ENV, AgentProcess, ProcessOutcome, SandboxUnavailable

DEFAULT_AGENT_IMAGE = "python:3.11-slim"
DEFAULT_RELAY_IMAGE = "alpine/socat"  # operators should pin a digest
INSIDE_HOME = "/home/agent"
INSIDE_LINK_DIR = "/run/mcpbench/link"
AGENT_USER = "65534:65534"
DEFAULT_ENGINE_SOCKET = "/var/run/docker.sock"
RELAY_READY_S = 10.0
LOCKDOWN: dict[str, Any] = {
    "cap_drop": ["ALL"],
    "security_opt": ["no-new-privileges:true"],
    "read_only": True,
    "privileged": False,
    "ipc_mode": "private",
}


def relay_container_spec(gateway_port: int, *, socket_dir: Path, image: str, name: str) -> dict[str, Any]:
    """The relay: loopback-only network namespace, ``127.0.0.1:<port>`` spliced to the host socket."""
    return {
        **LOCKDOWN,
        "image": image,
        "name": name,
        "command": [
            "-d",
            "-d",
            f"TCP-LISTEN:{gateway_port},bind=127.0.0.1,fork,reuseaddr",
            f"UNIX-CONNECT:{INSIDE_LINK_DIR}/gateway.sock",
        ],
        "network_mode": "none",
        "volumes": {str(socket_dir): {"bind": INSIDE_LINK_DIR, "mode": "ro"}},
        "mem_limit": "64m",
        "memswap_limit": "64m",
        "pids_limit": 64,
        "nano_cpus": 250_000_000,
        "labels": {"mcpbench.role": "gateway-relay"},
        "detach": True,
    }


def agent_container_spec(spec: AgentProcess, *, image: str, relay_name: str | None, name: str) -> dict[str, Any]:
    """The agent: the relay's namespace (or none at all), no privileges, only the limits' worth of resources."""
    limits = spec.limits
    memory = f"{limits.memory_mb}m"
    file_size = limits.file_size_mb * 1024 * 1024
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
        "tmpfs": {INSIDE_HOME: "rw,size=256m,mode=1777", "/tmp": "rw,size=64m,mode=1777"},
        "volumes": {path: {"bind": path, "mode": "ro"} for path in spec.readonly_paths},
        "ulimits": [
            {"name": "core", "soft": 0, "hard": 0},
            {"name": "fsize", "soft": file_size, "hard": file_size},
        ],
        "init": True,  # a real pid 1 reaps zombies and forwards the kill
        "stdin_open": spec.stdin is not None,
        "labels": {"mcpbench.role": "agent"},
        "detach": True,
    }


def _docker_client():
    try:
        import docker
    except ImportError as exc:
        raise SandboxUnavailable(
            "the docker sandbox needs the `docker` Python package (pip install docker)"
        ) from exc
    if not os.environ.get("DOCKER_HOST") and not os.path.exists(DEFAULT_ENGINE_SOCKET):
        raise SandboxUnavailable(
            f"the docker sandbox needs a Docker engine: {DEFAULT_ENGINE_SOCKET} does not exist and DOCKER_HOST is not set"
        )
    client = None
    try:
        client = docker.from_env()
        client.ping()
    except Exception as exc:
        if client is not None:
            client.close()
        raise SandboxUnavailable(f"the docker sandbox needs a reachable Docker engine: {exc}") from exc
    return client


class DockerSandbox:
    name = "docker"
    isolates = True

    def __init__(self, *, image: str = DEFAULT_AGENT_IMAGE, relay_image: str = DEFAULT_RELAY_IMAGE) -> None:
        self.image = image
        self.relay_image = relay_image
        self.client = _docker_client()

    async def run(self, spec: AgentProcess) -> ProcessOutcome:
        t0 = time.perf_counter()
        started_at = datetime.now(UTC)
        run_id = uuid.uuid4().hex[:12]
        link_dir = Path(tempfile.mkdtemp(prefix="mcpbench-docker-"))
        try:
            async with contextlib.AsyncExitStack() as stack:
                relay_name = None
                if spec.gateway_port is not None:
                    await stack.enter_async_context(GatewayLink(link_dir / "gateway.sock", spec.gateway_port))
                    relay_name = f"mcpbench-relay-{run_id}"
                relay_kwargs = (
                    relay_container_spec(spec.gateway_port, socket_dir=link_dir, image=self.relay_image, name=relay_name)
                    if relay_name
                    else None
                )
                agent_kwargs = agent_container_spec(spec, image=self.image, relay_name=relay_name, name=f"mcpbench-agent-{run_id}")
                watched, oom, startup_ms = await asyncio.to_thread(self._run_blocking, spec, relay_kwargs, agent_kwargs, t0)
        finally:
            shutil.rmtree(link_dir, ignore_errors=True)
        return _limits.outcome(
            self.name,
            watched,
            started_at=started_at,
            startup_ms=startup_ms,
            oom=oom,
            enforced_by="docker",
            notes=["pids-limit hits are not reported by the Docker API"],
        )

    def _run_blocking(self, spec: AgentProcess, relay_kwargs, agent_kwargs, t0: float) -> tuple[Watched, bool, float]:
        containers = []
        try:
            if relay_kwargs is not None:
                relay = self.client.containers.run(**relay_kwargs)
                containers.append(relay)
                _wait_for_relay(relay)
            agent = self.client.containers.create(**agent_kwargs)
            containers.append(agent)
            stdin_socket = agent.attach_socket(params={"stdin": 1, "stream": 1}) if spec.stdin is not None else None
            agent.start()
            startup_ms = (time.perf_counter() - t0) * 1000
            began = time.perf_counter()
            if stdin_socket is not None:
                raw = getattr(stdin_socket, "_sock", stdin_socket)
                raw.sendall(spec.stdin.encode())
                raw.close()
            stdout, stderr = OutputTail(), OutputTail()
            readers = [_follow(agent, stdout, stdout=True), _follow(agent, stderr, stdout=False)]
            timed_out = False
            try:
                status = agent.wait(timeout=spec.timeout_s)
            except Exception:  # requests' ReadTimeout/ConnectionError: the deadline passed
                timed_out = True
                with contextlib.suppress(Exception):
                    agent.kill()
                status = agent.wait(timeout=30)
            wall_s = time.perf_counter() - began
            for reader in readers:
                reader.join(timeout=2.0)
            agent.reload()
            oom = bool(agent.attrs.get("State", {}).get("OOMKilled"))
            code = None if timed_out else int(status.get("StatusCode", -1))
            return Watched(returncode=code, timed_out=timed_out, wall_s=wall_s, stdout=stdout, stderr=stderr), oom, startup_ms
        finally:
            for container in containers:
                with contextlib.suppress(Exception):
                    container.remove(force=True)


def _wait_for_relay(relay) -> None:
    deadline = time.monotonic() + RELAY_READY_S
    while time.monotonic() < deadline:
        if b"listening on" in relay.logs(stdout=False, stderr=True):
            return
        relay.reload()
        if relay.status == "exited":
            break
        time.sleep(0.02)
    raise SandboxUnavailable(f"the gateway relay container did not start listening within {RELAY_READY_S} s")


def _follow(container, tail: OutputTail, *, stdout: bool) -> threading.Thread:
    def pump() -> None:
        with contextlib.suppress(Exception):
            for chunk in container.logs(stdout=stdout, stderr=not stdout, stream=True, follow=True):
                tail.feed(chunk)

    thread = threading.Thread(target=pump, daemon=True, name=f"docker-logs-{'out' if stdout else 'err'}")
    thread.start()
    return thread
