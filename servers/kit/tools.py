"""Tools: typed methods on a ``Toolset``, marked read-only or destructive, turned into MCP tools."""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable, Iterator
from contextvars import ContextVar, Token
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from mcp.server.mcpserver.exceptions import ToolError

from servers.kit.calls import CallQueue
from servers.kit.state import ServerState

S = TypeVar("S", bound=ServerState)

#: The largest string (or JSON-encoded argument) a tool accepts, in characters.
MAX_ARGUMENT_CHARS = 200_000
#: The longest answer a call gives, in characters (about 500,000 tokens: more than any model reads). An
#: answer is built in the harness's memory and encoded again for the trace and the transport: without a
#: bound, repeated reads of a grown file made answers of hundreds of megabytes.
MAX_RESULT_CHARS = 2_000_000
#: The longest free-text search query a tool accepts, in characters: each of its words is looked for in
#: every entity searched, so a query of 100,000 words searched a mailbox for 20 s. (Servers that follow a
#: real service's own limit keep it: GitHub 256, Slack 500, Stripe 1,000.)
MAX_QUERY_CHARS = 500


@dataclass(frozen=True)
class ToolMark:
    read_only: bool
    destructive: bool
    idempotent: bool


def tool(*, read_only: bool = False, destructive: bool = False, idempotent: bool | None = None) -> Callable:
    """Mark a ``Toolset`` method as an MCP tool.

    The method's name is the tool's name, its docstring the description, its annotated parameters
    the input schema. ``read_only`` tools never change state; ``destructive`` ones may remove or
    overwrite data.
    """
    if read_only and destructive:
        raise ValueError("a tool cannot be both read-only and destructive")

    def mark(fn: Callable) -> Callable:
        if not fn.__doc__:
            raise TypeError(f"tool {fn.__name__} needs a docstring: it is the tool's description")
        fn.__mcpbench_tool__ = ToolMark(read_only, destructive, read_only if idempotent is None else idempotent)  # type: ignore[attr-defined]  # the mark a Toolset looks for
        return fn

    return mark


class Toolset(Generic[S]):
    """The tools of one server over one live state.

    Subclasses set ``state_model`` and define methods decorated with ``@tool``. A tool raises
    ``ToolError`` with a message saying what is wrong; anything else is a bug in the server.
    ``snapshot()`` returns the current state as the model (servers with an external resource, such
    as a directory or a database, read it back here).
    """

    state_model: ClassVar[type[ServerState]]
    #: Whether a backend that no call reaches holds the very state it was opened on (``snapshot(copy=False)``
    #: is that instance), although its ``__init__`` does more than copy it (loads it into a database, which
    #: may refuse what the state model accepts). A replay then leaves such a server unopened when no call
    #: goes to it, once a backend has opened that shared world state without error
    #: (``tasks_catalog.replay``). The plain ``Toolset`` copies its state: equal to it, and never refused.
    keeps_given_state: ClassVar[bool] = False

    def __init__(self, state: S) -> None:
        self.state: S = state.model_copy(deep=True)

    def snapshot(self, *, copy: bool = True) -> S:
        """The current state. ``copy=False`` returns the live state itself, without a deep copy (a
        world's is tens of milliseconds): only for a caller that is done reading it before any further call."""
        return self.state.model_copy(deep=True) if copy else self.state

    def close(self) -> None:
        """Release external resources (temporary directories, database connections)."""

    @property
    def calls(self) -> CallQueue:
        """The queue this backend's MCP tool calls run through (``servers.kit.calls``), made on first use."""
        queue = self.__dict__.get("_calls")
        if queue is None:
            queue = self.__dict__["_calls"] = CallQueue()
        return queue

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @classmethod
    def tool_marks(cls) -> Iterator[tuple[str, ToolMark]]:
        for name, member in inspect.getmembers(cls, inspect.isfunction):
            mark = getattr(member, "__mcpbench_tool__", None)
            if mark is not None:
                yield name, mark

    @classmethod
    def tool_names(cls) -> list[str]:
        return sorted(name for name, _ in cls.tool_marks())


def check_argument_sizes(tool_name: str, arguments: dict[str, Any]) -> None:
    """Refuse an oversized argument before any work is done."""
    for key, value in arguments.items():
        if isinstance(value, str):
            size = len(value)
        elif isinstance(value, (dict, list)):
            size = len(json.dumps(value, default=str))
        else:
            continue
        if size > MAX_ARGUMENT_CHARS:
            raise ToolError(
                f"argument {key!r} of {tool_name} is {size} characters; the limit is {MAX_ARGUMENT_CHARS}"
            )


def _invoke(tools: Toolset, name: str, arguments: dict[str, Any]) -> Any:
    """One call's work (in a worker thread): the size checks, the method, its answer as text."""
    check_argument_sizes(name, arguments)
    result = getattr(tools, name)(**arguments)
    if isinstance(result, (dict, list)):
        result = json.dumps(result, default=str)  # compact, as the real services' servers answer
    if isinstance(result, str) and len(result) > MAX_RESULT_CHARS:
        raise ToolError(f"the answer of {name} would be {len(result)} characters long; a call answers at most "
                        f"{MAX_RESULT_CHARS}: ask for less at once")
    return result


#: The toolset a shared server's tools act on during the current call (see ``bind_toolset``).
_CURRENT: ContextVar[Toolset | None] = ContextVar("mcpbench_toolset", default=None)


def bind_toolset(tools: Toolset) -> Token:
    """Make ``tools`` the backend of shared servers' calls in this context; ``unbind_toolset`` after."""
    return _CURRENT.set(tools)


def unbind_toolset(token: Token) -> None:
    _CURRENT.reset(token)


def as_async_tool(toolset_cls: type[Toolset], name: str, default: Toolset | None = None) -> Callable:
    """An MCP tool function for method ``name``: it acts on the toolset bound to the current call
    (``bind_toolset``), else on ``default``, through that toolset's ``CallQueue`` (in a worker thread,
    after its earlier calls, within the call time limit), and refuses oversized input. One server can
    so serve many backends: its tool definitions (schemas, validation models) are built once per
    server kind instead of once per run.
    """
    method = getattr(toolset_cls, name)

    @functools.wraps(method)
    async def run(**kwargs: Any) -> Any:
        tools = _CURRENT.get() or default
        if tools is None:
            raise ToolError(f"{name}: no backend is bound to this server")
        return await tools.calls.run(functools.partial(_invoke, tools, name, kwargs), name)

    run.__signature__ = _tool_signature(method)  # type: ignore[attr-defined]
    del run.__wrapped__
    return run


@functools.cache
def _tool_signature(method: Callable) -> inspect.Signature:
    """The signature of a tool's method without ``self``, its annotations evaluated: once per method (a
    replay builds a server per backend, and evaluating every tool's annotations again each time was a
    few percent of a month's gate)."""
    signature = inspect.signature(method, eval_str=True)
    return signature.replace(parameters=[p for p in signature.parameters.values() if p.name != "self"])


__all__ = ["MAX_ARGUMENT_CHARS", "MAX_QUERY_CHARS", "MAX_RESULT_CHARS", "ToolError", "ToolMark", "Toolset", "bind_toolset", "tool", "unbind_toolset"]
