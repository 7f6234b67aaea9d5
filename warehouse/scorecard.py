"""The score card of one submission, read from the marts (``metrics_by_submission`` and
``metrics_by_submission_server``), so what ``mcpbench run`` prints is what the warehouse holds."""

from __future__ import annotations

from typing import Any

import duckdb

from runstore.store import Store
from warehouse.reader import Warehouse, connection, open_submission, query

#: The keys of ``trials["overall"]`` and of each ``trials["by_server"]`` entry (``trials_by_submission``):
#: pass@1 (= success rate), pass^k and pass@k, each with its 95% Wilson interval, and model usage.
TRIALS = ("k", "tasks", "tasks_complete", "pass_at_1", "pass_at_1_ci_low", "pass_at_1_ci_high", "pass_hat_k",
          "pass_hat_k_ci_low", "pass_hat_k_ci_high", "pass_at_k", "pass_at_k_ci_low", "pass_at_k_ci_high",
          "model_requests", "prompt_tokens", "completion_tokens", "tokens_per_run", "cost_usd", "cost_usd_per_run")
#: The keys of ``overall`` and of each ``by_server`` entry.
METRICS = ("attempted", "passed", "success_rate", "efficiency", "hallucination_rate", "recovery_rate",
           "collateral_damage_rate", "infra_errors")
#: The ``server`` of a cross-server task's runs (``tasks_catalog.schema.CROSS_SERVER``; the warehouse reads
#: records, never the task model): their run-level metrics are a row of their own.
CROSS_SERVER = "cross-server"
#: Servers in the order a card or report lists them: by name, the cross-server row last.
SERVER_ORDER = f"server = '{CROSS_SERVER}', server"


def _rows(con: duckdb.DuckDBPyConnection, sql: str, params: list) -> list[dict[str, Any]]:
    return query(con, sql, params).dicts()


def scorecard(submission_id: str, *, store: Store | str | None = None,
              con: Warehouse | duckdb.DuckDBPyConnection | None = None) -> dict[str, Any]:
    """The score card of ``submission_id``::

        {"submission_id", "submitter", "agent", "label", "split",
         "overall": {attempted, passed, success_rate, efficiency, hallucination_rate, recovery_rate,
                     collateral_damage_rate, infra_errors},
         "by_server": {server: {same keys}},  # cross-server tasks' runs under "cross-server", last
         "frame_violations": [{"task_id", "trial", "run_id", "entities"}, ...],
         "trials": {"overall": {TRIALS keys}, "by_server": {server: {TRIALS keys}}}}

    ``trials`` holds pass@1 (the success rate), pass^k and pass@k over the submission's K trials, each
    with its 95% Wilson score interval (pass@1 over runs, the others over complete tasks), and the
    model gateway's usage: requests, prompt and completion tokens, tokens per run, cost in USD.

    ``label`` is the submitter's name for the agent and its version (``mcpbench run --label``), None
    when none was given.
    ``by_server`` has a row per server and, when the submission ran cross-server tasks, a ``cross-server``
    row: those runs' run-level metrics (success, efficiency, collateral damage, recovery), scored apart
    from every server's. Each call counts in the row of the server it went to (so a server reached only
    by cross-server runs has calls and no attempted runs; a call that named no server of its task counts
    in the cross-server row).

    ``frame_violations`` lists the runs that changed state outside their task's frame, one per run (its
    task, trial and run id), each with the entities it changed (kind, id, what changed; kinds and counts
    only on a private month).

    Rates are fractions in [0, 1]; efficiency is a percentage (lower is better); a rate with nothing to
    divide by is None: no attempted runs, no calls, or (recovery_rate) no recovery run attempted or
    every attempted one passed without observing an error; recovery runs that failed make it 0.0.
    Reads ``con`` (an open warehouse: :mod:`warehouse.reader`) if given, else only this submission's
    files in ``store`` (default: ``MCPBENCH_STORE`` or ``.mcpbench/store``; :func:`open_submission`).
    Raises LookupError if nothing of it has landed."""
    own = con is None
    opened = open_submission(submission_id, store) if con is None else con
    con = connection(opened)
    try:
        columns = ", ".join(METRICS)
        overall = _rows(con, f"select submitter, agent, split, {columns} from metrics_by_submission "
                             "where submission_id = ?", [submission_id])
        if not overall:
            raise LookupError(f"no runs of submission {submission_id!r} have landed")
        servers = _rows(con, f"select server, {columns} from metrics_by_submission_server "
                             f"where submission_id = ? order by {SERVER_ORDER}", [submission_id])
        trial_cols = ", ".join(TRIALS)
        trials = _rows(con, f"select {trial_cols} from trials_by_submission where submission_id = ?", [submission_id])
        trial_servers = _rows(con, f"select server, {trial_cols} from trials_by_submission_server "
                                   f"where submission_id = ? order by {SERVER_ORDER}", [submission_id])
        violated = _rows(con, "select task_id, trial, run_id, frame_violations as entities from run_facts "
                              "where submission_id = ? and frame_violated order by task_id, trial, run_id",
                         [submission_id])
        label = submission_labels(con, [submission_id]).get(submission_id)
    finally:
        if own:
            opened.close()
    head = overall[0]
    return {
        "submission_id": submission_id,
        "submitter": head["submitter"],
        "agent": head["agent"],
        "label": label,
        "split": head["split"],
        "overall": {k: head[k] for k in METRICS},
        "by_server": {row["server"]: {k: row[k] for k in METRICS} for row in servers},
        "frame_violations": violated,
        "trials": {"overall": {k: trials[0][k] for k in TRIALS},
                   "by_server": {row["server"]: {k: row[k] for k in TRIALS} for row in trial_servers}},
    }


