"""Gating one list of tasks on several processes: the caller's and helpers that share its cache.

A month's gate is CPU-bound Python (plus the TypeScript verifier's node processes), so on a machine
with several cores one process leaves most of them idle. :func:`check` starts ``processes - 1``
helper processes (``python -m tasks_catalog.gate_pool``) that gate the same tasks through the same
cache folder (tasks_catalog/gate_cache.py) while the caller gates them too: each claims chunks of
tasks the others have not claimed, so together they judge every task once. The tasks reach a helper
through its standard input, never a file (a private month's plaintext stays in memory); a helper
writes only the cache's records (ids and hashes). Without a cache folder, a temporary one serves for
the call and is removed.

A helper that dies releases its claims (they are advisory locks), so the caller judges what it left;
a task a helper failed is judged again by the caller, which reports why. Results are the caller's:
a task accepted by a helper this time is reported as judged (``cached`` only for what was accepted
before the call).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import threading
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from tasks_catalog.gate_cache import GateCache
from tasks_catalog.hashing import task_hash
from tasks_catalog.schema import Task

if TYPE_CHECKING:
    from tasks_catalog.gate import Gate, GateResult

#: How long the caller waits for a helper once every task is settled (it only has to exit).
HELPER_EXIT_S = 60


def check(gate: Gate, tasks: list[Task], processes: int) -> list[GateResult]:
    """``gate.check(tasks)`` on ``processes`` processes in all (this one included)."""
    if processes <= 1 or len(tasks) <= 1:
        return gate.check(tasks)
    with tempfile.TemporaryDirectory(prefix="mcpbench-gate-") as scratch:
        cache = gate.cache or GateCache(Path(scratch), tuple(gate.verifiers))
        gate = replace(gate, cache=cache)
        before = {i for i, t in enumerate(tasks) if cache.accepted(t.id, task_hash(t))}
        # Helpers for what is left to judge only: a month the cache holds whole starts none (each costs
        # seconds of imports), and a helper never gets only tasks that are accepted already.
        todo = [t for i, t in enumerate(tasks) if i not in before]
        payload = json.dumps([t.to_json() for t in todo]).encode()
        root = str(Path(__file__).resolve().parents[1])
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
        helpers = []
        feeders = []
        try:
            for _ in range(min(processes, len(todo)) - 1):
                helper = subprocess.Popen(
                    [sys.executable, "-m", "tasks_catalog.gate_pool", str(cache.root), ",".join(cache.verifiers)],
                    stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
                helpers.append(helper)
                # A month's payload is megabytes, more than a pipe holds: written here, it would keep this
                # process waiting for the helper's imports before it judged anything itself.
                feeder = threading.Thread(target=_feed, args=(helper, payload), name="gate-pool-feed", daemon=True)
                feeder.start()
                feeders.append(feeder)
            results = gate.check(tasks)
        finally:
            for helper in helpers:
                try:
                    helper.wait(timeout=HELPER_EXIT_S)
                except subprocess.TimeoutExpired:
                    helper.kill()
                    helper.wait()
            for feeder in feeders:
                feeder.join(timeout=HELPER_EXIT_S)  # its helper has exited: the feed is written, or broke off
    return [r if i in before or not r.cached else replace(r, cached=False) for i, r in enumerate(results)]


def _feed(helper: subprocess.Popen[bytes], payload: bytes) -> None:
    """Hand ``payload`` to ``helper``'s standard input and close it; a helper that died before reading it
    all leaves its tasks to the others (``check``)."""
    assert helper.stdin is not None  # stdin=PIPE
    with contextlib.suppress(BrokenPipeError), helper.stdin:
        helper.stdin.write(payload)


def _helper(cache_root: str, verifiers: str) -> None:
    from tasks_catalog.gate import acceptance_gate

    tasks = [Task.model_validate(doc) for doc in json.loads(sys.stdin.buffer.read())]
    gate = acceptance_gate(typescript="typescript" in verifiers.split(","), cache=cache_root)
    if ",".join(gate.verifiers) != verifiers:
        raise SystemExit(f"this helper would consult {gate.verifiers}, not {verifiers}")
    gate.check(tasks)


if __name__ == "__main__":
    _helper(*sys.argv[1:3])


__all__ = ["HELPER_EXIT_S", "check"]
