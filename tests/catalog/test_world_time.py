"""No task plants a message its agent could not have received yet.

Every world is seen at one instant, the organisation's ``NOW`` (servers/org/model.py). An email or a
Slack message a task adds to its world dated after it arrives from the future: a careful agent notices,
and either distrusts the world or reads it as a hint. A solver found one (``x-t-hotel-offers``: its third
offer came four hours after now). This walks what every dev task and every template writes into its
world (the state and its patches) and names each message dated after now."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from servers.org.model import NOW, NOW_UNIX

CATALOG = Path(__file__).resolve().parents[2] / "tasks_catalog"
FILES = sorted((CATALOG / "templates").rglob("*.json")) + sorted((CATALOG / "dev").rglob("*.json"))


def messages_after_now(value: Any, where: str = "$") -> Iterator[str]:
    """Where in ``value`` (a JSON path) a Gmail message (a ``sender`` and a ``date``) or a Slack message (a
    ``text`` and a ``ts``) is dated after ``NOW``."""
    if isinstance(value, dict):
        date, ts = value.get("date"), value.get("ts")
        if "sender" in value and isinstance(date, str) and "T" in date and date > NOW:
            yield f"{where}: email {value.get('subject', '')!r} dated {date}"
        if "text" in value and isinstance(ts, str) and ts.replace(".", "", 1).isdigit() and float(ts) > NOW_UNIX:
            yield f"{where}: Slack message {str(value['text'])[:60]!r} at ts {ts}"
        for key, item in value.items():
            yield from messages_after_now(item, f"{where}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from messages_after_now(item, f"{where}[{i}]")


def test_the_walk_finds_an_email_and_a_slack_message_from_the_future():
    planted = {"patch": [{"op": "add", "value": {"sender": "a@b.example", "subject": "Offer", "date": "2026-03-16T13:23:00Z"}},
                         {"op": "add", "value": {"sender": "a@b.example", "subject": "Old", "date": "2026-03-13T11:21:00Z"}},
                         {"op": "add", "value": {"text": "hi", "ts": f"{NOW_UNIX + 60}.000100"}},
                         {"op": "add", "value": {"text": "earlier", "ts": f"{NOW_UNIX - 60}.000100"}}]}
    assert list(messages_after_now(planted)) == [
        "$.patch[0].value: email 'Offer' dated 2026-03-16T13:23:00Z",
        f"$.patch[2].value: Slack message 'hi' at ts {NOW_UNIX + 60}.000100"]


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(CATALOG)))
def test_no_task_plants_a_message_dated_after_now(path):
    found = list(messages_after_now(json.loads(path.read_text())))
    assert not found, f"{path.relative_to(CATALOG)}: {len(found)} message(s) after {NOW}: " + "; ".join(found[:5])
