"""``mcpbench warehouse build|query|docs``, ``mcpbench leaderboard`` and ``mcpbench report``: thin calls into
the ``warehouse`` package. DuckDB is imported when a command runs, never at ``mcpbench --help``."""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from mcpbench.commands._store import store_option

if TYPE_CHECKING:
    from warehouse.reader import Rows

_db_option = click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
                          help="Warehouse database file [default: $MCPBENCH_WAREHOUSE or .mcpbench/warehouse.duckdb]; "
                               "built if missing. A file that is not a warehouse a build made is never replaced.")
_json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON rows instead of a table.")
_unchecked_option = click.option(
    "--unchecked", is_flag=True,
    help="Read the warehouse even if its data has not passed the quality suites (or failed them); what is "
         "printed is labelled UNCHECKED. By default such a warehouse is refused.")


#: Columns shown in percent by ``leaderboard`` (fractions in the warehouse and in ``--json``).
_PERCENT = ("_rate", "_ci_low", "_ci_high", "pass_hat_k", "pass_at_k", "coverage")


def _cell(name: str, value, percent: bool) -> str:
    if value is None:
        return "" if not percent else "-"
    if percent and isinstance(value, float) and not isinstance(value, bool):
        if name == "efficiency":
            return f"{value:.1f}%"
        if name.endswith(_PERCENT):
            return f"{100 * value:.1f}%"
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _print_table(table, as_json: bool, *, limit: int | None = None, percent: bool = False) -> None:
    """Print ``table`` (``warehouse.reader.Rows``) as JSON or a rich table (at most ``limit`` rows shown;
    with ``percent``, rates as percentages). Every cell is data: printed as it is, never read as Rich
    markup (``[redacted]`` stays)."""
    if as_json:
        click.echo(json.dumps(table.plain(), default=str, indent=2))
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    shown = table.values if limit is None else table.values[:limit]
    out = Table(show_edge=False, header_style="bold")
    for name in table.columns:
        out.add_column(Text(name), overflow="fold")
    for row in shown:
        out.add_row(*(Text(_cell(name, v, percent)) for name, v in zip(table.columns, row)))
    # a pipe or a file gets every column at full width; a terminal gets its own width
    console = Console() if sys.stdout.isatty() else Console(width=10_000, no_color=True)
    console.print(out)
    if len(shown) < len(table):
        console.print(Text(f"({len(table)} rows, {len(shown)} shown; use --json or LIMIT for the rest)"))


@contextmanager
def _refusals():
    """Turn what the warehouse refuses (a file that is not a warehouse, a store that is not there,
    unreadable Parquet) into a click error saying why, with no traceback."""
    from runstore.store import StoreError
    from warehouse.database_file import WarehouseFileError
    from warehouse.sources import CorruptFileError

    try:
        yield
    except (CorruptFileError, StoreError, WarehouseFileError) as exc:
        raise click.ClickException(str(exc)) from None


def _open(db_path: Path | None, store: str | None, unchecked: bool):
    """The warehouse (``warehouse.reader.Warehouse``), refused (exit 1 with why) when its data failed or
    skipped the quality suites, unless ``unchecked``; then a loud label goes to stderr."""
    from warehouse.quality import QualityError
    from warehouse.reader import open_warehouse
    from warehouse.status import UncheckedWarehouse

    try:
        with _refusals():
            opened = open_warehouse(db_path, store=store, allow_unchecked=unchecked)
    except QualityError as exc:
        raise click.ClickException(f"{exc}\nNothing is scored from data that failed its checks; "
                                   "--unchecked reads it anyway, labelled.") from None
    except UncheckedWarehouse as exc:
        raise click.ClickException(str(exc)) from None
    if opened.label():
        click.echo(f"WARNING: {opened.label()}", err=True)
    return opened


def _list_views(formatter: click.HelpFormatter) -> None:
    """The views that exist (``warehouse/sql``), each with what a row of it is."""
    from warehouse.views import LAYERS, load_views

    views = sorted(load_views(), key=lambda v: (LAYERS.index(v.layer), v.name))
    with formatter.section("Views (their columns and checks: docs/warehouse.md)"):
        formatter.write_dl([(v.name, v.summary()) for v in views])


class _WarehouseGroup(click.Group):
    """The ``warehouse`` group, whose help lists the views read from ``warehouse/sql`` when it is shown."""

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_help_text(ctx, formatter)
        _list_views(formatter)


