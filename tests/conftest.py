"""Shared fixtures: call a server's tools through a real in-memory MCP client."""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, settings

from servers import get_spec
from servers.kit import build_mcp_server

# Hypothesis's speed checks are timed assertions: on a loaded 2-core machine (three xdist workers, node,
# sandboxes) generating examples can take seconds, and the test then fails for the machine, not the code.
settings.register_profile("mcpbench", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("mcpbench")

# Every gate the tests run checks that no replay changed a world every run shares (a copy shares a world's
# frozen records; servers.kit.world.CHECK_ENV): gate processes and xdist workers inherit it.
os.environ.setdefault("MCPBENCH_CHECK_WORLDS", "1")


# -- scheduling under pytest-xdist (pyproject: --dist loadgroup --no-loadscope-reorder) --------------
#: Session fixtures built once under a file lock and shared by every worker: the tests that use one run
#: on one worker (an xdist group), so no worker sits waiting for another's build.
SHARED_FIXTURE_GROUPS = {"rotated_months": "rotated-months", "full_month": "rotated-months",
                         "pipeline": "private-month-pipeline",
                         "prefect_harness": "prefect-harness", "prefect_server": "prefect-harness",
                         # a session fixture without a lock is built once per worker that asks for it
                         "landed": "viewer-runs"}


#: Roughly what the costliest tests take on an idle machine, in seconds (node-id prefixes): only the
#: order in which they start depends on it. Keep the slowest first; a stale entry merely orders less well.
COSTS = {
    "tests/flows/test_prefect_deployments.py": 240,
    "tests/flows/test_private_month.py": 150,
    "tests/flows/test_dask_processes.py": 70,
    "tests/catalog/test_cli_help.py::test_every_example_in_every_commands_help_runs": 120,
    "tests/months/test_months_store.py": 100,
    "tests/months/test_rotation.py": 100,
    "tests/test_end_to_end.py": 60,
    "tests/harness/test_slow_calls.py::test_a_slow_query": 35,  # five statements of 5 s of CPU time, per backend
    "tests/harness/test_baselines.py": 15,
    "tests/harness/test_hostile_agents.py::test_ten_thousand_calls": 25,
    "tests/catalog/test_gate.py::test_the_whole_dev_set_passes_the_gate": 20,
    "tests/warehouse/test_checked_builds.py::test_readers_and_a_rebuild_with_nothing_new": 20,
    "tests/catalog/test_templates.py::test_the_filesystem_templates": 15,
    "tests/warehouse/test_report_browser.py": 15,  # Chromium: last to start, it ran alone at the end
}


#: Tests that mostly wait (deadlines, containers, retries' backoff, sandboxes starting), not compute:
#: about 85 s of a run's wall in all, at a tenth of a core. Dealt among the workers, they often ran on
#: both at once and left both cores idle. They form one group instead, which one worker runs while the
#: others compute: the README's command runs three workers on two cores for that (bench/history/test-suite.md,
#: "Test suite and the cost targets, 2026-12-04 night": the cores 77% busy with two workers, 88% with
#: three and this group).
WAITS = (
    "tests/agents/test_openai_agent.py",
    "tests/agents/test_anthropic_upstream.py",
    "tests/agents/test_model_gateway.py",
    "tests/agents/test_sandboxed_model_agent.py",
    "tests/agents/test_ts_sdk_agent.py",
    "tests/harness/test_containment.py",
    "tests/harness/test_host_agents.py",
    # a loop stalled on purpose for 6 s
    "tests/harness/test_slow_calls.py::test_a_stall",
    "tests/harness/test_slow_calls.py::test_a_stalled",
    # all but test_ten_thousand_calls, which computes (a core for seconds)
    "tests/harness/test_hostile_agents.py::test_a",
    "tests/harness/test_hostile_agents.py::test_hostile",
    "tests/sandbox/test_containment.py",
    "tests/sandbox/test_docker_live.py",
    "tests/sandbox/test_hostile_agents.py",
    "tests/sandbox/test_network.py",
    "tests/test_end_to_end_docker.py",
    "tests/test_cross_server_end_to_end.py::test_the_oracle_passes_every_cross_server_task_in_docker",
    "tests/agents/test_cross_server_agents.py",
)


def _cost(item: pytest.Item) -> float:
    return max((cost for prefix, cost in COSTS.items() if item.nodeid.startswith(prefix)), default=0.0)


def _group(item: pytest.Item) -> str | None:
    defs = getattr(item, "_fixtureinfo", None)
    by_name = defs.name2fixturedefs if defs else {}
    for fixture, group in SHARED_FIXTURE_GROUPS.items():
        # (a test's own fixture of the same name, of a narrower scope, is not the shared one)
        if fixture in item.fixturenames and by_name.get(fixture) and by_name[fixture][-1].scope == "session":
            return group
    if item.nodeid.startswith(WAITS):
        return "waiting"
    scopes = {d.scope for ds in by_name.values() for d in ds}
    if scopes & {"module", "class", "package"}:
        return item.nodeid.split("::", 1)[0]  # a module fixture is built once: its tests stay together
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """The costliest tests first (every worker sorts alike, so xdist sees one collection), each group of
    tests sharing an expensive fixture on one worker; everything else is dealt test by test, so the
    slowest tests overlap at the start instead of one of them running alone at the end.

    First among the hooks: pytest-xdist reads the ``xdist_group`` marks in its own hook of this name, on
    each worker, and a mark added after it has run is ignored (the groups silently did not hold, and a
    worker sat waiting for the other's fixture)."""
    for item in items:
        group = _group(item)
        if group is not None and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(group))
    items.sort(key=lambda item: -_cost(item))


