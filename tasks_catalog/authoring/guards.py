"""Find and fix name-keyed guards (issue 10): a ``not`` that names a channel, an event, a page, a
customer or a gmail label by its name is evaded by renaming the entity first; by its stable id it is not.

``name_keyed(server, initial_state, success)`` lists the guard arguments that name an existing entity
by a unique name; ``by_id`` rewrites them to the entity's id. Names of entities the task creates stay
(they have no id before the run; the frame bounds them). Works on a template's raw task too when
its state is inline: the names and ids are then the template's strings, placeholders included. A
template on a world is checked on a rendering (its patch has placeholders); ``--write`` leaves such
templates alone and says so.

    mcpbench author guards tasks_catalog/dev tasks_catalog/templates [--write]
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from servers.kit.world import is_world_reference, resolve
from tasks_catalog.templates import load_template, render

#: primitive -> {argument: which name table resolves it}
ARGS: dict[str, dict[str, str]] = {
    "slack.channelExists": {"channel": "channel"},
    "slack.messagePosted": {"channel": "channel"},
    "slack.channelHasMembers": {"channel": "channel"},
    "slack.channelArchived": {"channel": "channel"},
    "slack.channelTopicMatches": {"channel": "channel"},
    "calendar.eventExists": {"title": "event", "calendar": "calendar"},
    "calendar.eventHasAttendee": {"event": "event"},
    "calendar.eventCount": {"calendar": "calendar"},
    "calendar.calendarExists": {"calendar": "calendar"},
    "notion.pageExists": {"title": "page", "parent": "page"},
    "notion.databaseHasRow": {"database": "page"},
    "notion.pagePropertyEquals": {"page": "page"},
    "notion.databaseExists": {"title": "page"},
    "stripe.customerExists": {"email": "customer"},
    "stripe.invoiceExists": {"customer": "customer"},
    "stripe.customerHasMetadata": {"customer": "customer"},
    "gmail.messageLabelApplied": {"label": "label"},
    "gmail.labelExists": {"label": "label"},
}


def _unique(pairs: list[tuple[Any, Any]]) -> dict[str, str]:
    counts = Counter(name for name, _ in pairs)
    return {name: ident for name, ident in pairs if isinstance(name, str) and counts[name] == 1}


def names(server: str, state: dict[str, Any]) -> dict[str, dict[str, str]]:
    """Per name table, the unique names of existing entities and their ids. A world reference is
    resolved (generated and patched) first: its entities are the world's, not the reference's keys."""
    if is_world_reference(state):
        state = resolve(state)[1]
    if server == "slack":
        return {"channel": _unique([(c["name"], c["id"]) for c in state.get("channels", [])])}
    if server == "calendar":
        return {"calendar": _unique([(c["name"], c["id"]) for c in state.get("calendars", [])]),
                "event": _unique([(e["title"], e["id"]) for e in state.get("events", [])])}
    if server == "notion":
        return {"page": _unique([(p["title"], p["id"]) for p in state.get("pages", []) + state.get("databases", [])])}
    if server == "stripe":
        return {"customer": _unique([(c["email"], c["id"]) for c in state.get("customers", []) if c.get("email")])}
    if server == "gmail":  # user labels (system labels are ids already: INBOX, UNREAD, ...)
        return {"label": _unique([(label["name"], label["id"]) for label in state.get("labels", [])])}
    return {}


def _walk(pred: dict[str, Any], path: str, negated: bool):
    (key, body), = pred.items()
    if key in ("all", "any"):
        for i, sub in enumerate(body):
            yield from _walk(sub, f"{path}.{key}[{i}]", negated)
    elif key == "not":
        yield from _walk(body, f"{path}.not", True)
    else:
        yield path, key, body, negated


def name_keyed(server: str, state: dict[str, Any], success: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """``(path, argument, name, id)`` for every guard argument that names an existing entity."""
    tables = names(server, state)
    out = []
    for path, prim, body, negated in _walk(success, "$.success", False):
        if not negated or not prim.startswith(f"{server}."):  # another server's, in a cross-server task
            continue
        for arg, table in ARGS.get(prim, {}).items():
            value = body.get(arg)
            ident = tables.get(table, {}).get(value) if isinstance(value, str) else None
            if ident is not None and ident != value:
                out.append((f'{path}["{prim}"].{arg}', arg, value, ident))
    return out


def by_id(server: str, state: dict[str, Any], success: dict[str, Any]) -> dict[str, Any]:
    """``success`` with every name-keyed guard argument replaced by the entity's id."""
    tables = names(server, state)

    def fix(pred: dict[str, Any], negated: bool) -> dict[str, Any]:
        (key, body), = pred.items()
        if key in ("all", "any"):
            return {key: [fix(p, negated) for p in body]}
        if key == "not":
            return {key: fix(body, True)}
        if negated and key.startswith(f"{server}."):
            body = dict(body)
            for arg, table in ARGS.get(key, {}).items():
                if isinstance(body.get(arg), str) and body[arg] in tables.get(table, {}):
                    body[arg] = tables[table][body[arg]]
        return {key: body}

    return fix(success, False)


