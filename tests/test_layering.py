"""The packages form layers: each imports only the layers below it, so no package cycle can form.

runstore (records, store) < servers < tasks_catalog < warehouse < mcpbench (harness, CLI) < flows.
The CLI is the top of ``mcpbench``: the harness modules below ``mcpbench.commands`` never import the
warehouse.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ["runstore", "servers", "tasks_catalog", "warehouse", "mcpbench", "flows"]


def imported_packages(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found & set(LAYERS)


@pytest.mark.parametrize("package", LAYERS)
def test_a_package_imports_only_the_layers_below_it(package):
    allowed = set(LAYERS[: LAYERS.index(package) + 1])
    offences = []
    for path in sorted((ROOT / package).rglob("*.py")):
        if "node_modules" in path.parts:
            continue
        if package == "mcpbench" and "commands" not in path.parts and path.name != "cli.py":
            above = imported_packages(path) & {"warehouse", "flows"}
        else:
            above = imported_packages(path) - allowed
        offences += [f"{path.relative_to(ROOT)} imports {name}" for name in sorted(above)]
    assert offences == []
