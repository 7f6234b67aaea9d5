"""Worlds: realistic, seeded server states that tasks reference instead of inlining a toy state.

A task's ``initial_state`` may be a **world reference** plus a small **patch**::

    {"world": {"generator": "slack", "version": 1, "seed": 7, "size": "default"},
     "patch": [{"op": "add", "in": ["channels", "C0GENERAL", "messages"], "value": {...}}]}

``generator`` names a server whose package has a ``world`` module (``servers/<name>/world.py``)
defining ``GENERATORS``, one :class:`WorldGenerator` per version it can still build (``GENERATOR`` is
the newest). The generator is code: the same ``(generator, version, seed, size)`` always yields the
same state, byte for byte (its digest is pinned by ``tests/catalog/test_worlds.py``). Any change of a
generator's output needs a new version (the old one stays, so the tasks that name it still build); a
reference to a version the code does not hold is refused, so a published task names exactly the code
that rebuilds it. The attestation hash of a task covers the reference and the patch as written, so
anyone holding the published plaintext and the public code can rebuild and check the state.

A generator may project a shared world instead of drawing its own: with ``cast`` set, ``build`` also
gets ``cast(seed, size)`` (the organisation of ``servers/org``, one company from which every server's
version-2 world is projected), so the worlds of one seed hold the same people, customers and facts.

The patch is a list of operations, applied in order to the generated state (as JSON data) before the
server's model validates it. Each addresses a *collection* by a path ``in``: a collection name,
then, to go deeper, the id of one entity and the name of its sub-collection, e.g.
``["channels", "C0GENERAL", "messages"]`` or ``["repos", "northwind/api", "issues"]``. Entities are
matched by their stable id (the key the generator declares for that collection: a channel's ``id``,
a message's ``ts``, an issue's ``number``, a row's primary key), never by position:

- ``{"op": "add", "in": PATH, "value": ENTITY}``: append; an entity with the same id is an error.
- ``{"op": "replace", "in": PATH, "value": ENTITY}``: replace the entity with the same id, whole.
- ``{"op": "update", "in": PATH, "id": ID, "fields": {...}}``: change some fields of one entity.
- ``{"op": "remove", "in": PATH, "id": ID}``: remove one entity (an unknown id is an error).
- ``{"op": "set", "field": NAME, "value": V}``: set a top-level field of the state (e.g. ``viewer``).

For a mapping collection (e.g. the filesystem's ``files``: path -> text) ``add`` and ``replace`` take
``"id"`` (the key) and ``"value"``. A patch that names an unknown collection, id or operation is an
error naming ``patch[i]``. An inline state (no ``world`` key) is used as it is.

Generation is cached per process (``generate``) and a run gets a copy, so building a backend from a
world costs the patch and one validation, not a regeneration.
"""

from __future__ import annotations

import copy
import gc
import hashlib
import importlib
import marshal
import os
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from servers.kit import canonical
from servers.kit.errors import StateError, format_validation_error
from servers.kit.recent import Recent

if TYPE_CHECKING:
    from pydantic import BaseModel

#: The sizes every generator knows. ``small`` is for tests of the generator itself.
SIZES = ("default", "small")

#: A collection's key: the name of the id field, or a function of (entity, parent entity) -> id.
Key = str | Callable[[Any, Any], Any]


class WorldError(StateError):
    """A world reference or patch that cannot be resolved. The message is ``<path>: <what is wrong>``,
    the path relative to the ``initial_state`` (``world.version``, ``patch[2].id``); ``path`` and
    ``detail`` hold the two parts."""

    @property
    def path(self) -> str:
        return str(self).partition(": ")[0]

    @property
    def detail(self) -> str:
        return str(self).partition(": ")[2]


@dataclass(frozen=True)
class WorldGenerator:
    """One server's world generator.

    ``build(rng, size)`` returns the state as plain JSON data; it must draw every random choice from
    ``rng`` (never from the global generator, the clock or set iteration order). With ``cast`` set,
    ``build(rng, size, cast(seed, size))``: the world is projected from what ``cast`` returns for the
    same seed and size (itself built from one seeded generator), and ``rng`` fills in what only this
    server holds. ``collections`` maps a dotted collection path (``"channels"``,
    ``"channels.messages"``) to its key; only these can be patched. Any change of the output of
    ``build`` for any seed needs a new ``version``.
    """

    name: str
    version: int
    build: Callable[..., dict[str, Any]]
    collections: Mapping[str, Key] = field(default_factory=dict)
    describe: Callable[[dict[str, Any]], dict[str, int]] | None = None
    cast: Callable[[int, str], Any] | None = None
    #: The version whose random stream ``build`` draws from (``"<name>:<stream>:<seed>:<size>"``): its
    #: own by default; an older one's for a version that only corrects texts of that version, so the two
    #: worlds hold the same ids, times and draws and a patch written for one applies to the other.
    stream: int | None = None

    def generate(self, seed: int, size: str = "default") -> dict[str, Any]:
        """The world's state as JSON data (cached: treat it as read-only; ``resolve`` copies)."""
        return _generated(self.name, self.version, seed, size)


