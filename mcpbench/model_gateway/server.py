"""The model gateway: an OpenAI-compatible chat-completions endpoint on loopback for many runs.

Like the MCP gateway, one ``ModelGatewayHost`` serves every run of an evaluation (a fan-out's worker
process keeps one for every run it is handed: ``mcpbench/_worker.py``), each at its own
unguessable path ``/r/<token>/v1`` (so a run's traffic is metered to that run and no other). It
forwards ``POST …/chat/completions`` (tools, streaming and all) to the operator's upstream with the
operator's key, which the agent never holds, and per run:

- forwards only what it knows (``admission``): the allow-listed fields, checked (a body it cannot
  forward is a 400 naming the field), the model pinned to the operator's, ``n`` capped, the
  completion cap written where the upstream reads it;
- admits each request atomically against the run's request and token budgets, holding its worst case
  while it is in flight (``RunMeter.admit``): a request past a budget is refused (HTTP 403,
  ``budget_exceeded``: counted), one that fits only once those in flight settle waits for them;
- meters requests, prompt and completion tokens (the upstream's usage block, or counted when it has
  none, never past the request's hold), latency, errors and cost (``RunMeter``);
- retries an upstream 429, 5xx or connection error with exponential backoff, honouring
  ``Retry-After``, within the run's retry budget and deadline; when that is spent the request is
  answered 503 ``model_unavailable`` and the run is an infra error, not the agent's failure;
- records every tool call the model emitted that could never reach the MCP gateway (malformed
  arguments) in the run's trace (``record_emitted_calls``);
- cancels the upstream request when the agent disconnects or the run ends.

The upstream speaks OpenAI chat completions, or the Anthropic Messages API
(``MCPBENCH_MODEL_UPSTREAM_API=anthropic``), which ``anthropic`` translates to and from.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any

import anyio
import httpx

from mcpbench.model_gateway import anthropic
from mcpbench.model_gateway.admission import RequestError, Reservation, read_request
from mcpbench.model_gateway.completion import Completion, EventStream
from mcpbench.model_gateway.meter import RunMeter, Turn, record_emitted_calls
from mcpbench.model_gateway.settings import ModelSettings
from mcpbench.sandbox._gateway_link import contain_loop_errors
from mcpbench.tls import shared_context

#: the largest request body read from an agent
MAX_REQUEST_BYTES = 8 * 1024 * 1024
#: bodies larger than this are read in a worker thread (an 8 MiB body of tiny messages takes over a
#: second to check, which would otherwise stall every run's traffic on the event loop)
INLINE_BYTES = 256 * 1024
RETRYABLE = frozenset({408, 429})


@dataclass
class ModelRoute:
    """One run's mount on the model gateway: its path, its meter and its in-flight requests."""

    token: str
    meter: RunMeter
    gateway: Any = None  # the run's MCP Gateway, where malformed emitted calls are recorded
    deadline: float | None = None  # Unix time; no retry waits past it
    scopes: set[anyio.CancelScope] = field(default_factory=set)
    #: set when a request in flight settles (then replaced): what a request waiting for room waits on
    settled: anyio.Event = field(default_factory=anyio.Event)
    waiting: int = 0  # requests waiting for room in the token budget now

    @property
    def path(self) -> str:
        return f"/r/{self.token}/v1"

    def settle(self, reservation: Reservation) -> None:
        """End a request's hold on the budgets (counted or not) and wake the requests waiting for room."""
        self.meter.release(reservation)
        self.settled.set()
        self.settled = anyio.Event()


