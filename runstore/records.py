"""The records a run lands: one ``RunRecord`` per run, one ``CallRecord`` per MCP call the gateway saw.

These are the contract between the harness (which writes them), the store (which lands them as
Parquet) and the warehouse (which computes every metric from them). The Arrow schemas below are the
Parquet schemas; change a field here and in ``warehouse/sql/staging`` together.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from functools import cache
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, model_validator

from runstore.split import Split

if TYPE_CHECKING:
    import pyarrow as pa

RunStatus = Literal["passed", "failed", "infra_error"]
#: Why a run ended, one class per run: ``passed``, or the first failure that decided it, in this order:
#: ``timeout`` (killed at timeout_s), ``agent_exit`` (non-zero exit, crash, refused to start),
#: ``over_budget`` (max_steps exceeded, or a request refused for the run's model budget),
#: ``frame_violated`` (changed state outside its frame),
#: ``predicate_false``; or ``infra:<kind>`` for a run we could not dispatch (not attempted).
END_REASONS = ("passed", "timeout", "agent_exit", "over_budget", "frame_violated", "predicate_false")
#: How much of the agent's stderr a run record keeps (its tail), outside private months.
STDERR_TAIL_BYTES = 2000
#: ``malformed_call``: a tool call the model emitted whose arguments are not a JSON object, recorded
#: by the model gateway (it could never reach the MCP gateway); a step and an error like any other call.
ErrorKind = Literal["tool_error", "injected_fault", "unlisted_tool", "over_budget", "malformed_call"]

#: What stands in for the goal text in stored records unless the submitter publishes full traces.
REDACTED = "[redacted]"


class CallRecord(BaseModel):
    """One MCP ``tools/call`` as the gateway observed it."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    submission_id: str
    task_id: str
    server: str
    seq: int  # 1-based order of arrival within the run
    ts: datetime  # UTC, when the call arrived
    tool: str
    arguments_json: str  # the arguments as received (truncated to 4 KiB, see ``truncated``)
    arguments_bytes: int
    truncated: bool
    listed: bool  # the tool is in the task's available_tools
    is_error: bool
    error_kind: ErrorKind | None
    error_message: str | None
    latency_ms: float  # time inside the gateway, from arrival to answer
    result_bytes: int


class RunRecord(BaseModel):
    """One agent run on one task."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    submission_id: str
    submitter: str
    agent: str
    split: str  # canonical text of a runstore.split.Split: dev, YYYY-MM, Historical-YYYY-MM, dir:<name>
    month: str  # YYYY-MM the run belongs to (partition key)
    task_id: str
    task_hash: str
    server: str
    difficulty: str
    category: str  # standard | recovery
    goal: str  # REDACTED unless the submitter opted in to publishing traces
    status: RunStatus
    passed: bool
    predicate_passed: bool | None  # None when the run never reached evaluation (infra error)
    over_budget: bool  # max_steps exceeded, or the model gateway refused a request for the run's model budget
    timed_out: bool  # killed at timeout_s
    agent_error: bool  # non-zero exit, crash, or refused to start
    exit_code: int | None
    max_steps: int
    timeout_s: float
    tool_calls: int  # calls the gateway counted against max_steps
    errors_observed: int  # calls answered with an error of any kind
    faults_injected: int
    infra_error: str | None  # what failed on our side
    sandbox: str
    started_at: datetime
    ended_at: datetime
    duration_s: float
    agent_s: float  # wall time the agent process was alive
    harness_ms: float  # our own overhead: duration less the agent's time
    final_state_digest: str | None  # HMAC-SHA256 keyed by the task's nonce (tasks_catalog.hashing.state_digest)
    end_reason: str  # one of END_REASONS, or "infra:<kind>"
    stderr_tail: str | None  # the agent's last STDERR_TAIL_BYTES of stderr; None on private months
    goals_published: bool  # the goal text is stored in clear (the submitter opted in); never on private months
    frame_held: bool | None = None  # the run changed only what the task's frame allows; None: no frame / not judged
    frame_violations: str | None = None  # the entities outside the frame (kind, id, change); kinds only on private months
    # Repeated trials and the model gateway's meter (zero for agents that used no model through it).
    trial: int = 1  # 1..K under --trials K; the run id carries it from trial 2 on
    model_requests: int = 0  # chat requests the upstream answered
    model_errors: int = 0  # of those, errors (HTTP error, not a chat completion, broken stream, unavailable)
    model_retries: int = 0  # upstream attempts repeated after a 429, 5xx or connection error
    model_refused: int = 0  # requests refused for the run's model request/token budget
    model_prompt_tokens: int = 0
    model_completion_tokens: int = 0
    model_tokens_estimated: bool = False  # the upstream sent no usage for some request; we counted
    model_latency_ms: float = 0.0  # summed over the run's model requests
    model_cost_nanousd: int = 0  # from the operator's price table, in 1e-9 USD (integer, so sums are exact)
    split_kind: str = ""  # dev | private | historical | folder: filled from ``split`` (parsed once, here)
    # What judged it: the task's version (results of different versions are never ranked together) and
    # the code's (package version and git commit). Runs landed before these fields read as 1 and "".
    task_version: int = 1
    code_version: str = ""

    @model_validator(mode="before")
    @classmethod
    def _split_parsed_once(cls, data: Any) -> Any:
        """``split`` becomes its canonical text and ``split_kind`` its kind; a stored kind that
        disagrees with the split is refused, naming both."""
        if isinstance(data, dict) and "split" in data:
            split = Split.parse(data["split"])
            given = data.get("split_kind") or split.kind
            if given != split.kind:
                raise ValueError(f"split_kind {given!r} does not match split {data['split']!r} ({split.kind})")
            data = {**data, "split": split.text, "split_kind": split.kind}
        return data


def _arrow_schema(model: type[BaseModel]) -> pa.Schema:
    import pyarrow as pa

    mapping = {
        str: pa.string(),
        int: pa.int64(),
        float: pa.float64(),
        bool: pa.bool_(),
        datetime: pa.timestamp("us", tz="UTC"),
    }
    fields = []
    for name, info in model.model_fields.items():
        ann = info.annotation
        nullable = False
        args = getattr(ann, "__args__", ())
        if type(None) in args:
            nullable = True
            ann = next(a for a in args if a is not type(None))
            args = getattr(ann, "__args__", ())
        if getattr(ann, "__origin__", None) is Literal or (args and all(isinstance(a, str) for a in args)):
            ann = str
        fields.append(pa.field(name, mapping[ann], nullable=nullable))
    return pa.schema(fields)


@cache
def _schemas() -> dict[str, pa.Schema]:
    return {"CALL_SCHEMA": _arrow_schema(CallRecord), "RUN_SCHEMA": _arrow_schema(RunRecord)}


def __getattr__(name: str) -> Any:
    # CALL_SCHEMA and RUN_SCHEMA are built on first use: pyarrow costs ~0.3 s to import, and the
    # gateway and the CLI's start need the records, not Arrow.
    if name in ("CALL_SCHEMA", "RUN_SCHEMA"):
        return _schemas()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["CALL_SCHEMA", "END_REASONS", "REDACTED", "STDERR_TAIL_BYTES", "RUN_SCHEMA", "CallRecord", "ErrorKind", "RunRecord", "RunStatus"]
