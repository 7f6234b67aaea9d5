"""Cross-server templates, written by code: one module per template in this package.

A cross-server task's facts come from a seeded organisation (``servers.org``): which customer was charged
twice, who owns the account, what the policy in force said. A template cannot compute them, so each
template here is built by a module that reads the organisation of many seeds and keeps one *case* per
seed where the task's situation holds: an object of the facts that world decides (ids, names, amounts,
the calls of the reference solution). The template's one parameter ``case`` is a choice of those
objects, and its task refers to them by path (``{{case.customer.email}}``, docs/templates.md). The
template file in ``tasks_catalog/templates/cross-server/`` is the module's output, committed as data:
``mcpbench author cross-templates`` rewrites the files, ``--check`` says which are stale.

A module defines ``build() -> dict``, the template document, usually through :func:`template` and
:func:`cases`. Every case is gated when the template is checked with ``--all-cases``; a month renders
any of them.
"""

from __future__ import annotations

import functools
import importlib
import json
import pkgutil
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from servers.kit.world import get_generator
from servers.org import Organisation, organisation
from tasks_catalog.stats import budget_limit, calls_of
from tasks_catalog.templates import MIN_VARIETY, POOL_DIR

#: Where the built templates are written (part of the public demonstration pool).
OUT_DIR = POOL_DIR / "cross-server"
P = ParamSpec("P")
R = TypeVar("R")

#: The organisation seeds a module looks through for its cases, and how many cases it keeps.
SEEDS = range(1, 121)
CASES = 24
#: The organisation version the version-2 worlds project.
ORG_VERSION = 1
#: Keys a ``case_of`` may return beside a case's facts for its author and tests to read (a summary of
#: the outcomes, counts): :func:`cases` leaves them out of the template, which no task refers to.
READER_KEYS = frozenset({"facts", "summary"})


#: The world version every server's worlds are taken at: the organisation's projections (version 2).
WORLD_VERSION = 2
#: The newer versions the template being built takes instead, by server (:func:`on_worlds`).
_NEWER: ContextVar[Mapping[str, int] | None] = ContextVar("newer_worlds", default=None)


def world_version(server: str) -> int:
    """The version of ``server``'s world the template being built starts from: :data:`WORLD_VERSION`, or the
    newer one its module asked for with :func:`on_worlds`."""
    return (_NEWER.get() or {}).get(server, WORLD_VERSION)


def on_worlds(**versions: int) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """A decorator for a template module's ``build`` and ``case_of``: while they run, the worlds of the
    servers named (``slack=3``) are read at, and the task's initial states name, those versions instead of
    :data:`WORLD_VERSION`. A newer version a template moves to draws as the older one did (the same ids
    and times: servers/kit/world.py, ``WorldGenerator.stream``) and corrects what it stated (Slack 3: the
    holiday closures are the organisation's), so the cases' patches carry over."""
    def wrap(fn: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(fn)
        def run(*args: P.args, **kwargs: P.kwargs) -> R:
            token = _NEWER.set({**(_NEWER.get() or {}), **versions})
            try:
                return fn(*args, **kwargs)
            finally:
                _NEWER.reset(token)
        return run
    return wrap


def org(seed: int) -> Organisation:
    """The organisation every version-2 world of ``seed`` projects (cached)."""
    return organisation(ORG_VERSION, seed)


def world(server: str, seed: int) -> dict[str, Any]:
    """The default-size world of ``server`` for ``seed`` (at :func:`world_version`), as the agent's server
    starts from it before a patch (cached by the generator: read only)."""
    return get_generator(server, world_version(server)).generate(seed)


def world_state(server: str, patch: Any = ()) -> dict[str, Any]:
    """A template's initial state of ``server``: the world of the case's seed and ``patch`` (a placeholder
    such as ``"{{case.patch.slack}}"``, which keeps its type, or a list)."""
    return {"world": {"generator": server, "version": world_version(server), "seed": "{{case.seed}}", "size": "default"},
            "patch": patch if isinstance(patch, str) else list(patch)}


def budget(calls: int, forced: int = 0) -> int:
    """The most ``max_steps`` the gate allows a reference of ``calls`` calls whose faults force ``forced``
    failed attempts (``tasks_catalog.stats.budget_limit``)."""
    return budget_limit(calls, calls + forced)


def cases(case_of: Callable[[int], dict[str, Any] | None], *, seeds: Iterable[int] = SEEDS,
          want: int = CASES, level: str | None = None) -> list[dict[str, Any]]:
    """The first ``want`` cases ``case_of`` finds over the organisation ``seeds`` (``None``: the
    situation does not hold in that world), with ``level`` only those whose reference is as long as a
    cross-server task of that level's (``tasks_catalog.stats.CROSS_SERVER_CALLS``), each without its
    :data:`READER_KEYS`; ``ValueError`` when fewer than a template's minimum variety."""
    found: list[dict[str, Any]] = []
    for seed in seeds:
        case = case_of(seed)
        if case is not None and (level is None or len(case["reference"]) in calls_of(level, cross_server=True)):
            found.append({"seed": seed, **{k: v for k, v in case.items() if k not in READER_KEYS}})
            if len(found) == want:
                break
    if len(found) < MIN_VARIETY:
        raise ValueError(f"only {len(found)} cases found; a template needs at least {MIN_VARIETY}")
    return found


def template(*, id: str, version: int, servers: list[str], difficulty: str, category: str,
             case_list: list[dict[str, Any]], task: dict[str, Any]) -> dict[str, Any]:
    """A cross-server template document whose one parameter ``case`` is drawn from ``case_list``;
    ``ValueError`` naming the first case whose reference is not as long as ``difficulty`` asks of a
    cross-server task (the gate would refuse its rendering)."""
    band = calls_of(difficulty, cross_server=True)
    for case in case_list:
        calls = case.get("reference")
        if isinstance(calls, list) and len(calls) not in band:
            raise ValueError(f"{id}: the case of seed {case.get('seed')} has a reference of {len(calls)} calls; a "
                             f"{difficulty} cross-server task's has {band.start}-{band.stop - 1} "
                             f"(cases(..., level={difficulty!r}) keeps only those)")
    return {"id": id, "version": version, "servers": sorted(servers), "difficulty": difficulty,
            "category": category, "params": {"case": {"choice": case_list}}, "task": task}


def modules() -> list[str]:
    """The template modules of this package, by name."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def build(name: str) -> dict[str, Any]:
    """The template document module ``name`` builds."""
    doc = importlib.import_module(f"{__name__}.{name}").build()
    if doc.get("id") != name.replace("_", "-"):
        raise ValueError(f"module {name} builds template {doc.get('id')!r}; a module is named after its template "
                         f"(id with '-' for '_')")
    return doc


def text_of(doc: dict[str, Any]) -> str:
    """A template document as its file holds it."""
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def write_all(out_dir: Path = OUT_DIR, *, check: bool = False, names: list[str] | None = None) -> list[Path]:
    """Build every template (or those ``names``) into ``out_dir``; with ``check``, write nothing. Returns
    the files that differed from what was built (written, unless ``check``)."""
    changed = []
    for name in names or modules():
        doc = build(name)
        path = out_dir / f"{doc['id']}.json"
        text = text_of(doc)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            changed.append(path)
            if not check:
                out_dir.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
    return changed


__all__ = ["CASES", "ORG_VERSION", "OUT_DIR", "SEEDS", "budget", "build", "cases", "modules", "org", "template", "text_of",
           "world", "world_state", "write_all"]
