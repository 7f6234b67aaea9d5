"""An Anthropic Messages API upstream behind the model gateway's chat-completions face.

Agents always speak OpenAI chat completions to the gateway. When the operator's upstream is the
Anthropic Messages API (``MCPBENCH_MODEL_UPSTREAM_API=anthropic``), the gateway translates each request
to ``POST {upstream}/messages`` and the answer back, tools included:

=====================================  ==========================================================
chat completions                       Anthropic Messages
=====================================  ==========================================================
``system`` / ``developer`` messages    ``system`` (joined)
assistant ``tool_calls``               ``tool_use`` blocks (arguments parsed; not an object: ``{}``)
``tool`` messages                      ``tool_result`` blocks in a user turn
``tools[].function``                   ``tools[]`` with ``input_schema``
``tool_choice`` auto / none /          ``{"type": "auto" | "none" | "any" | "tool"}``
required / a named function
``max_tokens`` (required there)        ``max_tokens``, default ``DEFAULT_MAX_TOKENS``
``stop``                               ``stop_sequences``
``stop_reason`` end_turn, tool_use,    ``finish_reason`` stop, tool_calls, length, stop
max_tokens, stop_sequence
``usage`` input / output tokens        ``usage`` prompt / completion tokens
=====================================  ==========================================================

The upstream is always asked for a whole answer; a client that asked for a stream gets the translated
answer as a chat-completion event stream (so the built-in agent and the standard clients work
unchanged), without token-by-token latency. The key is sent as ``x-api-key``, with
``anthropic-version``.
"""

from __future__ import annotations

import json
from typing import Any

#: the Messages API version the translation follows
ANTHROPIC_VERSION = "2023-06-01"
#: ``max_tokens`` when the chat request names none (the Messages API requires one)
DEFAULT_MAX_TOKENS = 4096
FINISH_REASONS = {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_calls", "max_tokens": "length",
                  "pause_turn": "stop", "refusal": "content_filter"}


def headers(key: str) -> dict[str, str]:
    out = {"Content-Type": "application/json", "anthropic-version": ANTHROPIC_VERSION}
    if key:
        out["x-api-key"] = key
    return out


