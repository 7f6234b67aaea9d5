"""The warehouse's views: the SQL files of ``warehouse/sql``, what each declares, and the order they are made in.

One file is one view, named after the file. Its opening comment says what a row is, then declares, one
per line:

* ``-- depends: a, b``: the views it reads. The build makes views in an order where each comes after
  what it declares (a topological order of the declarations), and refuses a cycle, a declared view
  that does not exist or is not read, a staging view reading a mart, and a view that reads another
  view without declaring it (:class:`ViewDeclarationError`, naming the file);
* ``-- grain: a, b``: the columns that name a row (no two rows share them);
* ``-- check: <SQL condition>``: a condition every row meets (null counts as met, as in a SQL CHECK);
* ``-- materialized: table``: stored as a table at build time instead of a view.

Staging files read the store through ``{{ source('runs') }}`` (and ``calls``, ``month_tasks``), which
:mod:`warehouse.sources` fills with where the Parquet lives; no other layer may name a source.
``macros/`` holds the metric formulas, made before any view.

This module reads text only: ``mcpbench warehouse --help`` lists the views without importing DuckDB.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

SQL_DIR = Path(__file__).with_name("sql")
#: The layers, in the order they may read each other: a staging view reads only sources and staging.
LAYERS = ("staging", "marts")
_SOURCE = re.compile(r"\{\{\s*source\('(\w+)'\)\s*\}\}")
_DIRECTIVE = re.compile(r"^--\s*(depends|grain|check|materialized):\s*(.*?)\s*$")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class ViewDeclarationError(ValueError):
    """A SQL file's declarations do not hold: the message names the file and what is wrong."""


@dataclass(frozen=True)
class View:
    """One SQL file of ``warehouse/sql/<layer>``: the view it makes and what its header declares."""

    name: str
    layer: str
    path: Path
    sql: str
    depends: tuple[str, ...] = ()
    grain: tuple[str, ...] = ()
    checks: tuple[str, ...] = ()
    materialized: str = "view"  # or "table"
    description: str = field(default="", compare=False)

    @classmethod
    def read(cls, path: Path, layer: str) -> View:
        """The view of the SQL file at ``path``, its header parsed (see the module's doc)."""
        sql = path.read_text(encoding="utf-8")
        declared: dict[str, list[str]] = {"depends": [], "grain": [], "check": [], "materialized": []}
        prose: list[str] = []
        for line in sql.splitlines():
            if not line.startswith("--"):
                break
            found = _DIRECTIVE.match(line)
            if found:
                kind, value = found.groups()
                parts = [value] if kind == "check" else [p.strip() for p in value.split(",") if p.strip()]
                declared[kind] += parts
            else:
                prose.append(line.removeprefix("--").strip())
        materialized = declared["materialized"] or ["view"]
        if len(materialized) > 1 or materialized[0] not in ("view", "table"):
            raise ViewDeclarationError(f"{path}: '-- materialized:' must be view or table, once")
        description = " ".join(prose).strip()
        description = description.removeprefix(f"{path.stem}:").strip()
        return cls(path.stem, layer, path, sql, tuple(declared["depends"]), tuple(declared["grain"]),
                   tuple(declared["check"]), materialized[0], description)

    @cached_property
    def body(self) -> str:
        """The SQL without comments and string literals: where the names it reads are looked for."""
        text = re.sub(r"--[^\n]*", " ", self.sql)
        return re.sub(r"'(?:[^']|'')*'", "''", text)

    def summary(self) -> str:
        """What a row is, in a line: the description's first clause, without its parentheses."""
        out, depth = [], 0
        for i, ch in enumerate(self.description):
            depth += (ch == "(") - (ch == ")")
            if depth == 0 and ch in ".;:" and self.description[i + 1:i + 2] in (" ", ""):
                break
            if depth == 0 and ch != ")":
                out.append(ch)
        return re.sub(r"\s+", " ", "".join(out)).replace(" ,", ",").strip()

    def sources(self) -> list[str]:
        """The sources this file's SQL (not its comments) names with ``{{ source('...') }}``, once each."""
        return list(dict.fromkeys(_SOURCE.findall(re.sub(r"--[^\n]*", " ", self.sql))))


def _read_all(sql_dir: Path) -> list[View]:
    views = [View.read(p, layer) for layer in LAYERS for p in sorted((sql_dir / layer).glob("*.sql"))]
    seen: dict[str, Path] = {}
    for view in views:
        if view.name in seen:
            raise ViewDeclarationError(f"{view.path}: a view named {view.name} is also made by {seen[view.name]}")
        seen[view.name] = view.path
    return views


