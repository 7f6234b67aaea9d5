"""Loading tasks: every check that can be made without running anything, each error with the task id
and the JSON path. One bad task never hides the others."""

from __future__ import annotations

import hashlib
import inspect
import json
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError, create_model

from servers import SERVER_NAMES, get_spec
from servers.kit import StateError, canonical, json_path
from servers.kit.safejson import NestingError, TooLargeError, loads, read_document
from servers.kit.world import WorldError
from tasks_catalog.frames import check_frame
from tasks_catalog.predicates import check as check_predicate
from tasks_catalog.schema import TOOL_SEPARATOR, Task

#: The public dev set.
DEV_DIR = Path(__file__).with_name("dev")


@dataclass(frozen=True)
class TaskError:
    """One problem with one task: ``task`` is its id (or the file when the id is unknown); ``file`` the
    task file it came from, when it was loaded from one."""

    task: str
    path: str
    message: str
    file: str | None = None

    def __str__(self) -> str:
        return f"{self.task}: {self.path}: {self.message}"

    def located(self) -> str:
        """The error naming its file too (when the file is not already what ``task`` names)."""
        return str(self) if self.file is None or self.file == self.task else f"{self.file}: {self}"


class TaskLoadError(ValueError):
    def __init__(self, errors: list[TaskError]) -> None:
        self.errors = errors
        super().__init__("\n".join(str(e) for e in errors))


def task_files(paths: list[Path]) -> list[Path]:
    """The ``*.json`` task files under ``paths`` (files are taken as they are), sorted."""
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out.extend(sorted(q for q in p.rglob("*.json") if q.is_file()))
        else:
            out.append(p)
    return out


@cache
def _argument_model(server: str, tool: str):
    """A strict pydantic model of a tool's arguments, built from the tool method's signature."""
    method = getattr(get_spec(server).toolset, tool)
    fields: dict[str, Any] = {}
    for name, param in inspect.signature(method, eval_str=True).parameters.items():
        if name == "self":
            continue
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[name] = (param.annotation, default)
    return create_model(f"{tool}Arguments", __config__={"extra": "forbid"}, **fields)


def tool_problem(task: Task, name: str) -> str | None:
    """Why ``name`` is no tool of ``task``'s servers (as the task names tools: ``<server>__<tool>``
    across servers), or None when it is one."""
    route = task.route(name)
    if route is None:
        return (f"{name!r} names no server of this task: a cross-server task names its tools "
                f"'<server>{TOOL_SEPARATOR}<tool>', the server one of {', '.join(task.server_names)}")
    server, tool = route
    if tool not in get_spec(server).tool_names():
        return f"{server} has no tool {tool!r}"
    return None


def check_tool_calls(task: Task, calls: list[Any], allowed: set[str] | None, path: str) -> list[tuple[str, str]]:
    """Problems with a list of ``task``'s tool calls: unknown tool, tool not in ``allowed`` (None: any
    tool of the task's servers), bad arguments."""
    problems = []
    for i, call in enumerate(calls):
        here = f"{path}[{i}]"
        unknown = tool_problem(task, call.tool)
        if unknown is not None:
            problems.append((f"{here}.tool", unknown))
            continue
        if allowed is not None and call.tool not in allowed:
            problems.append((f"{here}.tool", f"tool {call.tool!r} is not in available_tools"))
        server, tool = task.route(call.tool)  # type: ignore[misc]
        try:
            _argument_model(server, tool).model_validate(call.arguments)
        except ValidationError as exc:
            for err in exc.errors():
                problems.append((json_path(err["loc"], f"{here}.arguments"), err["msg"]))
    return problems


def validate_task(doc: Any, source: str = "<task>") -> tuple[Task | None, list[TaskError]]:
    """Validate one task document; returns the task (None if the model itself failed) and every error."""
    task_id = doc["id"] if isinstance(doc, dict) and isinstance(doc.get("id"), str) and doc["id"] else source
    try:
        task = Task.model_validate(doc)
    except ValidationError as exc:
        return None, [TaskError(task_id, json_path(e["loc"], "$"), e["msg"]) for e in exc.errors()]
    errors = [TaskError(task.id, p, m) for p, m in _deep_problems(task)]
    return task, errors


#: The initial states found valid in this process, by digest (the server and the state's canonical JSON).
#: A process keeps only the last few validated worlds (``servers.kit.world``), fewer than a task folder
#: holds, so each load of the dev set validated all its worlds again (a second or two): every command of
#: a process that reads it (``tasks show`` of one task, say) and every ``load_split``. A state valid once
#: is valid again in the same code.
_VALID_STATES: set[bytes] = set()


def _state_problems(server: str, state: Any, path: str) -> list[tuple[str, str]]:
    """Problems of one server's initial state (``path`` is where it stands in the task)."""
    if not isinstance(state, dict):
        return [(path, (f"expected {server}'s initial state: an object (a world reference and patch, or an "
                        "inline state)"))]
    try:
        digest = hashlib.sha256(server.encode() + b"\0" + canonical.dumps(state)).digest()
    except (canonical.CanonicalizationError, TypeError, ValueError):
        digest = None  # not JSON data: the state model says what is wrong
    if digest in _VALID_STATES:
        return []
    try:
        get_spec(server).state_model.load(state, copy=False)  # checked only: the cached state, not a copy
    except WorldError as exc:
        return [(f"{path}.{exc.path}", exc.detail)]
    except StateError as exc:
        cause = exc.__cause__
        if isinstance(cause, ValidationError):
            return [(json_path(e["loc"], path), e["msg"]) for e in cause.errors()]
        return [(path, str(exc))]
    if digest is not None:
        _VALID_STATES.add(digest)
    return []


