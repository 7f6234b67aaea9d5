"""One run: a task in, a ``RunResult`` (the run record and the gateway's call records) out; and
``run_tasks``, which runs a set with bounded concurrency and lands each result as it finishes.

``passed`` = the predicate holds on the final state, the frame holds (docs/frames.md), no budget was exceeded, and the agent did not
error (exit 0, not killed). A failure of ours to dispatch the run — the backend could not be built,
the sandbox could not start, the model upstream stayed unavailable through the model gateway's
retries — is an ``infra_error``: not attempted, counted apart. An agent's crash, hang or garbage is the
agent's failure.

Agents that use a model (``openai``, and ``command:`` agents when the operator configured an upstream)
get a per-run mount on the submission's model gateway, which meters their model traffic into the run
record. Under ``trials`` K each task runs K times, each on a fresh backend, with distinct run ids.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TypeGuard

import anyio

from mcpbench.agents.baselines import STARTED
from mcpbench.agents.spec import Agent, AgentJob, HostedAgent, InteractiveAgent, OpenAIAgent, ProcessAgent
from mcpbench.code_version import code_version
from mcpbench.gateway import Gateway, GatewayHost, server_path
from mcpbench.model_gateway import ModelGatewayHost, ModelSettings
from mcpbench.sandbox import (
    ProcessOutcome,
    Sandbox,
    SandboxUnavailable,
    concurrency_that_fits,
    get_sandbox,
    raise_open_file_limit,
)
from runstore.records import (
    EXPLAINED_FRAME,
    REDACTED,
    STDERR_TAIL_BYTES,
    CallRecord,
    Explanation,
    FrameBreak,
    RunRecord,
    TurnRecord,
)
from servers import get_spec
from servers.kit import Toolset
from tasks_catalog.frames import frame_violations, summarize, summarize_counts
from tasks_catalog.hashing import state_digest, task_hash
from tasks_catalog.predicates import evaluate, explain
from tasks_catalog.schema import Task

log = logging.getLogger("mcpbench.runner")


@dataclass(frozen=True)
class Submission:
    """Who is being evaluated on what: the labels every record of the evaluation carries."""

    submission_id: str
    submitter: str
    agent: str
    split: str
    month: str
    publish_goals: bool = False
    #: private months: goals are never stored and call arguments and error texts are redacted too,
    #: since they carry the month's sampled parameter values
    private: bool = False
    #: the submitter's name for the agent and its version (``--label my-agent@1.2``), on every run record
    label: str | None = None

    def run_id(self, task: Task | str, trial: int = 1) -> str:
        """Stable per (submission, task, trial), so a re-run replaces its records instead of duplicating
        them. Takes a task or a task id; trial 1 keeps the id a single-trial run always had."""
        base = f"{self.submission_id}--{task if isinstance(task, str) else task.id}"
        return base if trial == 1 else f"{base}--t{trial}"


@dataclass
class RunResult:
    run: RunRecord
    calls: list[CallRecord] = field(default_factory=list)
    outcome: ProcessOutcome | None = None
    #: the model turns the model gateway metered for the run (none for an agent that used no model)
    turns: list[TurnRecord] = field(default_factory=list)


def _record(task: Task, sub: Submission, *, started: datetime, t0: float, status: str, trial: int = 1,
            **fields) -> RunRecord:
    ended = datetime.now(UTC)
    duration = time.perf_counter() - t0
    agent_s = fields.pop("agent_s", 0.0)
    published = sub.publish_goals and not sub.private
    base = dict(
        run_id=sub.run_id(task, trial), trial=trial, submission_id=sub.submission_id, submitter=sub.submitter, agent=sub.agent,
        split=sub.split, month=sub.month, label=sub.label, task_id=task.id, task_hash=task_hash(task),
        server=task.server_label, servers=list(task.server_names),
        difficulty=task.difficulty, category=task.category,
        goal=task.goal if published else REDACTED, goals_published=published, status=status, passed=status == "passed",
        predicate_passed=None, over_budget=False, timed_out=False, agent_error=False, exit_code=None,
        max_steps=task.max_steps, timeout_s=task.timeout_s, tool_calls=0, errors_observed=0, faults_injected=0,
        infra_error=None, sandbox="", started_at=started, ended_at=ended, duration_s=duration, agent_s=agent_s,
        harness_ms=max(0.0, (duration - agent_s) * 1000), final_state_digest=None, end_reason=status,
        stderr_tail=None, task_version=task.task_version, code_version=code_version(),
    )
    base.update(fields)
    return RunRecord(**base)


async def run_task(task: Task, agent: Agent, *, host: GatewayHost, sandbox: Sandbox | None,
                   submission: Submission, models: ModelGatewayHost | None = None, trial: int = 1) -> RunResult:
    """Run ``agent`` on ``task`` once (trial ``trial``). Never raises for the agent's behaviour; our
    own failures become an ``infra_error`` record. ``models`` is the submission's model gateway."""
    started, t0 = datetime.now(UTC), time.perf_counter()
    raise_open_file_limit()  # once per process: every path to a run (CLI, flows, workers) passes here
    sandbox_name = sandbox.name if sandbox is not None and isinstance(agent, ProcessAgent) else "host"

    def infra(what: str, exc: BaseException, detail: str = "", kind: str = "harness") -> RunResult:
        # On a private month an exception's text may quote the task's sampled values: keep only what
        # failed and the exception's type, in the record and in the log alike.
        message = f"{what}: {type(exc).__name__}" if submission.private else f"{what}: {exc}{detail}"
        log.warning("infra error on %s: %s", task.id, message)
        return RunResult(_record(task, submission, started=started, t0=t0, status="infra_error", trial=trial,
                                 infra_error=message[:2000], sandbox=sandbox_name, end_reason=f"infra:{kind}",
                                 **(route.meter.as_record_fields() if route is not None else {})))

    route = None
    run_id = submission.run_id(task, trial)

    try:
        # In worker threads, as every piece of a run's work that takes more than a moment: the event loop
        # carries the other runs' calls, links and deadlines (a world's backend takes tens of milliseconds).
        tools, initial = await _open_backends(task)
    except BackendError as exc:  # any failure to build a backend is ours
        return infra(f"backend {exc.server} could not be built", exc.__cause__ or exc, kind="backend")
    try:
        gateway = Gateway(task, tools, run_id=run_id, submission_id=submission.submission_id,
                          redact=submission.private)
        deadline = time.time() + task.timeout_s
        mounted = False
        try:
            async with host.serve(gateway) as path, contextlib.AsyncExitStack() as stack:
                mounted = True
                if models is not None:
                    route = await stack.enter_async_context(models.serve(gateway=gateway, deadline=deadline))
                base = f"http://127.0.0.1:{host.port}"
                job = AgentJob(task=task, run_id=run_id, mcp_url=f"{base}{path}",
                               deadline=deadline, seed=run_id,
                               model_url=models.url(route) if models is not None and route is not None else None,
                               mcp_urls={s: f"{base}{server_path(path, s)}" for s in gateway.endpoints} or None)
                assert host.port is not None  # host.serve() serves only on a running host
                outcome = await _dispatch(agent, job, host.port, sandbox,
                                          models.port if models is not None and route is not None else None,
                                          gateway.waits.seconds)
        except Exception as exc:  # noqa: BLE001 - a harness bug must not take the other runs down
            # The gateway's task group wraps what is raised inside it: look through the group.
            unavailable = _first_of(exc, SandboxUnavailable)
            if unavailable is not None:
                # ``infra_kind`` tells the engine going away (``engine``) from a sandbox that could not start
                kind = getattr(unavailable, "infra_kind", "sandbox")
                what = f"sandbox {sandbox_name} could not start" if kind == "sandbox" else f"{kind} failed"
                return infra(what, unavailable, kind=kind)
            if not mounted:
                return infra("the gateway could not be served", exc, kind="gateway")
            return infra("harness error", exc, "\n" + traceback.format_exc(limit=5))
        if baseline_did_not_start(agent, outcome, gateway.counted_calls):
            # Our own baseline exists in every sandbox we ship: if it cannot even start there, the image or
            # sandbox is broken (ours), not the agent.
            announced = "" if outcome.exit_code in NOT_EXECUTED else ", before it announced its start"
            return infra(f"sandbox {sandbox_name} could not start the built-in {agent.baseline} agent "
                         f"(exit {outcome.exit_code}{announced})", RuntimeError(_last_line(outcome.stderr_tail)),
                         kind="sandbox")
        unsettled = await gateway.unsettled()
        if unsettled:
            # A call answered at the time limit still runs (a bound of ours missed it): its state is not final.
            return infra("backend call did not finish", RuntimeError(
                f"a call to {', '.join(unsettled)} ran past the call time limit and did not finish"), kind="backend")
        try:  # the agent and the gateway are done with the tools
            final, verdict, final_dump, frame_held, violations, why = await anyio.to_thread.run_sync(
                _judge, task, tools, initial, submission.private)
        except Exception as exc:  # noqa: BLE001 - a verifier bug is ours: this run is requeued, the others go on
            return infra("the verifier failed", exc, "\n" + traceback.format_exc(limit=5))
    finally:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(_close, tools)
    agent_ok = outcome.exit_code == 0 and not outcome.timed_out and outcome.killed_reason is None
    meter = route.meter if route is not None else None
    over_budget = gateway.over_budget or bool(meter and meter.budget_exceeded)
    passed = verdict and frame_held is not False and agent_ok and not over_budget
    if meter is not None and meter.unavailable and not passed:
        # The model, not the agent, failed: the run is ours to repeat, never the agent's failure.
        return infra("the model stayed unavailable", RuntimeError(meter.unavailable), kind="model_unavailable")
    reason = end_reason(timed_out=outcome.timed_out, agent_ok=agent_ok, over_budget=over_budget,
                        frame_held=frame_held is not False, predicate=verdict)
    detail = end_reason_detail(outcome) if reason in ("timeout", "agent_exit") else None
    record = _record(
        task, submission, started=started, t0=t0, status="passed" if passed else "failed", trial=trial,
        **(meter.as_record_fields() if meter is not None else {}),
        predicate_passed=verdict, over_budget=over_budget, timed_out=outcome.timed_out,
        agent_error=not agent_ok, exit_code=outcome.exit_code, tool_calls=gateway.counted_calls,
        errors_observed=sum(c.is_error for c in gateway.calls), faults_injected=gateway.faults_injected,
        sandbox=outcome.sandbox, agent_s=outcome.wall_s, final_state_digest=state_digest(task, final_dump), end_reason=reason,
        frame_held=frame_held, frame_violations=violations, end_reason_detail=detail,
        explanation=why if not passed else None,
        harness_wait_s=gateway.waits.seconds(),
        stderr_tail=None if submission.private else (_agent_stderr(agent, outcome)[-STDERR_TAIL_BYTES:] or None),
    )
    turns = [t.record(run_id=run_id, submission_id=submission.submission_id, task_id=task.id, redact=submission.private)
             for t in meter.turns] if meter is not None else []
    return RunResult(record, gateway.calls, outcome, turns)


