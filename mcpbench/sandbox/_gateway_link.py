"""The host end of the gateway link: a Unix socket whose every connection is spliced to the gateway.

The socket lives in a private directory that is bind-mounted into the sandbox; the in-sandbox
forwarder (``_forwarder.py``) turns it back into ``127.0.0.1:<port>``. The link can only ever reach
``127.0.0.1:<gateway_port>``: the sandbox chooses nothing about the destination.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

RELAY_CHUNK = 65536


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
    """``async with GatewayLink(socket_path, gateway_port):`` serves the socket for the run's duration."""

    def __init__(self, socket_path: Path, gateway_port: int) -> None:
        self.socket_path = socket_path
        self.gateway_port = gateway_port
        self._server: asyncio.AbstractServer | None = None
        self._connections: set[asyncio.Task] = set()

    async def __aenter__(self) -> GatewayLink:
        self._server = await asyncio.start_unix_server(self._splice, path=str(self.socket_path))
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
