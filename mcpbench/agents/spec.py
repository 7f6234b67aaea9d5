"""Agent specs: how ``--agent`` strings become agents.

- ``command:<argv>``  any executable, run in the sandbox. It gets ``MCPBENCH_MCP_URL`` (for a cross-server
  task also ``MCPBENCH_MCP_URLS``, a JSON object of one URL per server), the goal
  (``MCPBENCH_GOAL`` and on stdin), ``MCPBENCH_MAX_STEPS``, ``MCPBENCH_TIMEOUT_S`` and
  ``MCPBENCH_DEADLINE`` (Unix time) in its environment. Exit 0 means finished; anything else is the
  agent's error. When the operator configured a model upstream, it also gets the run's model gateway
  as ``MCPBENCH_MODEL_URL`` and ``OPENAI_BASE_URL`` (with a placeholder ``OPENAI_API_KEY``). It reads
  its program's own folder and nothing else from the host (``mcpbench.sandbox.paths``).
- ``http:<url>``      a hosted agent: POSTed ``{run_id, goal, mcp_url, max_steps, timeout_s, deadline}``
  (and ``mcp_urls``, one URL per server, for a cross-server task);
  a 2xx answer means finished. It reaches the gateway over loopback, so it runs beside the harness.
- ``openai[:model]``  the built-in tool-calling loop, through the model gateway to the operator's
  upstream (``MCPBENCH_MODEL_UPSTREAM`` or ``OPENAI_BASE_URL``, key ``MCPBENCH_MODEL_UPSTREAM_KEY`` or
  ``OPENAI_API_KEY``; model from the spec or ``MCPBENCH_OPENAI_MODEL``; per-turn ``max_tokens`` from
  ``MCPBENCH_OPENAI_MAX_TOKENS``, default 1024; ``MCPBENCH_OPENAI_STREAM=0`` for servers that cannot
  stream tool calls).
- ``interactive[:<path>]``  a person, or a model acting as an independent solver, makes each call by
  hand: the goal and tools are printed, calls are read as JSON lines from stdin or from a file or FIFO
  (``mcpbench.agents.interactive``). Runs one at a time, beside the harness.
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

from mcpbench.sandbox.interface import AgentProcess, ResourceLimits, SandboxUnavailable
from mcpbench.sandbox.paths import (
    AGENT_DIR_ENV,
    declared_folder,
    folder_refusal,
    python_installations,
    sandbox_own,
    system_visible,
)
from tasks_catalog.schema import Task

PROJECT_ROOT = Path(__file__).resolve().parents[2]
#: What a built-in baseline reads: our standard-library client, never the rest of the checkout (which may
#: hold the default store).
BASELINE_CLIENT = PROJECT_ROOT / "mcpbench"
BASELINES = ("oracle", "noop", "liar", "random")


class AgentSpecError(ValueError):
    pass


#: A cross-server run's per-server gateway addresses, as a JSON object ``{server: url}``.
MCP_URLS_ENV = "MCPBENCH_MCP_URLS"


@dataclass(frozen=True)
class AgentJob:
    """What an agent is given for one run. ``mcp_url`` is the gateway as the agent reaches it: every
    available tool (a cross-server task's named ``<server>__<tool>``); ``mcp_urls``, for a cross-server
    task only, the same gateway at one address per server, each listing that server's tools by their
    own names."""

    task: Task
    run_id: str
    mcp_url: str
    deadline: float  # Unix time
    seed: str
    #: the run's model gateway base URL (…/v1), when the run has one
    model_url: str | None = None
    #: a cross-server task's address per server (None for a single-server task)
    mcp_urls: dict[str, str] | None = None

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
        if self.mcp_urls:
            env[MCP_URLS_ENV] = json.dumps(self.mcp_urls, separators=(",", ":"))
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
    #: the one host folder a ``command:`` agent reads: its program's own, or the operator's declared one
    folder: str | None = None
    #: whether ``folder`` is the operator's declaration (``MCPBENCH_AGENT_DIR``) rather than the program's
    folder_declared: bool = False
    #: extra host paths the agent may read, and extra environment (e.g. a library path): set by our own
    #: code (tests, operators' wrappers), never from a command line
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
            readonly: tuple[str, ...] = (str(BASELINE_CLIENT),)
        else:
            stdin = job.task.goal
            env = job.env()
            readonly = (self.folder,) if self.folder else ()
            if self.folder:  # checked again as the run starts: a folder swapped for a link since is refused
                why = folder_refusal(self.folder, declared=self.folder_declared)
                if why is not None:
                    raise SandboxUnavailable(f"the agent's folder {why}")
        return AgentProcess(argv=list(self.argv), env={**env, **dict(self.extra_env)}, stdin=stdin,
                            gateway_port=gateway_port, timeout_s=job.task.timeout_s, limits=self.limits,
                            readonly_paths=readonly + self.readonly_paths,
                            extra_ports=(model_port,) if model_port is not None else ())


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


@dataclass(frozen=True)
class InteractiveAgent:
    """A person, or a model acting as a solver, working each run by hand (``interactive[:<path>]``,
    ``mcpbench.agents.interactive``): calls read from stdin, or from the file or FIFO at ``source``."""

    name: str = "interactive"
    source: str | None = None
    #: per run, instead of the task's ``timeout_s`` (``MCPBENCH_INTERACTIVE_TIMEOUT_S``)
    timeout_s: float | None = None


Agent = ProcessAgent | HostedAgent | OpenAIAgent | InteractiveAgent


#: What every refusal adds: the rule and the way out.
_RULE = ("a command: agent reads its program's own folder and nothing else from the host: never /, /proc, "
         "/sys, /dev, /run, /etc, /tmp, a home, the store or the warehouse, nor a folder others may not enter. "
         f"Put the agent in a folder of its own (e.g. /srv/agents/<name>), or have the operator declare "
         f"one for submissions with {AGENT_DIR_ENV}")


def _host_path(arg: str, first: bool) -> Path | None:
    """The existing host path a command-line argument names, resolved, or None.

    What counts as a path: the program if spelled with a ``/`` (``./agent``; a bare ``node`` is looked up
    on PATH inside the sandbox), and any later argument that contains a ``/`` and exists, or names a file
    here (``my_agent.py``). Options (``-m``, ``--fast``) and anything that exists nowhere are not paths."""
    if not arg or arg.startswith("-"):
        return None
    path = Path(arg)
    spelled_as_path = "/" in arg or (not first and path.is_file())
    if not (spelled_as_path and path.exists()):
        return None
    return path.resolve()


def command_agent(spec: str, argv: tuple[str, ...]) -> ProcessAgent:
    """The ``command:`` agent for ``argv``, with the one host folder it may read decided here, before any
    run starts (``AgentSpecError`` names the argument and the rule when the command names anything else).

    The agent starts in its own home, the sandbox's working directory, where ``python my_agent.py`` would
    name nothing: each argument that names an existing host path is made absolute (symlinks resolved, as
    Python and Node resolve a script's folder). A path where every sandbox already shows the system's
    programs (``/usr/bin/env``, the Python installation) names no folder. The first other path names the
    agent's folder: the folder of that file (the script or executable), or that folder itself; with
    ``MCPBENCH_AGENT_DIR`` set, the declared folder instead. Every later path must lie inside it, or name
    what each sandbox has of its own (``/dev/stderr``, ``/tmp/out``: left as written, nothing mounted)."""
    declared = declared_folder()
    folder: Path | None = Path(declared) if declared else None
    out = []
    for i, arg in enumerate(argv):
        path = _host_path(arg, first=i == 0)
        if path is None:
            out.append(arg)
            continue
        out.append(str(path))
        if system_visible(path, python_installations()):
            continue
        if folder is None:
            folder = path if path.is_dir() else path.parent
        elif sandbox_own(arg):  # a later ``/dev/stderr`` or ``/tmp/out``: the sandbox's own, not mounted
            out[-1] = arg
        elif not (path == folder or folder in path.parents):
            where = "the folder the operator declared" if declared else "the agent's folder"
            raise AgentSpecError(f"--agent {spec!r}: argument {arg!r} names {path}, outside {where} {folder}; {_RULE}")
    if folder is not None:
        why = folder_refusal(folder, declared=declared is not None)
        if why is not None:
            raise AgentSpecError(f"--agent {spec!r}: the agent's folder {why}; {_RULE}")
    return ProcessAgent(f"command:{Path(argv[0]).name}", tuple(out), folder=str(folder) if folder else None,
                        folder_declared=declared is not None)


def check_agent_reads(agent: Agent, protected: list[tuple[str, str]]) -> None:
    """Refuse, before any run starts, an agent whose folder is at, under or above the operator's data
    (``protected``: (what, path) pairs such as the store and the warehouse); ``AgentSpecError`` says which."""
    if isinstance(agent, ProcessAgent) and agent.folder is not None:
        why = folder_refusal(agent.folder, declared=agent.folder_declared, protected=protected)
        if why is not None:
            raise AgentSpecError(f"--agent {agent.name!r}: the agent's folder {why}; {_RULE}")


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
        return command_agent(spec, argv)
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
    if kind == "interactive":
        raw = os.environ.get("MCPBENCH_INTERACTIVE_TIMEOUT_S", "").strip()
        try:
            timeout = float(raw) if raw else None
        except ValueError:
            timeout = -1.0
        if timeout is not None and not 0 < timeout <= 86400:
            raise AgentSpecError(f"MCPBENCH_INTERACTIVE_TIMEOUT_S: expected seconds between 1 and 86400, got {raw!r}")
        source = str(Path(rest).expanduser().resolve()) if rest else None
        return InteractiveAgent(source=source, timeout_s=timeout)
    raise AgentSpecError(
        f"--agent {spec!r} is not an agent; use one of {', '.join(BASELINES)}, command:<argv>, http:<url>, "
        "openai[:model], interactive[:<file or fifo>]"
    )