class BackendError(RuntimeError):
    """A server's backend could not be built (``server`` names which; the cause is chained)."""

    def __init__(self, server: str) -> None:
        self.server = server
        super().__init__(f"backend {server} could not be built")


async def _open_backends(task: Task) -> tuple[dict[str, Toolset], dict[str, dict]]:
    """A fresh backend for each server of ``task`` and each one's initial state as JSON data (the frame is
    judged against it), keyed by server, built in a worker thread. ``BackendError`` names the server that
    could not be built, after every backend built before it is closed."""
    return await anyio.to_thread.run_sync(_build_backends, task)


def _build_backends(task: Task) -> tuple[dict[str, Toolset], dict[str, dict]]:
    """``_open_backends``' work, in the worker thread: one server after another. (One thread for all:
    a world's copy holds the GIL, so threads of their own built four worlds no sooner, and less evenly:
    bench/history/servers.md, "Cross-server tasks".)"""
    tools: dict[str, Toolset] = {}
    initial: dict[str, dict] = {}
    for server, state in task.initial_states().items():
        try:
            tools[server], initial[server] = _open_backend(get_spec(server), state)
        except Exception as exc:
            try:
                _close(tools)
            except Exception as closing:  # noqa: BLE001 - the build's failure is the one to report
                log.warning("closing the backends of %s after a failed build: %s", task.id, type(closing).__name__)
            raise BackendError(server) from exc
    return tools, initial


