"""Cross-server tasks run end to end: one backend per server behind one gateway, reachable at the run's
address (every tool, named ``<server>__<tool>``) and at one address per server (that server's tools by
their own names); one budget, one fault plan and one trace across them, each call recorded with the
server it went to; the final states judged across servers; the run record names the task's servers."""

from __future__ import annotations

import json
import shutil
import sys

import anyio
import pytest

from mcpbench.agents._mcp_http import MCPHttpClient
from mcpbench.agents.spec import MCP_URLS_ENV, PROJECT_ROOT, AgentJob, ProcessAgent
from mcpbench.gateway import Gateway, GatewayHost, server_path
from servers import get_spec
from tasks_catalog.loader import load_valid_tasks
from tasks_catalog.schema import CROSS_SERVER, Fault
from tests.harness.conftest import AGENTS, run

CROSS = PROJECT_ROOT / "tests" / "cross_server_tasks"


@pytest.fixture(scope="module")
def cross_tasks():
    return {t.id: t for t in load_valid_tasks([CROSS])}


def with_gateway(task, body):
    """Serve ``task``'s gateway (one backend per server) on a real loopback host and run ``body(urls,
    gateway)`` in a thread, ``urls`` holding the run's address (``None``) and each server's."""

    async def go():
        with anyio.fail_after(30):
            backends = {s: get_spec(s).open(state) for s, state in task.initial_states().items()}
            try:
                async with GatewayHost().running() as host:
                    gateway = Gateway(task, backends, run_id="run-1", submission_id="sub-1")
                    async with host.serve(gateway) as path:
                        base = f"http://127.0.0.1:{host.port}"
                        urls = {None: base + path} | {s: base + server_path(path, s) for s in task.server_names}
                        out = await anyio.to_thread.run_sync(body, urls, gateway)
                    return out, gateway, {s: b.snapshot() for s, b in backends.items()}
            finally:
                for backend in backends.values():
                    backend.close()

    return anyio.run(go)


def _names(url):
    with MCPHttpClient(url) as c:
        return sorted(t["name"] for t in c.list_tools())


def test_the_runs_address_lists_every_tool_by_server_and_each_servers_address_its_own(cross_tasks):
    task = cross_tasks["x-close-fixed-bug"]
    listed, _, _ = with_gateway(task, lambda urls, gw: {s: _names(u) for s, u in urls.items()})
    assert listed[None] == sorted(task.available_tools)
    assert all("__" in name for name in listed[None])
    for server in task.server_names:
        assert listed[server] == sorted(t.split("__", 1)[1] for t in task.available_tools if t.startswith(server + "__"))
    assert listed["github"] == ["get_issue", "list_issues", "update_issue"]


def test_calls_at_both_kinds_of_address_are_one_trace_each_call_recorded_where_it_went(cross_tasks):
    task = cross_tasks["x-close-fixed-bug"]

    def body(urls, gw):
        with MCPHttpClient(urls[None]) as every, MCPHttpClient(urls["linear"]) as linear:
            return [every.call_tool("github__get_issue", {"owner": "ferrylane", "repo": "booking-api", "issue_number": 17}),
                    linear.call_tool("update_issue", {"id": "ENG-142", "state": "Done"}),
                    every.call_tool("slack__post_message", {"channel_id": "C01RELEASE", "text": "#17 is closed"})]

    answers, gw, finals = with_gateway(task, body)
    assert [a[0] for a in answers] == [False, False, False]
    assert [(c.seq, c.server, c.tool, c.listed) for c in gw.calls] == [
        (1, "github", "get_issue", True), (2, "linear", "update_issue", True), (3, "slack", "post_message", True)]
    assert finals["linear"].issues[0].state == "Done"
    assert [m.text for m in finals["slack"].channels[0].messages] == ["#17 is closed"]
    assert gw.counted_calls == 3


def test_one_step_budget_holds_across_every_address(cross_tasks):
    task = cross_tasks["x-close-fixed-bug"].model_copy(update={"max_steps": 3})

    def body(urls, gw):
        out = []
        with MCPHttpClient(urls["github"]) as github, MCPHttpClient(urls["slack"]) as slack, \
                MCPHttpClient(urls[None]) as every:
            for client, name, args in [(github, "list_issues", {"owner": "ferrylane", "repo": "booking-api"}),
                                       (slack, "list_channels", {}),
                                       (every, "linear__get_issue", {"id": "ENG-142"}),
                                       (slack, "list_channels", {}),
                                       (every, "github__list_issues", {"owner": "ferrylane", "repo": "booking-api"})]:
                out.append(client.call_tool(name, args)[0])
        return out

    errors, gw, _ = with_gateway(task, body)
    assert errors == [False, False, False, True, True]
    assert gw.over_budget and gw.counted_calls == 3
    assert [(c.server, c.error_kind) for c in gw.calls[3:]] == [("slack", "over_budget"), ("github", "over_budget")]


