"""Sandbox backends by name: ``get_sandbox("local")``, ``get_sandbox("docker")``, ``get_sandbox("none", ...)``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .interface import Sandbox, SandboxUnavailable

DEFAULT_SANDBOX = "local"
_FACTORIES: dict[str, Callable[..., Sandbox]] = {}


def register_sandbox(name: str, factory: Callable[..., Sandbox]) -> None:
    """Make ``factory`` (a backend class, or any callable returning a ``Sandbox``) available by ``name``."""
    _FACTORIES[name] = factory


def sandbox_names() -> list[str]:
    return sorted(_FACTORIES)


def get_sandbox(name: str = DEFAULT_SANDBOX, *, allow_unisolated: bool = False, **options: Any) -> Sandbox:
    """The backend registered as ``name``, ready to run agents.

    Raises ``SandboxUnavailable`` when the backend cannot work on this machine (bubblewrap missing, no
    Docker engine) and when it would not isolate the agent while ``allow_unisolated`` is false. There is
    no silent fallback: asking for ``local`` never yields ``none``. ``options`` go to the backend's
    constructor (e.g. ``require_cgroups=True`` for ``local``, ``image=...`` for ``docker``).
    """
    try:
        factory = _FACTORIES[name]
    except KeyError:
        raise SandboxUnavailable(f"no sandbox backend named {name!r}; known: {', '.join(sandbox_names())}") from None
    if not getattr(factory, "isolates", True) and not allow_unisolated:
        raise SandboxUnavailable(
            f"the {name!r} sandbox does not isolate the agent and refuses to run untrusted agents; "
            "waive isolation explicitly (allow_unisolated=True) to use it"
        )
    return factory(**options)
