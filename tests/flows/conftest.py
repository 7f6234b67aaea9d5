"""Shared by the flow tests: the operator's secret, the servers a month can be built for, and ONE
session-scoped Prefect server (it takes seconds to start, so few tests use it)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
from _flow_support import SECRET, free_port, stop_process_group

#: a Prefect server migrates a fresh database before it answers: seconds, a minute or more under load
SERVER_START_S = 180


@pytest.fixture
def secret(monkeypatch):
    monkeypatch.setenv("MCPBENCH_SECRET", SECRET)
    return SECRET


@dataclass(frozen=True)
class PrefectServer:
    api: str  # PREFECT_API_URL
    log: Path  # the server's output, for a test's failure message

    def log_tail(self) -> str:
        return self.log.read_text(errors="replace")[-2000:]


@pytest.fixture(scope="session")
def prefect_server(tmp_path_factory):
    """ONE real ``prefect server start`` on loopback, as the README tells an operator to start it, for
    every flow test of this worker (tests/conftest.py keeps them in one xdist group): the deployment
    test, the flow wiring, the Dask month. A server costs seconds of CPU to start and migrate its
    database, so the session starts one instead of one per test. Stopped at the session's end."""
    home = tmp_path_factory.mktemp("prefect-server")
    port = free_port()
    api = f"http://127.0.0.1:{port}/api"
    env = {**os.environ, "PREFECT_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
           "PREFECT_UI_ENABLED": "false"}
    env.pop("PREFECT_API_URL", None)
    env.pop("PREFECT_PROFILES_PATH", None)
    log = home / "server.log"
    with open(log, "wb") as out:
        server = subprocess.Popen([sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1",
                                   "--port", str(port)], cwd=home, env=env, stdout=out, stderr=subprocess.STDOUT,
                                  start_new_session=True)
    try:
        _wait_healthy(api, server, log)
        yield PrefectServer(api, log)
    finally:
        stop_process_group(server)


def _wait_healthy(api: str, server: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        assert server.poll() is None, f"prefect server exited: {log.read_text(errors='replace')[-2000:]}"
        try:
            with urllib.request.urlopen(f"{api}/health", timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"prefect server did not answer {api}/health within {SERVER_START_S} s: "
                f"{log.read_text(errors='replace')[-2000:]}")


@pytest.fixture(scope="session")
def prefect_harness(prefect_server, tmp_path_factory):
    """This process's flows run against the session's Prefect server, with Prefect's home (profiles,
    local results) in a temporary folder. Logs and events still queued are sent before it stops."""
    home = tmp_path_factory.mktemp("prefect-home")
    os.environ["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker
    from prefect.settings import (
        PREFECT_API_URL,
        PREFECT_HOME,
        PREFECT_LOGGING_TO_API_WHEN_MISSING_FLOW,
        PREFECT_SERVER_ANALYTICS_ENABLED,
        temporary_settings,
    )

    with temporary_settings(updates={PREFECT_HOME: str(home), PREFECT_API_URL: prefect_server.api,
                                     PREFECT_SERVER_ANALYTICS_ENABLED: False,
                                     PREFECT_LOGGING_TO_API_WHEN_MISSING_FLOW: "ignore"}):
        yield home
        APILogWorker.drain_all(timeout=30)
        EventsWorker.drain_all(timeout=30)
