"""Notion primitives. Pages and databases are identified by their exact title (case-sensitive) or their
id, so a guard written with an id still sees the object after a rename; only objects that are not
archived count. Where several live objects share a title, a primitive holds when it holds for any of
them.

A page's property values are its ``properties`` plus its title, under the name of its title
property: the database's title column for a row (e.g. ``Name``), ``title`` for other pages. A
property absent from ``properties`` has no value: it equals nothing, not even null.

Values are compared with ``same`` (strings exactly, numbers numerically, no coercion between
strings, numbers and booleans; ``null`` equals only ``null``); a list (multi_select) equals a list
with the same members in any order, and never a scalar.
"""

from __future__ import annotations

from pydantic import Field

from servers.notion import NotionState
from servers.notion.state import Page
from tasks_catalog.predicates._registry import (
    Args,
    Name,
    Pattern,
    Scalar,
    closest,
    explains,
    listing,
    pattern,
    primitive,
    same,
    search,
    shown,
    value,
)

#: An expected property value: a JSON scalar, or a list of option names for a multi_select.
Value = Scalar | list[str]


class PageExists(Args):
    """True when a page (free-standing or a database row) that is not archived has title (or id) exactly
    `title`. With `parent`, that page's parent must be a page or database, not archived, whose title or
    id is exactly `parent` (a page at the top of the workspace has no parent and never matches)."""

    title: Name
    parent: Name | None = None


class DatabaseHasRow(Args):
    """True when a database titled exactly `database` (or with that id), not archived, has a row (a page whose parent is
    that database, not archived) whose value equals the given value for every property named in
    `where` (the title column included). An empty `where` asks for any row."""

    database: Name
    where: dict[str, Value] = Field(description="Property name to expected value")


class PagePropertyEquals(Args):
    """True when a page titled exactly `page` (or with that id), not archived, has property `property` equal to `value`.
    `property` may be the page's title property (``title`` outside a database)."""

    page: Name
    property: Name
    value: Value


class DatabaseExists(Args):
    """True when a database titled exactly `title` (or with that id) exists and is not archived."""

    title: Name


class PageContentMatches(Args):
    """True when a page titled exactly `page` (or with that id), not archived, has a content block whose
    text `pattern` finds (a regular expression search), and, when `type` is given, that block is of
    that type (e.g. "to_do", "heading_2"). Checks what a page says, not only that it exists."""

    page: Name
    pattern: Pattern
    type: Name | None = None


class CommentPosted(Args):
    """True when a page titled exactly `page` (or with that id), not archived, has a comment whose text
    `pattern` finds (a regular expression search), and, when `author` is given, whose author is
    exactly `author`."""

    page: Name
    pattern: Pattern
    author: Name | None = None


def equal(expected: Value, actual: object) -> bool:
    """Property value equality: ``same`` for scalars; lists have the same members in any order."""
    if isinstance(expected, list) or isinstance(actual, list):
        if not (isinstance(expected, list) and isinstance(actual, list)) or len(expected) != len(actual):
            return False
        return sorted(expected) == sorted(actual)
    return same(expected, actual)


def _live_pages(state: NotionState, title: str) -> list[Page]:
    return [p for p in state.pages if title in (p.title, p.id) and not p.archived]


def _has(values: dict, name: str, expected: Value) -> bool:
    return name in values and equal(expected, values[name])


@primitive("notion", "pageExists", PageExists)
def page_exists(state: NotionState, args: PageExists) -> bool:
    for page in _live_pages(state, args.title):
        if args.parent is None:
            return True
        if page.parent_id is None:
            continue
        parent = state.page(page.parent_id) or state.database(page.parent_id)
        if parent is not None and args.parent in (parent.title, parent.id) and not parent.archived:
            return True
    return False


@primitive("notion", "databaseHasRow", DatabaseHasRow)
def database_has_row(state: NotionState, args: DatabaseHasRow) -> bool:
    for db in state.databases:
        if args.database not in (db.title, db.id) or db.archived:
            continue
        for row in state.pages:
            if row.parent_id != db.id or row.archived:
                continue
            values = state.values_of(row)
            if all(_has(values, name, expected) for name, expected in args.where.items()):
                return True
    return False


@primitive("notion", "pagePropertyEquals", PagePropertyEquals)
def page_property_equals(state: NotionState, args: PagePropertyEquals) -> bool:
    return any(_has(state.values_of(p), args.property, args.value) for p in _live_pages(state, args.page))


@primitive("notion", "databaseExists", DatabaseExists)
def database_exists(state: NotionState, args: DatabaseExists) -> bool:
    return any(args.title in (db.title, db.id) and not db.archived for db in state.databases)


