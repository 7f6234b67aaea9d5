"""The packages form floors: each imports only the floors below it, so no package cycle can form; and
inside every package the modules form floors too, so no two parts of a package need each other.

    runstore < servers, warehouse < tasks_catalog < mcpbench (harness, CLI) < flows < bench

Peers on one floor (servers, warehouse) never import each other. The CLI (``mcpbench/cli.py`` and
``mcpbench.commands``) is the top of ``mcpbench``: the harness below it never imports the warehouse, and
``tasks_catalog/authoring`` (the author's tools) is the top of ``tasks_catalog``: only the CLI imports
it. Every import counts, a function-local one as much as one at the top of a file (only imports under
``if TYPE_CHECKING:`` are left out, since they never run): a function-local import that climbs a floor
or closes a circle hides the circle, it does not remove it. docs/design.md, "Layers".
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FLOORS: list[tuple[str, ...]] = [("runstore",), ("servers", "warehouse"), ("tasks_catalog",), ("mcpbench",),
                                 ("flows",), ("bench",)]
PACKAGES = [p for floor in FLOORS for p in floor]
#: A part and the only parts that may import it (besides itself): the author's tools, the top floor of
#: tasks_catalog, are run from the CLI and the benchmarks (which draft frames for the tasks they make);
#: the warehouse is read by the CLI, the run viewer (``mcpbench view`` and ``export``), the flows and the
#: benchmarks, never by the harness.
IMPORTED_ONLY_BY = {
    "tasks_catalog.authoring": ("mcpbench.commands", "bench"),
    "warehouse": ("mcpbench.commands", "mcpbench.cli", "mcpbench.viewer", "flows", "bench"),
}


@dataclass(frozen=True)
class Import:
    importer: str  # module name
    imported: str  # module name, or the package a name was imported from
    where: str  # file:line

    def __str__(self) -> str:
        return f"{self.where}: {self.importer} imports {self.imported}"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def source_files() -> dict[str, Path]:
    return {module_name(p): p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))
            if "node_modules" not in p.parts}


MODULES = source_files()


def _resolve(name: str) -> str | None:
    """The longest prefix of ``name`` that is one of our modules (``a.b.c`` -> ``a.b`` when c is a name)."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        if ".".join(parts[:i]) in MODULES:
            return ".".join(parts[:i])
    return None


def imports_of(module: str) -> list[Import]:
    """Every import of one of our modules by ``module``, at any depth, except under ``if TYPE_CHECKING:``."""
    path = MODULES[module]
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found: list[Import] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and ast.unparse(child.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
                continue
            names: list[str] = []
            if isinstance(child, ast.Import):
                names = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    base = ".".join(package[:len(package) - child.level + 1] + ([base] if base else []))
                names = [f"{base}.{alias.name}" for alias in child.names]
            for name in names:
                target = _resolve(name)
                found_here = Import(module, target or "", f"{path.relative_to(ROOT)}:{child.lineno}")
                if target is not None and target != module and found_here not in found:
                    found.append(found_here)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
    return found


IMPORTS = [i for module in MODULES for i in imports_of(module)]


def _floor(package: str) -> int:
    return next(n for n, floor in enumerate(FLOORS) if package in floor)


@pytest.mark.parametrize("package", PACKAGES)
def test_a_package_imports_only_the_floors_below_it(package):
    offences = [str(i) for i in IMPORTS if i.importer.split(".")[0] == package
                and i.imported.split(".")[0] != package and _floor(i.imported.split(".")[0]) >= _floor(package)]
    assert offences == [], "\n".join(offences)


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


@pytest.mark.parametrize("part", sorted(IMPORTED_ONLY_BY))
def test_the_authoring_wing_and_the_warehouse_are_imported_only_by_what_runs_them(part):
    allowed = (part, *IMPORTED_ONLY_BY[part])
    offences = [str(i) for i in IMPORTS if _within(i.imported, part)
                and not any(_within(i.importer, a) for a in allowed)]
    assert offences == [], "\n".join(offences)


def _packages() -> list[str]:
    """Every package, namespace packages (tasks_catalog, bench) included: each dotted prefix of a module."""
    return sorted({".".join(m.split(".")[:n]) for m in MODULES for n in range(1, m.count(".") + 1)})


def _part(package: str, module: str) -> str | None:
    """The direct child of ``package`` that ``module`` is or lies in (None outside it, or the package itself)."""
    if not module.startswith(package + "."):
        return None
    return package + "." + module[len(package) + 1:].split(".")[0]


def _circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            connect(v)
    return out


@pytest.mark.parametrize("package", _packages())
def test_the_parts_of_a_package_never_import_each_other_in_a_circle(package):
    """The parts of a package (its modules and subpackages) form floors: a circle, however many function-
    local imports hide it, is named with every import that closes it."""
    edges: dict[str, set[str]] = {}
    lines: dict[tuple[str, str], list[str]] = {}
    for i in IMPORTS:
        a, b = _part(package, i.importer), _part(package, i.imported)
        if a is not None and b is not None and a != b:
            edges.setdefault(a, set()).add(b)
            lines.setdefault((a, b), []).append(str(i))
    circles = [[line for a in circle for b in circle for line in lines.get((a, b), [])]
               for circle in _circles(edges)]
    assert circles == [], "the imports that close each circle:\n" + "\n\n".join("\n".join(c) for c in circles)


def test_the_import_graph_was_read():
    """The tests above check something: the known imports are seen, function-local ones included."""
    seen = {(i.importer, i.imported) for i in IMPORTS}
    assert ("mcpbench.runner", "tasks_catalog.frames") in seen
    assert ("mcpbench.commands.author", "tasks_catalog.authoring.propose") in seen  # inside a command function
    assert ("tasks_catalog.authoring.wrongs", "tasks_catalog.authoring.propose") in seen
    assert len({i.importer.split(".")[0] for i in IMPORTS}) == len(PACKAGES)
