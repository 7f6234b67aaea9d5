"""Filesystem state: the text files and directories under the workspace root."""

from __future__ import annotations

import posixpath
import re
from typing import ClassVar

from pydantic import Field, field_validator, model_validator

from servers.kit import ServerState

_SEGMENT = re.compile(r"^[^/\x00]+$")


def normalise_path(path: str) -> str:
    """A workspace path in canonical form: relative, POSIX, no ``.``/``..`` segments, no trailing slash."""
    if not isinstance(path, str) or not path:
        raise ValueError("a path must be a non-empty string")
    if path.startswith("/"):
        raise ValueError(f"path {path!r} is absolute; paths are relative to the workspace root")
    if "\\" in path or "\x00" in path:
        raise ValueError(f"path {path!r} contains a backslash or NUL")
    norm = posixpath.normpath(path)
    if norm == "." :
        return "."
    if norm == ".." or norm.startswith("../"):
        raise ValueError(f"path {path!r} leaves the workspace root")
    return norm


class FilesystemState(ServerState):
    """``files`` maps a relative path to its UTF-8 text; ``directories`` lists every directory
    (including empty ones and the parents of files), relative to the root, sorted."""

    world_generator: ClassVar[str] = "filesystem"

    files: dict[str, str] = Field(default_factory=dict)
    directories: list[str] = Field(default_factory=list)

    @field_validator("files")
    @classmethod
    def _paths_are_canonical(cls, files: dict[str, str]) -> dict[str, str]:
        for path in files:
            if normalise_path(path) != path or path == ".":
                raise ValueError(f"file path {path!r} is not canonical (relative, no '.', '..' or '//')")
        return dict(sorted(files.items()))

    @model_validator(mode="after")
    def _directories_cover_files(self) -> FilesystemState:
        dirs = set()
        for d in self.directories:
            if normalise_path(d) != d or d == ".":
                raise ValueError(f"directory {d!r} is not canonical")
            dirs.add(d)
        for path in self.files:
            parent = posixpath.dirname(path)
            while parent:
                dirs.add(parent)
                parent = posixpath.dirname(parent)
        clash = dirs & set(self.files)
        if clash:
            raise ValueError(f"{sorted(clash)[0]!r} is both a file and a directory")
        object.__setattr__(self, "directories", sorted(dirs))
        return self
