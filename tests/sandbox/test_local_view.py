"""What a sandboxed agent can see and write, what it inherits, and that runs can share one event loop."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from mcpbench.sandbox import AgentProcess, SandboxUnavailable, get_sandbox

from .conftest import python_agent, run_agent

PROJECT_DIR = str(Path(__file__).resolve().parents[2])

LOOK_AROUND = """
import json, os, sys
project, host_file = sys.argv[1], sys.argv[2]
def try_write(path):
    try:
        with open(path, "w") as f:
            f.write("x")
        return "written"
    except OSError as exc:
        return type(exc).__name__
report = {
    "project readable": os.path.exists(os.path.join(project, "pyproject.toml")),
    "project write": try_write(os.path.join(project, "sandbox-was-here")),
    "usr write": try_write("/usr/sandbox-was-here"),
    "home write": try_write(os.path.join(os.environ["HOME"], "notes.txt")),
    "tmp write": try_write("/tmp/scratch"),
    "cwd is home": os.getcwd() == os.environ["HOME"],
    "root entries": sorted(os.listdir("/root")),
    "host file visible": os.path.exists(host_file),
    "shared dir visible": os.path.exists("/work/shared"),
    "secret in env": "MCPBENCH_TEST_SECRET" in os.environ,
    "uid": os.getuid(),
    "capabilities": [l.split()[1] for l in open("/proc/self/status") if l.startswith("CapEff")],
    "visible pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
}
print(json.dumps(report))
"""


def test_the_agent_sees_a_read_only_system_and_writes_only_its_own_directories(monkeypatch):
    monkeypatch.setenv("MCPBENCH_TEST_SECRET", "must-not-leak")
    with tempfile.NamedTemporaryFile(prefix="mcpbench-host-") as host_file:
        spec = python_agent(LOOK_AROUND, PROJECT_DIR, host_file.name, readonly_paths=(PROJECT_DIR,), timeout_s=20)
        outcome = run_agent(get_sandbox("local"), spec)
    assert outcome.exit_code == 0, outcome.stderr_tail
    report = json.loads(outcome.stdout_tail)
    assert report["project readable"] is True
    assert report["project write"] == "OSError"  # EROFS
    assert report["usr write"] == "OSError"
    assert report["home write"] == "written" and report["tmp write"] == "written"
    assert report["cwd is home"] is True
    assert set(report["root entries"]) <= {".pyenv"}  # only the bound Python installation, if it lives there
    assert report["host file visible"] is False
    assert report["shared dir visible"] is False
    assert report["secret in env"] is False
    assert report["capabilities"] == ["0000000000000000"]
    assert len(report["visible pids"]) <= 3  # bwrap's init, the agent, the forwarder at most
    assert not os.path.exists(os.path.join(PROJECT_DIR, "sandbox-was-here"))


def test_the_private_home_is_deleted_after_the_run(monkeypatch):
    made: list[str] = []
    real_mkdtemp = tempfile.mkdtemp

    def recording_mkdtemp(*args, **kwargs):
        made.append(real_mkdtemp(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(tempfile, "mkdtemp", recording_mkdtemp)
    source = "import os; open('left-behind.txt', 'w').write('x'); print(os.listdir('.'))"
    outcome = run_agent(get_sandbox("local"), python_agent(source, timeout_s=10))
    assert outcome.stdout_tail == "['left-behind.txt']\n"
    assert made and not any(os.path.exists(path) for path in made)


def test_stdin_and_environment_reach_the_agent():
    source = "import os, sys; print(sys.stdin.read().upper(), os.environ['TASK_BUDGET'])"
    spec = python_agent(source, stdin="the goal", env={"TASK_BUDGET": "12"}, timeout_s=10)
    outcome = run_agent(get_sandbox("local"), spec)
    assert outcome.stdout_tail == "THE GOAL 12\n"


def test_a_missing_program_is_a_failed_run_not_a_harness_error():
    outcome = run_agent(get_sandbox("local"), AgentProcess(argv=["/no/such/agent"], timeout_s=10))
    assert outcome.exit_code not in (0, None)
    assert "/no/such/agent" in outcome.stderr_tail


def test_four_sandboxes_run_at_once_in_one_event_loop(gateway_port):
    source = (
        "import os, sys, urllib.request, time\n"
        "body = urllib.request.urlopen(os.environ['MCPBENCH_MCP_URL'], timeout=5).read().decode()\n"
        "print(sys.argv[1], body)\n"
    )
    sandbox = get_sandbox("local")

    async def all_four():
        specs = [python_agent(source, f"agent-{i}", gateway_port=gateway_port, timeout_s=20) for i in range(4)]
        return await asyncio.wait_for(asyncio.gather(*(sandbox.run(s) for s in specs)), 60)

    outcomes = asyncio.run(all_four())
    assert [o.stdout_tail for o in outcomes] == [f"agent-{i} gateway says hello\n" for i in range(4)]
    assert all(o.exit_code == 0 for o in outcomes)


def test_a_read_only_path_under_tmp_stays_visible_beside_the_private_tmp():
    # CI may check the project out under /tmp: the private tmpfs must not hide it.
    shared = Path(tempfile.mkdtemp(dir="/tmp", prefix="mcpbench-ro-"))
    try:
        shared.chmod(0o755)  # the agent is not root: what it reads must be readable by others
        (shared / "agent_data.txt").write_text("visible")
        source = f"print(open({str(shared / 'agent_data.txt')!r}).read()); open('/tmp/own.txt', 'w').write('x')"
        spec = python_agent(source, timeout_s=10, readonly_paths=(str(shared),))
        outcome = run_agent(get_sandbox("local"), spec)
        assert outcome.exit_code == 0, outcome.stderr_tail
        assert outcome.stdout_tail == "visible\n"
        assert not (Path("/tmp") / "own.txt").exists()
    finally:
        shutil.rmtree(shared)


def test_a_read_only_path_only_root_can_read_is_refused_by_name(tmp_path):
    private = tmp_path / "root-only"
    private.mkdir(mode=0o700)
    spec = python_agent("pass", timeout_s=10, readonly_paths=(str(private),))
    with pytest.raises(SandboxUnavailable, match="root-only.*not readable"):
        run_agent(get_sandbox("local"), spec)
