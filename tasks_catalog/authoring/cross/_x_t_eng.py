"""What the engineering templates (``x_t_*`` modules of this package) read from a seed's version-2 worlds:
the incidents as GitHub, Linear, Slack and Notion show them. Private to those modules."""

from __future__ import annotations

import re
from typing import Any

from tasks_catalog.authoring.cross import world, world_version

#: The GitHub organisation of every repository.
OWNER = "kestrel-freight"


def initial_state(servers: list[str], patches: dict[str, str] | None = None) -> dict[str, Any]:
    """Each server's version-2 world of the case's seed, with the case's patch where one is named (a whole
    placeholder, so the patch keeps its type)."""
    patches = patches or {}
    return {s: {"world": {"generator": s, "version": world_version(s), "seed": "{{case.seed}}", "size": "default"},
                "patch": patches.get(s, [])} for s in servers}


def fix_prs(seed: int) -> dict[int, tuple[str, int]]:
    """Each incident's fix pull request in GitHub: incident number -> (repository, number)."""
    out: dict[int, tuple[str, int]] = {}
    for repo in world("github", seed)["repos"]:
        for pr in repo["pull_requests"]:
            m = re.search(r"\(incident (\d{4})\)$", pr["title"])
            if m:
                out[int(m.group(1))] = (repo["name"], pr["number"])
    return out


def followups(seed: int) -> dict[int, list[dict[str, Any]]]:
    """Each incident's follow-up issues in Linear (titled ``Incident NNNN: ...``), by identifier."""
    out: dict[int, list[dict[str, Any]]] = {}
    for issue in world("linear", seed)["issues"]:
        m = re.match(r"Incident (\d{4}): ", issue["title"])
        if m:
            out.setdefault(int(m.group(1)), []).append(issue)
    return out


def slack_channel(seed: int, name: str) -> dict[str, Any]:
    """The Slack channel named ``name``."""
    return next(c for c in world("slack", seed)["channels"] if c["name"] == name)


def slack_world_channel(seed: int, name: str) -> dict[str, Any] | None:
    """The Slack channel named ``name``, or ``None`` when the seed's Slack world cannot be built (the
    version-2 generator fails on a few seeds: such a seed gives no case)."""
    try:
        return slack_channel(seed, name)
    except IndexError:
        return None


def slack_user_by_email(seed: int) -> dict[str, dict[str, Any]]:
    """The Slack users by email address."""
    return {u["email"]: u for u in world("slack", seed)["users"] if u.get("email")}


def pr_pattern(repo: str, number: int) -> str:
    """A text that names pull request ``number`` of ``repo`` in any usual way (never a longer number)."""
    end = "([^0-9]|$)"
    return (f"({OWNER}/{repo}#{number}{end}|{repo}#{number}{end}|#{number}{end}|pull/{number}{end}"
            f"|PR {number}{end}|PR-{number}{end}|PR{number}{end}|pr {number}{end}|request {number}{end})")


def judged_by_case(*, timeout_s: int) -> dict[str, Any]:
    """The part of a task body every case decides: budget, frame, predicate and reference solution."""
    return {"max_steps": "{{case.max_steps}}", "timeout_s": timeout_s, "frame": "{{case.frame}}",
            "success": "{{case.success}}", "reference_solution": "{{case.reference}}"}
