"""The TypeScript verifier, called from Python (``tasks_catalog/verifier-ts``).

``node dist/cli.js`` reads ``[{"server", "state", "predicate"}, ...]`` on stdin (a cross-server case
names ``servers`` instead, its ``state`` keyed by them) and answers one verdict per case: ``true``/``false``, or ``{"verdict": null, "error": ..., "problems": [...]}`` for a
case it cannot decide (a malformed predicate, each problem with its JSON path; or a primitive outside
what it can evaluate, e.g. SQL outside its subset). Asked to explain (``--explain``, or ``explain``
here), a false verdict is ``{"verdict": false, "failing": [...], "clauses": [...]}``: the ids of the
clauses that decided it (which this module returns as a ``predicates.Refuted``) and the first of them
described. Build it with ``npm ci && npm run build`` in the
package (``scripts/setup.sh`` does). Until it is built, ``available()`` is false and the gate uses the
Python verifier alone.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import selectors
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tasks_catalog.frames import ExactSame
from tasks_catalog.predicates import Refuted

PACKAGE = Path(__file__).with_name("verifier-ts")
CLI = PACKAGE / "dist" / "cli.js"
#: the entity declaration the TypeScript frame judge reads when it starts (src/frame.ts DECLARATION_PATH)
ENTITIES = Path(__file__).with_name("frames") / "entities.json"
#: Test hook of the CLI: the named primitive's verdicts are inverted (see tests/verifier).
BREAK_ENV = "MCPBENCH_TS_BREAK"


#: Whom a case is about: a server, or a cross-server case's servers (its states are then keyed by them).
Servers = str | Sequence[str]


def _whom(server: Servers) -> dict[str, Any]:
    """The member of a case that says whom it is about, as the CLI reads it."""
    return {"server": server} if isinstance(server, str) else {"servers": list(server)}


class TypeScriptVerifierError(RuntimeError):
    """The TypeScript verifier could not give a verdict (its message names the case and why)."""


def unavailable_reason() -> str:
    if shutil.which("node") is None:
        return "node is not installed"
    return f"the TypeScript verifier is not built ({CLI} is missing); run `npm ci && npm run build` in {PACKAGE}"


def available() -> bool:
    return shutil.which("node") is not None and CLI.exists()


def build() -> None:
    """``npm ci && npm run build`` in the package (needs node, npm and the npm registry or its cache).
    Processes building this checkout's verifier at once take turns (a lock file in the temporary folder,
    named after the package's path, so nothing is written in the checkout but the build)."""
    import fcntl
    import hashlib
    import tempfile

    if shutil.which("node") is None or shutil.which("npm") is None:
        raise TypeScriptVerifierError("node and npm are needed to build the TypeScript verifier")
    name = hashlib.sha256(str(PACKAGE.resolve()).encode()).hexdigest()[:16]
    with open(Path(tempfile.gettempdir()) / f"mcpbench-verifier-ts-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            for argv in (["npm", "ci", "--no-audit", "--no-fund"], ["npm", "run", "build"]):
                proc = subprocess.run(argv, cwd=PACKAGE, capture_output=True, text=True, timeout=600)
                if proc.returncode != 0:
                    raise TypeScriptVerifierError(f"`{' '.join(argv)}` failed in {PACKAGE}:\n{proc.stderr[-2000:]}")
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def run(cases: list[tuple[Servers, dict[str, Any], dict[str, Any]]], *, break_primitive: str | None = None,
        explain: bool = False) -> list[Any]:
    """The CLI's raw answers on ``(server, dumped state, predicate)`` cases, in order: a bool, or a dict
    with ``"verdict": None`` and ``"error"`` for a case it could not decide; with ``explain``, a false
    verdict is a dict with ``"verdict": False`` and its failing ``"clauses"``. A cross-server case gives
    its servers (a tuple) and their dumped states keyed by server."""
    payload = json.dumps([{**_whom(s), "state": st, "predicate": p} for s, st, p in cases])
    out = _call(["--explain"] if explain else [], payload, break_primitive)
    if not isinstance(out, list) or len(out) != len(cases):
        raise TypeScriptVerifierError("TypeScript verifier answered with the wrong number of verdicts")
    _verdicts(out)  # each answer is a verdict or says why there is none
    return out


def _call(args: list[str], payload: str, break_hook: str | None = None) -> Any:
    """The JSON the CLI answers to ``payload`` in the mode ``args`` names; ``break_hook`` sets the test hook
    (which is otherwise never passed on from this process's environment)."""
    env = {k: v for k, v in os.environ.items() if k != BREAK_ENV}
    if break_hook is not None:
        env[BREAK_ENV] = break_hook
    proc = subprocess.run(["node", str(CLI), *args], input=payload, capture_output=True, text=True, timeout=120,
                          env=env, encoding="utf-8")
    return _answer(proc)


def _answer(proc: subprocess.CompletedProcess) -> Any:
    """The JSON the CLI wrote, or :class:`TypeScriptVerifierError` saying why there is none (a failed
    run; an exit 0 with no JSON, e.g. a ``dist/`` being rebuilt under it)."""
    if proc.returncode != 0:
        raise TypeScriptVerifierError(f"TypeScript verifier failed (exit {proc.returncode}): {proc.stderr[-2000:]}")
    try:
        return json.loads(proc.stdout)
    except ValueError:
        raise TypeScriptVerifierError(f"TypeScript verifier answered no JSON (exit 0): {proc.stdout[:200]!r}; "
                                      f"stderr: {proc.stderr[-1000:]!r}") from None


@dataclass(frozen=True)
class NoVerdict:
    """A case the TypeScript verifier could not decide; never ``True`` or ``False``, so a gate that
    compares verdicts by identity reports it as a disagreement, with ``str()`` saying why."""

    case: int
    error: str

    def __str__(self) -> str:
        return f"no verdict ({self.error})"

    def __bool__(self) -> bool:
        raise TypeError(f"case {self.case} has no verdict: {self.error}")


def evaluate_many(cases: list[tuple[Servers, dict[str, Any], dict[str, Any]]], *,
                  explain: bool = False) -> list[bool | Refuted | NoVerdict]:
    """Verdicts of the TypeScript verifier on ``(server, state, predicate)`` cases, in order. A case it
    cannot decide (a malformed predicate, each problem with its JSON path; or e.g. SQL outside its
    subset) is a ``NoVerdict`` naming the case and why, so the gate fails that task with the reason
    instead of stopping. With ``explain`` a false verdict is a ``Refuted`` naming its failing clauses."""
    return _verdicts(run(cases, explain=explain))


def explain_many(cases: list[tuple[Servers, dict[str, Any], dict[str, Any]]]) -> list[list[dict[str, Any]] | None]:
    """The TypeScript verifier's explanation of each case: its failing clauses (``{clause, primitive,
    negated, args, expected, found}``), or None where the predicate holds."""
    out = []
    for item in run(cases, explain=True):
        if isinstance(item, dict) and item.get("verdict") is None:
            raise TypeScriptVerifierError(f"TypeScript verifier could not decide a case: {item.get('error')}")
        out.append(item["clauses"] if isinstance(item, dict) else None)
    return out


def _verdicts(answers: list[Any]) -> list[bool | Refuted | NoVerdict]:
    out: list[bool | Refuted | NoVerdict] = []
    for i, item in enumerate(answers):
        if not (isinstance(item, bool) or (isinstance(item, dict) and "verdict" in item)):
            raise TypeScriptVerifierError(f"TypeScript verifier answered {item!r}, not a verdict")
        verdict = item["verdict"] if isinstance(item, dict) else item
        if verdict is False and isinstance(item, dict):
            failing = item.get("failing")
            if not isinstance(failing, list) or not all(isinstance(c, str) for c in failing):
                raise TypeScriptVerifierError(f"TypeScript verifier answered {item!r}, not an explained verdict")
            out.append(Refuted(tuple(failing)))
            continue
        out.append(verdict if isinstance(verdict, bool) or not isinstance(item, dict)
                   else NoVerdict(i, str(item.get("error", "no verdict"))))
    return out


def judge_many(verdict_cases: list[tuple[Servers, dict[str, Any], dict[str, Any]]],
               frame_cases: list[tuple[Servers, dict[str, Any], dict[str, Any], list[dict[str, Any]]]],
               *, explain: bool = False) -> tuple[list[bool | Refuted | NoVerdict], list[list[dict[str, Any]]]]:
    """``evaluate_many(verdict_cases)`` and ``frame_violations_many(frame_cases)`` in one call of the CLI
    (``--judge``), each state object sent once however many cases name it, and most of them as their
    changes to another (src/joint.ts): the gate judges a task's initial state and each final state, and
    compares each final state with the initial one. Sent whole and case by case, a world's state
    (hundreds of kilobytes of JSON) went out once per case: 390 MB for a 160-task month, whose writing
    and parsing were most of what the TypeScript verifier cost. States are told apart by identity (the
    same dumped ``dict``); a final state is sent as its changes to its task's initial state, an initial
    state as its changes to the first state of its server. A cross-server case's states are sent server
    by server, each as a single-server case's state is. With ``explain`` a false verdict is a
    ``Refuted`` naming its failing clauses."""
    payload = _Payload()
    for server, initial, final, _ in frame_cases:
        for _, (a, b) in _per_server(server, initial, final):
            payload.bases.setdefault(id(b), a)
    verdicts = [(s, payload.refs(s, st), p) for s, st, p in verdict_cases]
    frames = [(s, payload.refs(s, a), payload.refs(s, b), f) for s, a, b, f in frame_cases]
    number = payload.numbers
    out = _judge_call(json.dumps({
        "verdicts": [{**_whom(s), "state": number(at), "predicate": p} for s, at, p in verdicts],
        "frames": [{**_whom(s), "initial": number(a), "final": number(b), "frame": f} for s, a, b, f in frames],
        **payload.encoded(), **({"explain": True} if explain else {}),
    }))
    if not (isinstance(out, dict) and isinstance(out.get("verdicts"), list) and isinstance(out.get("frames"), list)
            and len(out["verdicts"]) == len(verdict_cases) and len(out["frames"]) == len(frame_cases)):
        raise TypeScriptVerifierError("TypeScript verifier answered with the wrong number of verdicts or frame judgements")
    return _verdicts(out["verdicts"]), _frame_answers(out["frames"])


#: Whether ``judge_many`` asks this process's long-lived ``--serve`` process (:class:`Served`) rather
#: than starting the CLI per call; the answers are the same, the CPU about half (see ``Served``).
SERVE = True
#: How long a served request may take before the process is stopped and the call fails.
SERVE_TIMEOUT_S = 120.0


def _judge_call(payload: str) -> Any:
    """The ``--judge`` answer to ``payload``: within :func:`serving`, from this process's served verifier
    (``SERVE``), or, where that cannot answer (node died twice on it, or it cannot start), from the
    one-shot CLI, whose error then says what is wrong; outside it, from the one-shot CLI."""
    if SERVE and _USERS > 0:
        try:
            return served().ask(payload)
        except ServedUnavailable:
            pass
    return _call(["--judge"], payload)


class ServedUnavailable(RuntimeError):
    """The served verifier could not answer (its process died, or would not start): ask the one-shot CLI."""


class Served:
    """One long-lived ``node dist/cli.js --serve`` (src/cli.ts): ``--judge`` requests a line at a time,
    each answered on a line. A month's gate calls the verifier a few dozen times per process, and a
    process started per call spent more than half of node's CPU on its start, its module loads and
    code not yet optimised: one process kept for the gate's life judges the same calls in about half
    the CPU, with the same answers.

    The process is started on first use and again after it dies (or after ``dist/`` is rebuilt under it,
    so it never answers with code older than the build); a request that it dies on is asked once more
    of a fresh process, and :class:`ServedUnavailable` if that dies too. An answer ``{"error": ...}`` (the
    input is malformed: what the CLI exits 2 on) is a :class:`TypeScriptVerifierError`; so is a request
    that takes longer than ``SERVE_TIMEOUT_S`` (the process is stopped). Requests from several threads
    take turns. Never inherits the test hook ``MCPBENCH_TS_BREAK``."""

    def __init__(self, cli: Path | None = None) -> None:
        self._cli = cli
        self._lock = threading.RLock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: Any = None
        self._build: tuple[Any, ...] | None = None
        self._pid = os.getpid()
        self.starts = 0  # processes started (tests)

    @property
    def cli(self) -> Path:
        return self._cli or CLI

    def _built(self) -> tuple[Any, ...] | None:
        """Which build the process runs: the CLI's path, modification time and size, and those of the
        entity declaration it reads once at its start (tasks_catalog/frames/entities.json)."""
        try:
            st = self.cli.stat()
        except OSError:
            return None
        try:
            decl = ENTITIES.stat()
            declared: tuple[int, int] | None = (decl.st_mtime_ns, decl.st_size)
        except OSError:
            declared = None
        return str(self.cli), st.st_mtime_ns, st.st_size, declared

    def _started(self) -> subprocess.Popen[bytes]:
        if self._pid != os.getpid():  # a forked child: the parent's process is not this one's to use
            self._proc, self._stderr, self._pid = None, None, os.getpid()
        if self._proc is not None and (self._proc.poll() is not None or self._built() != self._build):
            self.close()
        if self._proc is None:
            env = {k: v for k, v in os.environ.items() if k != BREAK_ENV}
            self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - kept open for the process's life, closed by close()
            self._build = self._built()
            try:
                self._proc = subprocess.Popen(["node", str(self.cli), "--serve"], stdin=subprocess.PIPE,
                                              stdout=subprocess.PIPE, stderr=self._stderr, env=env)
            except OSError as exc:
                self._stderr.close()
                self._stderr = None
                raise ServedUnavailable(f"cannot start the served TypeScript verifier: {exc}") from None
            self.starts += 1
        return self._proc

    def ask(self, payload: str) -> Any:
        """The answer to one ``--judge`` input (a JSON text without newlines, as ``json.dumps`` writes)."""
        if "\n" in payload:
            raise ValueError("a served request is one line of JSON")
        data = payload.encode() + b"\n"
        with self._lock:
            died = ""
            for _ in range(2):
                proc = self._started()
                line = self._exchange(proc, data)
                if line is None:
                    died = self._why_dead()
                    self.close()
                    continue
                try:
                    out = json.loads(line)
                except ValueError:
                    self.close()
                    raise TypeScriptVerifierError(f"the served TypeScript verifier answered no JSON: {line[:200]!r}") from None
                if isinstance(out, dict) and set(out) == {"error"}:
                    raise TypeScriptVerifierError(f"TypeScript verifier refused the input: {out['error']}")
                return out
            raise ServedUnavailable(f"the served TypeScript verifier died twice on a request: {died}")

    def _exchange(self, proc: subprocess.Popen[bytes], data: bytes) -> bytes | None:
        """Write one request, read its answer line; None if the process died first. Stops the process and
        raises on a timeout."""
        assert proc.stdin is not None and proc.stdout is not None  # both PIPE
        deadline = time.monotonic() + SERVE_TIMEOUT_S
        if not self._send(proc.stdin.fileno(), data, deadline):
            return None
        fd = proc.stdout.fileno()
        chunks: list[bytes] = []
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while True:
                self._wait(sel, deadline, "on a request")
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    return None
                chunks.append(chunk)
                if chunk.endswith(b"\n"):
                    break
                if b"\n" in chunk:  # one request, one line: anything after it is a broken process
                    self.close()
                    raise TypeScriptVerifierError("the served TypeScript verifier answered more than one line")
        return b"".join(chunks)

    def _wait(self, sel: selectors.BaseSelector, deadline: float, doing: str) -> None:
        """Until ``sel``'s pipe is ready; past ``deadline``, stop the process and raise, saying what it was
        ``doing``."""
        left = deadline - time.monotonic()
        if left <= 0 or not sel.select(left):
            self.close()
            raise TypeScriptVerifierError(f"the served TypeScript verifier took more than {SERVE_TIMEOUT_S:.0f} s "
                                          f"{doing}; stopped")

    def _send(self, fd: int, data: bytes, deadline: float) -> bool:
        """Write a request whole before ``deadline``; False if the process died first. A request is larger
        than a pipe holds, so a process that stops reading would block a plain write for ever: the write
        waits on the pipe no longer than the request may take, then stops the process and raises."""
        os.set_blocking(fd, False)
        view = memoryview(data)
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_WRITE)
            while view:
                self._wait(sel, deadline, "to read a request")
                try:
                    view = view[os.write(fd, view):]
                except BlockingIOError:
                    continue
                except OSError:  # BrokenPipeError among them: it died
                    return False
        return True

    def _why_dead(self) -> str:
        proc = self._proc
        code = None
        if proc is not None:
            try:
                code = proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        err = b""
        if self._stderr is not None:
            self._stderr.seek(0)
            err = self._stderr.read()[-2000:]
        return f"exit {code}: {err.decode(errors='replace')}"

    def close(self) -> None:
        """Stop the process (it exits when its input closes; a request under way is answered first); the
        next request starts another."""
        with self._lock:
            self._close()

    def _close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            for stream in (proc.stdin, proc.stdout):
                try:
                    if stream is not None:
                        stream.close()
                except OSError:
                    pass
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None


