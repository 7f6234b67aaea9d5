"""The TypeScript verifier, called from Python (``tasks_catalog/verifier-ts``).

Until that package is built, ``available()`` is false and the gate uses the Python verifier alone.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).with_name("verifier-ts")
CLI = PACKAGE / "dist" / "cli.js"


def unavailable_reason() -> str:
    if shutil.which("node") is None:
        return "node is not installed"
    return f"the TypeScript verifier is not built ({CLI} is missing); run `npm ci && npm run build` in {PACKAGE}"


def available() -> bool:
    return shutil.which("node") is not None and CLI.exists()


def evaluate_many(cases: list[tuple[str, dict[str, Any], dict[str, Any]]]) -> list[bool]:
    """Verdicts of the TypeScript verifier on ``(server, state, predicate)`` cases, in order."""
    payload = json.dumps([{"server": s, "state": st, "predicate": p} for s, st, p in cases])
    proc = subprocess.run(["node", str(CLI)], input=payload, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise RuntimeError(f"TypeScript verifier failed (exit {proc.returncode}): {proc.stderr[-2000:]}")
    out = json.loads(proc.stdout)
    verdicts = [item["verdict"] if isinstance(item, dict) else item for item in out]
    if len(verdicts) != len(cases) or not all(isinstance(v, bool) for v in verdicts):
        raise RuntimeError("TypeScript verifier answered with the wrong number or kind of verdicts")
    return verdicts
