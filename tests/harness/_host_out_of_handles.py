"""Run by test_containment in a child process: ``python -m tests.harness._host_out_of_handles``.

Logs through rich's handler, as the mcp SDK sets it up (rich imports its traceback module only when it
first shows one), starts the gateway host, prints its port, then holds every file handle left and says
``full``. The test connects meanwhile: the host's accept fails for want of handles. Once the loop's
exception handler has seen that, the handles are let go (``freed <failures>``) and the host must answer
the waiting connection, until standard input closes."""

import asyncio
import logging
import os
import resource
import sys

from rich.logging import RichHandler

from mcpbench.gateway import GatewayHost
from mcpbench.sandbox import _gateway_link

BOUND_S = 20.0


async def main() -> None:
    async with GatewayHost().running() as host:
        print(host.port, flush=True)
        held = []
        try:
            while True:
                held.append(os.open(os.devnull, os.O_RDONLY))
        except OSError:
            pass
        print("full", flush=True)
        async with asyncio.timeout(BOUND_S):
            while _gateway_link.loop_accept_failures == 0:
                await asyncio.sleep(0.01)
        for fd in held:
            os.close(fd)
        print("freed", _gateway_link.loop_accept_failures, flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)


if __name__ == "__main__":
    logging.basicConfig(handlers=[RichHandler(rich_tracebacks=True)], force=True)
    assert "rich.traceback" not in sys.modules
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
    asyncio.run(main())
