"""Runs out of the store: as ATIF trajectories (Harbor's Agent Trajectory Interchange Format, v1.4), and
as their records in JSONL or Parquet (``mcpbench export``).

A run becomes one ATIF trajectory (``session_id`` = the run id): a ``user`` step with the goal (where
published; ``[redacted]`` otherwise), then ``agent`` steps. Where the model gateway metered the agent's
model turns, each turn is a step (its text, model, tokens) holding the MCP calls that came after it and
before the next turn (``calls_before``), each call a tool call with its result (or error) as the
observation; calls made before any turn, or by an agent that used no model through the gateway, are a
step each. How the run ended, its explanation and its counts go in the trajectory's ``extra``.

A private month's run exports ids and counts only: tool names (``[unlisted]`` for a tool not listed),
sizes, kinds and latencies, the clause ids of its explanation; no goal, arguments, results, error text,
model text or stderr, whatever a record held.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

from mcpbench.viewer.data import Trace
from runstore.records import REDACTED, Explanation
from runstore.split import Split

ATIF_VERSION = "ATIF-v1.4"
#: The JSON Schema of an ATIF v1.4 trajectory, written from the RFC's tables (docs/viewer.md).
SCHEMA_PATH = Path(__file__).with_name("atif-v1.4.schema.json")
FORMATS = ("atif", "jsonl", "parquet")
KINDS = ("runs", "calls", "turns")


@cache
def atif_schema() -> dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def select_runs(trace: Trace, *, submissions: Iterable[str] = (), splits: Iterable[str] = (),
                run_ids: Iterable[str] = ()) -> list[str]:
    """The ids of the runs that match every kind of filter given (any of the values of each), in run id
    order; every run when none is given. A split is named as ``mcpbench run`` takes it (``dev``,
    ``2026-05``, ``Historical-2026-01``, ``dir:name``); one that is not a split is a ``ValueError``."""
    submissions, run_ids = list(submissions), list(run_ids)
    canonical = [Split.parse(s).text for s in splits]
    rows = trace.rows(
        "select run_id from stg_runs where (len(?::varchar[]) = 0 or list_contains(?::varchar[], submission_id)) "
        "and (len(?::varchar[]) = 0 or list_contains(?::varchar[], split)) "
        "and (len(?::varchar[]) = 0 or list_contains(?::varchar[], run_id)) order by run_id",
        [submissions, submissions, canonical, canonical, run_ids, run_ids])
    found = [r["run_id"] for r in rows]
    missing = sorted(set(run_ids) - set(found))
    if missing and not submissions and not canonical:
        raise LookupError(f"no run {', '.join(repr(m) for m in missing)} in {trace.store.url()}")
    return found


# -- the records of a run, private months reduced to ids and counts ---------------------------------------
def _run_rows(trace: Trace, run_id: str) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    from runstore.store._base import schema_of

    cols = {kind: ", ".join(schema_of(kind).names) for kind in KINDS}
    (run,) = trace.rows(f"select {cols['runs']} from stg_runs where run_id = ?", [run_id])
    calls = trace.rows(f"select {cols['calls']} from stg_calls where run_id = ? order by seq", [run_id])
    turns = trace.rows(f"select {cols['turns']} from stg_turns where run_id = ? order by seq", [run_id])
    if run["split_kind"] == "private":
        return _private(run, calls, turns)
    if not run["goals_published"]:
        run["goal"] = REDACTED
    return run, calls, turns


def _private(run: dict[str, Any], calls: list[dict[str, Any]], turns: list[dict[str, Any]]):
    """What a private month's run exports: its ids, kinds and counts, none of its text."""
    explanation = run.get("explanation")
    if explanation:
        try:
            explanation = Explanation.model_validate_json(explanation).ids_only().to_json()
        except ValueError:
            explanation = None
    run = {**run, "goal": REDACTED, "stderr_tail": None, "explanation": explanation, "goals_published": False,
           "infra_error": run["infra_error"] and run["infra_error"].split(":")[0],
           "frame_violations": None if run["frame_violations"] is None else "[redacted]"}
    calls = [{**c, "tool": c["tool"] if c["listed"] else "[unlisted]", "arguments_json": REDACTED,
              "error_message": c["error_kind"] if c["is_error"] else None, "result_text": None,
              "result_truncated": None, "result_cap": None, "fault": None} for c in calls]
    turns = [{**t, "text": None, "text_truncated": None, "text_cap": None} for t in turns]
    return run, calls, turns


