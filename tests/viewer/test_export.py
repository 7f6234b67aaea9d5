"""``mcpbench export``: real runs out as ATIF trajectories, checked against the ATIF v1.4 JSON Schema the
repository writes from Harbor's RFC (mcpbench/viewer/atif-v1.4.schema.json), and as JSONL and Parquet
records; a private month's run exports ids and counts only."""

from __future__ import annotations

import copy
import json
from datetime import timedelta

import jsonschema
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from mcpbench.cli import main
from mcpbench.viewer.trajectories import atif_schema
from runstore.records import TurnRecord
from runstore.store import open_store
from tests.viewer.conftest import PRIVATE_RUN, SECRET_TEXT, failing_run
from tests.warehouse.conftest import make_calls, make_run, ok

VALIDATOR = jsonschema.Draft202012Validator(atif_schema(), format_checker=jsonschema.FormatChecker())


def _export(store, out, *args: str) -> None:
    result = CliRunner().invoke(main, ["export", "--store", str(store), "--out", str(out), *args])
    assert result.exit_code == 0, result.output


def _check(doc: dict) -> None:
    """Valid ATIF: the schema, and every observation answers a tool call of its own step."""
    errors = sorted(VALIDATOR.iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]
    assert [s["step_id"] for s in doc["steps"]] == list(range(1, len(doc["steps"]) + 1))
    for step in doc["steps"]:
        ids = [c["tool_call_id"] for c in step.get("tool_calls", [])]
        assert [r["source_call_id"] for r in step.get("observation", {}).get("results", [])] == ids


def test_real_runs_export_as_atif_trajectories_that_the_schema_accepts(landed, tmp_path):
    _export(landed, tmp_path / "out", "--submission", "sub-random", "--submission", "sub-oracle")
    files = sorted((tmp_path / "out" / "atif").glob("*.json"))
    runs = [r for r in open_store(str(landed)).read_runs().to_pylist() if r["submission_id"] in ("sub-random", "sub-oracle")]
    assert {f.stem for f in files} == {r["run_id"] for r in runs} and len(files) == 5
    calls = open_store(str(landed)).read_calls().to_pylist()
    for f in files:
        doc = json.loads(f.read_text())
        _check(doc)
        mine = sorted((c for c in calls if c["run_id"] == doc["session_id"]), key=lambda c: c["seq"])
        made = [t for s in doc["steps"] for t in s.get("tool_calls", [])]
        assert [(t["function_name"], t["tool_call_id"]) for t in made] == [(c["tool"], f"call-{c['seq']}") for c in mine]
    run = failing_run(landed)
    doc = json.loads((tmp_path / "out" / "atif" / f"{run['run_id']}.json").read_text())
    assert doc["steps"][0] == {"step_id": 1, "source": "user", "timestamp": doc["steps"][0]["timestamp"],
                               "message": run["goal"]}  # published goals
    assert doc["agent"]["name"] == "rnd" and doc["agent"]["version"] == "1"  # from --label rnd@1
    assert doc["extra"]["mcpbench"]["end_reason"] == "predicate_false"
    assert doc["extra"]["mcpbench"]["explanation"] == json.loads(run["explanation"])


def test_the_schema_refuses_what_is_not_atif(landed, tmp_path):
    """The check can fail: a trajectory without its session id, a tool call whose arguments are not an
    object, a step from an unknown source, a user step with tool calls."""
    _export(landed, tmp_path / "out", "--run", failing_run(landed)["run_id"])
    (path,) = (tmp_path / "out" / "atif").glob("*.json")
    good = json.loads(path.read_text())
    _check(good)
    broken = []
    for change in ("session", "arguments", "source", "user-tools"):
        doc = copy.deepcopy(good)
        if change == "session":
            del doc["session_id"]
        elif change == "arguments":
            doc["steps"][1]["tool_calls"][0]["arguments"] = "{}"
        elif change == "source":
            doc["steps"][1]["source"] = "tool"
        else:
            doc["steps"][0]["tool_calls"] = doc["steps"][1]["tool_calls"]
        broken.append(VALIDATOR.is_valid(doc))
    assert broken == [False] * 4


