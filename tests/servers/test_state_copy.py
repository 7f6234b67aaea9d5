"""Every run's backend starts from a deep copy of its task's state (``Toolset``), and a world is
shared by every run of a process: a copy must equal its source and share nothing mutable with it (a
frozen record of scalars, which nothing changes in place, is shared: ``servers.kit.state._shared``)."""

from __future__ import annotations

import copy

import pytest

from servers import SERVER_NAMES, get_spec
from servers.kit import Model
from servers.kit.state import _shared


def _mutables(value, path="$"):
    """Every list, dict and model inside ``value`` with its path, but the frozen records of scalars."""
    if isinstance(value, Model) and _shared(type(value)):
        return
    if isinstance(value, Model):
        yield path, value
        for name, field in value.__dict__.items():
            yield from _mutables(field, f"{path}.{name}")
    elif isinstance(value, list):
        yield path, value
        for i, item in enumerate(value):
            yield from _mutables(item, f"{path}[{i}]")
    elif isinstance(value, dict):
        yield path, value
        for key, item in value.items():
            yield from _mutables(item, f"{path}[{key!r}]")


@pytest.mark.parametrize("server", SERVER_NAMES)
def test_a_copy_of_a_world_equals_it_and_shares_no_list_dict_or_model_with_it(server):
    state = get_spec(server).load_state({"world": {"generator": server, "version": 1, "seed": 1, "size": "small"}})
    clone = copy.deepcopy(state)
    assert clone == state and clone.dump() == state.dump()
    assert type(clone) is type(state) and clone.model_fields_set == state.model_fields_set
    original = {id(obj) for _, obj in _mutables(state)}
    shared = [path for path, obj in _mutables(clone) if id(obj) in original]
    assert shared == [], f"the copy shares {len(shared)} containers with its source, e.g. {shared[:3]}"


def test_a_copied_model_still_validates_what_is_assigned_to_it():
    state = get_spec("slack").load_state({"world": {"generator": "slack", "version": 1, "seed": 1, "size": "small"}})
    clone = copy.deepcopy(state)
    with pytest.raises(ValueError):
        clone.channels[0].name = 42
    assert clone.channels[0].name == state.channels[0].name


def _frozen_records(value):
    if isinstance(value, Model):
        if _shared(type(value)):
            yield value
        for field in value.__dict__.values():
            yield from _frozen_records(field)
    elif isinstance(value, (list, dict)):
        for item in value.values() if isinstance(value, dict) else value:
            yield from _frozen_records(item)


@pytest.mark.parametrize(("server", "kind"), [("stripe", "InvoiceLine"), ("stripe", "Charge"), ("browser", "Link"),
                                            ("calendar", "Attendee"), ("github", "Commit")])
def test_a_copy_shares_the_frozen_records_and_an_assignment_to_one_raises_leaving_it(server, kind):
    """The records a copy shares are frozen: an assignment raises (a tool that tried would fail its tests) and
    leaves the record, and so the world every run shares, as it was."""
    import pydantic

    state = get_spec(server).load_state({"world": {"generator": server, "version": 1, "seed": 1, "size": "small"}})
    clone = copy.deepcopy(state)
    records = [r for r in _frozen_records(clone) if type(r).__name__ == kind]
    assert records, f"the small {server} world holds no {kind}"
    assert all(any(r is o for o in _frozen_records(state)) for r in records[:20])
    record = records[0]
    name, before = next(iter(record.__dict__.items()))
    with pytest.raises(pydantic.ValidationError, match="frozen"):
        setattr(record, name, before + "x" if isinstance(before, str) else 7)
    assert getattr(record, name) == before and clone.dump() == state.dump()


def test_only_frozen_models_of_scalars_and_flat_containers_are_shared():
    """A frozen model is shared when its fields are scalars or flat lists and dicts of scalars (which no
    code changes in place: the model's comment says what was checked); one holding models, or lists of
    lists, is copied (what is inside could be changed without an assignment to the frozen model)."""
    from pydantic import ConfigDict

    class Frozen(Model):
        model_config = ConfigDict(frozen=True)
        name: str
        tags: list[str] = []
        meta: dict[str, str] = {}

    class FrozenWithModels(Model):
        model_config = ConfigDict(frozen=True)
        items: list[Frozen]

    class FrozenWithRows(Model):
        model_config = ConfigDict(frozen=True)
        rows: list[list[str]]

    class Plain(Model):
        name: str

    assert _shared(Frozen) and not _shared(FrozenWithModels) and not _shared(FrozenWithRows) and not _shared(Plain)

    class Holder(Model):
        frozen: list[Frozen]
        nested: list[FrozenWithModels]
        plain: Plain

    holder = Holder(frozen=[Frozen(name="a", tags=["t"])], nested=[FrozenWithModels(items=[Frozen(name="b")])],
                    plain=Plain(name="c"))
    clone = copy.deepcopy(holder)
    assert clone.frozen[0] is holder.frozen[0] and clone.frozen is not holder.frozen
    assert clone.nested[0] is not holder.nested[0] and clone.nested[0].items is not holder.nested[0].items
    assert clone.nested[0].items[0] is holder.nested[0].items[0]  # a frozen record inside, shared again
    assert clone.plain is not holder.plain and clone == holder
