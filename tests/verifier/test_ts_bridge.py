"""The Python bridge to the TypeScript verifier (tasks_catalog/ts_verifier.py)."""

from __future__ import annotations

import copy
import json
import marshal
import os
import subprocess
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tasks_catalog import ts_verifier

STATE = {"files": {"a.txt": "release 4.19\n"}, "directories": []}


def test_evaluate_many_answers_booleans_in_order(ts_cli):
    cases = [("filesystem", STATE, {"filesystem.fileContentMatches": {"path": "a.txt", "pattern": r"4\.19$"}}),
             ("filesystem", STATE, {"filesystem.fileExists": {"path": "b.txt"}})]
    assert ts_verifier.evaluate_many(cases) == [True, False]


def test_a_malformed_predicate_has_no_verdict_and_says_which_json_path(ts_cli):
    (answer,) = ts_verifier.evaluate_many([("filesystem", STATE, {"all": [{"filesystem.fileExists": {"path": 1}}]})])
    assert isinstance(answer, ts_verifier.NoVerdict)
    assert '$.all[0]["filesystem.fileExists"].path' in str(answer)
    with pytest.raises(TypeError):
        bool(answer)


def test_sql_outside_the_subset_has_no_verdict_rather_than_a_guess(ts_cli):
    state = {"tables": [{"name": "t", "columns": [{"name": "id", "type": "INTEGER", "nullable": True, "default": None}],
                         "primary_key": [], "rows": [[1]]}]}
    pred = {"postgres.queryReturnsCount": {"query": "WITH x AS (SELECT 1) SELECT * FROM x", "count": 1}}
    (answer,) = ts_verifier.evaluate_many([("postgres", state, pred)])
    assert isinstance(answer, ts_verifier.NoVerdict) and "outside the SQL subset" in answer.error


def test_malformed_input_is_an_error_with_the_cli_message(ts_cli):
    proc = subprocess.run(["node", str(ts_cli)], input="{}", capture_output=True, text=True)
    assert proc.returncode == 2 and "JSON array" in proc.stderr
    with pytest.raises(ts_verifier.TypeScriptVerifierError, match="unknown server"):
        ts_verifier.run([("nope", {}, {})])


def test_the_typescript_unit_tests_pass(ts_cli):
    proc = subprocess.run(["node", "--test", str(ts_cli.parent / "test")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]


def test_a_cli_that_exits_0_without_json_is_an_error_that_says_so(tmp_path, monkeypatch):
    """What a run against a dist/ being rebuilt saw: an empty cli.js exits 0 and writes nothing."""
    empty = tmp_path / "cli.js"
    empty.write_text("")
    monkeypatch.setattr(ts_verifier, "CLI", empty)
    with pytest.raises(ts_verifier.TypeScriptVerifierError, match="no JSON"):
        ts_verifier.evaluate_many([("filesystem", STATE, {"filesystem.fileExists": {"path": "a.txt"}})])
    with pytest.raises(ts_verifier.TypeScriptVerifierError, match="no JSON"):
        ts_verifier.frame_violations_many([("filesystem", STATE, STATE, [])])
    with pytest.raises(ts_verifier.TypeScriptVerifierError, match="no JSON"):
        ts_verifier.judge_many([], [("filesystem", STATE, STATE, [])])


@pytest.fixture
def sent(monkeypatch):
    """What each call of the CLI, or request of the served verifier (``judge_many``'s), was given, in order."""
    inputs = []
    real_run = subprocess.run
    real_ask = ts_verifier.Served.ask

    def spy(argv, **kwargs):
        inputs.append(kwargs["input"])
        return real_run(argv, **kwargs)

    def ask(self, payload):
        inputs.append(payload)
        return real_ask(self, payload)

    monkeypatch.setattr(ts_verifier.subprocess, "run", spy)
    monkeypatch.setattr(ts_verifier.Served, "ask", ask)
    return inputs


def test_judge_many_answers_as_the_two_calls_do_and_sends_each_state_once(ts_cli, sent):
    emptied = {"files": {}, "directories": []}
    touched = {"files": {"a.txt": "release 4.20\n"}, "directories": []}
    exists = {"filesystem.fileExists": {"path": "a.txt"}}
    verdict_cases = [("filesystem", s, exists) for s in (STATE, emptied, touched)]
    frame = [{"entity": "filesystem.file", "ids": ["a.txt"], "change": ["update"]}]
    frame_cases = [("filesystem", STATE, final, frame) for final in (emptied, touched)]
    verdicts, frames = ts_verifier.judge_many(verdict_cases, frame_cases)
    assert len(sent) == 1 and sent[0].count('"release 4.19\\n"') == 1 and sent[0].count('"release 4.20\\n"') == 1
    assert verdicts == ts_verifier.evaluate_many(verdict_cases) == [True, False, True]
    assert frames == ts_verifier.frame_violations_many(frame_cases)
    assert frames[0][0]["id"] == "a.txt" and frames[0][0]["change"] == "delete" and frames[1] == []
    # equal states that are different objects: the first is sent whole, the others as no change to it
    again = ts_verifier.judge_many([("filesystem", dict(STATE), exists)], [("filesystem", dict(STATE), STATE, [])])
    assert again == ([True], [[]]) and sent[-1].count('"release 4.19\\n"') == 1
    assert json.loads(sent[-1])["derived"] == [{"base": 0, "ops": []}, {"base": 0, "ops": []}]


# -- states sent as their changes to another (judge_many's "derived", src/joint.ts) ------------------
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from([0.0, -0.0, 1.0, 2.5]) | st.sampled_from(["", "a", "b"]),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.sampled_from(["a", "b", "c", "__proto__"]), inner, max_size=4),
    max_leaves=25)