class _QueryCommand(click.Command):
    """``warehouse query``, whose help lists the views it can read."""

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_help_text(ctx, formatter)
        _list_views(formatter)


@click.group(cls=_WarehouseGroup)
def warehouse() -> None:
    """Build and query the DuckDB warehouse of landed runs and calls.

    Its views are listed below, read from the SQL files of warehouse/sql.

    \b
    Example:
      mcpbench warehouse build
      mcpbench warehouse query "select * from metrics_by_submission"
    """


@warehouse.command()
@store_option()
@_db_option
@click.option("--check/--no-check", default=True, show_default=True,
              help="Validate the landed data with the Great Expectations suites first.")
def build(store_root: str | None, db_path: Path | None, check: bool) -> None:
    """Build the warehouse database file from the store's Parquet.

    Only runs that landed (or changed) since the last checked build are validated; with nothing new,
    no suite runs. A failed quality suite stops the build with a report of what failed; the landed
    data and the previous database file are kept. A --no-check build is recorded as unchecked, and
    leaderboard, report and query refuse it unless given --unchecked.

    \b
    Examples:
      mcpbench warehouse build
      mcpbench warehouse build --db warehouse.duckdb
    """
    from warehouse.build import build as build_warehouse
    from warehouse.quality import QualityError

    try:
        with _refusals():
            result = build_warehouse(store_root, db_path, check=check)
    except QualityError as exc:
        raise click.ClickException(str(exc)) from None
    state = (f"checked ({result.runs_validated} new runs validated)" if result.checked
             else "UNCHECKED (readers refuse it without --unchecked)")
    click.echo(f"built {result.path}: {len(result.views)} views over {result.runs} runs and {result.calls} calls "
               f"in {result.seconds:.2f}s; {state}")


@warehouse.command(cls=_QueryCommand)
@click.argument("sql")
@store_option()
@_db_option
@_json_option
@_unchecked_option
@click.option("--limit", type=click.IntRange(min=1), default=200, show_default=True,
              help="Rows shown in a table (JSON prints every row).")
def query(sql: str, store_root: str | None, db_path: Path | None, as_json: bool, unchecked: bool, limit: int) -> None:
    """Run one SQL query on the warehouse and print the result.

    \b
    Examples:
      mcpbench warehouse query "select * from metrics_by_submission"
      mcpbench warehouse query --json "select server, success_rate from metrics_aggregate"
    """
    import duckdb

    with _open(db_path, store_root, unchecked) as opened:
        try:
            table = opened.query(sql)
        except duckdb.Error as exc:
            raise click.ClickException(f"query failed: {exc}") from None
    _print_table(table, as_json, limit=limit)


