"""Both verifiers over the fixture corpus, compared case by case."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tasks_catalog import ts_verifier
from tasks_catalog.fixtures import Case, load_cases
from tasks_catalog.predicates import evaluate


@dataclass(frozen=True)
class Disagreement:
    case: Case
    python: Any
    typescript: Any

    def __str__(self) -> str:
        return (f"{self.case.id}: python {self.python}, typescript {self.typescript}, expected {self.case.expected}; "
                f"predicate {json.dumps(self.case.predicate, ensure_ascii=False)}")


def corpus() -> list[tuple[Case, Any, dict[str, Any]]]:
    """Every fixture case with its state normalised through the server's model and dumped: exactly
    what a verifier receives after a run (a cross-server case's: each server's, keyed by server)."""
    out = []
    for case in load_cases():
        state = case.load()
        dumped = {s: m.dump() for s, m in state.items()} if isinstance(state, dict) else state.dump()
        out.append((case, state, dumped))
    return out


def disagreements(break_primitive: str | None = None) -> tuple[int, list[Disagreement]]:
    """The number of cases and every case where the verifiers disagree (or the TypeScript one gives
    no verdict)."""
    cases = corpus()
    python = [evaluate(case.predicate, state) for case, state, _ in cases]
    typescript = ts_verifier.run([(case.server, dumped, case.predicate) for case, _, dumped in cases],
                                 break_primitive=break_primitive)
    found = [Disagreement(case, p, t) for (case, _, _), p, t in zip(cases, python, typescript, strict=True) if p is not t]
    return len(cases), found
