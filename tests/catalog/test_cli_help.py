"""The CLI is documented (every command has help with an example) and its help is cheap (it does not
import Prefect, Great Expectations or DuckDB)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from mcpbench.cli import LAZY_COMMANDS, main

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("prefect", "great_expectations", "duckdb")


def _walk(command: click.Command, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], click.Command]]:
    """Every command under ``command`` (itself included) with the words that invoke it."""
    out = [(path, command)]
    if isinstance(command, click.Group):
        ctx = click.Context(command)
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            assert sub is not None, f"`mcpbench {' '.join(path + (name,))}` is listed but cannot be loaded"
            out += _walk(sub, path + (name,))
    return out


COMMANDS = _walk(main)


def test_every_lazily_registered_command_is_listed():
    assert {path[0] for path, _ in COMMANDS if path} == set(LAZY_COMMANDS)


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[" ".join(("mcpbench",) + p) for p, _ in COMMANDS])
def test_every_command_has_help_with_an_example(path, command):
    assert command.help and command.help.strip(), f"`mcpbench {' '.join(path)}` has no help text"
    assert "Example" in command.help
    result = CliRunner().invoke(main, [*path, "--help"])
    assert result.exit_code == 0, result.output
    assert "Example" in result.output


def _imported_modules(*args: str) -> set[str]:
    """The top-level packages ``python -m mcpbench ARGS`` imports (from ``-X importtime``)."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "mcpbench", *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Usage:" in proc.stdout
    names = set()
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and line.count("|") == 2:
            names.add(line.rsplit("|", 1)[1].strip().split(".")[0])
    assert "click" in names, "importtime output was not parsed"
    return names


@pytest.mark.parametrize("args", [("--help",), ("serve", "--help")], ids=["mcpbench --help", "mcpbench serve --help"])
def test_help_does_not_import_prefect_great_expectations_or_duckdb(args):
    assert _imported_modules(*args) & set(HEAVY) == set()
