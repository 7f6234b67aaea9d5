"""Notion state: users, databases (with a typed property schema), pages (free-standing or database rows,
with their content blocks) and comments.

A ``people`` value is a list of user ids; a ``relation`` value a list of page ids of the database its
schema names (``database_id``). ``created_time`` is an ISO date-time (UTC); ``now`` is the workspace's
clock, the time new pages are created at.

A page's title is its ``title`` field. A database row's other property values live in its
``properties`` map, keyed by the database's property names; a page outside a database has no
other properties. A property absent from a row's ``properties`` has no value at all (the tools
always write every property of the schema, with ``null``, ``[]`` or ``false`` for empty ones).
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from servers.kit import Model, ServerState

PropertyType = Literal[
    "title", "rich_text", "number", "select", "multi_select", "status", "checkbox", "date", "url", "email",
    "people", "relation",
]
BlockType = Literal[
    "paragraph", "heading_1", "heading_2", "heading_3", "bulleted_list_item", "numbered_list_item", "to_do", "quote"
]
#: A property value: text, a number, a boolean (checkbox), null (empty), or a list of option names.
Value = str | int | float | bool | None | list[str]


def list_value(value: Value) -> list[str]:
    """A multi_select, people or relation value as its list (``check_value`` makes it one; empty: none)."""
    return value if isinstance(value, list) else []

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?(Z|[+-]\d{2}:\d{2})?)?$")
_OPTION_TYPES = ("select", "multi_select", "status")
_LIST_TYPES = ("multi_select", "people", "relation")


def empty_value(ptype: str) -> Value:
    """The value an unset property of this type has."""
    return [] if ptype in _LIST_TYPES else False if ptype == "checkbox" else None


def check_value(name: str, ptype: str, value: Value) -> Value:  # noqa: C901 - one branch per Notion property type
    """``value`` if it fits a property of type ``ptype``; else ``ValueError`` saying why."""

    def bad(kind: str) -> ValueError:
        return ValueError(f"property {name!r} is {ptype}; it takes {kind}, not {value!r}")

    if ptype == "checkbox":
        if not isinstance(value, bool):
            raise bad("true or false")
        return value
    if ptype in _LIST_TYPES:
        kind = {"multi_select": "option names", "people": "user ids", "relation": "page ids"}[ptype]
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise bad(f"a list of {kind}")
        if len(set(value)) != len(value):
            raise ValueError(f"property {name!r} lists an option twice: {value!r}")
        return value
    if value is None:
        return None
    if ptype == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise bad("a number")
        return value
    if not isinstance(value, str):
        raise bad("a string")
    if ptype in ("select", "status") and not value:
        raise bad("a non-empty option name or null")
    if ptype == "date":
        if not _DATE.match(value):
            raise bad("an ISO date such as '2026-05-14' (or date-time '2026-05-14T09:30')")
        try:
            (date if len(value) == 10 else datetime).fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise bad("a real calendar date") from None
    if ptype == "email" and "@" not in value:
        raise bad("an email address")
    return value


class PropertySchema(Model):
    """One column of a database: its type, for select/multi_select/status its options, for a relation
    the id of the database whose rows it links."""

    type: PropertyType
    options: list[str] = Field(default_factory=list)
    database_id: str | None = None

    @model_validator(mode="after")
    def _options_fit_the_type(self) -> PropertySchema:
        if self.options and self.type not in _OPTION_TYPES:
            raise ValueError(f"a {self.type} property has no options")
        if (self.type == "relation") != (self.database_id is not None):
            raise ValueError("a relation property names the database it links (database_id), and only a relation does")
        if len(set(self.options)) != len(self.options) or not all(self.options):
            raise ValueError("options must be distinct non-empty names")
        return self


class Database(Model):
    """A database: a titled table of row pages under a parent page (or the workspace, ``parent_id`` null)."""

    id: str = Field(min_length=1)
    title: str
    parent_id: str | None = None
    properties: dict[str, PropertySchema]
    archived: bool = False

    @field_validator("properties")
    @classmethod
    def _one_title_property(cls, props: dict[str, PropertySchema]) -> dict[str, PropertySchema]:
        titles = [n for n, p in props.items() if p.type == "title"]
        if len(titles) != 1:
            raise ValueError(f"a database has exactly one title property; found {len(titles)}")
        if not all(n.strip() for n in props):
            raise ValueError("property names must be non-empty")
        return props

    @property
    def title_property(self) -> str:
        return next(n for n, p in self.properties.items() if p.type == "title")


class Block(Model):
    """One content block of a page. ``checked`` is set for to_do blocks only."""

    id: str = Field(min_length=1)
    type: BlockType
    text: str = ""
    checked: bool | None = None

    @model_validator(mode="after")
    def _checked_only_on_todos(self) -> Block:
        if (self.type == "to_do") != (self.checked is not None):
            raise ValueError("'checked' is set on to_do blocks (true/false) and only on them")
        return self


class Page(Model):
    """A page: a free-standing page under a page or the workspace (``parent_id`` null), or a row of a
    database (``parent_id`` is the database's id)."""

    id: str = Field(min_length=1)
    title: str
    parent_id: str | None = None
    properties: dict[str, Value] = Field(default_factory=dict)
    content: list[Block] = Field(default_factory=list)
    archived: bool = False
    created_time: str | None = Field(default=None, description="ISO date-time (UTC), e.g. 2026-03-02T09:15:00Z")


class User(Model):
    """A workspace member (``person``, with an email) or an integration (``bot``)."""

    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    type: Literal["person", "bot"] = "person"
    email: str | None = None


class Comment(Model):
    """A comment on a page."""

    id: str = Field(min_length=1)
    page_id: str
    author: str
    text: str = Field(min_length=1)


class NotionState(ServerState):
    """The workspace: ``databases``, ``pages`` (including database rows) and ``comments``, each a list
    in creation order. Ids are unique across all of them and across content blocks."""

    world_generator: ClassVar[str] = "notion"

    now: str | None = Field(default=None, description="ISO date-time at which new pages are created")
    users: list[User] = Field(default_factory=list)
    databases: list[Database] = Field(default_factory=list)
    pages: list[Page] = Field(default_factory=list)
    comments: list[Comment] = Field(default_factory=list)

    @model_validator(mode="after")
    def _references_hold(self) -> NotionState:  # noqa: C901, PLR0912 - one flat check per kind of reference the state holds
        ids: set[str] = set()

        def claim(kind: str, oid: str) -> None:
            if oid in ids:
                raise ValueError(f"id {oid!r} of a {kind} is used twice")
            ids.add(oid)

        dbs = {d.id: d for d in self.databases}
        page_ids = {p.id for p in self.pages}
        parents = {p.id: p.parent_id for p in self.pages}
        user_ids = {u.id for u in self.users}
        for u in self.users:
            claim("user", u.id)
        for d in self.databases:
            claim("database", d.id)
            if d.parent_id is not None and d.parent_id not in page_ids:
                raise ValueError(f"database {d.id!r}: parent_id {d.parent_id!r} is not a page")
            for name, schema in d.properties.items():
                if schema.type == "relation" and schema.database_id not in dbs:
                    raise ValueError(f"database {d.id!r}: relation {name!r} names unknown database {schema.database_id!r}")
        for p in self.pages:
            claim("page", p.id)
            for b in p.content:
                claim("block", b.id)
            if p.parent_id is None or p.parent_id in page_ids:
                if p.properties:
                    raise ValueError(f"page {p.id!r} is not in a database, so it has no properties")
                continue
            db = dbs.get(p.parent_id)
            if db is None:
                raise ValueError(f"page {p.id!r}: parent_id {p.parent_id!r} is neither a page nor a database")
            for name, value in p.properties.items():
                declared = db.properties.get(name)
                if declared is None or declared.type == "title":
                    raise ValueError(f"page {p.id!r}: database {db.id!r} has no property {name!r} besides its title")
                check_value(name, declared.type, value)
                if declared.type == "people" and not set(list_value(value)) <= user_ids:
                    raise ValueError(f"page {p.id!r}: {name!r} names unknown users {sorted(set(list_value(value)) - user_ids)}")
                if declared.type == "relation" and any(parents.get(v) != declared.database_id for v in list_value(value)):
                    raise ValueError(f"page {p.id!r}: {name!r} links pages that are not rows of {declared.database_id!r}")
        for c in self.comments:
            claim("comment", c.id)
            if c.page_id not in page_ids:
                raise ValueError(f"comment {c.id!r}: page_id {c.page_id!r} is not a page")
        return self

    # -- lookups shared by the tools and the predicates -------------------------------------
    def database(self, database_id: str) -> Database | None:
        return next((d for d in self.databases if d.id == database_id), None)

    def page(self, page_id: str) -> Page | None:
        return next((p for p in self.pages if p.id == page_id), None)

    def user(self, user_id: str) -> User | None:
        return next((u for u in self.users if u.id == user_id), None)

    def values_of(self, page: Page) -> dict[str, Value]:
        """Every property value of ``page``: its ``properties`` plus its title under the name of its
        title property (the database's title column, or ``title`` outside a database)."""
        db = self.database(page.parent_id) if page.parent_id else None
        return {(db.title_property if db else "title"): page.title, **page.properties}
