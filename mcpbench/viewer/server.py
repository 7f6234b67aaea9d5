"""``mcpbench view``'s web server (the standard library's ``http.server``) and its static site.

The server answers GET (and HEAD) only, reads the store through :class:`mcpbench.viewer.data.Trace`
and never writes to it. Paths: ``/`` (the boards), ``/submission/<id>``, ``/task/<id>``,
``/run/<id>?page=N&q=text``, ``/search?q=text``. The static site (:func:`export_site`) is the same pages
as files linked relatively, a run's pages of calls as separate files; it has no search (there is no
server to ask: a browser's find works within a page).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import duckdb

from mcpbench._net import is_loopback
from mcpbench.viewer import pages
from mcpbench.viewer.data import NoSuchRecord, Trace
from runstore.store import StoreError
from warehouse.sources import CorruptFileError


class _Handler(BaseHTTPRequestHandler):
    trace: Trace  # set on the class made for each server
    links = pages.Links()
    where = ""
    hosts: frozenset[str] | None = None  # the Host headers answered (None: any)

    def log_message(self, format: str, *args: object) -> None:
        pass  # quiet: the viewer is a local tool, its requests are not news

    def do_HEAD(self) -> None:
        self.do_GET(head=True)

    def do_GET(self, head: bool = False) -> None:
        status, body = self._answer()
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        # the pages load nothing from elsewhere; say so to the browser too
        self.send_header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; "
                                                    "form-action 'self'; base-uri 'none'")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        if not head:
            self.wfile.write(data)

    def _answer(self) -> tuple[int, str]:
        if self.hosts is not None and (self.headers.get("Host") or "").lower() not in self.hosts:
            # a page elsewhere that rebinds its own name to this machine's loopback address must not read
            # the transcripts: on loopback, only this machine's own names for the server are answered
            return HTTPStatus.MISDIRECTED_REQUEST, pages.error_page(
                421, "this viewer answers requests for its own loopback address only", self.links, where="")
        url = urlsplit(self.path)
        params = parse_qs(url.query, max_num_fields=10)
        parts = [unquote(p) for p in url.path.split("/") if p]
        try:
            self.trace.refresh()  # runs that landed since the last request are shown
            return HTTPStatus.OK, self._page(parts, params)
        except (CorruptFileError, StoreError) as exc:
            return HTTPStatus.INTERNAL_SERVER_ERROR, pages.error_page(500, str(exc), self.links, where=self.where)
        except NoSuchRecord as exc:
            return HTTPStatus.NOT_FOUND, pages.error_page(404, str(exc), self.links, where=self.where)
        except ValueError as exc:
            return HTTPStatus.BAD_REQUEST, pages.error_page(400, str(exc), self.links, where=self.where)
        except duckdb.Error as exc:
            return HTTPStatus.INTERNAL_SERVER_ERROR, pages.error_page(
                500, f"the store could not be read: {exc}", self.links, where=self.where)

    def _page(self, parts: list[str], params: dict[str, list[str]]) -> str:
        trace, links, where = self.trace, self.links, self.where
        text = params.get("q", [""])[0]
        if not parts:
            return pages.index_page(trace.boards(), links, where=where)
        if len(parts) == 2 and parts[0] == "submission":
            return pages.submission_page(trace.submission(parts[1]), links, where=where)
        if len(parts) == 2 and parts[0] == "task":
            return pages.task_page(trace.task(parts[1]), links, where=where)
        if len(parts) == 2 and parts[0] == "run":
            raw = params.get("page", ["1"])[0]
            if not raw.isdigit():
                raise ValueError(f"page {raw!r} is not a page number")
            page = trace.run_page(parts[1], int(raw))
            hits = trace.search_run(parts[1], text) if text.strip() else None
            return pages.run_page(page, links, where=where, search=text, hits=hits, page_of=trace.page_of)
        if parts == ["search"]:
            try:
                hits, count = trace.search_all(text)
            except ValueError as exc:
                return pages.search_page(text, [], 0, links, trace.page_of, where=where, error=str(exc))
            return pages.search_page(text, hits, count, links, trace.page_of, where=where)
        raise NoSuchRecord(f"there is no page at /{'/'.join(parts)}")


def make_server(trace: Trace, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """A server bound to ``host:port`` (0: a free port; ``server.server_address`` says which) over ``trace``;
    call ``serve_forever()`` on it."""
    handler: type[_Handler] = type("ViewHandler", (_Handler,), {"trace": trace, "where": trace.store.url()})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    if is_loopback(host):
        bound = server.server_address[1]
        handler.hosts = frozenset(f"{name}:{bound}" for name in ("127.0.0.1", "localhost", "[::1]", host.lower()))
    return server


def export_site(trace: Trace, folder: str | os.PathLike[str], *,
                progress: Callable[[str], None] | None = None) -> list[Path]:
    """Write the viewer's pages as a static site into ``folder`` (made if needed): ``index.html``, a page
    per submission, task and run, and a file per page of calls of a long run, linked relatively so the
    folder can be published anywhere. Returns the files written."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    links = pages.SiteLinks()
    where = trace.store.url()
    written: list[Path] = []

    def write(name: str, html: str) -> None:
        path = out / name
        path.write_text(html, encoding="utf-8")
        written.append(path)

    boards = trace.boards()
    write(links.index(), pages.index_page(boards, links, where=where))
    for sub in boards["submissions"]:
        write(links.submission(sub["submission_id"]),
              pages.submission_page(trace.submission(sub["submission_id"]), links, where=where))
    for task_id in trace.task_ids():
        write(links.task(task_id), pages.task_page(trace.task(task_id), links, where=where))
    run_ids = trace.run_ids()
    for n, run_id in enumerate(run_ids, start=1):
        first = trace.run_page(run_id, 1)
        for number in range(1, first.pages + 1):
            page = first if number == 1 else trace.run_page(run_id, number)
            write(links.run(run_id, number), pages.run_page(page, links, where=where, page_of=trace.page_of))
        if progress is not None and (n % 100 == 0 or n == len(run_ids)):
            progress(f"{n}/{len(run_ids)} runs written")
    return written


__all__ = ["export_site", "make_server"]
