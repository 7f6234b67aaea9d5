"""``mcpbench serve --transport http``: a mock server over streamable HTTP, behind a bearer token when asked.

On a loopback address the server is reachable from this machine only. Any other address (``0.0.0.0``,
a LAN address, a host name) reaches other machines: ``serve`` then warns and refuses to start without
a bearer token, and every HTTP request must carry ``Authorization: Bearer <token>`` or is answered 401
before it reaches the server.
"""

from __future__ import annotations

import hmac

from mcpbench._net import is_loopback

#: Where ``mcpbench serve`` reads its bearer token when ``--token`` is not given.
TOKEN_ENV = "MCPBENCH_SERVE_TOKEN"
#: The shortest token accepted: a guessable token on a reachable server protects nothing.
MIN_TOKEN_CHARS = 16

_UNAUTHORIZED = b'{"error": "unauthorized: send the header Authorization: Bearer <token>"}'


def token_problem(token: str | None) -> str | None:
    """Why ``token`` cannot guard a server, or None."""
    if not token or not token.strip():
        return "no bearer token was given"
    if len(token) < MIN_TOKEN_CHARS or token != token.strip():
        return (f"the bearer token must be at least {MIN_TOKEN_CHARS} characters, with no spaces around it "
                "(make one with: python -c 'import secrets; print(secrets.token_urlsafe(32))')")
    return None


class BearerGuard:
    """An ASGI app in front of another: an HTTP request whose ``Authorization`` header is not ``Bearer
    <token>`` is answered 401 and never reaches the app behind (a WebSocket is closed); lifespan events
    pass through."""

    def __init__(self, app, token: str) -> None:
        self.app = app
        self._token = token.encode()

    def _authorized(self, scope) -> bool:
        for name, value in scope.get("headers", ()):
            if name == b"authorization":
                scheme, _, credentials = value.partition(b" ")
                return scheme.lower() == b"bearer" and hmac.compare_digest(credentials.strip(), self._token)
        return False

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan" or self._authorized(scope):
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
        else:
            await send({"type": "http.response.start", "status": 401,
                        "headers": [(b"content-type", b"application/json"),
                                    (b"www-authenticate", b'Bearer realm="mcpbench"')]})
            await send({"type": "http.response.body", "body": _UNAUTHORIZED})


def serve_http(server, host: str, port: int, token: str | None, announce) -> None:
    """Serve the ``MCPServer`` ``server`` over streamable HTTP at ``http://host:port/mcp`` until stopped,
    behind :class:`BearerGuard` when ``token`` is given. ``announce(url)`` is called once the socket is
    bound (with the port the system chose, for ``port`` 0)."""
    import uvicorn

    app = server.streamable_http_app(host=host)
    config = uvicorn.Config(BearerGuard(app, token) if token else app, host=host, port=port, log_level="warning")
    sock = config.bind_socket()  # a port in use is reported and exits here
    sock.listen(config.backlog)  # connections from now on wait for the server, none is refused
    bound = sock.getsockname()[1]
    announce(f"http://{f'[{host}]' if ':' in host else host}:{bound}/mcp")
    uvicorn.Server(config).run(sockets=[sock])


__all__ = ["MIN_TOKEN_CHARS", "TOKEN_ENV", "BearerGuard", "is_loopback", "serve_http", "token_problem"]
