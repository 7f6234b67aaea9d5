"""Nothing of a run stays on the host: not after a harness killed with SIGKILL (the next one sweeps its
leftovers), not after ``mcpbench serve`` is stopped with SIGTERM."""

from __future__ import annotations

import glob
import json
import os
import secrets
import select
import signal
import subprocess
import tempfile
from pathlib import Path

import anyio
import pytest

from .conftest import PYTHON, processes_with_marker

PROJECT = str(Path(__file__).resolve().parents[2])

HARNESS_MID_RUN = r"""
import asyncio, glob, json, os, sys, tempfile
from mcpbench.sandbox import AgentProcess, get_sandbox
from runstore.leftovers import owner_tag
from servers.filesystem.state import FilesystemState
from servers.filesystem.tools import FilesystemTools

tools = FilesystemTools(FilesystemState(files={"goal.txt": "a private goal"}))

async def main():
    agent = AgentProcess(argv=[sys.executable, "-c", "import time; time.sleep(600)", sys.argv[1]], timeout_s=600)
    run = asyncio.ensure_future(get_sandbox("local").run(agent))
    unisolated = asyncio.ensure_future(get_sandbox("none", allow_unisolated=True).run(agent))
    tag = owner_tag()
    while True:
        private = glob.glob(os.path.join(tempfile.gettempdir(), f"mcpbench-sandbox-{tag}*"))
        private += glob.glob(os.path.join(tempfile.gettempdir(), f"mcpbench-unisolated-{tag}*"))
        groups = glob.glob(f"/sys/fs/cgroup/*/mcpbench/run-{tag}*") + glob.glob(f"/sys/fs/cgroup/mcpbench/run-{tag}*")
        if len(private) == 2 and groups:
            break
        await asyncio.sleep(0.02)
    print(json.dumps({"private": private, "groups": groups, "workspace": str(tools.root)}), flush=True)
    await run

asyncio.run(main())
"""

NEXT_HARNESS = r"""
from mcpbench.sandbox import get_sandbox
from servers.filesystem.state import FilesystemState
from servers.filesystem.tools import FilesystemTools

get_sandbox("local")
get_sandbox("none", allow_unisolated=True)
FilesystemTools(FilesystemState()).close()
"""


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": PROJECT}


def _read_line(proc: subprocess.Popen, bound_s: float = 30) -> str:
    ready, _, _ = select.select([proc.stdout], [], [], bound_s)
    assert ready, f"no line from the subprocess within {bound_s} s"
    return proc.stdout.readline()


def test_the_next_harness_sweeps_what_a_killed_one_left_behind():
    marker = f"mcpbench-killed-harness-{secrets.token_hex(4)}"
    harness = subprocess.Popen([PYTHON, "-c", HARNESS_MID_RUN, marker], stdout=subprocess.PIPE, text=True, env=_env())
    try:
        left = json.loads(_read_line(harness))
        paths = [*left["private"], *left["groups"], left["workspace"]]
        # checked while their owner lives: once it is dead, any harness that starts (another xdist
        # worker's too) may sweep them, and a check after the kill would race it
        assert all(os.path.exists(p) for p in paths), "the harness mid-run should hold these"
    finally:
        harness.kill()  # SIGKILL: no finally, no atexit
        harness.wait(timeout=10)
        harness.stdout.close()
    subprocess.run([PYTHON, "-c", NEXT_HARNESS], check=True, timeout=60, env=_env())
    assert [p for p in paths if os.path.exists(p)] == []
    assert processes_with_marker(marker) == []  # the agents died with their harness


def test_the_sweep_leaves_a_live_harness_alone(tmp_path):
    from runstore.leftovers import owner_tag, sweep

    mine = tmp_path / f"mcpbench-sandbox-{owner_tag()}abc"
    dead = tmp_path / "mcpbench-sandbox-1.1-abc"  # pid 1 never started at tick 1: its owner is gone
    untagged = tmp_path / "mcpbench-sandbox-xyz"
    for d in (mine, dead, untagged):
        d.mkdir()
    assert sweep(tmp_path, "mcpbench-sandbox-") == [dead]
    assert mine.exists() and untagged.exists() and not dead.exists()


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_serve_removes_its_workspace_when_stopped_with_sigterm(transport, tmp_path):
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"files": {"notes.md": "hello"}}))
    argv = [PYTHON, "-m", "mcpbench", "serve", "filesystem", "--state", str(state), "--transport", transport]
    if transport == "http":
        argv += ["--port", "0"]
    serve = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=_env(), cwd=tmp_path)
    shm = Path("/dev/shm") if os.access("/dev/shm", os.W_OK) else Path(tempfile.gettempdir())

    async def workspace_appears() -> list[str]:
        with anyio.fail_after(30):
            while not (found := glob.glob(str(shm / f"mcpbench-fs-{serve.pid}.*"))):
                assert serve.poll() is None, serve.stderr.read().decode()
                await anyio.sleep(0.02)
        return found

    try:
        workspace = anyio.run(workspace_appears)
        serve.send_signal(signal.SIGTERM)
        serve.wait(timeout=30)
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.wait(timeout=10)
        for stream in (serve.stdin, serve.stdout, serve.stderr):
            stream.close()
    assert [w for w in workspace if os.path.exists(w)] == []
