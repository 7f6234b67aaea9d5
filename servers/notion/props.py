"""Notion property values in and out of the tools.

Out: a page's values as Notion's API shows them, property objects keyed by name (``{"Status": {"type":
"status", "status": {"name": "Done"}}}``, people as user objects, relations as page references).

In: ``create_page`` and ``update_page`` take either the plain value (``"Done"``, ``42``, ``["dbt"]``,
a list of user or page ids) or the property value object an agent used to Notion's API writes
(``{"status": {"name": "Done"}}``, ``{"people": [{"id": "..."}]}``, ``{"date": {"start": "2026-05-14"}}``,
``{"title": [{"text": {"content": "..."}}]}``); both mean the same.
"""

from __future__ import annotations

from typing import Any

from servers.kit import ToolError
from servers.notion.state import Database, NotionState, Value, list_value


def _rich(text: str | None) -> list[dict[str, Any]]:
    if not text:
        return []
    return [{"type": "text", "plain_text": text}]


def render(state: NotionState, ptype: str, value: Value, names: dict[str, str] | None = None) -> dict[str, Any]:
    """One property value as a Notion property value object (``names``: user id -> name, if known)."""
    if ptype in ("title", "rich_text"):
        body: Any = _rich(value if isinstance(value, str) else None)
    elif ptype in ("select", "status"):
        body = {"name": value} if value is not None else None
    elif ptype == "multi_select":
        body = [{"name": v} for v in list_value(value)]
    elif ptype == "date":
        body = {"start": value, "end": None} if value is not None else None
    elif ptype == "people":
        if names is None:
            names = {u.id: u.name for u in state.users}
        body = [{"object": "user", "id": uid, **({"name": names[uid]} if uid in names else {})} for uid in list_value(value)]
    elif ptype == "relation":
        body = [{"id": v} for v in list_value(value)]
    else:  # number, checkbox, url, email
        body = value
    return {"type": ptype, ptype: body}


def render_values(state: NotionState, db: Database | None, values: dict[str, Value],
                  names: dict[str, str] | None = None) -> dict[str, Any]:
    """Every value of a page, rendered; outside a database only its ``title``."""
    types = {n: p.type for n, p in db.properties.items()} if db else {"title": "title"}
    if names is None and any(t == "people" for t in types.values()):
        names = {u.id: u.name for u in state.users}
    return {name: render(state, types.get(name, "rich_text"), value, names) for name, value in values.items()}


def _plain_text(items: Any, where: str) -> str:
    if isinstance(items, str):
        return items
    if not isinstance(items, list):
        raise ToolError(f"{where}: expected a list of rich text objects")
    parts = []
    for item in items:
        if not isinstance(item, dict):
            raise ToolError(f"{where}: expected a list of rich text objects")
        text = item.get("text", {}).get("content") if isinstance(item.get("text"), dict) else item.get("plain_text")
        if not isinstance(text, str):
            raise ToolError(f"{where}: a rich text object needs text.content")
        parts.append(text)
    return "".join(parts)


def _ids(items: Any, where: str) -> list[str]:
    if not isinstance(items, list):
        raise ToolError(f"{where}: expected a list of objects with an id")
    out = []
    for item in items:
        ident = item.get("id") if isinstance(item, dict) else item
        if not isinstance(ident, str) or not ident:
            raise ToolError(f"{where}: expected a list of objects with an id")
        out.append(ident)
    return out


def plain(name: str, ptype: str, value: Any) -> Value:
    """``value`` (plain, or a Notion property value object) as the plain value the state stores."""
    if not isinstance(value, dict):
        if isinstance(value, list) and ptype in ("people", "relation"):
            return _ids(value, f"property {name!r}")
        if isinstance(value, list) and ptype == "multi_select" and all(isinstance(v, dict) for v in value):
            return [_name(v, name) for v in value]
        if isinstance(value, list) and ptype in ("title", "rich_text") and all(isinstance(v, dict) for v in value):
            return _plain_text(value, f"property {name!r}")
        return value
    where = f"property {name!r}"
    keys = [k for k in value if k not in ("type", "id")]
    if len(keys) != 1 or keys[0] != ptype:
        raise ToolError(f"{where} is {ptype}; give its value or {{{ptype!r}: ...}}, not {sorted(value)}")
    body = value[ptype]
    if ptype in ("title", "rich_text"):
        return _plain_text(body, where)
    if ptype in ("select", "status"):
        return None if body is None else _name(body, name)
    if ptype == "multi_select":
        if not isinstance(body, list):
            raise ToolError(f"{where}: multi_select takes a list of {{'name': ...}}")
        return [_name(v, name) for v in body]
    if ptype == "date":
        if body is None:
            return None
        if not isinstance(body, dict) or not isinstance(body.get("start"), str):
            raise ToolError(f"{where}: date takes {{'start': '2026-05-14'}} or null")
        return body["start"]
    if ptype in ("people", "relation"):
        return _ids(body, where)
    return body


def _name(option: Any, prop: str) -> str:
    if isinstance(option, str):
        return option
    if not isinstance(option, dict) or not isinstance(option.get("name"), str):
        raise ToolError(f"property {prop!r}: an option is given as {{'name': ...}}")
    return option["name"]


__all__ = ["plain", "render", "render_values"]
