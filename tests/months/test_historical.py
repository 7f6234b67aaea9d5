"""Retired months feed the historical leaderboard: rotate two months, evaluate the retired one from its
published plaintext (checked against its attestation first), see it ranked.

The months here are built for one server (PER_SERVER tasks each) so the oracle can run every task of the
retired month in a few seconds; the full ten-server month is gated once per session in tests/conftest.py.
"""

from __future__ import annotations

import json
from datetime import date

import pytest
from click.testing import CliRunner

from mcpbench.cli import main
from runstore.store import open_store
from tasks_catalog.rotation import PER_SERVER
from tests.months.conftest import SECRET

TAG = "Historical-2026-11"


@pytest.fixture(scope="module")
def retired(tmp_path_factory, gate_cache):
    """A store where 2026-11 and 2026-12 were rotated for the slack server only; 2026-11 is retired. Its
    tasks are the shared months' slack tasks (same secret), gated through the session's gate cache."""
    import tasks_catalog.rotation
    from tasks_catalog.gate import acceptance_gate
    from tasks_catalog.months import rotate
    from tasks_catalog.templates import load_pool

    root = tmp_path_factory.mktemp("historical")
    store = open_store(str(root / "store"))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tasks_catalog.rotation, "SERVER_NAMES", ("slack",))
        pool = [t for t in load_pool() if t.server == "slack"]
        gate = acceptance_gate(cache=gate_cache)
        first = rotate(store, "2026-11", secret=SECRET, pool=pool, gate=gate)
        second = rotate(store, "2026-12", secret=SECRET, pool=pool, gate=gate, today=date(2026, 12, 1))
    assert first.gate_failures == [] and second.retired == TAG
    return root


@pytest.fixture
def cli(retired, tmp_path, monkeypatch):
    import shutil

    store = tmp_path / "store"
    shutil.copytree(retired / "store", store)
    monkeypatch.delenv("MCPBENCH_SECRET", raising=False)  # a retired month is public: no secret needed
    monkeypatch.setenv("MCPBENCH_STORE", str(store))
    monkeypatch.setenv("MCPBENCH_WAREHOUSE", str(tmp_path / "warehouse.duckdb"))
    runner = CliRunner()

    def invoke(*args: str, code: int = 0) -> str:
        result = runner.invoke(main, list(args), catch_exceptions=False)
        assert result.exit_code == code, result.output
        return result.output

    invoke.store = open_store(str(store))
    return invoke


def test_a_retired_month_is_evaluated_from_its_plaintext_and_ranked_on_the_historical_board(cli, tmp_path):
    card = json.loads(cli("run", "--agent", "oracle", "--split", TAG, "--submission-id", "hist-oracle", "--json"))
    assert card["split"] == TAG and card["attempted"] == PER_SERVER and card["success_rate"] == 1.0
    cli("run", "--agent", "noop", "--split", "historical-2026-11", "--submission-id", "hist-noop", "--json")
    one = json.loads(cli.store.get_bytes("public/attestations/2026-11.json"))["tasks"][0]["task_id"]
    cli("run", "--agent", "oracle", "--split", TAG, "--tasks", one, "--submission-id", "hist-partial", "--json")

    runs = cli.store.read_runs().to_pylist()
    assert {(r["split"], r["split_kind"], r["month"]) for r in runs} == {(TAG, "historical", "2026-11")}
    board = json.loads(cli("leaderboard", "--historical", "--json"))
    assert [(r["rank"], r["submission_id"], r["month"], r["tasks_covered"], r["tasks_in_month"]) for r in board] == [
        (1, "hist-oracle", "2026-11", PER_SERVER, PER_SERVER), (2, "hist-noop", "2026-11", PER_SERVER, PER_SERVER),
        (None, "hist-partial", "2026-11", 1, PER_SERVER)]
    assert json.loads(cli("leaderboard", "--json")) == [], "a retired month never ranks on the contemporary board"

    cli("report", "--html", str(tmp_path / "report.html"))
    page = (tmp_path / "report.html").read_text()
    historical = page[page.index("<h2>Historical"):]
    assert "hist-oracle" in historical and "Not ranked: did not cover the retired month" in historical
    assert historical.index("hist-noop") < historical.index("Not ranked") < historical.index("hist-partial")


def test_a_retired_month_whose_plaintext_does_not_match_its_attestation_is_not_run(cli):
    key = f"public/historical/{TAG}/tasks.json"
    docs = json.loads(cli.store.get_bytes(key))
    docs[3]["max_steps"] += 1
    cli.store.put_bytes(key, json.dumps(docs).encode())
    out = cli("run", "--agent", "oracle", "--split", TAG, "--json", code=1)
    assert "does not match its attestation" in out and docs[3]["id"] in out
    assert cli.store.read_runs().num_rows == 0


def test_a_month_that_is_not_retired_yet_has_no_historical_split(cli):
    out = cli("run", "--agent", "oracle", "--split", "Historical-2026-12", code=1)
    assert "nothing published" in out
    out = cli("run", "--agent", "oracle", "--split", "hist-2026-11", code=2)
    assert "unknown split 'hist-2026-11'" in out


def test_tasks_show_reads_a_retired_months_published_task(cli):
    from tasks_catalog.months import load_historical_tasks

    task = load_historical_tasks(cli.store, TAG)[0]
    brief = json.loads(cli("tasks", "show", task.id, "--split", TAG, "--json"))
    assert brief["id"] == task.id and brief["goal"] == task.goal
