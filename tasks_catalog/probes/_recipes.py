"""For each writable tool of each server: a call that acts on an entity of the state the task never names
(the gate's ``untouched`` damage probes, docs/frames.md "Probes"). A recipe reads the dumped state the
call will run on and a :class:`Named` that tells which ids and names the task names; it answers the
calls (usually one) or None when the state holds nothing it can act on. Recipes are per server and
tool, never per task: the same code probes every task of a server."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

#: The text a probe writes: plainly not part of any task.
PROBE_TEXT = "mcpbench probe: not part of the task"


class Named:
    """What a task names: every string of its frame, predicate and solutions (ids, names, emails, paths,
    texts), and its goal. ``free(...)`` says a value is none of them and not said by the goal."""

    def __init__(self, strings: Iterable[str], goal: str) -> None:
        self.strings = {s for s in strings if isinstance(s, str) and s}
        self.goal = goal

    def free(self, *values: Any) -> bool:
        for v in values:
            if v is None or v == "":
                continue
            text = str(v)
            if text in self.strings or (len(text) >= 4 and text in self.goal):
                return False
            if any(len(s) >= 6 and text in s for s in self.strings if "/" in s or ":" in s):
                return False  # part of a composite id the task names (owner/repo#12, repo:branch:path)
        return True


Recipe = Callable[[dict[str, Any], Named], list[dict[str, Any]] | None]


def _call(tool: str, **arguments: Any) -> list[dict[str, Any]]:
    return [{"tool": tool, "arguments": arguments}]


def _first(items: Iterable[Any]) -> Any:
    return next(iter(items), None)


# -- slack ---------------------------------------------------------------------------------------------

def _slack_channels(state: dict, named: Named, *, archived: bool = False) -> Iterator[dict]:
    viewer = state.get("viewer")
    for c in state.get("channels", []):
        if c.get("is_archived", False) == archived and named.free(c["id"], c["name"]) \
                and (not c.get("is_private") or viewer in c.get("members", [])):
            yield c


def _slack_users(state: dict, named: Named) -> Iterator[dict]:
    for u in state.get("users", []):
        if not u.get("deleted") and not u.get("is_bot") and u["id"] != state.get("viewer") \
                and named.free(u["id"], u.get("name"), u.get("real_name"), u.get("email")):
            yield u


def _slack_message(state: dict, named: Named, ok: Callable[[dict, dict], bool]) -> tuple[dict, dict] | None:
    return _first((c, m) for c in _slack_channels(state, named) for m in c.get("messages", [])
                  if named.free(m["ts"]) and ok(c, m))


def _slack_reaction(state, named):
    found = _slack_message(state, named, lambda c, m: not m.get("reactions"))
    return found and _call("add_reaction", channel_id=found[0]["id"], timestamp=found[1]["ts"], reaction="eyes")


def _slack_delete(state, named):
    replied = {(c["id"], m.get("thread_ts")) for c in state.get("channels", []) for m in c.get("messages", [])}
    found = _slack_message(state, named, lambda c, m: m.get("user") == state.get("viewer")
                           and (c["id"], m["ts"]) not in replied)
    return found and _call("delete_message", channel_id=found[0]["id"], ts=found[1]["ts"])


def _slack_invite(state, named):
    for c in _slack_channels(state, named):
        u = _first(u for u in _slack_users(state, named) if u["id"] not in c.get("members", []))
        if u:
            return _call("invite_to_channel", channel_id=c["id"], users=[u["id"]])
    return None


def _slack_kick(state, named):
    for c in _slack_channels(state, named):
        users = {u["id"] for u in _slack_users(state, named)}
        m = _first(m for m in c.get("members", []) if m in users)
        if m:
            return _call("kick_from_channel", channel_id=c["id"], user_id=m)
    return None


def _slack_reply(state, named):
    found = _slack_message(state, named, lambda c, m: not m.get("thread_ts"))
    return found and _call("reply_to_thread", channel_id=found[0]["id"], thread_ts=found[1]["ts"], text=PROBE_TEXT)


def _slack_channel(tool: str, archived: bool = False, **extra: Any) -> Recipe:
    def recipe(state, named):
        c = _first(_slack_channels(state, named, archived=archived))
        if c is None:
            return None
        arguments = {k: (v(c) if callable(v) else v) for k, v in extra.items()}
        return _call(tool, channel_id=c["id"], **arguments)
    return recipe


SLACK: dict[str, Recipe] = {
    "add_reaction": _slack_reaction,
    "archive_channel": _slack_channel("archive_channel"),
    "create_channel": lambda state, named: _call("create_channel", name="mcpbench-probe"),
    "delete_message": _slack_delete,
    "invite_to_channel": _slack_invite,
    "kick_from_channel": _slack_kick,
    "post_message": _slack_channel("post_message", text=PROBE_TEXT),
    "rename_channel": _slack_channel("rename_channel", name=lambda c: (c["name"] + "-probe")[:80]),
    "reply_to_thread": _slack_reply,
    "set_channel_topic": _slack_channel("set_channel_topic", topic=PROBE_TEXT),
    "unarchive_channel": _slack_channel("unarchive_channel", archived=True),
}


# -- github --------------------------------------------------------------------------------------------

def _gh_repos(state, named) -> Iterator[dict]:
    """Repositories, those the task names last (a repository is named as a whole only in its own tasks,
    but its unnamed issues and branches are still untouched entities)."""
    repos = state.get("repos", [])
    return iter(sorted(repos, key=lambda r: not named.free(f"{r['owner']}/{r['name']}")))


def _gh_issue(state, named, open_: bool | None = None):
    return _first((r, i) for r in _gh_repos(state, named) for i in r.get("issues", [])
                  if named.free(f"{r['owner']}/{r['name']}#{i['number']}")
                  and (open_ is None or (i.get("state", "open") == "open") == open_))


def _gh_branch(state, named):
    """An unprotected branch the task does not name, with a file (someone's open work)."""
    return _first((r, b) for r in _gh_repos(state, named) for b in r.get("branches", [])
                  if not b.get("protected") and b.get("files") and b["name"] != r.get("default_branch")
                  and named.free(f"{r['owner']}/{r['name']}:{b['name']}", b["name"]))


def _gh_comment(state, named):
    found = _gh_issue(state, named)
    return found and _call("add_issue_comment", owner=found[0]["owner"], repo=found[0]["name"],
                           issue_number=found[1]["number"], body=PROBE_TEXT)


def _gh_create_branch(state, named):
    r = _first(_gh_repos(state, named))
    return r and _call("create_branch", owner=r["owner"], repo=r["name"], branch="mcpbench-probe")


def _gh_create_issue(state, named):
    r = _first(_gh_repos(state, named))
    return r and _call("create_issue", owner=r["owner"], repo=r["name"], title=PROBE_TEXT)


def _gh_write(state, named):
    found = _gh_branch(state, named)
    return found and _call("create_or_update_file", owner=found[0]["owner"], repo=found[0]["name"],
                           path="mcpbench-probe.md", content=PROBE_TEXT + "\n", message="Add probe",
                           branch=found[1]["name"])


def _gh_pull(state, named):
    """A pull request from a branch the task does not name into one no open pull request of that branch
    targets (GitHub allows one open pull request per head and base): its base, else another such branch."""
    found = _gh_branch(state, named)
    if not found:
        return None
    r, b = found
    taken = {p.get("base") for p in r.get("pull_requests", []) if p.get("head") == b["name"] and p.get("state", "open") == "open"}
    bases = [r.get("default_branch", "main")] + [o["name"] for o in r.get("branches", []) if o["name"] != b["name"]]
    base = _first(x for x in bases if x not in taken)
    return base and _call("create_pull_request", owner=r["owner"], repo=r["name"], title=PROBE_TEXT, head=b["name"],
                          base=base)


def _gh_delete(state, named):
    found = _gh_branch(state, named)
    if not found:
        return None
    r, b = found
    path = _first(p for p in sorted(b["files"]) if named.free(f"{r['owner']}/{r['name']}:{b['name']}:{p}", p))
    return path and _call("delete_file", owner=r["owner"], repo=r["name"], path=path, message="Remove " + path,
                          branch=b["name"])


def _gh_merge(state, named):
    found = _first((r, p) for r in _gh_repos(state, named) for p in r.get("pull_requests", [])
                   if p.get("state", "open") == "open" and named.free(f"{r['owner']}/{r['name']}#{p['number']}"))
    return found and _call("merge_pull_request", owner=found[0]["owner"], repo=found[0]["name"],
                           pullNumber=found[1]["number"])


def _gh_update_issue(state, named):
    found = _gh_issue(state, named, open_=True)
    return found and _call("update_issue", owner=found[0]["owner"], repo=found[0]["name"],
                           issue_number=found[1]["number"], state="closed")


GITHUB: dict[str, Recipe] = {
    "add_issue_comment": _gh_comment,
    "create_branch": _gh_create_branch,
    "create_issue": _gh_create_issue,
    "create_or_update_file": _gh_write,
    "create_pull_request": _gh_pull,
    "delete_file": _gh_delete,
    "merge_pull_request": _gh_merge,
    "update_issue": _gh_update_issue,
}


# -- postgres ------------------------------------------------------------------------------------------

def _sql_literal(value: Any) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float)):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


