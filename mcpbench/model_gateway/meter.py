"""What the model gateway counts for one run, how its budgets admit a request, and how the model's
emitted tool calls reach the trace.

Counted server-side, like the MCP trace: nothing here comes from the agent's own report.

Admission is atomic (the gateway's requests share one event loop, and nothing waits between the
check and the hold): a request is admitted only while the requests answered plus those in flight are
below the request budget, and only while the tokens counted plus the worst case of those in flight plus
its own worst case (``admission.Ask``) fit the token budget. When it fits only once requests in flight
settle, it waits for them; when nothing is in flight it is granted the completion that is left (at
least one token a choice), or refused. On settling, the hold is replaced by what the request cost: the
upstream's usage block, or, when there is none (a stream cut off, an upstream that reports none), the
gateway's count, never more than the hold. So the tokens counted never pass the budget, unless the
upstream bills a request more than its worst case.

Each request it admits or refuses is also a ``Turn`` of the run (``RunMeter.turns``): when it came, after
how many of the run's MCP calls, what it cost, how it ended and the model's text (capped), which the
runner lands beside the run as ``TurnRecord``s (none of the text on a private month).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from mcpbench.model_gateway.admission import Ask, Reservation
from mcpbench.model_gateway.completion import Completion, EmittedCall, estimate_tokens
from mcpbench.model_gateway.settings import ModelSettings
from runstore.records import REDACTED, TURN_TEXT_KEPT, CallRecord, ErrorKind, TurnRecord, keep_text

#: how much of a malformed call's raw arguments a call record keeps (as for MCP calls)
ARGUMENTS_KEPT = 4096


@dataclass
class Turn:
    """One request of a run to its model, as metered (``TurnRecord`` once the run lands)."""

    seq: int
    ts: datetime
    calls_before: int  # the run's MCP calls recorded when it arrived
    model: str
    status: str = "ok"  # ok | error | refused | unavailable (runstore.records.TurnStatus)
    finish_reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens_estimated: bool = False
    latency_ms: float = 0.0
    tool_calls: int = 0
    text: str = ""
    text_truncated: bool = False

    def record(self, *, run_id: str, submission_id: str, task_id: str, redact: bool) -> TurnRecord:
        """The turn as a record of run ``run_id``; with ``redact`` (a private month) without its text."""
        return TurnRecord(
            run_id=run_id, submission_id=submission_id, task_id=task_id, seq=self.seq, ts=self.ts,
            calls_before=self.calls_before, model=self.model[:200], status=self.status,
            finish_reason=self.finish_reason[:100] if self.finish_reason else None,
            prompt_tokens=self.prompt_tokens, completion_tokens=self.completion_tokens,
            tokens_estimated=self.tokens_estimated, latency_ms=self.latency_ms, tool_calls=self.tool_calls,
            text=None if redact else self.text, text_truncated=None if redact else self.text_truncated,
            text_cap=None if redact else TURN_TEXT_KEPT)


@dataclass
class RunMeter:
    """One run's model traffic."""

    requests: int = 0  # requests the upstream answered (any status), refused ones excluded
    errors: int = 0  # answered with an error, not a chat completion, or a stream that broke
    retries: int = 0  # upstream attempts repeated after a 429, 5xx or connection error
    retry_wait_s: float = 0.0
    refused: int = 0  # refused for the run's request or token budget
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens_estimated: bool = False  # some request had no usage block: its tokens were counted by us
    latency_ms: float = 0.0  # summed over requests, from forwarding to the last byte
    cost_nanousd: int = 0
    tool_calls_emitted: int = 0
    malformed_calls: int = 0
    #: why the model stayed unavailable (retries exhausted); set once, the run is then an infra error
    unavailable: str | None = None
    in_flight: int = 0  # admitted, not yet settled
    reserved_tokens: int = 0  # the worst case of the requests in flight
    turns: list[Turn] = field(default_factory=list)  # every request read, in arrival order

    def turn(self, model: str, calls_before: int) -> Turn:
        """Start the run's next turn: a request for ``model`` that arrived after ``calls_before`` MCP calls."""
        turn = Turn(seq=len(self.turns) + 1, ts=datetime.now(UTC), calls_before=calls_before, model=model)
        self.turns.append(turn)
        return turn

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def budget_exceeded(self) -> bool:
        return self.refused > 0

    def admit(self, settings: ModelSettings, ask: Ask) -> Reservation | str | None:
        """Hold the run's budgets for a request (a ``Reservation``, its completion cap granted), or say
        why it is refused (a string), or None: it fits only once requests in flight settle."""
        if settings.max_requests is not None and self.requests + self.in_flight >= settings.max_requests:
            return f"the run's model request budget ({settings.max_requests} requests) is spent"
        completion = ask.completion
        if settings.max_tokens is not None:
            free = settings.max_tokens - self.tokens  # at most what is left once those in flight settle
            if free < ask.prompt + ask.choices:
                spent = f"the run's model token budget ({settings.max_tokens} tokens) is spent"
                return spent if free <= 0 else (f"{spent}: {free} are left, fewer than this request may take "
                                                f"(its prompt up to {ask.prompt} and a token a choice)")
            room = free - self.reserved_tokens
            if ask.tokens > room:
                if self.in_flight:
                    return None
                completion = (room - ask.prompt) // ask.choices
        reservation = Reservation(ask.prompt, completion, ask.choices)
        self.in_flight += 1
        self.reserved_tokens += reservation.tokens
        return reservation

    def release(self, reservation: Reservation) -> None:
        """End a request's hold (once; a request that settled is already released)."""
        if reservation.open:
            reservation.open = False
            self.in_flight -= 1
            self.reserved_tokens -= reservation.tokens

    def count(self, request: dict[str, Any], done: Completion, *, model: str, settings: ModelSettings,
              started: float, error: bool, reservation: Reservation, turn: Turn | None = None) -> None:
        """Meter one answered request, settling its hold (and filling in its ``turn``)."""
        self.release(reservation)
        self.requests += 1
        failed = error or done.malformed is not None
        self.errors += int(failed)
        latency = (time.perf_counter() - started) * 1000
        self.latency_ms += latency
        estimated = False
        if done.usage is not None:
            prompt, completion = done.usage["prompt_tokens"], done.usage["completion_tokens"]
        elif error and not done.chunks:  # an error answer, not billed (a stream that broke was, for what came)
            prompt = completion = 0
        else:
            self.tokens_estimated = estimated = True
            prompt = estimate_tokens(json.dumps(request.get("messages", ""), ensure_ascii=False)
                                     + json.dumps(request.get("tools", ""), ensure_ascii=False))
            completion = estimate_tokens(done.content + "".join(c.name + c.arguments for c in done.calls))
            # a count, not the upstream's: never more than the request could have been billed
            prompt = min(prompt, reservation.prompt)
            completion = min(completion, reservation.completion * reservation.choices)
        self.prompt_tokens += prompt
        self.completion_tokens += completion
        self.cost_nanousd += settings.prices.for_model(model).nanousd(prompt, completion)
        if turn is not None:
            turn.status = "error" if failed else "ok"
            turn.finish_reason, turn.latency_ms, turn.tool_calls = done.finish_reason, latency, len(done.calls)
            turn.prompt_tokens, turn.completion_tokens = prompt, completion
            turn.tokens_estimated = estimated
            turn.text, turn.text_truncated = keep_text(done.content, TURN_TEXT_KEPT)

    def as_record_fields(self) -> dict[str, Any]:
        """The run record's ``model_*`` columns."""
        return dict(model_requests=self.requests, model_errors=self.errors, model_retries=self.retries,
                    model_refused=self.refused, model_prompt_tokens=self.prompt_tokens,
                    model_completion_tokens=self.completion_tokens, model_tokens_estimated=self.tokens_estimated,
                    model_latency_ms=self.latency_ms, model_cost_nanousd=self.cost_nanousd)