def submission_labels(con: duckdb.DuckDBPyConnection, submission_ids: list[str] | None = None) -> dict[str, str]:
    """The label of each submission that has one (``RunRecord.label``, from ``stg_runs``): the label of
    its latest run, should a resumed evaluation have been given another. Only ``submission_ids``, if given."""
    where = f"and submission_id in ({', '.join('?' * len(submission_ids))})" if submission_ids else ""
    return dict(con.execute(
        f"select submission_id, arg_max(label, started_at) from stg_runs where label is not null {where} "
        "group by submission_id", submission_ids or []).fetchall())


def agent_name(agent: str, label: str | None) -> str:
    """How an agent is shown: its label and, after it, the agent spec it ran as."""
    return f"{label} ({agent})" if label else agent


def _fmt(key: str, value: Any) -> str:
    if value is None:
        return "-"
    if key == "efficiency":
        return f"{value:.1f}%"
    if key.endswith("_rate"):
        return f"{100 * value:.1f}%"
    return str(value)


def format_scorecard(card: dict[str, Any]) -> str:
    """The score card as a plain-text table, one line per server and a total."""
    trials = card.get("trials")

    def cell(server: str, key: str, value: Any) -> str:
        # the success rate with its 95% interval (pass@1's, the same rate), when the card has it
        t = (trials or {}).get("overall" if server == "overall" else "by_server", {})
        t = t if server == "overall" else t.get(server)
        if key == "success_rate" and t:
            return interval(value, t["pass_at_1_ci_low"], t["pass_at_1_ci_high"])
        return _fmt(key, value)

    header = ["server", *(f"{k} (95% CI)" if k == "success_rate" and trials else k for k in METRICS)]
    lines = [[name, *(cell(name, k, m[k]) for k in METRICS)] for name, m in card["by_server"].items()]
    lines.append(["overall", *(cell("overall", k, card["overall"][k]) for k in METRICS)])
    widths = [max(len(str(r[i])) for r in [header, *lines]) for i in range(len(header))]
    title = (f"submission {card['submission_id']}: {agent_name(card['agent'], card.get('label'))}, "
             f"submitter {card['submitter']}, split {card['split']}")
    out = [title, "  ".join(h.ljust(w) for h, w in zip(header, widths))]
    out += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)) for r in lines]
    if trials:
        out.append(_format_trials(trials))
    repeated = trials is not None and bool(trials) and trials["overall"]["k"] > 1
    for row in card.get("frame_violations", []):
        trial = f" (trial {row['trial']})" if repeated else ""  # with repeated trials, say which one broke it
        out.append(f"frame violated in {row['task_id']}{trial}: {row['entities']}")
    if card["split"] == "dev":
        out.append("dev-set scores never rank on a leaderboard")
    return "\n".join(out)


def scorecard_table(card: dict[str, Any]) -> list[dict[str, Any]]:
    """The score card as rows for a table (a Prefect table artifact): one per server and ``overall``,
    rates in percent and the success rate with its 95% interval, as ``format_scorecard`` shows them."""
    trials = card.get("trials") or {}
    rows = []
    for name, metrics in [*card["by_server"].items(), ("overall", card["overall"])]:
        t = trials.get("overall") if name == "overall" else trials.get("by_server", {}).get(name)
        success = (interval(metrics["success_rate"], t["pass_at_1_ci_low"], t["pass_at_1_ci_high"]) if t
                   else _fmt("success_rate", metrics["success_rate"]))
        rows.append({"server": name, "attempted": metrics["attempted"], "passed": metrics["passed"],
                     "success (95% CI)": success,
                     **{k: _fmt(k, metrics[k]) for k in METRICS if k not in ("attempted", "passed", "success_rate")}})
    return rows


def interval(rate: float | None, low: float | None, high: float | None) -> str:
    """``62.5% [48.1-75.0]``: a rate and its 95% interval, in percent."""
    if rate is None:
        return "-"
    assert low is not None and high is not None  # a rate has its interval (sql/macros/metrics.sql)
    return f"{100 * rate:.1f}% [{100 * low:.1f}-{100 * high:.1f}]"


def _format_trials(trials: dict[str, Any]) -> str:
    header = ["server", "k", "pass@1 (95% CI)", "pass^k (95% CI)", "pass@k (95% CI)", "tokens/run", "cost"]
    rows = []
    for name, t in [*trials["by_server"].items(), ("overall", trials["overall"])]:
        rows.append([name, str(t["k"]),
                     interval(t["pass_at_1"], t["pass_at_1_ci_low"], t["pass_at_1_ci_high"]),
                     interval(t["pass_hat_k"], t["pass_hat_k_ci_low"], t["pass_hat_k_ci_high"]),
                     interval(t["pass_at_k"], t["pass_at_k_ci_low"], t["pass_at_k_ci_high"]),
                     "-" if t["tokens_per_run"] is None else f"{t['tokens_per_run']:.0f}",
                     f"${t['cost_usd']:.4f}"])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["", "trials (95% Wilson intervals; pass^k and pass@k over tasks with all k trials attempted)"]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in [header, *rows]]
    return "\n".join(lines)


__all__ = ["CROSS_SERVER", "METRICS", "SERVER_ORDER", "TRIALS", "agent_name", "format_scorecard", "interval", "scorecard",
           "scorecard_table", "submission_labels"]