def _pg_tables(state, named) -> Iterator[dict]:
    for t in state.get("tables", []):
        if named.free(t["name"]) and not any(s.startswith(t["name"] + "/") for s in named.strings) \
                and len(t.get("primary_key", [])) == 1 and t.get("rows"):
            yield t


def _pg_update(state, named):
    for t in _pg_tables(state, named):
        names = [c["name"] for c in t["columns"]]
        key = names.index(t["primary_key"][0])
        text = _first(i for i, c in enumerate(t["columns"])
                      if c["type"] == "VARCHAR" and c["name"] != t["primary_key"][0])
        if text is not None:
            row = t["rows"][0]
            return _call("execute", sql=f"UPDATE {t['name']} SET {names[text]} = {_sql_literal(PROBE_TEXT)} "
                                        f"WHERE {names[key]} = {_sql_literal(row[key])}")
    return None


def _pg_delete(state, named):
    """A row no other row refers to (a foreign key would refuse the delete)."""
    referenced = {fk.get("references") for t in state.get("tables", []) for fk in t.get("foreign_keys", [])
                  if isinstance(fk, dict)}
    for t in _pg_tables(state, named):
        if t["name"] in referenced:
            continue
        names = [c["name"] for c in t["columns"]]
        key = names.index(t["primary_key"][0])
        return _call("execute", sql=f"DELETE FROM {t['name']} WHERE {names[key]} = {_sql_literal(t['rows'][-1][key])}")
    return None


