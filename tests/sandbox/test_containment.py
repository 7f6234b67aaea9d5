"""A hostile agent in the ``local`` sandbox cannot change the host: kernel settings, user namespaces,
its uid, its disk; and an oversized request or a second endpoint do not break the forwarder."""

from __future__ import annotations

import asyncio
import json
import os
import secrets

import pytest

from mcpbench.sandbox import ResourceLimits, get_sandbox

from .conftest import PYTHON, processes_with_marker, python_agent, run_agent

TRY_HOST_WRITES = r"""
import json, os, subprocess

def write_same(path):
    # Writes the value already there: harmless if it got through, and it reaches the kernel if allowed.
    try:
        with open(path) as f:
            value = f.read()
        with open(path, "w") as f:
            f.write(value)
        return "written"
    except OSError as exc:
        return f"refused: {exc.strerror}"

def open_for_writing(path):
    # Opening is enough to prove access; writing to sysrq-trigger would act on the host.
    try:
        os.close(os.open(path, os.O_WRONLY))
        return "writable"
    except OSError as exc:
        return f"refused: {exc.strerror}"

def run(argv):
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=10)
        return "ran" if done.returncode == 0 else f"refused: {done.stderr.strip()[-200:]}"
    except OSError as exc:
        return f"refused: {exc.strerror}"

print(json.dumps({
    "core_pattern": write_same("/proc/sys/kernel/core_pattern"),
    "printk_ratelimit": write_same("/proc/sys/kernel/printk_ratelimit"),
    "sysrq-trigger": open_for_writing("/proc/sysrq-trigger"),
    "sys uevent_helper": write_same("/sys/kernel/uevent_helper"),
    "sys cgroup release_agent": write_same("/sys/fs/cgroup/memory/release_agent"),
    "max_user_namespaces": write_same("/proc/sys/user/max_user_namespaces"),
    "unshare -U": run(["unshare", "-U", "true"]),
    "unshare -Ur": run(["unshare", "-Ur", "true"]),
    "nested bwrap": run(["bwrap", "--unshare-user", "--ro-bind", "/", "/", "true"]),
    "uid": os.getuid(),
    "uid_map": open("/proc/self/uid_map").read().split(),
}))
"""


def test_the_agent_can_write_no_host_kernel_setting_and_make_no_user_namespace():
    outcome = run_agent(get_sandbox("local"), python_agent(TRY_HOST_WRITES, timeout_s=30))
    assert outcome.exit_code == 0, outcome.stderr_tail
    report = json.loads(outcome.stdout_tail)
    for attempt in ("core_pattern", "printk_ratelimit", "sysrq-trigger", "sys uevent_helper",
                    "sys cgroup release_agent", "max_user_namespaces", "unshare -U", "unshare -Ur", "nested bwrap"):
        assert report[attempt].startswith("refused"), (attempt, report[attempt])
    assert report["uid"] != 0


def test_the_sysrq_trigger_is_read_only_where_the_host_has_one():
    if not os.path.exists("/proc/sysrq-trigger"):
        pytest.skip("this kernel has no /proc/sysrq-trigger (CONFIG_MAGIC_SYSRQ is off)")
    outcome = run_agent(get_sandbox("local"), python_agent(TRY_HOST_WRITES, timeout_s=30))
    assert json.loads(outcome.stdout_tail)["sysrq-trigger"].startswith("refused")


def test_the_agent_runs_as_an_unprivileged_host_uid():
    marker = f"mcpbench-uid-{secrets.token_hex(4)}"
    source = "import sys, time; print('ready', flush=True); time.sleep(30)"
    spec = python_agent(source, marker, timeout_s=30)

    async def look_while_it_runs() -> list[list[int]]:
        run = asyncio.ensure_future(get_sandbox("local").run(spec))
        try:
            async with asyncio.timeout(20):
                while not (pids := [p for p in processes_with_marker(marker) if _argv0(p) == PYTHON]):
                    await asyncio.sleep(0.05)
            return [_host_uids(pid) for pid in pids]
        finally:
            run.cancel()
            await asyncio.gather(run, return_exceptions=True)

    seen = asyncio.run(look_while_it_runs())
    # real, effective, saved and filesystem uid: none of them host root
    assert seen and all(0 not in uids for uids in seen), seen
    assert processes_with_marker(marker) == []


