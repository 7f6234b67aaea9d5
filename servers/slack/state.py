"""Slack state: one workspace's users and channels, each channel with its members and messages.

Ids follow Slack's shapes: users ``U…``, channels ``C…`` (uppercase letters and digits); names and
handles are lowercase, so an id never equals a name. A message is identified by its channel and its
``ts`` ("1767268800.000100"); a thread reply carries the ``thread_ts`` of its parent.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field, model_validator

from servers.kit import Model, ServerState

USER_ID = r"^[UW][A-Z0-9]{2,20}$"
CHANNEL_ID = r"^[CG][A-Z0-9]{2,20}$"
CHANNEL_NAME = r"^[a-z0-9][a-z0-9_-]{0,79}$"
HANDLE = r"^[a-z0-9][a-z0-9._-]{0,79}$"
TS = r"^\d{10}\.\d{6}$"


def ts_key(ts: str) -> int:
    """A message timestamp as microseconds, for ordering."""
    seconds, _, micros = ts.partition(".")
    return int(seconds) * 1_000_000 + int(micros)


def ts_from_key(key: int) -> str:
    return f"{key // 1_000_000}.{key % 1_000_000:06d}"


class User(Model):
    id: str = Field(pattern=USER_ID)
    name: str = Field(pattern=HANDLE, description="The handle, e.g. 'maria.santos'")
    real_name: str = ""
    title: str = ""
    email: str | None = None
    tz: str = "UTC"
    is_bot: bool = False
    deleted: bool = False


class Reaction(Model):
    name: str = Field(pattern=r"^[a-z0-9_+'-]{1,100}$", description="Emoji name without colons")
    users: list[str] = Field(min_length=1)


class Message(Model):
    ts: str = Field(pattern=TS)
    user: str = Field(pattern=USER_ID)
    text: str
    thread_ts: str | None = Field(default=None, pattern=TS, description="Parent's ts, for a thread reply")
    reactions: list[Reaction] = Field(default_factory=list)


class Channel(Model):
    id: str = Field(pattern=CHANNEL_ID)
    name: str = Field(pattern=CHANNEL_NAME)
    is_private: bool = False
    is_archived: bool = False
    topic: str = ""
    purpose: str = ""
    creator: str | None = Field(default=None, pattern=USER_ID)
    members: list[str] = Field(default_factory=list)
    messages: list[Message] = Field(default_factory=list, description="Chronological, replies included")

    @model_validator(mode="after")
    def _messages_consistent(self) -> Channel:
        if len(self.members) != len(set(self.members)):
            raise ValueError(f"#{self.name}: a member is listed twice")
        ordered = sorted(self.messages, key=lambda m: ts_key(m.ts))
        stamps = [m.ts for m in ordered]
        if len(stamps) != len(set(stamps)):
            raise ValueError(f"#{self.name}: two messages share a ts")
        parents = {m.ts for m in ordered if m.thread_ts is None}
        for m in ordered:
            if m.thread_ts is not None and m.thread_ts not in parents:
                raise ValueError(f"#{self.name}: reply {m.ts} names thread_ts {m.thread_ts}, which is no top-level message")
        object.__setattr__(self, "messages", ordered)
        return self

    def message(self, ts: str) -> Message | None:
        return next((m for m in self.messages if m.ts == ts), None)


class SlackState(ServerState):
    """``viewer`` is the id of the user the agent acts as (the author of what it posts)."""

    world_generator: ClassVar[str] = "slack"

    viewer: str = Field(default="UBOT0001", pattern=USER_ID)
    users: list[User] = Field(default_factory=lambda: [User(id="UBOT0001", name="mcpbench-bot", is_bot=True)])
    channels: list[Channel] = Field(default_factory=list)

    @model_validator(mode="after")
    def _references_resolve(self) -> SlackState:
        ids = [u.id for u in self.users]
        if len(ids) != len(set(ids)):
            raise ValueError("two users share an id")
        handles = [u.name for u in self.users]
        if len(handles) != len(set(handles)):
            raise ValueError("two users share a handle")
        known = set(ids)
        if self.viewer not in known:
            raise ValueError(f"viewer {self.viewer!r} is not among the users")
        if len({c.id for c in self.channels}) != len(self.channels):
            raise ValueError("two channels share an id")
        if len({c.name for c in self.channels}) != len(self.channels):
            raise ValueError("two channels share a name")
        for c in self.channels:
            for who in [*c.members, *(m.user for m in c.messages), *(u for m in c.messages for r in m.reactions for u in r.users)]:
                if who not in known:
                    raise ValueError(f"#{c.name} refers to unknown user {who!r}")
        return self

    def user(self, ref: str) -> User | None:
        """The user whose id or handle is ``ref``."""
        return next((u for u in self.users if ref in (u.id, u.name)), None)

    def channel(self, ref: str) -> Channel | None:
        """The channel whose id or name is ``ref``."""
        return next((c for c in self.channels if ref in (c.id, c.name)), None)
