"""Fault injection, decided in one place for the gateway (mcpbench.gateway) and the acceptance gate
(which replays the reference solution with the task's faults, as the oracle meets them).

Two families of fault (``Fault.kind``):

* **failed before commit** (``rate_limit``, ``unavailable``, ``timeout``): the call is answered with
  the fault's error and not executed. Retrying succeeds once the fault's ``times`` are used up.
* **failed after commit** (``timeout_after_commit``, a partial failure): the call is executed, the
  change goes through, and the answer is still an error (the response was lost, as when a gateway
  times out after the upstream committed). An agent that retries blindly makes the change twice;
  the task's frame (``max``) catches the duplicate. The right recovery is to check the state first.
"""

from __future__ import annotations

from collections import Counter

from tasks_catalog.schema import Fault

FAULT_MESSAGES = {
    "rate_limit": "rate limited: too many requests (HTTP 429); retry the call",
    "unavailable": "service unavailable (HTTP 503); retry the call",
    "timeout": "upstream timed out (HTTP 504); retry the call",
    "timeout_after_commit": ("gateway timeout (HTTP 504): no response from upstream; "
                             "the request may or may not have been applied"),
}
#: Kinds whose call is executed although its answer is an error.
AFTER_COMMIT = frozenset({"timeout_after_commit"})


class FaultPlan:
    """Which call of a run gets which fault: the ``on_call``-th call of ``tool`` (counting only that
    tool's calls that reach the backend, 1-based) and the ``times - 1`` after it."""

    def __init__(self, faults: list[Fault] | tuple[Fault, ...]) -> None:
        self.faults = tuple(faults)
        self._per_tool: Counter[str] = Counter()

    def next(self, tool: str) -> Fault | None:
        """Count one call of ``tool`` and return the fault it meets, if any."""
        self._per_tool[tool] += 1
        nth = self._per_tool[tool]
        return next((f for f in self.faults if f.tool == tool and f.on_call <= nth < f.on_call + f.times), None)


def executes(fault: Fault | None) -> bool:
    """Whether a call that meets ``fault`` still runs on the backend."""
    return fault is None or fault.kind in AFTER_COMMIT


def message(fault: Fault) -> str:
    return FAULT_MESSAGES[fault.kind]


__all__ = ["AFTER_COMMIT", "FAULT_MESSAGES", "FaultPlan", "executes", "message"]
