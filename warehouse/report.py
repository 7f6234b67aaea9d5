"""``mcpbench report --html FILE``: one static, self-contained HTML page (inline CSS and SVG, no
scripts) that fits a 1280 px window: the leaderboards, the dev and folder submissions, why runs ended
per submission, the hardest tasks, the success rate by private month, per-server success and
efficiency charts and the anomaly flags, with links into the run viewer where asked."""

from __future__ import annotations

import html
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

from warehouse.reader import Warehouse, connection, query
from warehouse.scorecard import CROSS_SERVER, SERVER_ORDER, agent_name, submission_labels

_PALETTE = ["#3366cc", "#dc3912", "#ff9900", "#109618", "#990099", "#0099c6"]
_CSS = """
* { box-sizing: border-box; }
body { font-family: system-ui, sans-serif; margin: 1.5rem auto; padding: 0 1rem; color: #222; max-width: 1200px; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; font-size: 0.85rem; width: 100%; }
th, td { border-bottom: 1px solid #ddd; padding: 0.3rem 0.45rem; text-align: left; vertical-align: bottom; }
td { overflow-wrap: anywhere; } th { background: #f4f4f4; font-weight: 600; line-height: 1.2; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.flag { color: #b00; font-weight: 600; }
.warning { background: #fde8e8; border: 2px solid #b00; color: #b00; font-weight: 700; padding: 0.6rem; } .muted { color: #777; } svg { display: block; margin: 0.5rem 0 1.5rem; max-width: 100%; height: auto; }
"""


