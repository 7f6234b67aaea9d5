"""Draft a task's frame from what its reference solution changes (issue 10).

The draft is the diff of the initial state and the state after the reference solution, entity by
entity and keyed by stable ids (``tasks_catalog.frames.diff``), turned into allowances:

- an existing entity that the reference updates or deletes is allowed by its id (updates limited to
  the fields that changed);
- entities the reference creates are allowed by id where the agent chooses the id (a file path, a
  row's primary key), else by ``where`` on the fields that anchor them (a message's channel, a
  customer's email) and ``max`` = how many the reference creates, so a duplicate breaks the frame.

A draft is not a verdict: an author reads it against the goal (would another correct solution change
more? does the draft allow something the goal does not?). For a template, the draft of one rendering
is generalised back to placeholders and checked against other renderings.

    mcpbench author propose tasks_catalog/dev/slack/slack-announce-release.json
    mcpbench author propose tasks_catalog/templates/slack --seeds 3
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from servers import get_spec
from tasks_catalog.frames import Change, diff
from tasks_catalog.gate import apply_calls, dumped
from tasks_catalog.loader import validate_task
from tasks_catalog.schema import Task, ToolCall
from tasks_catalog.templates import Template, load_template, render, substitute

#: Kinds whose ids the agent chooses (a path, a primary key, a label name): created ones are allowed by id.
CHOSEN_IDS = {
    "filesystem.file", "filesystem.directory", "postgres.table", "postgres.row", "linear.label",
    "github.branch", "github.file",
}
#: For the other kinds, the fields that say where a created entity belongs (``where`` of its allowance).
ANCHORS: dict[str, tuple[str, ...]] = {
    "browser.submission": ("form",),
    "calendar.calendar": ("name",),
    "calendar.event": ("calendar_id", "title"),
    "github.commit": ("repo", "branch"),
    "github.issue": ("repo", "title"),
    "github.comment": ("repo", "issue"),
    "github.pull_request": ("repo", "head", "base"),
    "gmail.label": ("name",),
    "gmail.message": ("to", "subject"),
    "gmail.draft": ("to", "subject"),
    "linear.issue": ("title",),
    "linear.comment": ("issue",),
    "notion.database": ("parent_id", "title"),
    "notion.page": ("parent_id", "title"),
    "notion.block": ("page", "type"),
    "notion.comment": ("page_id",),
    "slack.channel": ("name",),
    "slack.message": ("channel", "thread_ts"),
    "stripe.customer": ("email",),
    "stripe.invoice": ("customer", "status"),
    "stripe.refund": ("charge", "amount"),
    "stripe.product": ("name",),
    "stripe.price": ("product",),
    "stripe.charge": ("invoice",),
}
#: Servers whose new ids depend only on what the agent names (a Slack channel's id hashes its name), so a
#: ``where`` may refer to an entity created in the same run.
NAME_DERIVED_IDS = {"slack"}


async def final_state(task: Task, calls: Iterable[ToolCall]) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """The dumped initial state, the dumped state after ``calls`` and the calls' errors (the task's
    scoped states: a cross-server task's keyed by server)."""
    initial = task.scoped({server: get_spec(server).state_model.load(state, copy=False).dump()
                           for server, state in task.initial_states().items()})
    state, errors = await apply_calls(task, calls, only_available=False, strict=False)
    return initial, dumped(state), errors


def allowances(server: str, changes: list[Change], *, created_refs: bool = True) -> list[dict[str, Any]]:
    """Allowances that allow exactly ``changes`` (see the module docstring). ``created_refs``: a
    ``where`` may name an entity created in the same run where the server derives its id from its
    name (a Slack channel); a template's frame cannot (the id is a digest of a parameter)."""
    created_ids = {c.id for c in changes if c.change == "create"}
    out: list[dict[str, Any]] = []
    groups: dict[tuple, list[Change]] = {}
    for c in changes:
        if c.change == "update":
            key: tuple = (c.entity, "update", c.fields)
        elif c.change == "delete" or c.entity in CHOSEN_IDS:
            key = (c.entity, c.change)
        else:
            where = {}
            for name in ANCHORS.get(c.entity, ()):
                value = (c.after or {}).get(name)
                if value is None or (isinstance(value, str) and value in created_ids
                                          and not (created_refs and server in NAME_DERIVED_IDS)):
                    continue  # an id the server assigns at random order: not stable across runs
                where[name] = value
            key = (c.entity, "create", json.dumps(where, sort_keys=True))
        groups.setdefault(key, []).append(c)
    for key, members in groups.items():
        entity, change = key[0], key[1]
        a: dict[str, Any] = {"entity": entity}
        if change == "update":
            a["ids"] = [c.id for c in members]
            a["fields"] = list(key[2])
        elif change == "delete" or entity in CHOSEN_IDS:
            a["ids"] = [c.id for c in members]
            a["change"] = [change]
        else:
            a["change"] = ["create"]
            where = json.loads(key[2])
            if where:
                a["where"] = where
            a["max"] = len(members)
        out.append(a)
    for a in out:  # an unanchored allowance also matches the anchored creations: count them all
        if "max" in a:
            a["max"] = sum(_matches(a, c) for c in changes)
    return out