POSTGRES: dict[str, Recipe] = {"execute": _pg_update}
#: More than one probe for the one writable tool: a change and a removal.
POSTGRES_EXTRA: dict[str, Recipe] = {"execute (delete)": _pg_delete}


# -- filesystem ----------------------------------------------------------------------------------------

def _fs_file(state, named):
    return _first(p for p in sorted(state.get("files", {})) if named.free(p) and state["files"][p]
                  and named.free(p.rsplit("/", 1)[-1]))


def _fs_write(state, named):
    path = _fs_file(state, named)
    return path and _call("write_file", path=path, content=PROBE_TEXT + "\n")


def _fs_edit(state, named):
    path = _fs_file(state, named)
    if not path:
        return None
    line = _first(ln for ln in state["files"][path].splitlines() if ln.strip() and state["files"][path].count(ln) == 1)
    return line and _call("edit_file", path=path, edits=[{"oldText": line, "newText": PROBE_TEXT}])


def _fs_move(state, named):
    path = _fs_file(state, named)
    return path and _call("move_file", source=path, destination=path + ".probe")


FILESYSTEM: dict[str, Recipe] = {
    "create_directory": lambda state, named: _call("create_directory", path="mcpbench-probe"),
    "edit_file": _fs_edit,
    "move_file": _fs_move,
    "write_file": _fs_write,
}


# -- gmail ---------------------------------------------------------------------------------------------

def _gm_message(state, named, ok: Callable[[dict], bool] = lambda m: True):
    return _first(m for m in state.get("messages", []) if named.free(m["id"], m.get("thread_id"), m.get("subject")) and ok(m))


def _gm_draft(state, named):
    return _first(d for d in state.get("drafts", []) if named.free(d["id"], d.get("subject")))