def _apply(base, ops):
    """What src/joint.ts's applyOps does, in Python: the reference the ops are checked against."""
    state = copy.deepcopy(base)
    for op in ops:
        path, node = op[0], state
        for key in path[:-1]:
            node = node[key]
        if len(op) == 2:
            node[path[-1]] = op[1]
        else:
            start, count, items = op[1:]
            node[path[-1]][start:start + count] = items
    return state


def _mutated(value, data):
    """``value`` with a few random members replaced, removed or added (as a run changes a state)."""
    value = copy.deepcopy(value)
    for _ in range(data.draw(st.integers(0, 3))):
        node = value
        while isinstance(node, (dict, list)) and node and data.draw(st.booleans()):
            child = data.draw(st.sampled_from(list(node) if isinstance(node, dict) else range(len(node))))
            if not isinstance(node[child], (dict, list)):
                break
            node = node[child]
        if isinstance(node, dict) and node:
            key = data.draw(st.sampled_from(list(node)))
            node[key] = data.draw(JSON) if data.draw(st.booleans()) else not node[key]
        elif isinstance(node, list):
            at = data.draw(st.integers(0, len(node)))
            if node and data.draw(st.booleans()):
                del node[min(at, len(node) - 1)]
            else:
                node.insert(at, data.draw(JSON))
    return value


@settings(max_examples=300, deadline=None)
@given(base=st.dictionaries(st.sampled_from(["files", "rows", "meta", "n"]), JSON, min_size=1, max_size=4),
       data=st.data())
def test_the_ops_of_a_derived_state_rebuild_it_exactly_and_leave_its_base_alone(base, data):
    new = _mutated(base, data)
    kept = marshal.dumps(base, 2)  # version 2: no back-references, so the same data gives the same bytes
    ops = ts_verifier.state_ops(base, new)
    assert marshal.dumps(base, 2) == kept
    if ops is not None:  # None: sent whole
        assert marshal.dumps(_apply(base, ops), 2) == marshal.dumps(new, 2)  # True is not 1, -0.0 is not 0.0


@settings(max_examples=300, deadline=None)
@given(base=st.dictionaries(st.sampled_from(["files", "rows", "meta", "n"]), JSON, min_size=1, max_size=4),
       data=st.data())
def test_a_final_state_shares_with_its_initial_state_exactly_what_did_not_change(base, data):
    """``frames.share_unchanged``, which the gate applies to every final dump (``Replay.dump_sharing``) before
    its frame judge and this payload compare it with the initial one: the shared state is the same JSON as
    the fresh dump, byte for byte (True is not 1, -0.0 is not 0.0, key order kept: so a part of the initial
    state stands only where it is the same JSON), the initial state is left alone, an unchanged collection
    is the initial state's own, and the ops sent for the shared state rebuild the fresh dump."""
    from tasks_catalog.frames import share_unchanged

    new = _mutated(base, data)
    fresh = marshal.dumps(new, 2)
    kept = marshal.dumps(base, 2)
    shared = share_unchanged(base, copy.deepcopy(new))
    assert marshal.dumps(shared, 2) == fresh and marshal.dumps(base, 2) == kept
    assert (shared is base) == (fresh == kept)
    for key in shared:
        if key in base and marshal.dumps(base[key], 2) == marshal.dumps(new[key], 2):
            assert shared[key] is base[key]  # an unchanged collection is the initial state's own
    ops = ts_verifier.state_ops(base, shared)
    if ops is not None:
        assert marshal.dumps(_apply(base, ops), 2) == fresh