def _matches(a: dict[str, Any], c: Change) -> bool:
    values = c.before if c.change == "delete" else c.after
    assert values is not None  # a deleted entity has its before, any other its after
    return (a["entity"] == c.entity and c.change in a.get("change", ["update"])
            and (a.get("ids") is None or c.id in a["ids"])
            and all(k in values and values[k] == v for k, v in a.get("where", {}).items()))


def canonical(frame: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A frame in a canonical order (ids sorted, allowances sorted), to compare two frames."""
    out = [{k: sorted(v) if k in ("ids", "fields") else v for k, v in a.items()} for a in frame]
    return sorted(out, key=lambda a: json.dumps(a, sort_keys=True))


def draft(task: Task, *, created_refs: bool = True) -> list[dict[str, Any]]:
    """The frame the reference solution of ``task`` implies."""
    initial, final, errors = anyio.run(final_state, task, task.reference_solution)
    if errors:
        raise ValueError(f"task {task.id}: reference solution fails: {errors[0]}")
    if not task.cross_server:
        (server,) = task.server_names
        return allowances(server, diff(server, initial, final), created_refs=created_refs)
    return [a for s in task.server_names for a in allowances(s, diff(s, initial[s], final[s]), created_refs=created_refs)]


# -- templates -------------------------------------------------------------------------------------

def _as_text(value: Any) -> str:
    """How a placeholder inside a longer string renders ``value``."""
    return substitute("<{{v}}>", {"v": value})[1:-1]


def _texts(params: dict[str, Any]) -> list[tuple[Any, str]]:
    """(rendered value, placeholder) pairs, longest text first, so a longer value wins over a part of it."""
    pairs: list[tuple[Any, str]] = []
    for name, value in params.items():
        pairs.append((value, "{{%s}}" % name))  # noqa: UP031 - % keeps the placeholder's literal braces readable
        if isinstance(value, list):
            pairs += [(v, "{{%s.%d}}" % (name, i)) for i, v in enumerate(value)]  # noqa: UP031 - % keeps the placeholder's literal braces readable
    return sorted(pairs, key=lambda p: -len(_as_text(p[0])))


def generalise(value: Any, params: dict[str, Any], *, bounded: bool = True, whole_only: bool = False) -> Any:
    """Replace the rendered parameter values in ``value`` by their placeholders (the inverse of
    ``tasks_catalog.templates.substitute``). Inside longer strings only values of at least 3
    characters are replaced, and with ``bounded`` only where no letter or digit touches them."""
    pairs = _texts(params)
    if isinstance(value, dict):
        return {generalise(k, params, bounded=bounded, whole_only=whole_only):
                generalise(v, params, bounded=bounded, whole_only=whole_only) for k, v in value.items()}
    if isinstance(value, list):
        return [generalise(v, params, bounded=bounded, whole_only=whole_only) for v in value]
    for rendered, placeholder in pairs:
        if type(rendered) is type(value) and rendered == value and not isinstance(value, bool):
            return placeholder
    if not isinstance(value, str) or whole_only:
        return value
    out = value
    for rendered, placeholder in pairs:
        text = _as_text(rendered)
        if isinstance(rendered, (str, int, float)) and not isinstance(rendered, bool) and len(text) >= (2 if bounded else 3):
            edge = r"(?<![A-Za-z0-9]){}(?![A-Za-z0-9])" if bounded else "{}"
            out = re.sub(edge.format(re.escape(text)), lambda _m: placeholder, out)  # noqa: B023 - re.sub calls it before the loop moves on
    return out


def generalise_frame(frame: list[dict[str, Any]], params: dict[str, Any], *, bounded: bool = True) -> list[dict[str, Any]]:
    """``generalise`` over the ids and ``where`` values of a frame; ``fields`` entries only when a whole
    field name is a parameter's value (a column the template names)."""
    out = []
    for a in frame:
        a = dict(a)
        if "ids" in a:
            a["ids"] = generalise(a["ids"], params, bounded=bounded)
        if "where" in a:
            a["where"] = {k: generalise(v, params, bounded=bounded) for k, v in a["where"].items()}
        if "fields" in a:
            a["fields"] = generalise(a["fields"], params, whole_only=True)
        out.append(a)
    return out


def draft_template(template, seeds: Iterable[bytes]) -> tuple[list[dict[str, Any]], list[str]]:
    """A template's frame drafted from its first rendering, and the renderings (by seed) where the
    generalised draft, rendered back, differs from that rendering's own draft."""
    tasks = {seed: render(template, seed) for seed in seeds}
    drafts = {seed: draft(t, created_refs=False) for seed, t in tasks.items()}
    return generalised_over(tasks, drafts, lambda frame, params, bounded: generalise_frame(frame, params, bounded=bounded),
                            lambda a, b: canonical(a) == canonical(b), "the generalised frame")


def generalised_over(tasks: dict[bytes, Task], own: dict[bytes, Any], generalise_one: Callable[[Any, dict[str, Any], bool], Any],
                     same: Callable[[Any, Any], bool], what: str) -> tuple[Any, list[str]]:
    """What each rendering's ``own`` value (by seed) generalises to: one rendering's, put back into
    placeholders, that renders to every rendering's own (or, failing that, the one that misses fewest),
    and the renderings it misses."""
    best: tuple[Any, list[str]] | None = None
    for bounded in (True, False):
        for seed, task in tasks.items():  # a rendering where a parameter happens to equal a fixed text misleads: try each
            generic = generalise_one(own[seed], task.rendered_from().params, bounded)
            problems = [f"seed {other!r}: {what} renders to {substitute(generic, t.rendered_from().params)}, its own is {own[other]}"
                        for other, t in tasks.items() if not same(substitute(generic, t.rendered_from().params), own[other])]
            if not problems:
                return generic, []
            if best is None or len(problems) < len(best[1]):
                best = (generic, problems)
    assert best is not None
    return best


def insert_frame(text: str, frame: list[dict[str, Any]]) -> str:
    """``text`` (a task or template file) with ``"frame"`` inserted just before ``"success"``, one
    allowance per line, leaving the rest of the file as it was written."""
    m = re.search(r'^([ \t]*)"success":', text, flags=re.M)
    if m is None or '"frame":' in text:
        raise ValueError("no \"success\" key to insert before, or a frame is already there")
    indent = m.group(1)
    lines = [indent + '  ' + json.dumps(a, ensure_ascii=False) for a in frame]
    block = f'{indent}"frame": [\n' + ",\n".join(lines) + f"\n{indent}],\n" if frame else f'{indent}"frame": [],\n'
    return text[:m.start()] + block + text[m.start():]


@dataclass
class Proposals:
    """The drafts of a set of files: by task or template id, its frame and the problems found (a template
    rendering its draft does not reproduce), the files that did not load, and the files written."""

    drafts: dict[str, dict[str, Any]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors and not any(d["problems"] for d in self.drafts.values())


def propose(paths: Iterable[Path], *, seeds: int = 3, write: bool = False) -> Proposals:
    """Draft the frame of every task and template file under ``paths`` (a template cross-checked on
    ``seeds`` renderings). A file without a frame yet is drafted as if its frame were empty (the draft
    does not depend on it). With ``write``, insert each draft into its file when the file has no frame
    yet and the draft has no problems."""
    out = Proposals()
    for path in paths:
        files = sorted(path.rglob("*.json")) if path.is_dir() else [path]
        for f in files:
            doc = json.loads(f.read_text(encoding="utf-8"))
            framed = "frame" in doc.get("task", doc)
            frame: list[dict[str, Any]] = []
            problems = ["not drafted"]
            if "params" in doc:
                template = load_template(f) if framed else Template.model_validate(
                    {**doc, "task": {**doc["task"], "frame": []}})
                frame, problems = draft_template(template, [b"propose-%d" % i for i in range(seeds)])
                out.drafts[doc["id"]] = {"frame": frame, "problems": problems}
            else:
                task, errors = validate_task(doc if framed else {**doc, "frame": []}, str(f))
                if task is None or errors:
                    out.errors += [f"{f}: {e.path}: {e.message}" for e in errors[:1]]
                else:
                    frame, problems = draft(task), []
                    out.drafts[task.id] = {"frame": frame, "problems": problems}
            if write and not problems and not framed:
                f.write_text(insert_frame(f.read_text(encoding="utf-8"), frame), encoding="utf-8")
                out.written.append(f)
    return out


__all__ = ["ANCHORS", "CHOSEN_IDS", "Proposals", "allowances", "canonical", "draft", "draft_template", "final_state",
           "generalise", "generalise_frame", "generalised_over", "insert_frame", "propose"]
