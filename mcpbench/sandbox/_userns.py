"""The agent's uid: never host root, even though the harness runs as root.

bubblewrap started by root maps the sandbox's uid to root's own, so the agent would be host root in
a user namespace: without capabilities, but the kernel lets host root's uid write ``/proc/sys`` files
by their mode (``kernel.core_pattern`` then runs a program of the agent's choice as host root at the
next crash). An unprivileged host user cannot run bubblewrap here either: it could not bind the
Python installation under ``/root`` (mode 0700) that Python agents need.

So the harness writes the user namespace's maps itself (``--userns-block-fd``: bubblewrap waits
while the harness writes ``/proc/<child>/uid_map``), mapping

- uid/gid 0 to host root, only for bubblewrap's own setup (binding root-only paths, making mount
  points); nothing of the agent ever runs as it;
- uid/gid ``AGENT_UID`` (1000) to ``AGENT_HOST_UID``, an unused host id: the agent's.

The sandbox's first process (``first_stage``), still bubblewrap's uid 0 with the four capabilities
it was given, sets the namespace's ``user.max_user_namespaces`` to 0 (no nested user namespace, ever:
the agent has no capability to raise it back) and ``exec``s ``setpriv``, which switches to uid 1000,
clears the supplementary groups and every capability set (ambient and bounding included) and
``exec``s the forwarder and the agent. ``no_new_privs`` (set by bubblewrap) and ``nosuid`` mounts keep
any set-uid binary from bringing uid 0 back.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil

from .interface import SandboxUnavailable

#: The agent's uid and gid inside the sandbox.
AGENT_UID = 1000
#: The agent's uid and gid on the host: unused by any account, owned by nothing outside a sandbox.
AGENT_HOST_UID = 1_879_000
#: Capabilities the first stage needs in the sandbox's own user namespace, dropped before the agent.
STAGE_CAPS = ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP", "CAP_SYS_RESOURCE")
HANDSHAKE_TIMEOUT_S = 10.0
ENTRY_MARKER = "mcpbench-sandbox-entry:"  # the same marker as _limits: a failure here is ours
ENTRY_FAILED = 125

_FIRST_STAGE = (
    "echo 0 > /proc/sys/user/max_user_namespaces 2>/dev/null"
    f" || {{ echo '{ENTRY_MARKER} cannot disable user namespaces in the sandbox' >&2; exit {ENTRY_FAILED}; }}; "
    'exec "$0" --reuid={uid} --regid={uid} --clear-groups --inh-caps=-all --ambient-caps=-all '
    '--bounding-set=-all -- "$@"'
)


def find_setpriv() -> str:
    """The host's ``setpriv`` (util-linux), which must be under /usr to be visible in the sandbox."""
    found = shutil.which("setpriv")
    real = os.path.realpath(found) if found else None
    if real is None or not real.startswith("/usr/"):
        raise SandboxUnavailable(
            "the local sandbox run as root needs `setpriv` (util-linux) under /usr to drop the agent to an "
            "unprivileged uid; install util-linux"
        )
    return real


def first_stage(setpriv: str) -> list[str]:
    """The argv prefix the sandbox runs first: no nested user namespaces, then drop to the agent's uid."""
    return ["/bin/sh", "-c", _FIRST_STAGE.replace("{uid}", str(AGENT_UID)), setpriv]


class Handshake:
    """The two pipes of ``--info-fd``/``--userns-block-fd`` and the map writing between them."""

    def __init__(self) -> None:
        self._info_r, self._info_w = os.pipe()
        self._block_r, self._block_w = os.pipe()
        self.child_fds: tuple[int, ...] = (self._info_w, self._block_r)

    async def complete(self, host_uid: int, timeout_s: float = HANDSHAKE_TIMEOUT_S) -> None:
        """Wait for bubblewrap's child, write its maps, let it go on. If bubblewrap exited before
        (a bad argument, the entry failing), there is nothing to do: its exit tells why."""
        for fd in (self._info_w, self._block_r):
            os.close(fd)
        self.child_fds = ()
        try:
            info = await asyncio.wait_for(_read_json(self._info_r), timeout_s)
        except TimeoutError:
            raise SandboxUnavailable(f"bubblewrap did not report its sandbox within {timeout_s:g} s") from None
        if info is None:
            return
        pid = info["child-pid"]
        try:
            for kind, host_id in (("uid_map", host_uid), ("gid_map", host_uid)):
                with open(f"/proc/{pid}/{kind}", "w") as f:
                    f.write(f"0 0 1\n{AGENT_UID} {host_id} 1\n")
        except OSError as exc:
            raise SandboxUnavailable(f"cannot map the agent's uid in the sandbox: {exc}") from exc
        os.write(self._block_w, b"1")

    def close(self) -> None:
        for fd in (self._info_r, self._block_w, *self.child_fds):
            try:
                os.close(fd)
            except OSError:
                pass
        self.child_fds = ()
        self._info_r = self._block_w = -1


async def _read_json(fd: int) -> dict | None:
    """The first JSON object written to ``fd``, or None at end of file before one."""
    loop = asyncio.get_running_loop()
    os.set_blocking(fd, False)
    data = b""
    ready = asyncio.Event()
    loop.add_reader(fd, ready.set)
    try:
        while True:
            await ready.wait()
            ready.clear()
            try:
                chunk = os.read(fd, 4096)
            except BlockingIOError:
                continue
            if not chunk:
                return None
            data += chunk
            try:
                return json.loads(data)
            except ValueError:
                continue
    finally:
        loop.remove_reader(fd)
