"""Agents that run beside the harness: a hosted HTTP endpoint and the built-in OpenAI-compatible
loop (against a scripted chat endpoint on loopback). Their MCP traffic still crosses the gateway."""

import http.server
import json
import threading

import pytest

from mcpbench.agents._mcp_http import MCPHttpClient
from mcpbench.agents.spec import AgentSpecError, parse_agent
from tests.harness.conftest import run


class _Server:
    """A loopback HTTP server whose POST handler is ``handle(path, body) -> (status, json)``."""

    def __init__(self, handle):
        outer = self
        self.requests: list[dict] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
                status, answer = handle(self.path, body)
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def test_a_hosted_agent_gets_the_job_and_works_through_the_gateway(dev_tasks):
    task = dev_tasks[0]

    def hosted(path, job):
        assert job["goal"] == task.goal and job["max_steps"] == task.max_steps
        with MCPHttpClient(job["mcp_url"]) as client:
            for call in task.reference_solution:
                for _ in range(3):
                    if not client.call_tool(call.tool, call.arguments)[0]:
                        break
        return 200, {"status": "done"}

    with _Server(hosted) as agent:
        (result,) = run([task], f"http:{agent.url}/run")
    assert result.run.passed and result.run.sandbox == "host"
    assert [c.tool for c in result.calls if not c.is_error] == [c.tool for c in task.reference_solution]


def test_a_hosted_agent_answering_an_error_status_has_failed(dev_tasks):
    with _Server(lambda path, job: (500, {"error": "model overloaded"})) as agent:
        (result,) = run([dev_tasks[0]], f"http:{agent.url}/run")
    assert result.run.status == "failed" and result.run.agent_error


def test_the_openai_loop_maps_tools_executes_calls_and_stops_on_a_plain_answer(dev_tasks, monkeypatch):
    task = next(t for t in dev_tasks if t.category == "standard")
    script = [{"role": "assistant", "content": None, "tool_calls": [
        {"id": f"call_{i}", "type": "function",
         "function": {"name": c.tool, "arguments": json.dumps(c.arguments)}}]}
        for i, c in enumerate(task.reference_solution)]
    script.append({"role": "assistant", "content": "All done."})

    def chat(path, body):
        assert path == "/v1/chat/completions" and body["model"] == "scripted-1"
        names = {t["function"]["name"] for t in body["tools"]}
        assert names == set(task.available_tools)
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        return 200, {"choices": [{"message": script[turn]}]}

    with _Server(chat) as endpoint:
        monkeypatch.setenv("OPENAI_BASE_URL", f"{endpoint.url}/v1")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")
        (result,) = run([task], "openai:scripted-1")
        requests = endpoint.requests
    assert result.run.passed, (result.outcome.stderr_tail, [c.error_message for c in result.calls])
    assert len(requests) == len(script) and requests[0]["auth"] == "Bearer sk-test-key"
    tool_messages = [m for m in requests[-1]["body"]["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == [f"call_{i}" for i in range(len(task.reference_solution))]


def test_agent_specs_that_name_no_agent_are_refused_clearly():
    with pytest.raises(AgentSpecError, match="not an agent"):
        parse_agent("gpt-5")
    with pytest.raises(AgentSpecError, match="needs a command"):
        parse_agent("command:")
    with pytest.raises(AgentSpecError, match="http:<url>"):
        parse_agent("http:localhost:9000")
    assert parse_agent("command:python agent.py --fast").argv == ("python", "agent.py", "--fast")


def test_a_command_agents_relative_paths_are_made_absolute_and_nothing_else(agent_dir, monkeypatch):
    """The agent starts in its own home inside the sandbox, where ``python my_agent.py`` (the README's
    example) would name nothing: paths relative to the operator's directory are made absolute there."""
    (agent_dir / "my_agent.py").write_text("")
    (agent_dir / "bin").mkdir()
    (agent_dir / "bin" / "agent").write_text("")
    (agent_dir / "bin" / "data").mkdir()
    (agent_dir / "real").mkdir()
    (agent_dir / "real" / "agent.mjs").write_text("")
    (agent_dir / "linked.mjs").symlink_to(agent_dir / "real" / "agent.mjs")
    monkeypatch.chdir(agent_dir)
    here = agent_dir.resolve()
    assert parse_agent("command:python my_agent.py --fast").argv == ("python", str(here / "my_agent.py"), "--fast")
    assert parse_agent("command:./bin/agent --data bin/data/").argv == (str(here / "bin/agent"), "--data",
                                                                         str(here / "bin/data"))
    # symlinks resolved, as Node and Python resolve a script's folder (whose files the agent must read)
    linked = parse_agent("command:node linked.mjs")
    assert linked.argv == ("node", str(here / "real/agent.mjs")) and linked.folder == str(here / "real")
    # a program on PATH, options, module names, a bare folder name and paths that exist nowhere stay
    assert parse_agent("command:python -m bin").argv == ("python", "-m", "bin")
    assert parse_agent("command:node missing/agent.mjs -x").argv == ("node", "missing/agent.mjs", "-x")
    assert parse_agent(f"command:node {here}/real/agent.mjs").argv == ("node", f"{here}/real/agent.mjs")