def _records(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> list[dict[str, Any]]:
    return query(con, sql, params).dicts()


def _cell(key: str, value: Any) -> str:
    if value is None:
        return '<td class="num muted">-</td>'
    if isinstance(value, bool):
        return f'<td class="{"flag" if value else "muted"}">{"yes" if value else "no"}</td>'
    if isinstance(value, float) and key.startswith("cost"):
        return f'<td class="num">{money(value)}</td>'
    if isinstance(value, float):
        text = (f"{value:.1f}%" if key == "efficiency" else
                f"{100 * value:.1f}%" if key.endswith("rate") or key == "coverage" else f"{value:.3f}")
        return f'<td class="num">{text}</td>'
    if isinstance(value, int):
        return f'<td class="num">{value}</td>'
    if isinstance(value, datetime):
        return f"<td>{value:%Y-%m-%d %H:%M}</td>"
    return f"<td>{html.escape(str(value))}</td>"


def money(usd: float) -> str:
    """A cost in USD to three decimals, or to two significant digits when it is smaller (down to the
    nano-dollar it is kept in), so a small cost never reads as zero: 1.234, 0.012, 0.00042."""
    import math

    if usd == 0 or abs(usd) >= 0.01:
        return f"{usd:.3f}"
    return f"{usd:.{min(9, 1 - math.floor(math.log10(abs(usd))))}f}"


def _table(rows: list[dict[str, Any]], columns: list[str], empty: str, link: Link | None = None) -> str:
    """A table of ``rows``' ``columns`` under readable headers (HEADERS); with ``link``, a submission or
    task cell links into the run viewer."""
    if not rows:
        return f'<p class="muted">{html.escape(empty)}</p>' if empty else ""
    head = "".join(f"<th>{html.escape(HEADERS.get(c, c.replace('_', ' ')))}</th>" for c in columns)
    body = "".join("<tr>" + "".join(_linked(c, r[c], link) for c in columns) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _linked(key: str, value: Any, link: Link | None) -> str:
    kind = {"submission_id": "submission", "task_id": "task"}.get(key)
    href = link(kind, value) if link is not None and kind is not None and isinstance(value, str) else None
    if href is None:
        return _cell(key, value)
    return f'<td><a href="{html.escape(href)}">{html.escape(value)}</a></td>'


def nice_ticks(max_value: float, *, count: int = 4) -> list[float]:
    """Axis ticks from 0 at round steps (1, 2, 2.5 or 5 times a power of ten), the last at or above
    ``max_value``: at most ``count`` steps."""
    import math

    if max_value <= 0:
        return [0.0, 1.0]
    raw = max_value / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    steps = math.ceil(max_value / step - 1e-9)
    return [round(i * step, 10) for i in range(steps + 1)]


def _tick_label(value: float, unit: str) -> str:
    return f"{value:g}{unit}"


def bar_chart(title: str, groups: list[str], series: dict[str, dict[str, float | None]], *,
              max_value: float, unit: str) -> str:
    """A grouped bar chart as inline SVG: one group per entry of ``groups`` (e.g. servers), one bar
    per series (e.g. submissions); ``series[name][group]`` is the bar's value (None: no bar). The
    y axis runs from 0 to the first round tick at or above ``max_value``, and its margin is as wide as
    its longest label, so no label is clipped."""
    names = list(series)
    ticks = nice_ticks(max_value)
    top_value = ticks[-1]
    labels = [_tick_label(t, unit) for t in ticks]
    bar_w, gap, chart_h, top = 14, 18, 180, 28
    left = 12 + 7 * max(len(label) for label in labels)  # ~7 px per character at font-size 10
    # a group is as wide as its bars or its label (~7.5 px per character at font-size 11), whichever is wider
    group_w = max(max(1, len(names)) * bar_w + gap, 8 * max((len(g) for g in groups), default=0) + 10)
    width = max(left + len(groups) * group_w + 10,
                10 * len(title) + 10,  # the title, ~9 px per character at font-size 14 (bold)
                left + 26 + 8 * max((len(n) for n in names), default=0))  # the legend
    bars_w = max(1, len(names)) * bar_w
    legend_h = 18 * len(names)
    height = top + chart_h + 60 + legend_h
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
             f'role="img" aria-label="{html.escape(title)}">',
             f'<text x="0" y="16" font-size="14" font-weight="600">{html.escape(title)}</text>']
    for tick, label in zip(ticks, labels):
        y = top + chart_h - chart_h * tick / top_value
        parts.append(f'<line x1="{left}" x2="{width}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eee"/>'
                     f'<text class="tick" x="{left - 4}" y="{y + 4:.1f}" font-size="10" text-anchor="end">'
                     f'{html.escape(label)}</text>')
    for gi, group in enumerate(groups):
        x0 = left + gi * group_w + (group_w - bars_w) / 2
        for si, name in enumerate(names):
            value = series[name].get(group)
            if value is None:
                continue
            # a bar of 0 is a 2 px stub with "0" over it: a measured zero, never mistaken for a missing bar
            h = max(2.0, chart_h * min(value, top_value) / top_value)
            if value == 0:
                parts.append(f'<text class="zero" x="{x0 + si * bar_w + (bar_w - 2) / 2:.1f}" y="{top + chart_h - 5}" '
                             f'font-size="9" text-anchor="middle">0</text>')
            parts.append(f'<rect x="{x0 + si * bar_w:.1f}" y="{top + chart_h - h:.1f}" width="{bar_w - 2}" '
                         f'height="{h:.1f}" fill="{_PALETTE[si % len(_PALETTE)]}">'
                         f'<title>{html.escape(name)} on {html.escape(group)}: {value:.1f}{html.escape(unit)}'
                         f'</title></rect>')
        parts.append(f'<text x="{x0 + len(names) * bar_w / 2:.1f}" y="{top + chart_h + 14}" font-size="11" '
                     f'text-anchor="middle">{html.escape(group)}</text>')
    for si, name in enumerate(names):
        y = top + chart_h + 34 + 18 * si
        parts.append(f'<rect x="{left}" y="{y - 10}" width="10" height="10" fill="{_PALETTE[si % len(_PALETTE)]}"/>'
                     f'<text x="{left + 16}" y="{y}" font-size="11">{html.escape(name)}</text>')
    parts.append("</svg>")
    return "".join(parts)


#: Readable column headers (a column not named here shows its key, underscores as spaces).
HEADERS = {
    "submission_id": "submission", "success_rate_95ci": "success (95% CI)", "separable_from_next": "separable from next",
    "hallucination_rate": "hallucination", "recovery_rate": "recovery", "collateral_damage_rate": "collateral damage",
    "pass_hat_k_95ci": "pass^k (95% CI)", "pass_at_k_95ci": "pass@k (95% CI)", "tokens_per_run": "tokens / run",
    "cost_usd": "cost (USD)", "prior_submissions": "prior submissions", "prior_mean": "prior mean",
    "prior_sd": "prior sd", "z_score": "z score", "prior_success_rate": "prior success", "submitters_passed":
    "submitters passed", "task_id": "task", "pass_rate_95ci": "pass rate (95% CI)", "predicate_false": "predicate false",
    "frame_violated": "frame violated", "over_budget": "over budget", "agent_exit": "agent exit",
}
#: How many rows the failure-reason and hardest-task tables show.
REPORT_ROWS = 20
#: Why a run ended, as the failure-reason table's columns (``infra`` sums every ``infra:<kind>``).
REASON_COLUMNS = ("passed", "predicate_false", "frame_violated", "over_budget", "timeout", "agent_exit", "infra")

#: ``link(kind, id)``: where a submission (``kind`` "submission") or a task ("task") is shown in the run
#: viewer, or None for no link (``mcpbench report --viewer-url`` makes it).
Link = Callable[[str, str], str | None]


def render_html(source: Warehouse | duckdb.DuckDBPyConnection, *, top: int = 5, warning: str | None = None,
                link: Link | None = None) -> str:
    """The report page for the warehouse ``source`` (:mod:`warehouse.reader`): the leaderboards, the dev
    and folder submissions (never ranked), why runs ended per submission, the hardest tasks, the success
    rate by private month, per-server charts of the ``top`` ranked contemporary submissions (or, when
    nothing is ranked, of the latest dev and folder submissions) and the anomaly flags. Only
    submissions that covered their month are ranked; the others are listed apart with their coverage.
    ``warning`` (default: an open warehouse's label, when its data is unchecked) is shown as a banner at
    the top; ``link`` puts links into the run viewer on submissions and tasks. It fits a 1280 px window."""
    con = connection(source)
    if warning is None and isinstance(source, Warehouse):
        warning = source.label()
    board_cols = ["rank", "submission_id", "agent", "attempted", "success_rate_95ci", "separable_from_next",
                  "efficiency", "hallucination_rate", "recovery_rate", "collateral_damage_rate", "infra_errors",
                  "under_review"]
    trial_cols = ["trials", "pass_hat_k_95ci", "pass_at_k_95ci", "tokens_per_run", "cost_usd"]
    coverage_cols = ["submission_id", "submitter", "agent", "tasks_covered", "tasks_in_month", "coverage",
                     "attempted", "passed", "success_rate_95ci"]
    labels = submission_labels(con)
    everyone = _labelled(_with_intervals(_records(con, "select * from leaderboard_contemporary"), "success_rate",
                                         "pass_hat_k", "pass_at_k", "cross_server_success_rate"), labels)
    month = everyone[0]["month"] if everyone else None
    board = [r for r in everyone if r["rank"] is not None]
    if any(r["cross_server_attempted"] for r in everyone):  # its cross-server tasks, scored apart
        board_cols.insert(board_cols.index("under_review"), "cross_server_success_rate_95ci")
    partial = [r for r in everyone if r["rank"] is None]
    historical_all = _labelled(_with_intervals(_records(con, "select * from leaderboard_historical"), "success_rate",
                                               "pass_hat_k", "pass_at_k", "cross_server_success_rate"), labels)
    historical = [r for r in historical_all if r["rank"] is not None]
    historical_partial = [r for r in historical_all if r["rank"] is None]
    unranked = _labelled(_with_intervals(_records(
        con, "select *, wilson_low(passed, attempted) as success_rate_ci_low, "
             "wilson_high(passed, attempted) as success_rate_ci_high from metrics_by_submission "
             "where split_kind in ('dev', 'folder') order by submitted_at desc, submission_id limit ?",
        [REPORT_ROWS]), "success_rate"), labels)
    leaders = [r["submission_id"] for r in board[:top]] or [r["submission_id"] for r in unranked[:top]]
    generated = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")

    def table(rows: list[dict[str, Any]], columns: list[str], empty: str) -> str:
        return _table(rows, columns, empty, link)

    sections = [
        "<h1>MCPBench leaderboard</h1>",
        *([f'<p class="warning" id="unchecked">{html.escape(warning)}</p>'] if warning else []),
        f'<p class="muted">Generated {generated}. Success rate = passed / attempted (infra errors are not '
        "attempted); efficiency = mean tool calls / max steps over passed runs (lower is better); collateral "
        "damage = attempted runs that changed something outside their task's frame / attempted. "
        "Every success rate is shown with its 95% Wilson score interval, from the integer counts (over runs; "
        "pass^k and pass@k over tasks with all k trials attempted); an entry is not separable from the next "
        "when their intervals overlap. Dev-set scores never rank.</p>",
        f"<h2>Contemporary: {html.escape(month or 'no private month yet')}</h2>",
        table(board, board_cols, "No submission has covered a private month yet."),
        *(["<h3>Trials and model cost, contemporary</h3>", table(board, ["rank", "submission_id", *trial_cols], "")]
          if board else []),
        *(["<h3>Not ranked: did not cover the month</h3>",
           table(partial, coverage_cols, "")] if partial else []),
        "<h2>Dev and folder submissions (never ranked)</h2>",
        table(unranked, ["submission_id", "agent", "split", "attempted", "passed", "success_rate_95ci", "efficiency",
                         "hallucination_rate", "collateral_damage_rate", "infra_errors"],
              "No dev-set or folder submission."),
        "<h2>Why runs ended, per submission</h2>",
        _reasons(con, link),
        "<h2>Hardest tasks</h2>",
        _hardest(con, link),
        "<h2>Success rate by private month</h2>",
        _months(con),
        "<h2>Per server" + (" (top submissions)" if board else " (latest dev and folder submissions)") + "</h2>",
        _per_server(con, leaders, labels, link),
        "<h2>Anomaly flags</h2><h3>Submissions under review</h3>",
        table(_with_intervals(_records(
            con, "select f.*, wilson_low(m.passed, m.attempted) as success_rate_ci_low, "
                 "wilson_high(m.passed, m.attempted) as success_rate_ci_high from anomaly_submitter_flags f "
                 "join metrics_by_submission m on m.submission_id = f.submission_id order by f.submitted_at desc"),
            "success_rate"),
            ["submission_id", "submitter", "split", "success_rate_95ci", "prior_submissions", "prior_mean", "prior_sd",
             "z_score", "reason"], "No submission flagged."),
        "<h3>Tasks suspected leaked</h3>",
        table(_with_intervals(_records(
            con, "select *, wilson_low(passes, attempts) as success_rate_ci_low, "
                 "wilson_high(passes, attempts) as success_rate_ci_high from anomaly_task_flags "
                 "order by month desc, jump desc"), "success_rate"),
            ["task_id", "server", "month", "success_rate_95ci", "prior_success_rate", "submitters_passed", "reason"],
            "No task flagged."),
        "<h2>Historical (retired public months)</h2>",
        table(historical, ["month", "rank", "submission_id", "agent", "attempted", "success_rate_95ci",
                           "separable_from_next", "efficiency", "hallucination_rate", "recovery_rate",
                           "collateral_damage_rate"], "No historical submissions yet."),
        *(["<h3>Trials and model cost, historical</h3>",
           table(historical, ["month", "rank", "submission_id", *trial_cols], "")] if historical else []),
        *(["<h3>Not ranked: did not cover the retired month</h3>",
           table(historical_partial, ["month", *coverage_cols], "")] if historical_partial else []),
    ]
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>MCPBench report</title>"
            f"<style>{_CSS}</style></head><body>{''.join(sections)}</body></html>\n")


