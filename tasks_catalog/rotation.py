"""Building a private month from the template pool: selection, rendering, rotation.

A month has 16 tasks per server (160 in all), stratified 6 easy / 5 medium / 5 hard where the pool
allows, with recovery tasks in every server. The first month draws its templates with the month's
seed; each later month replaces about a quarter of each server's templates with templates not used
the month before (those whose tasks were flagged as possibly leaked go first) and re-renders the
rest with fresh parameters, so a memorised task still faces a fresh instance.

Everything here is in memory; sealing and publication are in ``tasks_catalog.months``.
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from servers import SERVER_NAMES
from tasks_catalog.hashing import task_hash
from tasks_catalog.schema import Task
from tasks_catalog.templates import Template, TemplateError, render

PER_SERVER = 16
STRATA = {"easy": 6, "medium": 5, "hard": 5}
MIN_RECOVERY = 2
REPLACE_SHARE = 0.25
DIFFICULTIES = ("easy", "medium", "hard")


class RotationError(ValueError):
    pass


@dataclass
class Month:
    """A rendered month, in memory: its tasks and how it came from the month before."""

    month: str
    tasks: list[Task]
    previous: str | None = None
    carried: list[str] = field(default_factory=list)  # template ids re-rendered from the previous month
    replaced: dict[str, str] = field(default_factory=dict)  # retired template id -> its replacement
    leaked_replaced: list[str] = field(default_factory=list)

    def template_ids(self, server: str | None = None) -> list[str]:
        return [t.rendered_from().id for t in self.tasks if server is None or t.server == server]

    def attestation(self) -> list[dict[str, str]]:
        return [{"task_id": t.id, "sha256": task_hash(t)} for t in self.tasks]

    def to_json(self) -> dict[str, Any]:
        return {"month": self.month, "previous": self.previous, "carried": self.carried,
                "replaced": self.replaced, "leaked_replaced": self.leaked_replaced,
                "tasks": [t.to_json() for t in self.tasks]}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Month:
        return cls(month=doc["month"], previous=doc.get("previous"), carried=doc.get("carried", []),
                   replaced=doc.get("replaced", {}), leaked_replaced=doc.get("leaked_replaced", []),
                   tasks=[Task.model_validate(t) for t in doc["tasks"]])


def _rng(seed: bytes, *parts: str) -> random.Random:
    return random.Random(int.from_bytes(hashlib.sha256(seed + "|".join(parts).encode()).digest(), "big"))


def _by_server(pool: list[Template]) -> dict[str, list[Template]]:
    """The pool's single-server templates by server (a cross-server template is not drawn into a month
    yet: docs/templates.md)."""
    out: dict[str, list[Template]] = defaultdict(list)
    for t in pool:
        if t.server is not None:
            out[t.server].append(t)
    for server in SERVER_NAMES:
        have = out.get(server, [])
        if len(have) < PER_SERVER:
            raise RotationError(f"the pool has {len(have)} templates for {server}; a month needs {PER_SERVER}")
        if sum(t.category == "recovery" for t in have) < MIN_RECOVERY:
            raise RotationError(f"the pool has fewer than {MIN_RECOVERY} recovery templates for {server}")
    return out


def check_pool(pool: list[Template]) -> dict[str, int]:
    """How many templates ``pool`` holds per server; ``RotationError`` naming the server when it cannot
    fill a month (fewer than ``PER_SERVER`` templates, or fewer than ``MIN_RECOVERY`` recovery ones)."""
    return {server: len(templates) for server, templates in sorted(_by_server(pool).items())}


def _select_first(templates: list[Template], rng: random.Random) -> list[Template]:
    """16 templates, stratified by difficulty where the pool allows, with enough recovery ones."""
    for _ in range(200):
        chosen: list[Template] = []
        for level in DIFFICULTIES:
            level_pool = sorted((t for t in templates if t.difficulty == level), key=lambda t: t.id)
            chosen += rng.sample(level_pool, min(STRATA[level], len(level_pool)))
        rest = sorted((t for t in templates if t not in chosen), key=lambda t: t.id)
        chosen += rng.sample(rest, PER_SERVER - len(chosen))
        if sum(t.category == "recovery" for t in chosen) >= MIN_RECOVERY:
            return chosen
    raise RotationError(f"cannot draw {PER_SERVER} templates with {MIN_RECOVERY} recovery ones")


def _select_next(templates: list[Template], previous_ids: list[str], leaked: set[str],
                 rng: random.Random) -> tuple[list[Template], dict[str, str], list[str]]:
    """Keep ~75% of last month's templates and replace ~25% with templates unused last month;
    templates whose tasks were flagged as leaked are replaced first."""
    by_id = {t.id: t for t in templates}
    missing = [i for i in previous_ids if i not in by_id]
    if missing:
        raise RotationError(f"last month used templates the pool no longer has: {missing}")
    unused = sorted((t for t in templates if t.id not in previous_ids), key=lambda t: t.id)
    n_replace = min(len(unused), max(round(len(previous_ids) * REPLACE_SHARE), len(leaked & set(previous_ids))))
    for _ in range(200):
        flagged = [i for i in previous_ids if i in leaked]
        others = [i for i in previous_ids if i not in leaked]
        rng.shuffle(flagged)
        rng.shuffle(others)
        retiring = (flagged + others)[:n_replace]
        incoming = _match_replacements([by_id[i] for i in retiring], unused, rng)
        kept = [by_id[i] for i in previous_ids if i not in retiring]
        chosen = kept + incoming
        if sum(t.category == "recovery" for t in chosen) >= MIN_RECOVERY:
            return chosen, {old: new.id for old, new in zip(retiring, incoming)}, [i for i in retiring if i in leaked]
    raise RotationError("cannot rotate while keeping enough recovery templates")


def _match_replacements(retiring: list[Template], unused: list[Template], rng: random.Random) -> list[Template]:
    """One unused template per retiring one, of the same difficulty where possible."""
    left = list(unused)
    rng.shuffle(left)
    out = []
    for old in retiring:
        same = [t for t in left if t.difficulty == old.difficulty]
        pick = (same or left)[0]
        left.remove(pick)
        out.append(pick)
    return out


def _render(template: Template, seed: bytes, month: str, avoid: dict[str, Any] | None) -> Task:
    """Render for this month; a carried-over template must get parameters unlike last month's."""
    for attempt in range(50):
        task = render(template, seed + f"|{month}|{template.id}|{attempt}".encode())
        if avoid is None or task.rendered_from().params != avoid:
            return task
    raise TemplateError(f"template {template.id} cannot be rendered with parameters unlike last month's")