def test_a_state_nested_deeper_than_python_recurses_is_sent_whole():
    def deep(leaf):
        value = [leaf]
        for _ in range(5000):
            value = [value]
        return value

    assert ts_verifier.state_ops({"a": deep(1), "b": 1}, {"a": deep(2), "b": 1}) is None
    assert ts_verifier.state_ops({"a": [1], "b": 1}, {"a": [2], "b": 1}) == [[["a"], [2]]]


def test_derived_states_are_judged_exactly_as_whole_ones(ts_cli, sent):
    """A world's state and runs' changes to it (an update, an insert, a delete, True for 1 and -0.0 for 0.0
    deep inside): the one call, most states sent as changes, answers exactly as whole states do."""
    from servers import get_spec
    from servers.kit.world import get_generator

    world = get_spec("github").state_model.model_validate(get_generator("github").generate(1)).dump()
    issues = world["repos"][0]["issues"]
    opened = next(i for i, issue in enumerate(issues) if issue["state"] == "open" and i not in (2, 5, 7))
    finals = []
    for change in range(4):
        final = copy.deepcopy(world)
        mine = final["repos"][0]["issues"]
        if change == 0:
            mine[opened]["state"] = "closed"
        elif change == 1:
            mine.insert(5, {**copy.deepcopy(mine[5]), "number": 10_000, "title": "new"})
        elif change == 2:
            del mine[7]
        else:
            mine[2]["labels"] = [True, -0.0]
            issues[2]["labels"] = [1, 0.0]  # the initial state differs from the final only in kinds
        finals.append(final)
    frame = [{"entity": "github.issue", "change": ["update"]}]
    repo = f"{world['repos'][0]['owner']}/{world['repos'][0]['name']}"
    pred = {"github.issueClosed": {"repo": repo, "issue": issues[opened]["number"]}}
    verdict_cases = [("github", s, pred) for s in (world, *finals)]
    # the last final is judged with an empty frame: only True-for-1 tells it from the initial state
    frame_cases = [("github", world, f, frame if i < 3 else []) for i, f in enumerate(finals)]
    verdicts, frames = ts_verifier.judge_many(verdict_cases, frame_cases)
    assert len(json.loads(sent[0])["states"]) == 1 and len(json.loads(sent[0])["derived"]) == 4
    assert verdicts == ts_verifier.evaluate_many(verdict_cases) == [False, True, False, False, False]
    assert frames == ts_verifier.frame_violations_many(frame_cases)
    assert frames[0] == [] and {v["change"] for v in frames[1]} == {"create"} and frames[2][0]["change"] == "delete"
    assert [(v["change"], v["fields"]) for v in frames[3]] == [("update", ["labels"])]


def test_judge_many_sends_a_cross_server_cases_states_server_by_server_and_answers_as_the_two_calls_do(ts_cli, sent):
    """A cross-server case's states go out per server, each once, a final one as its changes to its
    server's initial state; its verdicts and frame violations are what the separate calls give."""
    slack = {"viewer": "U1", "users": [{"id": "U1", "name": "amara"}],
             "channels": [{"id": "C1", "name": "release-train", "members": ["U1"], "messages": []}]}
    posted = copy.deepcopy(slack)
    posted["channels"][0]["messages"].append({"ts": "1.000100", "user": "U1", "text": "4.19.0 is out"})
    initial = {"filesystem": STATE, "slack": slack}
    final = {"filesystem": {"files": {"a.txt": "release 4.20\n"}, "directories": []}, "slack": posted}
    servers = ("filesystem", "slack")
    pred = {"all": [{"filesystem.fileContentMatches": {"path": "a.txt", "pattern": r"4\.20"}},
                    {"slack.messagePosted": {"channel": "release-train", "pattern": r"4\.19\.0"}}]}
    frame = [{"entity": "slack.message", "change": ["create"], "where": {"channel": "C1"}, "max": 1}]
    verdict_cases = [(servers, initial, pred), (servers, final, pred), ("slack", posted, pred["all"][1])]
    frame_cases = [(servers, initial, final, frame)]
    verdicts, frames = ts_verifier.judge_many(verdict_cases, frame_cases)
    payload = json.loads(sent[0])
    assert len(payload["states"]) == 2 and len(payload["derived"]) == 2  # each server's initial whole, its final as ops
    assert payload["verdicts"][0]["servers"] == ["filesystem", "slack"] and set(payload["verdicts"][0]["state"]) == set(servers)
    assert verdicts == ts_verifier.evaluate_many(verdict_cases) == [False, True, True]
    assert frames == ts_verifier.frame_violations_many(frame_cases)
    assert [(v["entity"], v["change"]) for v in frames[0]] == [("filesystem.file", "update")]