_SERVED: Served | None = None
_SERVED_LOCK = threading.Lock()
_USERS = 0  # the serving() blocks under way in this process


def served() -> Served:
    """This process's :class:`Served` verifier (stopped at exit)."""
    global _SERVED
    with _SERVED_LOCK:
        if _SERVED is None:
            _SERVED = Served()
            atexit.register(_SERVED.close)
        return _SERVED


@contextlib.contextmanager
def serving() -> Iterator[None]:
    """Within it, ``judge_many`` asks this process's one served verifier (started on first use) instead
    of a process per call: what a gate run does (``Gate.check``). When the last block under way ends,
    the process is stopped, so none outlives the gate runs that use it, and its CPU is counted with the
    process's waited-for children, as the one-shot CLI's was."""
    global _USERS
    with _SERVED_LOCK:
        _USERS += 1
    try:
        yield
    finally:
        with _SERVED_LOCK:
            _USERS -= 1
            last = _USERS == 0
            held = _SERVED
        if last and held is not None:
            held.close()


def _per_server(server: Servers, *states: dict[str, Any]) -> list[tuple[str, tuple[dict[str, Any], ...]]]:
    """``(server, its state in each of states)`` for a case's server or each of its servers."""
    if isinstance(server, str):
        return [(server, states)]
    return [(s, tuple(st[s] for st in states)) for s in server]


