"""Take docs/img/viewer-run.png and docs/img/report.png from real runs: the random and oracle baselines
on the dev set's slack tasks land in a temporary store, then headless Chromium (the system's, through
Playwright) shows a failing run in `mcpbench view` and the report, at 1280 px.

    python scripts/docs_screenshots.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMG = ROOT / "docs" / "img"


def mcpbench(*args: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "mcpbench", *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=600)
    if proc.returncode not in (0, 1):  # 1: some runs did not pass, which is what the pictures show
        sys.exit(proc.stderr[-3000:])


def main() -> None:
    from playwright.sync_api import sync_playwright

    from mcpbench.viewer.data import Trace
    from mcpbench.viewer.server import make_server
    from runstore.store import open_store

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        sys.exit("headless Chromium is not installed (apt-get install chromium)")
    IMG.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        store = str(Path(tmp) / "store")
        mcpbench("run", "--agent", "random", "--tasks", "slack-*", "--store", store, "--submission-id",
                 "random-baseline", "--label", "random@1", "--publish-goals")
        mcpbench("run", "--agent", "oracle", "--tasks", "slack-*", "--store", store, "--submission-id", "oracle")
        mcpbench("report", "--html", str(Path(tmp) / "report.html"), "--store", store, "--db",
                 str(Path(tmp) / "w.duckdb"), "--viewer-url", "http://127.0.0.1:8765")
        trace = Trace(open_store(store, usage="read"))
        server = make_server(trace)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_address[1]}"
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 1100})
            page.goto(base + "/run/random-baseline--slack-launch-channel-with-team")
            page.screenshot(path=str(IMG / "viewer-run.png"))
            page.goto((Path(tmp) / "report.html").as_uri())
            page.screenshot(path=str(IMG / "report.png"))
            browser.close()
        server.shutdown()
        trace.close()
    for name in ("viewer-run.png", "report.png"):
        print(f"wrote {IMG / name} ({(IMG / name).stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
