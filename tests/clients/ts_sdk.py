"""The official TypeScript MCP SDK's client (tests/clients/ts-sdk, installed by scripts/setup.sh from
its lock file), for tests that drive MCPBench as a third-party client or agent would."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

TS_SDK = Path(__file__).resolve().parent / "ts-sdk"
EXERCISE = TS_SDK / "exercise.mjs"
AGENT = TS_SDK / "agent.mjs"


def node() -> str:
    """The ``node`` to run the client with; a clear failure where setup has not installed the SDK."""
    found = shutil.which("node")
    if found is None or not (TS_SDK / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        pytest.fail(f"the TypeScript MCP SDK client is not installed (node: {found}; {TS_SDK}/node_modules): "
                    "run scripts/setup.sh")
    return found


def exercise(tmp_path: Path, call: dict, *target: str, timeout: float = 60) -> dict:
    """What exercise.mjs saw, driving ``target`` (``http <url>`` or ``stdio <command...>``) with
    ``call`` (``{"tool", "arguments"}``) as the one call that must succeed."""
    call_file = tmp_path / "ts-sdk-call.json"
    call_file.write_text(json.dumps(call))
    mode, *rest = target
    argv = [node(), str(EXERCISE), mode]
    argv += [rest[0], str(call_file)] if mode == "http" else [str(call_file), *rest]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    lines = done.stdout.strip().splitlines()
    assert lines, f"exercise.mjs printed nothing (exit {done.returncode}): {done.stderr[-3000:]}"
    report = json.loads(lines[-1])
    assert done.returncode == 0 and "error" not in report, report.get("error") or done.stderr[-3000:]
    return report