def replace_value(text: str, key: str, value: Any) -> str:
    """``text`` with the JSON value of the (single) ``key`` replaced by ``value``, written one
    compact element per line inside its top-level ``all`` when the file is written compactly, else
    indented like the rest of the file."""
    m = re.search(r'^([ \t]*)"%s":\s*' % re.escape(key), text, flags=re.M)  # noqa: UP031 - % keeps the regex's literal braces readable
    if m is None:
        raise ValueError(f"no {key!r}")
    old, end = json.JSONDecoder().raw_decode(text, m.end())
    span = text[m.end():end]
    indent = m.group(1)
    compact = any(len(line) > 110 or re.search(r'\{"[^"]+": \{"', line) for line in span.splitlines())
    if compact and isinstance(value, dict) and list(value) == ["all"]:
        items = [indent + "  " + json.dumps(v, ensure_ascii=False) for v in value["all"]]
        new = '{"all": [\n' + ",\n".join(items) + f"\n{indent}]}}"
    elif compact:
        new = json.dumps(value, ensure_ascii=False)
    else:
        new = json.dumps(value, ensure_ascii=False, indent=2).replace("\n", "\n" + indent)
    return text[:m.end()] + new + text[end:]


def find_guards(paths: Iterable[Path], *, write: bool = False, echo: Callable[[str], None] = print) -> int:
    """List (through ``echo``) every name-keyed guard argument in the task and template files under
    ``paths``, as ``<file>: <JSON path> = <name> -> <id>``; with ``write``, rewrite them to ids in files
    whose state is inline (a template on a world is only listed: its patch has placeholders). Returns
    how many were found."""
    found = 0
    for root in paths:
        for f in sorted(root.rglob("*.json")) if root.is_dir() else [root]:
            doc = json.loads(f.read_text(encoding="utf-8"))
            task = doc.get("task", doc)
            rendered = "task" in doc and is_world_reference(task["initial_state"])
            if rendered:  # a template on a world: its patch has placeholders, a rendering has none
                task = render(load_template(f), b"guards").model_dump(mode="json", by_alias=True, exclude_none=True)
            states = _states(doc, task)
            hits = [hit for server, state in states.items() for hit in name_keyed(server, state, task["success"])]
            for path, _, name, ident in hits:
                echo(f"{f}: {path} = {name!r} -> {ident!r}")
            found += len(hits)
            if hits and write and rendered:
                echo(f"{f}: a template on a world: rewrite its guards by hand (--write edits inline states only)")
            elif hits and write:
                new = task["success"]
                for server, state in states.items():
                    new = by_id(server, state, new)
                f.write_text(replace_value(f.read_text(encoding="utf-8"), "success", new), encoding="utf-8")
    echo(f"{found} name-keyed guard arguments")
    return found


def _states(doc: dict[str, Any], task: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each server's initial state of a task or template document: its one server's, or a cross-server
    task's, keyed by server."""
    if "servers" in doc:
        return {server: task["initial_state"][server] for server in doc["servers"]}
    return {doc["server"]: task["initial_state"]}


__all__ = ["ARGS", "by_id", "find_guards", "name_keyed", "names", "replace_value"]
