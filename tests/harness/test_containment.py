"""Containment seen from the harness: one run's connection flood or disk fill is that run's failure,
and the runs beside it pass."""

import json
import re
import socket
import subprocess
import sys
import textwrap

from mcpbench.agents.spec import PROJECT_ROOT, ProcessAgent
from mcpbench.sandbox import ResourceLimits, _gateway_link, connection_budget
from mcpbench.sandbox._gateway_link import MAX_CONNECTIONS
from tests.harness.conftest import AGENTS, run, script_agent

#: What each flooder holds before it goes on: fewer than one link may hold, but three of them more
#: than the budget under a limit of 1024 handles, and more handles than that limit has.
FLOOD_PAUSE = 120


def test_a_flood_of_link_connections_ends_only_its_own_run(dev_tasks):
    flooded, other = dev_tasks[0].model_copy(update={"timeout_s": 60.0}), dev_tasks[1]
    agent = ProcessAgent("command:link_flood", (sys.executable, "-S", str(AGENTS / "link_flood.py")),
                         baseline="oracle", readonly_paths=(str(PROJECT_ROOT),),
                         extra_env=(("MCPBENCH_FLOOD_TASK", flooded.id),))
    landed = []
    results = {r.run.task_id: r for r in run([flooded, other], agent, concurrency=2, landed=landed)}
    bad, good = results[flooded.id], results[other.id]
    assert bad.run.status == "failed" and bad.run.agent_error and not bad.run.timed_out
    assert bad.outcome.killed_reason == "connection limit" and bad.run.end_reason == "agent_exit"
    assert bad.run.end_reason_detail == "connection limit"
    assert "flooding" in bad.outcome.stdout_tail
    assert good.run.passed, good.outcome.stderr_tail
    assert len(landed) == 2


def test_a_run_ended_for_holding_too_many_connections_records_the_connection_limit(dev_tasks, backend,
                                                                                  monkeypatch):
    """Through the forwarder (local) or the relay (docker), up to 40 connections held at once: with the
    budget across runs made small, the link holding the most is ended, and the record says why."""
    monkeypatch.setattr(_gateway_link, "connection_budget", lambda soft=None: _gateway_link.HANDFUL + 4)
    task = dev_tasks[0].model_copy(update={"timeout_s": 60.0})
    (result,) = run([task], script_agent("hold_connections"), sandbox=backend)
    assert result.run.status == "failed" and not result.run.timed_out, result.outcome.stderr_tail
    assert result.run.end_reason == "agent_exit" and result.run.end_reason_detail == "connection limit"
    assert any("across all runs were spent" in note for note in result.outcome.notes), result.outcome.notes


def test_filling_the_disk_is_refused_and_is_the_agents_failure(dev_tasks, backend):
    # Each backend gives the agent a size-limited tmpfs HOME (a share of ``disk_mb``, not the same share
    # in each): not even the first 512 MiB file fits, and the agent sees ENOSPC, not a kill.
    task = dev_tasks[0].model_copy(update={"timeout_s": 60.0})
    (result,) = run([task], script_agent("diskfill"), sandbox=backend)
    assert result.run.sandbox == backend
    assert result.run.status == "failed" and result.run.agent_error and result.run.exit_code == 1
    assert not result.run.timed_out and result.outcome.killed_reason is None and not result.outcome.oom
    assert "wrote" not in result.outcome.stdout_tail
    stopped = re.fullmatch(r"stopped after (\d+) MiB: No space left on device", result.outcome.stderr_tail.strip())
    assert stopped, result.outcome.stderr_tail
    assert 0 < int(stopped[1]) <= ResourceLimits().disk_mb, "refused within the run's disk limit"


