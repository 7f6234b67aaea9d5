"""Filesystem primitives. Paths are workspace-relative and canonical (as in the state's ``files``)."""

from __future__ import annotations

import posixpath

from servers.filesystem import FilesystemState
from tasks_catalog.predicates._registry import Args, Name, Pattern, primitive, search


class FileExists(Args):
    """True when a regular file exists at `path` (a directory at that path does not count)."""

    path: Name


class FileContentMatches(Args):
    """True when the file at `path` exists and its full text matches regex `pattern` (search semantics)."""

    path: Name
    pattern: Pattern


class DirectoryHasFiles(Args):
    """True when directory `path` exists and directly contains a file named each of `files` (base names;
    other files may be there too). `path` "." is the workspace root."""

    path: Name
    files: list[Name]


@primitive("filesystem", "fileExists", FileExists)
def file_exists(state: FilesystemState, args: FileExists) -> bool:
    return args.path in state.files


@primitive("filesystem", "fileContentMatches", FileContentMatches)
def file_content_matches(state: FilesystemState, args: FileContentMatches) -> bool:
    return search(args.pattern, state.files.get(args.path))


@primitive("filesystem", "directoryHasFiles", DirectoryHasFiles)
def directory_has_files(state: FilesystemState, args: DirectoryHasFiles) -> bool:
    if args.path != "." and args.path not in state.directories:
        return False
    prefix = "" if args.path == "." else args.path
    return all(posixpath.join(prefix, name) in state.files for name in args.files)
