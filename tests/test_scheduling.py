"""The suite's scheduling tables (``COSTS`` and ``WAITS`` in tests/conftest.py) name tests that exist: a
renamed test would otherwise drop out of them unnoticed and start late, or wait beside the computing
tests again (only the suite's wall time would show it)."""

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


def _test_functions(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    return [node.name for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test")]


SUITE = _conftest()


@pytest.mark.parametrize("prefix", sorted({*SUITE.COSTS, *SUITE.WAITS}))
def test_every_scheduling_entry_names_a_test_that_exists(prefix):
    file, _, name = prefix.partition("::")
    path = ROOT / file
    assert path.is_file(), f"{prefix!r}: no test file {file}"
    if name:
        assert any(f.startswith(name) for f in _test_functions(path)), f"{prefix!r}: no test in {file} starts with {name!r}"
