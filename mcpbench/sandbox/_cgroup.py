"""A per-run control group: memory, pids and CPU ceilings, a census of the run's processes, a kill switch.

Both hierarchies are supported, chosen by what is mounted: cgroup v2 (``/sys/fs/cgroup/cgroup.controllers``
exists) or cgroup v1 (one mount per controller under ``/sys/fs/cgroup/<controller>``). A run's group is
``mcpbench/run-<owner tag><random>`` under each root (``runstore/leftovers.py``: a harness killed with SIGKILL leaves
its groups behind, and ``sweep_dead_groups`` removes those of dead owners). The spawned child moves *itself* into the group before it execs
(see ``_limits.entry_prefix``), so nothing the agent forks can start outside it.
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from runstore.leftovers import owner_tag, sweep

from .interface import ResourceLimits

CGROUP_ROOT = Path("/sys/fs/cgroup")
GROUP_PARENT = "mcpbench"
CPU_PERIOD_US = 100_000
V1_CONTROLLERS = ("memory", "pids", "cpu")
GROUP_PREFIX = "run-"


class CgroupError(OSError):
    """The machine has no usable cgroup hierarchy for us (not mounted, read-only, not delegated)."""


def detect_version(root: Path = CGROUP_ROOT) -> int | None:
    """2 for a unified hierarchy, 1 for per-controller mounts, None when neither is usable."""
    if (root / "cgroup.controllers").exists():
        return 2
    if all((root / c / "cgroup.procs").exists() for c in V1_CONTROLLERS):
        return 1
    return None


@dataclass
class CgroupUsage:
    oom: bool
    pids_limited: bool


class RunCgroup:
    """The control group(s) of one sandboxed run. Create with ``RunCgroup.create``; always ``remove``."""

    def __init__(self, version: int, dirs: list[Path]) -> None:
        self.version = version
        self.dirs = dirs  # v2: one directory; v1: memory, pids, cpu in that order
        self.procs_files = [str(d / "cgroup.procs") for d in dirs]  # where a process joins the group

    @property
    def label(self) -> str:
        return f"cgroup-v{self.version}"

    @classmethod
    def create(cls, limits: ResourceLimits, *, root: Path = CGROUP_ROOT) -> RunCgroup:
        version = detect_version(root)
        if version is None:
            raise CgroupError(f"no cgroup v1 or v2 hierarchy with memory, pids and cpu under {root}")
        name = f"{GROUP_PREFIX}{owner_tag()}{uuid.uuid4().hex[:12]}"
        try:
            if version == 2:
                group = cls(2, [_make_v2_group(root, name)])
            else:
                group = cls(1, [_make_dir(root / c / GROUP_PARENT / name) for c in V1_CONTROLLERS])
        except OSError as exc:
            raise CgroupError(f"cannot create a cgroup under {root}: {exc}") from exc
        try:
            group._apply(limits)
        except OSError as exc:
            group.remove()
            raise CgroupError(f"cannot set limits on cgroup {group.dirs[0]}: {exc}") from exc
        return group

    def _apply(self, limits: ResourceLimits) -> None:
        memory = limits.memory_mb * 1024 * 1024
        quota = max(1000, int(limits.cpu_cores * CPU_PERIOD_US))
        if self.version == 2:
            (d,) = self.dirs
            _write(d / "memory.max", memory)
            if (d / "memory.swap.max").exists():
                _write(d / "memory.swap.max", 0)
            _write(d / "pids.max", limits.pids)
            _write(d / "cpu.max", f"{quota} {CPU_PERIOD_US}")
            return
        mem, pids, cpu = self.dirs
        _write(mem / "memory.limit_in_bytes", memory)
        if (mem / "memory.memsw.limit_in_bytes").exists():
            _write(mem / "memory.memsw.limit_in_bytes", memory)  # no escaping the limit into swap
        _write(pids / "pids.max", limits.pids)
        _write(cpu / "cpu.cfs_period_us", CPU_PERIOD_US)
        _write(cpu / "cpu.cfs_quota_us", quota)

    def pids(self) -> list[int]:
        found: set[int] = set()
        for d in self.dirs[:2] if self.version == 1 else self.dirs:
            try:
                found.update(int(line) for line in (d / "cgroup.procs").read_text().split())
            except FileNotFoundError:
                pass
        return sorted(found)

    def kill_all(self) -> None:
        """SIGKILL every process in the group, repeating until none is left to fork a replacement."""
        kill_file = self.dirs[0] / "cgroup.kill"
        if self.version == 2 and kill_file.exists():
            _write(kill_file, 1)
            return
        for _ in range(100):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

    def usage(self) -> CgroupUsage:
        if self.version == 2:
            (d,) = self.dirs
            memory_events = _read_counters(d / "memory.events")
            pids_events = _read_counters(d / "pids.events")
            return CgroupUsage(oom=memory_events.get("oom_kill", 0) > 0, pids_limited=pids_events.get("max", 0) > 0)
        mem, pids, _ = self.dirs
        oom_control = _read_counters(mem / "memory.oom_control")
        oom = oom_control.get("oom_kill", 0) > 0 or oom_control.get("under_oom", 0) > 0
        if "oom_kill" not in oom_control:  # kernels before 4.13 have no counter; hitting the limit is the hint
            oom = _read_int(mem / "memory.failcnt") > 0
        return CgroupUsage(oom=oom, pids_limited=_read_counters(pids / "pids.events").get("max", 0) > 0)

    def remove(self, timeout_s: float = 2.0) -> None:
        """Kill what is left and delete the group; processes still exiting get ``timeout_s`` to go."""
        deadline = time.monotonic() + timeout_s
        for d in self.dirs:
            while True:
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # EBUSY: members still exiting
                    if time.monotonic() > deadline:
                        raise
                    self.kill_all()
                    time.sleep(0.005)


def sweep_dead_groups(root: Path = CGROUP_ROOT) -> list[Path]:
    """Kill the processes of, and delete, every run group whose harness is no longer running."""
    version = detect_version(root)
    by_version: dict[int | None, list[Path]] = {2: [root / GROUP_PARENT], 1: [root / c / GROUP_PARENT for c in V1_CONTROLLERS]}
    parents = by_version.get(version, [])

    def remove(group: Path) -> None:
        RunCgroup(1, [group]).remove()  # v1 semantics per directory: kill its members one by one, rmdir

    return [gone for parent in parents for gone in sweep(parent, GROUP_PREFIX, remove)]


def _make_dir(path: Path) -> Path:
    path.parent.mkdir(exist_ok=True)
    path.mkdir()
    return path


def _make_v2_group(root: Path, name: str) -> Path:
    parent = root / GROUP_PARENT
    wanted = {"memory", "pids", "cpu"}
    available = set((root / "cgroup.controllers").read_text().split())
    if not wanted <= available:
        raise CgroupError(f"cgroup v2 at {root} lacks controllers {sorted(wanted - available)}")
    enabled = set((root / "cgroup.subtree_control").read_text().split())
    if not wanted <= enabled:
        _write(root / "cgroup.subtree_control", " ".join(f"+{c}" for c in sorted(wanted - enabled)))
    parent.mkdir(exist_ok=True)
    if not wanted <= set((parent / "cgroup.subtree_control").read_text().split()):
        _write(parent / "cgroup.subtree_control", " ".join(f"+{c}" for c in sorted(wanted)))
    group = parent / name
    group.mkdir()
    return group


def _write(path: Path, value: object) -> None:
    with open(path, "w") as f:
        f.write(str(value))


def _read_int(path: Path) -> int:
    try:
        return int(path.read_text().strip())
    except (FileNotFoundError, ValueError):
        return 0


def _read_counters(path: Path) -> dict[str, int]:
    counters: dict[str, int] = {}
    try:
        for line in path.read_text().splitlines():
            key, _, value = line.partition(" ")
            if value.strip().lstrip("-").isdigit():
                counters[key] = int(value)
    except FileNotFoundError:
        pass
    return counters