def _check_declarations(views: list[View]) -> None:
    by_name = {v.name: v for v in views}
    for view in views:
        for dep in view.depends:
            if dep not in by_name:
                raise ViewDeclarationError(f"{view.path}: declares '-- depends: {dep}', but there is no view {dep} "
                                           f"(views: {', '.join(sorted(by_name))})")
            if dep == view.name:
                raise ViewDeclarationError(f"{view.path}: declares that it depends on itself")
            if LAYERS.index(by_name[dep].layer) > LAYERS.index(view.layer):
                raise ViewDeclarationError(f"{view.path}: a {view.layer} view may not read the {by_name[dep].layer} "
                                           f"view {dep}")
        names = {name.lower() for name in _IDENTIFIER.findall(view.body)}  # SQL names ignore case
        read = {name for name in names if name in by_name and name != view.name}
        undeclared = sorted(read - set(view.depends))
        if undeclared:
            raise ViewDeclarationError(f"{view.path}: reads {', '.join(undeclared)} without declaring it: add "
                                       f"'-- depends: {', '.join(sorted(read))}' to its header")
        unread = sorted(set(view.depends) - read)
        if unread:
            raise ViewDeclarationError(f"{view.path}: declares '-- depends: {', '.join(unread)}' but never reads it")
        if view.sources() and view.layer != "staging":
            raise ViewDeclarationError(f"{view.path}: only staging may name a source, found "
                                       f"source('{view.sources()[0]}')")


def load_views(sql_dir: Path | None = None) -> list[View]:
    """Every view of ``sql_dir`` (default ``warehouse/sql``), each after the views it declares it reads
    (staging first, then by name where the declarations leave the order open). Raises
    :class:`ViewDeclarationError` when the declarations do not hold (see the module's doc)."""
    views = _read_all(sql_dir or SQL_DIR)
    _check_declarations(views)
    by_name = {v.name: v for v in views}
    ordered: list[View] = []
    state: dict[str, str] = {}

    def visit(view: View, trail: tuple[str, ...]) -> None:
        if state.get(view.name) == "done":
            return
        if state.get(view.name) == "visiting":
            cycle = trail[trail.index(view.name):] + (view.name,)
            raise ViewDeclarationError(f"{view.path}: views depend on each other in a cycle: {' -> '.join(cycle)}")
        state[view.name] = "visiting"
        for dep in sorted(view.depends):
            visit(by_name[dep], trail + (view.name,))
        state[view.name] = "done"
        ordered.append(view)

    for view in views:
        visit(view, ())
    return ordered


def macro_files(sql_dir: Path | None = None) -> list[Path]:
    """The macro files, made before any view."""
    return sorted(((sql_dir or SQL_DIR) / "macros").glob("*.sql"))


def create_views(con: duckdb.DuckDBPyConnection, sources: dict[str, str], sql_dir: Path | None = None) -> list[str]:
    """Make the macros, then every view of ``sql_dir`` in ``con`` (a table where the file says
    ``-- materialized: table``), ``{{ source(kind) }}`` filled from ``sources``; return the views'
    names in the order they were made. A statement DuckDB refuses raises ``ValueError`` naming its file."""
    import duckdb

    views = load_views(sql_dir)  # the declarations are checked before anything is made
    for path in macro_files(sql_dir):
        for statement in con.extract_statements(path.read_text(encoding="utf-8")):
            try:
                con.execute(statement)
            except duckdb.Error as exc:
                raise ValueError(f"{path}: {exc}") from exc
    names = []
    for view in views:
        def fill(match: re.Match, view: View = view) -> str:
            kind = match.group(1)
            if kind not in sources:
                raise ValueError(f"{view.path}: unknown source('{kind}'); known: {sorted(sources)}")
            return sources[kind]

        sql = _SOURCE.sub(fill, view.sql).strip().rstrip(";")
        try:
            con.execute(f"create or replace {view.materialized} {view.name} as\n{sql}")
        except duckdb.Error as exc:
            raise ValueError(f"{view.path}: {exc}") from exc
        names.append(view.name)
    return names


def failed_checks(con: duckdb.DuckDBPyConnection, views: list[View] | None = None) -> list[str]:
    """What the views in ``con`` break of their declarations: a grain shared by two rows, a row that
    fails a ``-- check:`` condition. Empty when every declaration holds."""
    failures = []
    for view in views if views is not None else load_views():
        if view.grain:
            keys = ", ".join(view.grain)
            ((dupes,),) = con.execute(f"select count(*) from (select {keys} from {view.name} group by all "
                                      "having count(*) > 1)").fetchall()
            if dupes:
                failures.append(f"{view.name}: {dupes} values of its grain ({keys}) name more than one row")
        for check in view.checks:
            ((bad,),) = con.execute(f"select count(*) from {view.name} where not coalesce(({check}), true)"
                                    ).fetchall()
            if bad:
                failures.append(f"{view.name}: {bad} rows fail the check {check}")
    return failures


__all__ = ["LAYERS", "SQL_DIR", "View", "ViewDeclarationError", "create_views", "failed_checks", "load_views",
           "macro_files"]