def versions(name: str, collections: Mapping[str, Key], describe: Callable[[dict[str, Any]], dict[str, int]],
             *builds: Any) -> tuple[WorldGenerator, ...]:
    """The generators of ``name``, versions 1, 2, ... in the order of ``builds`` (what a world module
    keeps as ``GENERATORS``): each a build function, or ``(build, cast)`` for a version that projects a
    cast (``servers.org.cast``: the organisation), or ``(build, cast, stream)`` for one that draws from
    version ``stream``'s random stream (``WorldGenerator.stream``)."""
    out = []
    for version, build in enumerate(builds, start=1):
        build, cast, stream = (*build, None)[:3] if isinstance(build, tuple) else (build, None, None)
        if stream is not None and not 1 <= stream < version:
            raise ValueError(f"{name} version {version}: stream {stream} is not an earlier version")
        out.append(WorldGenerator(name, version, build, collections, describe, cast, stream))
    return tuple(out)


def generators(name: str) -> dict[int, WorldGenerator]:
    """Every version of the generator called ``name`` the code holds, by version (``GENERATORS`` in
    ``servers/<name>/world.py``, or its one ``GENERATOR``)."""
    if not isinstance(name, str) or not name.isidentifier():
        raise WorldError(f"world.generator: {name!r} is not a generator name")
    try:
        module = importlib.import_module(f"servers.{name}.world")
    except ModuleNotFoundError:
        raise WorldError(f"world.generator: no world generator named {name!r}") from None
    found = getattr(module, "GENERATORS", None) or (module.GENERATOR,)
    return {g.version: g for g in sorted(found, key=lambda g: g.version)}


def get_generator(name: str, version: int | None = None) -> WorldGenerator:
    """The generator called ``name`` at ``version`` (by default its newest version); a version the code
    does not hold is a ``WorldError`` naming the ones it does."""
    versions = generators(name)
    if version is None:
        return versions[max(versions)]
    if version not in versions:
        held = ", ".join(str(v) for v in versions)
        raise WorldError(f"world.version: generator {name!r} is at version {max(versions)} (it builds versions "
                         f"{held}); version {version} is not available in this code")
    return versions[version]


@lru_cache(maxsize=32)
def _generated(name: str, version: int, seed: int, size: str) -> dict[str, Any]:
    generator = get_generator(name, version)
    rng = random.Random(f"{name}:{generator.stream or version}:{seed}:{size}")
    if generator.cast is None:
        return generator.build(rng, size)
    return generator.build(rng, size, generator.cast(seed, size))


def is_world_reference(data: Any) -> bool:
    return isinstance(data, dict) and "world" in data


def check_reference(ref: Any) -> tuple[WorldGenerator, int, str]:
    """Validate a ``world`` object; returns the generator, the seed and the size."""
    if not isinstance(ref, dict):
        raise WorldError("world: must be an object {generator, version, seed, size}")
    unknown = set(ref) - {"generator", "version", "seed", "size"}
    if unknown:
        raise WorldError(f"world.{sorted(unknown)[0]}: unknown field (expected generator, version, seed, size)")
    for key in ("generator", "version", "seed"):
        if key not in ref:
            raise WorldError(f"world.{key}: missing")
    version, seed, size = ref["version"], ref["seed"], ref.get("size", "default")
    generators(ref["generator"])  # an unknown generator is named before a bad version
    if not isinstance(version, int) or isinstance(version, bool):
        raise WorldError("world.version: must be an integer")
    generator = get_generator(ref["generator"], version)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**31:
        raise WorldError("world.seed: must be an integer from 0 to 2**31-1")
    if size not in SIZES:
        raise WorldError(f"world.size: {size!r} is not one of {', '.join(SIZES)}")
    return generator, seed, size


