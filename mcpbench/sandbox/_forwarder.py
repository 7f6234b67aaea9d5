"""The in-sandbox end of the endpoint links: ``127.0.0.1:<port>`` inside, a Unix socket out.

Run as the sandbox's first process (``python -I -S _forwarder.py PORT:SOCKET [PORT:SOCKET ...] --
AGENT ARGV...``). It binds every loopback listener *before* the agent exists, so the agent's first
connection cannot race it, detaches a relay process (reparented to the sandbox's init), and then
``exec``s the agent, which keeps this process's pid, stdio and exit status.

Like ``forwarder.c``: at most ``MAX_CONNECTIONS`` relayed at once (one more is closed at once); a peer
that went away closes that connection only (Python ignores SIGPIPE; the agent gets the default back).

Standard library only, and only cheap modules: it is on the path of every sandboxed run, and
``python -I -S`` with ``socket`` and ``selectors`` starts in about 12 ms. One thread, one selector, no
per-connection threads (threads count against the sandbox's pids limit).
"""

from __future__ import annotations

import os
import selectors
import signal
import socket
import sys

CHUNK = 65536
MAX_CONNECTIONS = 64


class _Pipe:
    """One direction of a relayed connection: bytes read from ``source`` wait here for ``sink``."""

    __slots__ = ("source", "sink", "pending", "eof")

    def __init__(self, source: socket.socket, sink: socket.socket) -> None:
        self.source = source
        self.sink = sink
        self.pending = b""
        self.eof = False


class Relay:
    """Accept on the loopback listeners; splice each connection to a new connection to that
    listener's Unix socket."""

    def __init__(self, links: dict[socket.socket, str]) -> None:
        self.links = links
        self.selector = selectors.DefaultSelector()
        self.pipes: dict[socket.socket, list[_Pipe]] = {}
        self.partner: dict[socket.socket, socket.socket] = {}

    def serve_forever(self) -> None:
        for listener in self.links:
            listener.setblocking(False)
            self.selector.register(listener, selectors.EVENT_READ)
        while True:
            for key, _ in self.selector.select():
                if key.fileobj in self.links:
                    self._accept(key.fileobj)
                else:
                    self._pump(key.fileobj)

    def _accept(self, listener: socket.socket) -> None:
        try:
            inside, _ = listener.accept()
        except BlockingIOError:
            return
        if len(self.pipes) >= 2 * MAX_CONNECTIONS:  # too many at once: refuse this one
            inside.close()
            return
        outside = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            outside.connect(self.links[listener])
        except OSError:
            inside.close()
            outside.close()
            return
        for s in (inside, outside):
            s.setblocking(False)
        up, down = _Pipe(inside, outside), _Pipe(outside, inside)
        self.pipes[inside] = [up, down]
        self.pipes[outside] = [down, up]
        self.partner[inside], self.partner[outside] = outside, inside
        self.selector.register(inside, selectors.EVENT_READ)
        self.selector.register(outside, selectors.EVENT_READ)

    def _pump(self, sock) -> None:
        if sock not in self.pipes:
            return
        reading, writing = self.pipes[sock]  # pipe this socket feeds, pipe this socket drains
        try:
            if writing.pending:
                sent = sock.send(writing.pending)
                writing.pending = writing.pending[sent:]
                if not writing.pending and writing.eof:
                    sock.shutdown(socket.SHUT_WR)
            if not reading.pending and not reading.eof:
                data = sock.recv(CHUNK)
                if data:
                    reading.pending = data
                else:
                    reading.eof = True
                    if not reading.pending:
                        reading.sink.shutdown(socket.SHUT_WR)
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            self._close(sock)
            return
        if reading.eof and writing.eof and not reading.pending and not writing.pending:
            self._close(sock)
            return
        self._rearm(sock)
        self._rearm(self.partner[sock])

    def _rearm(self, sock) -> None:
        """Read only while the outbound buffer is empty (backpressure); write while one is pending."""
        if sock not in self.pipes:
            return
        reading, writing = self.pipes[sock]
        events = 0
        if not reading.pending and not reading.eof:
            events |= selectors.EVENT_READ
        if writing.pending:
            events |= selectors.EVENT_WRITE
        registered = sock in self.selector.get_map()
        if events and registered:
            self.selector.modify(sock, events)
        elif events:
            self.selector.register(sock, events)
        elif registered:
            self.selector.unregister(sock)  # idle half-closed socket: wait for the partner's events

    def _close(self, sock) -> None:
        other = self.partner.pop(sock, None)
        for s in (sock, other):
            if s is None:
                continue
            self.pipes.pop(s, None)
            self.partner.pop(s, None)
            try:
                self.selector.unregister(s)
            except (KeyError, ValueError):
                pass
            s.close()


def _detach(links: dict[socket.socket, str]) -> None:
    """Double-fork a relay so the agent has no stray child and the sandbox's init reaps the relay."""
    first = os.fork()
    if first:
        os.waitpid(first, 0)
        for listener in links:
            listener.close()
        return
    if os.fork():
        os._exit(0)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    try:
        Relay(links).serve_forever()
    finally:
        os._exit(0)


def _listen(spec: str) -> tuple[socket.socket, str]:
    port_text, _, unix_path = spec.partition(":")
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind(("127.0.0.1", int(port_text)))
    except (OSError, ValueError) as exc:
        sys.stderr.write(f"mcpbench sandbox: cannot listen on 127.0.0.1:{port_text}: {exc}\n")
        os._exit(125)
    listener.listen(64)
    listener.set_inheritable(False)
    return listener, unix_path


def main(argv: list[str]) -> None:
    dashes = argv.index("--") if "--" in argv else len(argv)
    if dashes < 2 or dashes + 1 >= len(argv) or not all(":" in spec for spec in argv[1:dashes]):
        sys.stderr.write("usage: _forwarder.py PORT:UNIX_SOCKET [PORT:UNIX_SOCKET ...] -- ARGV...\n")
        os._exit(125)
    _detach(dict(_listen(spec) for spec in argv[1:dashes]))
    agent = argv[dashes + 1 :]
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # Python ignores it; the agent gets the default
    try:
        os.execvp(agent[0], agent)
    except OSError as exc:
        sys.stderr.write(f"mcpbench sandbox: cannot start agent {agent[0]!r}: {exc}\n")
        os._exit(127)


if __name__ == "__main__":
    main(sys.argv)
