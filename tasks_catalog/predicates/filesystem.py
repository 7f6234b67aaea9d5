"""Filesystem primitives. Paths are workspace-relative and canonical (as in the state's ``files``)."""

from __future__ import annotations

import posixpath

from servers.filesystem import FilesystemState
from tasks_catalog.predicates._registry import Args, Name, Pattern, explains, listing, pattern, primitive, search, shown


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


# -- explainers: what each clause asks and what the state held -------------------------------------

def _names_in(state: FilesystemState, folder: str) -> list[str]:
    """The base names of the files directly in ``folder`` ("" or "." for the workspace root)."""
    folder = "" if folder == "." else folder
    return [posixpath.basename(p) for p in state.files if posixpath.dirname(p) == folder]


def _no_file(state: FilesystemState, path: str) -> str:
    if path in state.directories:
        return f"{path} is a directory, not a file"
    folder = posixpath.dirname(path)
    where = folder if folder in state.directories else "the workspace root" if not folder else None
    if where is None:
        return f"no file at {path}, and no directory {folder}"
    return f"no file at {path}; files in {where}: {listing(_names_in(state, folder))}"


@explains("filesystem", "fileExists")
def _explain_file_exists(state: FilesystemState, args: FileExists) -> tuple[str, str]:
    found = _no_file(state, args.path) if args.path not in state.files else \
        f"{args.path} is a file of {len(state.files[args.path])} characters"
    return f"a file at {args.path}", found


@explains("filesystem", "fileContentMatches")
def _explain_file_content_matches(state: FilesystemState, args: FileContentMatches) -> tuple[str, str]:
    expected = f"the file {args.path} matching {pattern(args.pattern)}"
    text = state.files.get(args.path)
    if text is None:
        return expected, _no_file(state, args.path)
    return expected, f"{args.path} ({len(text)} characters) reads {shown(text, 240)}"


@explains("filesystem", "directoryHasFiles")
def _explain_directory_has_files(state: FilesystemState, args: DirectoryHasFiles) -> tuple[str, str]:
    expected = f"directory {args.path} holding {listing(args.files, 20)}"
    if args.path != "." and args.path not in state.directories:
        return expected, f"no directory {args.path}"
    names = _names_in(state, args.path)
    missing = [n for n in args.files if n not in names]
    return expected, f"{args.path} holds {listing(sorted(names), 10)}; missing: {listing(missing)}"