@primitive("notion", "pageContentMatches", PageContentMatches)
def page_content_matches(state: NotionState, args: PageContentMatches) -> bool:
    return any(search(args.pattern, block.text) for page in _live_pages(state, args.page) for block in page.content
               if args.type is None or block.type == args.type)


@primitive("notion", "commentPosted", CommentPosted)
def comment_posted(state: NotionState, args: CommentPosted) -> bool:
    pages = {page.id for page in _live_pages(state, args.page)}
    return any(c.page_id in pages and search(args.pattern, c.text) and (args.author is None or c.author == args.author)
               for c in state.comments)


# -- explainers: what each clause asks and what the state held -------------------------------------

def _no_page(state: NotionState, ref: str) -> str:
    archived = [p for p in state.pages if ref in (p.title, p.id) and p.archived]
    return f"no live page titled or with id {ref!r}" + (f" ({len(archived)} archived)" if archived else "")


@explains("notion", "pageExists")
def _explain_page_exists(state: NotionState, args: PageExists) -> tuple[str, str]:
    expected = f"a page {args.title!r}" + (f" under {args.parent!r}" if args.parent is not None else "")
    pages = _live_pages(state, args.title)
    if not pages:
        return expected, _no_page(state, args.title)

    def parent(page: Page) -> str:
        if page.parent_id is None:
            return "the top of the workspace"
        p = state.page(page.parent_id) or state.database(page.parent_id)
        return f"{p.title!r}{' (archived)' if p.archived else ''}" if p is not None else page.parent_id

    return expected, "; ".join(f"{p.id} under {parent(p)}" for p in pages[:4])


@explains("notion", "databaseHasRow")
def _explain_database_has_row(state: NotionState, args: DatabaseHasRow) -> tuple[str, str]:
    expected = f"a row of {args.database!r} with {value(args.where)}"
    dbs = [db for db in state.databases if args.database in (db.title, db.id) and not db.archived]
    if not dbs:
        return expected, f"no live database titled or with id {args.database!r}"
    rows = [state.values_of(r) for r in state.pages if not r.archived and r.parent_id in {db.id for db in dbs}]
    return expected, f"{len(rows)} rows; the nearest: {closest(rows, args.where, equal)}"


@explains("notion", "pagePropertyEquals")
def _explain_page_property_equals(state: NotionState, args: PagePropertyEquals) -> tuple[str, str]:
    expected = f"{args.property} = {value(args.value)} on {args.page!r}"
    pages = _live_pages(state, args.page)
    if not pages:
        return expected, _no_page(state, args.page)
    held = [state.values_of(p) for p in pages[:4]]
    return expected, "; ".join(f"{p.id}: {args.property} " + (f"= {value(v[args.property])}" if args.property in v
                                                             else f"absent (it has {listing(v)})")
                               for p, v in zip(pages, held))


@explains("notion", "databaseExists")
def _explain_database_exists(state: NotionState, args: DatabaseExists) -> tuple[str, str]:
    named = [db for db in state.databases if args.title in (db.title, db.id)]
    found = "; ".join(f"{db.id}{' (archived)' if db.archived else ''}" for db in named) or \
        f"none; databases: {listing(db.title for db in state.databases if not db.archived)}"
    return f"a live database {args.title!r}", f"databases titled or with id {args.title!r}: {found}"


@explains("notion", "pageContentMatches")
def _explain_page_content_matches(state: NotionState, args: PageContentMatches) -> tuple[str, str]:
    typed = f" {args.type}" if args.type is not None else ""
    expected = f"a{typed} block of {args.page!r} matching {pattern(args.pattern)}"
    pages = _live_pages(state, args.page)
    if not pages:
        return expected, _no_page(state, args.page)
    blocks = [b for p in pages for b in p.content]
    return expected, f"{len(blocks)} blocks; the last: " + \
        ("; ".join(f"{b.type} {shown(b.text, 60)}" for b in blocks[-4:]) or "none")


@explains("notion", "commentPosted")
def _explain_comment_posted(state: NotionState, args: CommentPosted) -> tuple[str, str]:
    by = f" by {args.author}" if args.author is not None else ""
    expected = f"a comment{by} on {args.page!r} matching {pattern(args.pattern)}"
    pages = {p.id for p in _live_pages(state, args.page)}
    if not pages:
        return expected, _no_page(state, args.page)
    comments = [c for c in state.comments if c.page_id in pages]
    return expected, f"{len(comments)} comments; the last: " + \
        ("; ".join(f"{c.author}: {shown(c.text)}" for c in comments[-3:]) or "none")
