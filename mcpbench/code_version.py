"""The code version every run records (``RunRecord.code_version``): the package's version and, in a git
checkout, its commit, so a result can be traced to the exact code that judged it. Worked out once per
process; a checkout without git (a copied tree, an image built without ``.git``) records the version
alone."""

from __future__ import annotations

import re
import subprocess
from functools import cache
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_SHA = re.compile(r"^[0-9a-f]{40}$")


def package_version() -> str:
    try:
        return metadata.version("mcpbench")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "0+unknown"


def git_commit(root: Path = ROOT) -> str | None:
    """The commit checked out at ``root`` (with ``-dirty`` when tracked files differ from it), or None where
    there is no git or no repository."""
    def git(*args: str) -> subprocess.CompletedProcess[str] | None:
        try:
            return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            return None

    head = git("rev-parse", "HEAD")
    if head is None or head.returncode != 0 or not _SHA.match(head.stdout.strip()):
        return None
    dirty = git("diff", "--quiet", "HEAD", "--")
    return head.stdout.strip() + ("-dirty" if dirty is not None and dirty.returncode == 1 else "")


@cache
def code_version() -> str:
    """``<package version>+g<commit>`` (``+g<commit>-dirty`` with local changes), or the package version
    alone outside a git checkout."""
    commit = git_commit()
    return f"{package_version()}+g{commit}" if commit else package_version()


__all__ = ["code_version", "git_commit", "package_version"]