def _text(content: Any) -> str:
    """A chat message's content as text (a string, or a list of text parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text") or "" for p in content if isinstance(p, dict) and p.get("type") == "text")
    return ""


def _input(arguments: Any) -> dict[str, Any]:
    if isinstance(arguments, dict):
        return arguments
    try:
        value = json.loads(arguments) if isinstance(arguments, str) else None
    except json.JSONDecodeError:
        value = None
    return value if isinstance(value, dict) else {}


def _blocks(message: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    role = message.get("role")
    if role == "tool":
        return "user", [{"type": "tool_result", "tool_use_id": str(message.get("tool_call_id") or ""),
                         "content": _text(message.get("content"))}]
    blocks: list[dict[str, Any]] = []
    if text := _text(message.get("content")):
        blocks.append({"type": "text", "text": text})
    if role == "assistant":
        for call in message.get("tool_calls") or []:
            fn = call.get("function") or {}
            blocks.append({"type": "tool_use", "id": str(call.get("id") or ""), "name": str(fn.get("name") or ""),
                           "input": _input(fn.get("arguments"))})
        return "assistant", blocks
    return "user", blocks


def to_messages_request(chat: dict[str, Any]) -> dict[str, Any]:
    """A chat-completions request as a Messages API request (never streamed)."""
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    for message in chat.get("messages") or []:
        if not isinstance(message, dict):
            continue
        if message.get("role") in ("system", "developer"):
            system.append(_text(message.get("content")))
            continue
        role, blocks = _blocks(message)
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:  # the Messages API alternates roles: merge a run of one role
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    asked = chat.get("max_tokens") or chat.get("max_completion_tokens")
    out: dict[str, Any] = {"model": chat.get("model", ""), "messages": turns,
                           "max_tokens": asked if isinstance(asked, int) and asked > 0 else DEFAULT_MAX_TOKENS}
    if system:
        out["system"] = "\n\n".join(s for s in system if s)
    tools = [t.get("function") or {} for t in chat.get("tools") or [] if isinstance(t, dict)]
    if tools:
        out["tools"] = [{"name": f.get("name", ""), "description": f.get("description") or "",
                         "input_schema": f.get("parameters") or {"type": "object", "properties": {}}} for f in tools]
    choice = chat.get("tool_choice")
    if isinstance(choice, dict):
        out["tool_choice"] = {"type": "tool", "name": (choice.get("function") or {}).get("name", "")}
    elif choice in ("auto", "none"):
        out["tool_choice"] = {"type": choice}
    elif choice == "required":
        out["tool_choice"] = {"type": "any"}
    for key in ("temperature", "top_p"):
        if key in chat:
            out[key] = chat[key]
    stop = chat.get("stop")
    if stop:
        out["stop_sequences"] = [stop] if isinstance(stop, str) else list(stop)
    return out


def to_chat_completion(body: bytes, model: str) -> bytes:
    """A Messages API answer as a chat completion; an answer that is not one is passed on unchanged (the
    gateway then counts it, as for any upstream, as an answer that is not a chat completion)."""
    try:
        data = json.loads(body)
        blocks = data["content"]
        text = "".join(b.get("text") or "" for b in blocks if b.get("type") == "text")
        calls = [{"id": b.get("id") or f"call_{i}", "type": "function",
                  "function": {"name": b.get("name") or "", "arguments": json.dumps(b.get("input") or {})}}
                 for i, b in enumerate(blocks) if b.get("type") == "tool_use"]
    except (ValueError, KeyError, TypeError, AttributeError):
        return body
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = calls
    out: dict[str, Any] = {
        "id": data.get("id") or "chatcmpl-anthropic", "object": "chat.completion", "model": data.get("model") or model,
        "choices": [{"index": 0, "message": message,
                     "finish_reason": FINISH_REASONS.get(data.get("stop_reason"), "stop")}]}
    usage = data.get("usage")
    if isinstance(usage, dict) and isinstance(usage.get("input_tokens"), int) and isinstance(usage.get("output_tokens"), int):
        prompt = usage["input_tokens"] + sum(v for k, v in usage.items()
                                             if k.startswith("cache_") and k.endswith("_tokens") and isinstance(v, int))
        out["usage"] = {"prompt_tokens": prompt, "completion_tokens": usage["output_tokens"],
                        "total_tokens": prompt + usage["output_tokens"]}
    return json.dumps(out).encode()


def to_chat_error(body: bytes) -> bytes:
    """An Anthropic error body (``{"type": "error", "error": {type, message}}``) in OpenAI's shape."""
    try:
        error = json.loads(body)["error"]
        kind, message = str(error.get("type") or "upstream_error"), str(error.get("message") or "")
    except (ValueError, KeyError, TypeError, AttributeError):
        return body
    return json.dumps({"error": {"type": kind, "code": kind, "message": message}}).encode()


def as_event_stream(completion: bytes) -> bytes:
    """A whole chat completion as the chunks of a chat-completion event stream, then ``[DONE]``."""
    data = json.loads(completion)
    choice = data["choices"][0]
    message = choice["message"]
    base = {"id": data.get("id"), "object": "chat.completion.chunk", "model": data.get("model")}

    def event(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
        chunk = {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}
        return f"data: {json.dumps(chunk)}\n\n".encode()

    out = event({"role": "assistant", "content": message.get("content") or ""})
    for i, call in enumerate(message.get("tool_calls") or []):
        out += event({"tool_calls": [{"index": i, **call}]})
    out += event({}, choice.get("finish_reason"))
    if "usage" in data:
        out += f"data: {json.dumps({**base, 'choices': [], 'usage': data['usage']})}\n\n".encode()
    return out + b"data: [DONE]\n\n"


__all__ = ["ANTHROPIC_VERSION", "DEFAULT_MAX_TOKENS", "as_event_stream", "headers", "to_chat_completion",
           "to_chat_error", "to_messages_request"]