@warehouse.command()
@click.option("--check", is_flag=True, help="Exit 1 if the committed reference is stale instead of writing it.")
def docs(check: bool) -> None:
    """Write the views' reference into docs/warehouse.md (between its two marker lines): each view's
    description, what it reads, its grain and checks (from the SQL files' headers) and its columns with
    their types and meanings (from the views and warehouse/sql/columns.yaml). Commit the result.

    \b
    Example:
      mcpbench warehouse docs --check
    """
    from warehouse.views_doc import COMMAND, DOC_PATH, render

    try:
        current = DOC_PATH.read_text(encoding="utf-8")
        text = render(current)
    except (OSError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    if check:
        if text != current:
            click.echo(f"{DOC_PATH} is out of date; run `{COMMAND}` and commit it", err=True)
            sys.exit(1)
        click.echo(f"{DOC_PATH} is up to date")
        return
    DOC_PATH.write_text(text, encoding="utf-8")
    click.echo(f"wrote {DOC_PATH}")


#: What the compact leaderboard shows (``--wide``: every column of the view): rank, submission, agent
#: (label first), success rate with its 95% interval, efficiency, hallucination rate, collateral damage
#: rate, coverage (tasks covered / tasks in the month), notes.
COMPACT = ("rank", "submission", "agent", "success (95% CI)", "efficiency", "hallucination", "collateral",
           "coverage", "note")


def _compact(table: Rows, historical: bool) -> Rows:
    """The leaderboard's rows as the compact table: rank, the agent (its label, then the agent it ran
    as), the success rate with its 95% interval, efficiency, hallucination and collateral damage in
    percent, coverage, and a note (under review; not separable from the next at this sample size)."""
    from warehouse.reader import Rows
    from warehouse.scorecard import agent_name, interval

    rows: list[tuple] = []
    for r in table.dicts():
        notes = ["under review"] if r.get("under_review") else []
        if r["rank"] is not None and r.get("separable_from_next") is False:
            notes.append("not separable")
        rows.append((*([r["month"]] if historical else []), r["rank"], r["submission_id"],
                     agent_name(r["agent"], r.get("label")),
                     interval(r["success_rate"], r["success_rate_ci_low"], r["success_rate_ci_high"]),
                     _cell("efficiency", r["efficiency"], True), _cell("_rate", r["hallucination_rate"], True),
                     _cell("_rate", r["collateral_damage_rate"], True),
                     f"{r['tasks_covered']}/{r['tasks_in_month']}", "; ".join(notes)))
    return Rows([*(["month"] if historical else []), *COMPACT], rows)


@click.command()
@click.option("--historical", is_flag=True, help="Rank the retired public months instead of the current one.")
@click.option("--wide", is_flag=True, help="Every column of the leaderboard view (trials, intervals, counts, "
                                            "model cost), not the compact table.")
@store_option()
@_db_option
@_json_option
@_unchecked_option
def leaderboard(historical: bool, wide: bool, store_root: str | None, db_path: Path | None, as_json: bool,
                unchecked: bool) -> None:
    """Print the leaderboard: the current private month, or --historical for retired public months.

    Compact by default: rank, agent (its --label, then the agent it ran as), success rate with its 95%
    interval, efficiency, hallucination and collateral damage rates, coverage, notes (under review; not
    separable: its interval overlaps the next one's); rates in percent. At the same success rate (and
    efficiency) a submission that made no call ranks with those that invented no tool, never below one
    that did.
    --wide prints every column; --json every column as fractions. Only submissions that covered their
    month (an attempted run on every task) get a rank; the others are listed after them with their
    coverage. Dev-set and folder runs never rank.

    \b
    Examples:
      mcpbench leaderboard
      mcpbench leaderboard --wide
      mcpbench leaderboard --historical --json
    """
    from warehouse.reader import Rows
    from warehouse.scorecard import submission_labels

    view = "leaderboard_historical" if historical else "leaderboard_contemporary"
    with _open(db_path, store_root, unchecked) as opened:
        table = opened.query(f"select * from {view}")
        labels = submission_labels(opened.con)
    sid, at = table.columns.index("submission_id"), table.columns.index("agent") + 1
    table = Rows([*table.columns[:at], "label", *table.columns[at:]],
                 [(*row[:at], labels.get(row[sid]), *row[at:]) for row in table.values])
    if len(table) == 0 and not as_json:
        click.echo("no ranked submissions yet (dev-set runs never rank)")
        return
    _print_table(table if wide or as_json else _compact(table, historical), as_json, percent=True)


def viewer_link(url: str):
    """``warehouse.report``'s link for ``--viewer-url``: into a running ``mcpbench view`` (an http(s) URL)
    or an exported site (a folder, relative to the report or absolute)."""
    from mcpbench.viewer.pages import Links, SiteLinks

    served = url.startswith(("http://", "https://"))
    links = Links() if served else SiteLinks()
    base = url.rstrip("/")

    def link(kind: str, value: str) -> str:
        href = links.submission(value) if kind == "submission" else links.task(value)
        return base + href if served else f"{base}/{href}"

    return link


@click.command()
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="Where to write the page.")
@click.option("--viewer-url", metavar="URL", default=None,
              help="Link submissions and tasks into the run viewer: a running `mcpbench view` "
                   "(http://127.0.0.1:8765) or a site written by `mcpbench view --export` (its folder, "
                   "relative to the page, e.g. site).")
@store_option()
@_db_option
@_unchecked_option
def report(html_path: Path, viewer_url: str | None, store_root: str | None, db_path: Path | None,
           unchecked: bool) -> None:
    """Write a static HTML report: leaderboards, dev results, failure reasons, hardest tasks, the month
    trend, per-server charts, anomaly flags.

    The page is self-contained (inline CSS and SVG, no scripts), fits a 1280 px window and opens in a
    browser with no server.

    \b
    Examples:
      mcpbench report --html report.html
      mcpbench report --html report.html --viewer-url site
    """
    from warehouse.report import write_report

    with _open(db_path, store_root, unchecked) as opened:
        path = write_report(html_path, opened, link=viewer_link(viewer_url) if viewer_url else None)
    click.echo(f"wrote {path}")
