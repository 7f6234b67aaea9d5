"""The host end of an endpoint link: a Unix socket whose every connection is spliced to one loopback port.

The socket lives in a private directory that is bind-mounted into the sandbox; the in-sandbox
forwarder (``forwarder.c`` or ``_forwarder.py``) turns it back into ``127.0.0.1:<port>``. A link can
only ever reach ``127.0.0.1:<port>``: the sandbox chooses nothing about the destination.

Connections are counted where they are accepted, here, not only in the forwarder: an agent can
connect to the socket directly. A link holds at most ``max_connections`` at once; the first one past
that is refused and calls ``on_flood`` once, which ends the run (the agent's failure). Without the
cap, thousands of connections would each hold two of the harness's file handles and stop every run.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable
from pathlib import Path

RELAY_CHUNK = 65536
#: Connections one link may hold at once. The forwarder refuses past 64 itself, so an agent that
#: goes through it never reaches this; only one that connects to the socket directly does.
MAX_CONNECTIONS = 128


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(RELAY_CHUNK):
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except (ConnectionError, OSError):
        pass


class GatewayLink:
    """``async with GatewayLink(socket_path, port):`` serves the socket for the run's duration.

    ``owner`` (uid, gid) is given the socket, so an agent running as that uid may connect to it.
    """

    def __init__(self, socket_path: Path, port: int, *, max_connections: int = MAX_CONNECTIONS,
                 on_flood: Callable[[], None] | None = None, owner: tuple[int, int] | None = None) -> None:
        self.socket_path = socket_path
        self.gateway_port = port
        self.max_connections = max_connections
        self.on_flood = on_flood
        self.owner = owner
        self.flooded = False
        self.refused = 0
        self._server: asyncio.AbstractServer | None = None
        self._connections: set[asyncio.Task] = set()

    async def __aenter__(self) -> GatewayLink:
        self._server = await asyncio.start_unix_server(self._splice, path=str(self.socket_path))
        if self.owner is not None:
            os.chown(self.socket_path, *self.owner)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._connections):
            task.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)
        await self._server.wait_closed()
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()

    async def _splice(self, inside_reader: asyncio.StreamReader, inside_writer: asyncio.StreamWriter) -> None:
        if len(self._connections) >= self.max_connections:
            self.refused += 1
            inside_writer.transport.abort()  # closes the handle now, without waiting on the peer
            if not self.flooded:
                self.flooded = True
                if self.on_flood is not None:
                    self.on_flood()
            return
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        gateway_writer = None
        try:
            try:
                gateway_reader, gateway_writer = await asyncio.open_connection("127.0.0.1", self.gateway_port)
            except OSError:
                return
            await asyncio.gather(_pump(inside_reader, gateway_writer), _pump(gateway_reader, inside_writer))
        finally:
            self._connections.discard(task)
            for writer in (inside_writer, gateway_writer):
                if writer is not None:
                    writer.close()
                    with contextlib.suppress(Exception):
                        await writer.wait_closed()
