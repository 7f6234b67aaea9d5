"""Slack primitives. A channel is identified by its exact name (lowercase, without '#') or its id; a
user by its exact handle or id. A missing channel or user makes a primitive false, never an error."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from servers.slack import SlackState
from tasks_catalog.predicates._registry import Args, Name, Pattern, primitive, search

ChannelRef = Annotated[str, Field(min_length=1, description="Channel name without '#', or channel id; exact")]


class ChannelExists(Args):
    """True when a channel whose name or id equals `channel` exists, archived or not (exact,
    case-sensitive; a leading '#' is not part of a name)."""

    channel: ChannelRef


class MessagePosted(Args):
    """True when channel `channel` has a message, top-level or thread reply, whose text matches regex
    `pattern` (search semantics, case-sensitive), and, when `user` is given, which was posted by the
    user whose handle or id equals `user`. Messages in archived channels count."""

    channel: ChannelRef
    pattern: Pattern
    user: Name | None = None


class ChannelHasMembers(Args):
    """True when channel `channel` exists and every entry of `members` (a user handle or id) names a
    user who is a member of it (other members may be there too; an empty list only needs the channel)."""

    channel: ChannelRef
    members: list[Name]


class ChannelArchived(Args):
    """True when channel `channel` exists and is archived."""

    channel: ChannelRef


@primitive("slack", "channelExists", ChannelExists)
def channel_exists(state: SlackState, args: ChannelExists) -> bool:
    return state.channel(args.channel) is not None


@primitive("slack", "messagePosted", MessagePosted)
def message_posted(state: SlackState, args: MessagePosted) -> bool:
    channel = state.channel(args.channel)
    if channel is None:
        return False
    author = None
    if args.user is not None:
        user = state.user(args.user)
        if user is None:
            return False
        author = user.id
    return any(search(args.pattern, m.text) for m in channel.messages if author is None or m.user == author)


@primitive("slack", "channelHasMembers", ChannelHasMembers)
def channel_has_members(state: SlackState, args: ChannelHasMembers) -> bool:
    channel = state.channel(args.channel)
    if channel is None:
        return False
    for ref in args.members:
        user = state.user(ref)
        if user is None or user.id not in channel.members:
            return False
    return True


@primitive("slack", "channelArchived", ChannelArchived)
def channel_archived(state: SlackState, args: ChannelArchived) -> bool:
    channel = state.channel(args.channel)
    return channel is not None and channel.is_archived
