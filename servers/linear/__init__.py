"""The Linear server: teams, workflow states, users, labels, and issues with comments."""

from servers.kit import ServerSpec
from servers.linear.state import LinearState
from servers.linear.tools import LinearTools

SPEC = ServerSpec(
    name="linear",
    description=(
        "A Linear workspace: teams with workflow states and cycles, users, labels, projects, and issues "
        "identified like 'ENG-142'. People, teams, states, labels, projects and cycles can be given by name "
        "(a cycle by number or 'current'); list_issues pages with pageInfo.endCursor."
    ),
    toolset=LinearTools,
)

__all__ = ["SPEC", "LinearState", "LinearTools"]
