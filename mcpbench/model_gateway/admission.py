"""What of an agent's request the model gateway forwards, and the most it may cost.

``read_request`` turns the body an agent sent into the request the upstream gets and its ``Ask``
(the most tokens it can be billed), or refuses it with a ``RequestError`` naming the field. The run's
meter then admits the ask against the run's budgets (``RunMeter.admit``), reserving its worst case.

What is forwarded is an allow-list: the fields a tool-calling agent needs (``messages``, ``tools``,
``tool_choice``, ``parallel_tool_calls``, the legacy ``functions`` / ``function_call``,
``response_format``, ``stream``, the sampling controls, ``n``, the completion cap), each checked for its
type. Anything else is dropped: fields that cost money or leave data with the provider (``store``,
``metadata``, ``service_tier``, ``user``, ``prediction``, ``audio``, ``modalities``,
``web_search_options``...) and multipliers the gateway does not meter (``best_of``,
``use_beam_search``...). Message fields outside the allow-list are dropped too, and a content part
that is not text is refused: an image's or a file's tokens cannot be bounded before the upstream reads
it.

The worst case of a request:

- its prompt: at most one token per byte of the body the agent sent (a token of a byte-level
  tokenizer spans at least one byte, and the JSON's own punctuation outweighs the chat template's
  markers), plus ``PROMPT_OVERHEAD_TOKENS`` for what the upstream adds itself (a tool-use system
  prompt);
- its completion: ``n`` choices of at most its cap each: the ``max_tokens`` or
  ``max_completion_tokens`` it asked for, never more than the operator's per-request cap, which is
  also what a request naming none is given. The gateway writes the cap it granted into the one field
  the upstream reads (``ModelSettings.tokens_field``) and drops the other.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from mcpbench.model_gateway.settings import TOKENS_FIELDS, ModelSettings

#: the deepest a request may nest (a tool's JSON schema is the deepest part of a legitimate one)
MAX_DEPTH = 64
#: prompt tokens an upstream may add to a request's own (a chat template's tool preamble, a provider's
#: tool-use system prompt: a few hundred at most)
PROMPT_OVERHEAD_TOKENS = 512
ROLES = ("system", "developer", "user", "assistant", "tool", "function")
TOOL_CHOICES = ("none", "auto", "required")


class RequestError(ValueError):
    """The request is not one the gateway forwards; the message names what is wrong (a JSON path)."""


@dataclass(frozen=True)
class Ask:
    """The most one request can be billed: its prompt's bound, and ``choices`` completions of at most
    ``completion`` tokens each."""

    prompt: int
    completion: int
    choices: int = 1

    @property
    def tokens(self) -> int:
        return self.prompt + self.completion * self.choices


@dataclass
class Reservation:
    """An admitted request's hold on the run's budgets, from admission until it settles: one request,
    and the tokens of its ``Ask`` with the completion cap it was granted (``completion``, which the
    upstream is told)."""

    prompt: int
    completion: int
    choices: int = 1
    open: bool = True

    @property
    def tokens(self) -> int:
        return self.prompt + self.completion * self.choices


def read_request(body: bytes, settings: ModelSettings) -> tuple[dict[str, Any], Ask]:
    """The request to forward (model pinned, the allow-listed fields, usage asked for on a stream; the
    completion cap still to be written) and its ask; ``RequestError`` when it cannot be forwarded."""
    try:
        raw = json.loads(body, parse_constant=_no_constant)
    except RecursionError:
        raise RequestError(f"the body nests deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, an integer of thousands of digits
        raise RequestError(f"the body is not JSON: {exc}") from None
    if not isinstance(raw, dict):
        raise RequestError(f"the body is JSON but not an object (a {type(raw).__name__})")
    _within_depth(raw)
    if raw.get("messages") is None:
        raise RequestError("messages: required (a chat-completions request has a list of messages)")
    request: dict[str, Any] = {}
    for key, value in raw.items():
        check = FIELDS.get(key)
        if check is not None and value is not None:
            request[key] = check(value, key)
    if settings.model:
        request["model"] = settings.model
    elif not isinstance(request.get("model"), str) or not request["model"]:
        raise RequestError("model: expected the name of the model to use")
    choices = request.get("n", 1)
    if choices > settings.max_choices:
        raise RequestError(f"n: at most {settings.max_choices} choice(s) a request (MCPBENCH_MODEL_MAX_CHOICES), "
                           f"got {choices}")
    request.pop("stream_options", None)
    if request.get("stream") is True:
        request["stream_options"] = {"include_usage": True}  # the meter reads the usage block
    asked = [request.pop(name) for name in TOKENS_FIELDS if name in request]
    return request, Ask(prompt=len(body) + PROMPT_OVERHEAD_TOKENS,
                        completion=min([*asked, settings.max_completion_tokens]), choices=choices)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _within_depth(value: Any) -> None:
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise RequestError(f"the body nests deeper than {MAX_DEPTH} levels")
        children = node.values() if isinstance(node, dict) else node
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))


# -- the fields: each check returns the value to forward or raises RequestError naming its path ---------
def _expect(ok: bool, path: str, what: str, value: Any) -> None:
    if not ok:
        shown = (json.dumps(value)[:80] if value is None or isinstance(value, str | int | float | bool)
                 else "an object" if isinstance(value, dict) else "a list")
        raise RequestError(f"{path}: expected {what}, got {shown}")


def _string(value: Any, path: str) -> str:
    _expect(isinstance(value, str), path, "a string", value)
    return value


def _boolean(value: Any, path: str) -> bool:
    _expect(isinstance(value, bool), path, "true or false", value)
    return value


def _number(value: Any, path: str) -> float:
    _expect(isinstance(value, int | float) and not isinstance(value, bool), path, "a number", value)
    return value


def _integer(value: Any, path: str) -> int:
    _expect(isinstance(value, int) and not isinstance(value, bool), path, "an integer", value)
    return value


def _positive(value: Any, path: str) -> int:
    _expect(isinstance(value, int) and not isinstance(value, bool) and value > 0, path, "a positive integer", value)
    return value


def _object(value: Any, path: str) -> dict[str, Any]:
    _expect(isinstance(value, dict), path, "an object", value)
    return value


def _list(value: Any, path: str) -> list[Any]:
    _expect(isinstance(value, list), path, "a list", value)
    return value


def _stop(value: Any, path: str) -> str | list[str]:
    if isinstance(value, str):
        return value
    return [_string(s, f"{path}[{i}]") for i, s in enumerate(_list(value, path))]


def _logit_bias(value: Any, path: str) -> dict[str, float]:
    return {k: _number(v, f"{path}.{k}") for k, v in _object(value, path).items()}


def _function(value: Any, path: str) -> dict[str, Any]:
    """A function's declaration (``tools[].function``, ``functions[]``): its name, description, JSON
    schema and ``strict``."""
    fn = _object(value, path)
    out: dict[str, Any] = {"name": _string(fn.get("name"), f"{path}.name")}
    for key, check in (("description", _string), ("parameters", _object), ("strict", _boolean)):
        if fn.get(key) is not None:
            out[key] = check(fn[key], f"{path}.{key}")
    return out


def _tools(value: Any, path: str) -> list[dict[str, Any]]:
    out = []
    for i, tool in enumerate(_list(value, path)):
        tool = _object(tool, f"{path}[{i}]")
        _expect(tool.get("type", "function") == "function", f"{path}[{i}].type", '"function"', tool.get("type"))
        out.append({"type": "function", "function": _function(tool.get("function"), f"{path}[{i}].function")})
    return out


def _functions(value: Any, path: str) -> list[dict[str, Any]]:
    return [_function(fn, f"{path}[{i}]") for i, fn in enumerate(_list(value, path))]


def _named(value: Any, path: str, modes: tuple[str, ...], *, typed: bool) -> str | dict[str, Any]:
    """``tool_choice`` / ``function_call``: a mode, or a function by name."""
    if isinstance(value, str):
        _expect(value in modes, path, " or ".join(modes) + " or a function", value)
        return value
    choice = _object(value, path)
    fn = _object(choice.get("function"), f"{path}.function") if typed else choice
    name = _string(fn.get("name"), f"{path}.function.name" if typed else f"{path}.name")
    return {"type": "function", "function": {"name": name}} if typed else {"name": name}


def _tool_choice(value: Any, path: str) -> str | dict[str, Any]:
    return _named(value, path, TOOL_CHOICES, typed=True)


def _function_call(value: Any, path: str) -> str | dict[str, Any]:
    return _named(value, path, ("none", "auto"), typed=False)


def _response_format(value: Any, path: str) -> dict[str, Any]:
    fmt = _object(value, path)
    _string(fmt.get("type"), f"{path}.type")
    return fmt


def _content(value: Any, path: str) -> str | list[dict[str, str]]:
    """A message's content: a string, or text parts. Any other part is refused: an image's or a file's
    tokens cannot be bounded before the upstream reads it."""
    if isinstance(value, str):
        return value
    parts = []
    for i, part in enumerate(_list(value, path)):
        part = _object(part, f"{path}[{i}]")
        kind = part.get("type")
        if kind != "text":
            raise RequestError(f"{path}[{i}].type: only text parts are forwarded, got {json.dumps(kind)[:80]} "
                               "(the tokens of an image, audio or file part cannot be bounded before it is sent)")
        parts.append({"type": "text", "text": _string(part.get("text"), f"{path}[{i}].text")})
    return parts


def _tool_call(value: Any, path: str) -> dict[str, Any]:
    call = _object(value, path)
    fn = _object(call.get("function"), f"{path}.function")
    arguments = fn.get("arguments", "")
    _expect(isinstance(arguments, str | dict), f"{path}.function.arguments", "a string", arguments)
    out: dict[str, Any] = {"type": "function", "function": {"name": _string(fn.get("name"), f"{path}.function.name"),
                                                            "arguments": arguments}}
    if call.get("id") is not None:
        out["id"] = _string(call["id"], f"{path}.id")
    return out


def _message(value: Any, path: str) -> dict[str, Any]:
    message = _object(value, path)
    role = message.get("role")
    _expect(role in ROLES, f"{path}.role", " or ".join(ROLES), role)
    out: dict[str, Any] = {"role": role}
    if "content" in message:
        out["content"] = None if message["content"] is None else _content(message["content"], f"{path}.content")
    for key in ("name", "tool_call_id"):
        if message.get(key) is not None:
            out[key] = _string(message[key], f"{path}.{key}")
    if message.get("tool_calls") is not None:
        out["tool_calls"] = [_tool_call(c, f"{path}.tool_calls[{i}]")
                             for i, c in enumerate(_list(message["tool_calls"], f"{path}.tool_calls"))]
    if message.get("function_call") is not None:
        call = _object(message["function_call"], f"{path}.function_call")
        out["function_call"] = {"name": _string(call.get("name"), f"{path}.function_call.name"),
                                "arguments": _string(call.get("arguments", ""), f"{path}.function_call.arguments")}
    return out


def _messages(value: Any, path: str) -> list[dict[str, Any]]:
    messages = _list(value, path)
    if not messages:
        raise RequestError(f"{path}: expected at least one message")
    return [_message(m, f"{path}[{i}]") for i, m in enumerate(messages)]


#: the fields forwarded, each with its check; anything else is dropped
FIELDS: dict[str, Any] = {
    "model": _string, "messages": _messages, "stream": _boolean, "stream_options": _object,
    "max_tokens": _positive, "max_completion_tokens": _positive, "n": _positive,
    "tools": _tools, "tool_choice": _tool_choice, "parallel_tool_calls": _boolean,
    "functions": _functions, "function_call": _function_call, "response_format": _response_format,
    "temperature": _number, "top_p": _number, "frequency_penalty": _number, "presence_penalty": _number,
    "seed": _integer, "stop": _stop, "logprobs": _boolean, "top_logprobs": _integer, "logit_bias": _logit_bias,
    "reasoning_effort": _string,
}


__all__ = ["FIELDS", "MAX_DEPTH", "PROMPT_OVERHEAD_TOKENS", "Ask", "RequestError", "Reservation", "read_request"]
