"""docs/configuration.md lists every environment variable the code reads: a variable added anywhere
(harness, flows, scripts, benchmarks, tests, the TypeScript verifier) without a line on that page fails
here, and so does a line for a variable nothing reads any more."""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "configuration.md"
#: Files that are code (or configuration the code reads), by suffix; plus these by name.
CODE_SUFFIXES = {".py", ".sh", ".ts", ".mjs", ".c", ".yaml", ".toml", ".Dockerfile"}
CODE_NAMES = {"run", "Dockerfile"}
SKIPPED_DIRS = {".git", "node_modules", "dist", "__pycache__", ".mcpbench", "docs"}
OUR_PREFIX = re.compile(r"\bMCPBENCH_[A-Z0-9_]*[A-Z0-9]\b")


def code_files() -> list[Path]:
    out = []
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS]
        out += [Path(folder) / f for f in files if Path(f).suffix in CODE_SUFFIXES or f in CODE_NAMES]
    return sorted(out)


FILES = code_files()


def documented() -> set[str]:
    """The variables in the first column of the page's tables."""
    return set(re.findall(r"^\| `([A-Z][A-Z0-9_]+)` \|", PAGE.read_text(encoding="utf-8"), flags=re.M))


def our_variables() -> dict[str, str]:
    """Every ``MCPBENCH_*`` name in the code (each is a variable: the prefix is used for nothing else),
    with a file that names it."""
    found: dict[str, str] = {}
    for path in FILES:
        for name in OUR_PREFIX.findall(path.read_text(encoding="utf-8", errors="replace")):
            found.setdefault(name, str(path.relative_to(ROOT)))
    return found


def _is_environ(node: ast.AST) -> bool:
    text = ast.unparse(node)
    return text.endswith("environ") or text == "env"


def read_variables(path: Path) -> set[str]:
    """The names ``path`` reads from the environment: ``os.environ.get(X)``, ``os.environ[X]``,
    ``os.getenv(X)``, ``X in os.environ``, ``env.get(X)`` (a mapping passed in for the environment), with
    ``X`` a string or a module-level name bound to one."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    constants = {t.id: node.value.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
                 and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
                 for t in node.targets if isinstance(t, ast.Name)}

    def literal(node: ast.AST) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        return constants.get(node.id) if isinstance(node, ast.Name) else None

    names: set[str | None] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            if (isinstance(func, ast.Attribute) and func.attr in ("get", "pop", "setdefault") and _is_environ(func.value)) \
                    or ast.unparse(func) == "os.getenv":
                names.add(literal(node.args[0]))
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and _is_environ(node.value):
            names.add(literal(node.slice))
        elif isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops) \
                and any(_is_environ(c) for c in node.comparators):
            names.add(literal(node.left))
    return {n for n in names if n}


def test_every_mcpbench_variable_in_the_code_is_on_the_configuration_page():
    missing = {name: where for name, where in our_variables().items() if name not in documented()}
    assert missing == {}, f"add these to {PAGE.relative_to(ROOT)} (meaning, default, who reads it): {missing}"


def test_every_other_variable_the_python_code_reads_is_on_the_configuration_page():
    """Beyond our prefix: the AWS, OpenAI, Prefect, Docker and process variables the code reads itself."""
    missing = {}
    for path in FILES:
        if path.suffix == ".py" and path.relative_to(ROOT).parts[0] != "tests":
            for name in read_variables(path) - documented():
                missing.setdefault(name, str(path.relative_to(ROOT)))
    assert missing == {}, f"add these to {PAGE.relative_to(ROOT)}: {missing}"


def test_every_variable_on_the_page_is_still_named_in_the_code():
    text = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in FILES)
    stale = sorted(name for name in documented() if not re.search(rf"\b{name}\b", text))
    assert stale == [], f"{PAGE.relative_to(ROOT)} lists variables nothing reads: {stale}"


def test_the_scan_sees_the_variables_it_is_meant_to_see():
    """The checks above look at something: known reads are found, by each route."""
    assert {"MCPBENCH_SECRET", "MCPBENCH_TS_BREAK", "MCPBENCH_DOCKERD_LOG"} <= set(our_variables())  # .py .ts .sh
    assert read_variables(ROOT / "runstore" / "store" / "_s3.py") >= {"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"}
    assert "MCPBENCH_SECRET" in read_variables(ROOT / "tasks_catalog" / "sealed.py")  # through SECRET_ENV
    assert "ANTHROPIC_API_KEY" in read_variables(ROOT / "mcpbench" / "model_gateway" / "settings.py")  # env.get
    assert len(documented()) >= 60