def record_emitted_calls(gateway: Any, calls: list[EmittedCall], meter: RunMeter) -> None:
    """Put the model's malformed tool calls in the run's MCP trace.

    A well-formed call is recorded by the MCP gateway when the agent makes it. A malformed one (its
    arguments are not a JSON object) can never be made, so it is recorded here, as the model emitted
    it: it is a step (it counts against ``max_steps``), an error (``malformed_call``), and, when its
    name is not one of the task's tools, a hallucination (``listed`` false)."""
    for call in calls:
        meter.tool_calls_emitted += 1
        _, why = call.parsed_arguments()
        if why is None:
            continue
        meter.malformed_calls += 1
        if gateway is None:
            continue
        seq = len(gateway.calls) + 1
        server, tool, listed = gateway.where(call.name)  # the loop calls at the run's address
        kind: ErrorKind = "malformed_call"
        message = f"malformed tool call: {why}"
        if seq > gateway.task.max_steps:
            gateway.over_budget = True
            kind, message = "over_budget", f"step budget exhausted: this task allows {gateway.task.max_steps} tool calls"
        raw = call.arguments
        gateway.calls.append(CallRecord.model_construct(
            run_id=gateway.run_id, submission_id=gateway.submission_id, task_id=gateway.task.id,
            server=server, seq=seq, ts=datetime.now(UTC),
            tool=(tool if listed or not gateway.redact else "[unlisted]")[:200],
            arguments_json=REDACTED if gateway.redact else raw[:ARGUMENTS_KEPT],
            arguments_bytes=len(raw.encode()), truncated=len(raw) > ARGUMENTS_KEPT, listed=listed,
            is_error=True, error_kind=kind, error_message=kind if gateway.redact else message[:500],
            latency_ms=0.0, result_bytes=0,
        ))


__all__ = ["RunMeter", "Turn", "record_emitted_calls"]