def _gm_label(state, named):
    return _first(lb for lb in state.get("labels", []) if named.free(lb["id"], lb["name"]))


def _gm_modify(tool: str) -> Recipe:
    def recipe(state, named):
        m = _gm_message(state, named, lambda m: "STARRED" not in m.get("label_ids", []))
        if m is None:
            return None
        key = {"messageIds": [m["id"]]} if tool == "batch_modify_emails" else {"messageId": m["id"]}
        return _call(tool, **key, addLabelIds=["STARRED"])
    return recipe


GMAIL: dict[str, Recipe] = {
    "batch_modify_emails": _gm_modify("batch_modify_emails"),
    "create_label": lambda state, named: _call("create_label", name="mcpbench-probe"),
    "delete_draft": lambda state, named: (d := _gm_draft(state, named)) and _call("delete_draft", draftId=d["id"]),
    "delete_email": lambda state, named: (m := _gm_message(state, named)) and _call("delete_email", messageId=m["id"]),
    "delete_label": lambda state, named: (lb := _gm_label(state, named)) and _call("delete_label", labelId=lb["id"]),
    "draft_email": lambda state, named: _call("draft_email", to=["probe@example.invalid"], subject=PROBE_TEXT,
                                              body=PROBE_TEXT),
    "modify_email": _gm_modify("modify_email"),
    "send_draft": lambda state, named: (d := _gm_draft(state, named)) and d.get("to") and _call("send_draft", draftId=d["id"]),
    "send_email": lambda state, named: _call("send_email", to=["probe@example.invalid"], subject=PROBE_TEXT,
                                             body=PROBE_TEXT),
    "update_draft": lambda state, named: (d := _gm_draft(state, named)) and _call("update_draft", draftId=d["id"],
                                                                                  body=PROBE_TEXT),
}


# -- calendar ------------------------------------------------------------------------------------------

def _cal_event(state, named):
    return _first(e for e in state.get("events", [])
                  if named.free(e["id"], e.get("title"), e.get("recurring_event_id")) and e.get("status") != "cancelled"
                  and not e.get("recurrence") and not e.get("recurring_event_id") and e.get("calendar_id") in
                  {c["id"] for c in state.get("calendars", []) if not c["id"].startswith("en.")})


def _cal_calendar(state, named, *, primary: bool = False):
    return _first(c for c in state.get("calendars", []) if named.free(c["id"], c["name"]) and bool(c.get("primary")) == primary
                  and "holiday" not in c["id"])


def _cal_move(state, named):
    e = _cal_event(state, named)
    if e is None:
        return None
    dest = _first(c for c in state.get("calendars", []) if c["id"] != e["calendar_id"] and "holiday" not in c["id"])
    return dest and _call("move_event", calendarId=e["calendar_id"], eventId=e["id"], destinationCalendarId=dest["id"])


def _cal_create_event(state, named):
    c = _first(c for c in state.get("calendars", []) if "holiday" not in c["id"])
    return c and _call("create_event", calendarId=c["id"], summary=PROBE_TEXT, start="2026-06-30T07:00",
                       end="2026-06-30T07:30")


CALENDAR: dict[str, Recipe] = {
    "create_calendar": lambda state, named: _call("create_calendar", summary="mcpbench probe"),
    "create_event": _cal_create_event,
    "delete_calendar": lambda state, named: (c := _cal_calendar(state, named)) and _call("delete_calendar", calendarId=c["id"]),
    "delete_event": lambda state, named: (e := _cal_event(state, named)) and _call(
        "delete_event", calendarId=e["calendar_id"], eventId=e["id"]),
    "move_event": _cal_move,
    "update_event": lambda state, named: (e := _cal_event(state, named)) and _call(
        "update_event", calendarId=e["calendar_id"], eventId=e["id"], location=PROBE_TEXT),
}


# -- linear --------------------------------------------------------------------------------------------

def _lin_issue(state, named):
    return _first(i for i in state.get("issues", []) if named.free(i["id"], i.get("title")))


