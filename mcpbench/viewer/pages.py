"""The viewer's pages as HTML: the boards, a submission, a task, a run (one page of its calls), search
results. Pure functions of what :mod:`mcpbench.viewer.data` read and of a :class:`Links`, which says
where a page is (the server's paths, or the static site's relative file names), so the server and the
exported site render the same pages.

Every value from the store is escaped (``html.escape``); the pages load nothing from elsewhere (inline
CSS, no scripts). A private month's run shows what its records keep and nothing more: tool names,
kinds, sizes, latencies and clause ids, never text, even if a record held some.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime
from html import escape
from typing import Any
from urllib.parse import quote, urlencode

from mcpbench.viewer.data import RunPage
from runstore.records import REDACTED

#: Characters of a result or a model turn shown before "show all".
PREVIEW_CHARS = 400
#: Lines of a result shown before "show all".
PREVIEW_LINES = 8

CSS = """
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, sans-serif; color: #1d1d1f; margin: 0; background: #fafafa; }
header { background: #22303c; color: #fff; padding: 0.5rem 1rem; display: flex; gap: 1rem; align-items: center;
  flex-wrap: wrap; }
header a { color: #fff; font-weight: 600; text-decoration: none; } header .where { color: #b8c4ce; font-size: 12px; }
header form { margin-left: auto; }
main { max-width: 1200px; margin: 0 auto; padding: 0.5rem 1rem 3rem; }
h1 { font-size: 1.35rem; margin: 0.8rem 0 0.4rem; overflow-wrap: anywhere; } h2 { font-size: 1.1rem; margin: 1.4rem 0 0.4rem; }
a { color: #0b57a4; }
table { border-collapse: collapse; width: 100%; margin: 0.3rem 0 1rem; background: #fff; }
th, td { border-bottom: 1px solid #e3e3e3; padding: 0.25rem 0.5rem; text-align: left; vertical-align: top;
  overflow-wrap: anywhere; }
th { background: #eef1f4; font-weight: 600; white-space: nowrap; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0.2rem 0; padding: 0.35rem 0.5rem; background: #f3f4f6;
  border-radius: 4px; font: 12.5px/1.4 ui-monospace, monospace; max-width: 100%; }
code { font: 12.5px ui-monospace, monospace; overflow-wrap: anywhere; }
.muted { color: #6b7280; } .note { background: #fff8e1; border: 1px solid #f0d98c; padding: 0.4rem 0.6rem; border-radius: 4px; }
.passed { color: #137333; font-weight: 600; } .failed, .infra_error { color: #b3261e; font-weight: 600; }
.meta { display: grid; grid-template-columns: repeat(auto-fill, minmax(260px, 1fr)); gap: 0.1rem 1rem; margin: 0.4rem 0; }
.meta div { overflow-wrap: anywhere; } .meta b { color: #4b5563; font-weight: 600; }
.why { background: #fff; border: 1px solid #f1b7b3; border-left: 4px solid #b3261e; padding: 0.5rem 0.8rem; border-radius: 4px; }
.clause { margin: 0.4rem 0 0.7rem; } .clause .label { font-weight: 600; }
.call, .turn { background: #fff; border: 1px solid #e3e3e3; border-radius: 4px; padding: 0.35rem 0.6rem; margin: 0.35rem 0; }
.call.error { border-left: 4px solid #b3261e; } .call.fault { border-left: 4px solid #e37400; }
.turn { background: #f5f3ff; border-color: #ddd6fe; }
.head { display: flex; flex-wrap: wrap; gap: 0.2rem 0.8rem; align-items: baseline; }
.tag { font-size: 12px; padding: 0 0.35rem; border-radius: 3px; background: #eef1f4; }
.tag.err { background: #fde8e8; color: #b3261e; } .tag.fault { background: #fff1e0; color: #9a4d00; }
.pager { margin: 0.6rem 0; display: flex; flex-wrap: wrap; gap: 0.3rem 0.7rem; align-items: baseline; }
mark { background: #fde68a; }
details > summary { cursor: pointer; color: #0b57a4; }
input[type=search] { width: 16rem; padding: 0.2rem 0.4rem; }
"""

_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,150}$")


def file_stem(value: str) -> str:
    """``value`` as part of a file name on the static site: itself when it is plain (letters, digits,
    ``._-``), else a digest of it (so a name never holds a path, a quote or a percent sign)."""
    if _SAFE_NAME.match(value):
        return value
    return "x" + hashlib.sha256(value.encode()).hexdigest()[:24]


class Links:
    """Where pages are on the server: ``/``, ``/submission/<id>``, ``/task/<id>``, ``/run/<id>?page=N``,
    ``/search?q=``."""

    search = True  # the server answers searches; a static site cannot

    def index(self) -> str:
        return "/"

    def submission(self, submission_id: str) -> str:
        return "/submission/" + quote(submission_id, safe="")

    def task(self, task_id: str) -> str:
        return "/task/" + quote(task_id, safe="")

    def run(self, run_id: str, page: int = 1, seq: int | None = None) -> str:
        return ("/run/" + quote(run_id, safe="") + (f"?page={page}" if page > 1 else "")
                + (f"#call-{seq}" if seq is not None else ""))

    def run_search(self, run_id: str, text: str) -> str:
        return "/run/" + quote(run_id, safe="") + "?" + urlencode({"q": text})


class SiteLinks(Links):
    """Where pages are on an exported static site: files side by side, linked relatively
    (``index.html``, ``submission-<id>.html``, ``task-<id>.html``, ``run-<id>.html``, ``run-<id>-p2.html``)."""

    search = False

    def index(self) -> str:
        return "index.html"

    def submission(self, submission_id: str) -> str:
        return f"submission-{file_stem(submission_id)}.html"

    def task(self, task_id: str) -> str:
        return f"task-{file_stem(task_id)}.html"

    def run(self, run_id: str, page: int = 1, seq: int | None = None) -> str:
        return (f"run-{file_stem(run_id)}" + (f"-p{page}" if page > 1 else "") + ".html"
                + (f"#call-{seq}" if seq is not None else ""))


def _a(href: str, text: str) -> str:
    return f'<a href="{escape(href)}">{escape(text)}</a>'


def layout(title: str, body: str, links: Links, *, where: str = "", search: str = "") -> str:
    """A whole page: the bar (home, the store, the search box where there is a server) and ``body``."""
    form = ("<form action=\"/search\" method=\"get\" role=\"search\"><input type=\"search\" name=\"q\" "
            f"placeholder=\"search all transcripts\" value=\"{escape(search)}\" aria-label=\"search all transcripts\"> "
            "<button>Search</button></form>") if links.search else ""
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{escape(title)}</title><style>{CSS}</style></head><body><header>"
            f"{_a(links.index(), 'MCPBench runs')}<span class=\"where\">{escape(where)}</span>{form}</header>"
            f"<main>{body}</main></body></html>\n")


def _when(value: Any) -> str:
    return f"{value:%Y-%m-%d %H:%M}" if isinstance(value, datetime) else "" if value is None else str(value)


def _pct(passed: int, runs: int) -> str:
    return f"{100 * passed / runs:.0f}%" if runs else "-"


def _status(status: str) -> str:
    return f'<span class="{escape(status)}">{escape(status)}</span>'


def _table(head: list[str], rows: list[list[str]], *, empty: str, numeric: set[int] | None = None) -> str:
    """A table of cells that are already HTML (escaped by their maker)."""
    if not rows:
        return f'<p class="muted">{escape(empty)}</p>'
    numeric = numeric or set()
    cells = "".join("<tr>" + "".join(f'<td class="num">{c}</td>' if i in numeric else f"<td>{c}</td>"
                                     for i, c in enumerate(row)) + "</tr>" for row in rows)
    return ("<table><thead><tr>" + "".join(f"<th>{escape(h)}</th>" for h in head)
            + f"</tr></thead><tbody>{cells}</tbody></table>")


def _interval(r: dict[str, Any]) -> str:
    if r.get("success_rate") is None:
        return "-"
    return (f"{100 * r['success_rate']:.1f}% "
            f"[{100 * r['success_rate_ci_low']:.1f}-{100 * r['success_rate_ci_high']:.1f}]")


def _board(rows: list[dict[str, Any]], links: Links, *, month: bool, empty: str) -> str:
    head = [*(["month"] if month else []), "rank", "submission", "agent", "success (95% CI)", "attempted",
            "coverage", "note"]
    body = []
    for r in rows:
        note = "under review" if r.get("under_review") else ("not ranked: did not cover the month"
                                                              if r["rank"] is None else "")
        body.append([*([escape(str(r["month"]))] if month else []), escape(str(r["rank"] or "-")),
                     _a(links.submission(r["submission_id"]), r["submission_id"]), escape(r["agent"]),
                     escape(_interval(r)), str(r["attempted"]), escape(f"{r['tasks_covered']}/{r['tasks_in_month']}"),
                     escape(note)])
    return _table(head, body, empty=empty, numeric={4 + month})


def index_page(boards: dict[str, list[dict[str, Any]]], links: Links, *, where: str) -> str:
    """The boards: the current private month's, the retired months', and every submission (dev and
    folder runs beside the ranked ones)."""
    month = boards["contemporary"][0]["month"] if boards["contemporary"] else None
    subs = []
    for r in boards["submissions"]:
        subs.append([_a(links.submission(r["submission_id"]), r["submission_id"]), escape(r["agent"]),
                     escape(r["split"]), escape(r["split_kind"]), str(r["runs"]), str(r["passed"]),
                     _pct(r["passed"], r["runs"] - r["infra_errors"]), str(r["infra_errors"]),
                     escape(str(r["rank"]) if r["rank"] is not None else "never ranked"
                            if r["split_kind"] in ("dev", "folder") else "-"),
                     escape(_when(r["started"]))])
    body = (
        "<h1>Leaderboards</h1>"
        '<p class="muted">Read from the store as it is now (not a checked warehouse build: '
        "<code>mcpbench leaderboard</code> gives the checked ranking). Dev and folder runs never rank; they "
        "are listed with every other submission below.</p>"
        f"<h2>Contemporary: {escape(month or 'no private month yet')}</h2>"
        + _board(boards["contemporary"], links, month=False, empty="No submission on a private month yet.")
        + "<h2>Historical (retired public months)</h2>"
        + _board(boards["historical"], links, month=True, empty="No submission on a retired month yet.")
        + "<h2>All submissions</h2>"
        + _table(["submission", "agent", "split", "kind", "runs", "passed", "pass rate", "infra errors", "rank",
                  "started (UTC)"], subs, empty="Nothing has landed in this store yet.", numeric={4, 5, 6, 7})
    )
    return layout("MCPBench runs", body, links, where=where)


def submission_page(data: dict[str, Any], links: Links, *, where: str) -> str:
    """A submission: its end reasons counted, then its runs, each linked."""
    runs = data["runs"]
    first = runs[0]
    sid = data["submission_id"]
    reasons = " · ".join(f"{escape(r['end_reason'])}: {r['runs']}" for r in data["end_reasons"])
    passed = sum(r["status"] == "passed" for r in runs)
    attempted = sum(r["status"] != "infra_error" for r in runs)
    rows = [[_a(links.task(r["task_id"]), r["task_id"]), str(r["trial"]), _status(r["status"]),
             escape(r["end_reason"] + (f" ({r['end_reason_detail']})" if r["end_reason_detail"] else "")),
             str(r["tool_calls"]), str(r["errors_observed"]), str(r["faults_injected"]), f"{r['duration_s']:.1f}s",
             _a(links.run(r["run_id"]), "open run")] for r in runs]
    body = (f"<p>{_a(links.index(), 'Leaderboards')} › submission</p><h1>Submission {escape(sid)}</h1>"
            f'<div class="meta"><div><b>agent</b> {escape(first["label"] or first["agent"])}'
            f'{" (" + escape(first["agent"]) + ")" if first["label"] else ""}</div>'
            f'<div><b>submitter</b> {escape(first["submitter"])}</div><div><b>split</b> {escape(first["split"])} '
            f'({escape(first["split_kind"])})</div><div><b>passed</b> {passed} of {attempted} attempted '
            f'({_pct(passed, attempted)})</div></div>'
            f"<h2>Why runs ended</h2><p>{reasons}</p><h2>Runs</h2>"
            + _table(["task", "trial", "status", "end reason", "calls", "errors", "faults", "duration", ""], rows,
                     empty="", numeric={1, 4, 5, 6, 7}))
    return layout(f"Submission {sid}", body, links, where=where)


def task_page(data: dict[str, Any], links: Links, *, where: str) -> str:
    """A task: its runs across submissions."""
    runs = data["runs"]
    passed = sum(r["status"] == "passed" for r in runs)
    attempted = sum(r["status"] != "infra_error" for r in runs)
    rows = [[_a(links.submission(r["submission_id"]), r["submission_id"]), escape(r["label"] or r["agent"]),
             escape(r["split"]), str(r["trial"]), _status(r["status"]), escape(r["end_reason"]), str(r["tool_calls"]),
             escape(_when(r["started_at"])), _a(links.run(r["run_id"]), "open run")] for r in runs]
    first = runs[0]
    body = (f"<p>{_a(links.index(), 'Leaderboards')} › task</p><h1>Task {escape(data['task_id'])}</h1>"
            f'<div class="meta"><div><b>server</b> {escape(first["server"])}</div><div><b>difficulty</b> '
            f'{escape(first["difficulty"])}</div><div><b>category</b> {escape(first["category"])}</div>'
            f"<div><b>passed</b> {passed} of {attempted} attempted runs ({_pct(passed, attempted)})</div></div>"
            "<h2>Runs across submissions</h2>"
            + _table(["submission", "agent", "split", "trial", "status", "end reason", "calls", "started (UTC)", ""],
                     rows, empty="", numeric={3, 6}))
    return layout(f"Task {data['task_id']}", body, links, where=where)


# -- a run ------------------------------------------------------------------------------------------------
def _long_text(text: str, *, what: str, size: int | None = None, cut_at: int | None = None) -> str:
    """``text`` in a block; a long one shows its start, and the whole behind "show all"."""
    lines = text.split("\n")
    note = f" (kept {cut_at} of {size} bytes)" if cut_at else ""
    if len(text) <= PREVIEW_CHARS and len(lines) <= PREVIEW_LINES:
        return f"<pre>{escape(text)}</pre>" + (f'<div class="muted">{escape(note.strip())}</div>' if note else "")
    preview = "\n".join(lines[:PREVIEW_LINES])[:PREVIEW_CHARS]
    total = f"{size} bytes" if size is not None else f"{len(text)} characters"
    return (f'<pre class="preview">{escape(preview)} …</pre><details><summary>show the whole {escape(what)} '
            f"({escape(total)}){escape(note)}</summary><pre>{escape(text)}</pre></details>")


def _arguments(raw: str) -> str:
    try:
        return json.dumps(json.loads(raw), indent=1, ensure_ascii=False)
    except ValueError:
        return raw


def _call(c: dict[str, Any], private: bool) -> str:
    classes = "call" + (" error" if c["is_error"] else "") + (" fault" if c["fault"] else "")
    tags = [f'<span class="tag">{c["latency_ms"]:.1f} ms</span>',
            f'<span class="tag">{c["result_bytes"]} B result</span>']
    if not c["listed"]:
        tags.append('<span class="tag err">not a listed tool</span>')
    if c["is_error"]:
        tags.append(f'<span class="tag err">error: {escape(c["error_kind"] or "error")}</span>')
    if c["fault"] and not private:
        tags.append(f'<span class="tag fault">injected fault: {escape(c["fault"])}</span>')
    parts = [f'<div class="{classes}" id="call-{c["seq"]}"><div class="head"><a href="#call-{c["seq"]}">#{c["seq"]}'
             f'</a><b>{escape(c["tool"])}</b>{"".join(tags)}<span class="muted">{escape(_when(c["ts"]))}</span></div>']
    if private:
        parts.append('<div class="muted">a private month keeps no arguments, results or error text</div>')
    else:
        args = c["arguments_json"] or ""
        parts.append('<div class="label muted">arguments' + (" (cut at 4 KiB)" if c["truncated"] else "") + "</div>"
                     + _long_text(_arguments(args), what="arguments", size=c["arguments_bytes"]))
        if c["is_error"] and c["error_message"]:
            parts.append(f'<div class="label muted">error</div><pre>{escape(c["error_message"])}</pre>')
        if c["result_text"] is not None and c["result_text"] != c["error_message"]:
            parts.append('<div class="label muted">result</div>'
                         + _long_text(c["result_text"], what="result", size=c["result_bytes"],
                                      cut_at=c["result_cap"] if c["result_truncated"] else None))
    return "".join(parts) + "</div>"


def _turn(t: dict[str, Any], private: bool) -> str:
    tokens = f'{t["prompt_tokens"]} + {t["completion_tokens"]} tokens' + (" (estimated)" if t["tokens_estimated"] else "")
    head = (f'<div class="head"><b>model turn {t["seq"]}</b><span class="tag">{escape(t["model"])}</span>'
            f'<span class="tag{" err" if t["status"] != "ok" else ""}">{escape(t["status"])}'
            f'{" / " + escape(t["finish_reason"]) if t["finish_reason"] else ""}</span>'
            f'<span class="tag">{escape(tokens)}</span><span class="tag">{t["latency_ms"]:.0f} ms</span>'
            f'<span class="tag">{t["tool_calls"]} tool calls</span></div>')
    text = "" if private or not t["text"] else _long_text(t["text"], what="model text",
                                                          cut_at=t["text_cap"] if t["text_truncated"] else None)
    return f'<div class="turn">{head}{text}</div>'


def _touching(page: RunPage, clause: str, links: Links, page_of) -> str:
    """The calls whose arguments name what the clause is about, linked; or that none did."""
    calls = page.touching[clause]
    if not calls:
        return "<div><b>calls</b> no call's arguments name what this clause is about</div>"
    rid = page.run["run_id"]
    items = ", ".join(_a(links.run(rid, page_of(c["seq"]), c["seq"]), f"#{c['seq']} {c['tool']}")
                      + (" (error)" if c["is_error"] else "") for c in calls)
    return f"<div><b>calls about it</b> {items}</div>"


def _explanation(page: RunPage, links: Links, page_of) -> str:
    run = page.run
    explanation = page.explanation()
    parts = []
    if explanation is not None:
        for c in explanation.clauses:
            label = f"<code>{escape(c.clause)}</code>" + (f" <b>{escape(c.primitive)}</b>" if c.primitive else "")
            if c.negated:
                label += " (must not hold, and held)"
            rows = [f'<div class="label">Failed clause {label}</div>']
            if c.expected:
                rows.append(f"<div><b>expected</b> {escape(c.expected)}</div>")
            if c.found:
                rows.append(f"<div><b>found</b></div><pre>{escape(c.found)}</pre>")
            if c.clause in page.touching:
                rows.append(_touching(page, c.clause, links, page_of))
            if c.args:
                rows.append("<details><summary>the clause's arguments</summary>"
                            f"<pre>{escape(json.dumps(c.args, indent=1, ensure_ascii=False))}</pre></details>")
            parts.append(f'<div class="clause">{"".join(rows)}</div>')
        if explanation.clauses_omitted:
            parts.append(f"<p>… and {explanation.clauses_omitted} more failing clauses</p>")
        if explanation.frame:
            items = "".join(f"<li>{escape(_frame_line(f))}</li>" for f in explanation.frame)
            more = (f"<li>… and {explanation.frame_omitted} more</li>" if explanation.frame_omitted else "")
            parts.append(f'<div class="label"><b>Changed outside the task\'s frame</b></div><ul>{items}{more}</ul>')
    elif run["frame_violations"] and not page.private:
        parts.append(f"<div><b>Changed outside the task's frame</b></div><pre>{escape(run['frame_violations'])}</pre>")
    if run["infra_error"] and not page.private:
        parts.append(f"<div><b>infra error</b> {escape(run['infra_error'])}</div>")
    if page.private and explanation is not None:
        parts.append('<p class="muted">A private month keeps the failing clause ids only.</p>')
    return "".join(parts)


def _frame_line(f: Any) -> str:
    what = f"{f.entity} {f.id} {f.change}" if f.id is not None else f"{f.count or 1} {f.entity} {f.change}"
    return what + (f" ({', '.join(f.fields)})" if f.fields else "") + (f": {f.reason}" if f.reason else "")


def _pager(page: RunPage, links: Links) -> str:
    if page.pages == 1:
        return ""
    rid = page.run["run_id"]
    nearby = sorted({1, page.pages, *range(max(1, page.page - 3), min(page.pages, page.page + 3) + 1)})
    items, last = [], 0
    for n in nearby:
        if n - last > 1:
            items.append("<span>…</span>")
        items.append(f"<b>{n}</b>" if n == page.page else _a(links.run(rid, n), str(n)))
        last = n
    first_seq = page.calls[0]["seq"] if page.calls else 0
    last_seq = page.calls[-1]["seq"] if page.calls else 0
    prev = _a(links.run(rid, page.page - 1), "‹ previous") if page.page > 1 else ""
    nxt = _a(links.run(rid, page.page + 1), "next ›") if page.page < page.pages else ""
    return (f'<nav class="pager" aria-label="pages of calls"><span>calls {first_seq}–{last_seq} of '
            f"{page.total_calls}, page {page.page} of {page.pages}</span>{prev}{''.join(items)}{nxt}</nav>")


def _transcript(page: RunPage) -> str:
    """The page's calls in order, each model turn placed after the call it followed (``calls_before``)."""
    turns = list(page.turns)
    out = []
    for c in page.calls:
        while turns and turns[0]["calls_before"] < c["seq"]:
            out.append(_turn(turns.pop(0), page.private))
        out.append(_call(c, page.private))
    out += [_turn(t, page.private) for t in turns]
    return "".join(out) or '<p class="muted">The run made no calls.</p>'


def _search_hits(run_id: str, hits: list[dict[str, Any]], text: str, links: Links, page_of) -> str:
    if not hits:
        return f'<p class="muted">No call or model turn of this run holds “{escape(text)}”.</p>'
    items = []
    for h in hits:
        if h["kind"] == "call":
            snippet = _snippet(text, h["tool"], h["arguments_json"], h["result_text"], h["error_message"])
            items.append(f"<li>{_a(links.run(run_id, page_of(h['seq']), h['seq']), '#' + str(h['seq']))} "
                         f"<b>{escape(h['tool'])}</b> {snippet}</li>")
        else:
            seq = h["calls_before"] + 1
            items.append(f"<li>{_a(links.run(run_id, page_of(seq)), 'model turn ' + str(h['seq']))} "
                         f"{_snippet(text, h['text'])}</li>")
    return f'<ul class="hits">{"".join(items)}</ul>'


def _snippet(text: str, *fields: str | None, width: int = 80) -> str:
    """Where ``text`` is found in the first of ``fields`` that holds it: some characters either side,
    the match marked."""
    term = text.strip().lower()
    for field in fields:
        if field and term in field.lower():
            at = field.lower().index(term)
            start, end = max(0, at - width), min(len(field), at + len(term) + width)
            return (f'<code>{"…" if start else ""}{escape(field[start:at])}<mark>{escape(field[at:at + len(term)])}'
                    f'</mark>{escape(field[at + len(term):end])}{"…" if end < len(field) else ""}</code>')
    return ""


def run_page(page: RunPage, links: Links, *, where: str, search: str = "",
             hits: list[dict[str, Any]] | None = None, page_of=None) -> str:
    """One page of a run: what it was asked (where published), how it ended and why (the explanation:
    each failing clause, expected against found; the frame breaks), its errors, a search box (on the
    server), the page's calls with the model turns among them, and the agent's stderr tail."""
    r = page.run
    rid = r["run_id"]
    status = _status(r["status"])
    detail = f" ({r['end_reason_detail']})" if r["end_reason_detail"] else ""
    meta = [("task", _a(links.task(r["task_id"]), r["task_id"])),
            ("submission", _a(links.submission(r["submission_id"]), r["submission_id"])),
            ("agent", escape(r["label"] + f" ({r['agent']})" if r["label"] else r["agent"])),
            ("split", escape(f"{r['split']} ({r['split_kind']})")), ("trial", str(r["trial"])),
            ("server", escape(r["server"])), ("started", escape(_when(r["started_at"]) + " UTC")),
            ("duration", f"{r['duration_s']:.1f}s (agent {r['agent_s']:.1f}s)"),
            ("calls", f"{r['tool_calls']} of max {r['max_steps']}; {r['errors_observed']} errors; "
                      f"{r['faults_injected']} faults injected"),
            ("exit code", escape(str(r["exit_code"]))),
            ("model", f"{r['model_requests']} requests, {r['model_prompt_tokens']} + {r['model_completion_tokens']} tokens"
                      + (f", {page.total_turns} turns kept" if page.total_turns else ""))]
    goal = r["goal"] if r["goal"] != REDACTED else None
    parts = [f"<p>{_a(links.index(), 'Leaderboards')} › {_a(links.submission(r['submission_id']), r['submission_id'])}"
             f" › {_a(links.task(r['task_id']), r['task_id'])} › run</p>",
             f"<h1>Run {escape(rid)}</h1>",
             f"<p>{status} — ended <b>{escape(r['end_reason'])}</b>{escape(detail)}</p>"]
    if page.private:
        parts.append('<p class="note">A run on a private month: its records keep no text (no goal, arguments, '
                     "results, error text, model text or stderr; the failing clauses by id only). That is all "
                     "shown here.</p>")
    parts.append('<div class="meta">' + "".join(f"<div><b>{escape(k)}</b> {v}</div>" for k, v in meta) + "</div>")
    parts.append("<h2>Goal</h2>" + (f"<pre>{escape(goal)}</pre>" if goal else
                                    f'<p class="muted">{escape(REDACTED)}: the submitter did not publish goals'
                                    + (" (never on a private month)" if page.private else "") + ".</p>"))
    why = _explanation(page, links, page_of or (lambda seq: 1))
    if why or r["status"] != "passed":
        parts.append(f'<h2>Why it did not pass</h2><div class="why"><p>end reason <b>{escape(r["end_reason"])}</b>'
                     f"{escape(detail)}</p>{why}</div>")
    if page.error_seqs:
        shown = page.error_seqs[:30]
        links_to = ", ".join(_a(links.run(rid, page_of(s) if page_of else 1, s), f"#{s}") for s in shown)
        more = f" and {len(page.error_seqs) - len(shown)} more" if len(page.error_seqs) > len(shown) else ""
        parts.append(f"<p><b>Calls answered with an error:</b> {links_to}{more}</p>")
    parts.append(f"<h2>Transcript: {page.total_calls} calls, {page.total_turns} model turns</h2>")
    if links.search and not page.private:
        parts.append(f'<form method="get" action="{escape(links.run(rid))}" role="search"><input type="search" '
                     f'name="q" value="{escape(search)}" placeholder="search this transcript" '
                     'aria-label="search this transcript"> <button>Search</button></form>')
        if hits is not None:
            parts.append(f"<h3>Found in this run: {len(hits)}</h3>" + _search_hits(rid, hits, search, links, page_of))
    parts += [_pager(page, links), _transcript(page), _pager(page, links)]
    if page.page == page.pages:
        tail = r["stderr_tail"] if not page.private else None
        parts.append("<h2>Agent stderr (tail)</h2>" + (f"<pre>{escape(tail)}</pre>" if tail else
                                                       '<p class="muted">empty or not kept</p>'))
    return layout(f"Run {rid}", "".join(parts), links, where=where)


def search_page(text: str, hits: list[dict[str, Any]], count: int, links: Links, page_of, *, where: str,
                error: str | None = None) -> str:
    """Calls across every transcript (private months aside) whose text holds ``text``."""
    if error:
        body = f"<h1>Search</h1><p class=\"note\">{escape(error)}</p>"
    elif not hits:
        body = f"<h1>Search</h1><p class=\"muted\">No call outside private months holds “{escape(text)}”.</p>"
    else:
        rows = [[_a(links.run(h["run_id"], page_of(h["seq"]), h["seq"]), f"{h['run_id']} #{h['seq']}"),
                 escape(h["task_id"]), escape(h["end_reason"]), f"<b>{escape(h['tool'])}</b> "
                 + _snippet(text, h["tool"], h["arguments_json"], h["result_text"], h["error_message"])] for h in hits]
        shown = f"{count} calls" + (f", the first {len(hits)} shown" if count > len(hits) else "")
        body = (f"<h1>Search: “{escape(text)}”</h1><p>{escape(shown)} (private months are never searched)</p>"
                + _table(["call", "task", "run ended", "where"], rows, empty=""))
    return layout(f"Search {text}", body, links, where=where, search=text)


def error_page(status: int, message: str, links: Links, *, where: str) -> str:
    return layout(f"{status}", f"<h1>{status}</h1><p>{escape(message)}</p>", links, where=where)


__all__ = ["CSS", "Links", "SiteLinks", "error_page", "file_stem", "index_page", "layout", "run_page", "search_page",
           "submission_page", "task_page"]
