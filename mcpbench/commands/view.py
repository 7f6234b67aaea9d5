"""``mcpbench view``: the run viewer over a store, served locally or written as a static site; a thin
call into ``mcpbench.viewer``."""

from __future__ import annotations

from pathlib import Path

import click

from mcpbench._net import is_loopback
from mcpbench.commands._store import open_store_for, store_option


def open_trace(store_root: str | None):
    """The store at ``store_root`` opened for reading, as a ``mcpbench.viewer.data.Trace``; a click
    error naming what is wrong (no store there, unreadable Parquet) otherwise."""
    from mcpbench.viewer.data import Trace
    from runstore.store import StoreError
    from warehouse.sources import CorruptFileError

    store = open_store_for(store_root, "read")
    try:
        return Trace(store)
    except (CorruptFileError, StoreError) as exc:
        raise click.ClickException(str(exc)) from None


@click.command()
@store_option()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to serve on. Anything but a loopback address shows the transcripts to other machines.")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port to serve on; 0 picks a free one (printed).")
@click.option("--export", "export_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write the pages as a static site into this folder (relative links, no server needed) "
                   "and exit, instead of serving.")
def view(store_root: str | None, host: str, port: int, export_dir: Path | None) -> None:
    """Browse the runs of a store: leaderboards -> submission -> task -> run.

    A run's page shows its goal (where published), every call with its arguments, result (long ones
    folded), error, injected fault and latency, the model's turns and tokens among the calls, how it
    ended and why (each failing clause, expected against found; what changed outside the frame), and
    the agent's stderr tail. Long runs are paged; transcripts can be searched, one or all. Private
    months show what their records keep: ids and counts, no text. The store is only read.

    \b
    Examples:
      mcpbench view --port 8765
      mcpbench view --export site/

    The store may be a folder or s3://bucket/prefix (--store, or MCPBENCH_STORE).
    """
    trace = open_trace(store_root)
    try:
        if export_dir is not None:
            from mcpbench.viewer.server import export_site

            files = export_site(trace, export_dir, progress=lambda line: click.echo(line, err=True))
            click.echo(f"wrote {len(files)} pages to {export_dir} (open {export_dir / 'index.html'})")
            return
        from mcpbench.viewer.server import make_server

        if not is_loopback(host):
            click.echo(f"WARNING: serving on {host}: every transcript in {trace.store.url()} is visible to "
                       "whoever reaches this address (there is no login).", err=True)
        try:
            server = make_server(trace, host, port)
        except OSError as exc:
            raise click.ClickException(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None
        bound_host, bound_port = str(server.server_address[0]), int(server.server_address[1])
        shown = f"[{bound_host}]" if ":" in bound_host else bound_host
        click.echo(f"viewing {trace.store.url()} at http://{shown}:{bound_port}/ (Ctrl-C stops)", err=False)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
    finally:
        trace.close()


@click.command()
@store_option()
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder to write into (made if needed).")
@click.option("--submission", "submissions", multiple=True, metavar="ID", help="Runs of this submission (repeatable).")
@click.option("--split", "splits", multiple=True, metavar="SPLIT",
              help="Runs on this split: dev, YYYY-MM, Historical-YYYY-MM, dir:<name> (repeatable).")
@click.option("--run", "run_ids", multiple=True, metavar="RUN_ID", help="This run (repeatable).")
@click.option("--format", "formats", multiple=True, type=click.Choice(["atif", "jsonl", "parquet"]),
              default=("atif",), show_default=True,
              help="atif: a trajectory per run (atif/<run_id>.json, ATIF v1.4); jsonl or parquet: the records "
                   "(runs, calls, turns). Repeatable.")
def export(store_root: str | None, out_dir: Path, submissions: tuple[str, ...], splits: tuple[str, ...],
           run_ids: tuple[str, ...], formats: tuple[str, ...]) -> None:
    """Write runs out of the store as ATIF trajectories (Harbor's format) or as JSONL / Parquet records.

    A run is exported when it matches every kind of filter given (any value of each); with no filter,
    every run. Each call is an ATIF tool call with its result (or error) as the observation; each model
    turn the gateway metered is an agent step with its text and tokens; how the run ended and its
    explanation are in the trajectory's extra. Private months export ids and counts only, no text.

    \b
    Examples:
      mcpbench export --split dev --out trajectories/
      mcpbench export --split dev --format parquet --format jsonl --out records/
    """
    from mcpbench.viewer.trajectories import export_runs, select_runs

    trace = open_trace(store_root)
    try:
        try:
            chosen = select_runs(trace, submissions=submissions, splits=splits, run_ids=run_ids)
        except (LookupError, ValueError) as exc:
            raise click.ClickException(str(exc)) from None
        if not chosen:
            raise click.ClickException(f"no run in {trace.store.url()} matches the filters given")
        files = export_runs(trace, chosen, out_dir, formats, progress=lambda line: click.echo(line, err=True))
    finally:
        trace.close()
    click.echo(f"exported {len(chosen)} runs to {out_dir} ({len(files)} files: {', '.join(formats)})")
