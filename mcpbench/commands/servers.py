"""``mcpbench servers`` and ``mcpbench serve``."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import click


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def servers(as_json: bool) -> None:
    """List the mock MCP servers and their tools.

    \b
    Example:
      mcpbench servers --json
    """
    from servers import all_specs

    rows = []
    for spec in all_specs():
        marks = dict(spec.toolset.tool_marks())
        rows.append(
            {
                "name": spec.name,
                "description": spec.description,
                "tools": [
                    {"name": n, "read_only": marks[n].read_only, "destructive": marks[n].destructive}
                    for n in spec.tool_names()
                ],
            }
        )
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    for row in rows:
        click.echo(f"{row['name']:<11} {len(row['tools']):>2} tools  {row['description']}")
        for t in row["tools"]:
            flag = "read-only" if t["read_only"] else ("destructive" if t["destructive"] else "writes")
            click.echo(f"    {t['name']:<28} {flag}")


@click.command()
@click.argument("name")
@click.option("--state", "state_file", type=click.Path(dir_okay=False, path_type=Path),
              help="JSON file with the server's initial state (default: empty state).")
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind (http).")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True, help="Port (http).")
def serve(name: str, state_file: Path | None, transport: str, host: str, port: int) -> None:
    """Run one mock server standalone, for any MCP client.

    Over http the endpoint is http://HOST:PORT/mcp (streamable HTTP).

    \b
    Examples:
      mcpbench serve filesystem --state state.json
      mcpbench serve slack --transport http --port 8765
    """
    from servers import UnknownServerError, get_spec
    from servers.kit import StateError, build_mcp_server

    try:
        spec = get_spec(name)
    except UnknownServerError as exc:
        raise click.BadParameter(str(exc), param_hint="NAME") from None
    try:
        state = spec.state_model.load(state_file) if state_file else spec.state_model()
    except StateError as exc:
        raise click.ClickException(f"bad state for server {name}:\n{exc}") from None
    # SIGTERM (a supervisor stopping the server) unwinds like Ctrl-C, so the backend is closed and
    # leaves nothing behind (the filesystem server's workspace in /dev/shm).
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    with spec.open(state) as tools:
        server = build_mcp_server(spec, tools)
        if transport == "stdio":
            server.run("stdio")
        else:
            click.echo(f"serving {name} at http://{host}:{port}/mcp", err=True)
            server.run("streamable-http", host=host, port=port)


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)