# -- the served verifier (node dist/cli.js --serve, ts_verifier.Served) -----------------------------
def _judge_inputs() -> list[str]:
    """``--judge`` inputs: plain, explained, derived, cross-server, and one the CLI refuses."""
    touched = {"files": {"a.txt": "release 4.20\n"}, "directories": []}
    exists = {"filesystem.fileExists": {"path": "a.txt"}}
    frame = [{"entity": "filesystem.file", "ids": ["a.txt"], "change": ["update"]}]
    slack = {"viewer": "U1", "users": [{"id": "U1", "name": "amara"}],
             "channels": [{"id": "C1", "name": "release-train", "members": ["U1"], "messages": []}]}
    return [
        json.dumps({"states": [STATE, touched], "verdicts": [{"server": "filesystem", "state": 1, "predicate": exists}],
                    "frames": [{"server": "filesystem", "initial": 0, "final": 1, "frame": frame}]}),
        json.dumps({"states": [STATE], "derived": [{"base": 0, "ops": [[["files"], {}]]}], "explain": True,
                    "verdicts": [{"server": "filesystem", "state": 1, "predicate": exists}],
                    "frames": [{"server": "filesystem", "initial": 0, "final": 1, "frame": []}]}),
        json.dumps({"states": [STATE, slack], "frames": [],
                    "verdicts": [{"servers": ["filesystem", "slack"], "state": {"filesystem": 0, "slack": 1},
                                  "predicate": {"all": [exists, {"slack.channelExists": {"channel": "release-train"}}]}}]}),
    ]


def test_the_served_verifier_answers_each_request_as_the_one_shot_cli_does_from_one_process(ts_cli):
    served = ts_verifier.Served()
    try:
        for payload in _judge_inputs() * 2:
            assert served.ask(payload) == ts_verifier._call(["--judge"], payload)
        with pytest.raises(ts_verifier.TypeScriptVerifierError, match="input must be an object"):
            served.ask("{}")  # what the CLI exits 2 on: an error, and the process serves on
        with pytest.raises(ts_verifier.TypeScriptVerifierError, match="refused the input: .*JSON"):
            served.ask("[1, 2")
        assert served.ask(_judge_inputs()[0]) == ts_verifier._call(["--judge"], _judge_inputs()[0])
        assert served.starts == 1
    finally:
        served.close()


def test_judge_many_asks_the_served_verifier_and_answers_as_without_it(ts_cli, monkeypatch):
    verdict_cases = [("filesystem", STATE, {"filesystem.fileExists": {"path": "a.txt"}}),
                     ("filesystem", {"files": {}, "directories": []}, {"filesystem.fileExists": {"path": "a.txt"}})]
    frame_cases = [("filesystem", STATE, {"files": {}, "directories": []}, [])]
    served = ts_verifier.served()
    before = served.starts
    with ts_verifier.serving():
        with_served = [ts_verifier.judge_many(verdict_cases, frame_cases, explain=True) for _ in range(3)]
        assert served.starts == before + 1 and served._proc is not None and served._proc.poll() is None
        proc = served._proc
    assert served._proc is None and proc.returncode == 0  # stopped when the block ends
    one_shot = ts_verifier.judge_many(verdict_cases, frame_cases, explain=True)  # outside serving(): the CLI
    assert served.starts == before + 1
    monkeypatch.setattr(ts_verifier, "SERVE", False)
    with ts_verifier.serving():
        assert ts_verifier.judge_many(verdict_cases, frame_cases, explain=True) == one_shot
    assert served.starts == before + 1
    assert with_served == [ts_verifier.judge_many(verdict_cases, frame_cases, explain=True)] * 3
    assert with_served[0][0][0] is True and isinstance(with_served[0][0][1], ts_verifier.Refuted)


def test_a_served_process_that_dies_is_started_again_and_the_request_answered(ts_cli):
    served = ts_verifier.Served()
    payload = _judge_inputs()[0]
    try:
        answer = served.ask(payload)
        assert served._proc is not None
        served._proc.kill()  # node dies between requests
        served._proc.wait()
        assert served.ask(payload) == answer and served.starts == 2
    finally:
        served.close()


def _script(tmp_path, name: str, body: str):
    path = tmp_path / name
    path.write_text(body)
    return path