def _reasons(con: duckdb.DuckDBPyConnection, link: Link | None) -> str:
    """Runs by why they ended, one row per submission (the REPORT_ROWS latest)."""
    counts = _records(con, "with subs as (select submission_id, any_value(split) as split, min(started_at) as started, "
                           "count(*) as runs from stg_runs group by submission_id order by started desc, submission_id "
                           "limit ?) select s.submission_id, s.split, s.runs, s.started, "
                           "case when r.end_reason like 'infra:%' then 'infra' else r.end_reason end as reason, "
                           "count(*) as n from subs s join stg_runs r on r.submission_id = s.submission_id "
                           "group by all order by s.started desc, s.submission_id", [REPORT_ROWS])
    rows: dict[str, dict[str, Any]] = {}
    for c in counts:
        row = rows.setdefault(c["submission_id"], {"submission_id": c["submission_id"], "split": c["split"],
                                                   "runs": c["runs"], **dict.fromkeys(REASON_COLUMNS, 0)})
        row[c["reason"] if c["reason"] in REASON_COLUMNS else "infra"] += c["n"]
    return _table(list(rows.values()), ["submission_id", "split", "runs", *REASON_COLUMNS], "No runs yet.", link)


def _hardest(con: duckdb.DuckDBPyConnection, link: Link | None) -> str:
    """The REPORT_ROWS tasks with the lowest pass rate over every attempted run of every submission."""
    rows = _with_intervals(_records(
        con, "select *, passed / attempted as pass_rate, wilson_low(passed, attempted) as pass_rate_ci_low, "
             "wilson_high(passed, attempted) as pass_rate_ci_high from (select task_id, any_value(server) as server, "
             "any_value(difficulty) as difficulty, count(distinct submission_id) as submissions, "
             "count(*) filter (where attempted) as attempted, count(*) filter (where passed) as passed "
             "from stg_runs group by task_id) where attempted > 0 order by pass_rate, attempted desc, task_id limit ?", [REPORT_ROWS]), "pass_rate")
    (tasks,) = con.execute("select count(distinct task_id) from stg_runs where attempted").fetchone() or (0,)
    note = (f'<p class="muted">The {len(rows)} tasks with the lowest pass rate of the {tasks} attempted, over every '
            "attempted run of every submission.</p>") if rows else ""
    return note + _table(rows, ["task_id", "server", "difficulty", "submissions", "attempted", "passed",
                                "pass_rate_95ci"], "No attempted runs yet.", link)