def _initial_state_problems(task: Task) -> list[tuple[str, str]]:
    if not task.cross_server:
        return _state_problems(task.server, task.initial_state, "$.initial_state")  # type: ignore[arg-type]
    problems = [(json_path(("initial_state", key), "$"), (f"{key!r} is not a server of this task (its servers: "
                                                          f"{', '.join(task.server_names)}); a cross-server task's "
                                                          "initial_state is keyed by its servers"))
                for key in task.initial_state if key not in task.server_names]
    for server, state in task.initial_states().items():
        here = f"$.initial_state.{server}"
        if state is None:
            problems.append((here, "missing: a cross-server task gives every server's initial state"))
        else:
            problems += _state_problems(server, state, here)
    return problems


def _deep_problems(task: Task) -> list[tuple[str, str]]:
    problems = _initial_state_problems(task)
    for i, name in enumerate(task.available_tools):
        unknown = tool_problem(task, name)
        if unknown is not None:
            problems.append((f"$.available_tools[{i}]", unknown))
    if len(set(task.available_tools)) != len(task.available_tools):
        problems.append(("$.available_tools", "lists a tool twice"))
    if task.cross_server:
        listed = {route[0] for route in map(task.route, task.available_tools) if route is not None}
        problems += [("$.available_tools", (f"lists no tool of {server}: every server of a cross-server task "
                                            "gives the agent at least one tool"))
                     for server in task.server_names if server not in listed]
    problems += [(e.path, e.message) for e in check_predicate(task.success, task.server_names, "$.success")]
    problems += check_frame(task.frame, task.server_names)
    allowed = set(task.available_tools)
    problems += check_tool_calls(task, list(task.reference_solution), allowed, "$.reference_solution")
    for i, wrong in enumerate(task.wrong_solutions):
        problems += check_tool_calls(task, list(wrong.calls), None, f"$.wrong_solutions[{i}].calls")
    for i, other in enumerate(task.alternative_solutions or []):  # a solution: only the tools an agent is given
        problems += check_tool_calls(task, list(other.calls), allowed, f"$.alternative_solutions[{i}].calls")
    for i, fault in enumerate(task.faults):
        if fault.tool not in allowed:
            problems.append((f"$.faults[{i}].tool", f"fault on {fault.tool!r}, which is not in available_tools"))
    if task.category == "recovery" and not task.faults:
        problems.append(("$.faults", "a recovery task needs at least one fault"))
    if task.category == "standard" and task.faults:
        problems.append(("$.faults", "only recovery tasks inject faults"))
    if len(task.reference_solution) > task.max_steps:
        problems.append(("$.max_steps", f"{task.max_steps} is less than the reference solution's "
                                        f"{len(task.reference_solution)} calls"))
    return problems


def _read_document(path: Path) -> tuple[Any, tuple[str, str] | None]:
    """A task file's JSON document, or the JSON path and message of why it cannot be had: refused by
    size before it is read whole (``MAX_BYTES``), by nesting before it is parsed, or not JSON."""
    try:
        return loads(read_document(path)), None
    except TooLargeError as exc:
        return None, ("$", exc.reason)
    except NestingError as exc:
        return None, (exc.path, str(exc))
    except (OSError, UnicodeDecodeError) as exc:
        return None, ("$", f"cannot read: {exc}")
    except json.JSONDecodeError as exc:
        return None, ("$", f"not valid JSON: {exc}")


def read_task_json(path: Path) -> Any:
    """A task file's JSON document; ``ValueError`` naming the file (and the JSON path of a document
    nested too deeply to judge) when it cannot be read or parsed, or is larger than ``MAX_BYTES``."""
    doc, problem = _read_document(path)
    if problem is not None:
        where, message = problem
        raise ValueError(f"{path}: {message}" if where == "$" else f"{path}: {where}: {message}")
    return doc


def load_task_file(path: Path) -> tuple[Task | None, list[TaskError]]:
    doc, problem = _read_document(path)
    if problem is not None:
        return None, [TaskError(str(path), *problem)]
    return validate_task(doc, str(path))


def load_tasks(paths: list[Path]) -> tuple[list[Task], list[TaskError]]:
    """Load every task under ``paths``: the valid ones and all errors (duplicate ids included)."""
    tasks: list[Task] = []
    errors: list[TaskError] = []
    seen: dict[str, str] = {}
    nonces: dict[str, str] = {}
    for f in task_files(paths):
        task, errs = load_task_file(f)
        errors += [replace(e, file=str(f)) for e in errs]
        if task is None or errs:
            continue
        if task.id in seen:
            errors.append(TaskError(task.id, "$.id", f"duplicate id (also in {seen[task.id]})", str(f)))
            continue
        if task.nonce in nonces:
            errors.append(TaskError(task.id, "$.nonce", f"same nonce as {nonces[task.nonce]}: every task needs "
                                    "its own (python -c 'import secrets; print(secrets.token_hex(16))')", str(f)))
            continue
        seen[task.id] = str(f)
        nonces[task.nonce] = task.id
        tasks.append(task)
    return tasks, errors


def load_valid_tasks(paths: list[Path]) -> list[Task]:
    """All tasks under ``paths``, or ``TaskLoadError`` listing every problem."""
    tasks, errors = load_tasks(paths)
    if errors:
        raise TaskLoadError(errors)
    return tasks


__all__ = ["DEV_DIR", "SERVER_NAMES", "TaskError", "TaskLoadError", "check_tool_calls", "load_task_file", "load_tasks",
           "load_valid_tasks", "read_task_json", "task_files", "tool_problem", "validate_task"]
