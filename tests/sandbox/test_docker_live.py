"""The docker backend live, on a real engine with the project's images (scripts/setup-docker.sh): what
only it can show. The harness suite shared with ``local`` runs here too, through the ``backend``
fixtures (tests/sandbox, tests/harness). Skipped, with the reason, where no engine can be reached."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import io
import os
import socket
import subprocess
import tarfile
import threading
import time
import uuid
import warnings

import anyio
import pytest

from mcpbench.sandbox import AgentProcess, ResourceLimits, SandboxUnavailable
from tests.harness.conftest import CountingSandbox

from .conftest import open_backend, python_agent, run_agent
from .test_network import FETCH_GATEWAY


@pytest.fixture
def docker_sandbox():
    return open_backend("docker")


def test_an_agent_in_docker_reaches_the_gateway_through_the_relay_with_every_byte(docker_sandbox, gateway_port):
    outcome = run_agent(docker_sandbox, python_agent(FETCH_GATEWAY, gateway_port=gateway_port, timeout_s=30))
    assert outcome.exit_code == 0, outcome.stderr_tail
    assert outcome.stdout_tail.splitlines() == [f"http://127.0.0.1:{gateway_port}/mcp", "gateway says hello",
                                                "echo intact"]
    assert outcome.sandbox == "docker" and outcome.limits_enforced_by == "docker"


#: Seconds the listener listens and the prober probes, both from their own start: the two containers
#: start at about the same time, and the test checks that the probes overlapped the listening.
WINDOW_S = "6"

LISTEN = """
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(64)
probe = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2)  # the control: it is listening
start, neighbours = time.time(), 0
s.settimeout(0.2)
while time.time() < start + float(sys.argv[2]):
    try:
        c, _ = s.accept()
    except OSError:
        continue
    neighbours += c.getpeername()[1] != probe.getsockname()[1]
print("listened", neighbours, start, time.time(), flush=True)
"""

PROBE_NEIGHBOUR = """
import socket, sys, time
start, reached, failures = time.time(), [], set()
while time.time() < start + float(sys.argv[2]):
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=0.5).close()
        reached.append(time.time())
    except OSError as exc:
        failures.add(type(exc).__name__)
    time.sleep(0.1)
