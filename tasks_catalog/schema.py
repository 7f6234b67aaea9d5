"""The task model. Its JSON Schema is exported to ``tasks_catalog/task.schema.json`` (``mcpbench tasks
schema``) and referenced by ``$schema`` from every task file, so editors validate task files as they are
written."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from servers import SERVER_NAMES

T = TypeVar("T")

SCHEMA_PATH = Path(__file__).with_name("task.schema.json")
#: What a task file in the repository puts in ``$schema`` (relative to ``tasks_catalog/dev/<server>/``).
SCHEMA_REF = "../../task.schema.json"

Server = Literal[SERVER_NAMES]  # type: ignore[valid-type]
TaskId = Field(pattern=r"^[a-z0-9][a-z0-9_.-]{2,80}$", description="Unique id, e.g. 'slack-archive-standup'")
#: A task's nonce: at least 128 random bits as lowercase hex (``secrets.token_hex(16)`` or longer).
NONCE_PATTERN = r"^[0-9a-f]{32,128}$"
#: Fewer distinct hex digits than this in 32+ random ones has odds below 1e-7: a hand-typed filler.
NONCE_MIN_DISTINCT = 8
#: How a cross-server task names a tool: ``<server>__<tool>`` (no server name holds it; an OpenAI
#: function name may).
TOOL_SEPARATOR = "__"
#: What a cross-server task's run records carry as their ``server`` (no server is named so): its runs
#: are scored in a row of their own (docs/warehouse.md).
CROSS_SERVER = "cross-server"
#: How many servers a cross-server task may name.
MIN_SERVERS, MAX_SERVERS = 2, 4


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ToolCall(_Strict):
    """One MCP tool call: a tool name and its arguments."""

    tool: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)


class WrongSolution(_Strict):
    """A plausible sequence of calls whose final state must FAIL the judgement (predicate or frame;
    validation only). ``kind`` says what it tests: ``collateral``, the right action plus damage outside
    the frame (the predicate's positive part holds, the frame breaks); ``lookalike``, the action on a
    lookalike entity; ``other``. The gate checks each kind's claim (docs/frames.md, "The gate")."""

    why: str = Field(min_length=3, description="What is wrong with it, e.g. 'archives the wrong channel'")
    kind: Literal["collateral", "lookalike", "other"] | None = Field(
        default=None, description="collateral | lookalike | other (docs/frames.md)")
    calls: list[ToolCall]


class AlternativeSolution(_Strict):
    """Another sequence of calls that solves the task and must PASS the judgement (validation only, never
    shown to an agent): what the gate's generated variants cannot produce, above all the natural
    follow-up a goal implies (opening the pull request when the goal asks for a review)."""

    why: str = Field(min_length=3, description="What it does differently, e.g. 'also opens the pull request'")
    calls: list[ToolCall] = Field(min_length=1)


class Fault(_Strict):
    """An error the gateway injects (recovery tasks); see tasks_catalog/faults.py and docs/frames.md.
    In a cross-server task ``tool`` is ``<server>__<tool>``, like every tool name of the task.

    The ``on_call``-th call of ``tool`` (1-based, counting only calls of that tool) and the
    ``times - 1`` calls of it after that are answered with an MCP tool error of ``kind``. For
    ``rate_limit``, ``unavailable`` and ``timeout`` the call is not executed, and an agent that
    retries succeeds afterwards. ``timeout_after_commit`` is a partial failure: the call IS executed
    and still answers an error, so an agent that retries blindly makes the change twice.
    """

    tool: str
    on_call: int = Field(default=1, ge=1, le=100)
    times: int = Field(default=1, ge=1, le=10)
    kind: Literal["rate_limit", "unavailable", "timeout", "timeout_after_commit"] = "rate_limit"


#: A constraint of an allowance's ``values`` (docs/frames.md, "Field-level allowances"): exactly one form.
CONSTRAINT_SCHEMA: dict[str, Any] = {"oneOf": [
    {"type": "object", "properties": {"eq": {}}, "required": ["eq"], "additionalProperties": False,
     "description": "the final value equals this (JSON equality)"},
    {"type": "object", "properties": {"in": {"type": "array"}}, "required": ["in"], "additionalProperties": False,
     "description": "the final value equals one of these"},
    {"type": "object", "properties": {"matches": {"type": "string", "minLength": 1}}, "required": ["matches"],
     "additionalProperties": False, "description": "the final value is text this pattern finds (search semantics)"},
    {"type": "object", "properties": {"add": {"type": "array"}, "remove": {"type": "array"},
                                      "key": {"type": "string", "minLength": 1}},
     "anyOf": [{"required": ["add"]}, {"required": ["remove"]}], "additionalProperties": False,
     "description": "a list: the items it gains are among add, the items it loses among remove (items told apart "
                    "by their field key, when given); a created entity starts from an empty list"},
    {"type": "object", "properties": {"keys": {"type": "array", "items": {"type": "string"}}}, "required": ["keys"],
     "additionalProperties": False, "description": "an object whose keys are all among these"},
]}


def _constrain_values(schema: dict[str, Any]) -> None:
    """An allowance's ``values`` in the exported schema: each constraint one of ``CONSTRAINT_SCHEMA``'s forms
    (pydantic exports ``dict[str, dict[str, Any]] | None`` with free objects, in its first ``anyOf`` branch)."""
    schema["anyOf"][0]["additionalProperties"] = CONSTRAINT_SCHEMA


class Allowance(_Strict):
    """One allowance of a task's frame: which entities the agent may create, copy, update or delete,
    and what it may make of their fields.

    A change is selected by an allowance when its entity is of ``entity``'s kind, its change is in
    ``change``, its id is in ``ids`` (if given), its fields equal ``where`` (final values for a create,
    copy or update, initial values for a delete) and, with ``parent``, the entity it lives in was
    created in the run (``created``) or was there before (``existing``). A selected change is allowed
    when only ``fields`` differ (updates) and every constraint of ``values`` holds. ``max``: at most this
    many changes may be allowed by it, else it allows none of them. A field of ``where``, ``fields`` and
    ``values`` may be one key of a field that holds an object: ``properties.Status``, ``metadata.seats``.
    Kinds and ids per server: docs/frames.md.
    """

    entity: str = Field(pattern=r"^[a-z]+\.[a-z_]+$", description="'<server>.<kind>', e.g. 'slack.message'")
    ids: list[str] | None = Field(default=None, min_length=1, description="Only these entities (stable ids, never names)")
    where: dict[str, Any] | None = Field(default=None, description="Field values the entity must have")
    change: list[Literal["create", "copy", "update", "delete"]] = Field(default_factory=lambda: ["update"], min_length=1)  # type: ignore[arg-type]  # mypy reads the lambda's list as list[str]
    fields: list[str] | None = Field(default=None, min_length=1, description="For an update: only these fields may differ")
    values: dict[str, dict[str, Any]] | None = Field(
        default=None, min_length=1, description="Field (or 'field.key') -> what the change may make of it",
        json_schema_extra=_constrain_values)
    parent: Literal["created", "existing"] | None = Field(
        default=None, description="Only entities whose parent (a file's branch, a block's page) was created in the "
                                  "run, or existed before it")
    max: int | None = Field(default=None, ge=1, description="At most this many entities may match")


class TemplateRef(_Strict):
    """Where the task was rendered from a template: its id and the sampled parameters."""

    id: str
    params: dict[str, Any]


class Task(BaseModel):
    """A benchmark task. See docs/design.md, "Tasks".

    A task names one server (``server``) or, a cross-server task, two to four (``servers``), never both
    (docs/tasks.md, "Cross-server tasks"); every consumer asks ``server_names``. A cross-server task's
    ``initial_state`` is an object keyed by its servers, each value that server's state as a
    single-server task gives it, and its tool names (``available_tools``, the solutions' calls,
    ``faults[].tool``) are ``<server>__<tool>``."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True,
                              json_schema_extra={"oneOf": [{"required": ["server"]}, {"required": ["servers"]}]})

    schema_: str | None = Field(default=None, alias="$schema")
    id: str = TaskId
    version: int | None = Field(default=None, ge=1, description=(
        "The task's version: bumped whenever its goal, world, faults, frame or predicate changes (what an "
        "agent sees or how it is judged), so results of different versions are never ranked together; "
        "absent means 1 (tasks written before versions). A rendered task takes its template's version. "
        "tasks_catalog/CHANGELOG.md says what changed and why"))
    server: Server | None = Field(default=None, description="The task's server; a cross-server task names `servers` instead")
    servers: list[Server] | None = Field(
        default=None, min_length=MIN_SERVERS, max_length=MAX_SERVERS,
        description="A cross-server task's servers (2 to 4, distinct), instead of `server`; its initial_state is "
                    "keyed by them and its tools are named `<server>__<tool>` (docs/tasks.md)")
    difficulty: Literal["easy", "medium", "hard"]
    category: Literal["standard", "recovery"]
    nonce: str = Field(pattern=NONCE_PATTERN, description=(
        "At least 128 random bits as lowercase hex, part of the hashed document so that a published "
        "hash reveals nothing about the task (a hiding commitment); new for every task, e.g. "
        "`python -c 'import secrets; print(secrets.token_hex(16))'`"))
    goal: str = Field(min_length=10, max_length=4000)
    initial_state: dict[str, Any] = Field(description=(
        "The server's state before the run: a world reference and patch, or an inline state; for a "
        "cross-server task an object keyed by its servers, each value one server's state (docs/tasks.md)"))
    faults: list[Fault] = Field(default_factory=list)
    available_tools: list[str] = Field(min_length=1)
    max_steps: int = Field(ge=1, le=1000)
    timeout_s: float = Field(gt=0, le=3600)
    frame: list[Allowance] = Field(
        description="What the agent may change; every other entity must be unchanged (docs/frames.md)")
    success: dict[str, Any] = Field(description="The success predicate; see docs/predicates.md")
    reference_solution: list[ToolCall] = Field(min_length=1)
    wrong_solutions: list[WrongSolution] = Field(min_length=1)
    alternative_solutions: list[AlternativeSolution] | None = Field(default=None, description=(
        "Other solutions that must pass (validation only): the follow-ups the goal implies"))
    template: TemplateRef | None = None

    @field_validator("nonce")
    @classmethod
    def _nonce_looks_random(cls, v: str) -> str:
        if len(set(v)) < NONCE_MIN_DISTINCT:
            raise ValueError(f"nonce uses only {len(set(v))} distinct hex digits: it is not random; "
                             "make a fresh one with secrets.token_hex(16)")
        return v

    def rendered_from(self) -> TemplateRef:
        """The template this task was rendered from (``ValueError`` for a task written by hand)."""
        if self.template is None:
            raise ValueError(f"task {self.id!r} was not rendered from a template")
        return self.template

    @field_validator("servers")
    @classmethod
    def _servers_distinct(cls, v: list[str] | None) -> list[str] | None:
        if v is not None and len(set(v)) != len(v):
            raise ValueError(f"names a server twice: {v}; a cross-server task names {MIN_SERVERS} to "
                             f"{MAX_SERVERS} distinct servers")
        return v

    @model_validator(mode="after")
    def _one_server_or_several(self) -> Task:
        if (self.server is None) == (self.servers is None):
            raise ValueError("a task names its server ('server') or, for a cross-server task, its servers "
                             f"('servers', {MIN_SERVERS} to {MAX_SERVERS}): exactly one of the two"
                             + ("; this one names both" if self.server is not None else ""))
        return self

    @property
    def server_names(self) -> tuple[str, ...]:
        """The servers the task runs on, in the order it names them (one for a single-server task)."""
        if self.servers is not None:
            return tuple(self.servers)
        assert self.server is not None  # a task names one or the other (_one_server_or_several)
        return (self.server,)

    @property
    def cross_server(self) -> bool:
        return self.servers is not None

    @property
    def server_label(self) -> str:
        """What run records carry as the task's ``server``: the server, or ``CROSS_SERVER``."""
        return CROSS_SERVER if self.servers is not None else self.server  # type: ignore[return-value]

    @property
    def scope(self) -> str | tuple[str, ...]:
        """Whom the verifiers judge (``predicates``, ``frames``, the TypeScript verifier): the server, or
        a cross-server task's servers, whose states then come keyed by server (``scoped``)."""
        return self.server_names if self.servers is not None else self.server  # type: ignore[return-value]

    def scoped(self, by_server: dict[str, T]) -> T | dict[str, T]:
        """What the verifiers take of ``by_server`` (one value per server of the task, e.g. final states):
        a single-server task's one value, or the mapping itself across servers."""
        return by_server if self.servers is not None else by_server[self.server]  # type: ignore[index]

    def initial_states(self) -> dict[str, dict[str, Any]]:
        """Each server's initial state as the task writes it (a world reference and patch, or inline),
        keyed by server; a single-server task's ``initial_state`` under its one server."""
        if self.servers is None:
            return {self.server: self.initial_state}  # type: ignore[dict-item]
        return {server: self.initial_state.get(server) for server in self.servers}  # type: ignore[misc]

    def route(self, name: str) -> tuple[str, str] | None:
        """``(server, tool)`` a tool name of this task stands for: a single-server task's names are its
        server's own; a cross-server task's are ``<server>__<tool>`` with one of its servers (None for a
        name that names none of them)."""
        if self.servers is None:
            return self.server, name  # type: ignore[return-value]
        server, sep, tool = name.partition(TOOL_SEPARATOR)
        return (server, tool) if sep and tool and server in self.servers else None

    def tool_name(self, server: str, tool: str) -> str:
        """How this task names ``server``'s ``tool``: as it is, or ``<server>__<tool>`` across servers."""
        return tool if self.servers is None else f"{server}{TOOL_SEPARATOR}{tool}"

    @property
    def task_version(self) -> int:
        """The version results are grouped by: ``version``, or 1 for a task written before versions."""
        return self.version or 1

    def to_json(self) -> dict[str, Any]:
        """The task as a JSON document (``$schema`` first, unset template left out)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


#: The attestation rule, exported with the schema (and in ``mcpbench tasks hash --help``).
HASH_RULE = (
    "Attestation hash of a task = lowercase hex SHA-256 of the RFC 8785 (JCS) canonical UTF-8 bytes of "
    "the task document after: (1) removing '$schema'; (2) removing every member whose value is null "
    "where this schema declares the property (a null default means 'absent'); (3) adding every property "
    "this schema declares with a non-null 'default' that the document leaves out, at every level "
    "(task, faults[], reference_solution[], wrong_solutions[].calls[], alternative_solutions[].calls[], frame[]; "
    "follow $ref and the "
    "non-null branch of anyOf). Free-form objects (initial_state, success, arguments, params, a frame's "
    "where and values) are "
    "hashed exactly as written. The nonce is part of the document, so a published hash hides the task.")


def _export_default_factories(schema: dict[str, Any]) -> None:
    """Pydantic leaves ``default_factory`` defaults out of the schema; the hash needs them spelled out."""
    models = {name: globals().get(name) for name in schema.get("$defs", {})}
    nodes = [(Task, schema)] + [(m, schema["$defs"][name]) for name, m in models.items()
                                if isinstance(m, type) and issubclass(m, BaseModel)]
    for model, node in nodes:
        for name, field in model.model_fields.items():
            key = field.alias or name
            if field.default_factory is not None and key in node.get("properties", {}):
                node["properties"][key]["default"] = field.get_default(call_default_factory=True)


def json_schema() -> dict[str, Any]:
    schema = Task.model_json_schema(by_alias=True)
    _export_default_factories(schema)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://mcpbench.dev/schema/task.schema.json"
    schema["$comment"] = HASH_RULE
    return schema
