"""Choosing a backend by name, refusing what cannot isolate, and the cgroup layer on both hierarchies."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from mcpbench.sandbox import (
    AgentProcess,
    LocalSandbox,
    ResourceLimits,
    Sandbox,
    SandboxUnavailable,
    get_sandbox,
    sandbox_names,
)
from mcpbench.sandbox._cgroup import RunCgroup, detect_version
from mcpbench.sandbox._forwarder_build import compiled_forwarder

from .conftest import python_agent, run_agent


def test_the_three_backends_are_registered_by_name():
    assert sandbox_names() == ["docker", "local", "none"]
    local = get_sandbox("local")
    assert isinstance(local, Sandbox) and local.name == "local" and local.isolates


def test_an_unknown_backend_is_unavailable_with_the_known_names():
    with pytest.raises(SandboxUnavailable, match="known: docker, local, none"):
        get_sandbox("firecracker")


def test_the_unisolated_backend_refuses_unless_isolation_is_waived():
    with pytest.raises(SandboxUnavailable, match="does not isolate.*allow_unisolated=True"):
        get_sandbox("none")


def test_a_waived_unisolated_run_works_and_warns(caplog):
    sandbox = get_sandbox("none", allow_unisolated=True)
    assert sandbox.isolates is False
    with caplog.at_level(logging.WARNING, logger="mcpbench.sandbox.unisolated"):
        outcome = run_agent(sandbox, python_agent("import os; print(os.getcwd() == os.environ['HOME'])", timeout_s=10))
    assert outcome.stdout_tail == "True\n" and outcome.exit_code == 0
    assert outcome.limits_enforced_by == "none"
    assert any("without a sandbox" in record.getMessage() for record in caplog.records)


def test_the_local_backend_without_bubblewrap_is_unavailable_with_a_clear_message():
    with pytest.raises(SandboxUnavailable, match="needs bubblewrap"):
        get_sandbox("local", bwrap="/nonexistent/bwrap")


def test_a_missing_read_only_path_is_reported_before_anything_runs():
    spec = AgentProcess(argv=["/bin/true"], readonly_paths=("/nonexistent/project",), timeout_s=5)
    with pytest.raises(SandboxUnavailable, match="/nonexistent/project"):
        run_agent(LocalSandbox(), spec)


def test_the_bubblewrap_command_unshares_everything_and_drops_all_capabilities(tmp_path, monkeypatch):
    monkeypatch.setenv("MCPBENCH_FORWARDER", "python")
    spec = AgentProcess(argv=["agent"], gateway_port=8123, timeout_s=5)
    argv = LocalSandbox().command(spec, link_dir=tmp_path, etc_dir=tmp_path, sync_fds=(5, 6))
    for flag in ("--unshare-all", "--unshare-user", "--die-with-parent", "--new-session", "--clearenv"):
        assert flag in argv
    assert argv[argv.index("--cap-drop") + 1] == "ALL"
    assert "--share-net" not in argv
    assert argv[-5:] == ["-S", "/run/mcpbench/forwarder.py", "8123:/run/mcpbench/link/8123.sock", "--", "agent"]
    setenv = {argv[i + 1]: argv[i + 2] for i, a in enumerate(argv) if a == "--setenv"}
    assert setenv["MCPBENCH_MCP_URL"] == "http://127.0.0.1:8123/mcp"
    monkeypatch.delenv("MCPBENCH_FORWARDER")
    if compiled_forwarder() is not None:
        argv = LocalSandbox().command(spec, link_dir=tmp_path, etc_dir=tmp_path, sync_fds=(5, 6))
        assert argv[-4:] == ["/run/mcpbench/forwarder", "8123:/run/mcpbench/link/8123.sock", "--", "agent"]


def test_resource_limits_reject_values_that_would_break_the_sandbox():
    with pytest.raises(ValueError, match="pids"):
        ResourceLimits(pids=1)
    with pytest.raises(ValueError, match="memory_mb"):
        ResourceLimits(memory_mb=1)
    with pytest.raises(ValueError, match="argv"):
        AgentProcess(argv=[])


def _fake_v2_root(tmp_path: Path) -> Path:
    root = tmp_path / "cgroup"
    root.mkdir()
    (root / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    (root / "cgroup.subtree_control").write_text("")
    return root


def test_cgroup_v2_is_detected_and_gets_its_limits_written(tmp_path, monkeypatch):
    """On a unified hierarchy the run's group gets memory.max, pids.max and cpu.max (a file tree stands in)."""
    root = _fake_v2_root(tmp_path)
    real_mkdir = Path.mkdir

    def mkdir_with_interface_files(self, *args, **kwargs):
        real_mkdir(self, *args, **kwargs)
        for name in ("cgroup.subtree_control", "cgroup.procs", "memory.swap.max"):
            (self / name).touch()

    monkeypatch.setattr(Path, "mkdir", mkdir_with_interface_files)
    assert detect_version(root) == 2
    group = RunCgroup.create(ResourceLimits(memory_mb=256, pids=64, cpu_cores=0.5), root=root)
    (d,) = group.dirs
    assert d.parent == root / "mcpbench"
    assert (d / "memory.max").read_text() == str(256 * 1024 * 1024)
    assert (d / "memory.swap.max").read_text() == "0"
    assert (d / "pids.max").read_text() == "64"
    assert (d / "cpu.max").read_text() == "50000 100000"
    assert (root / "cgroup.subtree_control").read_text() == "+cpu +memory +pids"
    assert group.label == "cgroup-v2"


def test_no_cgroup_hierarchy_is_detected_as_none(tmp_path):
    assert detect_version(tmp_path) is None


@pytest.mark.skipif(detect_version() != 1, reason="this machine has no cgroup v1 hierarchy")
def test_cgroup_v1_groups_carry_the_limits_and_are_removed():
    group = RunCgroup.create(ResourceLimits(memory_mb=128, pids=40, cpu_cores=0.25))
    try:
        memory, pids, cpu = group.dirs
        assert int((memory / "memory.limit_in_bytes").read_text()) == 128 * 1024 * 1024
        assert (pids / "pids.max").read_text().strip() == "40"
        assert (cpu / "cpu.cfs_quota_us").read_text().strip() == "25000"
        assert group.pids() == []
    finally:
        group.remove()
    assert not any(d.exists() for d in group.dirs)


def test_a_cgroup_the_sandbox_cannot_join_is_unavailable_not_an_agent_failure(tmp_path, monkeypatch):
    vanished = RunCgroup(1, [tmp_path / "memory-gone", tmp_path / "pids-gone", tmp_path / "cpu-gone"])
    monkeypatch.setattr(RunCgroup, "create", lambda *args, **kwargs: vanished)
    with pytest.raises(SandboxUnavailable, match="cannot join cgroup .*memory-gone"):
        run_agent(LocalSandbox(), python_agent("print('agent ran')", timeout_s=10))
