"""The frame: the entity declaration covers every server's state, the diff keys entities by stable
id, and allowances allow exactly what they say (Python verifier; the TypeScript verifier is held to
the same verdicts in test_frame_conformance.py)."""

from __future__ import annotations

import copy
import typing
from pathlib import Path

import pytest
from pydantic import BaseModel

from servers import SERVER_NAMES, get_spec
from tasks_catalog.frames import Extracted, check_frame, declaration, diff, frame_violations, server_entities, summarize
from tasks_catalog.loader import validate_task


def _element(annotation):
    """The item type of a list[X] / dict[str, X] field (None-able unions unwrapped)."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    origin = typing.get_origin(annotation)
    if origin in (list, dict):
        return args[-1]
    if len(args) == 1:
        return _element(args[0])
    raise AssertionError(f"{annotation} is not a collection")


@pytest.mark.parametrize("server", SERVER_NAMES)
def test_every_field_of_the_state_model_is_judged_by_a_kind_or_declared_benign(server):
    entities = declaration()[server]
    paths = {k.path: k for k in entities.kinds}
    root = get_spec(server).state_model
    root_fields = set(paths[()].fields) if () in paths else set()
    uncovered = [f for f in root.model_fields
                 if f not in entities.benign and f not in root_fields and (f,) not in paths]
    for kind in entities.kinds:
        if not kind.path or kind.value or kind.row:
            continue
        model = root
        for step in kind.path:
            model = _element(model.model_fields[step].annotation)
        assert issubclass(model, BaseModel), f"{kind.qualified}: {kind.path} does not reach a model"
        for f in model.model_fields:
            if f not in kind.fields and (*kind.path, f) not in paths:
                uncovered.append(f"{kind.qualified}.{f}")
    assert not uncovered, f"{server}: state fields no kind judges and none declared benign: {uncovered}"


def test_the_committed_frames_document_is_current():
    from tasks_catalog.authoring import frames_doc

    committed = (Path(__file__).resolve().parents[2] / "docs" / "frames.md").read_text(encoding="utf-8")
    assert committed == frames_doc.render(), "run `mcpbench author docs` and commit docs/frames.md"


SLACK = {
    "viewer": "UBOT0001",
    "users": [{"id": "UBOT0001", "name": "mcpbench-bot", "is_bot": True}, {"id": "U1MARIA", "name": "maria"}],
    "channels": [
        {"id": "C05INC2047", "name": "incident-2047", "members": ["U1MARIA"],
         "messages": [{"ts": "1767268800.000100", "user": "U1MARIA", "text": "db is down"}]},
        {"id": "C05INC2052", "name": "incident-2052", "members": ["U1MARIA"], "messages": []},
    ],
}


def _slack(**changes):
    state = copy.deepcopy(SLACK)
    for channel in state["channels"]:
        channel.update(changes.get(channel["id"], {}))
    return state


def test_a_renamed_channel_is_an_update_of_its_name_under_the_same_id():
    changes = diff("slack", SLACK, _slack(C05INC2047={"name": "old-incident", "is_archived": True}))
    assert [(c.entity, c.id, c.change, c.fields) for c in changes] == [
        ("slack.channel", "C05INC2047", "update", ("is_archived", "name"))]


def test_an_archive_allowed_by_id_and_field_holds_but_a_rename_beside_it_violates():
    frame = [{"entity": "slack.channel", "ids": ["C05INC2047"], "fields": ["is_archived"]}]
    assert frame_violations("slack", frame, SLACK, _slack(C05INC2047={"is_archived": True})) == []
    violations = frame_violations("slack", frame, SLACK, _slack(C05INC2047={"is_archived": True, "name": "x"}))
    assert summarize(violations) == "slack.channel C05INC2047 updated (is_archived, name): frame[0] does not allow name to change"


def test_a_change_to_an_entity_the_frame_does_not_name_is_reported_with_its_id():
    frame = [{"entity": "slack.channel", "ids": ["C05INC2047"], "fields": ["is_archived"]}]
    final = _slack(C05INC2047={"is_archived": True}, C05INC2052={"is_archived": True})
    [violation] = frame_violations("slack", frame, SLACK, final)
    assert violation.to_json() == {"entity": "slack.channel", "id": "C05INC2052", "change": "update",
                                   "fields": ["is_archived"], "reason": "outside the frame (nearest: frame[0], whose ids do not include it)"}


def _post(state, channel, ts, text):
    state = copy.deepcopy(state)
    next(c for c in state["channels"] if c["id"] == channel)["messages"].append(
        {"ts": ts, "user": "UBOT0001", "text": text})
    return state


def test_a_created_message_is_allowed_only_in_the_channel_its_where_names():
    frame = [{"entity": "slack.message", "change": ["create"], "where": {"channel": "C05INC2052"}}]
    assert frame_violations("slack", frame, SLACK, _post(SLACK, "C05INC2052", "1767268900.000100", "hi")) == []
    [v] = frame_violations("slack", frame, SLACK, _post(SLACK, "C05INC2047", "1767268900.000100", "hi"))
    assert (v.change.entity, v.change.id, v.change.change) == ("slack.message", "C05INC2047/1767268900.000100", "create")


def test_max_catches_the_duplicate_of_a_retried_post_and_names_both_messages():
    frame = [{"entity": "slack.message", "change": ["create"], "where": {"channel": "C05INC2052"}, "max": 1}]
    once = _post(SLACK, "C05INC2052", "1767268900.000100", "status")
    assert frame_violations("slack", frame, SLACK, once) == []
    twice = _post(once, "C05INC2052", "1767268901.000100", "status")
    violations = frame_violations("slack", frame, SLACK, twice)
    assert [v.change.id for v in violations] == ["C05INC2052/1767268900.000100", "C05INC2052/1767268901.000100"]
    assert violations[0].reason == "frame[0] allows at most 1, 2 matched"


def test_a_deleted_message_matches_where_on_its_initial_values():
    final = copy.deepcopy(SLACK)
    final["channels"][0]["messages"] = []
    allow = [{"entity": "slack.message", "change": ["delete"], "where": {"user": "U1MARIA"}}]
    deny = [{"entity": "slack.message", "change": ["delete"], "where": {"user": "UBOT0001"}}]
    assert frame_violations("slack", allow, SLACK, final) == []
    assert [v.change.change for v in frame_violations("slack", deny, SLACK, final)] == ["delete"]
    assert [v.change.change for v in frame_violations("slack", [], SLACK, final)] == ["delete"]


POSTGRES = {"tables": [
    {"name": "orders", "columns": [{"name": "id", "type": "INTEGER"}, {"name": "status", "type": "VARCHAR"},
                                   {"name": "total", "type": "DOUBLE"}],
     "primary_key": ["id"], "rows": [[1042, "paid", 30.0], [1043, "paid", 12.5]]},
    {"name": "log", "columns": [{"name": "line", "type": "VARCHAR"}], "rows": [["a"], ["a"], ["b"]]},
]}


def test_rows_are_keyed_by_table_and_primary_key_and_keyless_rows_by_content():
    final = copy.deepcopy(POSTGRES)
    final["tables"][0]["rows"] = [[1043, "paid", 12.5], [1042, "shipped", 30]]  # reordered, 30.0 written as 30
    final["tables"][1]["rows"] = [["a"], ["b"], ["c"]]
    got = [(c.id, c.change, c.fields) for c in diff("postgres", POSTGRES, final)]
    assert got == [('log/~["a"]#2', "delete", ()), ('log/~["c"]', "create", ()),
                   ("orders/1042", "update", ("status",))]


def test_a_true_written_over_a_one_is_a_change_although_python_calls_the_tables_equal():
    # A collection that did not change is not extracted again; "did not change" is JSON's equality
    # (true is not 1), not Python's, for which [[1]] == [[True]].
    before = {"tables": [{"name": "flags", "columns": [{"name": "v", "type": "INTEGER"}], "rows": [[1]]}]}
    after = copy.deepcopy(before)
    after["tables"][0]["rows"] = [[True]]
    assert before == after
    assert [(c.id, c.change) for c in diff("postgres", before, after)] == [("flags/~[1]", "delete"),
                                                                           ("flags/~[true]", "create")]


def test_one_extracted_initial_state_judges_every_final_state_as_a_fresh_diff_does():
    finals = [_slack(C05INC2047={"is_archived": True}), _post(SLACK, "C05INC2052", "1767268900.000100", "hi"),
              copy.deepcopy(SLACK), _slack(C05INC2052={"name": "x"})]
    finals[2]["users"].append({"id": "U2NEW", "name": "new"})
    once = Extracted("slack", SLACK)
    for final in finals:
        assert diff("slack", once, final) == diff("slack", SLACK, final)
    assert [c.id for c in diff("slack", once, finals[2])] == ["U2NEW"]


def test_an_update_of_a_field_outside_fields_is_not_allowed():
    final = copy.deepcopy(POSTGRES)
    final["tables"][0]["rows"][0] = [1042, "shipped", 0.0]
    frame = [{"entity": "postgres.row", "ids": ["orders/1042"], "fields": ["status"]},
             {"entity": "postgres.row", "change": ["create", "delete"], "where": {"line": "zzz"}}]
    [v] = frame_violations("postgres", frame, POSTGRES, final)
    assert v.describe() == "postgres.row orders/1042 updated (status, total): frame[0] does not allow total to change"


def test_a_boolean_never_equals_a_number_in_where():
    final = copy.deepcopy(SLACK)
    final["channels"][0]["is_private"] = True
    assert frame_violations("slack", [{"entity": "slack.channel", "where": {"is_private": 1}}], SLACK, final)
    assert not frame_violations("slack", [{"entity": "slack.channel", "where": {"is_private": True}}], SLACK, final)


def test_filesystem_files_are_keyed_by_path():
    initial = {"files": {"README.md": "# hi\n", "a/b.txt": "x"}, "directories": ["a"]}
    final = {"files": {"README.md": "", "a/c.txt": "x"}, "directories": ["a"]}
    got = [c.describe() for c in diff("filesystem", initial, final)]
    assert got == ["filesystem.file README.md updated (content)", "filesystem.file a/b.txt deleted",
                   "filesystem.file a/c.txt created"]


def test_browser_history_is_benign_and_a_submission_is_not():
    page = {"url": "https://intra.example/", "title": "Home"}
    initial = {"pages": [page]}
    read = {"pages": [page], "current_url": "https://intra.example/", "visited": ["https://intra.example/"]}
    assert diff("browser", initial, read) == []
    sent = {**read, "submissions": [{"form": "f", "page": "https://intra.example/", "fields": {}}]}
    assert [c.describe() for c in diff("browser", initial, sent)] == ["browser.submission f#1 created"]


def _task(frame):
    return {"id": "slack-frame-check", "nonce": "9f4c2a7e1b6d3058c7e2a914f0b8d6c3", "server": "slack", "difficulty": "easy", "category": "standard",
            "goal": "Archive #incident-2047.", "initial_state": SLACK, "available_tools": ["archive_channel"],
            "max_steps": 5, "timeout_s": 60, "success": {"slack.channelArchived": {"channel": "C05INC2047"}},
            "reference_solution": [{"tool": "archive_channel", "arguments": {"channel_id": "C05INC2047"}}],
            "wrong_solutions": [{"why": "does nothing", "calls": []}], "frame": frame}


@pytest.mark.parametrize(("allowance", "path", "words"), [
    ({"entity": "slack.thread"}, "$.frame[0].entity", "slack has no entity kind 'thread'"),
    ({"entity": "gmail.message"}, "$.frame[0].entity", "is not an entity of slack"),
    ({"entity": "slack.channel", "where": {"title": "x"}}, "$.frame[0].where.title", "has no field 'title'"),
    ({"entity": "slack.channel", "fields": ["archived"]}, "$.frame[0].fields[0]", "has no field 'archived'"),
    ({"entity": "slack.channel", "change": ["create"], "fields": ["name"]}, "$.frame[0].fields", "allows no update"),
    ({"entity": "slack.channel", "fields": ["topics.x"]}, "$.frame[0].fields[0]", "has no field 'topics'"),
    ({"entity": "slack.channel", "values": {"members": {"add": ["U1"], "eq": []}}}, "$.frame[0].values.members",
     "expected one of"),
    ({"entity": "slack.channel", "values": {"members": {"key": "id"}}}, "$.frame[0].values.members", "give add, remove"),
    ({"entity": "slack.channel", "values": {"name": {"matches": "(?<=x)y"}}}, "$.frame[0].values.name",
     "outside the portable regex subset"),
    ({"entity": "slack.channel", "values": {"name": {"in": "ops"}}}, "$.frame[0].values.name", "a list of values"),
    ({"entity": "slack.channel", "values": {"nickname": {"eq": "x"}}}, "$.frame[0].values.nickname", "has no field"),
    ({"entity": "slack.channel", "change": ["delete"], "values": {"name": {"eq": "x"}}}, "$.frame[0].values",
     "allows only deletes"),
    ({"entity": "slack.channel", "change": ["copy"]}, "$.frame[0].change", "slack.channel has no copies"),
    ({"entity": "slack.channel", "change": ["create"], "parent": "created"}, "$.frame[0].parent", "lives in no other"),
])
def test_a_malformed_frame_is_a_validation_error_naming_the_task_and_path(allowance, path, words):
    _, errors = validate_task(_task([allowance]))
    assert [(e.task, e.path) for e in errors] == [("slack-frame-check", path)]
    assert words in errors[0].message


def test_a_frame_allowance_rejects_unknown_keys_and_a_zero_max():
    _, errors = validate_task(_task([{"entity": "slack.channel", "id": ["C1"], "max": 0}]))
    assert {e.path for e in errors} == {"$.frame[0].id", "$.frame[0].max"}


def test_check_frame_accepts_a_well_formed_frame():
    assert check_frame([{"entity": "slack.channel", "ids": ["C05INC2047"], "fields": ["is_archived"]}], "slack") == []


def test_check_frame_accepts_every_field_level_form():
    frame = [{"entity": "slack.channel", "change": ["create"], "where": {"name": "ops"}, "max": 1,
              "values": {"members": {"add": ["U1"]}, "topic": {"matches": "^On-call"}, "purpose": {"in": ["", "x"]},
                         "is_private": {"eq": True}}},
             {"entity": "slack.message", "change": ["create"], "parent": "created", "values": {"reactions": {"eq": []}}}]
    assert check_frame(frame, "slack") == []
    stripe = [{"entity": "stripe.customer", "ids": ["cus_1"], "fields": ["metadata.seats"],
               "values": {"metadata.seats": {"eq": "12"}, "metadata": {"keys": ["seats"]}}}]
    assert check_frame(stripe, "stripe") == []
    github = [{"entity": "github.file", "change": ["copy", "create"], "parent": "created", "where": {"path": "a.md"}}]
    assert check_frame(github, "github") == []


def test_rename_then_archive_evades_a_guard_by_name_but_not_one_by_id_nor_the_frame():
    import anyio

    from tasks_catalog.gate import replay
    from tasks_catalog.loader import DEV_DIR, load_task_file
    from tasks_catalog.predicates import evaluate
    from tasks_catalog.schema import ToolCall

    task, _ = load_task_file(DEV_DIR / "slack" / "slack-archive-resolved-incident.json")
    calls = [ToolCall(tool="rename_channel", arguments={"channel_id": "incident-2047", "name": "old-2047"}),
             ToolCall(tool="archive_channel", arguments={"channel_id": "CL3NH8FMXT"}),
             ToolCall(tool="archive_channel", arguments={"channel_id": "incident-2041"})]
    done = anyio.run(lambda: replay(task, calls, only_available=False, at_start=lambda state: state.dump()))
    assert done.errors == []
    archived = {"slack.channelArchived": {"channel": "incident-2041"}}
    by_name = {"all": [archived, {"not": {"slack.channelArchived": {"channel": "incident-2047"}}}]}
    by_id = {"all": [archived, {"not": {"slack.channelArchived": {"channel": "CL3NH8FMXT"}}}]}
    assert evaluate(by_name, done.state) is True, "the name no longer exists, so the name guard sees nothing"
    assert evaluate(by_id, done.state) is False
    frame = [{"entity": "slack.channel", "ids": ["CCQRN6M6BG"], "fields": ["is_archived"]}]
    [violation] = frame_violations("slack", frame, done.initial, done.state.dump())
    assert violation.describe() == "slack.channel CL3NH8FMXT updated (is_archived, name): outside the frame (nearest: frame[0], whose ids do not include it)"


# -- diffing only the top-level items that changed ---------------------------------------------------
def _mutations():
    from hypothesis import strategies as st

    return st.lists(st.tuples(st.sampled_from(["edit", "add", "remove", "rename", "clone", "swap", "slash", "drop",
                                               "rekey", "refloat", "insert", "unkey", "column", "truthy"]),
                              st.integers(min_value=0, max_value=50)), min_size=1, max_size=4)


def _mutate_rows(item: dict, op: str, n: int) -> None:
    """Damage under one table that the row-level shortcut must see through: a key turned from a number
    into text or a float (rendered alike in an id), a row inserted in the middle (the rows after it
    move), the primary key dropped (rows keyed by content), a column added, a 1 turned into true."""
    rows, columns = item["rows"], [c["name"] for c in item["columns"]]
    key = columns.index(item["primary_key"][0]) if item["primary_key"] and item["primary_key"][0] in columns else 0
    row = rows[n % len(rows)] if rows else None
    if op == "rekey" and row is not None:  # the next row's key as text: the same id, so numbered
        row[key] = str(rows[(n + 1) % len(rows)][key])
    elif op == "refloat" and row is not None and type(row[key]) is int:
        row[key] = float(row[key])
    elif op == "insert" and row is not None:
        new = copy.deepcopy(row)
        new[key] = 10_000 + n if type(row[key]) is int else f"new-{n}"
        rows.insert(n % len(rows), new)
    elif op == "unkey":
        item["primary_key"] = []
    elif op == "column":
        item["columns"].append({"name": f"c{n}", "type": "VARCHAR", "nullable": True, "default": None})
        for r in rows:
            r.append(None)
    elif op == "truthy" and row is not None:  # the initial state holds 1 there (see the test)
        row[-1] = True if row[-1] == 1 and row[-1] is not True else 1


def _mutate(server: str, state: dict, ops) -> dict:
    """Random damage to the top-level items of a postgres or slack state (tables, channels) and to what
    is under them (rows, messages), including what must turn the shortcut off: a repeated or slashed
    table name / channel id."""
    state = copy.deepcopy(state)
    top, sub, key = ("tables", "rows", "name") if server == "postgres" else ("channels", "messages", "id")
    items = state[top]
    for op, n in ops:
        if not items:
            break
        item = items[n % len(items)]
        if op == "edit" and item[sub]:
            row = item[sub][n % len(item[sub])]
            if server == "postgres":
                row[-1] = f"edited-{n}"
            else:
                row["text"] = f"edited-{n}"
        elif op == "add" and item[sub]:
            item[sub].append(copy.deepcopy(item[sub][0]))  # a duplicate: ids collide inside one item
        elif op == "remove" and item[sub]:
            item[sub].pop(n % len(item[sub]))
        elif op == "rename":
            item[key] = f"{item[key]}-renamed"
        elif op == "clone":
            items.insert(n % len(items), copy.deepcopy(item))  # a repeated name: the shortcut must not apply
        elif op == "swap" and len(items) > 1:
            j = (n + 1) % len(items)
            items[n % len(items)], items[j] = items[j], items[n % len(items)]
        elif op == "slash":
            item[key] = f"a/{item[key]}"
        elif op == "drop":
            items.remove(item)
        elif server == "postgres":
            _mutate_rows(item, op, n)
    return state


def _small_world(server: str) -> dict:
    """The small world of seed 1 of ``server``'s newest generator, dumped."""
    from servers.kit.world import get_generator

    return get_spec(server).state_model.load(
        {"world": {"generator": server, "version": get_generator(server).version, "seed": 1, "size": "small"}}).dump()


