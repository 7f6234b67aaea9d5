"""Great Expectations suites on landed runs and calls. A failing suite stops scoring (the build
raises :class:`QualityError` with the report) and keeps the data: nothing is deleted or rewritten.

Suites (each over a DataFrame read from the staging and mart views):

* ``schema``: the staged runs and calls have exactly the contract's columns and types;
* ``runs``: no null where the contract says so, enumerations, ranges, unique run ids, ``passed`` agrees
  with ``status``, every split is dev / YYYY-MM / historical-YYYY-MM;
* ``calls``: not-null, ranges, (run_id, seq) unique, every call belongs to a landed run;
* ``rates``: every rate in [0, 1] and efficiency in [0, 100] in ``metrics_by_submission_server``;
* ``redaction``: no goal text where redaction is on: on every private-month run, and on any other run
  whose submission has not opted in to publishing traces (``published_submissions``).

Great Expectations takes seconds to import: this module imports it only inside :func:`validate`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import duckdb

from runstore.records import CALL_SCHEMA, REDACTED, RUN_SCHEMA

_NOT_NULL_RUNS = [f.name for f in RUN_SCHEMA if not f.nullable]
_NOT_NULL_CALLS = [f.name for f in CALL_SCHEMA if not f.nullable]


@dataclass
class SuiteResult:
    name: str
    rows: int
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures


@dataclass
class QualityReport:
    suites: list[SuiteResult]

    @property
    def ok(self) -> bool:
        return all(s.ok for s in self.suites)

    def render(self) -> str:
        lines = []
        for s in self.suites:
            lines.append(f"{'ok  ' if s.ok else 'FAIL'} {s.name} ({s.rows} rows)")
            lines += [f"     - {f}" for f in s.failures]
        return "\n".join(lines)


class QualityError(RuntimeError):
    """Landed data failed a data-quality suite; ``report`` says which expectations and which values."""

    def __init__(self, report: QualityReport) -> None:
        self.report = report
        super().__init__("landed data failed its quality checks; scoring stopped, the data is kept:\n"
                         + report.render())


def _missing(columns: list[str]) -> str:
    """SQL naming, per row, the required columns that are null ('' when none is): one expectation
    instead of one per column, and the report says which fields are missing."""
    return "concat_ws(',', " + ", ".join(f"case when {c} is null then '{c}' end" for c in columns) + ")"


def _signature(con: duckdb.DuckDBPyConnection, relation: str) -> list[str]:
    return [f"{name}:{type_}" for name, type_ in
            con.execute(f"select column_name, column_type from (describe {relation})").fetchall()]


def _expected_signature(con: duckdb.DuckDBPyConnection, schema) -> list[str]:
    con.register("_contract", schema.empty_table())
    try:
        return _signature(con, "select * from _contract")
    finally:
        con.unregister("_contract")


def _import_great_expectations():
    with warnings.catch_warnings():
        # great_expectations 1.24 imports the stdlib's deprecated sre_constants and sre_parse; not ours to fix
        warnings.filterwarnings("ignore", message=r"module 'sre_(constants|parse)' is deprecated",
                                category=DeprecationWarning)
        import great_expectations as gx
        import great_expectations.expectations  # noqa: F401
    return gx


def _suites(con: duckdb.DuckDBPyConnection, published: set[str]) -> list[tuple[str, Any, list]]:
    import great_expectations.expectations as gxe

    run_cols = ", ".join(f.name for f in RUN_SCHEMA)
    call_cols = ", ".join(f.name for f in CALL_SCHEMA if f.name not in ("arguments_json", "error_message"))
    runs = con.sql(f"select {run_cols}, split_kind, status = 'passed' as status_is_passed, "
                   f"{_missing(_NOT_NULL_RUNS)} as missing_required from stg_runs").df()
    calls = con.sql(f"select {call_cols}, {_missing(_NOT_NULL_CALLS)} as missing_required from stg_calls").df()
    rates = con.sql("select submission_id, server, success_rate, hallucination_rate, recovery_rate, efficiency "
                    "from metrics_by_submission_server").df()
    published_list = ", ".join("'" + p.replace("'", "''") + "'" for p in sorted(published)) or "null"
    # the goal itself is never read into the report: a failure names runs, not their plaintext
    redacted = con.sql(f"select run_id, goal = '{REDACTED}' as goal_redacted from stg_runs "
                       f"where split_kind = 'private' or submission_id not in ({published_list})").df()

    schema = [(f"runs.{s}",) for s in _signature(con, "stg_runs") if s.split(":")[0] in RUN_SCHEMA.names]
    schema += [(f"calls.{s}",) for s in _signature(con, "stg_calls")]
    expected = [f"runs.{s}" for s in _expected_signature(con, RUN_SCHEMA)]
    expected += [f"calls.{s}" for s in _expected_signature(con, CALL_SCHEMA)]
    import pandas as pd

    schema_df = pd.DataFrame(schema, columns=["column"])

    between = gxe.ExpectColumnValuesToBeBetween
    return [
        ("schema", schema_df, [gxe.ExpectColumnDistinctValuesToEqualSet(column="column", value_set=expected)]),
        ("runs", runs, [
            gxe.ExpectColumnValuesToBeInSet(column="missing_required", value_set=[""]),
            gxe.ExpectColumnValuesToBeUnique(column="run_id"),
            gxe.ExpectColumnValuesToBeInSet(column="status", value_set=["passed", "failed", "infra_error"]),
            gxe.ExpectColumnValuesToBeInSet(column="category", value_set=["standard", "recovery"]),
            gxe.ExpectColumnValuesToBeInSet(column="difficulty", value_set=["easy", "medium", "hard"]),
            gxe.ExpectColumnValuesToBeInSet(column="split_kind", value_set=["dev", "private", "historical"]),
            gxe.ExpectColumnValuesToMatchRegex(column="month", regex=r"^\d{4}-(?:0[1-9]|1[0-2])$"),
            gxe.ExpectColumnPairValuesToBeEqual(column_A="passed", column_B="status_is_passed"),
            between(column="max_steps", min_value=1),
            between(column="timeout_s", min_value=0, strict_min=True),
            *(between(column=c, min_value=0) for c in ("tool_calls", "errors_observed", "faults_injected",
                                                          "duration_s", "agent_s")),
        ]),
        ("calls", calls, [
            gxe.ExpectColumnValuesToBeInSet(column="missing_required", value_set=[""]),
            gxe.ExpectCompoundColumnsToBeUnique(column_list=["run_id", "seq"]),
            gxe.ExpectColumnValuesToBeInSet(column="run_id", value_set=sorted(set(runs["run_id"]))),
            gxe.ExpectColumnValuesToBeInSet(column="error_kind", value_set=[
                "tool_error", "injected_fault", "unlisted_tool", "over_budget", "malformed_call"]),
            between(column="seq", min_value=1),
            *(between(column=c, min_value=0) for c in ("latency_ms", "result_bytes", "arguments_bytes")),
        ]),
        ("rates", rates, [
            *(between(column=c, min_value=0, max_value=1)
              for c in ("success_rate", "hallucination_rate", "recovery_rate")),
            between(column="efficiency", min_value=0, max_value=100),
        ]),
        ("redaction", redacted, [gxe.ExpectColumnValuesToBeInSet(column="goal_redacted", value_set=[True])]),
    ]


def _describe_failure(result) -> str:
    config = result.expectation_config
    kwargs = {k: v for k, v in config.kwargs.items() if k not in ("batch_id", "value_set")}
    detail = result.result or {}
    if "unexpected_count" in detail and detail.get("unexpected_count") is not None:
        sample = detail.get("partial_unexpected_list") or []
        what = f"{detail['unexpected_count']} unexpected, e.g. {sample[:5]}"
    elif detail.get("details", {}).get("mismatched") or "observed_value" in detail:
        what = f"observed {detail.get('details', {}).get('mismatched') or detail.get('observed_value')}"
    else:
        what = (result.exception_info or {}).get("exception_message") or "failed"
    return f"{config.type} {kwargs}: {what}"


def validate(con: duckdb.DuckDBPyConnection, *, published_submissions=()) -> QualityReport:
    """Run every suite on the staged data in ``con`` (a connection with the warehouse views)."""
    gx = _import_great_expectations()

    from great_expectations.data_context.types.base import ProgressBarsConfig

    context = gx.get_context(mode="ephemeral")
    context.variables.progress_bars = ProgressBarsConfig(globally=False)  # no bar per suite on stderr
    source = context.data_sources.add_pandas("landed")
    results = []
    for name, frame, expectations in _suites(con, set(published_submissions)):
        batch_definition = source.add_dataframe_asset(name).add_batch_definition_whole_dataframe("all")
        suite = gx.ExpectationSuite(name=name, expectations=list(expectations))
        outcome = batch_definition.get_batch(batch_parameters={"dataframe": frame}).validate(suite)
        failures = [_describe_failure(r) for r in outcome.results if not r.success]
        if name == "redaction" and failures:
            leaked = sorted(frame.loc[~frame["goal_redacted"], "run_id"])
            failures.append(f"goal text stored unredacted in runs {leaked[:20]}")
        results.append(SuiteResult(name, len(frame), failures))
    return QualityReport(results)


__all__ = ["QualityError", "QualityReport", "SuiteResult", "validate"]
