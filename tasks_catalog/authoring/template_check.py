"""Checking templates: render every template with N seeds and run the acceptance gate on each rendering,
reporting every failing template, seed and reason (``mcpbench author check-templates``).

The seeds are ``<salt>:<template id>:<i>`` for ``i`` in ``0..N-1``; the default salt ``check`` gives
the seeds the test suite uses, another salt (``--salt sweep-2026-12``) a fresh sweep, so a template
is checked against draws nobody tuned it for. A month renders with secret seeds, so a template must
pass at ANY seed (docs/templates.md, "Checking templates").
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable
from pathlib import Path

from tasks_catalog.gate import Gate
from tasks_catalog.loader import validate_task
from tasks_catalog.schema import Task
from tasks_catalog.templates import Choice, Template, TemplateError, instantiate, load_template, render

#: The salt of the seeds the test suite checks.
DEFAULT_SALT = "check"
#: The most renderings ``--all-cases`` gates for one template.
MAX_CASES = 2000


def seed_of(salt: str, template_id: str, i: int) -> bytes:
    """The ``i``-th seed of a check or sweep."""
    return f"{salt}:{template_id}:{i}".encode()


def every_case(template: Template) -> list[Task]:
    """Every rendering of ``template`` whose parameters are all choices: one task per combination of
    values (``TemplateError`` for another kind of parameter, or more than ``MAX_CASES`` combinations)."""
    names = sorted(template.params)
    choices = [template.params[n] for n in names]
    if not all(isinstance(c, Choice) for c in choices):
        raise TemplateError(f"template {template.id}: every case can be gated only when every parameter is a choice")
    size = 1
    for c in choices:
        size *= len(c.choice)  # type: ignore[union-attr]
    if size > MAX_CASES:
        raise TemplateError(f"template {template.id}: {size} combinations of parameters, over {MAX_CASES}")
    tasks = []
    for i, values in enumerate(itertools.product(*(c.choice for c in choices))):  # type: ignore[union-attr]
        params = dict(zip(names, values, strict=True))
        if any(params[o] == params[n] for n in names for o in template.params[n].distinct_from):
            continue
        tasks.append(instantiate(template, params, task_id=f"{template.id}-case{i:04d}",
                                 nonce=hashlib.sha256(f"case:{template.id}:{i}".encode()).hexdigest()[:32]))
    return tasks


def check_templates(paths: list[Path], gate: Gate, *, seeds: int = 5, salt: str = DEFAULT_SALT,
                    echo: Callable[[str], None] = print, all_cases: bool = False) -> int:
    """Render every template under ``paths`` with ``seeds`` seeds (with ``all_cases``, every combination of
    its choices instead) and gate each rendering; ``echo`` gets a ``FAIL`` line per failing template, seed
    and reason as it is found, then a summary line. Returns how many templates failed."""
    if seeds < 1:
        raise ValueError(f"seeds must be at least 1, got {seeds}")
    files = [q for p in paths for q in (sorted(p.rglob("*.json")) if p.is_dir() else [p])]
    failures = 0
    for f in files:
        try:
            template = load_template(f)
            tasks = every_case(template) if all_cases else [render(template, seed_of(salt, template.id, i))
                                                            for i in range(seeds)]
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
        if not all_cases and seeds >= 3 and distinct < min(3, seeds):
            problems.append((None, None, f"only {distinct} distinct renderings from {seeds} seeds"))
        for seed_index, task_id, p in problems:
            where = ("" if seed_index is None else f" case {seed_index} ({task_id})" if all_cases
                     else f" seed {salt}:{template.id}:{seed_index} ({task_id})")
            echo(f"FAIL {template.id}{where}: {p}")
        failures += bool(problems)
    echo(f"{len(files) - failures} templates ok, {failures} failed, {len(files)} templates "
         f"x {'every case' if all_cases else f'{seeds} seeds'} (verifiers: {gate.describe()})")
    return failures


__all__ = ["DEFAULT_SALT", "MAX_CASES", "check_templates", "every_case", "seed_of"]
