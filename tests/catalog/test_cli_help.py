"""The CLI is documented (every command has help with an example) and its help is cheap (it does not
import Prefect, Great Expectations or DuckDB)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from mcpbench.cli import LAZY_COMMANDS, main
from tasks_catalog.rotation import PER_SERVER

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("prefect", "great_expectations", "duckdb")


def _walk(command: click.Command, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], click.Command]]:
    """Every command under ``command`` (itself included) with the words that invoke it."""
    out = [(path, command)]
    if isinstance(command, click.Group):
        ctx = click.Context(command)
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            assert sub is not None, f"`mcpbench {' '.join(path + (name,))}` is listed but cannot be loaded"
            out += _walk(sub, path + (name,))
    return out


COMMANDS = _walk(main)


def test_every_lazily_registered_command_is_listed():
    assert {path[0] for path, _ in COMMANDS if path} == set(LAZY_COMMANDS)


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[" ".join(("mcpbench",) + p) for p, _ in COMMANDS])
def test_every_command_has_help_with_an_example(path, command):
    assert command.help and command.help.strip(), f"`mcpbench {' '.join(path)}` has no help text"
    assert "Example" in command.help
    result = CliRunner().invoke(main, [*path, "--help"])
    assert result.exit_code == 0, result.output
    assert "Example" in result.output


def _imported_modules(*args: str) -> set[str]:
    """The top-level packages ``python -m mcpbench ARGS`` imports (from ``-X importtime``)."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "mcpbench", *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Usage:" in proc.stdout
    names = set()
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and line.count("|") == 2:
            names.add(line.rsplit("|", 1)[1].strip().split(".")[0])
    assert "click" in names, "importtime output was not parsed"
    return names


@pytest.mark.parametrize("args", [("--help",), ("serve", "--help")], ids=["mcpbench --help", "mcpbench serve --help"])
def test_help_does_not_import_prefect_great_expectations_or_duckdb(args):
    assert _imported_modules(*args) & set(HEAVY) == set()


# -- every example in every command's help runs -----------------------------------------------------
def _examples() -> list[str]:
    """The example command lines of every command's help, in order, without duplicates."""
    found: list[str] = []
    for _, command in COMMANDS:
        lines = (command.help or "").splitlines()
        for i, line in enumerate(lines):
            if line.strip().startswith("Example"):
                for follow in lines[i + 1:]:
                    text = follow.strip()
                    if not text or "mcpbench " not in text:
                        break
                    if text not in found:
                        found.append(text)
    return found


EXAMPLES = _examples()
SERVING = ("mcpbench serve ", "mcpbench view ")  # long-running servers: started, asked, stopped


def test_the_help_examples_were_found():
    assert len(EXAMPLES) >= 15 and all("mcpbench" in e for e in EXAMPLES)
    assert "mcpbench run --agent oracle --split Historical-2026-11" in EXAMPLES


@pytest.fixture(scope="module")
def workspace(tmp_path_factory, gate_cache):
    """A folder to run examples in: the repository's task folders, a dev set of slack's tasks (``dev``,
    which the test makes the dev split), an agent script, a state file, and a store with the slack-only
    month 2026-11 built (so `rotate --month 2026-12` retires it). Its months are the shared months'
    slack tasks (same secret), gated through the session's gate cache."""
    import json as _json
    import shutil

    import tasks_catalog.rotation
    from runstore.store import open_store
    from tasks_catalog.gate import acceptance_gate
    from tasks_catalog.months import rotate
    from tasks_catalog.templates import load_pool

    root = tmp_path_factory.mktemp("examples")
    (root / "tasks_catalog").symlink_to(ROOT / "tasks_catalog")
    shutil.copytree(ROOT / "tasks_catalog" / "dev" / "slack", root / "dev" / "slack")  # the examples' dev set
    (root / "agent").mkdir(mode=0o755)
    (root / "agent" / "my_agent.py").write_text("import sys\nsys.stdin.read()\n")  # a (lazy) agent that finishes at once
    (root / "state.json").write_text(_json.dumps({}))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tasks_catalog.rotation, "SERVER_NAMES", ("slack",))
        report = rotate(open_store(str(root / "store")), "2026-11", secret=SECRET,
                        pool=[t for t in load_pool() if t.server == "slack"], gate=acceptance_gate(cache=gate_cache))
    assert report.tasks == PER_SERVER and not report.gate_failures, report.public()  # the examples read this month
    return root


SECRET = "operator-secret-for-tests-only-0123456789"  # the shared months' (tests/conftest.py)