def _assert_the_narrow_diff_is_the_full_one(server: str, shared, initial: dict, final: dict, monkeypatch) -> None:
    """The diff from the once-``Extracted`` initial state (which extracts only the changed parents) equals
    the diff that extracts every parent of both states."""
    import tasks_catalog.frames._judge as judge_module

    fast = diff(server, shared, final)
    with monkeypatch.context() as m:
        m.setattr(judge_module, "_changed_parents", lambda *a: None)
        full = diff(server, initial, final)
    assert fast == full


@pytest.mark.parametrize("server", ["postgres", "slack"])
def test_diffing_only_the_changed_tables_and_channels_gives_the_full_diff(server, monkeypatch):
    """Of the tables (channels) that changed, only what changed is extracted: for a table whose primary
    key tells its rows apart, only the rows without a JSON-equal row of the same key in the other state.
    The initial state is ``Extracted`` once and compared with every final state, as the gate does."""
    from hypothesis import given, settings

    from tasks_catalog.frames import Extracted

    initial = _small_world(server)
    if server == "postgres":
        for table in initial["tables"]:
            for row in table["rows"]:
                row[-1] = 1  # "truthy" turns it into true: == in Python, not JSON-equal
    shared = Extracted(server, initial)

    @settings(max_examples=100 if server == "postgres" else 60, deadline=None)
    @given(_mutations())
    def check(ops):
        final = _mutate(server, initial, ops)
        _assert_the_narrow_diff_is_the_full_one(server, shared, initial, final, monkeypatch)

    check()


