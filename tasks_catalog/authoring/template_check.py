"""Checking templates: render every template with N seeds and run the acceptance gate on each rendering,
reporting every failing template, seed and reason (``mcpbench author check-templates``).

The seeds are ``<salt>:<template id>:<i>`` for ``i`` in ``0..N-1``; the default salt ``check`` gives
the seeds the test suite uses, another salt (``--salt sweep-2026-12``) a fresh sweep, so a template
is checked against draws nobody tuned it for. A month renders with secret seeds, so a template must
pass at ANY seed (docs/templates.md, "Checking templates").
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tasks_catalog.gate import Gate
from tasks_catalog.loader import validate_task
from tasks_catalog.templates import TemplateError, load_template, render

#: The salt of the seeds the test suite checks.
DEFAULT_SALT = "check"


def seed_of(salt: str, template_id: str, i: int) -> bytes:
    """The ``i``-th seed of a check or sweep."""
    return f"{salt}:{template_id}:{i}".encode()


def check_templates(paths: list[Path], gate: Gate, *, seeds: int = 5, salt: str = DEFAULT_SALT,
                    echo: Callable[[str], None] = print) -> int:
    """Render every template under ``paths`` with ``seeds`` seeds and gate each rendering; ``echo`` gets a
    ``FAIL`` line per failing template, seed and reason as it is found, then a summary line. Returns how
    many templates failed."""
    if seeds < 1:
        raise ValueError(f"seeds must be at least 1, got {seeds}")
    files = [q for p in paths for q in (sorted(p.rglob("*.json")) if p.is_dir() else [p])]
    failures = 0
    for f in files:
        try:
            template = load_template(f)
            tasks = [render(template, seed_of(salt, template.id, i)) for i in range(seeds)]
        except TemplateError as exc:
            echo(f"FAIL {f}: {exc}")
            failures += 1
            continue
        problems: list[tuple[int | None, str | None, str]] = []  # (seed index, task id, reason)
        for i, t in enumerate(tasks):
            _, errs = validate_task(t.to_json())
            problems += [(i, t.id, str(e)) for e in errs]
        if not problems:
            for i, (t, r) in enumerate(zip(tasks, gate.check(tasks), strict=True)):
                problems += [(i, t.id, reason) for reason in r.reasons]
        distinct = len({t.id for t in tasks})
        if seeds >= 3 and distinct < min(3, seeds):
            problems.append((None, None, f"only {distinct} distinct renderings from {seeds} seeds"))
        for seed_index, task_id, p in problems:
            where = "" if seed_index is None else f" seed {salt}:{template.id}:{seed_index} ({task_id})"
            echo(f"FAIL {template.id}{where}: {p}")
        failures += bool(problems)
    echo(f"{len(files) - failures} templates ok, {failures} failed, {len(files)} templates "
         f"x {seeds} seeds (verifiers: {gate.describe()})")
    return failures


__all__ = ["DEFAULT_SALT", "check_templates", "seed_of"]