class _Payload:
    """The states of a ``--judge`` call: each sent whole (``states``) or as ops on an earlier one
    (``derived``); a reference counts ``states`` first, then ``derived``."""

    def __init__(self) -> None:
        self.bases: dict[int, dict[str, Any]] = {}  # id(final state) -> its task's initial state
        self.first: dict[str, dict[str, Any]] = {}  # server -> the first state sent for it
        self.whole: list[dict[str, Any]] = []
        self.derived: list[tuple[tuple[str, int], list[list[Any]]]] = []  # (its base's slot, ops)
        self.slot: dict[int, tuple[str, int]] = {}  # id(state) -> ("whole" | "derived", position)
        self.kept: list[dict[str, Any]] = []  # every state given a slot: their ids stay theirs
        self.pending: set[int] = set()  # states whose base is being sent: never a base themselves
        self.recent: dict[str, list[dict[str, Any]]] = {}  # server -> the states sent for it, in order
        self.same = ExactSame()

    def ref(self, server: str, state: dict[str, Any]) -> tuple[str, int]:
        at = self.slot.get(id(state))
        if at is not None:
            return at
        base = self._sharing(server, state) or self.bases.get(id(state)) or self.first.get(server)
        ops = None
        if base is not None and base is not state and id(base) not in self.pending:
            self.pending.add(id(state))
            base_at = self.ref(server, base)
            self.pending.discard(id(state))
            ops = state_ops(base, state, self.same)
        if ops is None:
            at = ("whole", len(self.whole))
            self.whole.append(state)
        else:
            at = ("derived", len(self.derived))
            self.derived.append((base_at, ops))
        self.slot[id(state)] = at
        self.kept.append(state)
        self.first.setdefault(server, state)
        self.recent.setdefault(server, []).append(state)
        return at

    def refs(self, server: Servers, state: dict[str, Any]) -> Any:
        """``ref`` of a case's state: one slot, or a cross-server case's slot per server."""
        if isinstance(server, str):
            return self.ref(server, state)
        return {s: self.ref(s, state[s]) for s in server}

    def numbers(self, at: Any) -> Any:
        """``number`` of what ``refs`` gave."""
        return {s: self.number(a) for s, a in at.items()} if isinstance(at, dict) else self.number(at)
    def _sharing(self, server: str, state: dict[str, Any]) -> dict[str, Any] | None:
        """A state already sent that shares most of ``state``'s top-level values by identity (a probe's
        state edit of a reference's final state shares all but one): the cheapest base to send it from."""
        best, shared = None, 0
        for other in self.recent.get(server, [])[-64:]:
            if other is state or id(other) in self.pending or type(other) is not dict or list(other) != list(state):
                continue
            n = sum(other[k] is v for k, v in state.items())
            if n > shared:
                best, shared = other, n
        return best

    def encoded(self) -> dict[str, Any]:
        """``states`` and ``derived`` as the CLI reads them (once every state has its slot)."""
        return {"states": self.whole,
                "derived": [{"base": self.number(base), "ops": ops} for base, ops in self.derived]}

    def number(self, at: tuple[str, int]) -> int:
        """The CLI's reference of a slot (once every state has its slot)."""
        kind, position = at
        return position if kind == "whole" else len(self.whole) + position


