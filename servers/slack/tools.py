"""Slack tools, named and shaped after the reference Slack MCP server (list_channels, post_message,
reply_to_thread, add_reaction, get_channel_history, get_thread_replies, get_users, get_user_profile) plus
the channel management calls of Slack's conversations API and search.messages (``search_messages``).

Listings answer as Slack's Web API does: ``{"ok": true, "channels"|"messages"|"members": [...],
"response_metadata": {"next_cursor": "..."}}``; pass the cursor back for the next page. Default page sizes
are small (20 channels, 10 messages, 25 users), so a realistic workspace takes several pages.

A ``channel_id`` argument takes a channel id ("C07QK2M1") or its name ("release-train" or
"#release-train"). Private channels the agent is not a member of are invisible to it, as in Slack.
Everything the agent posts is authored by the state's ``viewer``.
"""

from __future__ import annotations

import hashlib
import re
from typing import Annotated, Any

from pydantic import Field

from servers.kit import ToolError, Toolset, tool
from servers.kit.pages import Cursor, page
from servers.slack.state import CHANNEL_NAME, TS, Channel, Message, Reaction, SlackState, ts_from_key, ts_key

ChannelRef = Annotated[str, Field(min_length=1, max_length=100, description="Channel id (C…) or name, with or without '#'")]
Ts = Annotated[str, Field(pattern=TS, description="A message timestamp, e.g. '1767268800.000100'")]
MessageText = Annotated[str, Field(min_length=1, max_length=40_000)]
Limit = Annotated[int, Field(ge=1, le=1000)]

#: The ts of the first message in an empty workspace (2026-01-01T12:00:00Z).
_EPOCH = ts_key("1767268800.000100")


