"""The score card of one submission, read from the marts (``metrics_by_submission`` and
``metrics_by_submission_server``), so what ``mcpbench run`` prints is what the warehouse holds."""

from __future__ import annotations

from typing import Any

import duckdb

from runstore.store import Store

#: The keys of ``overall`` and of each ``by_server`` entry.
METRICS = ("attempted", "passed", "success_rate", "efficiency", "hallucination_rate", "recovery_rate",
           "collateral_damage_rate", "infra_errors")


def _rows(con: duckdb.DuckDBPyConnection, sql: str, params: list) -> list[dict[str, Any]]:
    cur = con.execute(sql, params)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row)) for row in cur.fetchall()]


def scorecard(submission_id: str, *, store: Store | str | None = None,
              con: duckdb.DuckDBPyConnection | None = None) -> dict[str, Any]:
    """The score card of ``submission_id``::

        {"submission_id", "submitter", "agent", "split",
         "overall": {attempted, passed, success_rate, efficiency, hallucination_rate, recovery_rate,
                     collateral_damage_rate, infra_errors},
         "by_server": {server: {same keys}},
         "frame_violations": [{"task_id", "entities"}, ...]}

    ``frame_violations`` lists the runs that changed state outside their task's frame, each with the
    entities it changed (kind, id, what changed; kinds and counts only on a private month).

    Rates are fractions in [0, 1]; efficiency is a percentage (lower is better); a rate with nothing to
    divide by (no attempted runs, no calls, no recovery run where an error was observed) is None.
    Reads ``con`` (an open warehouse) if given, else only this submission's files in ``store`` (default:
    ``MCPBENCH_STORE`` or ``.mcpbench/store``). Raises LookupError if nothing of it has landed."""
    own = con is None
    if own:
        from warehouse.build import connect

        con = connect(store, submission_id=submission_id)
    try:
        columns = ", ".join(METRICS)
        overall = _rows(con, f"select submitter, agent, split, {columns} from metrics_by_submission "
                             "where submission_id = ?", [submission_id])
        if not overall:
            raise LookupError(f"no runs of submission {submission_id!r} have landed")
        servers = _rows(con, f"select server, {columns} from metrics_by_submission_server "
                             "where submission_id = ? order by server", [submission_id])
        violated = _rows(con, "select task_id, frame_violations as entities from run_facts "
                              "where submission_id = ? and frame_violated order by task_id", [submission_id])
    finally:
        if own:
            con.close()
    head = overall[0]
    return {
        "submission_id": submission_id,
        "submitter": head["submitter"],
        "agent": head["agent"],
        "split": head["split"],
        "overall": {k: head[k] for k in METRICS},
        "by_server": {row["server"]: {k: row[k] for k in METRICS} for row in servers},
        "frame_violations": violated,
    }


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
    header = ["server", *METRICS]
    lines = [[name, *(_fmt(k, m[k]) for k in METRICS)] for name, m in card["by_server"].items()]
    lines.append(["overall", *(_fmt(k, card["overall"][k]) for k in METRICS)])
    widths = [max(len(str(r[i])) for r in [header, *lines]) for i in range(len(header))]
    title = f"submission {card['submission_id']} ({card['agent']}, {card['submitter']}, split {card['split']})"
    out = [title, "  ".join(h.ljust(w) for h, w in zip(header, widths))]
    out += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)) for r in lines]
    for row in card.get("frame_violations", []):
        out.append(f"frame violated in {row['task_id']}: {row['entities']}")
    if card["split"] == "dev":
        out.append("dev-set scores never rank on a leaderboard")
    return "\n".join(out)


__all__ = ["METRICS", "format_scorecard", "scorecard"]
