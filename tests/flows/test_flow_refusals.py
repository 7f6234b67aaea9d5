"""The flows' plain functions decide about their store and warehouse file before any of their tasks runs:
a store that cannot be written (a file, a path under a file) and a warehouse path holding another file
stop an evaluation before any agent runs and a rotation before its gate; the scoring flows read only a
store that exists."""

from __future__ import annotations

import pytest

from _flow_support import SECRET


def _no_task_may_start(monkeypatch, module, *names: str) -> None:
    def started(*args, **kwargs):
        raise AssertionError("a flow task started before the flow refused what it was given")

    for name in names:
        monkeypatch.setattr(module, name, started)


@pytest.fixture
def notes(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("an operator's notes\n")
    return path


@pytest.mark.parametrize("where", ["file", "under a file"])
def test_evaluate_submission_refuses_an_unwritable_store_before_any_agent_runs(monkeypatch, notes, tmp_path, where):
    import flows.evaluate
    from runstore.store import StoreError

    _no_task_may_start(monkeypatch, flows.evaluate, "list_task_ids", "pending_runs", "run_all", "build_warehouse")
    store = notes if where == "file" else notes / "store"
    with pytest.raises(StoreError, match=f"{notes} is a file"):
        flows.evaluate.evaluate_submission.fn("noop", store=str(store), db_path=str(tmp_path / "w.duckdb"))
    assert notes.read_text() == "an operator's notes\n"


def test_evaluate_submission_refuses_a_warehouse_path_holding_another_file_before_any_agent_runs(monkeypatch, notes,
                                                                                                   tmp_path):
    import flows.evaluate
    from warehouse.database_file import WarehouseFileError

    _no_task_may_start(monkeypatch, flows.evaluate, "list_task_ids", "pending_runs", "run_all", "build_warehouse")
    with pytest.raises(WarehouseFileError, match=f"{notes} is not a warehouse this project built"):
        flows.evaluate.evaluate_submission.fn("noop", store=str(tmp_path / "store"), db_path=str(notes))
    assert notes.read_text() == "an operator's notes\n" and not (tmp_path / "store").exists()


def test_rotate_month_refuses_an_unwritable_store_before_the_gate(monkeypatch, notes, tmp_path):
    import flows.rotate
    from runstore.store import StoreError

    monkeypatch.setenv("MCPBENCH_SECRET", SECRET)
    _no_task_may_start(monkeypatch, flows.rotate, "rotate", "flagged_task_ids")
    with pytest.raises(StoreError, match=f"{notes} is a file"):
        flows.rotate.rotate_month.fn("2026-12", store=str(notes), db_path=str(tmp_path / "w.duckdb"))


@pytest.mark.parametrize("flow", ["score", "detect_anomalies"])
def test_the_scoring_flows_read_only_a_store_that_exists_and_make_none(monkeypatch, tmp_path, flow):
    import flows.scoring
    from runstore.store import StoreError

    _no_task_may_start(monkeypatch, flows.scoring, "build_warehouse", "read_flags")
    typo = tmp_path / "stroe"
    with pytest.raises(StoreError, match=f"there is no store at {typo}"):
        getattr(flows.scoring, flow).fn(store=str(typo), db_path=str(tmp_path / "w.duckdb"))
    assert not typo.exists() and not (tmp_path / "w.duckdb").exists()


def test_validate_catalog_reads_a_month_only_from_a_store_that_exists(monkeypatch, tmp_path):
    import flows.catalog
    from runstore.store import StoreError

    _no_task_may_start(monkeypatch, flows.catalog, "gate_month")
    with pytest.raises(StoreError, match="there is no store at"):
        flows.catalog.validate_catalog.fn(store=str(tmp_path / "stroe"), month="2026-12", dev=False)
