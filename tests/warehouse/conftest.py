"""Hand-built traces: runs and calls with defaults, so each test states only what it is about."""

from __future__ import annotations

import threading
import urllib.request
from datetime import UTC, datetime, timedelta

import pytest

from runstore.records import REDACTED, RESULT_TEXT_KEPT, CallRecord, RunRecord
from runstore.split import Split
from runstore.store import open_store

T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def make_run(run_id: str, *, submission_id: str = "sub-a", status: str = "passed", **fields) -> RunRecord:
    """A run; ``status`` sets passed/infra_error consistently, anything else may be overridden."""
    split = fields.pop("split", "2026-05")
    month = fields.pop("month", Split.parse(split).month or "2026-05")
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
    """Calls of ``run`` from ``(tool, listed, is_error)`` triples, in order; on a private month redacted
    as the gateway redacts them (no arguments, result or error text; an unlisted tool unnamed)."""
    calls = []
    private = run.split_kind == "private"
    for seq, (tool, listed, is_error) in enumerate(spec, start=1):
        kind = None if not is_error else ("unlisted_tool" if not listed else "tool_error")
        text = f"{kind}: failed" if is_error else '{"ok": true}'
        calls.append(CallRecord(
            run_id=run.run_id, submission_id=run.submission_id, task_id=run.task_id, server=run.server, seq=seq,
            ts=run.started_at + timedelta(milliseconds=100 * seq),
            tool=tool if listed or not private else "[unlisted]", arguments_json=REDACTED if private else "{}",
            arguments_bytes=2, truncated=False, listed=listed, is_error=is_error, error_kind=kind,
            error_message=(kind if private else "failed") if is_error else None, latency_ms=1.5, result_bytes=64,
            result_text=None if private else text, result_truncated=None if private else False,
            result_cap=None if private else RESULT_TEXT_KEPT,
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


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    """The warehouse over tests/warehouse/snapshot.py's synthetic store (every mart has rows, both
    flags fire), built once per module; read-only."""
    from tests.warehouse.snapshot import synthetic_warehouse

    return synthetic_warehouse(tmp_path_factory.mktemp("synthetic"))


class MotoEndpoint:
    """moto's S3 over HTTP on 127.0.0.1, which the test can stop and start again on the same port
    (moto keeps its buckets in process memory, so they outlive a restart)."""

    def __init__(self) -> None:
        self.port = 0
        self.running = False
        self.start()

    def start(self) -> None:
        from moto.server import DomainDispatcherApplication, create_backend_app
        from werkzeug.serving import make_server

        app = DomainDispatcherApplication(create_backend_app)
        self._server = make_server("127.0.0.1", self.port, app, threaded=True)
        self.port = self._server.server_port
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        self.running = True

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()  # refuse new connections at once rather than leave them queued
        self._thread.join(timeout=10)
        self.running = False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def moto_endpoint(monkeypatch, bucket: str = "bench"):
    """Generator for a fixture: a moto S3 endpoint on loopback with ``bucket``, AWS settings pointed
    at it; moto's state is wiped afterwards."""
    import boto3

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL_S3"):
        monkeypatch.delenv(name, raising=False)
    moto = MotoEndpoint()
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto.url)
    boto3.client("s3").create_bucket(Bucket=bucket)
    yield moto
    if not moto.running:
        moto.start()
    # moto keeps its state per process, not per server: wipe it so the next test starts empty
    urllib.request.urlopen(urllib.request.Request(f"{moto.url}/moto-api/reset", method="POST"), timeout=10).close()
    moto.stop()
