"""The compiled forwarder (``forwarder.c``): built once per source version with the system's C
compiler into a cache directory, or None where that cannot be done (then ``_forwarder.py`` serves).

The two forwarders behave the same; the compiled one starts in about a millisecond, where the
Python one pays for an interpreter start and the socket module's imports (30-40 ms) on every run.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

log = logging.getLogger(__name__)

SOURCE = Path(__file__).with_name("forwarder.c")
#: Set to "python" to use the Python forwarder even where the compiled one can be built.
ENV_CHOICE = "MCPBENCH_FORWARDER"


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mcpbench"


def compiled_forwarder() -> Path | None:
    """The path of the compiled forwarder for this source, building it on first use; None if no C
    compiler is available, the build fails, or ``MCPBENCH_FORWARDER=python``."""
    if os.environ.get(ENV_CHOICE) == "python":
        return None
    return _build()


@cache
def _build() -> Path | None:
    source = SOURCE.read_bytes()
    target = cache_dir() / f"forwarder-{hashlib.sha256(source).hexdigest()[:16]}"
    if target.is_file() and os.access(target, os.X_OK):
        return target
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        log.info("no C compiler: the sandbox uses the Python forwarder")
        return None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
            out = Path(tmp) / "forwarder"
            subprocess.run([compiler, "-O2", "-Wall", "-Werror", "-o", str(out), str(SOURCE)], check=True,
                           capture_output=True, timeout=120)
            os.replace(out, target)  # atomic: concurrent builders agree on the same bytes
    except (OSError, subprocess.SubprocessError) as exc:
        detail = getattr(exc, "stderr", b"") or b""
        log.warning("cannot build the compiled forwarder (%s %s); using the Python one", exc, detail.decode()[-500:])
        return None
    return target
