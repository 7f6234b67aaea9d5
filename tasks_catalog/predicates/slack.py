"""Slack primitives. A channel is identified by its exact name (lowercase, without '#') or its id; a
user by its exact handle or id. A missing channel or user makes a primitive false, never an error."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from servers.slack import SlackState
from tasks_catalog.predicates._registry import Args, Name, Pattern, explains, listing, pattern, primitive, search, shown

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


class ChannelTopicMatches(Args):
    """True when channel `channel` exists, archived or not, and its topic matches regex `pattern` (search
    semantics, case-sensitive; a channel without a topic has the empty one): what a topic must say."""

    channel: ChannelRef
    pattern: Pattern


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


@primitive("slack", "channelTopicMatches", ChannelTopicMatches)
def channel_topic_matches(state: SlackState, args: ChannelTopicMatches) -> bool:
    channel = state.channel(args.channel)
    return channel is not None and search(args.pattern, channel.topic)


# -- explainers: what each clause asks and what the state held -------------------------------------

def _no_channel(state: SlackState, ref: str) -> str:
    return f"no channel named or with id {ref!r}; channels: {listing('#' + c.name for c in state.channels)}"


def _handle(state: SlackState, user_id: str) -> str:
    user = state.user(user_id)
    return user.name if user is not None else user_id


@explains("slack", "channelExists")
def _explain_channel_exists(state: SlackState, args: ChannelExists) -> tuple[str, str]:
    channel = state.channel(args.channel)
    found = _no_channel(state, args.channel) if channel is None else f"#{channel.name} ({channel.id}) exists"
    return f"a channel {args.channel!r}", found


@explains("slack", "messagePosted")
def _explain_message_posted(state: SlackState, args: MessagePosted) -> tuple[str, str]:
    by = f" by {args.user}" if args.user is not None else ""
    expected = f"a message in {args.channel!r}{by} matching {pattern(args.pattern)}"
    channel = state.channel(args.channel)
    if channel is None:
        return expected, _no_channel(state, args.channel)
    user = state.user(args.user) if args.user is not None else None
    if args.user is not None and user is None:
        return expected, f"no user named or with id {args.user!r}"
    mine = [m for m in channel.messages if user is None or m.user == user.id]
    matching = [m for m in mine if search(args.pattern, m.text)]
    last = "; ".join(f"{_handle(state, m.user)}: {shown(m.text)}" for m in channel.messages[-3:]) or "none"
    return expected, (f"{len(matching)} of the {len(mine)} messages{by} in #{channel.name} ({channel.id}) match "
                      f"{pattern(args.pattern)}; its last {min(3, len(channel.messages))} messages: {last}")


@explains("slack", "channelHasMembers")
def _explain_channel_has_members(state: SlackState, args: ChannelHasMembers) -> tuple[str, str]:
    expected = f"{listing(args.members, 20)} members of {args.channel!r}"
    channel = state.channel(args.channel)
    if channel is None:
        return expected, _no_channel(state, args.channel)
    missing = [ref for ref in args.members
               if (u := state.user(ref)) is None or u.id not in channel.members]
    return expected, (f"#{channel.name} ({channel.id}) has members {listing(_handle(state, m) for m in channel.members)}"
                      f"; not members: {listing(missing)}")


@explains("slack", "channelArchived")
def _explain_channel_archived(state: SlackState, args: ChannelArchived) -> tuple[str, str]:
    channel = state.channel(args.channel)
    if channel is None:
        return f"{args.channel!r} archived", _no_channel(state, args.channel)
    return f"{args.channel!r} archived", f"#{channel.name} ({channel.id}) is {'' if channel.is_archived else 'not '}archived"


@explains("slack", "channelTopicMatches")
def _explain_channel_topic_matches(state: SlackState, args: ChannelTopicMatches) -> tuple[str, str]:
    expected = f"the topic of {args.channel!r} matching {pattern(args.pattern)}"
    channel = state.channel(args.channel)
    if channel is None:
        return expected, _no_channel(state, args.channel)
    return expected, f"#{channel.name} ({channel.id}) has the topic {shown(channel.topic) if channel.topic else 'none'}"