def _open_backend(spec, state: dict):
    """A fresh backend over ``state`` (a server's initial state as a task gives it) and that state as JSON
    data."""
    tools = spec.open(state)
    try:
        return tools, tools.snapshot(copy=False).dump()
    except BaseException:
        tools.close()
        raise


def _close(tools: dict[str, Toolset]) -> None:
    """Close every backend, each even when another's close fails (the first failure is raised after)."""
    errors = []
    for backend in tools.values():
        try:
            backend.close()
        except Exception as exc:  # noqa: BLE001 - raised below, once every backend had its turn
            errors.append(exc)
    if errors:
        raise errors[0]


def _judge(task: Task, tools: dict[str, Toolset], initial: dict[str, dict], private: bool):
    """``(final state, predicate verdict, final state as JSON data, frame held, violations, explanation)`` of
    a finished run; each state is the task's ``scoped`` one (a cross-server task's: keyed by server). The
    explanation (``runstore.records.Explanation`` as JSON) says which clauses of the predicate failed and
    which entities broke the frame, or is None when neither did."""
    states = {server: backend.snapshot(copy=False) for server, backend in tools.items()}
    finals = task.scoped(states)
    verdict = evaluate(task.success, finals)
    # once: the frame and the digest both read it (a world's dump is milliseconds)
    final_dump = task.scoped({server: state.dump() for server, state in states.items()})
    before = task.scoped(initial)
    broken = frame_violations(task.scope, task.frame, before, final_dump)
    frame_held, violations = frame_text(broken, private=private)
    why = explanation(task, finals, verdict, broken, private=private)
    return finals, verdict, final_dump, frame_held, violations, why


