"""Filesystem tools, named after the reference MCP filesystem server, over a real directory.

The backend materialises the state into a private temporary directory. Every path is resolved
against that root and refused if it (or a symlink on the way) leads outside it.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, Field

from servers.filesystem.state import FilesystemState, normalise_path
from servers.kit import MAX_RESULT_CHARS, ToolError, Toolset, tool

WORKSPACE_PREFIX = "mcpbench-fs-"
_swept: set[str] = set()
#: The longest workspace path, in characters, and the most levels deep, that a tool accepts or creates.
#: Resolving a path looks up every prefix of it: a path of 100,000 levels took 15 s of one call. And the
#: tree must stay walkable: the state is read back by walking it, one level of recursion per directory.
MAX_PATH_CHARS = 1024
MAX_PATH_DEPTH = 64
#: The most patterns ``search_files`` excludes. A glob is at most ``MAX_PATH_CHARS`` long: turning one
#: of 200,000 characters into a regular expression ran for minutes (unbracketed ``[`` scan ahead).
MAX_EXCLUDES = 50


def _memory_dir() -> str | None:
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def _workspace_parent() -> str:
    """Where workspaces go; on first use in a process, the workspaces of dead processes there are
    removed (a process killed with SIGKILL cannot remove its own: they may hold a private task's files)."""
    from runstore.leftovers import sweep

    parent = _memory_dir() or tempfile.gettempdir()
    if parent not in _swept:
        _swept.add(parent)
        sweep(Path(parent), WORKSPACE_PREFIX)
    return parent


PathArg = Annotated[str, Field(description="Path relative to the workspace root, e.g. 'docs/notes.md'")]


class Edit(BaseModel):
    oldText: str = Field(description="Text to search for; must match exactly once")
    newText: str = Field(description="Text to replace it with")


class FilesystemTools(Toolset[FilesystemState]):
    state_model = FilesystemState

    def __init__(self, state: FilesystemState) -> None:
        super().__init__(state)
        # In memory where the machine has it (/dev/shm): a private task's files never touch the disk.
        # Named after this process, so a later one can tell it is a dead process's leftover.
        from runstore.leftovers import owner_tag

        self._tmp = tempfile.TemporaryDirectory(prefix=f"{WORKSPACE_PREFIX}{owner_tag()}", dir=_workspace_parent())
        self.root = Path(self._tmp.name).resolve()
        for d in state.directories:
            (self.root / d).mkdir(parents=True, exist_ok=True)
        for path, text in state.files.items():
            (self.root / path).write_text(text, encoding="utf-8")

    def close(self) -> None:
        self._tmp.cleanup()

    # -- confinement -------------------------------------------------------------------------
    def _resolve(self, path: str, *, must_exist: bool = True) -> Path:
        if len(path) > MAX_PATH_CHARS:
            raise ToolError(f"path is {len(path)} characters long; the longest accepted is {MAX_PATH_CHARS}")
        try:
            rel = normalise_path(path)
        except ValueError as exc:
            raise ToolError(f"access denied: {exc}") from None
        _check_size(rel, path)
        target = (self.root / rel) if rel != "." else self.root
        real = Path(os.path.realpath(target))
        if real != self.root and self.root not in real.parents:
            raise ToolError(f"access denied: {path!r} resolves outside the workspace root")
        if must_exist and not target.exists():
            raise ToolError(f"no such file or directory: {path!r}")
        return target

    def _rel(self, p: Path) -> str:
        return p.relative_to(self.root).as_posix() or "."

    def _text(self, p: Path, path: str) -> str:
        if p.is_dir():
            raise ToolError(f"{path!r} is a directory, not a file")
        try:
            return p.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise ToolError(f"{path!r} is not a UTF-8 text file") from None

    # -- tools -------------------------------------------------------------------------------
    @tool(read_only=True)
    def read_text_file(
        self,
        path: PathArg,
        head: Annotated[int | None, Field(ge=1, description="Return only the first N lines")] = None,
        tail: Annotated[int | None, Field(ge=1, description="Return only the last N lines")] = None,
    ) -> str:
        """Read the complete contents of a text file, or only its first or last N lines."""
        if head is not None and tail is not None:
            raise ToolError("give head or tail, not both")
        text = self._text(self._resolve(path), path)
        if head is not None:
            return "".join(text.splitlines(keepends=True)[:head])
        if tail is not None:
            return "".join(text.splitlines(keepends=True)[-tail:])
        return text

    @tool(read_only=True)
    def read_multiple_files(self, paths: Annotated[list[str], Field(min_length=1, max_length=50)]) -> str:
        """Read several text files at once; a file that cannot be read is reported in place."""
        parts, size = [], 0
        for path in paths:
            try:
                parts.append(f"{path}:\n{self._text(self._resolve(path), path)}")
            except ToolError as exc:
                parts.append(f"{path}: error: {exc}")
            size += len(parts[-1])
            if size > MAX_RESULT_CHARS:  # before the rest is read into memory
                raise ToolError(f"these files hold more than {MAX_RESULT_CHARS} characters, the most a call "
                                "answers: read fewer at once, or parts of them with read_text_file's head or tail")
        return "\n---\n".join(parts)

    @tool(destructive=True)
    def write_file(self, path: PathArg, content: str) -> str:
        """Create a new file or overwrite an existing one with the given text. The parent directory must exist."""
        target = self._resolve(path, must_exist=False)
        if target.is_dir():
            raise ToolError(f"{path!r} is a directory")
        if not target.parent.is_dir():
            raise ToolError(f"parent directory of {path!r} does not exist; create it first")
        target.write_text(content, encoding="utf-8")
        return f"Successfully wrote to {normalise_path(path)}"

    @tool(destructive=True)
    def edit_file(
        self,
        path: PathArg,
        edits: Annotated[list[Edit], Field(min_length=1)],
        dryRun: Annotated[bool, Field(description="Preview the result without writing")] = False,
    ) -> str:
        """Replace exact text in a file. Each edit's oldText must occur exactly once; edits apply in order."""
        target = self._resolve(path)
        text = self._text(target, path)
        for i, edit in enumerate(edits):
            count = text.count(edit.oldText) if edit.oldText else 0
            if count != 1:
                raise ToolError(f"edits[{i}].oldText occurs {count} times in {path!r}; it must occur exactly once")
            text = text.replace(edit.oldText, edit.newText, 1)
        if dryRun:
            return text
        target.write_text(text, encoding="utf-8")
        return f"Applied {len(edits)} edit(s) to {normalise_path(path)}"

    @tool(idempotent=True)
    def create_directory(self, path: PathArg) -> str:
        """Create a directory, with any missing parents. Succeeds silently if it already exists."""
        target = self._resolve(path, must_exist=False)
        if target.exists() and not target.is_dir():
            raise ToolError(f"{path!r} exists and is a file")
        target.mkdir(parents=True, exist_ok=True)
        return f"Successfully created directory {normalise_path(path)}"

    @tool(read_only=True)
    def list_directory(self, path: PathArg = ".") -> str:
        """List a directory's entries, each prefixed with [FILE] or [DIR]."""
        target = self._resolve(path)
        if not target.is_dir():
            raise ToolError(f"{path!r} is not a directory")
        lines = [f"[{'DIR' if e.is_dir() else 'FILE'}] {e.name}" for e in sorted(target.iterdir())]
        return "\n".join(lines) if lines else "(empty directory)"

    @tool(read_only=True)
    def directory_tree(self, path: PathArg = ".") -> list:
        """A recursive tree of a directory as JSON: each entry has name, type and, for directories, children."""
        target = self._resolve(path)
        if not target.is_dir():
            raise ToolError(f"{path!r} is not a directory")

        def walk(d: Path) -> list:
            out = []
            for e in sorted(d.iterdir()):
                if e.is_dir():
                    out.append({"name": e.name, "type": "directory", "children": walk(e)})
                else:
                    out.append({"name": e.name, "type": "file"})
            return out

        return walk(target)

    @tool(destructive=True)
    def move_file(self, source: PathArg, destination: PathArg) -> str:
        """Move or rename a file or directory. Fails if the destination already exists."""
        src = self._resolve(source)
        if src == self.root:
            raise ToolError("cannot move the workspace root")
        dst = self._resolve(destination, must_exist=False)
        if dst.exists():
            raise ToolError(f"destination {destination!r} already exists")
        if not dst.parent.is_dir():
            raise ToolError(f"parent directory of {destination!r} does not exist")
        if src.is_dir() and (dst == src or src in dst.parents):
            raise ToolError("cannot move a directory into itself")
        if src.is_dir():  # everything under it moves too: each of its paths must fit at the destination
            for below in _deepest(src):
                _check_size(f"{self._rel(dst)}/{below}", destination)
        shutil.move(src, dst)
        return f"Successfully moved {normalise_path(source)} to {normalise_path(destination)}"

    @tool(read_only=True)
    def search_files(
        self,
        pattern: Annotated[str, Field(max_length=MAX_PATH_CHARS,
                                      description="Glob matched against names, e.g. '*.md' or 'report*'")],
        path: PathArg = ".",
        excludePatterns: Annotated[list[Annotated[str, Field(max_length=MAX_PATH_CHARS)]] | None,
                                   Field(max_length=MAX_EXCLUDES)] = None,
    ) -> str:
        """Recursively find files and directories whose name matches a glob pattern."""
        target = self._resolve(path)
        matches = _glob(pattern)
        excluded = [_glob(x) for x in excludePatterns or []]
        hits = []
        for dirpath, dirnames, filenames in os.walk(target):
            dirnames.sort()
            base = self._rel(Path(dirpath))
            prefix = "" if base == "." else base + "/"
            for name in sorted(dirnames + filenames):
                rel = prefix + name
                if any(x(rel) or x(name) for x in excluded):
                    continue
                if matches(name):
                    hits.append(rel)
        return "\n".join(hits) if hits else "No matches found"

    @tool(read_only=True)
    def get_file_info(self, path: PathArg) -> dict:
        """Metadata of a file or directory: type, size in bytes, line count for text files."""
        target = self._resolve(path)
        info: dict[str, Any] = {"path": self._rel(target), "type": "directory" if target.is_dir() else "file"}
        if target.is_file():
            data = target.read_bytes()
            info.update(size=len(data), lines=data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0))
        return info

    # -- state -------------------------------------------------------------------------------
    def snapshot(self, *, copy: bool = True) -> FilesystemState:  # read back: always a fresh state
        files: dict[str, str] = {}
        dirs: list[str] = []
        for dirpath, dirnames, filenames in os.walk(self.root):
            for d in dirnames:
                dirs.append(self._rel(Path(dirpath) / d))
            for f in filenames:
                p = Path(dirpath) / f
                try:
                    files[self._rel(p)] = p.read_text(encoding="utf-8")
                except UnicodeDecodeError:
                    files[self._rel(p)] = p.read_bytes().decode("utf-8", errors="replace")
        return FilesystemState(files=files, directories=dirs)


def _check_size(rel: str, given: str) -> None:
    """Refuse the workspace path ``rel`` (canonical; ``given`` as the agent wrote it) if it is too long or too deep."""
    if len(rel) > MAX_PATH_CHARS or rel.count("/") + 1 > MAX_PATH_DEPTH:
        raise ToolError(f"{given[:200]!r} would be {rel.count('/') + 1} levels deep and {len(rel)} characters long; "
                        f"paths may be at most {MAX_PATH_DEPTH} levels deep and {MAX_PATH_CHARS} characters long")


def _deepest(directory: Path) -> list[str]:
    """The longest and the deepest path below ``directory``, relative to it (none for an empty one)."""
    paths = [Path(d, e).relative_to(directory).as_posix()
             for d, dirs, files in os.walk(directory) for e in dirs + files]
    if not paths:
        return []
    return [max(paths, key=len), max(paths, key=lambda p: p.count("/"))]


@functools.lru_cache(maxsize=256)
def _glob(pattern: str):
    """A matcher for a glob pattern, as ``fnmatch.fnmatch`` matches on POSIX (case-sensitive), compiled once."""
    return re.compile(fnmatch.translate(pattern)).match