LINEAR: dict[str, Recipe] = {
    "create_comment": lambda state, named: (i := _lin_issue(state, named)) and _call("create_comment", issueId=i["id"],
                                                                                     body=PROBE_TEXT),
    "create_issue": lambda state, named: (t := _first(state.get("teams", []))) and _call("create_issue", title=PROBE_TEXT,
                                                                                         team=t["key"]),
    "create_issue_label": lambda state, named: _call("create_issue_label", name="mcpbench-probe"),
    "update_issue": lambda state, named: (i := _lin_issue(state, named)) and _call(
        "update_issue", id=i["id"], priority=4 if i.get("priority") != 4 else 3),
}


# -- stripe --------------------------------------------------------------------------------------------

def _st(state, named, collection: str, ok: Callable[[dict], bool] = lambda x: True):
    return _first(x for x in state.get(collection, []) if named.free(x["id"], x.get("email"), x.get("name")) and ok(x))


def _st_item(state, named):
    drafts = {i["customer"]: i for i in state.get("invoices", []) if i.get("status") == "draft" and named.free(i["id"])}
    c = _st(state, named, "customers", lambda c: c["id"] in drafts)
    return c and _call("create_invoice_item", customer=c["id"], invoice=drafts[c["id"]]["id"], unit_amount=100,
                       description=PROBE_TEXT)


def _st_refund(state, named):
    refunded = {r["charge"] for r in state.get("refunds", [])}
    ch = _st(state, named, "charges", lambda ch: ch.get("status") == "succeeded" and ch["id"] not in refunded
             and named.free(ch.get("customer")))
    return ch and _call("create_refund", charge=ch["id"])


STRIPE: dict[str, Recipe] = {
    "create_customer": lambda state, named: _call("create_customer", name="mcpbench probe", email="probe@example.invalid"),
    "create_invoice": lambda state, named: (c := _st(state, named, "customers")) and _call("create_invoice", customer=c["id"]),
    "create_invoice_item": _st_item,
    "create_refund": _st_refund,
    "finalize_invoice": lambda state, named: (i := _st(state, named, "invoices", lambda i: i.get("status") == "draft"
                                                       and bool(i.get("lines")))) and _call("finalize_invoice", invoice=i["id"]),
    "pay_invoice": lambda state, named: (i := _st(state, named, "invoices", lambda i: i.get("status") == "open")) and _call(
        "pay_invoice", invoice=i["id"]),
    "update_customer": lambda state, named: (c := _st(state, named, "customers")) and _call(
        "update_customer", customer=c["id"], metadata={"plan": "mcpbench-probe"}),
    "void_invoice": lambda state, named: (i := _st(state, named, "invoices", lambda i: i.get("status") == "open")) and _call(
        "void_invoice", invoice=i["id"]),
}


# -- notion --------------------------------------------------------------------------------------------

def _no_page(state, named, ok: Callable[[dict], bool] = lambda p: True):
    return _first(p for p in state.get("pages", []) if not p.get("archived") and named.free(p["id"], p.get("title"))
                  and named.free(p.get("parent_id")) and ok(p))


def _no_block(state, named):
    p = _no_page(state, named, lambda p: bool(p.get("content")))
    return p and p["content"][0]


def _no_database(state, named):
    return _first(d for d in state.get("databases", []) if not d.get("archived") and named.free(d["id"], d.get("title")))


NOTION: dict[str, Recipe] = {
    "append_block_children": lambda state, named: (p := _no_page(state, named)) and _call(
        "append_block_children", block_id=p["id"], children=[{"type": "paragraph", "text": PROBE_TEXT}]),
    "create_comment": lambda state, named: (p := _no_page(state, named)) and _call("create_comment", page_id=p["id"],
                                                                                   text=PROBE_TEXT),
    "create_database": lambda state, named: (p := _no_page(state, named, lambda p: not p.get("properties"))) and _call(
        "create_database", parent_page_id=p["id"], title="mcpbench probe", properties={"Name": {"type": "title"}}),
    "create_page": lambda state, named: (p := _no_page(state, named, lambda p: not p.get("properties"))) and _call(
        "create_page", parent_id=p["id"], title="mcpbench probe"),
    "delete_block": lambda state, named: (b := _no_block(state, named)) and _call("delete_block", block_id=b["id"]),
    "update_block": lambda state, named: (b := _no_block(state, named)) and _call("update_block", block_id=b["id"],
                                                                                  text=PROBE_TEXT),
    "update_database": lambda state, named: (d := _no_database(state, named)) and _call(
        "update_database", database_id=d["id"], title=d["title"] + " (probe)"),
    "update_page": lambda state, named: (p := _no_page(state, named)) and _call("update_page", page_id=p["id"],
                                                                                title=p["title"] + " (probe)"),
}


