"""``mcpbench servers`` and ``mcpbench serve``."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import click

from mcpbench.commands._serve_http import MIN_TOKEN_CHARS, TOKEN_ENV, is_loopback, serve_http, token_problem


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def servers(as_json: bool) -> None:
    """List the mock MCP servers and their tools.

    \b
    Example:
      mcpbench servers --json
    """
    from servers import all_specs

    rows: list[dict[str, Any]] = []
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
              help="JSON file with the server's initial state (default: empty state); refused by size (4 MiB) "
                   "before it is parsed.")
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True)
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to bind (http). Any but a loopback address needs a bearer token.")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="Port (http); 0 lets the system choose (the URL printed says which).")
@click.option("--token", envvar=TOKEN_ENV, default=None, show_envvar=True,
              help=f"Bearer token every HTTP request must carry (Authorization: Bearer <token>), at least "
                   f"{MIN_TOKEN_CHARS} characters; required when --host is not a loopback address. Prefer the "
                   "environment variable: an option shows in the process list.")
def serve(name: str, state_file: Path | None, transport: str, host: str, port: int, token: str | None) -> None:
    """Run one mock server standalone, for any MCP client.

    Over http the endpoint is http://HOST:PORT/mcp (streamable HTTP). On a loopback address (the
    default) only this machine reaches it. Any other address (0.0.0.0, a LAN address) reaches other
    machines too: serve then warns, and refuses to start without a bearer token; with one, a request
    without the header is answered 401.

    \b
    Examples:
      mcpbench serve filesystem --state state.json
      mcpbench serve slack --transport http --port 8765
      MCPBENCH_SERVE_TOKEN=$(python -c 'import secrets; print(secrets.token_urlsafe(32))') \\
        mcpbench serve slack --transport http --host 0.0.0.0
    """
    from servers import UnknownServerError, get_spec
    from servers.kit import StateError, build_mcp_server

    try:
        spec = get_spec(name)
    except UnknownServerError as exc:
        raise click.BadParameter(str(exc), param_hint="NAME") from None
    if transport == "http":  # decided before the state is read or anything is bound
        if not is_loopback(host):
            click.echo(f"warning: --host {host} is not a loopback address: the server is reachable from other "
                       "machines, and every request must carry Authorization: Bearer <token>", err=True)
        problem = token_problem(token) if token is not None or not is_loopback(host) else None
        if problem:
            raise click.ClickException(f"refusing to serve {name} on {host}: {problem} (set {TOKEN_ENV}, or --token)")
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
            guarded = " (bearer token required)" if token else ""
            serve_http(server, host, port, token,
                       lambda url: click.echo(f"serving {name} at {url}{guarded}", err=True))


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)