def test_a_process_that_dies_on_a_request_is_replaced_once_and_the_request_asked_again(ts_cli, tmp_path):
    """Node dying mid-request (here the first process, on its first request): a fresh one answers it."""
    marker = tmp_path / "died-once"
    flaky = _script(tmp_path, "flaky.js", f"""
        const fs = require("fs");
        if (!fs.existsSync({json.dumps(str(marker))})) {{
          process.stdin.once("data", () => {{ fs.writeFileSync({json.dumps(str(marker))}, ""); process.exit(7); }});
        }} else {{
          require({json.dumps(str(ts_cli))});
        }}
    """)
    served = ts_verifier.Served(flaky)
    try:
        payload = _judge_inputs()[1]
        assert served.ask(payload) == ts_verifier._call(["--judge"], payload)
        assert served.starts == 2 and marker.exists()
    finally:
        served.close()


def test_a_process_that_dies_on_every_request_is_a_clear_error_and_judge_many_falls_back_to_the_cli(tmp_path, monkeypatch):
    crashing = _script(tmp_path, "cli.js", 'process.stdin.once("data", () => { process.stderr.write("boom: out of luck\\n"); process.exit(3); });\n')
    served = ts_verifier.Served(crashing)
    with pytest.raises(ts_verifier.ServedUnavailable, match=r"died twice on a request: exit 3: boom: out of luck"):
        served.ask(_judge_inputs()[0])
    assert served.starts == 2 and served._proc is None
    # judge_many then asks the one-shot CLI, which fails the same way and says so
    monkeypatch.setattr(ts_verifier, "CLI", crashing)
    monkeypatch.setattr(ts_verifier, "_SERVED", None)
    with ts_verifier.serving(), pytest.raises(ts_verifier.TypeScriptVerifierError,
                                              match=r"failed \(exit 3\): boom: out of luck"):
        ts_verifier.judge_many([("filesystem", STATE, {"filesystem.fileExists": {"path": "a.txt"}})], [])
    assert ts_verifier.served().starts == 2  # it was tried, twice, before the CLI


def test_a_served_request_that_takes_too_long_stops_the_process_and_says_so(tmp_path, monkeypatch):
    silent = _script(tmp_path, "silent.js", 'process.stdin.on("data", () => {});\n')
    monkeypatch.setattr(ts_verifier, "SERVE_TIMEOUT_S", 1.0)
    served = ts_verifier.Served(silent)
    with pytest.raises(ts_verifier.TypeScriptVerifierError, match="took more than 1 s"):
        served.ask(_judge_inputs()[0])
    assert served._proc is None


def test_a_served_process_that_stops_reading_its_input_is_stopped_not_waited_on_for_ever(tmp_path, monkeypatch):
    """A request is larger than a pipe holds (64 KiB): writing it to a process that never reads would block
    for ever without the write's own deadline."""
    deaf = _script(tmp_path, "deaf.js", "setInterval(() => {}, 1000);\n")  # never reads stdin, never exits
    monkeypatch.setattr(ts_verifier, "SERVE_TIMEOUT_S", 1.0)
    served = ts_verifier.Served(deaf)
    big = json.dumps({"filler": "x" * (4 << 20)})  # 4 MiB on one line
    started = time.monotonic()
    with pytest.raises(ts_verifier.TypeScriptVerifierError, match="took more than 1 s to read a request"):
        served.ask(big)
    assert served._proc is None and time.monotonic() - started < 30


def test_a_rebuilt_cli_is_served_by_a_new_process(ts_cli, tmp_path):
    """A ``dist/`` rebuilt under a running gate: the next request goes to a process of the new build."""
    cli = _script(tmp_path, "cli.js", f"require({json.dumps(str(ts_cli))});\n")
    served = ts_verifier.Served(cli)
    try:
        payload = _judge_inputs()[0]
        answer = served.ask(payload)
        assert served.ask(payload) == answer and served.starts == 1
        stat = cli.stat()
        os.utime(cli, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
        assert served.ask(payload) == answer and served.starts == 2
    finally:
        served.close()


def test_a_changed_entity_declaration_is_served_by_a_new_process(ts_cli, tmp_path, monkeypatch):
    """The frame judge reads tasks_catalog/frames/entities.json once, when node starts: a declaration
    changed under a running gate gets a process that reads it."""
    declaration = tmp_path / "entities.json"
    declaration.write_text(ts_verifier.ENTITIES.read_text())
    monkeypatch.setattr(ts_verifier, "ENTITIES", declaration)
    served = ts_verifier.Served(ts_cli)
    try:
        payload = _judge_inputs()[0]
        answer = served.ask(payload)
        assert served.ask(payload) == answer and served.starts == 1
        declaration.write_text(declaration.read_text() + "\n")
        assert served.ask(payload) == answer and served.starts == 2
    finally:
        served.close()
