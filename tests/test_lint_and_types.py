"""The code passes the linter and the type checker the project pins, with the configuration in
pyproject.toml: ruff over the whole repository (its rule set with complexity bounds) and mypy over the six
packages. docs/design.md, "Lint and types", says which rules and why; a failure lists every finding as
``file:line: rule message``. ``ruff check --fix .`` repairs the mechanical ones.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The checks' own bound: a cold mypy run is about half a minute on this project's machine.
CHECK_TIMEOUT_S = 240


def _run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=CHECK_TIMEOUT_S, check=False)


def _pinned(name: str) -> str:
    dev = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["dev"]
    pins = [d.split("==", 1)[1] for d in dev if d.split("==", 1)[0].split("[")[0] == name]
    assert pins, f"pyproject.toml pins no {name} in the dev extras"
    return pins[0]


@pytest.mark.parametrize("tool", ["ruff", "mypy", "types-docker"])
def test_the_checkers_installed_are_the_versions_pyproject_pins(tool):
    # Another version of ruff or mypy knows other rules or infers other types: a local run would then
    # disagree with CI's.
    installed = metadata.version(tool)
    assert installed == _pinned(tool), (
        f"{tool} {installed} is installed, pyproject.toml pins {_pinned(tool)}: run scripts/setup.sh")


def test_ruff_finds_nothing_in_the_repository():
    done = _run("ruff", "check", "--output-format", "concise", "--no-cache", ".")
    findings = [line for line in done.stdout.splitlines() if re.match(r"^\S+:\d+:\d+: ", line)]
    assert done.returncode == 0, (
        f"ruff: {len(findings)} finding(s) (docs/design.md, 'Lint and types'; `ruff check --fix .` repairs the "
        f"mechanical ones):\n" + "\n".join(findings or [done.stdout[-3000:], done.stderr[-3000:]]))


@pytest.mark.slow
def test_mypy_finds_nothing_in_the_packages():
    done = _run("mypy")
    findings = [line for line in done.stdout.splitlines() if ": error: " in line]
    assert done.returncode == 0, (
        f"mypy: {len(findings)} error(s) in the packages (docs/design.md, 'Lint and types'):\n"
        + "\n".join(findings or [done.stdout[-3000:], done.stderr[-3000:]]))


# -- the checks bite: a violation planted outside the repository, judged with the repository's config --

COMPLEX = "def judge(x: int) -> int:\n" + "".join(
    f"    if x == {i}:\n        return {i}\n" for i in range(16)) + "    return -1\n"
BLIND = "def read() -> str:\n    try:\n        return open('x').read()\n    except Exception:\n        return ''\n"
MAYBE_NONE = "def first(word: str | None) -> str:\n    return word.upper()\n"


@pytest.mark.parametrize(("source", "rules"), [
    (COMPLEX, {"C901", "PLR0912"}),
    (BLIND, {"BLE001"}),
], ids=["a function past the complexity bounds", "a blind except"])
def test_ruff_refuses_a_planted_violation_with_the_projects_rules(tmp_path, source, rules):
    (tmp_path / "planted.py").write_text(source)
    done = _run("ruff", "check", "--config", str(ROOT / "pyproject.toml"), "--output-format", "concise",
                "--no-cache", "planted.py", cwd=tmp_path)
    found = set(re.findall(r": ([A-Z]+[0-9]+) ", done.stdout))
    assert done.returncode == 1 and rules <= found, done.stdout + done.stderr


def test_mypy_refuses_a_planted_attribute_of_what_may_be_none(tmp_path):
    (tmp_path / "planted.py").write_text(MAYBE_NONE)
    done = _run("mypy", "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(tmp_path / "cache"),
                "planted.py", cwd=tmp_path)
    assert done.returncode == 1 and '[union-attr]' in done.stdout, done.stdout + done.stderr
