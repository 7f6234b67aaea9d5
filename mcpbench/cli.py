"""The ``mcpbench`` command line: one group, each command a thin call into the library.

Commands are imported lazily (``LAZY_COMMANDS``), so ``mcpbench --help`` and ``mcpbench serve`` do
not pay for Prefect, Great Expectations or DuckDB.
"""

from __future__ import annotations

import importlib

import click

#: command name -> "module:attribute" of a click command or group
LAZY_COMMANDS: dict[str, str] = {
    "author": "mcpbench.commands.author:author",
    "servers": "mcpbench.commands.servers:servers",
    "serve": "mcpbench.commands.servers:serve",
    "warehouse": "mcpbench.commands.warehouse:warehouse",
    "leaderboard": "mcpbench.commands.warehouse:leaderboard",
    "report": "mcpbench.commands.warehouse:report",
    "tasks": "mcpbench.commands.tasks:tasks",
    "run": "mcpbench.commands.run:run",
    "rotate": "mcpbench.commands.months:rotate",
    "attest": "mcpbench.commands.months:attest",
    "view": "mcpbench.commands.view:view",
    "export": "mcpbench.commands.view:export",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(LAZY_COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = LAZY_COMMANDS.get(name)
        if target is None:
            return None
        module, attr = target.split(":")
        return getattr(importlib.import_module(module), attr)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="mcpbench")
def main() -> None:
    """MCPBench: evaluate LLM agents on mock MCP servers, scored from the servers' final state.

    \b
    Example:
      mcpbench run --agent oracle --split dev
    """
