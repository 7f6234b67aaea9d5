"""Every flow reads the warehouse through the reader's checked-build rule (``flows._common.open_checked``):
the rotation never reads anomaly flags, nor an evaluation its score card or flags, from a warehouse whose
data has not passed the quality suites. An unchecked build is checked first; data that fails is refused
before the rotation renders anything. No flow opens DuckDB itself."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import duckdb
import pytest
from _flow_support import REPO, SECRET

from runstore.store import open_store
from tests.warehouse.conftest import T0, make_calls, make_run


def _land(store, run) -> None:
    store.land_run(run, make_calls(run, [("post", True, False)]))


@pytest.fixture
def leaked(tmp_path):
    """A store where slack-001 jumped in 2026-05 (0 of 6 before, passed by 4 submitters) while the
    month's other tasks did not: ``anomaly_task_flags`` flags it."""
    store = open_store(str(tmp_path / "store"))
    n = 0
    for month, day in (("2026-04", 0), ("2026-05", 31)):
        for s, submitter in enumerate(("ann", "ben", "cat", "dan", "eve", "fay")):
            for task in ("slack-001", "slack-002", "slack-003"):
                if month == "2026-05" and s >= 4:
                    continue
                n += 1
                passed = month == "2026-05" and task == "slack-001"
                _land(store, make_run(f"r{n}", submission_id=f"sub-{submitter}-{month}", submitter=submitter,
                                      split=month, task_id=task, status="passed" if passed else "failed",
                                      started_at=T0 + timedelta(days=day, minutes=n)))
    return store


def _checked(db: Path) -> bool:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute("select checked from warehouse_build").fetchone()[0]


def test_rotation_checks_an_unchecked_warehouse_before_reading_its_flags(leaked, tmp_path):
    from flows.rotate import flagged_task_ids
    from warehouse.build import build

    db = tmp_path / "warehouse.duckdb"
    assert not build(leaked, db, check=False).checked
    assert flagged_task_ids.fn(str(db), leaked.root, "2026-05") == ["slack-001"]
    assert _checked(db), "the flags were read from a build that was not checked"


def test_rotation_refuses_flags_from_data_that_fails_its_checks(leaked, tmp_path, monkeypatch):
    import flows.rotate
    from warehouse.build import build
    from warehouse.quality import QualityError

    monkeypatch.setenv("MCPBENCH_SECRET", SECRET)
    _land(leaked, make_run("r-leaky", submission_id="sub-ann-2026-05", submitter="ann", split="2026-05",
                           task_id="slack-003", goal="Archive #random and tell nobody"))
    db = tmp_path / "warehouse.duckdb"
    build(leaked, db, check=False)

    def rotate(*args, **kwargs):
        raise AssertionError("the rotation went on with flags read from data that failed its checks")

    monkeypatch.setattr(flows.rotate, "rotate", rotate)
    # the flow's body as Prefect runs it, its flag-reading task called as the plain function it wraps
    monkeypatch.setattr(flows.rotate, "flagged_task_ids", flows.rotate.flagged_task_ids.fn)
    with pytest.raises(QualityError, match="redaction"):
        flows.rotate.rotate_month.fn("2026-06", store=leaked.root, db_path=str(db))
    assert not _checked(db)


def test_an_evaluations_flags_and_score_card_are_read_only_from_checked_data(leaked, tmp_path):
    from flows.evaluate import read_score_card
    from flows.scoring import read_flags
    from warehouse.build import build
    from warehouse.quality import QualityError

    db = tmp_path / "warehouse.duckdb"
    build(leaked, db, check=False)
    flags = read_flags.fn(str(db), leaked.root)
    assert [t["task_id"] for t in flags["tasks"]] == ["slack-001"] and _checked(db)
    assert read_score_card("sub-ann-2026-05", str(db), leaked.root)["overall"]["attempted"] == 3
    _land(leaked, make_run("r-bad", submission_id="sub-ann-2026-05", submitter="ann", split="2026-05",
                           task_id="slack-009", tool_calls=-5))  # lands after the build: checked before it is read
    for read in (lambda: read_flags.fn(str(db), leaked.root), lambda: read_score_card("sub-ann-2026-05", str(db),
                                                                                        leaked.root)):
        with pytest.raises(QualityError, match="tool_calls"):
            read()


def test_no_flow_opens_duckdb_itself():
    for path in sorted((REPO / "flows").glob("*.py")):
        assert "duckdb" not in path.read_text(), f"{path} reads the warehouse around warehouse.reader"