def _months(con: duckdb.DuckDBPyConnection) -> str:
    """The success rate of each private month: over all its attempted runs, and its best submission's."""
    rows = _records(con, "select *, passed / nullif(attempted, 0) as success_rate, "
                         "wilson_low(passed, attempted) as success_rate_ci_low, "
                         "wilson_high(passed, attempted) as success_rate_ci_high, "
                         "(select max(m.success_rate) from metrics_by_submission m where m.split_kind = 'private' "
                         " and m.split = months.month) as best_success_rate "
                         "from (select month, count(distinct submission_id) as submissions, "
                         "count(*) filter (where attempted) as attempted, count(*) filter (where passed) as passed "
                         "from stg_runs where split_kind = 'private' group by month) months order by month")
    if not rows:
        return '<p class="muted">No private month has runs yet.</p>'
    months = [r["month"] for r in rows]
    series = {"all submissions": {r["month"]: None if r["success_rate"] is None else 100 * r["success_rate"]
                                  for r in rows},
              "best submission": {r["month"]: None if r["best_success_rate"] is None else 100 * r["best_success_rate"]
                                  for r in rows}}
    return (bar_chart("Success rate by private month", months, series, max_value=100, unit="%")
            + _table(_with_intervals(rows, "success_rate"), ["month", "submissions", "attempted", "passed",
                                                             "success_rate_95ci"], "", None))


