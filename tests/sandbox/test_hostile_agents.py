"""Agents that hang, crash, fork, hog memory or flood their output end, bounded, and leave nothing behind."""

from __future__ import annotations

import secrets

import pytest

from mcpbench.sandbox import ResourceLimits, _cgroup, _gateway_link, get_sandbox

from .conftest import processes_with_marker, python_agent, run_agent


@pytest.fixture
def created_cgroups(monkeypatch) -> list:
    """Every RunCgroup the sandbox creates during the test, to check that each is gone afterwards."""
    created = []
    original = _cgroup.RunCgroup.create.__func__

    def spy(cls, *args, **kwargs):
        group = original(cls, *args, **kwargs)
        created.append(group)
        return group

    monkeypatch.setattr(_cgroup.RunCgroup, "create", classmethod(spy))
    return created


def test_a_hanging_agent_is_killed_at_its_deadline(created_cgroups, backend):
    marker = f"mcpbench-hang-{secrets.token_hex(4)}"
    source = (
        "import subprocess, time\n"
        f"subprocess.Popen(['sleep', '1000', '{marker}'])\n"
        f"subprocess.Popen(['setsid', 'sleep', '1000', '{marker}'])\n"
        "print('spawned', flush=True)\n"
        "time.sleep(1000)\n"
    )
    outcome = run_agent(backend, python_agent(source, marker, timeout_s=1.5))
    assert outcome.timed_out and outcome.killed_reason == "timeout"
    assert outcome.exit_code is None
    assert outcome.stdout_tail == "spawned\n"
    assert processes_with_marker(marker) == []
    if backend.name == "local":
        assert created_cgroups and all(not d.exists() for group in created_cgroups for d in group.dirs)


def test_background_children_do_not_outlive_an_agent_that_exits(created_cgroups):
    marker = f"mcpbench-orphan-{secrets.token_hex(4)}"
    source = f"import subprocess; subprocess.Popen(['setsid', 'sleep', '1000', '{marker}'], start_new_session=True)"
    outcome = run_agent(get_sandbox("local"), python_agent(source, marker, timeout_s=10))
    assert outcome.exit_code == 0 and not outcome.timed_out
    assert processes_with_marker(marker) == []
    assert all(not d.exists() for group in created_cgroups for d in group.dirs)


def test_a_crashing_agent_reports_its_exit_status(backend):
    sandbox = backend
    exited = run_agent(sandbox, python_agent("raise SystemExit(7)", timeout_s=10))
    assert exited.exit_code == 7 and exited.killed_reason is None
    segfault = run_agent(sandbox, python_agent("import ctypes; ctypes.string_at(0)", timeout_s=10))
    assert segfault.exit_code not in (0, None)
    assert not segfault.timed_out


def test_a_fork_bomb_is_bounded_by_the_pids_limit(created_cgroups, backend):
    marker = f"mcpbench-forkbomb-{secrets.token_hex(4)}"
    source = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    spec = python_agent(source, marker, timeout_s=2, limits=ResourceLimits(pids=32, cpu_cores=0.5))
    outcome = run_agent(backend, spec)
    assert outcome.pids_limited
    assert outcome.timed_out
    assert processes_with_marker(marker) == []
    assert all(not d.exists() for group in created_cgroups for d in group.dirs)


def test_a_memory_hog_is_killed_by_the_memory_limit(backend):
    source = "chunks = []\nwhile True:\n    chunks.append(bytearray(8 << 20))\n"
    spec = python_agent(source, timeout_s=20, limits=ResourceLimits(memory_mb=64))
    outcome = run_agent(backend, spec)
    assert outcome.oom
    assert outcome.killed_reason == "memory limit"
    assert outcome.exit_code != 0 and not outcome.timed_out


def test_a_flood_of_output_keeps_only_a_bounded_tail(backend):
    source = (
        "import sys\n"
        "block = b'x' * (1 << 20)\n"
        "for _ in range(100):\n    sys.stdout.buffer.write(block)\n"
        "sys.stdout.buffer.write(b'END')\n"
        "sys.stderr.write('e' * 10000 + 'DONE')\n"
    )
    outcome = run_agent(backend, python_agent(source, timeout_s=30))
    assert outcome.exit_code == 0
    assert outcome.stdout_bytes == 100 * (1 << 20) + 3
    assert outcome.stdout_tail.endswith("xxxEND") and len(outcome.stdout_tail) == 4096
    assert outcome.stderr_bytes == 10004 and outcome.stderr_tail.endswith("eeeDONE")
    assert len(outcome.stderr_tail) == 4096


def test_without_cgroups_the_limits_fall_back_to_rlimits_and_say_so(monkeypatch):
    def no_cgroups(*args, **kwargs):
        raise _cgroup.CgroupError("cgroups switched off for this test")

    monkeypatch.setattr(_cgroup.RunCgroup, "create", no_cgroups)
    source = "chunks = []\nwhile True:\n    chunks.append(bytearray(8 << 20))\n"
    spec = python_agent(source, timeout_s=20, limits=ResourceLimits(memory_mb=128))
    outcome = run_agent(get_sandbox("local"), spec)
    assert outcome.limits_enforced_by == "rlimit"
    assert any("cgroups unavailable" in note for note in outcome.notes)
    assert outcome.exit_code != 0 and "MemoryError" in outcome.stderr_tail


def test_a_sandbox_that_requires_cgroups_refuses_without_them(monkeypatch):
    from mcpbench.sandbox import SandboxUnavailable

    def no_cgroups(*args, **kwargs):
        raise _cgroup.CgroupError("cgroups switched off for this test")

    monkeypatch.setattr(_cgroup.RunCgroup, "create", no_cgroups)
    with pytest.raises(SandboxUnavailable, match="cannot create a cgroup"):
        run_agent(get_sandbox("local", require_cgroups=True), python_agent("pass", timeout_s=5))


def test_the_unisolated_backend_also_kills_a_hanging_process_group():
    marker = f"mcpbench-none-hang-{secrets.token_hex(4)}"
    source = f"import subprocess, time\nsubprocess.Popen(['sleep', '1000', '{marker}'])\ntime.sleep(1000)\n"
    outcome = run_agent(get_sandbox("none", allow_unisolated=True), python_agent(source, marker, timeout_s=1))
    assert outcome.timed_out and outcome.killed_reason == "timeout"
    assert processes_with_marker(marker) == []


HOLD_CONNECTIONS = """
import socket, sys, time
held = [socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10) for _ in range(int(sys.argv[2]))]
print("holding", len(held), flush=True)
time.sleep(600)
"""


def test_the_run_holding_the_most_when_the_harness_budget_is_spent_ends_as_a_connection_limit(
        backend, gateway_port, monkeypatch):
    """Through the forwarder or the relay, each of which caps a run below what one link may hold: only
    the budget across runs (here made small) can end it."""
    budget = _gateway_link.HANDFUL + 4
    monkeypatch.setattr(_gateway_link, "connection_budget", lambda soft=None: budget)
    spec = python_agent(HOLD_CONNECTIONS, str(gateway_port), "40", gateway_port=gateway_port, timeout_s=60)
    outcome = run_agent(backend, spec)
    assert outcome.killed_reason == "connection limit", (outcome.killed_reason, outcome.stderr_tail)
    assert outcome.exit_code is None and not outcome.timed_out
    assert any(f"the {budget} the harness allows across all runs were spent" in note for note in outcome.notes)
