"""The Linear server: teams, workflow states, users, labels, and issues with comments."""

from servers.kit import ServerSpec
from servers.linear.state import LinearState
from servers.linear.tools import LinearTools

SPEC = ServerSpec(
    name="linear",
    description=(
        "A Linear workspace: teams with workflow states, users, labels, and issues identified like 'ENG-142'. "
        "People, teams, states and labels can be given by name."
    ),
    toolset=LinearTools,
)

__all__ = ["SPEC", "LinearState", "LinearTools"]