def _argv0(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().split(b"\0")[0].decode()
    except OSError:
        return None


def _host_uids(pid: int) -> list[int]:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("Uid:"):
                return [int(x) for x in line.split()[1:]]
    raise AssertionError(f"no Uid line for pid {pid}")


FILL_DISK = r"""
import os, sys
written = 0
try:
    for i in range(3):
        with open(os.path.join(sys.argv[1], f"fill-{i}.bin"), "wb") as f:
            block = b"x" * (1 << 20)
            for _ in range(512):
                f.write(block)
                written += len(block)
except OSError as exc:
    print(written >> 20, exc.strerror, flush=True)
    raise SystemExit(1)
print(written >> 20, "all written", flush=True)
"""


@pytest.mark.parametrize("where", ["/home/agent", "/tmp", "/dev/shm"])
def test_three_files_of_512_mib_do_not_fit_the_agent_disk(where):
    limits = ResourceLimits(disk_mb=64, memory_mb=512)
    outcome = run_agent(get_sandbox("local"), python_agent(FILL_DISK, where, timeout_s=60, limits=limits))
    megabytes, _, why = outcome.stdout_tail.strip().partition(" ")
    assert outcome.exit_code == 1 and why == "No space left on device", outcome.stdout_tail + outcome.stderr_tail
    assert int(megabytes) <= 64
    assert not outcome.oom, "the disk bound, not the memory limit, must stop it"


SECOND_ENDPOINT = r"""
import socket, sys, urllib.request
gateway, extra, closed = (int(a) for a in sys.argv[1:4])
for port in (gateway, extra):
    print(urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10).read().decode())
try:
    socket.create_connection(("127.0.0.1", closed), timeout=5)
    print("closed port reached")
except OSError as exc:
    print("closed port refused")
"""


@pytest.mark.parametrize("forwarder", ["compiled", "python"])
def test_extra_ports_are_reachable_at_their_own_address_and_no_other_port_is(
        forwarder, gateway_port, second_endpoint, host_listeners, monkeypatch):
    if forwarder == "python":
        monkeypatch.setenv("MCPBENCH_FORWARDER", "python")
    listening_elsewhere = host_listeners["tcp4"][1]  # open on the host, so only the sandbox can refuse it
    spec = python_agent(SECOND_ENDPOINT, str(gateway_port), str(second_endpoint), str(listening_elsewhere),
                        gateway_port=gateway_port, extra_ports=(second_endpoint,), timeout_s=30)
    outcome = run_agent(get_sandbox("local"), spec)
    assert outcome.exit_code == 0, outcome.stderr_tail
    assert outcome.stdout_tail.splitlines() == ["gateway says hello", "model gateway here", "closed port refused"]


OVERSIZED_THEN_NORMAL = r"""
import socket, sys, urllib.request
port = int(sys.argv[1])
s = socket.create_connection(("127.0.0.1", port), timeout=20)
body = b"x" * (20 << 20)
try:
    s.sendall(b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
    answer = s.recv(100)
    print("oversized:", answer.split(b"\r\n")[0].decode() or "connection closed")
except OSError as exc:
    print("oversized: connection closed", type(exc).__name__)
s.close()
print("then:", urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10).read().decode())
"""


@pytest.mark.parametrize("forwarder", ["compiled", "python"])
def test_a_20_mib_request_is_refused_and_the_next_call_still_gets_through(
        forwarder, size_limited_gateway, monkeypatch):
    if forwarder == "python":
        monkeypatch.setenv("MCPBENCH_FORWARDER", "python")
    spec = python_agent(OVERSIZED_THEN_NORMAL, str(size_limited_gateway), gateway_port=size_limited_gateway,
                        timeout_s=30)
    outcome = run_agent(get_sandbox("local"), spec)
    assert outcome.exit_code == 0, outcome.stderr_tail
    first, then = outcome.stdout_tail.splitlines()[-2:]
    assert first.startswith(("oversized: HTTP/1.1 413", "oversized: connection closed")), first
    assert then == "then: gateway says hello"


def test_limits_reject_a_disk_too_small_for_anything():
    with pytest.raises(ValueError, match="disk_mb"):
        ResourceLimits(disk_mb=1)