class ModelGatewayHost:
    """The loopback HTTP server carrying every run's model endpoint."""

    def __init__(self, settings: ModelSettings | None = None, host: str = "127.0.0.1",
                 sleep: Callable[[float], Awaitable[None]] = anyio.sleep) -> None:
        self.settings = (settings or ModelSettings.from_env()).pinned()
        self.host = host
        self.sleep = sleep  # waits between upstream attempts (a test can see the waits without taking them)
        self.port: int | None = None
        self._routes: dict[str, ModelRoute] = {}
        self._client: httpx.AsyncClient | None = None
        self._readers: anyio.CapacityLimiter | None = None  # worker threads reading large bodies, two at once
        self._headers = {"Content-Type": "application/json"}
        if self.settings.upstream_key:
            self._headers["Authorization"] = f"Bearer {self.settings.upstream_key}"
        if self.settings.upstream_api == "anthropic":
            self._headers = anthropic.headers(self.settings.upstream_key)

    def url(self, route: ModelRoute) -> str:
        """The base URL (…/v1) a process beside the harness, or a sandboxed one through its forwarded
        port, uses for ``route``."""
        return f"http://127.0.0.1:{self.port}{route.path}"

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[ModelGatewayHost]:
        import uvicorn

        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((self.host, 0))
        self.port = sock.getsockname()[1]
        server = uvicorn.Server(uvicorn.Config(self._app, interface="asgi3", log_level="warning", lifespan="off",
                                               access_log=False, timeout_graceful_shutdown=1))
        contain_loop_errors(asyncio.get_running_loop())
        timeout = httpx.Timeout(connect=10.0, read=self.settings.read_timeout_s, write=30.0, pool=30.0)
        async with (httpx.AsyncClient(timeout=timeout, verify=shared_context()) as client,
                    anyio.create_task_group() as tg):
            self._client, self._readers = client, anyio.CapacityLimiter(2)
            tg.start_soon(server.serve, [sock])
            with anyio.fail_after(10):
                while not server.started:
                    await anyio.sleep(0.001)
            try:
                yield self
            finally:
                for route in self._routes.values():
                    for scope in list(route.scopes):
                        scope.cancel()
                server.should_exit = True
        sock.close()

    @contextlib.asynccontextmanager
    async def serve(self, *, gateway: Any = None, deadline: float | None = None) -> AsyncIterator[ModelRoute]:
        """Mount a run for the block; its in-flight requests are cancelled when the block exits."""
        if self.port is None:
            raise RuntimeError("ModelGatewayHost is not running")
        route = ModelRoute(token=secrets.token_urlsafe(18), meter=RunMeter(), gateway=gateway, deadline=deadline)
        self._routes[route.token] = route
        try:
            yield route
        finally:
            del self._routes[route.token]
            for scope in list(route.scopes):
                scope.cancel()
            # Let the cancelled requests meter what they streamed before the run's record is read.
            with anyio.move_on_after(5, shield=True):
                while route.scopes:
                    await anyio.sleep(0.005)

    # -- HTTP ---------------------------------------------------------------------------------
    async def _app(self, scope: dict, receive: Any, send: Any) -> None:
        parts = scope.get("path", "").split("/")
        route = self._routes.get(parts[2]) if len(parts) > 3 and parts[1] == "r" else None
        tail = "/".join(parts[3:])
        if scope["type"] != "http" or route is None:
            return await _json(send, 404, _error("not_found", "no such model gateway"))
        if tail == "v1/models" and scope["method"] == "GET":
            name = self.settings.model or "mcpbench-model-gateway"
            return await _json(send, 200, {"object": "list", "data": [{"id": name, "object": "model"}]})
        if tail != "v1/chat/completions" or scope["method"] != "POST":
            return await _json(send, 404, _error("not_found", "the model gateway serves POST /v1/chat/completions"))
        with anyio.CancelScope() as cancel:
            # Registered before the body is read: a request still arriving when the run ends is cancelled
            # with the run's others, and never forwarded afterwards on the run's behalf.
            route.scopes.add(cancel)
            try:
                body = await _read_body(receive)
                if body is None:  # the agent hung up before its body ended: nothing to answer
                    return
                if len(body) > MAX_REQUEST_BYTES:
                    return await _json(send, 413, _error("invalid_request_error", "request body too large"))
                async with anyio.create_task_group() as tg:
                    tg.start_soon(_cancel_on_disconnect, receive, tg.cancel_scope)
                    await self._forward(route, body, send)
                    tg.cancel_scope.cancel()
            finally:
                route.scopes.discard(cancel)

    async def _forward(self, route: ModelRoute, body: bytes, send: Any) -> None:
        """Read the request, admit it against the run's budgets (``RunMeter.admit``; waiting for requests
        in flight when it fits only once they settle), forward it, and settle its hold however it ends."""
        meter, settings = route.meter, self.settings
        try:
            if len(body) <= INLINE_BYTES:
                request, ask = read_request(body, settings)
            else:
                request, ask = await anyio.to_thread.run_sync(read_request, body, settings, limiter=self._readers)
        except RequestError as exc:
            meter.errors += 1
            return await _json(send, 400, _error("invalid_request_error", f"not a chat-completions request: {exc}"))
        turn = meter.turn(request["model"], len(route.gateway.calls) if route.gateway is not None else 0)
        while True:
            if meter.unavailable:
                turn.status = "unavailable"
                return await _json(send, 503, _error("model_unavailable", meter.unavailable))
            decision = meter.admit(settings, ask)
            if isinstance(decision, str):
                meter.refused += 1
                turn.status = "refused"
                return await _json(send, 403, _error("budget_exceeded", decision))
            if decision is not None:
                break
            route.waiting += 1
            try:
                await route.settled.wait()
            finally:
                route.waiting -= 1
        request[settings.tokens_field] = decision.completion
        try:
            if settings.upstream_api == "anthropic":
                await self._forward_translated(route, request, decision, send, turn)
            else:
                await self._forward_chat(route, request, decision, send, turn)
        finally:
            route.settle(decision)

    async def _forward_chat(self, route: ModelRoute, request: dict[str, Any], reservation: Reservation,
                            send: Any, turn: Turn) -> None:
        """Forward to an OpenAI-compatible upstream: a whole answer, or a stream relayed as it comes."""
        meter, count = route.meter, self._counter(route, request, reservation, turn)
        try:
            response = await self._open(route, request)
        except anyio.get_cancelled_exc_class():
            count(Completion())  # dropped before the upstream answered (deadline, agent gone): it read the prompt
            raise
        if response is None:
            turn.status = "unavailable"
            return await _json(send, 503, _error("model_unavailable", meter.unavailable or "the model is unavailable"))
        done = Completion()
        try:
            is_stream = response.headers.get("content-type", "").startswith("text/event-stream")
            if response.status_code != 200 or not is_stream:
                raw = await response.aread()
                error = response.status_code != 200
                if not error:
                    done = Completion.from_body(raw)
                count(done, error=error)
                if not error:
                    record_emitted_calls(route.gateway, done.calls, meter)
                return await _send(send, response.status_code, raw,
                                   response.headers.get("content-type", "application/json"))
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]})
            events, error = EventStream(), False
            try:
                async for chunk in response.aiter_bytes():
                    for event in events.feed(chunk):
                        done.feed_event(event)
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
                for event in events.close():
                    done.feed_event(event)
                done.finish_stream()
            except httpx.TransportError as exc:
                error = True
                meter.unavailable = f"the upstream's stream broke ({type(exc).__name__}: {exc})"
            count(done, error=error)
            if not error:
                record_emitted_calls(route.gateway, done.calls, meter)
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            if reservation.open:  # cancelled mid-answer: the upstream still worked for what streamed so far
                count(done)
            await _close_quietly(response)

    async def _forward_translated(self, route: ModelRoute, request: dict[str, Any], reservation: Reservation,
                                  send: Any, turn: Turn) -> None:
        """As ``_forward_chat``, for an Anthropic Messages upstream: asked for a whole answer, translated
        back to a chat completion (an event stream when the agent asked for one), metered the same way."""
        meter, count = route.meter, self._counter(route, request, reservation, turn)
        try:
            response = await self._open(route, request)
        except anyio.get_cancelled_exc_class():
            count(Completion())
            raise
        if response is None:
            turn.status = "unavailable"
            return await _json(send, 503, _error("model_unavailable", meter.unavailable or "the model is unavailable"))
        done = Completion()
        try:
            raw = await response.aread()
            error = response.status_code != 200
            body = anthropic.to_chat_error(raw) if error else anthropic.to_chat_completion(raw, request["model"])
            if not error:
                done = Completion.from_body(body)
            count(done, error=error)
            if error:
                return await _send(send, response.status_code, body, "application/json")
            record_emitted_calls(route.gateway, done.calls, meter)
            if request.get("stream") is True and done.malformed is None:
                return await _send(send, 200, anthropic.as_event_stream(body), "text/event-stream")
            return await _send(send, 200, body, "application/json")
        finally:
            if reservation.open:  # cancelled while the answer was read: the upstream still read the prompt
                count(done)
            await _close_quietly(response)

    def _counter(self, route: ModelRoute, request: dict[str, Any], reservation: Reservation,
                 turn: Turn) -> Callable[..., None]:
        """``count(done, error=False)``: meter ``request``'s answer once (its ``turn`` too), settling its
        hold; the clock starts now."""
        started = time.perf_counter()

        def count(done: Completion, *, error: bool = False) -> None:
            route.meter.count(request, done, model=request["model"], settings=self.settings, started=started,
                              error=error, reservation=reservation, turn=turn)

        return count

    async def _open(self, route: ModelRoute, request: dict[str, Any]) -> httpx.Response | None:
        """The upstream's response (status below 500 and not 429), retrying within the run's budget;
        None, with ``meter.unavailable`` set, when the model stayed unavailable."""
        assert self._client is not None
        settings, meter = self.settings, route.meter
        url = f"{settings.upstream_url}/chat/completions"
        if settings.upstream_api == "anthropic":
            url, request = f"{settings.upstream_url}/messages", anthropic.to_messages_request(request)
        attempt = 0
        while True:
            attempt += 1
            wait: float | None = None
            try:
                response = await self._client.send(
                    self._client.build_request("POST", url, json=request, headers=self._headers), stream=True)
            except httpx.TransportError as exc:
                why = f"the upstream could not be reached ({type(exc).__name__}: {exc})"
            else:
                if response.status_code < 500 and response.status_code not in RETRYABLE:
                    return response
                why = f"the upstream answered HTTP {response.status_code}"
                wait = retry_after(response.headers.get("retry-after"))
                await _close_quietly(response)
            wait = min(settings.backoff_s * 2 ** (attempt - 1) if wait is None else wait, settings.max_retry_after_s)
            left = settings.retry_budget_s - meter.retry_wait_s
            if route.deadline is not None:
                left = min(left, route.deadline - time.time())
            if attempt >= settings.max_attempts or wait > left:
                meter.errors += 1
                meter.unavailable = f"{why}; gave up after {attempt} attempts and {meter.retry_wait_s:.1f} s of retries"
                return None
            meter.retries += 1
            meter.retry_wait_s += wait
            await self.sleep(wait)


def retry_after(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (seconds or an HTTP date); None if absent or bad."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def _error(kind: str, message: str) -> dict[str, Any]:
    return {"error": {"type": kind, "code": kind, "message": message}}


async def _json(send: Any, status: int, payload: dict[str, Any]) -> None:
    await _send(send, status, json.dumps(payload).encode(), "application/json")


async def _send(send: Any, status: int, body: bytes, content_type: str) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


async def _read_body(receive: Any) -> bytes | None:
    """The request's whole body (read no further than just past ``MAX_REQUEST_BYTES``), or None when
    the agent hung up before its end."""
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        body += message.get("body", b"")
        if len(body) > MAX_REQUEST_BYTES or not message.get("more_body"):
            return bytes(body)


async def _cancel_on_disconnect(receive: Any, scope: anyio.CancelScope) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            scope.cancel()
            return


async def _close_quietly(response: httpx.Response) -> None:
    with anyio.CancelScope(shield=True), contextlib.suppress(Exception):
        await response.aclose()


__all__ = ["ModelGatewayHost", "ModelRoute", "retry_after"]
