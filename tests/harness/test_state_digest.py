"""A run record's final-state digest is keyed by the task's nonce: equal for equal final states of the
same task (so runs of one month still compare), useless to someone who holds a published run record
and guesses at a sealed task's values."""

from __future__ import annotations

import hashlib
import hmac

import rfc8785

from servers import get_spec
from tasks_catalog.hashing import state_digest
from tests.harness.conftest import run
from tests.harness.test_gateway import make_task

OTHER_NONCE = "9b2e71c04d5a3f68e1c7b092a4d6f315"


def _initial_dump(task):
    with get_spec(task.server).open(task.initial_state) as tools:
        return tools.snapshot().dump()


def test_a_runs_final_state_digest_cannot_be_recomputed_from_the_state_alone():
    task = make_task()
    results = {r.run.task_id: r.run for r in run([task, make_task(id="fs-other-nonce", nonce=OTHER_NONCE)], "noop")}
    first, other = results[task.id], results["fs-other-nonce"]
    state = _initial_dump(task)  # noop changes nothing: the final state is the initial one
    # what a guesser could compute from published data and a candidate state: none of it matches
    unsalted = hashlib.sha256(rfc8785.dumps(state)).hexdigest()
    assert unsalted not in first.final_state_digest
    # only the task's nonce (sealed until the month retires) recomputes it
    keyed = hmac.new(task.nonce.encode(), rfc8785.dumps(state), hashlib.sha256).hexdigest()
    assert first.final_state_digest == f"hmac-sha256:{keyed}"
    # the same final state under another task's nonce digests differently
    assert other.final_state_digest != first.final_state_digest


def test_runs_of_the_same_task_still_compare_by_digest():
    task = make_task()
    noop, again, oracle = (r.run for r in run([task], "noop") + run([task], "noop", submission_id="b")
                           + run([task], "oracle"))
    assert noop.final_state_digest == again.final_state_digest
    assert oracle.passed and oracle.final_state_digest != noop.final_state_digest
    assert noop.final_state_digest == state_digest(task, _initial_dump(task))