def _per_server(con: duckdb.DuckDBPyConnection, leaders: list[str], labels: dict[str, str], link: Link | None) -> str:
    per_server = _records(con, "select submission_id, agent, server, success_rate, efficiency "
                               "from metrics_by_submission_server where submission_id in "
                               f"(select unnest(?::varchar[])) order by {SERVER_ORDER}", [leaders])
    servers = sorted({r["server"] for r in per_server}, key=lambda s: (s == CROSS_SERVER, s))
    if not servers:
        return '<p class="muted">No per-server results yet.</p>'
    label = {r["submission_id"]: f'{agent_name(r["agent"], labels.get(r["submission_id"]))} ({r["submission_id"]})'
             for r in per_server}
    success: dict[str, dict[str, Any]] = {label[s]: {} for s in leaders if s in label}
    efficiency: dict[str, dict[str, Any]] = {label[s]: {} for s in leaders if s in label}
    for r in per_server:
        success[label[r["submission_id"]]][r["server"]] = None if r["success_rate"] is None else 100 * r["success_rate"]
        efficiency[label[r["submission_id"]]][r["server"]] = r["efficiency"]
    server_ci = _labelled(_with_intervals(_records(
        con, "select agent, submission_id, server, pass_at_1 as success_rate, pass_at_1_ci_low as success_rate_ci_low, "
             "pass_at_1_ci_high as success_rate_ci_high, k as trials, tokens_per_run, cost_usd "
             "from trials_by_submission_server where submission_id in (select unnest(?::varchar[])) "
             f"order by {SERVER_ORDER}, submission_id", [leaders]), "success_rate"), labels)
    return (bar_chart("Success rate by server", servers, success, max_value=100, unit="%")
            + bar_chart("Efficiency by server (lower is better)", servers, efficiency,
                        max_value=max([v for s in efficiency.values() for v in s.values() if v] or [100]), unit="%")
            + _table(server_ci, ["server", "agent", "submission_id", "success_rate_95ci", "trials", "tokens_per_run",
                                 "cost_usd"], "No per-server results yet.", link))