class LiveServer:
    """A server backend plus a synchronous way to call its tools over real MCP (in memory)."""

    def __init__(self, name: str, state: dict[str, Any] | None = None) -> None:
        self.spec = get_spec(name)
        self.tools = self.spec.open(self.spec.state_model.load(state or {}))
        self.server = build_mcp_server(self.spec, self.tools)

    def call(self, tool: str, **arguments: Any):
        """The ``CallToolResult`` of one call."""
        from mcp import Client

        async def go():
            with anyio.fail_after(10):
                async with Client(self.server) as client:
                    return await client.call_tool(tool, arguments)

        return anyio.run(go)

    def listed_tools(self) -> dict[str, Any]:
        """The server's tools as an MCP client lists them, by name."""
        from mcp import Client

        async def go():
            with anyio.fail_after(10):
                async with Client(self.server) as client:
                    return (await client.list_tools()).tools

        return {t.name: t for t in anyio.run(go)}

    def ok(self, tool: str, **arguments: Any) -> str:
        """The text of a successful call (fails the test on a tool error)."""
        result = self.call(tool, **arguments)
        text = "".join(getattr(c, "text", "") for c in result.content)
        assert not result.is_error, f"{tool} failed: {text}"
        return text

    def ok_json(self, tool: str, **arguments: Any) -> Any:
        return json.loads(self.ok(tool, **arguments))

    def error(self, tool: str, **arguments: Any) -> str:
        """The message of a failed call (fails the test if the call succeeded)."""
        result = self.call(tool, **arguments)
        text = "".join(getattr(c, "text", "") for c in result.content)
        assert result.is_error, f"{tool} unexpectedly succeeded: {text}"
        return text

    def state(self):
        return self.tools.snapshot()

    def close(self) -> None:
        self.tools.close()


@pytest.fixture
def live():
    """``live(name, state)`` opens a server; all are closed after the test."""
    opened: list[LiveServer] = []

    def open_(name: str, state: dict[str, Any] | None = None) -> LiveServer:
        s = LiveServer(name, state)
        opened.append(s)
        return s

    yield open_
    for s in opened:
        s.close()


# -- the private months the suite rotates, each gated once per test session ---------------------------
#: The operator's secret of the shared months (tests only); the flow tests use it too (one gate cache).
MONTHS_SECRET = "operator-secret-for-tests-only-0123456789"
#: The servers of the smaller months that the store and pipeline tests rotate (``rotated_months``,
#: tests/flows/test_private_month.py): four servers whose templates in the demonstration pool fill a
#: month with its cross-server share (on 2026-12-06 these four had the most cross-server hard templates,
#: six, and a month of four servers draws 20 hard tasks at most four a template), so a month of them is a
#: real one, 6 tasks a server and 10 cross-server ones per server (64), at two fifths of a ten-server
#: month's size. With the same secret its single-server tasks are the ten-server month's, task for task;
#: slack is among them, so the one-server slack months of other tests are its tasks too. A ten-server
#: month's composition and gate are ``full_month``'s and tests/months/test_rotation.py's.
MONTH_SERVERS = ("github", "slack", "linear", "notion")


def _shared_dir(request, tmp_path_factory, name: str):
    """A folder shared by every xdist worker of this session, and a lock file beside it."""
    base = tmp_path_factory.getbasetemp()
    if hasattr(request.config, "workerinput"):
        base = base.parent
    return base / name, base / f"{name}.lock"


