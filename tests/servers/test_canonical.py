"""servers/kit/canonical.py writes exactly what the RFC 8785 reference implementation writes, and fails
where it fails."""

from __future__ import annotations

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from servers import SERVER_NAMES
from servers.kit.canonical import dumps

NUMBERS = st.one_of(
    st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1),
    st.integers(min_value=2**53 - 3, max_value=2**60) | st.integers(min_value=-(2**60), max_value=-(2**53) + 3),
    st.floats(allow_nan=False, allow_infinity=False),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda f: float(round(f))),  # 1.0, 1e+16, ...
    st.sampled_from([0.0, -0.0, 1e21, 1e-7, 1e-6, 123456789012345680.0, 5e-324, 1.7976931348623157e308,
                     50000.0, -3.0, 1e-4, 0.1, 9999999999999998.0, 1e15, 1e16, 2.0**53, 2.0**53 - 1]),
)
#: strings that hold what a number token can look like (the encoder's output is searched for such text)
NUMBER_LIKE = st.sampled_from([":1.0,", ",1e-05]", "[12345678901234567}", "2e+16", "x,-0.0}", "9007199254740993",
                               # after an escaped quote or backslash: still inside the string
                               '\\":2.0]', '\\\\', '\\\\":-0.0}'])
TEXT = (st.text() | st.sampled_from(["", "a\u2028b", "\x00\x1f\x7f", "\ue000", "\U0001f600", 'q"\\/'])
        | st.builds(lambda a, b: a + b, NUMBER_LIKE, st.text(max_size=3)))
SCALARS = st.none() | st.booleans() | NUMBERS | TEXT
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=5) | st.dictionaries(TEXT, inner, max_size=5),
                    max_leaves=25)


def _same(value) -> None:
    try:
        expected = rfc8785.dumps(value)
    except Exception as exc:  # noqa: BLE001 - the reference refuses: so must we, the same way
        with pytest.raises(type(exc)):
            dumps(value)
        return
    assert dumps(value) == expected


@settings(max_examples=400, deadline=None)
@given(JSON)
def test_any_json_value_is_written_exactly_as_the_reference_writes_it(value):
    _same(value)


@settings(max_examples=200, deadline=None)
@given(st.lists(NUMBERS, min_size=1, max_size=4), st.dictionaries(TEXT, NUMBERS, max_size=4))
def test_numbers_in_arrays_and_objects_are_written_as_ecmascript_writes_them(array, obj):
    _same(array)
    _same(obj)


@pytest.mark.parametrize("value", [[float("nan")], {"x": float("inf")}, ["\ud800"], [2**53], {"k": [1, [-(2**60)]]}])
def test_what_the_reference_refuses_is_refused(value):
    with pytest.raises((rfc8785.CanonicalizationError, TypeError, ValueError)):
        rfc8785.dumps(value)
    with pytest.raises((rfc8785.CanonicalizationError, TypeError, ValueError)):
        dumps(value)


def test_keys_outside_the_basic_plane_are_ordered_by_utf16_code_units():
    value = {"\U0001f600": 1, "\uffff": 2, "a": 3}
    assert dumps(value) == rfc8785.dumps(value)
    assert dumps(value).index("\uffff".encode()) > dumps(value).index("\U0001f600".encode())


@pytest.mark.parametrize("server", SERVER_NAMES)
def test_every_world_is_written_exactly_as_the_reference_writes_it(server):
    from servers.kit.world import generators

    for generator in generators(server).values():
        state = generator.generate(1)
        assert dumps(state) == rfc8785.dumps(state), f"{server} version {generator.version}"
