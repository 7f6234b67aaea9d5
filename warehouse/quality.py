"""Great Expectations suites on landed runs and calls. A failing suite stops scoring (the build
raises :class:`QualityError` with the report) and keeps the data: nothing is deleted or rewritten.

Suites (each over a DataFrame read from the staging and mart views):

* ``schema``: the staged runs and calls have exactly the contract's columns and types;
* ``runs``: no null where the contract says so, enumerations, ranges, unique run ids, ``passed`` agrees
  with ``status``, ``split_kind`` is dev / private / historical / folder and ``split`` is that kind's
  canonical text (``runstore.split.Split``);
* ``calls``: not-null, ranges, (run_id, seq) unique, every call belongs to a landed run;
* ``turns``: not-null, ranges, (run_id, seq) unique, known status, every turn belongs to a landed run;
* ``rates``: every rate in [0, 1] and efficiency in [0, 100] in ``metrics_by_submission_server``;
* ``redaction``: on every run, the goal is ``[redacted]`` unless the run record says the submitter
  opted in (``goals_published``), and no private-month run has ``goals_published``; a private-month run
  keeps no text of its own: no stderr, its calls no arguments (``[redacted]``), result text, error text
  (an error kind at most), fault or unlisted tool name (``[unlisted]``), its turns no model text, and its
  explanation clause ids and frame kinds only.

With ``only_new`` the suites read only the runs in the temporary table ``new_runs`` (what landed since
the last checked build; see ``warehouse.build``), their calls, calls whose run never landed, and the
rates of the submissions they belong to.

Great Expectations takes seconds to import: this module imports it only inside :func:`validate`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, get_args

import duckdb

from runstore.records import ErrorKind, TurnStatus, explanation_ids_only
from runstore.split import SPLIT_KINDS


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


#: What a failed redaction suite names, one line per kind of breach: the check column and what it means
#: (followed by the first 20 runs that break it).
REDACTION_BREACHES = (
    ("goal_redacted", "goal text stored unredacted, without goals_published, in runs"),
    ("private_never_published", "goals_published on private-month runs"),
    ("private_keeps_no_text", "private-month runs keep text of their calls, turns or stderr:"),
    ("private_explanation_ids_only", "private-month runs keep more than clause ids in their explanation:"),
)

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
        import great_expectations.expectations
    return gx


#: ``split`` is the canonical text of its ``split_kind`` (a check of what the records wrote, not a parse
#: the marts rely on).
_SPLIT_MATCHES_KIND = """case split_kind
    when 'dev' then split = 'dev'
    when 'private' then regexp_full_match(split, '\\d{4}-(0[1-9]|1[0-2])')
    when 'historical' then regexp_full_match(split, 'Historical-\\d{4}-(0[1-9]|1[0-2])')
    when 'folder' then regexp_full_match(split, 'dir:[A-Za-z0-9][A-Za-z0-9._-]*')
    else false end"""


def _suites(con: duckdb.DuckDBPyConnection, only_new: bool) -> list[tuple[str, Any, list]]:
    import great_expectations.expectations as gxe

    from runstore.records import CALL_SCHEMA, REDACTED, RUN_SCHEMA, TURN_SCHEMA

    not_null_runs = [f.name for f in RUN_SCHEMA if not f.nullable]
    not_null_calls = [f.name for f in CALL_SCHEMA if not f.nullable]
    not_null_turns = [f.name for f in TURN_SCHEMA if not f.nullable]

    # text columns stay in DuckDB: the suites read counts and flags, never what an agent or a model wrote
    run_cols = ", ".join(f.name for f in RUN_SCHEMA if f.name not in ("split_kind", "explanation"))
    call_cols = ", ".join(f.name for f in CALL_SCHEMA if f.name not in ("arguments_json", "error_message", "result_text"))
    turn_cols = ", ".join(f.name for f in TURN_SCHEMA if f.name != "text")
    # only_new: the new runs, plus every run sharing a run id (so uniqueness is still checked whole)
    def runs_where(column: str = "run_id") -> str:
        return (f"where {column} in (select run_id from new_runs) or {column} in "
                "(select run_id from stg_runs group by run_id having count(*) > 1)") if only_new else ""

    calls_where = ("where run_id in (select run_id from new_runs) or run_id not in "
                   "(select run_id from stg_runs)") if only_new else ""
    rates_where = ("where submission_id in (select submission_id from stg_runs where run_id in "
                   "(select run_id from new_runs))") if only_new else ""
    runs = con.sql(f"select {run_cols}, split_kind, status = 'passed' as status_is_passed, "
                   f"coalesce({_SPLIT_MATCHES_KIND}, false) as split_matches_kind, "
                   f"{_missing(not_null_runs)} as missing_required from stg_runs {runs_where()}").df()
    landed = [r[0] for r in con.execute("select distinct run_id from stg_runs order by 1").fetchall()]
    calls = con.sql(f"select {call_cols}, {_missing(not_null_calls)} as missing_required from stg_calls "
                    f"{calls_where}").df()
    turns = con.sql(f"select {turn_cols}, {_missing(not_null_turns)} as missing_required from stg_turns "
                    f"{calls_where}").df()
    rates = con.sql("select submission_id, server, success_rate, hallucination_rate, recovery_rate, efficiency "
                    f"from metrics_by_submission_server {rates_where}").df()
    # Every run is checked against its own record: goal text is allowed only where the run says the
    # submitter opted in, and never on a private month; a private month's run keeps no text of its own.
    # No text itself is read into the report: a failure names runs, not their plaintext.
    kinds = ", ".join(f"'{k}'" for k in get_args(ErrorKind))
    redacted = con.sql(f"""
        with call_leaks as (
            select run_id, count(*) filter (where result_text is not null or fault is not null
                or arguments_json is distinct from '{REDACTED}' or (error_message is not null and error_message not in ({kinds}))
                or (not listed and tool <> '[unlisted]')) as leaks
            from stg_calls group by run_id
        ),
        turn_leaks as (
            select run_id, count(*) filter (where text is not null) as leaks from stg_turns group by run_id
        )
        select r.run_id,
            coalesce(r.goal = '{REDACTED}' or (r.goals_published and r.split_kind <> 'private'), false) as goal_redacted,
            coalesce(not (r.goals_published and r.split_kind = 'private'), false) as private_never_published,
            r.split_kind <> 'private' or (r.stderr_tail is null and coalesce(c.leaks, 0) = 0
                                          and coalesce(t.leaks, 0) = 0) as private_keeps_no_text,
            case when r.split_kind = 'private' then r.explanation end as private_explanation
        from stg_runs r left join call_leaks c on c.run_id = r.run_id left join turn_leaks t on t.run_id = r.run_id
        {runs_where("r.run_id")}""").df()
    redacted["private_explanation_ids_only"] = [explanation_ids_only(text if isinstance(text, str) else None)
                                                for text in redacted.pop("private_explanation")]

    schema = [(f"runs.{s}",) for s in _signature(con, "stg_runs") if s.split(":")[0] in RUN_SCHEMA.names]
    schema += [(f"calls.{s}",) for s in _signature(con, "stg_calls")]
    schema += [(f"turns.{s}",) for s in _signature(con, "stg_turns")]
    expected = [f"runs.{s}" for s in _expected_signature(con, RUN_SCHEMA)]
    expected += [f"calls.{s}" for s in _expected_signature(con, CALL_SCHEMA)]
    expected += [f"turns.{s}" for s in _expected_signature(con, TURN_SCHEMA)]
    import pandas as pd

    schema_df = pd.DataFrame(schema, columns=["column"])

    between = gxe.ExpectColumnValuesToBeBetween

    def per_run(kind: str, kinds: tuple[str, ...], counts: tuple[str, ...]) -> list:
        """The expectations of the rows a run has many of (its calls, its turns): required fields, one
        row per (run_id, seq), a landed run, a known ``kind``, ``seq`` from 1 and no negative ``counts``."""
        return [gxe.ExpectColumnValuesToBeInSet(column="missing_required", value_set=[""]),
                gxe.ExpectCompoundColumnsToBeUnique(column_list=["run_id", "seq"]),
                gxe.ExpectColumnValuesToBeInSet(column="run_id", value_set=landed),
                gxe.ExpectColumnValuesToBeInSet(column=kind, value_set=list(kinds)),
                between(column="seq", min_value=1),
                *(between(column=c, min_value=0) for c in counts)]

    return [
        ("schema", schema_df, [gxe.ExpectColumnDistinctValuesToEqualSet(column="column", value_set=expected)]),
        ("runs", runs, [
            gxe.ExpectColumnValuesToBeInSet(column="missing_required", value_set=[""]),
            gxe.ExpectColumnValuesToBeUnique(column="run_id"),
            gxe.ExpectColumnValuesToBeInSet(column="status", value_set=["passed", "failed", "infra_error"]),
            gxe.ExpectColumnValuesToBeInSet(column="category", value_set=["standard", "recovery"]),
            gxe.ExpectColumnValuesToBeInSet(column="difficulty", value_set=["easy", "medium", "hard"]),
            gxe.ExpectColumnValuesToBeInSet(column="split_kind", value_set=list(SPLIT_KINDS)),
            gxe.ExpectColumnValuesToBeInSet(column="split_matches_kind", value_set=[True]),
            gxe.ExpectColumnValuesToMatchRegex(column="month", regex=r"^\d{4}-(?:0[1-9]|1[0-2])$"),
            gxe.ExpectColumnPairValuesToBeEqual(column_A="passed", column_B="status_is_passed"),
            between(column="max_steps", min_value=1),
            between(column="timeout_s", min_value=0, strict_min=True),
            *(between(column=c, min_value=0) for c in ("tool_calls", "errors_observed", "faults_injected",
                                                          "duration_s", "agent_s")),
        ]),
        ("calls", calls, per_run("error_kind", get_args(ErrorKind), ("latency_ms", "result_bytes", "arguments_bytes"))),
        ("turns", turns, per_run("status", get_args(TurnStatus), ("calls_before", "prompt_tokens", "completion_tokens",
                                                                   "latency_ms", "tool_calls"))),
        ("rates", rates, [
            *(between(column=c, min_value=0, max_value=1)
              for c in ("success_rate", "hallucination_rate", "recovery_rate")),
            between(column="efficiency", min_value=0, max_value=100),
        ]),
        ("redaction", redacted, [
            gxe.ExpectColumnValuesToBeInSet(column="goal_redacted", value_set=[True]),
            gxe.ExpectColumnValuesToBeInSet(column="private_never_published", value_set=[True]),
            gxe.ExpectColumnValuesToBeInSet(column="private_keeps_no_text", value_set=[True]),
            gxe.ExpectColumnValuesToBeInSet(column="private_explanation_ids_only", value_set=[True]),
        ]),
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


def validate(con: duckdb.DuckDBPyConnection, *, only_new: bool = False) -> QualityReport:
    """Run every suite on the staged data in ``con`` (a connection with the warehouse views); with
    ``only_new``, on the runs of the temporary table ``new_runs`` only (see the module's doc)."""
    gx = _import_great_expectations()

    from great_expectations.data_context.types.base import ProgressBarsConfig

    context = gx.get_context(mode="ephemeral")
    context.variables.progress_bars = ProgressBarsConfig(globally=False)  # no bar per suite on stderr
    source = context.data_sources.add_pandas("landed")
    results = []
    for name, frame, expectations in _suites(con, only_new):
        batch_definition = source.add_dataframe_asset(name).add_batch_definition_whole_dataframe("all")
        suite = gx.ExpectationSuite(name=name, expectations=list(expectations))
        outcome = batch_definition.get_batch(batch_parameters={"dataframe": frame}).validate(suite)
        failures = [_describe_failure(r) for r in outcome.results if not r.success]
        if name == "redaction" and failures:
            for column, what in REDACTION_BREACHES:
                runs = sorted(frame.loc[~frame[column], "run_id"])
                if runs:
                    failures.append(f"{what} {runs[:20]}")
        results.append(SuiteResult(name, len(frame), failures))
    return QualityReport(results)


__all__ = ["QualityError", "QualityReport", "SuiteResult", "validate"]
