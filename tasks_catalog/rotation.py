"""Building a private month from the template pool: selection, rendering, rotation.

A month of the ten servers has 160 tasks: 6 single-server tasks per server (5 easy, 1 medium, with
recovery tasks in every server) and 100 cross-server tasks (10 easy, 40 medium, 50 hard): 62.5%
cross-server, 31.25% hard. A month's levels are the levels its tasks measure at: independent solvers
passed 20 of 20 single-server hard tasks and 10 of 10 single-server medium ones (bench/history/
calibration.md, round 12; every fact sits on one server), so a month draws no single-server hard
template, and its medium tier keeps one single-server task a server beside the cross-server ones. A
cross-server template renders up to ``MAX_INSTANCES`` tasks a month, each with other parameters (another
organisation: its ``case``), so a level's share is filled by at least a quarter as many templates; a month
of fewer servers (tests) scales its cross-server share with them and draws only templates whose servers
it has (one server: none).

The first month draws its templates with the month's seed; each later month replaces about a quarter of
each server's templates, and a quarter of each level's cross-server templates where the level has
templates the month before left unused, with templates not used the month before (those whose tasks were
flagged as possibly leaked go first) and re-renders the rest with fresh parameters, so a memorised task
still faces a fresh instance. A leaked cross-server template with nothing unused to take its place
retires all the same while the level's other templates can carry its share (today's 15 hard templates
are all used: 50 tasks, 3-4 each).

Everything here is in memory; sealing and publication are in ``tasks_catalog.months``.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from servers import SERVER_NAMES
from tasks_catalog.hashing import task_hash
from tasks_catalog.schema import Task
from tasks_catalog.templates import Template, TemplateError, render

#: single-server tasks a month draws per server, by level (the module's docstring says why none is hard)
STRATA = {"easy": 5, "medium": 1, "hard": 0}
PER_SERVER = sum(STRATA.values())
MIN_RECOVERY = 2
#: cross-server tasks a month draws per server it covers (a ten-server month: 10 easy, 40 medium, 50 hard;
#: a cross-server hard task takes 25-60 calls, its medium 5-24: tasks_catalog/stats.py)
CROSS_PER_SERVER = {"easy": 1, "medium": 4, "hard": 5}
#: the most tasks one cross-server template renders in a month
MAX_INSTANCES = 4
REPLACE_SHARE = 0.25
DIFFICULTIES = ("easy", "medium", "hard")
#: what ``Month.template_ids`` takes for the cross-server tasks
CROSS = "cross-server"


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
        """The templates of the month's tasks (of ``server``'s single-server tasks, or of the cross-server
        tasks for ``CROSS``), once each."""
        ids = [t.rendered_from().id for t in self.tasks
               if server is None or t.server == server or (server == CROSS and t.server is None)]
        return list(dict.fromkeys(ids))

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


def drawn_levels() -> tuple[str, ...]:
    """The levels of the single-server templates a month draws (``STRATA``)."""
    return tuple(level for level in DIFFICULTIES if STRATA[level])


def _by_server(pool: list[Template]) -> dict[str, list[Template]]:
    """The pool's single-server templates a month draws (of ``drawn_levels()``), by server;
    ``RotationError`` naming a server that cannot fill its share of a month."""
    out: dict[str, list[Template]] = defaultdict(list)
    for t in pool:
        if t.server is not None and t.difficulty in drawn_levels():
            out[t.server].append(t)
    for server in SERVER_NAMES:
        have = out.get(server, [])
        if len(have) < PER_SERVER:
            raise RotationError(f"the pool has {len(have)} {' or '.join(drawn_levels())} templates for {server}; "
                                f"a month needs {PER_SERVER}")
        if sum(t.category == "recovery" for t in have) < MIN_RECOVERY:
            raise RotationError(f"the pool has fewer than {MIN_RECOVERY} recovery templates for {server}")
    return out


def cross_quota() -> dict[str, int]:
    """How many cross-server tasks of each level a month of ``SERVER_NAMES`` draws (none with one server)."""
    n = len(SERVER_NAMES)
    return {level: (per * n if n >= 2 else 0) for level, per in CROSS_PER_SERVER.items()}


def _cross_by_level(pool: list[Template]) -> dict[str, list[Template]]:
    """The pool's cross-server templates a month of ``SERVER_NAMES`` can draw, by level; ``RotationError``
    naming the level when too few to fill its share at ``MAX_INSTANCES`` tasks each."""
    out: dict[str, list[Template]] = {level: [] for level in DIFFICULTIES}
    for t in pool:
        if t.servers is not None and set(t.servers) <= set(SERVER_NAMES):
            out[t.difficulty].append(t)
    for level, want in cross_quota().items():
        need = -(-want // MAX_INSTANCES)
        if len(out[level]) < need:
            raise RotationError(f"the pool has {len(out[level])} {level} cross-server templates; a month draws {want} "
                                f"{level} cross-server tasks, at most {MAX_INSTANCES} from one template, so it needs {need}")
    return out


def check_pool(pool: list[Template]) -> dict[str, int]:
    """How many templates ``pool`` holds per server, and cross-server (``cross-server``); ``RotationError``
    naming the server or level when it cannot fill a month. The counts are of every template the pool
    holds, those of levels a month does not draw included (they are sealed with the pool all the same)."""
    _by_server(pool)
    counts = dict(sorted(Counter(t.server for t in pool if t.server is not None).items()))
    counts["cross-server"] = sum(len(ts) for ts in _cross_by_level(pool).values())
    return counts


def _select_first(templates: list[Template], rng: random.Random) -> list[Template]:
    """``PER_SERVER`` templates, stratified by difficulty where the pool allows, with enough recovery ones."""
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


def _select_next(templates: list[Template], previous_ids: list[str], leaked: set[str], rng: random.Random, *,
                 size: int, min_recovery: int, strata: dict[str, int] | None = None, least: int | None = None,
                 ) -> tuple[list[Template], dict[str, str], list[str]]:
    """Keep ~75% of last month's templates and replace ~25% with templates unused last month; templates
    whose tasks were flagged as leaked are replaced first. ``size`` templates in all: when last month used
    more (a month of another composition) the surplus retires unreplaced, when fewer unused ones join.
    With ``strata`` (templates per level), a level last month had more of retires its surplus first, and
    the templates that join fill the levels short of their share first. A leaked template with no unused
    one to replace it retires all the same while ``least`` templates (``size`` when None) remain."""
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
        order = flagged + others  # who retires first
        surplus = []
        if strata is not None:
            for level in DIFFICULTIES:
                mine = [i for i in order if by_id[i].difficulty == level]
                surplus += mine[:max(0, len(mine) - strata.get(level, 0))]
        rest = [i for i in order if i not in surplus]
        surplus += rest[:max(0, len(previous_ids) - len(surplus) - size)]
        swapped = [i for i in order if i not in surplus][:n_replace]
        room = len(previous_ids) - len(surplus) - len(swapped) - (size if least is None else least)
        surplus += [i for i in flagged if i not in surplus and i not in swapped][:max(0, room)]
        incoming = _match_replacements([by_id[i] for i in swapped], unused, rng)
        kept = [by_id[i] for i in previous_ids if i not in surplus and i not in swapped]
        left = [t for t in unused if t not in incoming]
        chosen = kept + incoming
        chosen += _fill(chosen, left, max(0, size - len(chosen)), rng, strata)
        if sum(t.category == "recovery" for t in chosen) >= min_recovery:
            retired = surplus + swapped
            return chosen, {old: new.id for old, new in zip(swapped, incoming)}, [i for i in retired if i in leaked]
    raise RotationError("cannot rotate while keeping enough recovery templates")


def _fill(chosen: list[Template], left: list[Template], n: int, rng: random.Random,
          strata: dict[str, int] | None) -> list[Template]:
    """``n`` templates drawn from ``left``; with ``strata``, of the levels ``chosen`` has fewer of than its
    share first."""
    if n <= 0:
        return []
    if strata is None:
        return rng.sample(left, min(len(left), n))
    candidates = list(left)
    rng.shuffle(candidates)
    out: list[Template] = []
    for _ in range(min(n, len(candidates))):
        have = Counter(t.difficulty for t in chosen + out)
        short = [t for t in candidates if have[t.difficulty] < strata.get(t.difficulty, 0)]
        pick = (short or candidates)[0]
        candidates.remove(pick)
        out.append(pick)
    return out


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


def _instances(templates: list[Template], want: int, rng: random.Random) -> dict[str, int]:
    """How many tasks each of ``templates`` renders so that they give ``want`` in all: as even as can be,
    the remainder to templates drawn with ``rng``."""
    base, extra = divmod(want, len(templates)) if templates else (0, 0)
    ids = sorted(t.id for t in templates)
    lucky = set(rng.sample(ids, extra))
    return {i: base + (i in lucky) for i in ids}


def _render(template: Template, seed: bytes, month: str, avoid: list[dict[str, Any]], k: int = 1) -> list[Task]:
    """``k`` renderings for this month, each with parameters unlike last month's (``avoid``) and unlike
    each other."""
    tasks: list[Task] = []
    taken = list(avoid)
    for attempt in range(50 * k):
        task = render(template, seed + f"|{month}|{template.id}|{attempt}".encode())
        if task.rendered_from().params not in taken:
            tasks.append(task)
            taken.append(task.rendered_from().params)
            if len(tasks) == k:
                return tasks
    raise TemplateError(f"template {template.id} cannot be rendered {k} times with parameters unlike last month's "
                        f"and unlike each other")


@dataclass(frozen=True)
class _Group:
    """The templates a month draws together: one server's single-server templates (a task each) or one
    level's cross-server templates (``tasks`` in all, up to ``MAX_INSTANCES`` from one template)."""

    name: str  # also names the group's random draws
    templates: list[Template]
    last: list[str]  # its templates last month
    size: int  # how many templates it draws
    recovery: int  # how many of them at least are recovery templates
    tasks: int | None = None
    least: int | None = None  # the fewest templates that can render ``tasks`` (``size`` when None)


