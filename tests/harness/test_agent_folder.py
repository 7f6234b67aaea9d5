"""A submitter's command line never chooses what the sandbox shows: a ``command:`` agent reads its
program's own folder (or the one the operator declares) and nothing else, and a folder at, under or above
the host's live state, shared scratch, a home, the store or the warehouse is refused before any run
starts, under every backend. Found as a hostile submitter: ``command:`` arguments naming ``/proc/1`` got
the host's ``/proc`` bound into the docker container (other submissions' live goals), and under ``local``
any argument's folder was made readable (a canary under a 0700 folder, the store)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcpbench.agents.spec import BASELINE_CLIENT, AgentJob, AgentSpecError, check_agent_reads, parse_agent
from mcpbench.cli import main
from mcpbench.evaluation import operator_paths
from mcpbench.sandbox import AgentProcess, SandboxUnavailable, get_sandbox
from mcpbench.sandbox.paths import AGENT_DIR_ENV, folder_refusal
from runstore.store import open_store
from tests.harness.conftest import run

TASK = "pg-ship-order-1042"


def _refused(spec: str, *needles: str) -> str:
    with pytest.raises(AgentSpecError) as caught:
        parse_agent(spec)
    message = str(caught.value)
    for needle in needles:
        assert needle in message, message
    return message


@pytest.mark.parametrize(("spec", "root"), [
    ("command:cat /proc/1/status", "/proc"),
    ("command:python3 /proc/self/status", "/proc"),
    ("command:sh /sys/kernel/notes", "/sys"),
    ("command:sh /etc/passwd", "/etc"),
    ("command:python3 /", "root folder"),
])
def test_an_argument_naming_the_hosts_live_state_is_refused_with_the_rule(spec, root, monkeypatch):
    if not Path(spec.split()[-1]).exists():
        pytest.skip(f"{spec.split()[-1]} does not exist on this host")
    message = _refused(spec, root, "--agent", "its program's own folder", AGENT_DIR_ENV)
    assert message.startswith(f"--agent {spec!r}")


def test_a_program_under_tmp_a_home_or_a_private_folder_is_refused(tmp_path, agent_dir, monkeypatch):
    scratch = tmp_path / "agent.py"  # tmp_path lies under /tmp
    scratch.write_text("")
    _refused(f"command:python3 {scratch}", "under /tmp")
    home = agent_dir / "home"
    (home / "agent").mkdir(parents=True)
    (home / "agent" / "run.py").write_text("")
    monkeypatch.setenv("HOME", str(home))
    _refused(f"command:python3 {home}/agent/run.py", "the harness's home")
    monkeypatch.undo()
    secret = agent_dir / "private"
    (secret / "agent").mkdir(parents=True)
    (secret / "agent" / "run.py").write_text("")
    (secret / "agent").chmod(0o755)
    secret.chmod(0o700)
    _refused(f"command:python3 {secret}/agent/run.py", "other users may not enter", str(secret))
    secret.chmod(0o755)
    assert parse_agent(f"command:python3 {secret}/agent/run.py").folder == str(secret / "agent")
    (secret / "agent").chmod(0o700)
    _refused(f"command:python3 {secret}/agent/run.py", "not readable by other users")


def test_a_link_to_a_forbidden_place_is_judged_where_it_leads(agent_dir):
    (agent_dir / "agent.py").symlink_to("/proc/self/status")
    _refused(f"command:python3 {agent_dir}/agent.py", "/proc")


def test_arguments_outside_the_agents_folder_are_refused_and_the_sandboxes_own_paths_left_alone(agent_dir,
                                                                                               monkeypatch):
    (agent_dir / "agent").mkdir()
    (agent_dir / "agent" / "run.py").write_text("")
    (agent_dir / "agent" / "conf.json").write_text("{}")
    (agent_dir / "data.csv").write_text("")
    monkeypatch.chdir(agent_dir)
    agent = parse_agent("command:python3 agent/run.py --conf agent/conf.json --log /dev/stderr --out /tmp")
    assert agent.folder == str(agent_dir.resolve() / "agent")
    assert agent.argv == ("python3", str(agent_dir.resolve() / "agent/run.py"), "--conf",
                          str(agent_dir.resolve() / "agent/conf.json"), "--log", "/dev/stderr", "--out", "/tmp")
    _refused("command:python3 agent/run.py data.csv", "data.csv", "outside the agent's folder")
    _refused(f"command:python3 agent/run.py --in {agent_dir}/data.csv", "outside the agent's folder")


def test_the_agents_folder_may_not_hold_or_lie_in_the_store_or_the_warehouse(agent_dir, monkeypatch):
    (agent_dir / "agent.py").write_text("")
    store = open_store(str(agent_dir / "store"))
    above = parse_agent(f"command:python3 {agent_dir}/agent.py")  # the folder holds the store
    with pytest.raises(AgentSpecError, match=r"is above .*store \(the store\)"):
        check_agent_reads(above, operator_paths(store))
    with pytest.raises(AgentSpecError, match=r"\(the warehouse\)"):
        check_agent_reads(above, operator_paths(open_store(str(agent_dir.parent / "elsewhere")),
                                               agent_dir / "warehouse.duckdb"))
    (agent_dir / "store" / "agent").mkdir(parents=True)
    (agent_dir / "store" / "agent" / "run.py").write_text("")
    inside = parse_agent(f"command:python3 {agent_dir}/store/agent/run.py")
    with pytest.raises(AgentSpecError, match=r"is under .*store \(the store\)"):
        check_agent_reads(inside, operator_paths(store))
    (agent_dir / "own").mkdir()
    (agent_dir / "own" / "run.py").write_text("")
    check_agent_reads(parse_agent(f"command:python3 {agent_dir}/own/run.py"), operator_paths(store))


def test_the_operator_may_declare_a_folder_for_submissions(tmp_path, agent_dir, monkeypatch):
    (tmp_path / "subs" / "team-a").mkdir(parents=True)
    (tmp_path / "subs" / "team-a" / "run.py").write_text("")
    (tmp_path / "subs").chmod(0o755)
    (agent_dir / "other.py").write_text("")
    monkeypatch.setenv(AGENT_DIR_ENV, str(tmp_path / "subs"))
    agent = parse_agent(f"command:python3 {tmp_path}/subs/team-a/run.py")  # under /tmp: the operator's choice
    assert agent.folder == str((tmp_path / "subs").resolve()) and agent.folder_declared
    _refused(f"command:python3 {agent_dir}/other.py", "outside the folder the operator declared")
    store = open_store(str(tmp_path / "subs" / "store"))
    with pytest.raises(AgentSpecError, match=r"\(the store\)"):
        check_agent_reads(agent, operator_paths(store))
    for bad in ("/", "/proc", "/var"):  # the root; the live state; above /var/tmp
        monkeypatch.setenv(AGENT_DIR_ENV, bad)
        assert folder_refusal(bad, declared=True) is not None
        with pytest.raises(AgentSpecError):
            parse_agent("command:python3 run.py")


def test_a_builtin_baseline_reads_only_our_client(dev_tasks):
    oracle = parse_agent("oracle")
    assert oracle.folder is None
    task = next(t for t in dev_tasks if t.id == TASK)
    job = AgentJob(task=task, run_id="r", mcp_url="http://127.0.0.1:1/mcp", deadline=0.0, seed="s")
    assert oracle.process(job, 1234).readonly_paths == (str(BASELINE_CLIENT),)


@pytest.mark.parametrize("spec", ["command:cat /proc/1/status", "command:python3 {tmp}/agent.py",
                                  "command:python3 {private}/agent/run.py", "command:python3 {dir}/agent.py"])
def test_run_refuses_such_an_agent_before_any_run_under_every_backend(spec, backend, tmp_path, agent_dir):
    (tmp_path / "agent.py").write_text("")
    (agent_dir / "agent.py").write_text("")  # its folder holds the store below
    private = agent_dir / "private"
    (private / "agent").mkdir(parents=True)
    (private / "agent" / "run.py").write_text("")
    private.chmod(0o700)
    spec = spec.format(tmp=tmp_path, private=private, dir=agent_dir)
    store = agent_dir / "store"
    result = CliRunner().invoke(main, ["run", "--agent", spec, "--sandbox", backend, "--tasks", TASK,
                                       "--store", str(store)])
    assert result.exit_code == 2, result.output
    assert "Invalid value for --agent" in result.output and AGENT_DIR_ENV in result.output
    assert not (store / "runs").exists() and not (store / "index").exists()  # nothing ran, nothing landed


PROBE = r'''
import json, os, sys
here = os.path.dirname(os.path.abspath(__file__))
seen = {}
with open(os.path.join(here, "targets.json")) as f:
    targets = json.load(f)
for name, path in targets.items():
    try:
        with open(path) as f:
            seen[name] = f.read()
    except OSError as exc:
        seen[name] = type(exc).__name__
seen["listed"] = sorted(os.listdir(here))
seen["pids"] = len([p for p in os.listdir("/proc") if p.isdigit()])
print("SEEN " + json.dumps(seen), file=sys.stderr)
'''


def test_the_agent_reads_its_own_folder_and_nothing_beside_it(backend, agent_dir, dev_tasks, monkeypatch):
    own = agent_dir / "agent"
    own.mkdir()
    targets = {"own": str(own / "notes.txt"), "canary": str(agent_dir / "canary.txt"),
               "checkout": str(Path(__file__).resolve())}
    (own / "probe.py").write_text(PROBE)
    (own / "notes.txt").write_text("mine")
    (own / "targets.json").write_text(json.dumps(targets))
    (agent_dir / "canary.txt").write_text("CANARY")
    for path in (*own.iterdir(), agent_dir / "canary.txt"):
        path.chmod(0o644)
    monkeypatch.chdir(agent_dir)
    agent = parse_agent("command:python3 agent/probe.py")
    task = next(t for t in dev_tasks if t.id == TASK)
    (result,) = run([task], agent, sandbox=backend)
    assert result.outcome is not None, result.run.infra_error
    line = next(line for line in result.outcome.stderr_tail.splitlines() if line.startswith("SEEN "))
    seen = json.loads(line.removeprefix("SEEN "))
    assert seen["own"] == "mine" and seen["listed"] == ["notes.txt", "probe.py", "targets.json"]
    assert seen["canary"] == "FileNotFoundError" and seen["checkout"] == "FileNotFoundError"
    assert seen["pids"] < 10, seen  # its own pid namespace: a few processes, never the host's


@pytest.mark.parametrize("path", ["/proc", "/proc/1", "/sys", "/run", "/etc", "/", "missing"])
def test_no_backend_mounts_the_hosts_live_state_or_a_missing_path(path, backend, agent_dir):
    import anyio

    if path == "missing":  # the Docker engine creates a missing bind source on the host, as root
        path = str(agent_dir / "missing" / "agent-code")
    box = get_sandbox(backend)
    spec = AgentProcess(argv=["/bin/true"], readonly_paths=(path,), timeout_s=30)
    with pytest.raises(SandboxUnavailable, match=r"is refused: .*(live state|root folder|does not exist)"):
        anyio.run(box.run, spec)
    assert not (agent_dir / "missing").exists()


def test_a_folder_swapped_for_a_link_after_parsing_is_refused_as_the_run_starts(agent_dir, tmp_path, dev_tasks):
    (agent_dir / "agent").mkdir()
    (agent_dir / "agent" / "run.py").write_text("")
    agent = parse_agent(f"command:python3 {agent_dir}/agent/run.py")
    (agent_dir / "agent" / "run.py").unlink()
    (agent_dir / "agent").rmdir()
    os.symlink(tmp_path, agent_dir / "agent")  # now it leads under /tmp
    task = next(t for t in dev_tasks if t.id == TASK)
    job = AgentJob(task=task, run_id="r", mcp_url="http://127.0.0.1:1/mcp", deadline=0.0, seed="s")
    with pytest.raises(SandboxUnavailable, match="under /tmp"):
        agent.process(job, 1234)
