"""The ``none`` backend: a plain subprocess, for trusted agents and for control runs in tests.

It isolates nothing (the agent sees the host's network, files and processes) and enforces no resource
limits. What it keeps from the other backends: a private HOME/cwd that is deleted afterwards (and swept
by the next harness if this one was killed), a neutral environment, the deadline (the whole process
group is killed), death with the harness (``setpriv --pdeathsig``, where util-linux has it), bounded
output tails, the same ``ProcessOutcome``. ``get_sandbox("none")`` refuses unless isolation is explicitly waived.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import signal
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from runstore.leftovers import owner_tag, sweep

from . import _limits
from ._supervise import watch
from .interface import MCP_URL_ENV, AgentProcess, ProcessOutcome

log = logging.getLogger(__name__)

HOME_PREFIX = "mcpbench-unisolated-"
_swept = False


class UnisolatedSandbox:
    name = "none"
    isolates = False

    def __init__(self) -> None:
        # The agent gets SIGKILL if the harness dies (as bubblewrap's --die-with-parent does for local).
        setpriv = shutil.which("setpriv")
        self._die_with_harness = [setpriv, "--pdeathsig", "KILL", "--"] if setpriv else []
        global _swept
        if not _swept:  # homes a SIGKILLed harness could not remove (named after it, see runstore/leftovers.py)
            _swept = True
            sweep(Path(tempfile.gettempdir()), HOME_PREFIX)

    async def run(self, spec: AgentProcess) -> ProcessOutcome:
        log.warning("running %r without a sandbox: the agent can reach the host's network and files", spec.argv[0])
        t0 = time.perf_counter()
        started_at = datetime.now(UTC)
        home = Path(tempfile.mkdtemp(prefix=f"{HOME_PREFIX}{owner_tag()}"))
        try:
            env = {
                "PATH": f"{os.path.join(sys.base_prefix, 'bin')}:/usr/local/bin:/usr/bin:/bin",
                "HOME": str(home),
                "TMPDIR": str(home),
                "LANG": "C.UTF-8",
            }
            if spec.mcp_url:
                env[MCP_URL_ENV] = spec.mcp_url
            env.update(spec.env)
            proc = await asyncio.create_subprocess_exec(
                *_limits.entry_prefix(None, None),
                *self._die_with_harness,
                *spec.argv,
                stdin=asyncio.subprocess.PIPE if spec.stdin is not None else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=home,
                env=env,
                start_new_session=True,
            )
            startup_ms = (time.perf_counter() - t0) * 1000

            def kill_tree() -> None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)

            watched = await watch(proc, stdin=spec.stdin, timeout_s=spec.timeout_s, waited=spec.waited, kill_tree=kill_tree)
        finally:
            shutil.rmtree(home, ignore_errors=True)
        return _limits.outcome(
            self.name,
            watched,
            started_at=started_at,
            startup_ms=startup_ms,
            enforced_by="none",
            notes=["not isolated: network, files and processes of the host are reachable"],
        )