def _mutate_items(state: dict, top: str, key: str | None, ops) -> dict:  # noqa: C901, PLR0912 - one branch per kind of random damage
    """Random damage to a collection whose items are entities themselves (stripe's charges, a
    filesystem's files and directories), including what must turn the shortcut off: a repeated id, and
    what it must see through: a value turned from a number into a boolean (equal in Python, not in JSON)."""
    state = copy.deepcopy(state)
    items = state[top]
    for op, n in ops:
        if not items:
            break
        if isinstance(items, dict):  # files: path -> content
            paths = list(items)
            path = paths[n % len(paths)]
            if op == "edit":
                items[path] = f"edited-{n}"
            elif op in ("rename", "slash"):
                items[f"{path}-{op}"] = items.pop(path)
            elif op in ("add", "clone"):
                items[f"new-{n}"] = items[path]
            elif op == "swap":  # another key order
                state[top] = items = dict(reversed(list(items.items())))
            elif op == "drop":
                del items[path]
            continue
        i = n % len(items)
        if op == "edit":
            if key is None:
                items[i] = f"edited-{n}"
            else:
                amount = items[i]["amount"]  # 1 becomes True: == in Python, not JSON-equal
                items[i]["amount"] = 1 if amount is True else True if amount == 1 else amount + 1
        elif op == "add":
            items.append(copy.deepcopy(items[i]))  # a repeated id
        elif op in ("rename", "slash"):
            if key is None:
                items[i] = f"{items[i]}-{op}"
            else:
                items[i][key] = f"{items[i][key]}-{op}"
        elif op == "clone":
            items.insert(i, copy.deepcopy(items[i]))
        elif op == "swap" and len(items) > 1:
            j = (n + 1) % len(items)
            items[i], items[j] = items[j], items[i]
        elif op == "drop":
            items.pop(i)
    return state