def test_model_turns_become_agent_steps_holding_the_calls_that_followed_them(tmp_path):
    store = open_store(str(tmp_path / "store"))
    run = make_run("sub-m--t", submission_id="sub-m", split="dev", month="2026-05", tool_calls=4, status="failed",
                   model_requests=3, model_prompt_tokens=600, model_completion_tokens=60, model_cost_nanousd=1_500_000)
    calls = make_calls(run, [ok("list_channels"), ok("get_channel_history"), ok("post_message"), ok("archive_channel")])

    def turn(seq: int, calls_before: int, text: str) -> TurnRecord:
        return TurnRecord(run_id=run.run_id, submission_id=run.submission_id, task_id=run.task_id, seq=seq,
                          ts=run.started_at + timedelta(milliseconds=100 * calls_before + 50), calls_before=calls_before,
                          model="m-1", status="ok", finish_reason="tool_calls", prompt_tokens=200, completion_tokens=20,
                          tokens_estimated=False, latency_ms=80.0, tool_calls=1, text=text, text_truncated=False,
                          text_cap=16384)

    # one call before the model was asked anything (a warm-up), then three turns: after call 1, 3 and 4
    store.land_run(run, calls, [turn(1, 1, "let me look"), turn(2, 3, "posting now"), turn(3, 4, "done")])
    _export(tmp_path / "store", tmp_path / "out")
    doc = json.loads((tmp_path / "out" / "atif" / "sub-m--t.json").read_text())
    _check(doc)
    steps = [(s["source"], s["message"], [t["function_name"] for t in s.get("tool_calls", [])]) for s in doc["steps"]]
    assert steps == [("user", "[redacted]", []), ("agent", "", ["list_channels"]),
                     ("agent", "let me look", ["get_channel_history", "post_message"]),
                     ("agent", "posting now", ["archive_channel"]), ("agent", "done", [])]
    assert doc["steps"][2]["metrics"] == {"prompt_tokens": 200, "completion_tokens": 20}
    assert doc["agent"]["model_name"] == "m-1"
    assert doc["final_metrics"]["total_prompt_tokens"] == 600 and doc["final_metrics"]["total_cost_usd"] == 0.0015


def test_records_export_as_jsonl_and_parquet(landed, tmp_path):
    _export(landed, tmp_path / "out", "--split", "dev", "--format", "jsonl", "--format", "parquet")
    store = open_store(str(landed))
    dev = {r["run_id"] for r in store.read_runs().to_pylist() if r["split"] == "dev"}
    calls = [c for c in store.read_calls().to_pylist() if c["run_id"] in dev]
    jsonl = [json.loads(line) for line in (tmp_path / "out" / "runs.jsonl").read_text().splitlines()]
    assert {r["run_id"] for r in jsonl} == dev
    assert pq.read_table(tmp_path / "out" / "calls.parquet").num_rows == len(calls) > 10_000  # the long run too
    assert len((tmp_path / "out" / "calls.jsonl").read_text().splitlines()) == len(calls)
    assert not (tmp_path / "out" / "atif").exists()  # only what was asked for


def test_a_private_months_run_exports_ids_and_counts_only(landed, tmp_path):
    _export(landed, tmp_path / "out", "--run", PRIVATE_RUN, "--format", "atif", "--format", "jsonl",
            "--format", "parquet")
    everything = b"".join(p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file())
    for text in (SECRET_TEXT, "a secret expectation", "a secret finding", "slack.channelArchived"):
        assert text.encode() not in everything, text
    doc = json.loads((tmp_path / "out" / "atif" / f"{PRIVATE_RUN}.json").read_text())
    _check(doc)
    assert doc["extra"]["mcpbench"]["explanation"] == {"clauses": [{"clause": "$.all[0]"}], "clauses_omitted": 0,
                                                       "frame": [], "frame_omitted": 0}
    assert [t["function_name"] for s in doc["steps"] for t in s.get("tool_calls", [])] == ["archive_channel"]


@pytest.mark.parametrize(("args", "says"), [(["--split", "someday"], "someday"),
                                            (["--run", "no-such-run"], "no run 'no-such-run'"),
                                            (["--submission", "nobody"], "no run in")])
def test_export_says_what_is_wrong_with_its_filters(landed, tmp_path, args, says):
    result = CliRunner().invoke(main, ["export", "--store", str(landed), "--out", str(tmp_path / "out"), *args])
    assert result.exit_code == 1 and says in result.output, result.output