def _argv(example: str, root: Path) -> tuple[dict[str, str], list[str]]:
    import glob
    import shlex

    env: dict[str, str] = {}
    words = shlex.split(example)
    while "=" in words[0]:
        name, value = words.pop(0).split("=", 1)
        env[name] = SECRET if value == "..." else value
    assert words[0] == "mcpbench", example
    argv: list[str] = []
    for w in words[1:]:
        argv += sorted(glob.glob(w, root_dir=root)) if "*" in w and "/" in w else [w]  # a path pattern, as a shell expands it
    return env, argv


def _openai_upstream():
    """A chat-completions endpoint on 127.0.0.1:8080 that answers every request with 'done' (no tool
    call), or None if the port is taken."""
    import json as _json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Answer(BaseHTTPRequestHandler):
        def do_POST(self):  # the stdlib handler's name
            self.rfile.read(int(self.headers.get("content-length") or 0))
            body = _json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "my-model",
                                "choices": [{"index": 0, "finish_reason": "stop",
                                             "message": {"role": "assistant", "content": "done"}}],
                                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    try:
        server = ThreadingHTTPServer(("127.0.0.1", 8080), Answer)
    except OSError:
        return None
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _serve(argv: list[str], root: Path, env: dict[str, str]) -> None:
    """Start a server example, check it answers (stdio: exits cleanly at end of input; http: accepts
    a connection on its port), then stop it."""
    import socket
    import time

    proc = subprocess.Popen([sys.executable, "-m", "mcpbench", *argv], cwd=root, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        if "--port" not in argv:
            out, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err.decode()[-2000:]
            return
        port = int(argv[argv.index("--port") + 1])
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.2)
        pytest.fail(f"{' '.join(argv)} did not listen on {port} within 120 s")
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=30)
        proc.stdout.close()
        proc.stderr.close()


@pytest.mark.timeout(900)
def test_every_example_in_every_commands_help_runs(workspace, monkeypatch, gate_cache):
    import os
    import socket

    import mcpbench.splits
    import tasks_catalog.rotation

    monkeypatch.chdir(workspace)
    monkeypatch.setattr(tasks_catalog.rotation, "SERVER_NAMES", ("slack",))  # months of one server: fast
    # and a dev set of slack's tasks alone: an example has to run as written, and the whole dev set
    # under the oracle (and its agents) is tests/test_end_to_end.py's, not repeated here four times
    monkeypatch.setattr(mcpbench.splits, "DEV_DIR", workspace / "dev")
    base = {"MCPBENCH_STORE": str(workspace / "store"), "MCPBENCH_WAREHOUSE": str(workspace / "warehouse.duckdb"),
            "MCPBENCH_GATE_CACHE": str(gate_cache),
            # the workspace lies under /tmp, where a submitter's program may not: the operator declares it
            "MCPBENCH_AGENT_DIR": str(workspace / "agent")}
    for name, value in base.items():
        monkeypatch.setenv(name, value)
    # rotate first: later examples read the month it retires; the viewer's, export's and the measured
    # pass rates last: they read the runs the others landed
    ordered = sorted(EXAMPLES, key=lambda e: (" rotate " not in f" {e} ",
                                              e.startswith(("mcpbench view ", "mcpbench export ")) or " --solved" in e))
    upstream = _openai_upstream() if any("OPENAI_BASE_URL" in e for e in ordered) else None
    skipped = []
    try:
        for example in ordered:
            env, argv = _argv(example, workspace)
            if argv[0] == "serve" or (argv[0] == "view" and "--export" not in argv):  # a server: started, asked, stopped
                if "--port" in argv:
                    with socket.socket() as probe:
                        if probe.connect_ex(("127.0.0.1", int(argv[argv.index("--port") + 1]))) == 0:
                            skipped.append(f"{example}: the port is taken on this machine")
                            continue
                _serve(argv, workspace, {**os.environ, **base, **env, "PYTHONPATH": str(ROOT)})
                continue
            if "OPENAI_BASE_URL" in env and upstream is None:
                skipped.append(f"{example}: 127.0.0.1:8080 is taken, no stand-in upstream could listen there")
                continue
            with monkeypatch.context() as m:
                for name, value in env.items():
                    m.setenv(name, value)
                result = CliRunner().invoke(main, argv)
            assert result.exit_code == 0, f"`{example}` exited {result.exit_code}:\n{result.output[-3000:]}"
    finally:
        if upstream is not None:
            upstream.shutdown()
            upstream.server_close()
    assert len(skipped) <= 1, skipped  # at most a busy port, and never silently: the list says which
