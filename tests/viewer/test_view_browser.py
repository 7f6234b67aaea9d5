"""``mcpbench view`` as a person uses it: real runs land (``mcpbench run`` with the random and oracle
baselines on the dev set's slack tasks, so there are failing runs with explanations), the viewer is
started as its command starts it, and headless Chromium (the system's, driven by Playwright) clicks from
the board to the submission to a failing run, finds the failed clause, and searches a transcript and
all of them. Also: a 10,000-call run opens page by page, a private month's run shows no text even
where a record held some, ``--export`` writes a static site whose links all resolve, and a store on S3
(moto's server) is viewed the same way."""

from __future__ import annotations

import os
import re
import selectors
import shutil
import subprocess
import sys
import urllib.request

import pytest
from click.testing import CliRunner
from playwright.sync_api import expect

from mcpbench.cli import main
from runstore.records import Explanation, FailedClause
from runstore.store import open_store
from tests.viewer.conftest import LONG_RUN, PRIVATE_RUN, ROOT, SECRET_TEXT, failing_run
from tests.warehouse.conftest import make_calls, make_run, moto_endpoint, ok

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed "
                                    "(`apt-get install chromium`; scripts/setup.sh does it)")


@pytest.fixture(scope="module")
def viewer(landed):
    """``mcpbench view --store <landed>`` on a free port, as a person starts it; its URL from what it prints."""
    proc = subprocess.Popen([sys.executable, "-m", "mcpbench", "view", "--store", str(landed)], cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            ready = sel.select(timeout=120)
        assert ready, "mcpbench view printed nothing within 120 s"
        line = proc.stdout.readline()
        match = re.search(r"at (http://127\.0\.0\.1:\d+/)", line)
        assert match, (line, proc.stderr.read() if proc.poll() is not None else "")
        yield match.group(1)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        proc.stdout.close()
        proc.stderr.close()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-dev-shm-usage"])
        yield launched
        launched.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(30_000)
    expect.set_options(timeout=30_000)  # as long as the context's actions wait, on a contended machine
    yield context.new_page()
    context.close()


@needs_chromium
def test_a_person_clicks_from_the_board_to_a_failing_run_and_finds_the_failed_clause(viewer, landed, page):
    run = failing_run(landed)
    clause = Explanation.model_validate_json(run["explanation"]).clauses[0]
    page.goto(viewer)
    assert page.get_by_role("heading", name="Leaderboards").is_visible()
    page.get_by_role("link", name="sub-random", exact=True).click()
    # a click starts a navigation and does not wait for its page: expect() waits for what it asserts
    expect(page.get_by_role("heading", name="Submission sub-random")).to_be_visible()
    page.wait_for_load_state()  # the new page's heading is there: now wait for the rest of it
    assert "predicate_false: 4" in page.inner_text("main")  # the failure reasons, counted
    page.locator("tr", has_text="slack-archive-resolved-incident").get_by_role("link", name="open run").click()
    expect(page.get_by_role("heading", name=f"Run {run['run_id']}")).to_be_visible()
    page.wait_for_load_state()
    why = page.locator(".why")
    assert why.is_visible()
    text = why.inner_text()
    assert clause.clause in text and clause.primitive in text
    assert f"expected {clause.expected}" in text and clause.found in text  # expected against found, readable
    assert run["goal"] in page.inner_text("main")  # published goals are shown
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280  # no sideways scrolling
    # every call of the run is on the page, with its arguments and what the agent was answered
    calls = [c for c in open_store(str(landed)).read_calls().to_pylist() if c["run_id"] == run["run_id"]]
    assert page.locator(".call").count() == len(calls) > 0
    first = page.locator("#call-1")
    assert calls[0]["tool"] in first.inner_text()
    shown = calls[0]["error_message"] or calls[0]["result_text"]
    assert shown.splitlines()[0][:60] in first.inner_text()


@needs_chromium
def test_a_person_searches_a_transcript_and_all_of_them(viewer, landed, page):
    run = failing_run(landed)
    calls = [c for c in open_store(str(landed)).read_calls().to_pylist() if c["run_id"] == run["run_id"]]
    last = calls[-1]
    term = (last["error_message"] or last["result_text"])[10:30].strip()
    page.goto(viewer + f"run/{run['run_id']}")
    page.get_by_placeholder("search this transcript").fill(term.upper())  # search ignores case
    page.get_by_placeholder("search this transcript").press("Enter")
    hits = page.locator("ul.hits li")
    expect(hits.first).to_be_visible()
    page.wait_for_load_state()
    assert term.lower() in hits.locator("mark").first.inner_text().lower()
    hits.get_by_role("link", name=f"#{last['seq']}", exact=True).click()
    expect(page).to_have_url(re.compile(f"#call-{last['seq']}$"))
    # across every transcript, from the bar
    page.get_by_placeholder("search all transcripts").fill(term)
    page.get_by_placeholder("search all transcripts").press("Enter")
    expect(page.get_by_role("link", name=f"{run['run_id']} #{last['seq']}")).to_be_visible()
    # a search for what only the private run's record holds finds nothing: private months are never searched
    page.goto(viewer + f"search?q={SECRET_TEXT}")
    assert "No call outside private months holds" in page.inner_text("main")


@needs_chromium
def test_a_ten_thousand_call_run_opens_a_page_of_calls_at_a_time(viewer, page):
    page.goto(viewer + f"run/{LONG_RUN}")
    assert page.locator(".call").count() == 100
    assert "calls 1–100 of 10000, page 1 of 100" in page.locator("nav.pager").first.inner_text()
    page.locator("nav.pager").first.get_by_role("link", name="100", exact=True).click()
    expect(page).to_have_url(re.compile(r"page=100$"))
    expect(page.locator("#call-10000")).to_be_visible()
    page.wait_for_load_state()
    assert page.locator(".call").count() == 100 and page.locator("#call-9900").count() == 0
    page.locator("nav.pager").first.get_by_role("link", name="‹ previous").click()
    expect(page).to_have_url(re.compile(r"page=99$"))
    expect(page.locator("#call-9900")).to_have_count(1)


@needs_chromium
def test_a_private_months_run_shows_ids_and_counts_and_no_text(viewer, page):
    page.goto(viewer + f"run/{PRIVATE_RUN}")
    body = page.inner_text("body")
    assert "$.all[0]" in body and "archive_channel" in body  # the clause id and the tool: kept
    for text in (SECRET_TEXT, "a secret expectation", "a secret finding", "slack.channelArchived"):
        assert text not in page.content(), text
    assert page.get_by_placeholder("search this transcript").count() == 0


def test_a_missing_run_or_a_bad_page_is_answered_with_why(viewer):
    for path, status, says in [("run/no-such-run", 404, "no run 'no-such-run'"),
                               (f"run/{LONG_RUN}?page=101", 404, "there is no page 101"),
                               (f"run/{LONG_RUN}?page=x", 400, "is not a page number"),
                               ("search?q=" + "x" * 300, 200, "at most 200 are searched")]:
        try:
            with urllib.request.urlopen(viewer + path, timeout=30) as answer:
                got, body = answer.status, answer.read().decode()
        except urllib.error.HTTPError as exc:
            with exc:  # its connection is closed here, not left to the garbage collector
                got, body = exc.code, exc.read().decode()
        assert got == status and says in body.replace("&#x27;", "'"), (path, got)


def test_the_viewer_escapes_what_a_run_recorded(tmp_path):
    """An agent chooses its arguments and a server echoes them: markup in a record is shown as text."""
    from mcpbench.viewer.data import Trace
    from mcpbench.viewer.pages import Links, run_page

    store = open_store(str(tmp_path / "store"))
    run = make_run("sub-x--t", submission_id="sub-x", split="dev", month="2026-05", tool_calls=1, status="failed",
                   stderr_tail="<script>alert(1)</script>")
    calls = make_calls(run, [ok("<img src=x onerror=alert(1)>")])
    calls[0] = calls[0].model_copy(update={"arguments_json": '{"a": "<b>bold</b>"}', "result_text": "</pre><script>"})
    store.land_run(run, calls)
    trace = Trace(open_store(str(tmp_path / "store"), usage="read"))
    html = run_page(trace.run_page("sub-x--t"), Links(), where="", page_of=trace.page_of)
    assert "<script>" not in html and "<img" not in html and "<b>bold" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "&lt;img src=x" in html


def test_the_viewer_never_writes_to_the_store(landed):
    before = {p: p.stat().st_mtime_ns for p in landed.rglob("*")}
    result = CliRunner().invoke(main, ["view", "--store", str(landed), "--export", str(landed.parent / "site-ro")])
    assert result.exit_code == 0, result.output
    assert {p: p.stat().st_mtime_ns for p in landed.rglob("*")} == before


def test_export_writes_a_static_site_whose_links_all_resolve(landed, tmp_path):
    site = tmp_path / "site"
    result = CliRunner().invoke(main, ["view", "--store", str(landed), "--export", str(site)])
    assert result.exit_code == 0, result.output
    pages = {p.name: p.read_text() for p in site.glob("*.html")}
    run = failing_run(landed)
    assert {"index.html", "submission-sub-random.html", f"run-{run['run_id']}.html",
            "task-slack-archive-resolved-incident.html"} <= set(pages)
    assert {f"run-{LONG_RUN}-p{n}.html" for n in range(2, 101)} <= set(pages)  # each page of calls a file
    assert f"run-{LONG_RUN}-p101.html" not in pages
    checked = 0
    for name, html in pages.items():
        for href in re.findall(r'href="([^"]*)"', html):
            assert not href.startswith(("/", "http:", "https:")), (name, href)  # relative, nothing fetched
            target = href.split("#")[0]
            if target:
                assert target in pages, (name, href)
                checked += 1
    assert checked > 100
    assert "$.all[0]" in pages[f"run-{run['run_id']}.html"]
    assert SECRET_TEXT not in "".join(pages.values())


@pytest.fixture
def s3(monkeypatch):
    yield from moto_endpoint(monkeypatch)


def test_a_store_on_s3_is_viewed_the_same_way(s3):
    from mcpbench.viewer.data import Trace
    from mcpbench.viewer.server import make_server

    store = open_store("s3://bench/store", usage="write")
    run = make_run("sub-s3--slack-001", submission_id="sub-s3", split="dev", month="2026-05", tool_calls=2,
                   status="failed", explanation=Explanation(clauses=[FailedClause(
                       clause="$.all[1]", primitive="slack.messagePosted", expected="a message matching /shipped/",
                       found="0 of 3 messages match")]).to_json())
    store.land_run(run, make_calls(run, [ok("list_channels"), ok("post_message")]))
    keys = sorted(store.list(""))
    trace = Trace(open_store("s3://bench/store", usage="read"))
    server = make_server(trace)
    import threading

    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/"
        with urllib.request.urlopen(base, timeout=30) as answer:
            assert "sub-s3" in answer.read().decode()
        with urllib.request.urlopen(base + "run/sub-s3--slack-001", timeout=30) as answer:
            html = answer.read().decode()
        assert "expected</b> a message matching /shipped/" in html and "0 of 3 messages match" in html
        assert 'id="call-2"' in html and "post_message" in html
    finally:
        server.shutdown()
        server.server_close()
        trace.close()
    assert sorted(store.list("")) == keys  # the store was only read


def test_a_page_elsewhere_rebinding_its_name_to_loopback_is_refused(viewer):
    """DNS rebinding: a site whose name now points at 127.0.0.1 asks with its own Host header."""
    port = viewer.rstrip("/").rsplit(":", 1)[1]
    request = urllib.request.Request(viewer, headers={"Host": f"attacker.example:{port}"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)
    with refused.value:  # its connection is closed here, not left to the garbage collector
        assert refused.value.code == 421
    for name in ("127.0.0.1", "localhost"):
        with urllib.request.urlopen(urllib.request.Request(viewer, headers={"Host": f"{name}:{port}"}),
                                    timeout=30) as answer:
            assert answer.status == 200
