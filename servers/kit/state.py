"""The state model every mock server keeps: the one source of truth a verifier reads."""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import types
import typing
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, ValidationError

from servers.kit import canonical, safejson
from servers.kit.errors import StateError, format_validation_error
from servers.kit.world import load_world


class Model(BaseModel):
    """A strict model: unknown fields are errors, assignments are validated."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Self:
        """A deep copy, field by field. Every field holds JSON-like data (scalars, lists, dicts, models),
        so the copy needs none of ``copy.deepcopy``'s memo and dispatch for each value: several times
        faster, and every run copies a world of tens of thousands of values."""
        cls = self.__class__
        new = cls.__new__(cls)
        values = dict(self.__dict__)
        for name, copier in _copiers(cls):  # the other fields hold scalars, shared as they are
            values[name] = copier(values[name])
        object.__setattr__(new, "__dict__", values)
        object.__setattr__(new, "__pydantic_fields_set__", set(self.__pydantic_fields_set__))
        object.__setattr__(new, "__pydantic_extra__", None)  # extra="forbid"
        object.__setattr__(new, "__pydantic_private__", None)  # no private attributes
        return new


_ATOMS = frozenset({str, int, float, bool, type(None)})


@functools.cache
def _copiers(cls: type[Model]) -> tuple[tuple[str, Callable[[Any], Any]], ...]:
    """How to copy each field of ``cls`` whose type allows a list, a dict or a model (scalars are shared)."""
    return tuple((name, _copier(field.annotation)) for name, field in cls.model_fields.items()
                 if not _scalar(field.annotation))


def _copier(annotation: Any) -> Callable[[Any], Any]:
    """A copy function for values of ``annotation``, as shallow as its declared type allows: a list of
    scalars is copied by ``list``, a table's rows (lists of lists of scalars) list by list, a model by
    its own ``__deepcopy__``; what the annotation does not pin down is copied value by value."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        return _copier(args[0])
    if origin is list and args:
        if _scalar(args[0]) or _shared(args[0]):
            return list
        inner = _copier(args[0])
        return lambda value: [inner(v) for v in value]
    if origin is dict and len(args) == 2:
        if _scalar(args[1]) or _shared(args[1]):
            return dict
        inner = _copier(args[1])
        return lambda value: {k: inner(v) for k, v in value.items()}
    if _shared(annotation):
        return _same
    if isinstance(annotation, type) and issubclass(annotation, Model):
        return lambda value: value.__deepcopy__()
    return _copied


@functools.cache
def _shared(annotation: Hashable) -> bool:
    """Whether values of ``annotation`` are records a copy shares instead of copying: a frozen model
    (``model_config`` ``frozen=True``: an assignment to one raises) whose fields are scalars, or flat
    lists or dicts of scalars (a charge's metadata, a commit's removed paths). A world's copy for a
    replay then holds the very records of the cached world (a Stripe world's 3,800 invoice lines and
    2,800 charges, a site's 3,600 links), and a tool that changes such a record makes a new one.

    Freeze only a model no code assigns to, nor changes a list or dict of in place (``append``, ``pop``,
    an item set): the servers' tests show an assignment (it raises); an in-place change is not caught
    by pydantic, so the model's comment names what was checked, and tests/catalog/test_gate.py digests
    the shared worlds after replays that write them."""
    return (isinstance(annotation, type) and issubclass(annotation, Model) and annotation.model_config.get("frozen") is True
            and all(_flat(f.annotation) for f in annotation.model_fields.values()))


def _flat(annotation: Any) -> bool:
    """A scalar, or a list or dict of scalars (with a scalar key)."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        return _flat(args[0])
    if origin is list and len(args) == 1:
        return _scalar(args[0])
    if origin is dict and len(args) == 2:
        return _scalar(args[0]) and _scalar(args[1])
    return _scalar(annotation)


def _same(value: Any) -> Any:
    return value


def _scalar(annotation: Any) -> bool:
    if annotation in _ATOMS:
        return True
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return all(type(a) in _ATOMS for a in typing.get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        return all(_scalar(a) for a in typing.get_args(annotation))
    if origin is typing.Annotated:
        return _scalar(typing.get_args(annotation)[0])
    return False


def _copied(value: Any) -> Any:
    kind = type(value)
    if kind in _ATOMS:
        return value
    if kind is list:
        return [_copied(v) for v in value]
    if kind is dict:
        return {k: _copied(v) for k, v in value.items()}
    if isinstance(value, Model):
        return value if _shared(typing.cast("Hashable", kind)) else value.__deepcopy__()
    return copy.deepcopy(value)


class ServerState(Model):
    """Base class of every server's state.

    The state is plain data (JSON-serialisable), so it can be stored in a task file, dumped after a
    run, evaluated by both verifiers, and hashed. ``digest()`` is SHA-256 over the RFC 8785
    canonical JSON of the dump: two states with equal content have equal digests regardless of how
    they were built.
    """

    def dump(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    def digest(self) -> str:
        return hashlib.sha256(canonical.dumps(self.dump())).hexdigest()

    @classmethod
    def load(cls, data: dict[str, Any] | str | Path, *, copy: bool = True) -> Self:
        """Validate ``data`` (a dict, a JSON string or a path to a JSON file) into this model.

        ``data`` may also be a world reference with a patch (see ``servers.kit.world``); with
        ``copy=False`` its validated state is the shared, cached instance, for a caller that only
        checks it (or copies it anyway) and never mutates it.

        Raises ``StateError`` naming the offending field on bad input.
        """
        source = "state"
        if isinstance(data, Path):
            source = str(data)
            try:
                data = safejson.read_document(data)  # refused by size before it is parsed
            except safejson.TooLargeError as exc:
                raise StateError(str(exc)) from None
            except OSError as exc:
                raise StateError(f"{source}: cannot read: {exc.strerror}") from exc
            except UnicodeDecodeError as exc:
                raise StateError(f"{source}: not UTF-8 text: {exc}") from exc
        if isinstance(data, str):
            try:
                data = safejson.loads(data)
            except safejson.NestingError as exc:
                raise StateError(f"{source}: at {exc.path}: {exc}") from None
            except json.JSONDecodeError as exc:
                raise StateError(f"{source}: not valid JSON: {exc}") from exc
        if isinstance(data, dict) and "world" in data:
            return load_world(cls, data, copy=copy)
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise StateError(format_validation_error(exc, prefix=source)) from exc


__all__ = ["Model", "ServerState"]
