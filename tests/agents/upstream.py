"""A scripted OpenAI-compatible upstream: a small real HTTP server on loopback whose answers a test
writes turn by turn (429s with Retry-After, 503s, whole or streamed completions, slow streams,
malformed tool calls, usage blocks or none)."""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Reply:
    """A whole HTTP answer."""

    status: int = 200
    body: Any = None  # JSON-serialised unless bytes
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering (a slow whole answer)


@dataclass
class Stream:
    """A 200 server-sent-event stream of ``events`` (dicts are JSON-serialised), ``delay`` seconds
    apart; ``forever`` keeps sending the last event until the client goes away; ``cut`` announces more
    bytes than it sends, then hangs up (a connection that broke mid-answer)."""

    events: list[Any]
    delay: float = 0.0
    forever: bool = False
    cut: bool = False


def completion(content: str | None = None, calls: list[tuple[str, str]] = (), *, finish: str | None = None,
               usage: tuple[int, int] | None = None) -> dict[str, Any]:
    """A whole chat completion; ``calls`` are ``(name, raw arguments)``."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [{"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": a}}
                                 for i, (n, a) in enumerate(calls)]
    body: dict[str, Any] = {"id": "chatcmpl-1", "object": "chat.completion",
                            "choices": [{"index": 0, "message": message,
                                         "finish_reason": finish or ("tool_calls" if calls else "stop")}]}
    if usage:
        body["usage"] = {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)}
    return body


def streamed(content: str = "", calls: list[tuple[str, str]] = (), *, finish: str | None = None,
             usage: tuple[int, int] | None = None, delay: float = 0.0) -> Stream:
    """The same as a stream: content in two pieces, each call's arguments split across chunks."""
    def chunk(delta: dict[str, Any], reason: str | None = None) -> dict[str, Any]:
        return {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": reason}]}

    events: list[Any] = [chunk({"role": "assistant", "content": ""})]
    if content:
        half = len(content) // 2
        events += [chunk({"content": content[:half]}), chunk({"content": content[half:]})]
    for i, (name, args) in enumerate(calls):
        events.append(chunk({"tool_calls": [{"index": i, "id": f"call_{i}", "type": "function",
                                             "function": {"name": name, "arguments": args[: len(args) // 2]}}]}))
        events.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": args[len(args) // 2:]}}]}))
    events.append(chunk({}, finish or ("tool_calls" if calls else "stop")))
    if usage:
        events.append({"object": "chat.completion.chunk", "choices": [],
                       "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1]}})
    events.append("[DONE]")
    return Stream(events, delay=delay)


class ScriptedUpstream:
    """``answer(request_body, n)`` -> ``Reply`` or ``Stream`` for the n-th request (0-based)."""

    def __init__(self, answer: Callable[[dict[str, Any], int], Reply | Stream]) -> None:
        outer = self
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.paths: list[str] = []
        self.disconnected = threading.Event()
        self._lock = threading.Lock()

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with outer._lock:
                    n = len(outer.requests)
                    outer.requests.append(body)
                    outer.headers.append(dict(self.headers))
                    outer.paths.append(self.path)
                answer = outer.answer(body, n)
                try:
                    if isinstance(answer, Reply):
                        time.sleep(answer.delay)
                        data = answer.body if isinstance(answer.body, bytes) else json.dumps(answer.body).encode()
                        self.send_response(answer.status)
                        for key, value in {"Content-Type": "application/json", **answer.headers}.items():
                            self.send_header(key, value)
                        self.send_header("Content-Length", str(len(data)))
                        self.end_headers()
                        self.wfile.write(data)
                        return
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    if answer.cut:
                        self.send_header("Content-Length", str(10**9))
                    self.end_headers()
                    events = list(answer.events)
                    while events:
                        event = events.pop(0) if (len(events) > 1 or not answer.forever) else events[0]
                        payload = event if isinstance(event, str) else json.dumps(event)
                        self.wfile.write(f"data: {payload}\n\n".encode())
                        self.wfile.flush()
                        if answer.delay:
                            time.sleep(answer.delay)
                except (BrokenPipeError, ConnectionResetError):
                    outer.disconnected.set()

            def log_message(self, *args):
                pass

        self.answer = answer
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> ScriptedUpstream:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
