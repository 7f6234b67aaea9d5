"""The filesystem server: a real directory, confined to its root."""

from servers.filesystem.state import FilesystemState
from servers.filesystem.tools import FilesystemTools
from servers.kit import ServerSpec

SPEC = ServerSpec(
    name="filesystem",
    description="A workspace of text files and directories. Paths are relative to the workspace root.",
    toolset=FilesystemTools,
)

__all__ = ["SPEC", "FilesystemState", "FilesystemTools"]