def test_floods_of_several_runs_end_only_those_runs_when_the_harness_has_few_file_handles():
    """Soft and hard limit 1024 (a common systemd default; raising the soft one cannot help): three runs
    that each hold 120 connections would need more handles than the harness has, and the cap per link
    (128) does not stop them. The budget across runs ends them one by one; the good runs pass."""
    assert FLOOD_PAUSE < MAX_CONNECTIONS and connection_budget(1024) < 3 * FLOOD_PAUSE
    done = subprocess.run([sys.executable, "-m", "tests.harness._many_floods", "1024", "3", "3", "6", str(FLOOD_PAUSE)],
                          cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Too many open files" not in done.stderr
    header, *runs = (json.loads(line) for line in done.stdout.splitlines())
    assert header == {"nofile": [1024, 1024]}
    flooded = sorted((r for r in runs if r["flooded"]), key=lambda r: r["landed"])
    good = [r for r in runs if not r["flooded"]]
    assert len(flooded) == 3 and len(good) == 3
    for r in flooded:
        assert r["status"] == "failed" and r["agent_error"] and not r["timed_out"], r
        assert r["killed_reason"] == "connection limit" and r["end_reason"] == "agent_exit", r
        assert f"holding {FLOOD_PAUSE} connections" in r["stdout"]
    # The first to end held no more than FLOOD_PAUSE: only the budget across runs can have ended it.
    assert "across all runs" in flooded[0]["notes"][0], flooded[0]
    for r in good:
        assert r["status"] == "passed", r


def test_the_gateway_host_outlives_an_accept_that_fails_for_want_of_file_handles():
    """asyncio hands a server's failed accept to the loop's exception handler and tries again a second
    later. The default handler logs it, and rich's handler (which the mcp SDK installs) then imports a
    module, which fails for want of handles too: that stopped the loop, and every run on it, once in CI.
    The host must instead count the failure and serve the connection once handles are free again."""
    child = subprocess.Popen([sys.executable, "-m", "tests.harness._host_out_of_handles"], cwd=PROJECT_ROOT,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        port = int(child.stdout.readline())
        assert child.stdout.readline() == "full\n"
        with socket.create_connection(("127.0.0.1", port), timeout=20) as conn:
            conn.sendall(b"GET /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            freed = child.stdout.readline().split()
            assert freed[0] == "freed" and int(freed[1]) >= 1, freed
            answer = b""
            while not answer.endswith(b"no such gateway") and (part := conn.recv(4096)):
                answer += part
        assert answer.startswith(b"HTTP/1.1 404") and answer.endswith(b"no such gateway"), answer
        _, stderr = child.communicate(timeout=60)
        assert child.returncode == 0, stderr
        assert "Traceback" not in stderr and "Too many open files" not in stderr, stderr
    finally:
        child.kill()
        child.wait()
        for stream in (child.stdout, child.stderr):
            stream.close()


def test_a_run_raises_the_harness_open_file_limit_and_the_agent_keeps_the_one_it_had():
    code = textwrap.dedent("""
        import resource
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 4096))
        from tests.harness.conftest import run, script_agent, load_valid_tasks, DEV
        (result,) = run(load_valid_tasks([DEV])[:1], script_agent("nofile_probe"))
        print("harness", *resource.getrlimit(resource.RLIMIT_NOFILE))
        print(result.outcome.stdout_tail.strip())
    """)
    done = subprocess.run([sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == ["harness 4096 4096", "nofile 256 4096"]


def test_more_runs_at_once_than_the_file_handles_fit_are_run_fewer_at_once(dev_tasks, monkeypatch, caplog):
    """With too few handles for ``concurrency`` runs (and a handful of connections each), a legitimate
    run's connection could be refused and its agent fail for our limit: the harness runs fewer at once."""
    from mcpbench.sandbox import _gateway_link

    monkeypatch.setattr(_gateway_link, "runs_that_fit", lambda soft: 1)
    with caplog.at_level("WARNING", logger=_gateway_link.__name__):
        results = run(dev_tasks[:3], "oracle", concurrency=3)
    assert all(r.run.passed for r in results)
    assert "running 1 tasks at once, not 3" in caplog.text and "ulimit -n" in caplog.text
    spans = sorted((r.run.started_at, r.run.ended_at) for r in results)
    assert all(end <= start for (_, end), (start, _) in zip(spans, spans[1:])), "one at a time"
