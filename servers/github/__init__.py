"""The GitHub server: repositories (branches, files, commits), issues and pull requests."""

from servers.github.state import GithubState
from servers.github.tools import GithubTools
from servers.kit import ServerSpec

SPEC = ServerSpec(
    name="github",
    description=(
        "GitHub repositories you can see: branches with files and commits, issues and pull requests. "
        "Address a repository by owner and repo name; find them with search_repositories."
    ),
    toolset=GithubTools,
)

__all__ = ["SPEC", "GithubState", "GithubTools"]