def resolve(data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A world reference with its patch as (generator name, state JSON data) ready for the model.

    The generated state is shared (cached); only the containers a patch touches are copied, so the
    result must not be mutated by the caller (model validation builds fresh objects)."""
    unknown = set(data) - {"world", "patch"}
    if unknown:
        raise WorldError(f"{sorted(unknown)[0]}: unknown field next to 'world' (only 'patch' may be there)")
    if not isinstance(data["world"], dict):
        raise WorldError("world: must be an object {generator, version, seed, size}")
    generator, seed, size = check_reference(data["world"])
    state = generator.generate(seed, size)
    patch = data.get("patch", [])
    if not isinstance(patch, list):
        raise WorldError("patch: must be a list of operations")
    if patch:
        state = dict(state)
        for i, op in enumerate(patch):
            try:
                _apply(generator, state, op)
            except WorldError as exc:
                raise WorldError(f"patch[{i}]{exc}") from None
    return generator.name, state


def load_world(model: type, data: dict[str, Any], *, copy: bool = True):
    """``data`` (a world reference and patch) resolved and validated into ``model``, a ``ServerState``
    subclass: what ``ServerState.load`` does with a world reference.

    The validated state is cached per (model, reference, patch); the caller gets a deep copy, or with
    ``copy=False`` the cached instance itself, for a caller that copies anyway and never mutates it
    (``ServerSpec.open``: the ``Toolset`` copies its state)."""
    try:
        key = (model, canonical.dumps(data))
    except (canonical.CanonicalizationError, TypeError) as exc:
        raise WorldError(f"patch: not JSON data: {exc}") from None
    state = _VALIDATED.get(key)
    if state is None:
        state = _validate(model, data)
        _VALIDATED.put(key, state)
        if os.environ.get(CHECK_ENV):
            _FINGERPRINTS[key] = (state, _fingerprint(state))
            check_cached_worlds(evicted_only=True)
        _exempt_from_gc()
    return state.model_copy(deep=True) if copy else state


#: Set (the test suite sets it) to check that nothing changes a cached world in place: each validated world
#: is fingerprinted when it is cached, and checked when it leaves the cache and whenever
#: ``check_cached_worlds`` is called (the gate calls it after each task). Every run shares these worlds,
#: and a copy shares their frozen records (``servers.kit.state``): a write that reached one would change
#: every later run's initial state.
CHECK_ENV = "MCPBENCH_CHECK_WORLDS"
_FINGERPRINTS: dict[Any, tuple[Any, bytes]] = {}


def _fingerprint(state: Any) -> bytes:
    return hashlib.sha256(marshal.dumps(state.dump(), 0)).digest()  # version 0: no refs, the same bytes for equal data


def check_cached_worlds(*, evicted_only: bool = False) -> None:
    """Raise ``AssertionError`` naming a cached world that changed since it was cached (only with
    ``MCPBENCH_CHECK_WORLDS`` set; else nothing is fingerprinted). ``evicted_only``: check, and forget,
    only the worlds that have left the cache."""
    for key, (state, fingerprint) in list(_FINGERPRINTS.items()):
        gone = key not in _VALIDATED
        if evicted_only and not gone:
            continue
        if _fingerprint(state) != fingerprint:
            _FINGERPRINTS.pop(key, None)
            raise AssertionError(f"a cached world changed in place since it was validated: {key[0].__name__} "
                                 f"{key[1][:200]!r}; every run shares it (servers.kit.world.load_world)")
        if gone:
            _FINGERPRINTS.pop(key, None)


def _exempt_from_gc() -> None:
    """Keep the cyclic garbage collector from scanning the cached worlds again and again.

    A default-size world is hundreds of thousands of lists, dicts and models, and the caches hold
    dozens (generated and validated): every full collection, which the copies each run makes set off
    every few runs, walked all of them, about 180 ms a time, a fifth of a dev-set run's CPU. Worlds
    hold no reference cycles, so nothing in them needs the collector; evicted ones are freed by
    reference counting as before. Everything alive now is moved out of the collector's reach
    (``gc.freeze``) after a collection, so no garbage is kept with it."""
    gc.collect()
    gc.freeze()


#: Validated world states, by (model, canonical reference and patch).
_VALIDATED: Recent[Any] = Recent(16)


def _validate(model: type[BaseModel], data: dict[str, Any]):
    from pydantic import ValidationError

    name, state = resolve(data)
    expected = getattr(model, "world_generator", None)
    if expected is not None and expected != name:
        raise WorldError(f"world.generator: {name!r} builds another server's state than {expected!r}")
    try:
        return model.model_validate(state)
    except ValidationError as exc:
        where = "patch" if data.get("patch") else "world"
        raise WorldError(f"{where}: the patched world does not fit the state model: "
                         + "; ".join(format_validation_error(exc, prefix="state").splitlines())) from exc


def digest(data: dict[str, Any]) -> str:
    """SHA-256 of the RFC 8785 canonical JSON of a state (as ``ServerState.digest`` computes it)."""
    return hashlib.sha256(canonical.dumps(data)).hexdigest()


# -- the patch ---------------------------------------------------------------------------------

def _apply(generator: WorldGenerator, state: dict[str, Any], op: Any) -> None:
    if not isinstance(op, dict) or not isinstance(op.get("op"), str):
        raise WorldError(": must be an object with an 'op' (add, replace, update, remove, set)")
    kind = op["op"]
    allowed = {"set": {"op", "field", "value"}, "add": {"op", "in", "value", "id"},
               "replace": {"op", "in", "value", "id"}, "update": {"op", "in", "id", "fields"},
               "remove": {"op", "in", "id"}}
    if kind not in allowed:
        raise WorldError(f".op: unknown operation {kind!r} (add, replace, update, remove, set)")
    extra = set(op) - allowed[kind]
    if extra:
        raise WorldError(f".{sorted(extra)[0]}: not a field of a {kind!r} operation")
    if kind == "set":
        name = op.get("field")
        if not isinstance(name, str) or name not in state or isinstance(state[name], (list, dict)):
            raise WorldError(f".field: {name!r} is not a top-level scalar field of the state")
        if "value" not in op:
            raise WorldError(".value: missing")
        state[name] = op["value"]
        return
    items, key, parent = _collection(generator, state, op.get("in"))
    if kind in ("add", "replace"):
        if "value" not in op:
            raise WorldError(".value: missing")
        if isinstance(items, dict):
            if "id" not in op:
                raise WorldError(".id: a mapping collection needs the key in 'id'")
            ident = op["id"]
            if (ident in items) != (kind == "replace"):
                raise WorldError(f".id: {ident!r} {'is not' if kind == 'replace' else 'already'} in the collection")
            items[ident] = op["value"]
            return
        value = op["value"]
        ident = _key_of(key, value, parent)
        if ident is None:
            raise WorldError(".value: has no id field for this collection")
        if "id" in op and str(op["id"]) != str(ident):
            raise WorldError(f".id: {op['id']!r} differs from the value's id {ident!r}")
        at = _index(items, key, parent, ident)
        if kind == "add":
            if at is not None:
                raise WorldError(f".value: an entity with id {ident!r} already exists (use replace)")
            items.append(value)
        else:
            if at is None:
                raise WorldError(f".value: no entity with id {ident!r} to replace (use add)")
            items[at] = value
        return
    if "id" not in op:
        raise WorldError(".id: missing")
    ident = op["id"]
    if isinstance(items, dict):
        if ident not in items:
            raise WorldError(f".id: {ident!r} is not in the collection")
        if kind == "remove":
            del items[ident]
            return
        raise WorldError(".op: a mapping collection's entries are replaced, not updated")
    at = _index(items, key, parent, ident)
    if at is None:
        raise WorldError(f".id: no entity with id {ident!r}")
    if kind == "remove":
        del items[at]
        return
    fields = op.get("fields")
    if not isinstance(fields, dict) or not fields:
        raise WorldError(".fields: must be a non-empty object")
    if not isinstance(items[at], dict):
        raise WorldError(".op: entities of this collection are replaced, not updated")
    items[at] = {**items[at], **copy.deepcopy(fields)}


def _collection(generator: WorldGenerator, state: dict[str, Any], path: Any):
    """The (copied) collection at ``path``, its key and its parent entity; copies every container on
    the way, so the cached world is never modified."""
    if not isinstance(path, list) or len(path) % 2 != 1 or not all(isinstance(p, (str, int)) for p in path):
        raise WorldError(".in: must be a list [collection, id, collection, ...] ending with a collection")
    holder: dict[str, Any] = state
    parent = None
    names: list[str] = []
    for depth in range(0, len(path), 2):
        name = path[depth]
        names.append(str(name))
        dotted = ".".join(names)
        if dotted not in generator.collections:
            known = ", ".join(sorted(generator.collections))
            raise WorldError(f".in: {dotted!r} is not a patchable collection of {generator.name} ({known})")
        key = generator.collections[dotted]
        items = holder.get(name)
        if not isinstance(items, (list, dict)):
            raise WorldError(f".in: {dotted!r} is missing from the state")
        items = list(items) if isinstance(items, list) else dict(items)
        holder[name] = items
        if depth + 1 == len(path):
            return items, key, parent
        ident = path[depth + 1]
        at = _index(items, key, parent, ident) if isinstance(items, list) else (ident if ident in items else None)
        if at is None:
            raise WorldError(f".in[{depth + 1}]: no entity with id {ident!r} in {dotted!r}")
        entity = dict(items[at])
        items[at] = entity
        parent, holder = entity, entity
    raise AssertionError("unreachable")


def _key_of(key: Key, entity: Any, parent: Any) -> Any:
    if callable(key):
        return key(entity, parent)
    return entity.get(key) if isinstance(entity, dict) else None


def _index(items: list[Any], key: Key, parent: Any, ident: Any) -> int | None:
    wanted = str(ident)
    for i, entity in enumerate(items):
        if str(_key_of(key, entity, parent)) == wanted:
            return i
    return None


__all__ = ["SIZES", "WorldError", "WorldGenerator", "check_reference", "digest", "generators", "get_generator",
           "is_world_reference", "load_world", "resolve", "versions"]
