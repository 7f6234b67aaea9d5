"""What the flow tests share besides fixtures (importable as ``_flow_support``)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
from pathlib import Path

#: the shared months' secret (tests/conftest.py): the flow tests rotate the same months, so whatever one
#: of them gated the others find in the session's gate cache
SECRET = "operator-secret-for-tests-only-0123456789"
REPO = Path(__file__).resolve().parents[2]
#: a few public dev tasks on three servers: enough to see a fan-out, cheap enough to run often
DEV_TASKS = ["calendar-cancel-santos-one-to-one", "fs-set-log-level", "slack-announce-release"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop_process_group(proc: subprocess.Popen) -> None:
    """SIGTERM to the group ``proc`` leads (started with ``start_new_session``), SIGKILL after 30 s."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