def explanation(task: Task, final, verdict: bool, broken: list, *, private: bool) -> str | None:
    """Why the run's final state (the task's ``scoped`` one) does not pass, as the run record stores it:
    the predicate's failing clauses (expected against found) and the entities outside the frame; on a
    private month the clause ids and the frame's kinds and counts only. None when the predicate held
    and the frame too."""
    if verdict and not broken:
        return None
    clauses, omitted = ([], 0) if verdict else explain(task.success, final)
    frame = [FrameBreak(**v.to_json()) for v in broken[:EXPLAINED_FRAME]]
    why = Explanation(clauses=clauses, clauses_omitted=omitted, frame=frame,
                      frame_omitted=max(0, len(broken) - EXPLAINED_FRAME))
    return (why.ids_only() if private else why).to_json()


def frame_text(violations: list, *, private: bool) -> tuple[bool, str | None]:
    """Whether the run stayed inside the task's frame (no ``violations``) and a short text naming the
    violating entities; on a private month only their kinds and counts, since ids can carry the month's
    sampled values."""
    if not violations:
        return True, None
    return False, (summarize_counts(violations) if private else summarize(violations))[:2000]


def _first_of(exc: BaseException, kind: type[BaseException]) -> BaseException | None:
    """``exc`` if it is a ``kind``, else the first ``kind`` inside it when it is an exception group."""
    if isinstance(exc, kind):
        return exc
    for inner in getattr(exc, "exceptions", ()):
        found = _first_of(inner, kind)
        if found is not None:
            return found
    return None


#: Exit codes with which a shell or container init reports a command that could not be executed
#: (126: found but not executable; 127: not found).
NOT_EXECUTED = (126, 127)


def baseline_did_not_start(agent: Agent, outcome: ProcessOutcome, calls: int) -> TypeGuard[ProcessAgent]:
    """True when one of our built-in baselines could not start at all: an infra error of the sandbox.

    It made no call, was not timed out, and either could not be executed (``NOT_EXECUTED``) or exited
    non-zero, not ended by the harness, without having announced that it started (its first act,
    ``baselines.STARTED``): its interpreter ran but our client was not there to run (e.g. an operator's
    agent image with ``python3`` and without ``/opt/mcpbench``). A baseline that did start is judged like
    any agent; an agent's own command that does not exist or fails stays the agent's failure."""
    if not (isinstance(agent, ProcessAgent) and agent.baseline is not None and calls == 0 and not outcome.timed_out):
        return False
    if outcome.exit_code in NOT_EXECUTED:
        return True
    return outcome.exit_code not in (0, None) and outcome.killed_reason is None and not baseline_announced(outcome)


def baseline_announced(outcome: ProcessOutcome) -> bool:
    """Whether the process wrote a built-in baseline's start line (``baselines.STARTED``) on stderr: looked
    for in the head of stderr, where it is written first, and in the tail (should whatever the interpreter
    wrote before it fill the head)."""
    return any(line.startswith(STARTED) for text in (outcome.stderr_head, outcome.stderr_tail)
               for line in text.splitlines())


