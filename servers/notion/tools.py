"""Notion tools, named after Notion's MCP server (search, retrieve/create/update a page, query and
create a database, read and append block children, comments, users).

Answers follow Notion's API: pages carry their values as property objects (``{"type": "status",
"status": {"name": "Done"}}``), listings are ``{"object": "list", "results": [...], "next_cursor": ...,
"has_more": ...}`` and the next page is asked for with ``start_cursor``. Property values are written
plain (``"Done"``) or as Notion property value objects (``servers/notion/props.py``).

Ids of new objects are deterministic (a UUID derived from the kind of object and a counter), so a
reference solution can name an object it created.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from servers.kit import MAX_QUERY_CHARS, ToolError, Toolset, tool
from servers.kit.pages import Cursor, page
from servers.notion import props
from servers.notion.state import (
    Block,
    BlockType,
    Comment,
    Database,
    NotionState,
    Page,
    PropertySchema,
    PropertyType,
    Value,
    check_value,
    empty_value,
    list_value,
)

_NAMESPACE = uuid.UUID("6f1d3c2a-8b4e-4f7a-9c1d-2e5b7a9f0c31")

PageId = Annotated[str, Field(min_length=1, description="A page id, as returned by search or query_database")]
DatabaseId = Annotated[str, Field(min_length=1, description="A database id, as returned by search")]
Properties = Annotated[
    dict[str, Any] | None,
    Field(description="Property values by property name: text, number, true/false, null, a list of option names "
                      "(multi_select), of user ids (people) or of page ids (relation); or Notion property value "
                      "objects such as {'status': {'name': 'Done'}}"),
]
PageSize = Annotated[int, Field(ge=1, le=100, description="Results per page (1-100)")]
StartCursor = Annotated[Cursor | None, Field(description="next_cursor from the previous page; omit for the first page")]


def _listing(results: list, cursor_name: str, start_cursor: str | None, page_size: int) -> dict:
    chunk, next_cursor = page(results, cursor_name, start_cursor, page_size)
    return {"object": "list", "results": chunk, "next_cursor": next_cursor or None, "has_more": bool(next_cursor)}


class BlockInput(BaseModel):
    type: BlockType = Field(default="paragraph", description="Block type, e.g. paragraph, heading_2, to_do")
    text: str = ""
    checked: bool | None = Field(default=None, description="For to_do blocks: whether it is ticked")


class PropertySpec(BaseModel):
    type: PropertyType
    options: list[str] | None = Field(default=None, description="Option names for select, multi_select, status")


class Condition(BaseModel):
    property: str = Field(min_length=1, description="Property name (the title column counts too)")
    equals: Value = Field(default=None, description="Keep rows whose value equals this (null: the value is empty)")
    contains: str | None = Field(
        default=None, description="Instead of equals: text contains this (case-insensitive), or a multi_select has this option"
    )


class Sort(BaseModel):
    property: str
    direction: Literal["ascending", "descending"] = "ascending"


class NotionTools(Toolset[NotionState]):
    state_model = NotionState

    # -- helpers -------------------------------------------------------------------------------
    def _new_id(self, kind: str, also_taken: set[str] | frozenset[str] = frozenset()) -> str:
        s = self.state
        taken = {d.id for d in s.databases} | {p.id for p in s.pages} | {c.id for c in s.comments}
        taken |= {b.id for p in s.pages for b in p.content} | also_taken
        n = len(taken) + 1
        while (new := str(uuid.uuid5(_NAMESPACE, f"{kind}:{n}"))) in taken:
            n += 1
        return new

    def _page(self, page_id: str, *, writable: bool = False) -> Page:
        page = self.state.page(page_id)
        if page is None:
            hint = " (that is a database id; use retrieve_database or query_database)" if self.state.database(page_id) else ""
            raise ToolError(f"no page with id {page_id!r}{hint}")
        if writable and page.archived:
            raise ToolError(f"page {page_id!r} is archived; restore it first with update_page(archived=false)")
        return page

    def _database(self, database_id: str, *, writable: bool = False) -> Database:
        db = self.state.database(database_id)
        if db is None:
            hint = " (that is a page id)" if self.state.page(database_id) else ""
            raise ToolError(f"no database with id {database_id!r}{hint}")
        if writable and db.archived:
            raise ToolError(f"database {database_id!r} is archived; restore it first with update_database(archived=false)")
        return db

    def _row_values(self, db: Database, given: dict[str, Value], current: dict[str, Value]) -> dict[str, Value]:
        """``current`` updated with ``given`` after checking every name and value against ``db``'s schema.
        New select/multi_select options are added to the schema (only once every value is valid); a
        status must be one of the existing options."""
        out = dict(current)
        new_options: dict[str, list[str]] = {}
        for name, value in given.items():
            schema = db.properties.get(name)
            if schema is None:
                names = ", ".join(n for n in db.properties if n != db.title_property)
                raise ToolError(f"database {db.title!r} has no property {name!r}; its properties are: {names}")
            if schema.type == "title":
                raise ToolError(f"{name!r} is the title property; pass it as the 'title' argument")
            value = props.plain(name, schema.type, value)
            try:
                out[name] = check_value(name, schema.type, value)
            except ValueError as exc:
                raise ToolError(str(exc)) from None
            if schema.type == "people":
                unknown_users = [v for v in list_value(value) if self.state.user(v) is None]
                if unknown_users:
                    raise ToolError(f"property {name!r}: no user with id {unknown_users[0]!r} (list_users shows the ids)")
            if schema.type == "relation":
                for v in list_value(value):
                    row = self.state.page(v)
                    if row is None or row.parent_id != schema.database_id:
                        target = self.state.database(schema.database_id) if schema.database_id else None
                        raise ToolError(f"property {name!r} links rows of {target.title if target else schema.database_id!r}; "
                                        f"{v!r} is not one of them")
            if schema.type not in ("select", "multi_select", "status") or value is None:
                continue
            unknown = [v for v in ([value] if isinstance(value, str) else list_value(value)) if v not in schema.options]
            if unknown and schema.type == "status":
                raise ToolError(f"{unknown[0]!r} is not a status of {name!r}; the statuses are: {', '.join(schema.options)}")
            if unknown:
                new_options[name] = unknown
        for name, unknown in new_options.items():
            db.properties[name].options = db.properties[name].options + unknown
        return out

    def _page_json(self, page: Page, *, url: bool = True, db: Database | None = None,
                   names: dict[str, str] | None = None) -> dict:
        """A page object; a caller rendering many rows of one database passes it and the user names."""
        if db is None and page.parent_id:
            db = self.state.database(page.parent_id)
        values = {(db.title_property if db else "title"): page.title, **page.properties}
        out = {"object": "page", "id": page.id, "title": page.title, "parent": self._parent_json(page.parent_id, db),
               "created_time": page.created_time, "archived": page.archived,
               "properties": props.render_values(self.state, db, values, names)}
        if url:
            out["url"] = f"https://www.notion.so/{page.id.replace('-', '')}"
        return out

    def _title_from(self, title: str | None, properties: dict[str, Any] | None, db: Database | None,
                    ) -> tuple[str | None, dict[str, Any] | None]:
        """A title given among the properties (as Notion's API takes it) moved to ``title``."""
        name = db.title_property if db else "title"
        if not properties or name not in properties:
            return title, properties
        rest = {k: v for k, v in properties.items() if k != name}
        given = props.plain(name, "title", properties[name])
        if not isinstance(given, str) or not given:
            raise ToolError(f"property {name!r} is the title; give it a non-empty text")
        if title is not None and title != given:
            raise ToolError(f"the title is given twice, as {title!r} and as property {name!r} = {given!r}")
        return given, rest

    def _parent_json(self, parent_id: str | None, db: Database | None = None) -> dict:
        if parent_id is None:
            return {"type": "workspace"}
        if (db is not None and db.id == parent_id) or self.state.database(parent_id) is not None:
            return {"type": "database_id", "database_id": parent_id}
        return {"type": "page_id", "page_id": parent_id}

    def _database_json(self, db: Database) -> dict:
        return {"object": "database", "id": db.id, "title": db.title, "parent": self._parent_json(db.parent_id),
                "title_property": db.title_property,
                "properties": {n: p.model_dump(exclude_defaults=True) | {"type": p.type} for n, p in db.properties.items()},
                "archived": db.archived}

    def _blocks(self, children: list[BlockInput]) -> list[Block]:
        blocks: list[Block] = []
        for i, child in enumerate(children):
            if child.type != "to_do" and child.checked is not None:
                raise ToolError(f"children[{i}]: only to_do blocks can be checked")
            checked = bool(child.checked) if child.type == "to_do" else None
            new_id = self._new_id("block", also_taken={b.id for b in blocks})
            blocks.append(Block(id=new_id, type=child.type, text=child.text, checked=checked))
        return blocks

    # -- search and pages ----------------------------------------------------------------------
    @tool(read_only=True)
    def search(
        self,
        query: Annotated[str, Field(max_length=MAX_QUERY_CHARS,
                                    description="Text to find in titles (case-insensitive); empty lists everything")] = "",
        filter: Annotated[Literal["page", "database"] | None, Field(description="Only pages or only databases")] = None,
        include_archived: Annotated[bool, Field(description="Also list archived (trashed) objects")] = False,
        start_cursor: StartCursor = None,
        page_size: PageSize = 20,
    ) -> dict:
        """Search the workspace by title for pages (including database rows) and databases: each hit's
        object, id, title and parent. Archived objects are left out unless include_archived is true.
        One page of page_size hits at a time: pass next_cursor as start_cursor for the next."""
        q = query.casefold()
        hits: list[dict] = []

        def hit(kind: str, obj: Database | Page) -> dict:
            out = {"object": kind, "id": obj.id, "title": obj.title, "parent": self._parent_json(obj.parent_id)}
            return out | {"archived": True} if obj.archived else out

        if filter in (None, "database"):
            hits += [hit("database", d) for d in self.state.databases
                     if (include_archived or not d.archived) and q in d.title.casefold()]
        if filter in (None, "page"):
            hits += [hit("page", p) for p in self.state.pages
                     if (include_archived or not p.archived) and q in p.title.casefold()]
        return _listing(hits, f"search:{q}:{filter}:{include_archived}", start_cursor, page_size)

    @tool(read_only=True)
    def retrieve_page(self, page_id: PageId) -> dict:
        """A page's title, parent and property values (a database row's values are keyed by column name)."""
        return self._page_json(self._page(page_id))

    @tool()
    def create_page(
        self,
        parent_id: Annotated[str, Field(min_length=1, description="Id of the parent page, or of the database to add a row to")],
        title: Annotated[str | None, Field(min_length=1, description="The page title (a row's title column)")] = None,
        properties: Properties = None,
        children: Annotated[list[BlockInput] | None, Field(description="Content blocks of the new page")] = None,
    ) -> dict:
        """Create a page under a page, or a new row in a database (then `properties` sets its columns;
        unset columns are left empty). Returns the new page with its id."""
        blocks = self._blocks(children or [])
        db = self.state.database(parent_id)
        title, properties = self._title_from(title, properties, db)
        if not title:
            raise ToolError("give the page a title")
        if db is not None:
            self._database(parent_id, writable=True)
            defaults = {n: empty_value(p.type) for n, p in db.properties.items() if p.type != "title"}
            values = self._row_values(db, properties or {}, defaults)
        else:
            if self.state.page(parent_id) is None:
                raise ToolError(f"no page or database with id {parent_id!r} to be the parent")
            self._page(parent_id, writable=True)
            if properties:
                raise ToolError("only database rows have properties; a page under a page has just a title")
            values = {}
        page = Page(id=self._new_id("page", {b.id for b in blocks}), title=title, parent_id=parent_id,
                    properties=values, content=blocks, created_time=self.state.now)
        self.state.pages.append(page)
        return self._page_json(page)

    @tool(destructive=True)
    def update_page(
        self,
        page_id: PageId,
        title: Annotated[str | None, Field(min_length=1, description="A new title")] = None,
        properties: Properties = None,
        archived: Annotated[bool | None, Field(description="true moves the page to the trash; false restores it")] = None,
    ) -> dict:
        """Change a page's title or (for a database row) property values, or archive/restore it.
        Properties not named are left as they are; null empties one."""
        page = self._page(page_id)
        db = self.state.database(page.parent_id) if page.parent_id else None
        title, properties = self._title_from(title, properties, db)
        if title is None and not properties and archived is None:
            raise ToolError("nothing to update: give title, properties or archived")
        if page.archived and archived is not False and (title is not None or properties):
            raise ToolError(f"page {page_id!r} is archived; restore it first with update_page(archived=false)")
        if properties:
            if db is None:
                raise ToolError("only database rows have properties; change a page's title with 'title'")
            if db.archived:
                raise ToolError(f"database {db.title!r} is archived; restore it before editing its rows")
            page.properties = self._row_values(db, properties, page.properties)
        if title is not None:
            page.title = title
        if archived is not None:
            page.archived = archived
        return self._page_json(page)

    # -- databases -----------------------------------------------------------------------------
    @tool(read_only=True)
    def retrieve_database(self, database_id: DatabaseId) -> dict:
        """A database's title, parent and schema: each property's type and, for select, multi_select
        and status, its options."""
        return self._database_json(self._database(database_id))

    @tool(read_only=True)
    def query_database(
        self,
        database_id: DatabaseId,
        filter: Annotated[list[Condition] | None, Field(description="Conditions that must all hold")] = None,
        sorts: list[Sort] | None = None,
        start_cursor: StartCursor = None,
        page_size: PageSize = 10,
    ) -> dict:
        """The rows of a database (archived rows left out), optionally filtered and sorted, one page of
        page_size rows at a time (pass next_cursor as start_cursor for the next). Each row is a page
        object: its id, title and every property value. Filter on any property: equals (people and
        relation: the list of ids; null: empty) or contains (text, or one option/user/page id of a list)."""
        db = self._database(database_id)
        if db.archived:
            raise ToolError(f"database {db.title!r} is archived; restore it first with update_database(archived=false)")
        for c in (filter or []) + (sorts or []):
            if c.property not in db.properties:
                raise ToolError(f"database {db.title!r} has no property {c.property!r}; its properties are: "
                                f"{', '.join(db.properties)}")
        rows = [p for p in self.state.pages if p.parent_id == db.id and not p.archived]
        title = db.title_property
        for i, cond in enumerate(filter or []):
            rows = [p for p in rows if _holds(cond, p.title if cond.property == title else p.properties.get(cond.property),
                                              f"filter[{i}]")]
        for sort in reversed(sorts or []):
            present = [p for p in rows if self.state.values_of(p).get(sort.property) not in (None, [])]
            empty = [p for p in rows if p not in present]
            try:
                present.sort(key=lambda p: _sort_key(self.state.values_of(p)[sort.property]),
                             reverse=sort.direction == "descending")
            except TypeError:
                raise ToolError(f"cannot sort by {sort.property!r}") from None
            rows = present + empty
        listing = f"query:{db.id}:{len(filter or [])}:{hash_args(filter, sorts)}"
        out = _listing(rows, listing, start_cursor, page_size)
        names = {u.id: u.name for u in self.state.users}
        out["results"] = [self._page_json(p, url=False, db=db, names=names) for p in out["results"]]
        return out

    @tool()
    def create_database(
        self,
        parent_page_id: Annotated[str, Field(min_length=1, description="Id of the page the database goes in")],
        title: Annotated[str, Field(min_length=1)],
        properties: Annotated[
            dict[str, PropertySpec],
            Field(description="Columns by name, e.g. {'Name': {'type': 'title'}, 'Status': {'type': 'select', "
                              "'options': ['Todo', 'Done']}}; exactly one must be of type title"),
        ],
    ) -> dict:
        """Create a database (a table of row pages) inside a page. Returns it with its id."""
        self._page(parent_page_id, writable=True)
        schema = {}
        for name, spec in properties.items():
            try:
                schema[name] = PropertySchema(type=spec.type, options=spec.options or [])
            except ValueError as exc:
                raise ToolError(f"property {name!r}: {_first_error(exc)}") from None
        try:
            db = Database(id=self._new_id("database"), title=title, parent_id=parent_page_id, properties=schema)
        except ValueError as exc:
            raise ToolError(_first_error(exc)) from None
        self.state.databases.append(db)
        return self._database_json(db)

    @tool(destructive=True)
    def update_database(
        self,
        database_id: DatabaseId,
        title: Annotated[str | None, Field(min_length=1)] = None,
        properties: Annotated[
            dict[str, PropertySpec | None] | None,
            Field(description="Columns to add (name: spec), to extend with more options (same type), or to "
                              "remove (name: null; their values are dropped from every row)"),
        ] = None,
        archived: Annotated[bool | None, Field(description="true moves the database to the trash; false restores it")] = None,
    ) -> dict:
        """Rename a database, add, extend or remove columns, or archive/restore it."""
        db = self._database(database_id)
        if title is None and not properties and archived is None:
            raise ToolError("nothing to update: give title, properties or archived")
        if db.archived and archived is not False and (title is not None or properties):
            raise ToolError(f"database {database_id!r} is archived; restore it first with update_database(archived=false)")
        schema = {n: p.model_copy() for n, p in db.properties.items()}
        for name, spec in (properties or {}).items():
            old = schema.get(name)
            if spec is None:
                if old is None:
                    raise ToolError(f"database {db.title!r} has no property {name!r} to remove")
                if old.type == "title":
                    raise ToolError(f"{name!r} is the title property; it cannot be removed")
                del schema[name]
            elif old is not None and old.type != spec.type:
                raise ToolError(f"property {name!r} is {old.type}; changing its type is not supported "
                                "(remove it and add a new one)")
            elif spec.type == "title" and old is None:
                raise ToolError(f"a database has one title property ({db.title_property!r}); it cannot get another")
            else:
                extra = [o for o in spec.options or [] if old is None or o not in old.options]
                try:
                    schema[name] = PropertySchema(type=spec.type, options=(old.options if old else []) + extra)
                except ValueError as exc:
                    raise ToolError(f"property {name!r}: {_first_error(exc)}") from None
        added = [n for n in schema if n not in db.properties]
        removed = [n for n in db.properties if n not in schema]
        db.properties = schema
        for row in self.state.pages:
            if row.parent_id == db.id and (added or removed):
                values = {n: v for n, v in row.properties.items() if n not in removed}
                row.properties = values | {n: empty_value(schema[n].type) for n in added}
        if title is not None:
            db.title = title
        if archived is not None:
            db.archived = archived
        return self._database_json(db)

    # -- content -------------------------------------------------------------------------------
    def _block(self, block_id: str) -> tuple[Page, Block]:
        for owner in self.state.pages:
            for block in owner.content:
                if block.id == block_id:
                    return owner, block
        raise ToolError(f"no block with id {block_id!r}")

    @tool(read_only=True)
    def get_block_children(
        self,
        block_id: Annotated[str, Field(min_length=1, description="The page whose content to read")],
        start_cursor: StartCursor = None,
        page_size: PageSize = 100,
    ) -> dict:
        """The content blocks of a page, in order: id, type, text and (for to_do) checked; a list object
        paged like the other listings."""
        blocks = [b.model_dump(exclude_none=True) | {"object": "block"} for b in self._page(block_id).content]
        return _listing(blocks, f"blocks:{block_id}", start_cursor, page_size)

    @tool()
    def append_block_children(
        self,
        block_id: Annotated[str, Field(min_length=1, description="The page to add content to")],
        children: Annotated[list[BlockInput], Field(min_length=1)],
    ) -> list:
        """Add content blocks at the end of a page. Returns the new blocks with their ids."""
        page = self._page(block_id, writable=True)
        blocks = self._blocks(children)
        page.content = page.content + blocks
        return [b.model_dump(exclude_none=True) for b in blocks]

    @tool(destructive=True)
    def update_block(
        self,
        block_id: Annotated[str, Field(min_length=1)],
        text: str | None = None,
        checked: Annotated[bool | None, Field(description="Tick or untick a to_do block")] = None,
    ) -> dict:
        """Change a content block's text, or tick/untick a to_do block."""
        page, block = self._block(block_id)
        self._page(page.id, writable=True)
        if text is None and checked is None:
            raise ToolError("nothing to update: give text or checked")
        if checked is not None and block.type != "to_do":
            raise ToolError(f"block {block_id!r} is a {block.type}, not a to_do; it cannot be checked")
        if text is not None:
            block.text = text
        if checked is not None:
            block.checked = checked
        return block.model_dump(exclude_none=True)

    @tool(destructive=True)
    def delete_block(self, block_id: Annotated[str, Field(min_length=1)]) -> str:
        """Delete a content block from its page."""
        page, block = self._block(block_id)
        self._page(page.id, writable=True)
        page.content = [b for b in page.content if b.id != block_id]
        return f"Deleted block {block_id} from page {page.title!r}"

    # -- comments ------------------------------------------------------------------------------
    @tool()
    def create_comment(self, page_id: PageId, text: Annotated[str, Field(min_length=1)]) -> dict:
        """Add a comment to a page, as the integration."""
        self._page(page_id, writable=True)
        comment = Comment(id=self._new_id("comment"), page_id=page_id, author=INTEGRATION, text=text)
        self.state.comments.append(comment)
        return comment.model_dump()

    @tool(read_only=True)
    def get_comments(self, page_id: PageId, start_cursor: StartCursor = None, page_size: PageSize = 100) -> dict:
        """The comments on a page, oldest first: id, author and text (a list object)."""
        self._page(page_id)
        found = [c.model_dump() | {"object": "comment"} for c in self.state.comments if c.page_id == page_id]
        return _listing(found, f"comments:{page_id}", start_cursor, page_size)

    # -- users ---------------------------------------------------------------------------------
    @tool(read_only=True)
    def list_users(self, start_cursor: StartCursor = None, page_size: PageSize = 50) -> dict:
        """The workspace's users: id, name, type (person or bot) and, for a person, the email. People
        properties take these ids."""
        users = [{"object": "user", "id": u.id, "name": u.name, "type": u.type,
                  **({"person": {"email": u.email}} if u.type == "person" else {"bot": {}})} for u in self.state.users]
        return _listing(users, "users", start_cursor, page_size)


def hash_args(*parts: object) -> str:
    """A short digest of a listing's filters, so its cursor cannot be replayed against other filters."""

    def plain(x: object) -> object:
        if isinstance(x, list):
            return [plain(v) for v in x]
        return x.model_dump() if isinstance(x, BaseModel) else x

    return hashlib.sha256(json.dumps([plain(p) for p in parts], sort_keys=True, default=str).encode()).hexdigest()[:10]


#: The author of comments the tools create.
INTEGRATION = "MCP integration"


def _equal(expected: Value, actual: Value) -> bool:
    if isinstance(expected, list) or isinstance(actual, list):
        return isinstance(expected, list) and isinstance(actual, list) and sorted(expected) == sorted(actual)
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return expected == actual
    return type(expected) is type(actual) and expected == actual


def _holds(cond: Condition, actual: Value, where: str) -> bool:
    if "contains" in cond.model_fields_set and cond.contains is not None:
        if isinstance(actual, list):
            return cond.contains in actual
        if isinstance(actual, str) or actual is None:
            return actual is not None and cond.contains.casefold() in actual.casefold()
        raise ToolError(f"{where}: 'contains' works on text and multi_select properties, not on {cond.property!r}")
    if "equals" not in cond.model_fields_set:
        raise ToolError(f"{where}: give 'equals' or 'contains'")
    if cond.equals is None:
        return actual is None or actual == []
    return _equal(cond.equals, actual)


def _sort_key(value: Value):
    return sorted(value) if isinstance(value, list) else value.casefold() if isinstance(value, str) else value


def _first_error(exc: ValueError) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        return "; ".join(e["msg"].removeprefix("Value error, ") for e in errors())
    return str(exc)