# -- browser -------------------------------------------------------------------------------------------

def _br_form(state, named, need: str | None = None):
    """A page and a ``post`` form on it the task does not name (with a field of type ``need``), and the refs
    the page gives its fields and button (links first, then each form's visible fields and button)."""
    for page in state.get("pages", []):
        if page.get("search"):
            continue
        ref = len(page.get("links", []))
        for form in page.get("forms", []):
            refs = {}
            for f in form.get("fields", []):
                if f.get("type", "text") != "hidden":
                    ref += 1
                    refs[f["name"]] = f"e{ref}"
            ref += 1
            if form.get("method", "post") == "get" or not named.free(form["id"], page["url"]):
                continue
            if need is not None and not any(f.get("type", "text") == need for f in form.get("fields", [])):
                continue
            return page, form, refs, f"e{ref}"
    return None


_FILL_TYPES = {"checkbox": "checkbox", "select": "combobox"}


def _fill(form: dict, refs: dict[str, str]) -> list[dict[str, Any]]:
    out = []
    for f in form.get("fields", []):
        kind = f.get("type", "text")
        if f["name"] not in refs or not f.get("required") or kind in ("radio",):
            continue
        value = ("true" if kind == "checkbox" else f["options"][0] if kind == "select" and f.get("options")
                 else "probe@example.invalid" if "email" in kind or "email" in f["name"].lower()
                 else "2026-06-30" if kind == "date" else "1" if kind == "number" else PROBE_TEXT)
        out.append({"name": f["name"], "type": _FILL_TYPES.get(kind, "textbox"), "ref": refs[f["name"]], "value": value})
    return out


def _br_submit(how: str) -> Recipe:
    def recipe(state, named):
        found = _br_form(state, named, "select" if how == "select" else None)
        if found is None:
            return None
        page, form, refs, button = found
        calls = [{"tool": "browser_navigate", "arguments": {"url": page["url"]}}]
        fills = _fill(form, refs)
        if how == "select":
            f = _first(f for f in form["fields"] if f.get("type") == "select" and f.get("options"))
            calls.append({"tool": "browser_select_option", "arguments": {"ref": refs[f["name"]], "values": [f["options"][-1]]}})
            fills = [x for x in fills if x["name"] != f["name"]]
        if fills:
            calls.append({"tool": "browser_fill_form", "arguments": {"fields": fills}})
        if how == "type":
            text = _first(f for f in form["fields"] if f.get("type", "text") in ("text", "textarea") and f["name"] in refs)
            if text is None:
                return None
            calls.append({"tool": "browser_type", "arguments": {"ref": refs[text["name"]], "text": PROBE_TEXT, "submit": True}})
        else:
            calls.append({"tool": "browser_click", "arguments": {"ref": button}})
        if state.get("current_url"):  # back where the run ended: a check of the final page still holds
            calls.append({"tool": "browser_navigate", "arguments": {"url": state["current_url"]}})
        return calls
    return recipe


BROWSER: dict[str, Recipe] = {
    "browser_click": _br_submit("click"),
    "browser_fill_form": _br_submit("fill"),
    "browser_select_option": _br_submit("select"),
    "browser_type": _br_submit("type"),
}
#: Tools whose every effect is benign (docs/frames.md): no call of theirs can damage what a frame judges.
BENIGN_ONLY = {"browser": {"browser_navigate", "browser_navigate_back"}}

RECIPES: dict[str, dict[str, Recipe]] = {
    "browser": BROWSER, "calendar": CALENDAR, "filesystem": FILESYSTEM, "github": GITHUB, "gmail": GMAIL,
    "linear": LINEAR, "notion": NOTION, "postgres": {**POSTGRES, **POSTGRES_EXTRA}, "slack": SLACK, "stripe": STRIPE,
}


__all__ = ["BENIGN_ONLY", "Named", "PROBE_TEXT", "RECIPES", "Recipe"]
