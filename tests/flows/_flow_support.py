"""What the flow tests share besides fixtures (importable as ``_flow_support``)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

#: the shared months' secret (tests/conftest.py): the flow tests rotate the same months, so whatever one
#: of them gated the others find in the session's gate cache
SECRET = "operator-secret-for-tests-only-0123456789"
REPO = Path(__file__).resolve().parents[2]
#: a few public dev tasks on three servers: enough to see a fan-out, cheap enough to run often
DEV_TASKS = ["calendar-cancel-santos-one-to-one", "fs-set-log-level", "slack-announce-release"]


def month_servers() -> tuple[str, ...]:
    """The servers the demonstration pool has a month's worth of templates for: all ten once the pool
    is complete (tests/months checks that), so the flow tests build whatever month the pool allows."""
    from tasks_catalog.rotation import PER_SERVER
    from tasks_catalog.templates import load_pool
    from servers import SERVER_NAMES

    counts = Counter(t.server for t in load_pool())
    return tuple(s for s in SERVER_NAMES if counts[s] >= PER_SERVER)
