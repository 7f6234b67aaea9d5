"""Task templates: data, not code. A template is a task written over named parameters with bounded
ranges; rendering samples the parameters with a seed and substitutes them. See docs/templates.md.

The ``<server>/`` folders beside this file are the PUBLIC DEMONSTRATION POOL: for tests and for
trying the pipeline. A real operator seals their own pool into the store (``mcpbench author seal-pool``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from servers import SERVER_NAMES
from servers.kit import json_path
from servers.kit.safejson import NestingError, TooLargeError, loads, read_document
from tasks_catalog.hashing import canonical_json
from tasks_catalog.schema import Task

POOL_DIR = Path(__file__).parent
#: ``{{name}}``, ``{{name.0}}`` (a list's item), ``{{name.key}}`` (a map's value), and paths of them
#: (``{{case.contacts.0.email}}``)
PLACEHOLDER = re.compile(r"\{\{([a-z_][a-z0-9_]*)((?:\.[a-z0-9_]+)*)\}\}")
#: The fewest distinct values a parameter may take, so that renderings differ month to month.
MIN_VARIETY = 8


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Choice(_Strict):
    """One value drawn from a list."""

    choice: list[Any] = Field(min_length=MIN_VARIETY)
    distinct_from: list[str] = Field(default_factory=list)


class IntRange(_Strict):
    """An integer in ``[lo, hi]`` inclusive."""

    int: Annotated[list[int], Field(min_length=2, max_length=2)]
    distinct_from: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _wide_enough(self) -> IntRange:
        lo, hi = self.int
        if hi - lo + 1 < MIN_VARIETY:
            raise ValueError(f"range [{lo}, {hi}] has fewer than {MIN_VARIETY} values")
        return self


class NumberRange(_Strict):
    """A decimal number in ``[lo, hi]`` rounded to ``decimals`` places."""

    number: Annotated[list[float], Field(min_length=2, max_length=2)]
    decimals: int = Field(default=2, ge=0, le=6)
    distinct_from: list[str] = Field(default_factory=list)


class Sample(_Strict):
    """``k`` distinct values drawn from a list, in draw order (``{{name.0}}`` is the first)."""

    sample: list[Any] = Field(min_length=MIN_VARIETY)
    k: int = Field(ge=1)
    distinct_from: list[str] = Field(default_factory=list)


Param = Choice | IntRange | NumberRange | Sample


class Template(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    schema_: str | None = Field(default=None, alias="$schema")
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]{2,60}$")
    server: Literal[SERVER_NAMES] | None = None  # type: ignore[valid-type]
    #: a cross-server template's servers (2 to 4), instead of ``server``: it renders a cross-server task
    servers: list[Literal[SERVER_NAMES]] | None = Field(default=None, min_length=2, max_length=4)  # type: ignore[valid-type]
    difficulty: Literal["easy", "medium", "hard"]
    category: Literal["standard", "recovery"]
    version: int = Field(default=1, ge=1, description=(
        "The template's version, which every task it renders takes: bumped whenever its goal, world, faults, "
        "frame or predicate changes (tasks_catalog/CHANGELOG.md)"))
    params: dict[str, Param] = Field(min_length=1)
    task: dict[str, Any]

    @model_validator(mode="after")
    def _placeholders_match_params(self) -> Template:
        used = {m.group(1) for m in PLACEHOLDER.finditer(json.dumps(self.task))}
        unknown = used - set(self.params)
        if unknown:
            raise ValueError(f"placeholders without a parameter: {sorted(unknown)}")
        unused = set(self.params) - used
        if unused:
            raise ValueError(f"parameters never used: {sorted(unused)}")
        for name, p in self.params.items():
            for other in p.distinct_from:
                if other not in self.params:
                    raise ValueError(f"params.{name}.distinct_from names unknown parameter {other!r}")
        reserved = {"id", "server", "servers", "difficulty", "category", "nonce", "template", "version", "$schema"} & set(self.task)
        if reserved:
            raise ValueError(f"task must not set {sorted(reserved)}; they come from the template")
        if (self.server is None) == (self.servers is None):
            raise ValueError("a template names its server ('server') or, for cross-server tasks, its servers "
                             "('servers', 2 to 4): exactly one of the two")
        return self


class TemplateError(ValueError):
    pass


def load_template(path: Path) -> Template:
    try:
        return Template.model_validate(loads(read_document(path)))
    except TooLargeError as exc:
        raise TemplateError(str(exc)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TemplateError(f"{path}: cannot read: {exc}") from None
    except NestingError as exc:
        raise TemplateError(f"{path}: {exc.path}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise TemplateError(f"{path}: not valid JSON: {exc}") from None
    except ValidationError as exc:
        lines = [f"{path}: {json_path(e['loc'], '$')}: {e['msg']}" for e in exc.errors()]
        raise TemplateError("\n".join(lines)) from None


def load_pool(root: Path = POOL_DIR) -> list[Template]:
    """Every template under ``root`` (sorted by id); all errors at once."""
    templates, errors = [], []
    for path in sorted(root.rglob("*.json")):
        try:
            templates.append(load_template(path))
        except TemplateError as exc:
            errors.append(str(exc))
    if errors:
        raise TemplateError("\n".join(errors))
    ids = [t.id for t in templates]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise TemplateError(f"duplicate template ids: {dupes}")
    return sorted(templates, key=lambda t: t.id)


def sample_params(template: Template, seed: bytes) -> dict[str, Any]:
    """Draw every parameter with a generator seeded by ``seed`` (same seed, same draw)."""
    rng = random.Random(int.from_bytes(hashlib.sha256(seed).digest(), "big"))
    values: dict[str, Any] = {}
    for name in sorted(template.params, key=lambda n: (len(template.params[n].distinct_from), n)):
        p = template.params[name]
        taken: list[Any] = []
        for other in p.distinct_from:
            if other in values:
                # a sample's value is several draws; any other value (a list choice too) is one
                v = values[other]
                taken.extend(v if isinstance(template.params[other], Sample) else [v])
        values[name] = _draw(name, p, rng, taken)
    return values


def _draw(name: str, p: Param, rng: random.Random, taken: list[Any]) -> Any:
    if isinstance(p, Choice):
        pool = [v for v in p.choice if v not in taken]
        if not pool:
            raise TemplateError(f"parameter {name}: every choice collides with distinct_from")
        return rng.choice(pool)
    if isinstance(p, IntRange):
        for _ in range(1000):
            v = rng.randint(*p.int)
            if v not in taken:
                return v
        raise TemplateError(f"parameter {name}: no value distinct from {taken}")
    if isinstance(p, NumberRange):
        for _ in range(1000):
            x = round(rng.uniform(*p.number), p.decimals)
            if x not in taken:
                return x if p.decimals else int(x)
        raise TemplateError(f"parameter {name}: no value distinct from {taken}")
    pool = [v for v in p.sample if v not in taken]
    if len(pool) < p.k:
        raise TemplateError(f"parameter {name}: fewer than k={p.k} values left after distinct_from")
    return rng.sample(pool, p.k)


def substitute(value: Any, params: dict[str, Any]) -> Any:
    """Replace placeholders: a string that is exactly one placeholder takes the value with its type;
    placeholders inside longer strings are replaced by the value's text."""
    if isinstance(value, dict):
        return {substitute(k, params): substitute(v, params) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(v, params) for v in value]
    if not isinstance(value, str):
        return value
    whole = PLACEHOLDER.fullmatch(value)
    if whole:
        return _lookup(whole, params)
    return PLACEHOLDER.sub(lambda m: _as_text(_lookup(m, params)), value)