def _built_once(request, tmp_path_factory, name: str, build: Callable[[Path], Any]) -> tuple[Path, Any]:
    """``(folder, build(folder))`` for a folder built once per session, also under pytest-xdist: the first
    worker builds it under a lock, the others wait for it and read what it left (``build`` returns JSON
    data, kept beside what it wrote)."""
    import fcntl

    root, lock_path = _shared_dir(request, tmp_path_factory, name)
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            done = root / "built.json"
            if not done.exists():
                shutil.rmtree(root, ignore_errors=True)  # what a worker that failed midway left
                root.mkdir(parents=True)
                done.write_text(json.dumps(build(root)))
            return root, json.loads(done.read_text())
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def gate_cache(request, tmp_path_factory):
    """One gate cache folder (tasks_catalog/gate_cache.py) for the whole session, every worker and the
    pipelines they start: the months the suite rotates share one secret and their month names, so a
    month gated once (or by two of them at once, each judging part) is not judged again. Only the
    fixtures that rotate whole months use it; a test about the gate itself never does."""
    folder, _ = _shared_dir(request, tmp_path_factory, "gate-cache")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _rotate_months(store_dir: Path, months: tuple[str, ...], gate_cache: Path, servers: tuple[str, ...] | None = None):
    """``{month: RotationReport.public()}`` of ``months`` rotated in turn from the demonstration pool into a
    store at ``store_dir`` (``servers``: a month of these servers only), each gated by both verifiers
    through the session's gate cache."""
    from datetime import date

    import tasks_catalog.rotation
    from runstore.store import open_store
    from tasks_catalog.gate import acceptance_gate
    from tasks_catalog.months import rotate
    from tasks_catalog.templates import load_pool

    store = open_store(str(store_dir))
    gate = acceptance_gate(cache=gate_cache)
    with pytest.MonkeyPatch.context() as mp:
        if servers is not None:
            mp.setattr(tasks_catalog.rotation, "SERVER_NAMES", servers)
        pool = load_pool()
        return {m: rotate(store, m, secret=MONTHS_SECRET, pool=pool, gate=gate, today=date(2026, 12, 1)).public()
                for m in months}


@pytest.fixture(scope="session")
def full_month(request, tmp_path_factory, gate_cache):
    """The public report (``RotationReport.public()``) of 2026-11 rotated for all ten servers: its 160 tasks
    rendered, gated by both verifiers, sealed and attested. The one ten-server month the suite gates (the
    Prefect deployment rotates the same month through the same gate cache); built once per session, also
    under pytest-xdist."""
    _, report = _built_once(request, tmp_path_factory, "full-month",
                            lambda root: _rotate_months(root / "store", ("2026-11",), gate_cache)["2026-11"])
    return report


@pytest.fixture(scope="session")
def rotated_months(request, tmp_path_factory, gate_cache):
    """A store in which 2026-11 and then 2026-12 were rotated from the demonstration pool for
    ``MONTH_SERVERS``: each month's 64 tasks rendered, gated (both verifiers when the TypeScript one is
    built), sealed and attested, and 2026-11 retired as Historical-2026-11. Built once per session, also
    under pytest-xdist (the first worker builds it under a lock, the others read it). Read-only: copy
    ``store`` (``copy_store``) before writing to it.

    Returns ``{"store": path, "reports": {month: RotationReport.public()}, "secret", "servers"}``."""
    root, reports = _built_once(request, tmp_path_factory, "rotated-months",
                                lambda root: _rotate_months(root / "store", ("2026-11", "2026-12"), gate_cache,
                                                            MONTH_SERVERS))
    return {"store": root / "store", "reports": reports, "secret": MONTHS_SECRET, "servers": MONTH_SERVERS}


@pytest.fixture
def copy_store(tmp_path):
    """``copy_store(path)``: a private writable copy of a store folder, opened."""
    import shutil

    from runstore.store import open_store

    def copy(path):
        target = tmp_path / "store-copy"
        shutil.copytree(path, target)
        return open_store(str(target))

    return copy


#: Where tests put the folders of ``command:`` agents: a submitter's program may not live under /tmp (where
#: pytest's tmp_path is) or a home (mcpbench.sandbox.paths), and the checkout itself may lie under either.
AGENT_DIRS = Path(os.environ.get("MCPBENCH_TEST_AGENT_DIRS", "/var/lib/mcpbench-test-agents"))


@pytest.fixture
def agent_dir():
    """A fresh, world-readable folder outside /tmp and the homes, where a ``command:`` agent's program may
    live under the default rule; removed afterwards. Skipped, saying why, where none can be made."""
    from mcpbench.sandbox.paths import folder_refusal

    try:
        AGENT_DIRS.mkdir(mode=0o755, parents=True, exist_ok=True)
        folder = AGENT_DIRS / uuid.uuid4().hex[:12]
        folder.mkdir(mode=0o755)
        folder.chmod(0o755)  # whatever the umask
    except OSError as exc:
        pytest.skip(f"no folder for command: agents can be made under {AGENT_DIRS} ({exc}); "
                    "set MCPBENCH_TEST_AGENT_DIRS to a world-readable folder outside /tmp and the homes")
    why = folder_refusal(folder)
    if why is not None:
        shutil.rmtree(folder, ignore_errors=True)
        pytest.skip(f"{AGENT_DIRS} cannot hold an agent's folder here: {why}; set MCPBENCH_TEST_AGENT_DIRS")
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
