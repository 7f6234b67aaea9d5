"""Agent specs: how ``--agent`` strings become agents.

- ``command:<argv>``  any executable, run in the sandbox. It gets ``MCPBENCH_MCP_URL``, the goal
  (``MCPBENCH_GOAL`` and on stdin), ``MCPBENCH_MAX_STEPS``, ``MCPBENCH_TIMEOUT_S`` and
  ``MCPBENCH_DEADLINE`` (Unix time) in its environment. Exit 0 means finished; anything else is the
  agent's error. When the operator configured a model upstream, it also gets the run's model gateway
  as ``MCPBENCH_MODEL_URL`` and ``OPENAI_BASE_URL`` (with a placeholder ``OPENAI_API_KEY``).
- ``http:<url>``      a hosted agent: POSTed ``{run_id, goal, mcp_url, max_steps, timeout_s, deadline}``;
  a 2xx answer means finished. It reaches the gateway over loopback, so it runs beside the harness.
- ``openai[:model]``  the built-in tool-calling loop, through the model gateway to the operator's
  upstream (``MCPBENCH_MODEL_UPSTREAM`` or ``OPENAI_BASE_URL``, key ``MCPBENCH_MODEL_UPSTREAM_KEY`` or
  ``OPENAI_API_KEY``; model from the spec or ``MCPBENCH_OPENAI_MODEL``; per-turn ``max_tokens`` from
  ``MCPBENCH_OPENAI_MAX_TOKENS``, default 1024; ``MCPBENCH_OPENAI_STREAM=0`` for servers that cannot
  stream tool calls).
- ``oracle``, ``noop``, ``liar``, ``random``  the built-in baselines (``mcpbench.agents.baselines``),
  each a real MCP client run in the sandbox.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from mcpbench.sandbox.interface import AgentProcess, ResourceLimits
from tasks_catalog.schema import Task

PROJECT_ROOT = Path(__file__).resolve().parents[2]
BASELINES = ("oracle", "noop", "liar", "random")


class AgentSpecError(ValueError):
    pass


@dataclass(frozen=True)
class AgentJob:
    """What an agent is given for one run. ``mcp_url`` is the gateway as the agent reaches it."""

    task: Task
    run_id: str
    mcp_url: str
    deadline: float  # Unix time
    seed: str
    #: the run's model gateway base URL (…/v1), when the run has one
    model_url: str | None = None

    def env(self) -> dict[str, str]:
        env = {
            "MCPBENCH_MCP_URL": self.mcp_url,
            "MCPBENCH_GOAL": self.task.goal,
            "MCPBENCH_MAX_STEPS": str(self.task.max_steps),
            "MCPBENCH_TIMEOUT_S": str(self.task.timeout_s),
            "MCPBENCH_DEADLINE": f"{self.deadline:.3f}",
            "MCPBENCH_RUN_ID": self.run_id,
            "MCPBENCH_SEED": self.seed,
        }
        if self.model_url:
            from mcpbench.model_gateway import MODEL_URL_ENV, PLACEHOLDER_KEY

            env |= {MODEL_URL_ENV: self.model_url, "OPENAI_BASE_URL": self.model_url,
                    "OPENAI_API_KEY": PLACEHOLDER_KEY}
        return env


@dataclass(frozen=True)
class ProcessAgent:
    """An agent that is a process, contained by the sandbox."""

    name: str
    argv: tuple[str, ...]
    baseline: str | None = None
    limits: ResourceLimits = ResourceLimits()
    #: extra host paths the agent may read, and extra environment (e.g. a library path)
    readonly_paths: tuple[str, ...] = ()
    extra_env: tuple[tuple[str, str], ...] = ()

    @property
    def uses_model(self) -> bool:
        """Whether runs of this agent get a model gateway (built-in baselines never do)."""
        return self.baseline is None

    def process(self, job: AgentJob, gateway_port: int, model_port: int | None = None) -> AgentProcess:
        """The sandboxed process; ``model_port`` is the model gateway's host loopback port, which the
        sandbox forwards like the MCP gateway's (the second and last endpoint the agent reaches)."""
        if self.baseline is not None:
            payload = {"goal": job.task.goal, "max_steps": job.task.max_steps}
            if self.baseline == "oracle":
                payload["reference_solution"] = [c.model_dump(mode="json") for c in job.task.reference_solution]
            stdin = json.dumps(payload)
            env = {**job.env(), "PYTHONPATH": str(PROJECT_ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
            readonly: tuple[str, ...] = (str(PROJECT_ROOT),)
        else:
            stdin = job.task.goal
            env = job.env()
            # The folders of the program and of any file it is given (a script) must be readable.
            readonly = tuple(sorted({str(Path(a).resolve().parent) for a in self.argv if "/" in a and Path(a).exists()}))
        extra = {"extra_ports": (model_port,)} if model_port is not None else {}
        return AgentProcess(argv=list(self.argv), env={**env, **dict(self.extra_env)}, stdin=stdin,
                            gateway_port=gateway_port, timeout_s=job.task.timeout_s, limits=self.limits,
                            readonly_paths=readonly + self.readonly_paths, **extra)


@dataclass(frozen=True)
class HostedAgent:
    """An agent behind an HTTP endpoint (``http:<url>``)."""

    name: str
    url: str


@dataclass(frozen=True)
class OpenAIAgent:
    """The built-in tool-calling loop, through the run's model gateway."""

    name: str
    model: str
    max_tokens: int = 1024  # per model turn
    max_turns: int = 50
    #: stream every answer (off for servers that cannot stream tool calls, e.g. llama-cpp-python's
    #: chatml-function-calling format; the deadline still drops the request either way)
    stream: bool = True


Agent = ProcessAgent | HostedAgent | OpenAIAgent


def _relative_paths_made_absolute(argv: tuple[str, ...]) -> tuple[str, ...]:
    """``argv`` with each argument that names an existing path relative to this process's working
    directory made absolute (symlinks resolved, as Python and Node resolve a script's folder).

    The agent starts in its own home, the sandbox's working directory, where ``python my_agent.py``
    would name nothing; with the path made absolute it names the file the operator meant, and its folder
    is what the sandbox lets the agent read (``ProcessAgent.process``). What counts as a path: the
    program if spelled with a ``/`` (``./agent``; a bare ``node`` is looked up on PATH), and any later
    argument that contains a ``/`` and exists, or names a file here (``my_agent.py``). Options
    (``-m``, ``--fast``) and anything that exists nowhere are left as they are."""
    out = []
    for i, arg in enumerate(argv):
        path = Path(arg)
        spelled_as_path = "/" in arg or (i > 0 and path.is_file())
        if arg and not arg.startswith("-") and not path.is_absolute() and spelled_as_path and path.exists():
            arg = str(path.resolve())
        out.append(arg)
    return tuple(out)


def parse_agent(spec: str) -> Agent:
    """The agent an ``--agent`` string names; ``AgentSpecError`` says what is wrong."""
    spec = spec.strip()
    if spec in BASELINES:
        return ProcessAgent(spec, (sys.executable, "-S", "-m", "mcpbench.agents.baselines", spec), baseline=spec)
    kind, _, rest = spec.partition(":")
    if kind == "command":
        try:
            argv = tuple(shlex.split(rest))
        except ValueError as exc:
            raise AgentSpecError(f"--agent {spec!r}: cannot split the command: {exc}") from None
        if not argv:
            raise AgentSpecError("--agent command:<argv> needs a command, e.g. command:'python my_agent.py'")
        return ProcessAgent(f"command:{Path(argv[0]).name}", _relative_paths_made_absolute(argv))
    if kind == "http":
        if not rest.startswith(("http://", "https://")):
            raise AgentSpecError(f"--agent {spec!r}: expected http:<url>, e.g. http:http://127.0.0.1:9000/run")
        return HostedAgent(f"http:{rest}", rest)
    if kind == "openai":
        model = rest or os.environ.get("MCPBENCH_OPENAI_MODEL", "")
        if not model:
            raise AgentSpecError("--agent openai needs a model: openai:<model> or MCPBENCH_OPENAI_MODEL")
        raw = os.environ.get("MCPBENCH_OPENAI_MAX_TOKENS", "1024")
        if not raw.isdigit() or int(raw) < 1:
            raise AgentSpecError(f"MCPBENCH_OPENAI_MAX_TOKENS: expected a positive integer, got {raw!r}")
        stream = os.environ.get("MCPBENCH_OPENAI_STREAM", "1").strip().lower()
        if stream not in ("1", "0", "true", "false", "yes", "no"):
            raise AgentSpecError(f"MCPBENCH_OPENAI_STREAM: expected 1 or 0, got {stream!r}")
        return OpenAIAgent(f"openai:{model}", model, max_tokens=int(raw), stream=stream in ("1", "true", "yes"))
    raise AgentSpecError(
        f"--agent {spec!r} is not an agent; use one of {', '.join(BASELINES)}, command:<argv>, http:<url>, openai[:model]"
    )