def test_a_fault_on_one_server_meets_its_call_at_either_address_and_the_other_servers_are_untouched(cross_tasks):
    task = cross_tasks["x-refund-duplicate-and-report"].model_copy(
        update={"faults": [Fault(tool="stripe__create_refund", on_call=1, times=2, kind="unavailable")]})

    def body(urls, gw):
        with MCPHttpClient(urls[None]) as every, MCPHttpClient(urls["stripe"]) as stripe, \
                MCPHttpClient(urls["slack"]) as slack:
            return [every.call_tool("stripe__create_refund", {"charge": "ch_LumenCat2"}),
                    slack.call_tool("post_message", {"channel_id": "C4BILLING", "text": "working on it"}),
                    stripe.call_tool("create_refund", {"charge": "ch_LumenCat2"}),
                    stripe.call_tool("create_refund", {"charge": "ch_LumenCat2"})]

    answers, gw, finals = with_gateway(task, body)
    assert [a[0] for a in answers] == [True, False, True, False]
    assert "HTTP 503" in answers[0][1] and "HTTP 503" in answers[2][1]
    assert [(c.server, c.tool, c.error_kind) for c in gw.calls] == [
        ("stripe", "create_refund", "injected_fault"), ("slack", "post_message", None),
        ("stripe", "create_refund", "injected_fault"), ("stripe", "create_refund", None)]
    assert gw.faults_injected == 2
    assert [r.charge for r in finals["stripe"].refunds] == ["ch_LumenCat2"]


def test_unlisted_names_are_refused_and_recorded_with_the_server_they_point_at_and_the_name_as_sent(cross_tasks):
    task = cross_tasks["x-release-note-in-slack"]

    def body(urls, gw):
        with MCPHttpClient(urls[None]) as every, MCPHttpClient(urls["gmail"]) as gmail:
            return [every.call_tool("post_message", {"channel_id": "C01RELEASE", "text": "x"}),
                    every.call_tool("slack__archive_channel", {"channel_id": "C01RELEASE"}),
                    every.call_tool("github__get_issue", {}),
                    gmail.call_tool("gmail__send_email", {}),
                    gmail.call_tool("delete_email", {"messageId": "18e3a1f0c2b7d401"})]

    answers, gw, finals = with_gateway(task, body)
    assert all(is_error for is_error, _ in answers)
    assert "unknown tool 'post_message'" in answers[0][1] and "slack__post_message" in answers[0][1]
    assert "unknown tool 'delete_email'" in answers[4][1] and "search_emails" in answers[4][1]
    assert "gmail__" not in answers[4][1]  # a server's own address names its tools by their own names
    assert [(c.server, c.tool, c.listed, c.error_kind) for c in gw.calls] == [
        (CROSS_SERVER, "post_message", False, "unlisted_tool"),
        ("slack", "slack__archive_channel", False, "unlisted_tool"),
        (CROSS_SERVER, "github__get_issue", False, "unlisted_tool"),
        ("gmail", "gmail__send_email", False, "unlisted_tool"),
        ("gmail", "delete_email", False, "unlisted_tool")]
    assert not finals["slack"].channels[0].is_archived and len(finals["gmail"].messages) == 2


def test_the_oracle_passes_every_example_cross_server_task_and_noop_none(cross_tasks):
    tasks = sorted(cross_tasks.values(), key=lambda t: t.id)
    passed = run(tasks, "oracle", concurrency=2)
    for task, result in zip(tasks, passed):
        r = result.run
        assert (r.status, r.end_reason, r.server, r.servers) == ("passed", "passed", CROSS_SERVER,
                                                                 list(task.server_names)), (task.id, r.stderr_tail)
        expected = [task.route(c.tool) for c in task.reference_solution]
        made = [(c.server, c.tool) for c in result.calls if c.error_kind != "injected_fault"]
        assert made == expected, task.id
        assert r.faults_injected == sum(c.error_kind == "injected_fault" for c in result.calls) == len(task.faults)
    faulted = next(res for res in passed if res.run.task_id == "x-refund-duplicate-and-report")
    assert [(c.server, c.tool) for c in faulted.calls if c.error_kind == "injected_fault"] == [("stripe", "create_refund")]
    failed = run(tasks, "noop", concurrency=2)
    assert {(r.run.status, r.run.end_reason) for r in failed} == {("failed", "predicate_false")}
    digests = {r.run.task_id: r.run.final_state_digest for r in passed}
    again = run(tasks[:1], "oracle")
    assert again[0].run.final_state_digest == digests[tasks[0].id]
    assert failed[0].run.final_state_digest != digests[tasks[0].id]


def test_the_right_write_in_the_wrong_server_fails_on_the_frame_naming_the_other_servers_entity(cross_tasks):
    task = cross_tasks["x-release-note-in-slack"]
    (wrong,) = [w for w in task.wrong_solutions if "wrong server" in w.why]
    replaying = task.model_copy(update={"reference_solution": wrong.calls})  # the oracle replays these calls
    (result,) = run([replaying], "oracle")
    r = result.run
    assert (r.status, r.end_reason, r.predicate_passed, r.frame_held) == ("failed", "frame_violated", False, False)
    assert r.frame_violations.startswith("gmail.message ") and "created: outside the frame" in r.frame_violations
    assert [(c.server, c.tool) for c in result.calls] == [("gmail", "send_email")]


