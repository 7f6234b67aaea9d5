"""One TLS context per process for the harness's HTTP clients (the agents', the model gateway's).

An HTTP client builds a default TLS context when it is created, loading the system's CA certificates:
about 20 ms, a fifth of a short in-process run, paid twice per run by the ``openai`` agent (its MCP
client and its model client) even though both talk plain HTTP to the harness on loopback, and once
per evaluation by the model gateway. A context does not change once built and may serve any number of
clients and threads, so one is shared.
"""

from __future__ import annotations

import functools
import ssl


@functools.cache
def shared_context() -> ssl.SSLContext:
    """The process's default TLS context (certificates verified, as each client's own would be)."""
    return ssl.create_default_context()


__all__ = ["shared_context"]