print("reached" if reached else "blocked:", ",".join(sorted(failures)), start, time.time(), flush=True)
"""


def test_another_runs_container_is_not_reachable(docker_sandbox, gateway_port):
    port = 47000 + os.getpid() % 1000

    async def both():
        listener = python_agent(LISTEN, str(port), WINDOW_S, gateway_port=gateway_port, timeout_s=30)
        prober = python_agent(PROBE_NEIGHBOUR, str(port), WINDOW_S, gateway_port=gateway_port, timeout_s=30)
        with anyio.fail_after(120):
            return await asyncio.gather(docker_sandbox.run(listener), docker_sandbox.run(prober))

    listened, probed = asyncio.run(both())
    heard = listened.stdout_tail.split()
    assert heard[:2] == ["listened", "0"], (listened.stdout_tail, listened.stderr_tail)  # no neighbour got in
    said = probed.stdout_tail.split()
    assert said[0] == "blocked:", (probed.stdout_tail, probed.stderr_tail)
    # not blocked only because nothing listened yet, or any more: it probed while the listener listened
    (listen_from, listen_to), (probe_from, probe_to) = map(float, heard[2:4]), map(float, said[-2:])
    assert probe_from < listen_to and probe_to > listen_from, (heard, said)


def test_filling_the_disk_ends_in_no_space_within_the_limit_and_the_agent_fails(docker_sandbox):
    source = (
        "import errno, os\n"
        "written = 0\n"
        "try:\n"
        "    with open(os.path.join(os.environ['HOME'], 'fill'), 'wb') as f:\n"
        "        while True:\n"
        "            f.write(b'x' * (1 << 20)); f.flush(); written += 1\n"
        "except OSError as exc:\n"
        "    print(errno.errorcode[exc.errno], written, flush=True); raise SystemExit(1)\n"
    )
    outcome = run_agent(docker_sandbox, python_agent(source, timeout_s=60, limits=ResourceLimits(memory_mb=512)))
    code, written = outcome.stdout_tail.split()
    assert code in ("ENOSPC", "EFBIG") and outcome.exit_code == 1
    assert int(written) <= getattr(ResourceLimits(), "disk_mb", 320)


def test_extra_ports_are_reachable_and_only_they(docker_sandbox, gateway_port, host_listeners):
    if "extra_ports" not in AgentProcess.__dataclass_fields__:
        pytest.skip("AgentProcess.extra_ports is not in this tree yet (the sandbox change that adds it)")
    extra = host_listeners["tcp4"][1]
    source = (
        "import socket, sys\n"
        "for port in sys.argv[1:]:\n"
        "    try:\n        print(socket.create_connection(('127.0.0.1', int(port)), timeout=2).recv(4).decode())\n"
        "    except OSError as exc:\n        print('blocked', type(exc).__name__)\n"
    )
    spec = python_agent(source, str(extra), str(extra + 1), gateway_port=gateway_port, timeout_s=30,
                        extra_ports=(extra,))
    outcome = run_agent(docker_sandbox, spec)
    lines = outcome.stdout_tail.splitlines()
    assert lines[0] == "leak" and lines[1].startswith("blocked"), outcome.stderr_tail


def test_a_missing_image_is_refused_with_the_way_to_build_it(monkeypatch):
    from mcpbench.sandbox import get_sandbox

    open_backend("docker")  # skip where there is no engine at all
    with pytest.raises(SandboxUnavailable, match="setup-docker.sh"):
        get_sandbox("docker", image=f"mcpbench-no-such-image:{uuid.uuid4().hex[:8]}")


# --- infra errors under docker, through the real runner ---------------------------------------------------

@pytest.fixture
def image_without_python():
    """A real image holding one file and no interpreter, as a broken or foreign image would be."""
    import docker

    open_backend("docker")  # skips, with the reason, where no engine can be reached
    client = docker.from_env()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        data = b"not a python image\n"
        info = tarfile.TarInfo("etc/motd")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    tag = f"mcpbench-test-empty:{uuid.uuid4().hex[:8]}"
    try:
        client.api.import_image_from_data(buffer.getvalue(), repository=tag.split(":")[0], tag=tag.split(":")[1])
        yield tag
        client.images.remove(tag, force=True)
    finally:
        client.close()


def _run_one(sandbox, agent):
    from mcpbench.agents.spec import parse_agent
    from mcpbench.runner import Submission, run_tasks
    from tests.harness.test_gateway import make_task

    sub = Submission("docker-infra", "tester", "x", "dev", "2026-12")

    async def go():
        with anyio.fail_after(120):
            return await run_tasks([make_task()], parse_agent(agent), sandbox=sandbox, submission=sub)

    (result,) = anyio.run(go)
    return result


def test_an_image_that_cannot_start_our_baseline_is_an_infra_sandbox_error(image_without_python):
    from mcpbench.sandbox import get_sandbox

    broken = get_sandbox("docker", image=image_without_python)
    result = _run_one(broken, "oracle")
    assert result.run.status == "infra_error" and result.run.end_reason == "infra:sandbox"
    own = _run_one(broken, "command:/usr/local/bin/my-agent")
    assert own.run.status == "failed" and own.run.end_reason == "agent_exit" and own.run.exit_code == 127


def test_an_agent_image_without_our_client_is_an_infra_sandbox_error_requeued_and_not_attempted(tmp_path):
    """An operator's agent image (``MCPBENCH_DOCKER_IMAGE``) with python3 and without our baselines' client:
    the built-in oracle's interpreter starts and finds no ``mcpbench`` (exit 1, not 127). Ours, not the
    agent's. Here the image is the project's own base image: Debian's python3, no /opt/mcpbench."""
    from mcpbench.evaluation import evaluate
    from mcpbench.runner import Submission
    from mcpbench.sandbox import get_sandbox
    from mcpbench.sandbox.docker import image_tags
    from runstore.store import open_store
    from tests.harness.test_gateway import make_task
    from warehouse.scorecard import scorecard

    open_backend("docker")  # skips, with the reason, where no engine can be reached
    base, _, _ = image_tags()
    try:
        box = CountingSandbox(get_sandbox("docker", image=base))
    except SandboxUnavailable as exc:
        pytest.skip(f"the base image is not built here: {exc}")
    store, sub = open_store(str(tmp_path / "store")), Submission("docker-no-client", "tester", "oracle", "dev", "2026-12")
    summary, (result,) = evaluate([make_task()], "oracle", sub, store=store, sandbox=box, concurrency=1,
                                  infra_retries=1)
    run = result.run
    assert box.calls == 2, "requeued once, then counted apart"
    assert (run.status, run.end_reason, run.agent_error, run.sandbox) == ("infra_error", "infra:sandbox", False, "docker")
    assert run.infra_error.startswith("sandbox docker could not start the built-in oracle agent (exit 1, "
                                      "before it announced its start): "), run.infra_error
    assert "No module named 'mcpbench'" in run.infra_error
    assert summary.infra_errors == [run.task_id] and summary.failed == summary.passed == 0
    card = scorecard(sub.submission_id, store=store)["overall"]
    assert (card["attempted"], card["infra_errors"]) == (0, 1)
    # The same image, an agent's own program failing the same way: the agent's failure.
    own = _run_one(box.inner, "command:python3 -c 'import mcpbench'")
    assert (own.run.status, own.run.end_reason, own.run.exit_code) == ("failed", "agent_exit", 1)