def state_ops(base: Any, new: Any, same: ExactSame | None = None) -> list[list[Any]] | None:
    """Ops that turn the dumped state ``base`` into ``new`` (src/joint.ts reads them), or None when
    ``new`` is better sent whole (its top level differs in kind, keys or their order, or in every member)."""
    same = same or ExactSame()
    if not (type(base) is dict and type(new) is dict and list(base) == list(new)):
        return None
    ops: list[list[Any]] = []
    try:
        differ = [k for k in new if not same(base[k], new[k])]
        if len(differ) == len(new) and len(new) > 1:
            return None
        for key in differ:
            _ops(base[key], new[key], [key], ops, same)
    except RecursionError:  # nested deeper than Python compares: sent whole, as before
        return None
    return ops


def _ops(base: Any, new: Any, path: list[Any], ops: list[list[Any]], same: ExactSame) -> None:
    """Append to ``ops`` what turns ``base`` into ``new`` (which differ) at ``path``."""
    if type(base) is dict and type(new) is dict and list(base) == list(new):
        for key in new:
            if not same(base[key], new[key]):
                _ops(base[key], new[key], [*path, key], ops, same)
        return
    if type(base) is list and type(new) is list:
        if len(base) == len(new):
            differ = [i for i, (a, b) in enumerate(zip(base, new)) if not same(a, b)]
            if 2 * len(differ) <= len(new):
                for i in differ:
                    _ops(base[i], new[i], [*path, i], ops, same)
                return
        else:
            head = 0
            while head < min(len(base), len(new)) and same(base[head], new[head]):
                head += 1
            tail = 0
            while tail < min(len(base), len(new)) - head and same(base[-1 - tail], new[-1 - tail]):
                tail += 1
            if 2 * (head + tail) >= len(new):
                ops.append([path, head, len(base) - head - tail, new[head:len(new) - tail]])
                return
    ops.append([path, new])