def _agent_stderr(agent: Agent, outcome: ProcessOutcome) -> str:
    """The stderr tail to record: a built-in baseline's start line is the harness's bookkeeping, not
    what the agent had to say, so it is left out (the outcome keeps it)."""
    text = outcome.stderr_tail
    if isinstance(agent, ProcessAgent) and agent.baseline is not None and text.startswith(STARTED):
        text = text.partition("\n")[2]
    return text


def _last_line(text: str) -> str:
    """The last non-empty line of ``text`` (where Python puts the error of a traceback), shortened."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][-300:] if lines else "(nothing on stderr)"


def end_reason(*, timed_out: bool, agent_ok: bool, over_budget: bool, frame_held: bool, predicate: bool) -> str:
    """The class of why an attempted run ended (``runstore.records.END_REASONS``): the first failure
    in the order timeout, agent_exit, over_budget, frame_violated, predicate_false; else ``passed``."""
    if timed_out:
        return "timeout"
    if not agent_ok:
        return "agent_exit"
    if over_budget:
        return "over_budget"
    if not frame_held:
        return "frame_violated"
    if not predicate:
        return "predicate_false"
    return "passed"


def end_reason_detail(outcome: ProcessOutcome) -> str:
    """Why the agent's process ended, for a run that ended ``timeout`` or ``agent_exit``
    (``runstore.records.END_REASON_DETAILS``): the limit that ended or held it, by precedence, else how it
    exited."""
    if outcome.killed_reason == "connection limit":
        return "connection limit"
    if outcome.oom:
        return "memory limit"
    if outcome.pids_limited:
        return "pids limit"
    if outcome.timed_out:
        return "deadline"
    if outcome.exit_code is None:
        return outcome.killed_reason or "killed"
    return f"signal {-outcome.exit_code}" if outcome.exit_code < 0 else f"exit {outcome.exit_code}"


def uses_model(agent: Agent, settings: ModelSettings | None = None) -> bool:
    """Whether runs of ``agent`` get the model gateway: the ``openai`` loop always, a process agent
    when it is not a built-in baseline and the operator configured an upstream (``settings`` given,
    or named in the environment)."""
    if isinstance(agent, OpenAIAgent):
        return True
    return (isinstance(agent, ProcessAgent) and agent.uses_model
            and (settings is not None or ModelSettings.configured()))


def model_settings_for(agent: Agent, settings: ModelSettings | None = None) -> ModelSettings:
    """The model gateway's settings for runs of ``agent`` (``settings``, or the environment's), with the
    model pinned: the operator's, else the one named in ``openai:<model>`` (``ModelSettings.pinned``).
    ``ModelSettingsError`` when none is named and the agent may not choose, before any run."""
    settings = settings or ModelSettings.from_env()
    return settings.pinned(agent.model if isinstance(agent, OpenAIAgent) else None)


def open_sandbox(agent: Agent, sandbox: str) -> Sandbox | None:
    """The sandbox backend ``sandbox`` for ``agent`` (None for agents that run beside the harness). ``none``
    is only granted because it was named explicitly."""
    if not isinstance(agent, ProcessAgent):
        return None
    return get_sandbox(sandbox, allow_unisolated=sandbox == "none")


async def _dispatch(agent: Agent, job: AgentJob, port: int, sandbox: Sandbox | None,
                    model_port: int | None = None, waited: Callable[[], float] | None = None) -> ProcessOutcome:
    """Run the agent; ``waited()`` is its time spent waiting on the harness, which its deadline does not charge."""
    if isinstance(agent, ProcessAgent):
        if sandbox is None:
            raise SandboxUnavailable("no sandbox was given for a process agent")
        return await sandbox.run(dataclasses.replace(agent.process(job, port, model_port), waited=waited))
    from mcpbench.agents.hosted import run_hosted, run_openai

    if isinstance(agent, HostedAgent):
        return await run_hosted(agent, job, waited)
    if isinstance(agent, OpenAIAgent):
        return await run_openai(agent, job, waited)
    if isinstance(agent, InteractiveAgent):
        from mcpbench.agents.interactive import run_interactive

        return await run_interactive(agent, job, waited=waited)
    raise TypeError(f"not an agent: {agent!r}")


def not_landed(result: RunResult, exc: BaseException, *, private: bool) -> RunResult:
    """The run's result once its landing failed for good: an infra error of kind ``store``, not landed,
    so a resumed evaluation runs it again. Its calls are dropped; the record keeps why it ended."""
    what = f"{type(exc).__name__}" if private else str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    log.info("run %s did not land: %s", result.run.run_id, what)
    record = RunRecord.model_validate({
        **result.run.model_dump(), "status": "infra_error", "passed": False, "end_reason": "infra:store",
        "infra_error": f"store: the run did not land: {what}"[:2000]})
    return RunResult(record, [], result.outcome, [])


async def run_with_requeues(task: Task, agent: Agent, *, host: GatewayHost, sandbox: Sandbox | None,
                            submission: Submission, models: ModelGatewayHost | None = None,
                            trial: int = 1) -> RunResult:
    """``run_task``, run again while the model stays unavailable, up to ``requeues`` times (the model
    gateway's settings), after a short pause: the upstream's outage is ours, not the agent's."""
    settings = models.settings if models is not None else None
    for attempt in range(1 + (settings.requeues if settings else 0)):
        if attempt:
            assert settings is not None  # only the model gateway's settings allow a requeue
            log.warning("model unavailable on %s (trial %d): requeued (%d)", task.id, trial, attempt)
            await anyio.sleep(min(5.0, settings.backoff_s * 4))
        result = await run_task(task, agent, host=host, sandbox=sandbox, submission=submission, models=models,
                                trial=trial)
        if result.run.end_reason != "infra:model_unavailable":
            break
    return result


async def run_tasks(tasks: list[Task], agent: Agent, *, sandbox: Sandbox | None, submission: Submission,  # noqa: PLR0913 - past the second, keyword-only options
                    concurrency: int = 1, land: Callable[[RunResult], None] | None = None,
                    on_result: Callable[[RunResult], None] | None = None, trials: int = 1,
                    runs: list[tuple[Task, int]] | None = None,
                    model_settings: ModelSettings | None = None) -> list[RunResult]:
    """Run every task ``trials`` times (or exactly the ``(task, trial)`` pairs of ``runs``) with at most
    ``concurrency`` at once. Each result is landed (``land``, run in a worker thread) as soon as it
    finishes, so an interruption loses only the runs in flight. A run whose model stayed unavailable
    is run again up to ``requeues`` times (model settings) before it lands as that infra error. A run
    whose landing fails becomes an infra error of kind ``store`` (``not_landed``); the others go on."""
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    if trials < 1:
        raise ValueError("trials must be at least 1")
    pairs = runs if runs is not None else [(t, k) for t in tasks for k in range(1, trials + 1)]
    if isinstance(agent, InteractiveAgent):
        concurrency = 1  # one person, one terminal: runs are worked one at a time
    results: list[RunResult] = []
    limiter = anyio.Semaphore(concurrency_that_fits(concurrency))
    settings = None
    if uses_model(agent, model_settings):
        settings = model_settings_for(agent, model_settings)

    async def one(task: Task, trial: int) -> None:
        async with limiter:
            result = await run_with_requeues(task, agent, host=host, sandbox=sandbox, submission=submission,
                                             models=models, trial=trial)
        if land is not None:
            try:
                await anyio.to_thread.run_sync(land, result)
            except Exception as exc:  # noqa: BLE001 - one run that cannot land must not stop the others
                result = not_landed(result, exc, private=submission.private)
        results.append(result)
        if on_result is not None:
            on_result(result)

    async with contextlib.AsyncExitStack() as stack:
        host = await stack.enter_async_context(GatewayHost().running())
        models = None
        if settings is not None:
            models = await stack.enter_async_context(ModelGatewayHost(settings).running())
        async with anyio.create_task_group() as tg:
            for task, trial in pairs:
                tg.start_soon(one, task, trial)
    order = {t.id: i for i, t in enumerate(t for t, _ in pairs)}
    return sorted(results, key=lambda r: (order[r.run.task_id], r.run.trial))


__all__ = ["NOT_EXECUTED", "RunResult", "Submission", "baseline_announced", "baseline_did_not_start", "end_reason",
           "end_reason_detail", "explanation", "model_settings_for", "not_landed", "open_sandbox", "run_task",
           "run_tasks", "run_with_requeues", "uses_model"]
