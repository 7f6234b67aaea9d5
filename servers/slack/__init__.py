"""The Slack server: a workspace's users and channels, with members, messages, threads and reactions."""

from servers.kit import ServerSpec
from servers.slack.state import SlackState
from servers.slack.tools import SlackTools

SPEC = ServerSpec(
    name="slack",
    description=(
        "A Slack workspace: channels (public and private), their members and messages, threads and "
        "reactions, and the workspace's users. Channels are addressed by id or name; users by id."
    ),
    toolset=SlackTools,
)

__all__ = ["SPEC", "SlackState", "SlackTools"]
