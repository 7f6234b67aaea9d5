"""Shared by the flow tests: the operator's secret, the servers a month can be built for, and ONE
session-scoped Prefect test harness (its server takes seconds to start, so few tests use it)."""

from __future__ import annotations

import os

import pytest

from _flow_support import SECRET


@pytest.fixture
def secret(monkeypatch):
    monkeypatch.setenv("MCPBENCH_SECRET", SECRET)
    return SECRET


@pytest.fixture(scope="session")
def prefect_harness(tmp_path_factory):
    """A Prefect server on a temporary database, with Prefect's home in a temporary folder."""
    home = tmp_path_factory.mktemp("prefect-home")
    os.environ["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
    from prefect.settings import (PREFECT_HOME, PREFECT_LOGGING_TO_API_WHEN_MISSING_FLOW,
                                  PREFECT_SERVER_ANALYTICS_ENABLED, temporary_settings)
    from prefect.testing.utilities import prefect_test_harness

    with temporary_settings(updates={PREFECT_HOME: str(home), PREFECT_SERVER_ANALYTICS_ENABLED: False,
                                     PREFECT_LOGGING_TO_API_WHEN_MISSING_FLOW: "ignore"}):
        with prefect_test_harness(server_startup_timeout=120):
            yield home
