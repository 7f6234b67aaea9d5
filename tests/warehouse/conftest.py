"""Hand-built traces: runs and calls with defaults, so each test states only what it is about."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from runstore.records import REDACTED, CallRecord, RunRecord
from runstore.store import open_store

T0 = datetime(2026, 5, 1, 12, 0, tzinfo=timezone.utc)


def make_run(run_id: str, *, submission_id: str = "sub-a", status: str = "passed", **fields) -> RunRecord:
    """A run; ``status`` sets passed/infra_error consistently, anything else may be overridden."""
    split = fields.pop("split", "2026-05")
    month = fields.pop("month", split[-7:] if split != "dev" else "2026-05")
    started = fields.pop("started_at", T0)
    values = dict(
        run_id=run_id, submission_id=submission_id, submitter="alice", agent="agent-a", split=split, month=month,
        task_id="slack-001", task_hash="sha256:0", server="slack", difficulty="easy", category="standard",
        goal=REDACTED, status=status, passed=status == "passed",
        predicate_passed=None if status == "infra_error" else status == "passed",
        over_budget=False, timed_out=False, agent_error=False, exit_code=None if status == "infra_error" else 0,
        max_steps=10, timeout_s=60.0, tool_calls=0, errors_observed=0, faults_injected=0,
        infra_error="sandbox failed to start" if status == "infra_error" else None, sandbox="local",
        started_at=started, ended_at=started + timedelta(seconds=5), duration_s=5.0, agent_s=4.5,
        harness_ms=500.0, final_state_digest=None if status == "infra_error" else "sha256:1",
        end_reason="infra:sandbox" if status == "infra_error" else ("passed" if status == "passed" else "predicate_false"),
        stderr_tail=None, goals_published=False, trial=1, model_requests=0, model_errors=0, model_retries=0,
        model_refused=0, model_prompt_tokens=0, model_completion_tokens=0, model_tokens_estimated=False,
        model_latency_ms=0.0, model_cost_nanousd=0,
    )
    values.update(fields)
    return RunRecord(**values)


def make_calls(run: RunRecord, spec: list[tuple[str, bool, bool]]) -> list[CallRecord]:
    """Calls of ``run`` from ``(tool, listed, is_error)`` triples, in order."""
    calls = []
    for seq, (tool, listed, is_error) in enumerate(spec, start=1):
        kind = None if not is_error else ("unlisted_tool" if not listed else "tool_error")
        calls.append(CallRecord(
            run_id=run.run_id, submission_id=run.submission_id, task_id=run.task_id, server=run.server, seq=seq,
            ts=run.started_at + timedelta(milliseconds=100 * seq), tool=tool, arguments_json="{}", arguments_bytes=2,
            truncated=False, listed=listed, is_error=is_error, error_kind=kind,
            error_message="failed" if is_error else None, latency_ms=1.5, result_bytes=64,
        ))
    return calls


def ok(tool: str = "post_message") -> tuple[str, bool, bool]:
    return (tool, True, False)


def err(tool: str = "post_message") -> tuple[str, bool, bool]:
    return (tool, True, True)


def unlisted(tool: str) -> tuple[str, bool, bool]:
    return (tool, False, True)


@pytest.fixture
def store(tmp_path):
    return open_store(str(tmp_path / "store"))


@pytest.fixture
def land(store):
    """``land(run, spec)``: land a run with calls built from ``spec`` (tool_calls set to match)."""

    def land_(run: RunRecord, spec: list[tuple[str, bool, bool]] = ()) -> RunRecord:
        if spec and run.tool_calls == 0:
            run = run.model_copy(update={"tool_calls": len(spec), "errors_observed": sum(e for *_, e in spec)})
        store.land_run(run, make_calls(run, list(spec)))
        return run

    return land_