def _labelled(rows: list[dict[str, Any]], labels: dict[str, str]) -> list[dict[str, Any]]:
    """Each row's ``agent`` as it is shown: the submitter's label for it (``--label``), then the agent."""
    for row in rows:
        row["agent"] = agent_name(row["agent"], labels.get(row["submission_id"]))
    return rows


def _with_intervals(rows: list[dict[str, Any]], *rates: str) -> list[dict[str, Any]]:
    """Each row with ``<rate>_95ci``: the rate and its interval as one text cell, e.g. ``62.5% [48.1-75.0]``."""
    for row in rows:
        for rate in rates:
            value, low, high = row.get(rate), row.get(f"{rate}_ci_low"), row.get(f"{rate}_ci_high")
            if value is None:
                row[f"{rate}_95ci"] = None
                continue
            assert low is not None and high is not None  # a rate has its interval (sql/macros/metrics.sql)
            row[f"{rate}_95ci"] = f"{100 * value:.1f}% [{100 * low:.1f}-{100 * high:.1f}]"
    return rows


def write_report(path: str | Path, source: Warehouse | duckdb.DuckDBPyConnection, *,
                 warning: str | None = None, link: Link | None = None) -> Path:
    """Write :func:`render_html`'s page to ``path`` (its folder made if needed)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_html(source, warning=warning, link=link), encoding="utf-8")
    return path


__all__ = ["HEADERS", "Link", "bar_chart", "money", "nice_ticks", "render_html", "write_report"]
