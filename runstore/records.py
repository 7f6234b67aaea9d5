"""The records a run lands: one ``RunRecord`` per run, one ``CallRecord`` per MCP call the gateway saw,
and one ``TurnRecord`` per request the model gateway metered for the run.

These are the contract between the harness (which writes them), the store (which lands them as
Parquet) and the warehouse (which computes every metric from them). The Arrow schemas below are the
Parquet schemas; change a field here and in ``warehouse/sql/staging`` together.

A run's transcript is rebuilt from the store alone: its calls in ``seq`` order (each with its arguments,
its result text as the agent saw it, its error and the fault injected on it), its model turns in
``seq`` order placed among the calls by ``calls_before`` (the turn came after that many calls), and the
run record's ``end_reason``, ``explanation`` (which clause of the predicate failed, expected against
found; which entities broke the frame) and ``stderr_tail``. On a private month none of the text is
kept: no arguments, results, turn text, error text or stderr, and the explanation keeps clause ids only
(``Explanation.ids_only``). Fields added after the first stores default to null (or their default) when
an older file lacks them.
"""

from __future__ import annotations

import re
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

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
#: ``call_timeout``: a call that ran into the call time limit (servers/kit/calls.py): a statement
#: interrupted and rolled back, or work abandoned at the wall-clock backstop.
ErrorKind = Literal["tool_error", "injected_fault", "unlisted_tool", "over_budget", "malformed_call", "call_timeout"]
#: Why the agent's process ended, for a run that ended ``timeout`` or ``agent_exit`` (``end_reason_detail``):
#: a limit of the sandbox that ended or held it, by precedence ``connection limit`` (it held more
#: connections than its link may: ended), ``memory limit`` (killed by it), ``pids limit`` (it ran into
#: its process limit, then failed or was killed at the deadline: a fork bomb), ``deadline`` (killed at
#: timeout_s of its own time); else ``exit <code>``, ``signal <number>`` or, for a hosted agent's
#: answer or a loop's failure, ``error``.
END_REASON_DETAILS = ("connection limit", "memory limit", "pids limit", "deadline")

#: What a submitter's label for an agent may be (``--label my-agent@1.2``): a letter or digit, then up to
#: 99 letters, digits, spaces and ``. _ - @ + : / =``; one line.
LABEL_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9 ._@+:/=-]{0,99}$"


def check_label(label: str) -> str:
    """``label`` if it is a valid agent label, else ``ValueError`` saying what a label may be."""
    if not re.fullmatch(LABEL_PATTERN, label):
        raise ValueError(f"label {label!r} is not a valid agent label: use a letter or digit, then up to 99 letters, "
                         "digits, spaces or . _ - @ + : / = (e.g. my-agent@1.2)")
    return label


#: What stands in for the goal text in stored records unless the submitter publishes full traces.
REDACTED = "[redacted]"
#: How much of a call's result text a call record keeps, in UTF-8 bytes (``result_cap`` records it, and
#: ``result_truncated`` whether the text was cut there; ``result_bytes`` is always the whole size).
RESULT_TEXT_KEPT = 16 * 1024
#: How much of the model's text a turn record keeps, in UTF-8 bytes (``text_cap``, ``text_truncated``).
TURN_TEXT_KEPT = 16 * 1024
#: How a model turn ended: ``ok`` (a chat completion), ``error`` (an error answer, not a chat completion,
#: a broken stream), ``refused`` (the run's model budget refused it; never forwarded), ``unavailable``
#: (the upstream stayed unavailable through the retries).
TurnStatus = Literal["ok", "error", "refused", "unavailable"]