def frame_violations_many(cases: list[tuple[Servers, dict[str, Any], dict[str, Any], list[dict[str, Any]]]],
                          *, break_kind: str | None = None) -> list[list[dict[str, Any]]]:
    """The TypeScript verifier's frame violations on ``(server, initial, final, frame)`` cases, in order:
    per case a list of ``{entity, id, change, fields, reason}`` (empty when the frame held). A
    cross-server case gives its servers (a tuple) and its states keyed by server.
    ``break_kind`` (a test hook) makes it blind to that entity kind."""
    payload = json.dumps([{**_whom(s), "initial": a, "final": b, "frame": f} for s, a, b, f in cases])
    out = _call(["--frames"], payload, None if break_kind is None else f"frame:{break_kind}")
    if not isinstance(out, list) or len(out) != len(cases):
        raise TypeScriptVerifierError("TypeScript verifier answered with the wrong number of frame judgements")
    return _frame_answers(out)


def _frame_answers(answers: list[Any]) -> list[list[dict[str, Any]]]:
    out = []
    for i, item in enumerate(answers):
        if not isinstance(item, dict) or "violations" not in item:
            raise TypeScriptVerifierError(f"case {i}: TypeScript verifier could not judge the frame: {item!r}")
        out.append(item["violations"])
    return out
