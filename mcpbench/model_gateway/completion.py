"""Reading a chat completion, whole or streamed, into one ``Completion``: the text, the tool calls the
model emitted (arguments as the raw string it wrote), the finish reason and the usage block.

Shared by the model gateway (which meters and records what passed through it) and the built-in
``openai`` agent (which acts on it), so both read a stream the same way.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any


@dataclass
class EmittedCall:
    """One tool call as the model emitted it."""

    id: str = ""
    name: str = ""
    arguments: str = ""  # the raw text; may not be JSON at all

    def parsed_arguments(self) -> tuple[dict[str, Any] | None, str | None]:
        """``(arguments, None)`` when they are a JSON object, else ``(None, why not)``."""
        text = self.arguments.strip() or "{}"
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            return None, f"the arguments are not valid JSON ({exc.msg} at character {exc.pos})"
        if not isinstance(value, dict):
            return None, f"the arguments are JSON but not an object (a {type(value).__name__})"
        return value, None


@dataclass
class Completion:
    content: str = ""
    calls: list[EmittedCall] = field(default_factory=list)
    finish_reason: str | None = None
    usage: dict[str, int] | None = None
    chunks: int = 0  # stream events that were chat-completion chunks
    malformed: str | None = None  # why the answer is not a chat completion, if it is not

    def message(self) -> dict[str, Any]:
        """The assistant message to echo back: content never null, tool calls with their ids."""
        out: dict[str, Any] = {"role": "assistant", "content": self.content or ""}
        if self.calls:
            out["tool_calls"] = [{"id": c.id, "type": "function",
                                  "function": {"name": c.name, "arguments": c.arguments}} for c in self.calls]
        return out

    # -- whole responses ---------------------------------------------------------------------
    @classmethod
    def from_body(cls, body: bytes | str) -> Completion:
        try:
            data = json.loads(body)
        except (json.JSONDecodeError, UnicodeDecodeError):
            return cls(malformed=f"the answer is not JSON: {_clip(body)}")
        done = cls()
        try:
            message = data["choices"][0]["message"]
            done.content = message.get("content") or ""
            for call in message.get("tool_calls") or []:
                fn = call.get("function") or {}
                args = fn.get("arguments")
                done.calls.append(EmittedCall(id=call.get("id") or "", name=str(fn.get("name") or ""),
                                              arguments=args if isinstance(args, str) else json.dumps(args)))
            done.finish_reason = data["choices"][0].get("finish_reason")
        except (KeyError, IndexError, TypeError, AttributeError):
            done.malformed = f"the answer is not a chat completion: {_clip(body)}"
        done._take_usage(data)
        return done

    # -- streams -----------------------------------------------------------------------------
    def feed_event(self, payload: str) -> None:
        """One server-sent event's data (``[DONE]`` ends the stream)."""
        if payload.strip() == "[DONE]":
            return
        try:
            data = json.loads(payload)
        except json.JSONDecodeError:
            self.malformed = self.malformed or f"a stream event is not JSON: {_clip(payload)}"
            return
        if not isinstance(data, dict):
            self.malformed = self.malformed or f"a stream event is not an object: {_clip(payload)}"
            return
        self._take_usage(data)
        choices = data.get("choices")
        if not isinstance(choices, list):
            if "error" in data:
                self.malformed = self.malformed or f"the stream carried an error: {_clip(payload)}"
            return
        self.chunks += 1
        for choice in choices[:1]:
            delta = choice.get("delta") or choice.get("message") or {}
            self.content += delta.get("content") or ""
            for part in delta.get("tool_calls") or []:
                index = part.get("index", len(self.calls))
                while len(self.calls) <= index:
                    self.calls.append(EmittedCall())
                call = self.calls[index]
                call.id = part.get("id") or call.id
                fn = part.get("function") or {}
                call.name += fn.get("name") or ""
                args = fn.get("arguments")
                call.arguments += args if isinstance(args, str) else (json.dumps(args) if args else "")
            if choice.get("finish_reason"):
                self.finish_reason = choice["finish_reason"]

    def finish_stream(self) -> None:
        if self.chunks == 0 and self.malformed is None:
            self.malformed = "the stream held no chat-completion chunk"

    def _take_usage(self, data: Any) -> None:
        usage = data.get("usage") if isinstance(data, dict) else None
        if isinstance(usage, dict):
            prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
            if isinstance(prompt, int) and isinstance(completion, int):
                self.usage = {"prompt_tokens": prompt, "completion_tokens": completion}


class EventStream:
    """Splits server-sent-event bytes, as they arrive, into each event's data."""

    def __init__(self) -> None:
        self._buffer = b""

    def feed(self, chunk: bytes) -> list[str]:
        self._buffer += chunk.replace(b"\r\n", b"\n")
        events = []
        while b"\n\n" in self._buffer:
            block, self._buffer = self._buffer.split(b"\n\n", 1)
            data = [line[5:].lstrip() for line in block.decode(errors="replace").split("\n") if line.startswith("data:")]
            if data:
                events.append("\n".join(data))
        return events

    def close(self) -> list[str]:
        rest, self._buffer = self._buffer, b""
        return self.feed(rest + b"\n\n") if rest.strip() else []


def estimate_tokens(text: str) -> int:
    """A deterministic count for when the upstream reports no usage: about four characters a token."""
    return math.ceil(len(text) / 4)


def _clip(text: bytes | str, n: int = 300) -> str:
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    return text[:n]


__all__ = ["Completion", "EmittedCall", "EventStream", "estimate_tokens"]