# -- ATIF ---------------------------------------------------------------------------------------------------
def _iso(value: Any) -> str:
    return value.isoformat().replace("+00:00", "Z") if isinstance(value, datetime) else str(value)


def _arguments(call: dict[str, Any]) -> dict[str, Any]:
    """A call's arguments as an object: the JSON it carried, or (cut at 4 KiB, not JSON, redacted) the
    text it carried under ``_text``."""
    raw = call["arguments_json"] or ""
    if not call["truncated"] and raw != REDACTED:
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            return parsed
    return {} if raw == REDACTED else {"_text": raw}


def _tool_call(call: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A call as an ATIF tool call, its observation result, and what else the gateway recorded of it."""
    call_id = f"call-{call['seq']}"
    content = call["error_message"] if call["is_error"] else call["result_text"]
    result: dict[str, Any] = {"source_call_id": call_id}
    if content is not None:
        result["content"] = content
    recorded = {k: call[k] for k in ("seq", "listed", "is_error", "error_kind", "fault", "latency_ms",
                                     "result_bytes", "result_truncated", "arguments_bytes", "truncated")
                if call[k] is not None}
    return ({"tool_call_id": call_id, "function_name": call["tool"], "arguments": _arguments(call)}, result,
            {**recorded, "ts": _iso(call["ts"])})


def _agent_step(step_id: int, calls: list[dict[str, Any]], turn: dict[str, Any] | None) -> dict[str, Any]:
    step: dict[str, Any] = {"step_id": step_id, "source": "agent",
                            "timestamp": _iso((turn or calls[0])["ts"]), "message": ""}
    if turn is not None:
        step["model_name"] = turn["model"]
        step["message"] = turn["text"] or ""
        step["metrics"] = {"prompt_tokens": turn["prompt_tokens"], "completion_tokens": turn["completion_tokens"]}
        step["extra"] = {"turn": {k: turn[k] for k in ("seq", "status", "finish_reason", "latency_ms", "tool_calls",
                                                       "tokens_estimated", "text_truncated", "calls_before")}}
    if calls:
        made = [_tool_call(c) for c in calls]
        step["tool_calls"] = [m[0] for m in made]
        step["observation"] = {"results": [m[1] for m in made]}
        step.setdefault("extra", {})["calls"] = [m[2] for m in made]
    return step


def trajectory(run: dict[str, Any], calls: list[dict[str, Any]], turns: list[dict[str, Any]]) -> dict[str, Any]:
    """The ATIF trajectory of one run (its records as :func:`_run_rows` gives them)."""
    steps: list[dict[str, Any]] = [{"step_id": 1, "source": "user", "timestamp": _iso(run["started_at"]),
                                    "message": run["goal"]}]
    pending = list(calls)
    first_turn_at = turns[0]["calls_before"] if turns else float("inf")
    while pending and pending[0]["seq"] <= first_turn_at:  # calls before any model turn: a step each
        steps.append(_agent_step(len(steps) + 1, [pending.pop(0)], None))
    for i, turn in enumerate(turns):
        until = turns[i + 1]["calls_before"] if i + 1 < len(turns) else None
        mine = []
        while pending and (until is None or pending[0]["seq"] <= until):
            mine.append(pending.pop(0))
        steps.append(_agent_step(len(steps) + 1, mine, turn))
    explanation = json.loads(run["explanation"]) if run["explanation"] else None
    name, _, version = (run["label"] or "").partition("@")
    agent: dict[str, Any] = {"name": name or run["agent"], "version": version or "unversioned",
                             "extra": {"agent": run["agent"], "label": run["label"]}}
    models = sorted({t["model"] for t in turns})
    if len(models) == 1:
        agent["model_name"] = models[0]
    return {
        "schema_version": ATIF_VERSION,
        "session_id": run["run_id"],
        "agent": agent,
        "steps": steps,
        "notes": (f"MCPBench run of task {run['task_id']} ({run['split']}): {run['status']}, ended {run['end_reason']}. "
                  "Tool calls are the MCP calls the harness's gateway observed, in order; model turns those its "
                  "model gateway metered."),
        "final_metrics": {"total_prompt_tokens": run["model_prompt_tokens"],
                          "total_completion_tokens": run["model_completion_tokens"],
                          "total_cost_usd": run["model_cost_nanousd"] / 1e9, "total_steps": len(steps),
                          "extra": {"tool_calls": run["tool_calls"], "errors_observed": run["errors_observed"],
                                    "faults_injected": run["faults_injected"], "model_requests": run["model_requests"]}},
        "extra": {"mcpbench": {
            **{k: _iso(run[k]) if isinstance(run[k], datetime) else run[k]
               for k in ("submission_id", "submitter", "task_id", "task_hash", "server", "difficulty", "category",
                         "split", "split_kind", "month", "trial", "status", "passed", "end_reason",
                         "end_reason_detail", "exit_code", "frame_held", "max_steps", "timeout_s", "started_at",
                         "ended_at", "duration_s", "agent_s", "sandbox", "stderr_tail", "infra_error")},
            "explanation": explanation}},
    }


def export_runs(trace: Trace, run_ids: list[str], folder: str | os.PathLike[str], formats: Iterable[str], *,
                progress: Callable[[str], None] | None = None) -> list[Path]:
    """Write ``run_ids`` into ``folder`` in each of ``formats``: ``atif`` (``atif/<run_id>.json``, one
    trajectory per run), ``jsonl`` (``runs.jsonl``, ``calls.jsonl``, ``turns.jsonl``: the records, one per
    line) and ``parquet`` (``runs.parquet``, ... with the store's schemas). Returns the files written."""
    formats = list(dict.fromkeys(formats))
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        raise ValueError(f"unknown format {unknown[0]!r}: use {', '.join(FORMATS)}")
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    records: dict[str, list[dict[str, Any]]] = {kind: [] for kind in KINDS}
    if "atif" in formats:
        (out / "atif").mkdir(exist_ok=True)
    for n, run_id in enumerate(run_ids, start=1):
        run, calls, turns = _run_rows(trace, run_id)
        if "atif" in formats:
            path = out / "atif" / f"{run_id}.json"
            path.write_text(json.dumps(trajectory(run, calls, turns), ensure_ascii=False, indent=1), encoding="utf-8")
            written.append(path)
        if "jsonl" in formats or "parquet" in formats:
            records["runs"].append(run)
            records["calls"] += calls
            records["turns"] += turns
        if progress is not None and (n % 100 == 0 or n == len(run_ids)):
            progress(f"{n}/{len(run_ids)} runs exported")
    if "jsonl" in formats:
        for kind in KINDS:
            path = out / f"{kind}.jsonl"
            with open(path, "w", encoding="utf-8") as f:
                for row in records[kind]:
                    f.write(json.dumps({k: _iso(v) if isinstance(v, datetime) else v for k, v in row.items()},
                                       ensure_ascii=False) + "\n")
            written.append(path)
    if "parquet" in formats:
        import pyarrow as pa
        import pyarrow.parquet as pq

        from runstore.store._base import schema_of

        for kind in KINDS:
            path = out / f"{kind}.parquet"
            pq.write_table(pa.Table.from_pylist(records[kind], schema=schema_of(kind)), path)
            written.append(path)
    return written


__all__ = ["ATIF_VERSION", "FORMATS", "SCHEMA_PATH", "atif_schema", "export_runs", "select_runs", "trajectory"]
