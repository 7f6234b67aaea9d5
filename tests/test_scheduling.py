"""The suite's scheduling tables (tests/conftest.py) name tests that exist, and spreading the tests that
mostly wait keeps every test exactly once. A renamed test would otherwise drop out of ``COSTS`` or
``WAITING`` unnoticed and be scheduled as an ordinary one (only the suite's wall time would show it)."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _conftest():
    """tests/conftest.py as a module of its own (``import conftest`` could find another folder's)."""
    spec = importlib.util.spec_from_file_location("_suite_conftest", ROOT / "tests" / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CONFTEST = _conftest()
PREFIXES = sorted(set(CONFTEST.COSTS) | set(CONFTEST.WAITING))


def _test_functions(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    return [node.name for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test")]


@pytest.mark.parametrize("prefix", PREFIXES)
def test_every_scheduling_entry_names_a_test_that_exists(prefix):
    file, _, name = prefix.partition("::")
    path = ROOT / file
    assert path.is_file(), f"{prefix!r}: no test file {file}"
    if name:
        assert any(f.startswith(name) for f in _test_functions(path)), f"{prefix!r}: no test in {file} starts with {name!r}"


class _Item:
    def __init__(self, nodeid: str) -> None:
        self.nodeid = nodeid

    def __repr__(self) -> str:
        return self.nodeid


@pytest.mark.parametrize(("waiting", "others"), [(0, 5), (1, 5), (3, 10), (5, 5), (5, 6), (7, 3), (4, 0), (40, 1700)])
def test_spreading_keeps_every_test_once_and_in_order_and_parts_the_waiting_ones(waiting, others):
    w = [_Item(f"w{i}") for i in range(waiting)]
    o = [_Item(f"o{i}") for i in range(others)]
    out = CONFTEST._spread(w, o)
    assert sorted(map(repr, out)) == sorted(map(repr, w + o))
    assert [i for i in out if i in w] == w and [i for i in out if i in o] == o
    if others > waiting:  # enough others to part them: no two waiting tests are neighbours, none comes first or last
        assert not any(a in w and b in w for a, b in zip(out, out[1:])), out
        assert out[0] in o and out[-1] in o
