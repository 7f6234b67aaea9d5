"""Sandboxes that contain an agent process: ``local`` (bubblewrap), ``docker``, and ``none``.

    sandbox = get_sandbox("local")
    outcome = await sandbox.run(AgentProcess(argv=[...], gateway_port=port, timeout_s=300))

See ``docs/sandbox.md`` for what each backend isolates and how the gateway is reached.
"""

from ._gateway_link import concurrency_that_fits, connection_budget, raise_open_file_limit
from .docker import DockerSandbox
from .interface import (
    MCP_URL_ENV,
    AgentProcess,
    ProcessOutcome,
    ResourceLimits,
    Sandbox,
    SandboxUnavailable,
)
from .local import LocalSandbox
from .registry import DEFAULT_SANDBOX, get_sandbox, register_sandbox, sandbox_names
from .unisolated import UnisolatedSandbox

register_sandbox("local", LocalSandbox)
register_sandbox("docker", DockerSandbox)
register_sandbox("none", UnisolatedSandbox)

__all__ = [
    "DEFAULT_SANDBOX",
    "MCP_URL_ENV",
    "AgentProcess",
    "DockerSandbox",
    "LocalSandbox",
    "ProcessOutcome",
    "ResourceLimits",
    "Sandbox",
    "SandboxUnavailable",
    "UnisolatedSandbox",
    "concurrency_that_fits",
    "connection_budget",
    "get_sandbox",
    "raise_open_file_limit",
    "register_sandbox",
    "sandbox_names",
]