def build_month(pool: list[Template], month: str, seed: bytes, previous: Month | None = None,
                leaked_task_ids: set[str] | frozenset[str] = frozenset()) -> Month:
    """Render ``month`` from ``pool`` with ``seed`` (derived from the operator's secret and the month)."""
    by_server = _by_server(pool)
    prev_params = {t.rendered_from().id: t.rendered_from().params for t in previous.tasks} if previous else {}
    leaked = {t.rendered_from().id for t in previous.tasks if t.id in leaked_task_ids} if previous else set()
    tasks: list[Task] = []
    result = Month(month=month, tasks=tasks, previous=previous.month if previous else None)
    for server in SERVER_NAMES:
        rng = _rng(seed, "select", server)
        if previous is None:
            chosen = _select_first(by_server[server], rng)
        else:
            chosen, replaced, leaked_out = _select_next(by_server[server], previous.template_ids(server), leaked, rng)
            result.replaced.update(replaced)
            result.leaked_replaced += leaked_out
            result.carried += [t.id for t in chosen if t.id in prev_params]
        for template in sorted(chosen, key=lambda t: (DIFFICULTIES.index(t.difficulty), t.id)):
            tasks.append(_render(template, seed, month, prev_params.get(template.id)))
    return result


__all__ = ["MIN_RECOVERY", "Month", "PER_SERVER", "REPLACE_SHARE", "RotationError", "build_month", "check_pool"]
