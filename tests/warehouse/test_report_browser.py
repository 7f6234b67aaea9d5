"""The HTML report as a browser shows it: headless Chromium (Debian's `chromium` package; scripts/setup.sh
installs it) renders the page after a private month with three submissions, one of which ran only a
few of the month's tasks. The page itself has no scripts; the test appends one to a copy of it that
measures what Chromium laid out and writes the measurements into the DOM, which Chromium then dumps."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest

from tests.warehouse.conftest import T0, make_calls, make_run, ok
from warehouse.build import build
from warehouse.report import nice_ticks, write_report

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed "
                                "(`apt-get install chromium`; scripts/setup.sh does it)")
MONTH_TASKS = [f"task-{i:02d}" for i in range(10)]
SERVERS = ("slack", "github", "filesystem")

MEASURE = """
<script>
const out = {ticks: [], texts: [], svgs: [], ranked: [], unranked: [], tables: {}};
for (const svg of document.querySelectorAll("svg")) {
  const box = svg.getBoundingClientRect();
  out.svgs.push({label: svg.getAttribute("aria-label"), width: box.width});
  let previousRight = -1;
  for (const t of svg.querySelectorAll("text")) {
    const b = t.getBBox();
    const item = {chart: svg.getAttribute("aria-label"), text: t.textContent, x: b.x, right: b.x + b.width,
                  y: b.y, svgWidth: svg.width.baseVal.value};
    if (t.classList.contains("tick")) out.ticks.push(item);
    else out.texts.push(item);
  }
}
const tables = [...document.querySelectorAll("h2, h3, table")];
let section = null;
for (const el of tables) {
  if (el.tagName !== "TABLE") { section = el.textContent; continue; }
  const rows = [...el.querySelectorAll("tbody tr")].map(tr => [...tr.cells].map(c => c.textContent));
  if (section.startsWith("Contemporary")) out.ranked = rows;
  if (section.startsWith("Not ranked: did not cover the month")) out.unranked = rows;
  out.tables[section] = {head: [...el.querySelectorAll("thead th")].map(th => th.textContent), rows: rows};
}
const pre = document.createElement("pre");
pre.id = "measured";
pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
</script>
"""


def _chromium(*args: str, timeout: float = 120) -> str:
    proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                           "--no-first-run", "--hide-scrollbars", *args],
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


@pytest.fixture
def report(store, tmp_path):
    """A private month of 10 tasks (its list published in the store) with three submissions: two
    covered it, one ran 3 of its tasks (and passed them all); sub-steady's model cost 20 micro-dollars
    a run, and sub-thrifty broke the frame of one task. And a retired month with one submission, two trials
    of three tasks (pass^k 1/3, pass@k 2/3)."""
    store.put_bytes("public/attestations/2026-05.json", json.dumps(
        {"month": "2026-05", "tasks": [{"task_id": t, "sha256": "0" * 64} for t in MONTH_TASKS]}).encode())
    plans = {"sub-steady": (8, 3), "sub-thrifty": (6, 2), "sub-partial": (3, 7)}  # passed tasks, tool calls
    batch = []
    for day, (sub, (passed, steps)) in enumerate(plans.items()):
        tasks = MONTH_TASKS[:3] if sub == "sub-partial" else MONTH_TASKS
        for i, task in enumerate(tasks):
            server = SERVERS[i % 3]
            broke = sub == "sub-thrifty" and i == passed
            run = make_run(f"{sub}-{task}", submission_id=sub, agent=f"agent-{sub[4:]}", task_id=task, server=server,
                           status="passed" if i < passed else "failed", tool_calls=steps,
                           started_at=T0 + timedelta(days=day), frame_held=not broke,
                           frame_violations="slack.channel C02 updated (topic): outside the frame" if broke else None,
                           model_cost_nanousd=20_000 if sub == "sub-steady" else 0)
            batch.append((run, make_calls(run, [ok()] * steps)))
    for task, outcomes in zip(MONTH_TASKS, [(True, True), (True, False), (False, False)]):
        for trial, passed in enumerate(outcomes, start=1):
            run = make_run(f"sub-past-{task}-t{trial}", submission_id="sub-past", split="historical-2026-01",
                           task_id=task, trial=trial, status="passed" if passed else "failed", tool_calls=1,
                           model_prompt_tokens=900, model_completion_tokens=100, model_cost_nanousd=3_000_000)
            batch.append((run, make_calls(run, [ok()])))
    store.land_runs(batch)
    db = build(store, tmp_path / "warehouse.duckdb").path
    import duckdb

    with duckdb.connect(str(db), read_only=True) as con:
        return write_report(tmp_path / "report.html", con)


def test_the_report_ranks_only_complete_submissions_and_its_charts_fit_in_chromium(report, tmp_path):
    page = tmp_path / "measured.html"
    page.write_text(report.read_text().replace("</body>", MEASURE + "</body>"))
    dom = _chromium("--virtual-time-budget=5000", "--dump-dom", page.as_uri())
    start = dom.index('<pre id="measured">') + len('<pre id="measured">')
    measured = json.loads(dom[start:dom.index("</pre>", start)].replace("&quot;", '"').replace("&amp;", "&"))

    assert [(row[0], row[1]) for row in measured["ranked"]] == [("1", "sub-steady"), ("2", "sub-thrifty")]
    assert [(row[0], row[3], row[4]) for row in measured["unranked"]] == [("sub-partial", "3", "10")]
    tables = {section.split(":")[0]: table for section, table in measured["tables"].items()}

    def column(section, name):
        head = tables[section]["head"]
        assert name in head, (section, head)
        return [row[head.index(name)] for row in tables[section]["rows"]]

    # the fifth metric, beside the other four
    assert column("Contemporary", "collateral damage") == ["0.0%", "10.0%"]
    # every success rate the page shows carries its 95% interval, and no table shows a bare one
    interval = re.compile(r"^\d+\.\d% \[\d+\.\d-\d+\.\d\]$")
    for section, table in tables.items():
        assert not {"success rate", "pass hat k", "pass at k"} & set(table["head"]), (section, table["head"])
        for name in (h for h in table["head"] if h.endswith("(95% CI)")):
            assert all(interval.match(cell) for cell in column(section, name)), (section, name)
    assert column("Not ranked", "success (95% CI)") == ["100.0% [43.9-100.0]"]  # 3 of 3
    assert column("Contemporary", "success (95% CI)")[0] == "80.0% [49.0-94.3]"  # 8 of 10
    # a cost of 200 micro-dollars is not shown as 0.000
    assert column("Trials and model cost, contemporary", "cost (USD)") == ["0.00020", "0.000"]
    # the retired month's board has the trial columns: 2 trials; pass^k 1 of 3 tasks, pass@k 2 of 3
    assert column("Trials and model cost, historical", "trials") == ["2"]
    assert column("Trials and model cost, historical", "pass^k (95% CI)") == ["33.3% [6.1-79.2]"]
    assert column("Trials and model cost, historical", "pass@k (95% CI)") == ["66.7% [20.8-93.9]"]
    assert column("Trials and model cost, historical", "tokens / run") == ["1000.000"]
    assert column("Trials and model cost, historical", "cost (USD)") == ["0.018"]
    assert [s["label"] for s in measured["svgs"]] == ["Success rate by private month", "Success rate by server",
                                                      "Efficiency by server (lower is better)"] and measured["ticks"]
    for text in measured["ticks"] + measured["texts"]:  # axis labels, titles, server names, legends
        assert text["x"] >= 0 and text["right"] <= text["svgWidth"], text  # nothing clipped at either edge
    for chart in {t["chart"] for t in measured["texts"] if "by server" in t["chart"]}:
        groups = sorted((t for t in measured["texts"] if t["chart"] == chart and t["text"] in SERVERS),
                        key=lambda t: t["x"])
        assert [g["text"] for g in groups] == sorted(SERVERS)
        assert all(a["right"] < b["x"] for a, b in zip(groups, groups[1:])), groups  # server names do not overlap
    efficiency = [t["text"] for t in measured["ticks"] if t["chart"].startswith("Efficiency")]
    assert efficiency == ["0%", "10%", "20%", "30%"], efficiency  # round steps up to the 30% maximum

    shot = tmp_path / "report.png"
    _chromium(f"--screenshot={shot}", "--window-size=1280,1800", report.as_uri())
    shutil.copy(shot, "/tmp/op/report.png") if __import__("os").environ.get("MCPBENCH_KEEP_SCREENSHOT") else None
    assert shot.stat().st_size > 10_000 and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(("top", "ticks"), [(100, [0, 25, 50, 75, 100]), (37.5, [0, 10, 20, 30, 40]),
                                            (3.3, [0, 1, 2, 3, 4]), (0.07, [0, 0.02, 0.04, 0.06, 0.08]),
                                            (12.5, [0, 5, 10, 15])])
def test_axis_ticks_are_round_numbers_from_zero_to_past_the_maximum(top, ticks):
    assert nice_ticks(top) == pytest.approx(ticks)


def _dev_only_report(store, tmp_path, viewer_url: str) -> Path:
    """A store with dev runs only: sub-good passes its slack tasks and none of its github ones (a 0% bar),
    sub-bad fails everything, each run ending another way; the report links into the viewer at
    ``viewer_url``."""
    from mcpbench.commands.warehouse import viewer_link
    from warehouse.reader import open_warehouse

    batch = []
    for sub, outcomes in {"sub-good": ("passed", "passed", "predicate_false", "predicate_false"),
                          "sub-bad": ("timeout", "over_budget", "predicate_false", "agent_exit")}.items():
        for i, reason in enumerate(outcomes):
            server = "slack" if i < 2 else "github"
            run = make_run(f"{sub}--{server}-{i}", submission_id=sub, split="dev", month="2026-05",
                           task_id=f"{server}-task-{i}", server=server, tool_calls=2,
                           status="passed" if reason == "passed" else "failed", end_reason=reason,
                           timed_out=reason == "timeout", over_budget=reason == "over_budget",
                           agent_error=reason == "agent_exit")
            batch.append((run, make_calls(run, [ok(), ok()])))
    store.land_runs(batch)
    with open_warehouse(tmp_path / "w.duckdb", store=store) as opened:
        return write_report(tmp_path / "report.html", opened, link=viewer_link(viewer_url))


def _open_in_chromium(path: Path):
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-dev-shm-usage"])
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(path.as_uri())
    return playwright, browser, page


def _fits(page) -> None:
    """Nothing scrolls sideways at 1280 px: not the page, not a table inside it."""
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    wide = page.evaluate("[...document.querySelectorAll('table')].filter(t => t.scrollWidth > t.clientWidth + 1)"
                         ".map(t => t.previousElementSibling && t.previousElementSibling.textContent)")
    assert wide == []


def test_a_dev_only_store_reports_its_dev_results_reasons_and_hardest_tasks_in_1280_px(store, tmp_path):
    report = _dev_only_report(store, tmp_path, "site")
    playwright, browser, page = _open_in_chromium(report)
    try:
        _fits(page)

        def rows(heading: str) -> list[list[str]]:
            table = page.locator(f"h2:text-is('{heading}') + table, h2:text-is('{heading}') + p + table")
            return [[c.strip() for c in r] for r in table.evaluate(
                "t => [...t.querySelectorAll('tbody tr')].map(tr => [...tr.cells].map(c => c.textContent))")]

        dev = rows("Dev and folder submissions (never ranked)")
        assert sorted(r[0] for r in dev) == ["sub-bad", "sub-good"]
        heads = page.locator("h2:text-is('Why runs ended, per submission') + table th").all_inner_texts()
        assert heads == ["submission", "split", "runs", "passed", "predicate false", "frame violated", "over budget",
                         "timeout", "agent exit", "infra"]
        reasons = {r[0]: r[3:] for r in rows("Why runs ended, per submission")}
        assert reasons == {"sub-good": ["2", "2", "0", "0", "0", "0", "0"], "sub-bad": ["0", "1", "0", "1", "1", "1", "0"]}
        hardest = rows("Hardest tasks")
        assert hardest[0][6].startswith("0.0%") and hardest[-1][6].startswith("50.0%")  # lowest pass rate first
        # links into the exported viewer site, relative to the page
        assert page.locator("a", has_text="sub-bad").first.get_attribute("href") == "site/submission-sub-bad.html"
        assert page.locator("a", has_text="github-task-2").first.get_attribute("href") == "site/task-github-task-2.html"
        # sub-good's 0% on github is a visible stub marked 0, not a missing bar
        chart = page.locator("svg[aria-label='Success rate by server']")
        zeros = chart.locator("text.zero")
        assert zeros.count() >= 1
        stubs = chart.evaluate("svg => [...svg.querySelectorAll('rect')].filter(r => r.querySelector('title') && "
                               "r.querySelector('title').textContent.includes('on github: 0.0%'))"
                               ".map(r => r.getBBox().height)")
        assert len(stubs) == 2 and all(h >= 2 for h in stubs), stubs
    finally:
        browser.close()
        playwright.stop()


def test_the_report_links_into_a_running_viewer(store, tmp_path):
    html = _dev_only_report(store, tmp_path, "http://127.0.0.1:8765").read_text()
    assert 'href="http://127.0.0.1:8765/submission/sub-bad"' in html
    assert 'href="http://127.0.0.1:8765/task/github-task-2"' in html


def test_the_month_trend_shows_each_private_months_success_rate(store, tmp_path):
    from warehouse.reader import open_warehouse

    batch = []
    for month, passes in (("2026-04", (True, False)), ("2026-05", (True, True))):
        for i, passed in enumerate(passes):
            run = make_run(f"sub-{month}--t{i}", submission_id=f"sub-{month}", split=month, task_id=f"task-{i}",
                           status="passed" if passed else "failed", tool_calls=1)
            batch.append((run, make_calls(run, [ok()])))
    store.land_runs(batch)
    with open_warehouse(tmp_path / "w.duckdb", store=store) as opened:
        html = write_report(tmp_path / "report.html", opened).read_text()
    section = html[html.index("<h2>Success rate by private month</h2>"):html.index("<h2>Per server")]
    assert 'aria-label="Success rate by private month"' in section
    assert section.index(">2026-04</text>") < section.index(">2026-05</text>")  # months in order on the axis
    assert "<td>2026-04</td>" in section and "50.0% [" in section and "100.0% [" in section


def test_a_ranked_month_with_every_column_fits_1280_px_with_readable_headers(report):
    playwright, browser, page = _open_in_chromium(report)
    try:
        _fits(page)
        heads = page.locator("th").all_inner_texts()
        assert heads and not [h for h in heads if "_" in h or h.endswith("95ci")], heads
        assert "success (95% CI)" in heads and "pass^k (95% CI)" in heads
    finally:
        browser.close()
        playwright.stop()