def _lookup(m: re.Match, params: dict[str, Any]) -> Any:
    v = params[m.group(1)]
    for step in m.group(2).split(".")[1:]:
        if step.isdigit() and isinstance(v, list) and int(step) < len(v):
            v = v[int(step)]
        elif not step.isdigit() and isinstance(v, dict) and step in v:
            v = v[step]
        else:
            what = "indexes past the sample" if step.isdigit() else f"names {step!r}, which its value does not have"
            raise TemplateError(f"placeholder {m.group(0)} {what}")
    return v


def _as_text(v: Any) -> str:
    if isinstance(v, list):
        return ", ".join(_as_text(x) for x in v)
    if isinstance(v, float):
        return f"{v:.2f}" if round(v, 2) == v else repr(v)
    return str(v)


def _keyed(seed: bytes, purpose: str, data: bytes = b"") -> str:
    return hmac.new(seed, b"mcpbench/" + purpose.encode() + b"\x00" + data, hashlib.sha256).hexdigest()


def render(template: Template, seed: bytes) -> Task:
    """The task ``template`` renders to under ``seed``.

    Everything is keyed by ``seed``, which a month derives from the operator's secret and the month
    (``tasks_catalog.sealed.month_seed``), so only the operator can render it again: the parameters,
    the nonce (256 bits, HMAC-SHA256 of the seed) and the id (the template id plus 10 hex digits of
    an HMAC of the seed and the parameters, so a re-rendering with other parameters is another task
    and the id reveals nothing about the parameters). With a secret seed the published
    ``(task_id, sha256)`` list is a hiding commitment: trying every parameter of the public ranges
    does not reproduce a hash or an id without the nonce and the key."""
    params = sample_params(template, seed)
    digest = _keyed(seed, "task-id", canonical_json({"t": template.id, "p": params}))[:10]
    return instantiate(template, params, task_id=f"{template.id}-{digest}",
                       nonce=_keyed(seed, "task-nonce", template.id.encode()))


def instantiate(template: Template, params: dict[str, Any], *, task_id: str, nonce: str) -> Task:
    """The task ``template`` gives with these parameters, id and nonce (``render`` picks all three)."""
    doc = substitute(template.task, params)
    doc.update(id=task_id, difficulty=template.difficulty, version=template.version, category=template.category,
               nonce=nonce, template={"id": template.id, "params": params},
               **({"servers": list(template.servers)} if template.servers else {"server": template.server}))
    try:
        return Task.model_validate(doc)
    except ValidationError as exc:
        lines = [f"{json_path(e['loc'], '$')}: {e['msg']}" for e in exc.errors()]
        raise TemplateError(f"template {template.id} renders an invalid task:\n" + "\n".join(lines)) from None


__all__ = ["MIN_VARIETY", "POOL_DIR", "Template", "TemplateError", "instantiate", "load_pool", "load_template", "render",
           "sample_params", "substitute"]
