"""Every run's backend starts from a deep copy of its task's state (``Toolset``), and a world is
shared by every run of a process: a copy must equal its source and share nothing mutable with it."""

from __future__ import annotations

import copy

import pytest

from servers import SERVER_NAMES, get_spec
from servers.kit import Model


def _mutables(value, path="$"):
    """Every list, dict and model inside ``value`` with its path."""
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