@pytest.mark.parametrize(("server", "top", "key"), [("stripe", "charges", "id"), ("filesystem", "files", None),
                                                    ("filesystem", "directories", None)])
def test_diffing_only_the_changed_items_of_a_collection_gives_the_full_diff(server, top, key, monkeypatch):
    """The same shortcut one level up: the items of a collection are the entities (a charge by its
    ``id``, a file by its path), so an item unchanged at its position is an unchanged entity. The
    initial state is ``Extracted`` once and compared with every final state, as the gate does."""
    from hypothesis import given, settings

    import tasks_catalog.frames._judge as judge_module
    from tasks_catalog.frames import Extracted

    initial = _small_world(server)
    if key is not None:
        for item in initial[top][::2]:
            item["amount"] = 1  # an edit turns it into True
    shared = Extracted(server, initial)

    @settings(max_examples=60, deadline=None)
    @given(_mutations())
    def check(ops):
        final = _mutate_items(initial, top, key, ops)
        _assert_the_narrow_diff_is_the_full_one(server, shared, initial, final, monkeypatch)
        assert shared.same_as(final) == judge_module.json_equal(initial, final)

    check()


def _as_javascript_sees_it(value):
    """A value JavaScript's equality of parsed JSON would tell apart exactly when this differs."""
    if isinstance(value, dict):
        return ("object", frozenset((k, _as_javascript_sees_it(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("array", tuple(_as_javascript_sees_it(v) for v in value))
    if isinstance(value, bool) or value is None:
        return ("literal", value)
    return ("number", value) if isinstance(value, (int, float)) else ("string", value)


def test_json_equal_tells_apart_exactly_what_javascript_tells_apart():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from tasks_catalog.frames import json_equal

    scalars = (st.none() | st.booleans() | st.sampled_from([0, 1, 0.0, 1.0, -0.0, 2, 2.5]) | st.integers(-3, 3)
               | st.text(max_size=2))
    values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from("abc"), inner, max_size=3), max_leaves=12)

    @settings(max_examples=600)
    @given(values, values)
    def check(a, b):
        assert json_equal(a, b) == (_as_javascript_sees_it(a) == _as_javascript_sees_it(b))
        assert json_equal(a, a) and json_equal(b, b)

    check()
    assert not json_equal({"a": [1, True]}, {"a": [1, 1]}) and json_equal({"a": 1, "b": [2]}, {"b": [2.0], "a": 1.0})


def test_rows_are_matched_by_key_only_where_nothing_else_of_their_place_makes_them():
    """The row shortcut pairs a table by its name and a row by its key wherever they stand: a kind whose
    id or fields use a position, or another field of the table, must not take it."""
    from tasks_catalog.frames._entities import Kind, rows_match_by_key, server_entities

    def row_kind(ident: str, **extra: str) -> Kind:
        return Kind("postgres", "row", ("tables", "rows"), ident, None, None, tuple(extra.items()),
                    ("columns", "primary_key"))

    assert rows_match_by_key(server_entities("postgres").kind("row"))
    assert rows_match_by_key(row_kind("{0.name}/{$key}", table="{0.name}"))
    assert not rows_match_by_key(row_kind("{0.name}/{$key}", at="{0.$n}"))
    assert not rows_match_by_key(row_kind("{0.name}/{$key}", line="{$n}"))
    assert not rows_match_by_key(row_kind("{0.name}/{$key}", owner="{0.owner}"))
    assert not rows_match_by_key(row_kind("{0.$key}/{$key}"))


def _mutate_repos(state: dict, ops) -> dict:
    """Random damage to GitHub repositories, whose entities are told apart by two fields of their
    repository (``owner/name``, the same owner for all): including what must turn the shortcut off (two
    repositories of one name, a name holding the ``:`` that follows it in an id) and a value turned from
    a number into a boolean (equal in Python, not in JSON)."""
    state = copy.deepcopy(state)
    repos = state["repos"]
    for op, n in ops:
        r = repos[n % len(repos)]
        branch = r["branches"][n % len(r["branches"])]
        if op == "edit":
            issue = r["issues"][n % len(r["issues"])]
            issue["number"] = True if issue["number"] == 1 else issue["number"]
            issue["title"] += f" (edited {n})"
        elif op == "add":
            r["branches"].append({**copy.deepcopy(branch), "name": f"copy-{n}", "protected": False})
        elif op == "rename":
            r["name"] = r["name"] + f"-{n}"
        elif op == "slash":
            r["name"] = r["name"] + ":x"
        elif op == "clone":
            repos.append(copy.deepcopy(r))  # two repositories of one name
        elif op == "swap" and len(repos) > 1:
            i, j = n % len(repos), (n + 1) % len(repos)
            repos[i], repos[j] = repos[j], repos[i]
        elif op == "drop" and branch["files"]:
            del branch["files"][sorted(branch["files"])[0]]
    return state


def test_diffing_only_the_changed_repositories_gives_the_full_diff(monkeypatch):
    """GitHub's entities are told apart by their repository's ``owner/name`` (the owner alone repeats), so a
    repository unchanged at its position holds unchanged entities, while the rendered names are distinct
    and free of the ``:`` or ``#`` that follows them in an id."""
    from hypothesis import given, settings

    from tasks_catalog.frames import Extracted

    initial = _small_world("github")
    shared = Extracted("github", initial)

    @settings(max_examples=60, deadline=None)
    @given(_mutations())
    def check(ops):
        _assert_the_narrow_diff_is_the_full_one("github", shared, initial, _mutate_repos(initial, ops), monkeypatch)

    check()


def _mutate_own_ids(state: dict, top: str, sub: str, ops) -> dict:
    """Random damage to entities one level under a top-level item whose ids are their own (a Notion block,
    a Linear comment: ``{id}``), including what must turn the shortcut off: an id repeated in another item
    or in the same one, and what it must see through: an entity moved to another item (the same id there),
    an id turned from text into a number (rendered alike), a 1 turned into true."""
    state = copy.deepcopy(state)
    items = state[top]
    for op, n in ops:
        if not items:
            break
        item = items[n % len(items)]
        other = items[(n + 1) % len(items)]
        under = item[sub]
        entity = under[n % len(under)] if under else None
        if op == "edit" and entity is not None:
            field = "text" if "text" in entity else "body"
            entity[field] = f"edited-{n}"
        elif op == "add" and entity is not None:
            other[sub].append(copy.deepcopy(entity))  # an id repeated in another item
        elif op == "clone" and entity is not None:
            under.insert(0, copy.deepcopy(entity))  # an id repeated in the same item
        elif op == "remove" and entity is not None:
            under.remove(entity)
        elif op == "rename" and entity is not None:  # moved to another item, its id kept
            under.remove(entity)
            other[sub].append(entity)
        elif op == "rekey" and entity is not None:
            entity["id"] = f"new-{n}" if n % 3 else n  # a fresh id, or a number where text stood
        elif op == "truthy" and entity is not None:
            entity["id"] = True if n % 2 else 1
        elif op == "insert":
            items.insert(n % len(items), copy.deepcopy(item))  # the whole item twice: every id repeated
        elif op == "swap" and len(items) > 1:
            j = (n + 1) % len(items)
            items[n % len(items)], items[j] = items[j], items[n % len(items)]
        elif op == "drop":
            items.remove(item)
        elif op == "unkey" and entity is not None:
            entity.pop("id", None)  # rendered as null
        elif op == "column":
            item["title" if "title" in item else "description"] = f"changed-{n}"  # the item alone changes
    return state


@pytest.mark.parametrize(("server", "top", "sub"), [("notion", "pages", "content"), ("linear", "issues", "comments")])
@pytest.mark.parametrize("repeated", [False, True])
def test_diffing_only_the_changed_items_of_entities_with_their_own_ids_gives_the_full_diff(server, top, sub, repeated,
                                                                                         monkeypatch):
    """A Notion block (a Linear comment) has an id of its own (``{id}``, no field of its page goes into it): where
    every such id is distinct in both states, the blocks of a page unchanged at its position are unchanged and
    only the other pages' are extracted; an id repeated anywhere (the initial state's, with ``repeated``, or a
    final state's) numbers them over the whole state, so the whole kind is extracted, as before."""
    from hypothesis import given, settings

    from tasks_catalog.frames import Extracted
    from tasks_catalog.frames._entities import own_id, server_entities

    kind = next(k for k in server_entities(server).kinds if k.path == (top, sub))
    assert own_id(kind)
    initial = _small_world(server)
    with_entities = [item for item in initial[top] if item[sub]]
    assert len(with_entities) >= 2, f"the small {server} world has too few {top} with {sub} for this test"
    if repeated:
        with_entities[-1][sub].append(copy.deepcopy(with_entities[0][sub][0]))
    shared = Extracted(server, initial)
    assert (shared.item_ids(kind) is None) is repeated

    @settings(max_examples=80, deadline=None)
    @given(_mutations())
    def check(ops):
        final = _mutate_own_ids(initial, top, sub, ops)
        _assert_the_narrow_diff_is_the_full_one(server, shared, initial, final, monkeypatch)

    check()


def test_only_ids_made_of_the_entity_alone_are_its_own():
    """``own_id``: one level under a top-level item, an id of the entity's own fields; not one that names the
    item (``item_key`` covers those), a position of the item, or the state above it."""
    from tasks_catalog.frames._entities import Kind, own_id, server_entities

    def kind(ident: str, path: tuple[str, ...] = ("pages", "content"), **extra: str) -> Kind:
        return Kind("notion", "block", path, ident, ("id", "text"), None, tuple(extra.items()))

    assert own_id(server_entities("notion").kind("block"))
    assert own_id(server_entities("linear").kind("comment"))
    assert own_id(kind("{id}", page="{0.id}"))  # an extra field may name the item: it is unchanged with it
    assert own_id(kind("block-{1.id}"))
    assert not own_id(kind("{0.id}/{id}"))
    assert not own_id(kind("{0.$n}/{id}"))
    assert not own_id(kind("{id}", ("pages",)))
    assert not own_id(kind("{id}", ("pages", "content", "children")))
    assert not own_id(server_entities("slack").kind("message"))


def test_a_field_declared_a_set_holds_a_list_in_every_servers_world():
    """``sets`` (entities.json) names fields whose members have no order, which ``where`` compares as sets:
    each must hold a list wherever its kind has entities, or the declaration says nothing."""
    from servers.kit import world
    from tasks_catalog.frames import extract

    checked = 0
    for server, entities in declaration().items():
        kinds = [k for k in entities.kinds if k.sets]
        if not kinds:
            continue
        with get_spec(server).open({"world": {"generator": server, "version": world.get_generator(server).version,
                                              "seed": 1}}) as tools:
            state = tools.snapshot().dump()
        for kind in kinds:
            found = extract(kind, state)
            assert found, f"{kind.qualified}: no entity in {server}'s world to check its sets on"
            for ident, values in found.items():
                for field in kind.sets:
                    assert isinstance(values.get(field), list), f"{kind.qualified} {ident}: {field} is not a list"
                    checked += 1
    assert checked > 100


def test_where_compares_a_set_field_by_its_members_and_any_other_field_as_it_is():
    from tasks_catalog.frames import same_members

    assert same_members(["a", "b"], ["b", "a"]) and same_members([], []) and same_members([1], [1.0])
    assert not same_members(["a", "a"], ["a", "b"]) and not same_members(["a"], ["a", "a"])
    assert not same_members([True], [1]) and not same_members([{"x": 1}], [{"x": 2}])
    initial = {"messages": [], "drafts": [], "labels": [], "address": "me@example.com", "now": "2026-01-01T00:00:00Z"}
    final = {**initial, "drafts": [{"id": "d1", "to": ["a@x.example"], "cc": ["c@x.example", "b@x.example"],
                                    "subject": "Hi", "body": "Yes", "thread_id": None}]}
    frame = [{"entity": "gmail.draft", "change": ["create"], "max": 1,
              "where": {"cc": ["b@x.example", "c@x.example"], "subject": "Hi"}}]
    assert frame_violations("gmail", frame, initial, final) == []
    frame[0]["where"]["subject"] = "hi"  # not a set: as it is
    assert [v.describe() for v in frame_violations("gmail", frame, initial, final)] == [
        "gmail.draft d1 created: outside the frame (nearest: frame[0], whose where.subject it does not match)"]


def test_a_probe_edit_that_only_reorders_a_set_field_is_no_change_as_in_the_full_diff():
    """``with_entity`` (a probe's state edit judged as the reference's diff with one entity made again) agrees
    with ``diff``: an entity whose set field only changed its order is no change, whatever the reference did
    to it; with a member fewer, it is an update of that field."""
    from tasks_catalog.frames import with_entity

    message = {"id": "m1", "thread_id": "t1", "from": "a@x.example", "to": ["me@example.com"], "cc": [],
               "subject": "Hi", "body": "Yes", "date": "2026-01-01T00:00:00Z", "label_ids": ["INBOX", "UNREAD"]}
    initial = {"messages": [message], "drafts": [], "labels": [], "address": "me@example.com",
               "now": "2026-01-01T00:00:00Z"}
    kind = next(k for k in server_entities("gmail").kinds if k.name == "message")
    before = Extracted("gmail", initial)
    ref_final = {**initial, "messages": [{**message, "label_ids": ["INBOX"]}]}
    (change,) = diff("gmail", before, ref_final)
    assert change.fields == ("label_ids",)
    for labels, units in ((["UNREAD", "INBOX"], None), (["INBOX"], ("label_ids",))):
        edited = {**initial, "messages": [{**message, "label_ids": labels}]}
        full = diff("gmail", before, edited)
        fields = Extracted("gmail", edited).of(kind)["m1"]
        assert with_entity(kind, [change], change, fields, before) == full
        assert [c.fields for c in full] == ([] if units is None else [units])


def test_a_declaration_whose_sets_name_a_field_the_kind_lacks_is_refused(tmp_path, monkeypatch):
    import json

    import tasks_catalog.frames._entities as entities

    raw = json.loads(entities.DECLARATION_PATH.read_text())
    raw["servers"]["gmail"]["kinds"]["draft"]["sets"] = ["to", "bcc"]
    path = tmp_path / "entities.json"
    path.write_text(json.dumps(raw))
    monkeypatch.setattr(entities, "DECLARATION_PATH", path)
    entities.declaration.cache_clear()
    try:
        with pytest.raises(entities.DeclarationError, match=r"gmail\.draft: sets names a field the kind does not have"):
            entities.declaration()
    finally:
        entities.declaration.cache_clear()