def build_month(pool: list[Template], month: str, seed: bytes, previous: Month | None = None,
                leaked_task_ids: set[str] | frozenset[str] = frozenset()) -> Month:
    """Render ``month`` from ``pool`` with ``seed`` (derived from the operator's secret and the month)."""
    by_server = _by_server(pool)
    cross = _cross_by_level(pool)
    prev_params: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for t in previous.tasks if previous else []:
        prev_params[t.rendered_from().id].append(t.rendered_from().params)
    leaked = {t.rendered_from().id for t in previous.tasks if t.id in leaked_task_ids} if previous else set()
    tasks: list[Task] = []
    result = Month(month=month, tasks=tasks, previous=previous.month if previous else None)
    # last month's templates of a level a month no longer draws (a month of another composition) retire
    # unreplaced; one the pool no longer has at all stays, for _select_next to name
    undrawn = {t.id for t in pool if t.server is not None and t.difficulty not in drawn_levels()}
    groups = [_Group(server, by_server[server],
                     [i for i in (previous.template_ids(server) if previous else []) if i not in undrawn],
                     PER_SERVER, MIN_RECOVERY) for server in SERVER_NAMES]
    last_cross = set(previous.template_ids(CROSS)) if previous else set()
    for level, want in cross_quota().items():
        if want:
            ids = {t.id for t in cross[level]}
            groups.append(_Group(f"{CROSS}:{level}", cross[level], sorted(last_cross & ids),
                                 min(len(cross[level]), -(-want // 2)), 0, want,
                                 least=-(-want // MAX_INSTANCES)))
    for group in groups:
        rng = _rng(seed, "select", group.name)
        if previous is None and group.tasks is None:
            chosen = _select_first(group.templates, rng)
        elif previous is None or not group.last:
            chosen = rng.sample(sorted(group.templates, key=lambda t: t.id), group.size)
        else:
            chosen, replaced, leaked_out = _select_next(group.templates, group.last, leaked, rng, size=group.size,
                                                        min_recovery=group.recovery,
                                                        strata=STRATA if group.tasks is None else None,
                                                        least=group.least)
            result.replaced.update(replaced)
            result.leaked_replaced += leaked_out
            result.carried += [t.id for t in chosen if t.id in prev_params]
        counts = ({t.id: 1 for t in chosen} if group.tasks is None
                  else _instances(chosen, group.tasks, _rng(seed, "instances", group.name)))
        for template in sorted(chosen, key=lambda t: (DIFFICULTIES.index(t.difficulty), t.id)):
            tasks += _render(template, seed, month, prev_params.get(template.id, []), counts[template.id])
    return result


__all__ = ["CROSS", "CROSS_PER_SERVER", "MAX_INSTANCES", "MIN_RECOVERY", "Month", "PER_SERVER", "REPLACE_SHARE", "RotationError",
           "build_month", "check_pool", "cross_quota", "drawn_levels"]