def _open_unix_sockets() -> int:
    """Unix sockets this process has open, collector or not: each one counted by its socket object."""
    return sum(1 for o in gc.get_objects()
               if isinstance(o, socket.socket) and o.family == socket.AF_UNIX and o.fileno() != -1)


def _engine_proxy(path: str):
    """A real connection to the engine through a socket we can cut: ``socat`` from ``path`` to the engine,
    in a process group of its own. ``socat`` forks one child per connection, so cutting means killing the
    group (``_cut``): the listener and every open connection, the run's attach stream included."""
    return subprocess.Popen(["socat", f"UNIX-LISTEN:{path},fork", "UNIX-CONNECT:/var/run/docker.sock"],
                            stderr=subprocess.DEVNULL, start_new_session=True)


def _cut(proxy: subprocess.Popen) -> None:
    import signal

    with contextlib.suppress(ProcessLookupError):
        os.killpg(proxy.pid, signal.SIGKILL)


def test_the_engine_going_away_mid_run_is_an_infra_engine_error(tmp_path):
    import shutil

    import docker
    from mcpbench.sandbox.docker import DockerSandbox

    open_backend("docker")
    if shutil.which("socat") is None:
        pytest.skip("socat is not installed on the host, so the engine connection cannot be cut")
    path = str(tmp_path / "engine.sock")
    real = DockerSandbox()
    before = _open_unix_sockets()
    proxy = _engine_proxy(path)
    # docker-py leaves a socket open when it cannot connect to the engine that vanished; the sandbox closes
    # such sockets as soon as the call fails (a ResourceWarning then, expected here, not in a later test).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        try:
            for _ in range(100):
                if os.path.exists(path):
                    break
                time.sleep(0.05)
            sandbox = DockerSandbox.__new__(DockerSandbox)
            sandbox.image, sandbox.relay_image = real.image, real.relay_image
            sandbox.client = docker.DockerClient(base_url=f"unix://{path}")
            cut = threading.Timer(3.0, _cut, (proxy,))
            cut.start()
            result = _run_one(sandbox, "command:sleep 60")
            cut.join()
        finally:
            _cut(proxy)
            proxy.wait(timeout=10)
        sandbox.close()
        del sandbox
        # Nothing of the failed run is left to the collector: no socket open, no watcher thread polling.
        assert _open_unix_sockets() <= before
        assert not [t for t in threading.enumerate() if t.name == "docker-pids"]
    assert result.run.status == "infra_error" and result.run.end_reason == "infra:engine", result.run.infra_error
    assert not result.run.agent_error
    # This test's agent (``sleep 60``) and its gateway relay outlived the cut: the harness could not reach
    # the engine to remove them (the next harness's sweep would, once this process is gone). Remove them
    # now, by this process's owner label: no other run of this process is in flight, and other workers'
    # containers carry their own owners.
    from mcpbench.sandbox.docker import OWNER_LABEL, owner

    leftovers = real.client.containers.list(all=True, filters={"label": f"{OWNER_LABEL}={owner()}"})
    assert {c.labels.get("mcpbench.role") for c in leftovers} <= {"agent", "gateway-relay"}
    for container in leftovers:
        container.remove(force=True)
    assert real.client.containers.list(all=True, filters={"label": f"{OWNER_LABEL}={owner()}"}) == []
    real.close()