class SlackTools(Toolset[SlackState]):
    state_model = SlackState

    # -- lookups -----------------------------------------------------------------------------
    def _channel(self, ref: str, *, writable: bool = False) -> Channel:
        key = ref.strip()
        key = key[1:] if key.startswith("#") else key
        channel = self.state.channel(key)
        if channel is None or not self._visible(channel):
            raise ToolError(f"unknown channel '{ref}' (list_channels shows the channels you can see)")
        if writable and channel.is_archived:
            raise ToolError(f"channel #{channel.name} is archived; unarchive it first")
        return channel

    def _visible(self, channel: Channel) -> bool:
        return not channel.is_private or self.state.viewer in channel.members

    def _user_id(self, ref: str) -> str:
        user = next((u for u in self.state.users if u.id == ref), None)
        if user is None:
            hint = " (pass user ids such as U024BE7LH; get_users lists them)" if self.state.user(ref) else ""
            raise ToolError(f"unknown user id '{ref}'{hint}")
        if user.deleted:
            raise ToolError(f"user {ref} ({user.name}) is deactivated")
        return user.id

    def _next_ts(self) -> str:
        # A channel's messages are kept in ts order (Channel's validator sorts them on every assignment, and
        # every change assigns the list): the latest of each is its last.
        latest = max((ts_key(c.messages[-1].ts) for c in self.state.channels if c.messages), default=_EPOCH - 1_000_000)
        return ts_from_key(latest + 1_000_000)

    def _new_channel_id(self, name: str) -> str:
        taken = {c.id for c in self.state.channels}
        n = 0
        while True:
            cid = "C" + hashlib.sha1(f"{name}:{n}".encode()).hexdigest()[:9].upper()
            if cid not in taken:
                return cid
            n += 1

    @staticmethod
    def _check_name(name: str) -> str:
        name = name.strip().removeprefix("#")
        if not re.match(CHANNEL_NAME, name):
            raise ToolError(
                f"invalid channel name '{name}': use lowercase letters, digits, '-' and '_', at most 80 characters"
            )
        return name

    def _message_json(self, channel: Channel, m: Message) -> dict[str, Any]:
        user = self.state.user(m.user)
        out: dict[str, Any] = {"ts": m.ts, "user": m.user, "user_name": user.name if user else None, "text": m.text}
        if m.thread_ts is not None:
            out["thread_ts"] = m.thread_ts
        else:
            replies = sum(1 for r in channel.messages if r.thread_ts == m.ts)
            if replies:
                out["reply_count"] = replies
        if m.reactions:
            out["reactions"] = [{"name": r.name, "count": len(r.users), "users": r.users} for r in m.reactions]
        return out

    def _post(self, channel: Channel, text: str, thread_ts: str | None = None) -> dict[str, Any]:
        message = Message(ts=self._next_ts(), user=self.state.viewer, text=text, thread_ts=thread_ts)
        channel.messages = [*channel.messages, message]
        out = {"ok": True, "channel": channel.id, "ts": message.ts}
        if thread_ts is not None:
            out["thread_ts"] = thread_ts
        return out

    # -- channels ----------------------------------------------------------------------------
    @tool(read_only=True)
    def list_channels(
        self,
        limit: Annotated[Limit, Field(description="Maximum number of channels per page")] = 20,
        exclude_archived: bool = False,
        cursor: Cursor | None = None,
    ) -> dict:
        """List the workspace's channels you can see (public ones, and private ones you belong to) with topic,
        purpose and member count, by name, one page at a time: pass response_metadata.next_cursor to get the
        next page (empty on the last page)."""
        out = []
        for c in sorted(self.state.channels, key=lambda c: c.name):
            if not self._visible(c) or (exclude_archived and c.is_archived):
                continue
            out.append({"id": c.id, "name": c.name, "is_private": c.is_private, "is_archived": c.is_archived,
                        "topic": c.topic, "purpose": c.purpose, "num_members": len(c.members)})
        chunk, next_cursor = page(out, f"channels:{exclude_archived}", cursor, limit)
        return {"ok": True, "channels": chunk, "response_metadata": {"next_cursor": next_cursor}}

    @tool()
    def create_channel(
        self,
        name: Annotated[str, Field(min_length=1, max_length=81, description="Lowercase name, e.g. 'incident-2041'")],
        is_private: bool = False,
    ) -> dict:
        """Create a channel; you become its creator and first member."""
        name = self._check_name(name)
        if self.state.channel(name) is not None:
            raise ToolError(f"name_taken: a channel named #{name} already exists (possibly archived)")
        channel = Channel(id=self._new_channel_id(name), name=name, is_private=is_private,
                          creator=self.state.viewer, members=[self.state.viewer])
        self.state.channels = [*self.state.channels, channel]
        return {"ok": True, "channel": {"id": channel.id, "name": channel.name, "is_private": is_private}}

    @tool(destructive=True)
    def archive_channel(self, channel_id: ChannelRef) -> str:
        """Archive a channel: it keeps its history and members but accepts no new messages."""
        channel = self._channel(channel_id)
        if channel.is_archived:
            raise ToolError(f"already_archived: #{channel.name} is already archived")
        channel.is_archived = True
        return f"Archived #{channel.name} ({channel.id})"

    @tool()
    def unarchive_channel(self, channel_id: ChannelRef) -> str:
        """Bring an archived channel back into use."""
        channel = self._channel(channel_id)
        if not channel.is_archived:
            raise ToolError(f"not_archived: #{channel.name} is not archived")
        channel.is_archived = False
        return f"Unarchived #{channel.name} ({channel.id})"

    @tool(destructive=True)
    def rename_channel(self, channel_id: ChannelRef,
                       name: Annotated[str, Field(min_length=1, max_length=81, description="The new name")]) -> str:
        """Rename a channel (its id, members and history stay)."""
        channel = self._channel(channel_id, writable=True)
        new = self._check_name(name)
        other = self.state.channel(new)
        if other is not None and other.id != channel.id:
            raise ToolError(f"name_taken: a channel named #{new} already exists")
        old, channel.name = channel.name, new
        return f"Renamed #{old} to #{new} ({channel.id})"

    @tool(destructive=True)
    def set_channel_topic(self, channel_id: ChannelRef, topic: Annotated[str, Field(max_length=250)]) -> str:
        """Set a channel's topic (shown in the channel header); an empty string clears it."""
        channel = self._channel(channel_id, writable=True)
        channel.topic = topic
        return f"Set the topic of #{channel.name}"

    @tool(idempotent=True)
    def invite_to_channel(
        self,
        channel_id: ChannelRef,
        users: Annotated[list[str], Field(min_length=1, max_length=100, description="User ids, e.g. ['U024BE7LH']")],
    ) -> dict:
        """Add users (by id) to a channel. Users already in it are reported, not an error."""
        channel = self._channel(channel_id, writable=True)
        ids = [self._user_id(u) for u in users]
        added = [u for u in dict.fromkeys(ids) if u not in channel.members]
        channel.members = [*channel.members, *added]
        return {"ok": True, "channel": channel.id, "added": added,
                "already_in_channel": [u for u in dict.fromkeys(ids) if u not in added]}

    @tool(destructive=True)
    def kick_from_channel(self, channel_id: ChannelRef,
                          user_id: Annotated[str, Field(min_length=1, description="The id of the user to remove")]) -> str:
        """Remove a user (by id) from a channel."""
        channel = self._channel(channel_id, writable=True)
        uid = self._user_id(user_id)
        if uid not in channel.members:
            raise ToolError(f"not_in_channel: {uid} is not a member of #{channel.name}")
        channel.members = [m for m in channel.members if m != uid]
        return f"Removed {uid} from #{channel.name}"

    # -- messages ----------------------------------------------------------------------------
    @tool()
    def post_message(self, channel_id: ChannelRef, text: MessageText) -> dict:
        """Post a new message to a channel; returns its ts."""
        return self._post(self._channel(channel_id, writable=True), text)

    @tool()
    def reply_to_thread(
        self,
        channel_id: ChannelRef,
        thread_ts: Annotated[str, Field(pattern=TS, description="ts of the message to reply to")],
        text: MessageText,
    ) -> dict:
        """Reply in the thread of a top-level message."""
        channel = self._channel(channel_id, writable=True)
        parent = channel.message(thread_ts)
        if parent is None:
            raise ToolError(f"message_not_found: no message with ts {thread_ts} in #{channel.name}")
        return self._post(channel, text, parent.thread_ts or parent.ts)

    @tool(idempotent=True)
    def add_reaction(
        self,
        channel_id: ChannelRef,
        timestamp: Ts,
        reaction: Annotated[str, Field(min_length=1, max_length=100, description="Emoji name, e.g. 'white_check_mark'")],
    ) -> str:
        """Add an emoji reaction (as you) to a message."""
        channel = self._channel(channel_id, writable=True)
        message = channel.message(timestamp)
        if message is None:
            raise ToolError(f"message_not_found: no message with ts {timestamp} in #{channel.name}")
        name = reaction.strip().strip(":")
        if not re.match(r"^[a-z0-9_+'-]{1,100}$", name):
            raise ToolError(f"invalid_name: '{reaction}' is not an emoji name")
        me = self.state.viewer
        existing = next((r for r in message.reactions if r.name == name), None)
        if existing is not None and me in existing.users:
            raise ToolError(f"already_reacted: you already reacted with :{name}: to {timestamp}")
        if existing is None:
            message.reactions = [*message.reactions, Reaction(name=name, users=[me])]
        else:
            existing.users = [*existing.users, me]
        return f"Added :{name}: to {timestamp} in #{channel.name}"

    @tool(destructive=True)
    def delete_message(self, channel_id: ChannelRef, ts: Ts) -> str:
        """Delete one of your own messages. A message that starts a thread with replies cannot be deleted."""
        channel = self._channel(channel_id)
        message = channel.message(ts)
        if message is None:
            raise ToolError(f"message_not_found: no message with ts {ts} in #{channel.name}")
        if message.user != self.state.viewer:
            raise ToolError(f"cant_delete_message: {ts} was posted by someone else")
        if any(m.thread_ts == ts for m in channel.messages):
            raise ToolError(f"cant_delete_message: {ts} starts a thread with replies")
        channel.messages = [m for m in channel.messages if m.ts != ts]
        return f"Deleted {ts} from #{channel.name}"

    @tool(read_only=True)
    def get_channel_history(self, channel_id: ChannelRef, limit: Limit = 10, cursor: Cursor | None = None) -> dict:
        """The top-level messages of a channel, newest first, with reply counts and reactions, one page at a
        time: pass response_metadata.next_cursor for older messages (has_more says whether there are any)."""
        channel = self._channel(channel_id)
        top = [m for m in reversed(channel.messages) if m.thread_ts is None]
        chunk, next_cursor = page(top, f"history:{channel.id}", cursor, limit)
        return {"ok": True, "channel": channel.id, "messages": [self._message_json(channel, m) for m in chunk],
                "has_more": bool(next_cursor), "response_metadata": {"next_cursor": next_cursor}}

    @tool(read_only=True)
    def get_thread_replies(self, channel_id: ChannelRef, thread_ts: Ts, limit: Limit = 50,
                           cursor: Cursor | None = None) -> dict:
        """A thread: its parent message then every reply, oldest first, one page at a time."""
        channel = self._channel(channel_id)
        parent = channel.message(thread_ts)
        if parent is None or parent.thread_ts is not None:
            raise ToolError(f"thread_not_found: no top-level message with ts {thread_ts} in #{channel.name}")
        thread = [m for m in channel.messages if m.ts == thread_ts or m.thread_ts == thread_ts]
        chunk, next_cursor = page(thread, f"replies:{channel.id}:{thread_ts}", cursor, limit)
        return {"ok": True, "channel": channel.id, "messages": [self._message_json(channel, m) for m in chunk],
                "has_more": bool(next_cursor), "response_metadata": {"next_cursor": next_cursor}}

    @tool(read_only=True)
    def search_messages(
        self,
        query: Annotated[str, Field(min_length=1, max_length=500, description=(
            "Words that must all occur (case-insensitive), optionally with in:#channel and from:@handle"))],
        limit: Limit = 20,
        cursor: Cursor | None = None,
    ) -> dict:
        """Search the messages of the channels you can see, newest first, as Slack's search does: every word
        must occur in the text; 'in:#channel' and 'from:@handle' narrow the search. Replies are included
        (they carry thread_ts)."""
        words, channels, authors = [], None, None
        for token in query.split():
            if token.startswith("in:"):
                channels = {self._channel(token[3:]).id}
            elif token.startswith("from:"):
                who = self.state.user(token[5:].lstrip("@"))
                if who is None:
                    raise ToolError(f"unknown user '{token[5:]}' in from: (use a handle such as @maria.santos)")
                authors = {who.id}
            else:
                words.append(token.lower())
        matches = []
        for c in self.state.channels:
            if not self._visible(c) or (channels is not None and c.id not in channels):
                continue
            for m in c.messages:
                if authors is not None and m.user not in authors:
                    continue
                text = m.text.lower()
                if all(w in text for w in words):
                    matches.append((c, m))
        matches.sort(key=lambda cm: ts_key(cm[1].ts), reverse=True)
        chunk, next_cursor = page(matches, f"search:{query}", cursor, limit)
        return {"ok": True, "query": query, "total": len(matches),
                "matches": [{"channel": {"id": c.id, "name": c.name}, **self._message_json(c, m)} for c, m in chunk],
                "response_metadata": {"next_cursor": next_cursor}}

    # -- users -------------------------------------------------------------------------------
    @tool(read_only=True)
    def get_users(self, limit: Limit = 25, include_deactivated: bool = False, cursor: Cursor | None = None) -> dict:
        """List the workspace's users with id, handle, real name, title, email and time zone, one page at a time:
        pass response_metadata.next_cursor for the next page (empty on the last page)."""
        users = [u.model_dump(mode="json") for u in self.state.users if include_deactivated or not u.deleted]
        chunk, next_cursor = page(users, f"users:{include_deactivated}", cursor, limit)
        return {"ok": True, "members": chunk, "response_metadata": {"next_cursor": next_cursor}}

    @tool(read_only=True)
    def get_user_profile(self, user_id: Annotated[str, Field(min_length=1, description="User id (U…) or handle")]) -> dict:
        """One user's profile: id, handle, real name, title, email, time zone, and whether deactivated."""
        user = self.state.user(user_id.strip().lstrip("@"))
        if user is None:
            raise ToolError(f"user_not_found: no user with id or handle '{user_id}'")
        return {"ok": True, "user": user.model_dump(mode="json")}