def keep_text(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to at most ``limit`` UTF-8 bytes (never inside a character), and whether it was cut."""
    data = text.encode("utf-8", errors="replace")
    if len(data) <= limit:
        return text, False
    return data[:limit].decode("utf-8", errors="ignore"), True


#: How much of an explanation is kept: the first clauses and frame breaks (the rest are counted), and
#: the characters of each ``found`` text.
EXPLAINED_CLAUSES = 8
EXPLAINED_FRAME = 8
FOUND_KEPT = 600


class FailedClause(BaseModel):
    """One clause of a success predicate that decided a false verdict: a clause that did not hold, or
    (``negated``) the body of a ``not`` that held."""

    model_config = ConfigDict(extra="forbid")

    #: its id: the JSON path of the clause in the predicate (``$`` for the whole, ``$.all[2]``,
    #: ``$.any[0].all[1]``, ``$.all[1].not`` for the body of a ``not``). Both verifiers give the same ids.
    clause: str
    primitive: str | None = None  # ``server.name``; ``all``/``any``/``not`` for a compound body of a ``not``
    negated: bool | None = None  # the clause is the body of a ``not``: it held, and must not
    args: dict[str, Any] | None = None  # the primitive's arguments as the task gives them
    expected: str | None = None  # what the clause asks, in words
    found: str | None = None  # what the final state held instead (capped at FOUND_KEPT characters)


class FrameBreak(BaseModel):
    """An entity the run changed outside its task's frame (docs/frames.md); on a private month only its
    kind, the change and how many (``count``)."""

    model_config = ConfigDict(extra="forbid")

    entity: str  # the kind: file, message, row, ...
    change: str  # create | update | delete (the frame's words)
    id: str | None = None
    fields: list[str] | None = None  # for an update: the fields that changed
    reason: str | None = None  # why no allowance of the frame covers it
    count: int | None = None  # private months: how many entities of this kind broke the frame this way


class Explanation(BaseModel):
    """Why a judged run did not pass, stored as JSON on its run record (``RunRecord.explanation``)."""

    model_config = ConfigDict(extra="forbid")

    clauses: list[FailedClause] = []  # the first EXPLAINED_CLAUSES failing clauses, in predicate order
    clauses_omitted: int = 0  # failing clauses beyond those
    frame: list[FrameBreak] = []  # the first EXPLAINED_FRAME entities outside the frame
    frame_omitted: int = 0

    def ids_only(self) -> Explanation:
        """What a private month keeps: the clause ids (a path into the predicate's shape, never a value)
        and the frame breaks counted by kind and change."""
        counts: dict[tuple[str, str], int] = {}
        for brk in self.frame:
            counts[(brk.entity, brk.change)] = counts.get((brk.entity, brk.change), 0) + (brk.count or 1)
        return Explanation(clauses=[FailedClause(clause=c.clause) for c in self.clauses],
                           clauses_omitted=self.clauses_omitted,
                           frame=[FrameBreak(entity=e, change=c, count=n) for (e, c), n in counts.items()],
                           frame_omitted=0)

    def is_ids_only(self) -> bool:
        """Whether it holds nothing a private month may not keep (``ids_only``'s form)."""
        return (all(set(c.model_dump(exclude_none=True)) <= {"clause"} for c in self.clauses)
                and all(set(f.model_dump(exclude_none=True)) <= {"entity", "change", "count"} for f in self.frame))

    def to_json(self) -> str:
        return self.model_dump_json(exclude_none=True)

    def lines(self) -> list[str]:
        """What a person reads: a line per failing clause (its id, primitive, what it asks; what the state
        held, on the line below it) and per entity outside the frame; ids and kinds only when that is
        all it holds."""
        out = []
        for c in self.clauses:
            head = f"{c.clause}" + (f" {c.primitive}" if c.primitive else "") + (" (must not hold)" if c.negated else "")
            out.append(f"{head}: expected {c.expected}" if c.expected else head)
            if c.found:
                out.append(f"    found: {c.found}")
        if self.clauses_omitted:
            out.append(f"... and {self.clauses_omitted} more failing clauses")
        for f in self.frame:
            what = f"frame: {f.entity} {f.id} {f.change}" if f.id is not None else \
                f"frame: {f.count or 1} {f.entity} {f.change}"
            out.append(what + (f" ({', '.join(f.fields)})" if f.fields else "") + (f": {f.reason}" if f.reason else ""))
        if self.frame_omitted:
            out.append(f"... and {self.frame_omitted} more entities outside the frame")
        return out


def explanation_ids_only(text: str | None) -> bool:
    """Whether a stored explanation (``RunRecord.explanation``) is null or in the private form; a text
    that is not an explanation is not."""
    if text is None:
        return True
    try:
        return Explanation.model_validate_json(text).is_ids_only()
    except ValueError:
        return False


class CallRecord(BaseModel):
    """One MCP ``tools/call`` as the gateway observed it."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    submission_id: str
    task_id: str
    server: str  # the server the call went to (a cross-server task's: the one its name or address named)
    seq: int  # 1-based order of arrival within the run
    ts: datetime  # UTC, when the call arrived
    tool: str  # the tool's own name (no '<server>__'), or, for an unlisted call, the name as the agent sent it
    arguments_json: str  # the arguments as received (truncated to 4 KiB, see ``truncated``)
    arguments_bytes: int
    truncated: bool
    listed: bool  # the tool is in the task's available_tools
    is_error: bool
    error_kind: ErrorKind | None
    error_message: str | None
    latency_ms: float  # time inside the gateway, from arrival to answer
    result_bytes: int  # the size of the result's text, in UTF-8 bytes, whole
    # What the agent was answered, outside private months (null there, and in calls landed before these
    # columns): the result's text content (a non-text block as ``[<type> content]``), cut at
    # ``result_cap`` bytes (RESULT_TEXT_KEPT); ``result_truncated`` says whether it was cut.
    result_text: str | None = None
    result_truncated: bool | None = None
    result_cap: int | None = None
    fault: str | None = None  # the kind of fault injected on this call (tasks_catalog/faults.py); null on private months


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
    server: str  # the task's server, or "cross-server" (tasks_catalog.schema.CROSS_SERVER) for a cross-server task
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
    end_reason_detail: str | None = None  # timeout / agent_exit: why the process ended (END_REASON_DETAILS, exit <code>, ...)
    harness_wait_s: float = 0.0  # the agent's time waiting on the harness (its calls, loop stalls): not charged to timeout_s
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
    label: str | None = Field(default=None, pattern=LABEL_PATTERN)  # the submitter's name for the agent and its version (``--label my-agent@1.2``)
    #: Why the run did not pass: an ``Explanation`` as JSON (the predicate's failing clauses, expected
    #: against found; the entities outside the frame); clause ids and frame kinds only on private months.
    #: Null when the run passed, was not judged (infra error), or landed before this column.
    explanation: str | None = None
    servers: list[str] = Field(default_factory=list)  # the task's servers, in its order (one for a single-server task)
    # What judged it: the task's version (results of different versions are never ranked together) and
    # the code's (package version and git commit). Runs landed before these fields read as 1 and "".
    task_version: int = 1
    code_version: str = ""

    @model_validator(mode="before")
    @classmethod
    def _split_parsed_once(cls, data: Any) -> Any:
        """``split`` becomes its canonical text and ``split_kind`` its kind; a stored kind that
        disagrees with the split is refused, naming both. A record that leaves ``servers`` out (written
        before it was kept) names its one ``server``."""
        if isinstance(data, dict) and "split" in data:
            split = Split.parse(data["split"])
            given = data.get("split_kind") or split.kind
            if given != split.kind:
                raise ValueError(f"split_kind {given!r} does not match split {data['split']!r} ({split.kind})")
            data = {**data, "split": split.text, "split_kind": split.kind}
        if isinstance(data, dict) and not data.get("servers") and isinstance(data.get("server"), str):
            data = {**data, "servers": [data["server"]]}  # a single-server run's one server
        return data


class TurnRecord(BaseModel):
    """One request of the run's agent to its model, as the model gateway metered it: where it falls
    among the run's MCP calls (``calls_before``), what it cost, how it ended, and the model's text."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    submission_id: str
    task_id: str
    seq: int  # 1-based, in the order the model gateway received the run's requests
    ts: datetime  # UTC, when the request arrived
    calls_before: int  # MCP calls the run's gateway had recorded when it arrived: it comes after call #calls_before
    model: str  # the model the gateway forwarded to (pinned by the operator)
    status: TurnStatus
    finish_reason: str | None  # the upstream's (stop, tool_calls, length, ...); null when there was none
    prompt_tokens: int
    completion_tokens: int
    tokens_estimated: bool  # the upstream sent no usage block: the gateway counted
    latency_ms: float  # from forwarding to the last byte (0 for a refused request)
    tool_calls: int  # tool calls the model emitted in its answer
    # The model's text (the assistant message's content) cut at ``text_cap`` UTF-8 bytes (TURN_TEXT_KEPT);
    # null on private months.
    text: str | None
    text_truncated: bool | None
    text_cap: int | None


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
        ann: Any = info.annotation  # a type, a union or a Literal
        nullable = False
        args = getattr(ann, "__args__", ())
        if type(None) in args:
            nullable = True
            ann = next(a for a in args if a is not type(None))
            args = getattr(ann, "__args__", ())
        if getattr(ann, "__origin__", None) is Literal or (args and all(isinstance(a, str) for a in args)):
            ann = str
        if getattr(ann, "__origin__", None) is list and args:
            fields.append(pa.field(name, pa.list_(mapping[args[0]]), nullable=nullable))
            continue
        fields.append(pa.field(name, mapping[ann], nullable=nullable))
    return pa.schema(fields)


@cache
def _schemas() -> dict[str, pa.Schema]:
    return {"CALL_SCHEMA": _arrow_schema(CallRecord), "RUN_SCHEMA": _arrow_schema(RunRecord),
            "TURN_SCHEMA": _arrow_schema(TurnRecord)}


def __getattr__(name: str) -> Any:
    # CALL_SCHEMA, RUN_SCHEMA and TURN_SCHEMA are built on first use: pyarrow costs ~0.3 s to import, and
    # the gateway and the CLI's start need the records, not Arrow.
    if name in ("CALL_SCHEMA", "RUN_SCHEMA", "TURN_SCHEMA"):
        return _schemas()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["CALL_SCHEMA", "END_REASON_DETAILS", "END_REASONS", "EXPLAINED_CLAUSES", "EXPLAINED_FRAME", "FOUND_KEPT",  # noqa: F822 - the schemas are built on first use by __getattr__ above
           "LABEL_PATTERN", "REDACTED", "RESULT_TEXT_KEPT", "RUN_SCHEMA", "STDERR_TAIL_BYTES", "TURN_SCHEMA", "TURN_TEXT_KEPT",
           "CallRecord", "ErrorKind", "Explanation", "FailedClause", "FrameBreak", "RunRecord", "RunStatus",
           "TurnRecord", "TurnStatus", "check_label", "explanation_ids_only", "keep_text"]
