"""The TypeScript verifier, called from Python (``tasks_catalog/verifier-ts``).

``node dist/cli.js`` reads ``[{"server", "state", "predicate"}, ...]`` on stdin and answers one
verdict per case: ``true``/``false``, or ``{"verdict": null, "error": ..., "problems": [...]}`` for a
case it cannot decide (a malformed predicate, each problem with its JSON path; or a primitive outside
what it can evaluate, e.g. SQL outside its subset). Build it with ``npm ci && npm run build`` in the
package (``scripts/setup.sh`` does). Until it is built, ``available()`` is false and the gate uses the
Python verifier alone.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).with_name("verifier-ts")
CLI = PACKAGE / "dist" / "cli.js"
#: Test hook of the CLI: the named primitive's verdicts are inverted (see tests/verifier).
BREAK_ENV = "MCPBENCH_TS_BREAK"


class TypeScriptVerifierError(RuntimeError):
    """The TypeScript verifier could not give a verdict (its message names the case and why)."""


def unavailable_reason() -> str:
    if shutil.which("node") is None:
        return "node is not installed"
    return f"the TypeScript verifier is not built ({CLI} is missing); run `npm ci && npm run build` in {PACKAGE}"


def available() -> bool:
    return shutil.which("node") is not None and CLI.exists()


def build() -> None:
    """``npm ci && npm run build`` in the package (needs node, npm and the npm registry or its cache)."""
    for argv in (["npm", "ci", "--no-audit", "--no-fund"], ["npm", "run", "build"]):
        proc = subprocess.run(argv, cwd=PACKAGE, capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            raise TypeScriptVerifierError(f"`{' '.join(argv)}` failed in {PACKAGE}:\n{proc.stderr[-2000:]}")


def run(cases: list[tuple[str, dict[str, Any], dict[str, Any]]], *, break_primitive: str | None = None) -> list[Any]:
    """The CLI's raw answers on ``(server, dumped state, predicate)`` cases, in order: a bool, or a dict
    with ``"verdict": None`` and ``"error"`` for a case it could not decide."""
    payload = json.dumps([{"server": s, "state": st, "predicate": p} for s, st, p in cases])
    out = _call([], payload, break_primitive)
    if not isinstance(out, list) or len(out) != len(cases):
        raise TypeScriptVerifierError("TypeScript verifier answered with the wrong number of verdicts")
    _verdicts(out)  # each answer is a verdict or says why there is none
    return out


def _call(args: list[str], payload: str, break_hook: str | None = None) -> Any:
    """The JSON the CLI answers to ``payload`` in the mode ``args`` names; ``break_hook`` sets the test hook
    (which is otherwise never passed on from this process's environment)."""
    env = {k: v for k, v in os.environ.items() if k != BREAK_ENV}
    if break_hook is not None:
        env[BREAK_ENV] = break_hook
    proc = subprocess.run(["node", str(CLI), *args], input=payload, capture_output=True, text=True, timeout=120,
                          env=env, encoding="utf-8")
    return _answer(proc)


def _answer(proc: subprocess.CompletedProcess) -> Any:
    """The JSON the CLI wrote, or :class:`TypeScriptVerifierError` saying why there is none (a failed
    run; an exit 0 with no JSON, e.g. a ``dist/`` being rebuilt under it)."""
    if proc.returncode != 0:
        raise TypeScriptVerifierError(f"TypeScript verifier failed (exit {proc.returncode}): {proc.stderr[-2000:]}")
    try:
        return json.loads(proc.stdout)
    except ValueError:
        raise TypeScriptVerifierError(f"TypeScript verifier answered no JSON (exit 0): {proc.stdout[:200]!r}; "
                                      f"stderr: {proc.stderr[-1000:]!r}") from None


@dataclass(frozen=True)
class NoVerdict:
    """A case the TypeScript verifier could not decide; never ``True`` or ``False``, so a gate that
    compares verdicts by identity reports it as a disagreement, with ``str()`` saying why."""

    case: int
    error: str

    def __str__(self) -> str:
        return f"no verdict ({self.error})"

    def __bool__(self) -> bool:
        raise TypeError(f"case {self.case} has no verdict: {self.error}")


def evaluate_many(cases: list[tuple[str, dict[str, Any], dict[str, Any]]]) -> list[bool | NoVerdict]:
    """Verdicts of the TypeScript verifier on ``(server, state, predicate)`` cases, in order. A case it
    cannot decide (a malformed predicate, each problem with its JSON path; or e.g. SQL outside its
    subset) is a ``NoVerdict`` naming the case and why, so the gate fails that task with the reason
    instead of stopping."""
    return _verdicts(run(cases))


def _verdicts(answers: list[Any]) -> list[bool | NoVerdict]:
    out: list[bool | NoVerdict] = []
    for i, item in enumerate(answers):
        if not (isinstance(item, bool) or (isinstance(item, dict) and "verdict" in item)):
            raise TypeScriptVerifierError(f"TypeScript verifier answered {item!r}, not a verdict")
        verdict = item["verdict"] if isinstance(item, dict) else item
        out.append(verdict if isinstance(verdict, bool) else NoVerdict(i, str(item.get("error", "no verdict"))))
    return out


def judge_many(verdict_cases: list[tuple[str, dict[str, Any], dict[str, Any]]],
               frame_cases: list[tuple[str, dict[str, Any], dict[str, Any], list[dict[str, Any]]]],
               ) -> tuple[list[bool | NoVerdict], list[list[dict[str, Any]]]]:
    """``evaluate_many(verdict_cases)`` and ``frame_violations_many(frame_cases)`` in one call of the CLI
    (``--judge``), each state object sent once however many cases name it. The gate judges a task's
    initial state and each final state, and compares each final state with the initial one: case by
    case, that sent the initial state once per case and each final state twice, and a world's state is
    hundreds of kilobytes of JSON to write and to parse. States are told apart by identity (the same
    dumped ``dict``), not compared."""
    states: list[dict[str, Any]] = []
    index: dict[int, int] = {}

    def ref(state: dict[str, Any]) -> int:
        at = index.get(id(state))
        if at is None:
            at = index[id(state)] = len(states)
            states.append(state)
        return at

    payload = json.dumps({
        "verdicts": [{"server": s, "state": ref(st), "predicate": p} for s, st, p in verdict_cases],
        "frames": [{"server": s, "initial": ref(a), "final": ref(b), "frame": f} for s, a, b, f in frame_cases],
        "states": states,
    })
    out = _call(["--judge"], payload)
    if not (isinstance(out, dict) and isinstance(out.get("verdicts"), list) and isinstance(out.get("frames"), list)
            and len(out["verdicts"]) == len(verdict_cases) and len(out["frames"]) == len(frame_cases)):
        raise TypeScriptVerifierError("TypeScript verifier answered with the wrong number of verdicts or frame judgements")
    return _verdicts(out["verdicts"]), _frame_answers(out["frames"])


def frame_violations_many(cases: list[tuple[str, dict[str, Any], dict[str, Any], list[dict[str, Any]]]],
                          *, break_kind: str | None = None) -> list[list[dict[str, Any]]]:
    """The TypeScript verifier's frame violations on ``(server, initial, final, frame)`` cases, in order:
    per case a list of ``{entity, id, change, fields, reason}`` (empty when the frame held).
    ``break_kind`` (a test hook) makes it blind to that entity kind."""
    payload = json.dumps([{"server": s, "initial": a, "final": b, "frame": f} for s, a, b, f in cases])
    out = _call(["--frames"], payload, None if break_kind is None else f"frame:{break_kind}")
    if not isinstance(out, list) or len(out) != len(cases):
        raise TypeScriptVerifierError("TypeScript verifier answered with the wrong number of frame judgements")
    return _frame_answers(out)


def _frame_answers(answers: list[Any]) -> list[list[dict[str, Any]]]:
    out = []
    for i, item in enumerate(answers):
        if not isinstance(item, dict) or "violations" not in item:
            raise TypeScriptVerifierError(f"case {i}: TypeScript verifier could not judge the frame: {item!r}")
        out.append(item["violations"])
    return out