def _dead_owner_tag() -> str:
    """The owner tag of a process that has exited (one started and waited for here)."""
    import sys

    return subprocess.run([sys.executable, "-c", "from runstore.leftovers import owner_tag; print(owner_tag())"],
                          capture_output=True, text=True, check=True).stdout.strip()


def test_a_new_harness_removes_the_containers_of_dead_harnesses_of_this_host_and_no_others(docker_sandbox):
    """What a harness that lost its engine connection mid-run (or was killed) left is removed by the next
    one; a live owner's containers, another host's, and unlabelled ones stay."""
    from mcpbench.sandbox import docker as backend

    client = docker_sandbox.client
    gone = _dead_owner_tag()
    owners = {"dead": f"{backend._boot_id()}/{gone}", "alive": backend.owner(), "elsewhere": f"another-boot/{gone}",
              "unlabelled": None}
    made = {}
    try:
        for what, owner in owners.items():
            made[what] = client.containers.create(
                image=docker_sandbox.relay_image, command=["true"], network_mode="none",
                name=f"mcpbench-sweep-{what}-{uuid.uuid4().hex[:8]}", labels={backend.OWNER_LABEL: owner} if owner else {})
        open_backend("docker").close()  # a new harness sweeps when it starts
        # every container on the host: the other workers' runs may remove theirs while this lists them
        left = {c.name for c in client.containers.list(all=True, ignore_removed=True)}
        assert made["dead"].name not in left
        assert {made[w].name for w in ("alive", "elsewhere", "unlabelled")} <= left
    finally:
        for container in made.values():
            with contextlib.suppress(Exception):
                container.remove(force=True)


def test_the_sweep_carries_on_past_a_container_removed_while_it_looks(docker_sandbox, monkeypatch):
    """Harnesses share the engine: a container that another harness removes after the sweep listed it and
    before the sweep looked at it is gone, which is what the sweep is for. It is skipped, and the sweep
    goes on to the rest (before, it stopped there and left them behind). The race is made, not waited
    for: the listing is answered, then one of the listed containers is removed on the real engine.

    The containers carry an owner label of this test's own, which this sweep is told to read: a harness
    that another xdist worker starts meanwhile sweeps the real label only, so it cannot take them first
    (it did, and this sweep then found nothing to remove)."""
    from mcpbench.sandbox import docker as backend

    client = docker_sandbox.client
    gone = _dead_owner_tag()
    label = f"{backend.OWNER_LABEL}.test-{uuid.uuid4().hex[:8]}"
    monkeypatch.setattr(backend, "OWNER_LABEL", label)
    made = [client.containers.create(image=docker_sandbox.relay_image, command=["true"], network_mode="none",
                                     name=f"mcpbench-raced-{i}-{uuid.uuid4().hex[:8]}",
                                     labels={label: f"{backend._boot_id()}/{gone}"})
            for i in range(2)]
    listing = client.api.containers

    def listed_then_one_removed(*args, **kwargs):
        found = listing(*args, **kwargs)
        made[0].remove(force=True)  # another harness's sweep, between this listing and the look that follows
        return found

    monkeypatch.setattr(client.api, "containers", listed_then_one_removed)
    try:
        removed = backend.sweep_dead_owners(client)
    finally:
        monkeypatch.undo()
        for container in made:
            with contextlib.suppress(Exception):
                container.remove(force=True)
    assert made[1].name in removed and made[0].name not in removed
    assert not {c.name for c in client.containers.list(all=True, ignore_removed=True)} & {c.name for c in made}


def test_every_container_of_a_run_names_its_owner(tmp_path):
    from mcpbench.sandbox import docker as backend

    boot = backend._boot_id()
    assert backend.owner().startswith(f"{boot}/{os.getpid()}.") and boot != "unknown"
    relay = backend.relay_container_spec(4100, socket_dir=tmp_path, image="relay", name="r")
    agent = backend.agent_container_spec(python_agent("pass"), image="agent", relay_name="r", name="a")
    assert relay["labels"][backend.OWNER_LABEL] == agent["labels"][backend.OWNER_LABEL] == backend.owner()