def test_a_private_cross_server_run_redacts_its_calls_and_still_says_where_each_went(cross_tasks):
    task = cross_tasks["x-incident-handover"]
    (result,) = run([task], "oracle", private=True)
    assert result.run.passed
    assert [(c.server, c.tool, c.arguments_json) for c in result.calls] == [
        ("linear", "get_issue", "[redacted]"), ("slack", "get_users", "[redacted]"),
        ("slack", "invite_to_channel", "[redacted]"), ("slack", "post_message", "[redacted]")]


def test_the_agent_gets_the_runs_address_and_one_address_per_server_in_its_environment(cross_tasks):
    job = AgentJob(task=cross_tasks["x-incident-handover"], run_id="r", mcp_url="http://127.0.0.1:9/r/t/mcp",
                   deadline=0.0, seed="r", mcp_urls={"linear": "http://127.0.0.1:9/r/t/linear/mcp",
                                                    "slack": "http://127.0.0.1:9/r/t/slack/mcp"})
    env = job.env()
    assert env["MCPBENCH_MCP_URL"] == "http://127.0.0.1:9/r/t/mcp"
    assert json.loads(env[MCP_URLS_ENV]) == {"linear": "http://127.0.0.1:9/r/t/linear/mcp",
                                              "slack": "http://127.0.0.1:9/r/t/slack/mcp"}
    assert server_path("/r/tok/mcp", "slack") == "/r/tok/slack/mcp"
    single = load_valid_tasks([PROJECT_ROOT / "tests" / "catalog" / "inline_tasks" / "fs-set-log-level.json"])[0]
    plain = AgentJob(task=single, run_id="r", mcp_url="http://127.0.0.1:9/r/t/mcp", deadline=0.0, seed="r")
    assert MCP_URLS_ENV not in plain.env()


def test_a_command_agent_works_a_cross_server_task_at_each_servers_own_address(cross_tasks, backend, agent_dir):
    """In each isolating sandbox the agent reaches the gateway's per-server addresses (and only the
    gateway): it lists each server's tools by their own names and solves the task there."""
    task = cross_tasks["x-close-fixed-bug"]
    script = agent_dir / "per_server.py"
    shutil.copy(AGENTS / "per_server.py", script)
    plan = [[*task.route(c.tool), c.arguments] for c in task.reference_solution]
    agent = ProcessAgent("command:per_server", (sys.executable, "-S", str(script)), folder=str(agent_dir),
                         readonly_paths=(str(PROJECT_ROOT / "mcpbench"),),
                         extra_env=(("PYTHONPATH", str(PROJECT_ROOT)), ("MCPBENCH_TEST_PLAN", json.dumps(plan))))
    (result,) = run([task], agent, sandbox=backend)
    assert result.run.passed, (result.run.end_reason, result.run.stderr_tail, result.outcome.stdout_tail)
    assert result.run.sandbox == backend
    seen = json.loads(result.outcome.stdout_tail.splitlines()[-1])
    assert seen["servers"] == ["github", "linear", "slack"]
    assert seen["tools"]["linear"] == ["get_issue", "update_issue"]
    assert [(c.server, c.tool) for c in result.calls] == [("github", "update_issue"), ("linear", "update_issue"),
                                                          ("slack", "post_message")]


def test_a_backend_that_cannot_be_built_is_an_infra_error_naming_its_server(cross_tasks):
    task = cross_tasks["x-incident-handover"]
    broken = dict(task.initial_state)
    broken["slack"] = {"world": {"generator": "slack", "version": 1, "seed": 1, "size": "default"},
                       "patch": [{"op": "remove", "in": ["channels"], "id": "C0NOPE"}]}
    (result,) = run([task.model_copy(update={"initial_state": broken})], "oracle")
    assert result.run.status == "infra_error" and result.run.end_reason == "infra:backend"
    assert result.run.infra_error.startswith("backend slack could not be built: ")
    assert result.run.server == CROSS_SERVER and result.run.servers == ["linear", "slack"]


def test_the_backends_built_before_one_that_fails_are_closed(cross_tasks, monkeypatch):
    import mcpbench.runner

    task = cross_tasks["x-close-fixed-bug"]
    broken = dict(task.initial_state)
    broken["slack"] = {"channels": "not a list"}
    built = []
    real = mcpbench.runner._open_backend

    def spying(spec, state):
        tools, initial = real(spec, state)
        closed = tools.close
        tools.close = lambda: (built.append(spec.name), closed())[1]
        return tools, initial

    monkeypatch.setattr(mcpbench.runner, "_open_backend", spying)
    (result,) = run([task.model_copy(update={"initial_state": broken})], "noop")
    assert result.run.end_reason == "infra:backend"
    assert result.run.infra_error.startswith("backend slack could not be built: ")
    assert built == ["github", "linear"]  # both closed, once each
