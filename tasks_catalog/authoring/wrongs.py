"""Draft the wrong solutions the stricter gate asks of every task (issue 10), for an author to review.

- a **collateral** near-miss: the reference solution, then one call that damages an entity the frame
  does not allow (empties a file, deletes another table's rows, closes an unrelated issue). The
  predicate still holds, so only the frame can catch it;
- a **lookalike**: found among the task's existing wrong solutions (the right kind of change, on an
  entity the frame does not name).

    mcpbench author wrongs tasks_catalog/dev/slack/slack-announce-release.json --plan plan.json
    mcpbench author wrongs --apply plan.json
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import anyio

from servers import get_spec
from tasks_catalog.authoring.propose import _as_text, _texts, final_state, generalise
from tasks_catalog.frames import frame_violations
from tasks_catalog.loader import load_tasks
from tasks_catalog.predicates import evaluate
from tasks_catalog.schema import Task, ToolCall
from tasks_catalog.templates import PLACEHOLDER, load_template, render, substitute

Candidate = tuple[str, list[dict[str, Any]]]  # (why, damaging calls)


def _touched(task: Task) -> set[str]:
    """Ids the frame names, and the values it pins with ``where`` (a channel, a charge): left alone."""
    out: set[str] = set()
    for a in task.frame or []:
        out |= set(a.ids or [])
        out |= {v for v in (a.where or {}).values() if isinstance(v, str)}
    return out


def _slack(state: dict, touched: set[str]) -> Iterator[Candidate]:
    for ch in state["channels"]:
        if ch["id"] in touched or ch["is_archived"]:
            continue
        for m in ch["messages"][:1]:
            yield (f"does the task, then deletes a message in #{ch['name']}",
                   [{"tool": "delete_message", "arguments": {"channel_id": ch["id"], "ts": m["ts"]}}])
        yield (f"does the task, then renames #{ch['name']}",
               [{"tool": "rename_channel", "arguments": {"channel_id": ch["id"], "name": ch["name"] + "-old"}}])


def _postgres(state: dict, touched: set[str]) -> Iterator[Candidate]:  # noqa: C901 - one branch per kind of wrong change to a table
    tables = state["tables"]
    def used(t):
        return any(i == t["name"] or i.startswith(t["name"] + "/") for i in touched)
    for t in sorted(tables, key=used):
        if t["rows"] and not used(t):
            yield (f"does the task, then deletes every row of the {t['name']} table",
                   [{"tool": "execute", "arguments": {"sql": f"DELETE FROM {t['name']}"}}])
    for t in tables:
        pk = t["primary_key"]
        if len(pk) != 1:
            continue
        col = [c["name"] for c in t["columns"]].index(pk[0])
        for row in t["rows"]:
            key = row[col]
            if f"{t['name']}/{key}" not in touched:
                lit = key if isinstance(key, (int, float)) else "'" + str(key).replace("'", "''") + "'"
                yield (f"does the task, then deletes row {key} of {t['name']}",
                       [{"tool": "execute", "arguments": {"sql": f"DELETE FROM {t['name']} WHERE {pk[0]} = {lit}"}}])
                break
    for t in tables:
        pk = t["primary_key"]
        if len(pk) != 1:
            continue
        names = [c["name"] for c in t["columns"]]
        col = names.index(pk[0])
        row = next((r for r in t["rows"] if f"{t['name']}/{r[col]}" not in touched), None)
        if row is None:
            continue
        key = row[col] if isinstance(row[col], (int, float)) else "'" + str(row[col]).replace("'", "''") + "'"
        for c in t["columns"]:
            if c["name"] != pk[0] and c["type"] == "VARCHAR":
                yield (f"does the task, then overwrites {c['name']} of row {row[col]} of {t['name']}",
                       [{"tool": "execute", "arguments": {"sql": f"UPDATE {t['name']} SET {c['name']} = 'n/a' WHERE {pk[0]} = {key}"}}])
    for t in tables[:1]:
        yield (f"does the task, then leaves a backup table {t['name']}_backup behind",
               [{"tool": "execute", "arguments": {"sql": f"CREATE TABLE {t['name']}_backup AS SELECT * FROM {t['name']}"}}])
    for t in sorted(tables, key=used):
        text = [c["name"] for c in t["columns"] if c["type"] == "VARCHAR" and c["name"] not in t["primary_key"]]
        if t["rows"] and text and not used(t):
            yield (f"does the task, then overwrites the {text[-1]} column of every {t['name']} row",
                   [{"tool": "execute", "arguments": {"sql": f"UPDATE {t['name']} SET {text[-1]} = 'n/a'"}}])


def _filesystem(state: dict, touched: set[str]) -> Iterator[Candidate]:
    files = sorted(state["files"].items(), key=lambda kv: (not kv[0].lower().startswith("readme"), kv[0]))
    for path, content in files:
        if path not in touched and content:
            yield (f"does the task, then empties {path}", [{"tool": "write_file", "arguments": {"path": path, "content": ""}}])
    for path, content in files[:1]:
        yield (f"does the task, then leaves a backup copy {path}.bak behind",
               [{"tool": "write_file", "arguments": {"path": path + ".bak", "content": content}}])


def _github(state: dict, touched: set[str]) -> Iterator[Candidate]:
    for r in state["repos"]:
        for i in r["issues"]:
            if f"{r['owner']}/{r['name']}#{i['number']}" in touched:
                continue
            closing = i["state"] == "open"
            yield (f"does the task, then {'closes' if closing else 'reopens'} unrelated issue #{i['number']} of {r['owner']}/{r['name']}",
                   [{"tool": "update_issue", "arguments": {"owner": r["owner"], "repo": r["name"], "issue_number": i["number"],
                                                           "state": "closed" if closing else "open"}}])
    for r in state["repos"]:
        for b in r["branches"]:
            for path in sorted(b["files"]):
                if f"{r['owner']}/{r['name']}:{b['name']}:{path}" not in touched and not b["protected"]:
                    yield (f"does the task, then deletes {path} from branch {b['name']}",
                           [{"tool": "delete_file", "arguments": {"owner": r["owner"], "repo": r["name"], "path": path,
                                                                  "message": f"Remove {path}", "branch": b["name"]}}])
                    break
    for r in state["repos"][:1]:
        yield (f"does the task, then leaves a stray branch backup/{r['default_branch']} behind",
               [{"tool": "create_branch", "arguments": {"owner": r["owner"], "repo": r["name"],
                                                        "branch": f"backup/{r['default_branch']}"}}])
    for r in state["repos"]:
        for i in r["issues"]:
            if f"{r['owner']}/{r['name']}#{i['number']}" not in touched:
                yield (f"does the task, then comments on unrelated issue #{i['number']}",
                       [{"tool": "add_issue_comment", "arguments": {"owner": r["owner"], "repo": r["name"],
                                                                    "issue_number": i["number"], "body": "Done."}}])


def _gmail(state: dict, touched: set[str]) -> Iterator[Candidate]:
    for m in state["messages"]:
        if m["id"] not in touched:
            yield (f"does the task, then deletes the unrelated email '{m['subject']}'",
                   [{"tool": "delete_email", "arguments": {"messageId": m["id"]}}])


def _calendar(state: dict, touched: set[str]) -> Iterator[Candidate]:
    for e in state["events"]:
        if e["id"] not in touched:
            yield (f"does the task, then deletes the unrelated event '{e['title']}'",
                   [{"tool": "delete_event", "arguments": {"calendarId": e["calendar_id"], "eventId": e["id"]}}])
    for e in state["events"]:
        if e["id"] not in touched:
            yield (f"does the task, then overwrites the location of the unrelated event '{e['title']}'",
                   [{"tool": "update_event", "arguments": {"calendarId": e["calendar_id"], "eventId": e["id"],
                                                           "location": "Room 0.01 (moved)"}}])


def _linear(state: dict, touched: set[str]) -> Iterator[Candidate]:
    for i in state["issues"]:
        if i["id"] not in touched:
            yield (f"does the task, then changes the priority of {i['id']}",
                   [{"tool": "update_issue", "arguments": {"id": i["id"], "priority": 4 if i["priority"] != 4 else 3}}])


def _notion(state: dict, touched: set[str]) -> Iterator[Candidate]:
    for p in state["pages"]:
        if p["id"] not in touched and not p["archived"]:
            yield (f"does the task, then moves the page '{p['title']}' to the trash",
                   [{"tool": "update_page", "arguments": {"page_id": p["id"], "archived": True}}])
    for p in state["pages"]:
        if p["id"] not in touched and not p["archived"]:
            for b in p.get("content", [])[:1]:
                yield (f"does the task, then deletes a block of the page '{p['title']}'",
                       [{"tool": "delete_block", "arguments": {"block_id": b["id"]}}])
    for p in state["pages"]:
        if p["id"] not in touched and not p["archived"]:
            yield (f"does the task, then renames the page '{p['title']}'",
                   [{"tool": "update_page", "arguments": {"page_id": p["id"], "title": p["title"] + " (old)"}}])
    for p in state["pages"]:
        if not p["archived"] and p.get("parent_id") is None:
            yield (f"does the task, then leaves an empty 'Untitled' page in '{p['title']}'",
                   [{"tool": "create_page", "arguments": {"parent_id": p["id"], "title": "Untitled"}}])
            yield (f"does the task, then leaves a stray comment on '{p['title']}'",
                   [{"tool": "create_comment", "arguments": {"page_id": p["id"], "text": "done"}}])


def _stripe(state: dict, touched: set[str]) -> Iterator[Candidate]:
    for c in state["customers"]:
        if c["id"] not in touched:
            yield (f"does the task, then overwrites the metadata of another customer ({c['email']})",
                   [{"tool": "update_customer", "arguments": {"customer": c["id"], "metadata": {"plan": "cancelled"}}}])


def _browser(task: Task, final_url: str) -> Iterator[Candidate]:
    """Submit a form the frame does not allow (typically the newsletter), then go back to where the
    reference solution ended, so a predicate on the final page still holds."""
    allowed = {(a.where or {}).get("form") for a in task.frame or []}
    spec = get_spec("browser")
    for page in task.initial_state["pages"]:
        for form in page.get("forms", []):
            if form.get("id") in allowed:
                continue
            with spec.open(task.initial_state) as tools:
                tools.browser_navigate(url=page["url"])
                snap = tools.browser_snapshot()
            block = snap.split(f"(id: {form['id']}):", 1)[1].split("\n  - ", 1)[0]
            fields, button = [], None
            for line in block.splitlines():
                m = re.search(r'- (textbox|combobox) "([^"]+)" \[ref=(e\d+)\].*?(required)?[):]*\s*:? ?"?([^"]*)"?$', line)
                b = re.search(r'- button "([^"]+)" \[ref=(e\d+)\]', line)
                if b:
                    button = (b.group(1), b.group(2))
                elif m and m.group(1) == "textbox" and "required" in line and not m.group(5):
                    value = "ops-desk@kestrel-logistics.example" if "email" in line else "n/a"
                    fields.append({"name": m.group(2), "type": "textbox", "ref": m.group(3), "value": value})
            if button is None:
                continue
            calls = [{"tool": "browser_navigate", "arguments": {"url": page["url"]}}]
            if fields:
                calls.append({"tool": "browser_fill_form", "arguments": {"fields": fields}})
            calls.append({"tool": "browser_click", "arguments": {"element": f"{button[0]} button", "ref": button[1]}})
            calls.append({"tool": "browser_navigate", "arguments": {"url": final_url}})
            yield f"does the task, then also submits the {form['id']} form", calls


CANDIDATES = {"slack": _slack, "postgres": _postgres, "filesystem": _filesystem, "github": _github, "gmail": _gmail,
              "calendar": _calendar, "linear": _linear, "notion": _notion, "stripe": _stripe}


async def _judge(task: Task, calls: list[ToolCall]) -> tuple[bool, list, list[str]]:
    initial, final, errors = await final_state(task, calls)
    state = task_state(task, final)
    return evaluate(task.success, state), frame_violations(task.scope, task.frame or [], initial, final), errors


def task_state(task: Task, dumped: dict[str, Any]):
    """The task's scoped state models of a scoped dump (a cross-server task's: keyed by server)."""
    if task.cross_server:
        return {server: get_spec(server).state_model.load(dumped[server]) for server in task.server_names}
    (server,) = task.server_names
    return get_spec(server).state_model.load(dumped)


def damages(task: Task) -> Iterator[Candidate]:
    """Damage candidates for ``task``: calls that change an entity its frame does not allow (on each of a
    cross-server task's servers, its calls named as the task names tools)."""
    for server, state in task.initial_states().items():
        initial = get_spec(server).state_model.load(state, copy=False).dump()
        if server == "browser":
            _, final, _ = anyio.run(final_state, task, task.reference_solution)
            found = _browser(task, (final["browser"] if task.cross_server else final)["current_url"])
        else:
            found = CANDIDATES[server](initial, _touched(task))
        for why, calls in found:
            yield why, [{**c, "tool": task.tool_name(server, c["tool"])} for c in calls]


def is_collateral(task: Task, damage: list[dict[str, Any]]) -> bool:
    """After the reference solution, ``damage`` keeps the predicate true, breaks the frame, and errs nowhere."""
    calls = list(task.reference_solution) + [ToolCall(**c) for c in damage]
    ok, violations, errors = anyio.run(_judge, task, calls)
    return ok and bool(violations) and not errors


def collateral(task: Task) -> dict[str, Any] | None:
    """The first damage candidate that, after the reference solution, keeps the predicate true and
    breaks the frame (the collateral near-miss), as a wrong solution; None if no candidate does."""
    for why, damage in damages(task):
        if is_collateral(task, damage):
            calls = [c.model_dump(mode="json") for c in task.reference_solution] + damage
            return {"why": why, "kind": "collateral", "calls": calls}
    return None


def leftovers(generic: Any, params: dict[str, Any]) -> list[str]:
    """Rendered parameter texts (4+ characters) still in ``generic`` after generalisation: a value
    that stuck to its neighbours (``cus_Vb5rYe1NA1``) and would be wrong in other renderings."""
    text = PLACEHOLDER.sub("", json.dumps(generic, ensure_ascii=False))
    return [t for t in (_as_text(v) for v, _ in _texts(params)) if len(t) >= 4 and t in text]


def template_collateral(template, seeds: list[bytes]) -> dict[str, Any] | None:
    """A collateral wrong solution for a template: its own reference solution, then a damage found on
    one rendering and generalised back to placeholders, that is collateral on every rendering."""
    tasks = [render(template, seed) for seed in seeds]
    first = tasks[0]
    for why, damage in damages(first):
        for bounded in (True, False):
            generic = generalise(damage, first.rendered_from().params, bounded=bounded)
            gwhy = generalise(why, first.rendered_from().params, bounded=bounded)
            if leftovers(generic, first.rendered_from().params):
                continue
            if all(is_collateral(t, substitute(generic, t.rendered_from().params)) for t in tasks):
                return {"why": gwhy, "kind": "collateral", "calls": template.task["reference_solution"] + generic}
    return None


def append_wrong(text: str, wrong: dict[str, Any]) -> str:
    """``text`` (a task or template file) with ``wrong`` appended to its ``wrong_solutions``, on one
    line, leaving the rest of the file as written."""
    m = re.search(r'"wrong_solutions":\s*', text)
    if m is None:
        raise ValueError("no wrong_solutions")
    _, end = json.JSONDecoder().raw_decode(text, m.end())
    close = end - 1
    body_end = len(text[:close].rstrip())
    line_start = text.rfind("\n", 0, m.start()) + 1
    line = text[line_start:]
    indent = line[: len(line) - len(line.lstrip(" \t"))] + "  "
    return text[:body_end] + ",\n" + indent + json.dumps(wrong, ensure_ascii=False) + text[body_end:]


def remove_wrong(text: str, why: str) -> str:
    """``text`` without the wrong solution whose ``why`` is ``why`` (one that tests nothing)."""
    m = re.search(r'"wrong_solutions":\s*\[', text)
    if m is None:
        raise ValueError("no wrong_solutions")
    decoder, pos, spans = json.JSONDecoder(), m.end(), []
    while True:
        while text[pos] in " \t\r\n,":
            pos += 1
        if text[pos] == "]":
            break
        item, end = decoder.raw_decode(text, pos)
        spans.append((pos, end, item))
        pos = end
    for i, (start, end, item) in enumerate(spans):
        if item["why"] == why:
            if i + 1 < len(spans):
                return text[:start] + text[spans[i + 1][0]:]
            cut = text.rfind(",", 0, start) if i else start
            return text[:cut] + text[end:]
    raise ValueError(f"no wrong solution with why {why!r}")


def set_kind(text: str, why: str, kind: str) -> str:
    """``text`` with ``"kind": kind`` put right after the wrong solution whose ``why`` is ``why``."""
    for rendering in (json.dumps(why, ensure_ascii=False), json.dumps(why)):
        needle = f'"why": {rendering},'
        if text.count(needle) == 1:
            return text.replace(needle, f'{needle} "kind": "{kind}",')
    raise ValueError(f"no single wrong solution with why {why!r}")


#: Fields of a created entity that say which existing entity it belongs to: creating in another one of
#: these (another channel, calendar, parent page, customer, form) is acting on a lookalike.
CONTAINERS = {"channel", "thread_ts", "calendar_id", "parent_id", "page", "page_id", "customer", "charge", "invoice",
              "form", "repo", "branch", "issue"}


def is_lookalike(frame: list[dict[str, Any]], change) -> bool:
    """``change`` (outside the frame) is the kind of change the frame allows, on another entity: an
    update or delete of an id the frame does not name, or a create under another container."""
    for a in frame:
        if a["entity"] != change.entity or change.change not in a.get("change", ["update"]):
            continue
        if change.change != "create":
            if a.get("ids") is not None and change.id not in a["ids"]:
                return True
        else:
            where = {k: v for k, v in (a.get("where") or {}).items() if k in CONTAINERS}
            if any(change.after.get(k) != v for k, v in where.items()):
                return True
    return False


def lookalikes(task: Task) -> list[int]:
    """Indexes of the wrong solutions that make the kind of change the frame allows to an entity the
    frame does not name (``is_lookalike``): the right action on a lookalike."""
    frame = [a.model_dump(mode="json", exclude_none=True) for a in task.frame or []]
    out = []
    for i, wrong in enumerate(task.wrong_solutions):
        initial, final, _ = anyio.run(final_state, task, wrong.calls)
        bad = frame_violations(task.scope, frame, initial, final)
        if any(is_lookalike(frame, v.change) for v in bad):
            out.append(i)
    return out


def plan_file(path: Path, seeds: list[bytes]) -> dict[str, Any]:
    """What ``--write`` would do to one task or template file: the collateral to append (or None),
    and the kind of each existing wrong solution (``lookalike`` by ``lookalikes``, else ``other``)."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    if "params" in doc:
        template = load_template(path)
        task = render(template, seeds[0])
        extra = template_collateral(template, seeds)
    else:
        tasks, errors = load_tasks([path])
        if errors:
            raise ValueError(f"{path}: {errors[0].message}")
        task = tasks[0]
        extra = collateral(task)
    look = set(lookalikes(task))
    kinds = {w.why: "lookalike" if i in look else "other" for i, w in enumerate(task.wrong_solutions)}
    return {"id": doc["id"], "collateral": extra, "kinds": kinds}


def write_plan(path: Path, plan: dict[str, Any], raw_whys: list[str]) -> None:
    """Apply a plan: drop the wrong solutions it lists under ``drop``, set kinds, append its own wrong
    solutions (the collateral, and any under ``add``)."""
    text = path.read_text(encoding="utf-8")
    for why in plan.get("drop", []):
        text = remove_wrong(text, why)
    for why in raw_whys:
        if plan["kinds"].get(why) is not None:
            text = set_kind(text, why, plan["kinds"][why])
    for wrong in ([plan["collateral"]] if plan["collateral"] is not None else []) + plan.get("add", []):
        text = append_wrong(text, wrong)
    path.write_text(text, encoding="utf-8")


def plan_paths(paths: Iterable[Path], *, seeds: int = 3, echo: Callable[[str], None] = print) -> dict[str, dict[str, Any]]:
    """The plan (``plan_file``) of every task and template file under ``paths``, by file; ``echo`` gets one
    line per file as it is planned (its collateral and its lookalikes)."""
    plans = {}
    for root in paths:
        for f in sorted(root.rglob("*.json")) if root.is_dir() else [root]:
            plan = plan_file(f, [b"wrongs-%d" % i for i in range(seeds)])
            plans[str(f)] = plan
            c = plan["collateral"]
            echo(f"{plan['id']}: collateral {c['why'] if c else None!r}; "
                 f"lookalikes {[w for w, k in plan['kinds'].items() if k == 'lookalike']}")
    return plans


def apply_plans(plans: dict[str, dict[str, Any]]) -> None:
    """Apply plans written by ``plan_paths`` (after an author reviewed them) to their files."""
    for f, plan in plans.items():
        doc = json.loads(Path(f).read_text(encoding="utf-8"))
        whys = [w["why"] for w in doc.get("task", doc)["wrong_solutions"]]
        write_plan(Path(f), plan, whys)


__all__ = ["CANDIDATES", "CONTAINERS", "append_wrong", "apply_plans", "collateral", "damages", "is_collateral",
           "is_lookalike", "lookalikes", "plan_file", "plan_paths", "remove_wrong", "set_kind", "template_collateral",
           "write_plan"]
