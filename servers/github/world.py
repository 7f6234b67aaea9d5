"""The GitHub world: Kestrel Freight Systems' organisation ``kestrel-freight``.

At the default size: 3 repositories (``route-planner`` in Python, ``driver-app`` in TypeScript,
``infra`` with Terraform and Kubernetes manifests), 150 issues, 40 pull requests (merged, closed and
open, each open one with its head branch), 300 commits on the protected ``main`` branches, labels,
milestones, comments and near-duplicate issues as real trackers accumulate. The viewer is the bot
``kestrel-ops-bot``.

Version 2 projects the organisation (``servers/org``): its four repositories (``platform-services``, the
backend monorepo, has a package per service, each owned in CODEOWNERS by the person its runbook
names), 200 issues and 71 pull requests written by the engineers of each repository's teams while
they worked there (open issues assigned to people who work there today), and one pull request per
incident fixing its root cause in its service's repository (``Fix: ... (incident 2046)``), merged once
resolved, open while monitored.

Patchable collections: ``repos`` (by ``owner/name``), ``repos.issues``, ``repos.pull_requests`` and
``repos.milestones`` (by ``number``), ``repos.labels`` and ``repos.branches`` (by ``name``),
``repos.branches.files`` (a mapping: path -> text), ``repos.branches.commits`` (by ``sha``),
``repos.issues.comments`` (by ``id``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from servers.github.state import commit_sha
from servers.kit.world import Key, versions
from servers.kit.worldtext import CUSTOMERS, REGIONS, people
from servers.org import Organisation, cast
from servers.org.model import Employee

OWNER = "kestrel-freight"
SIZES = {"default": (50, 14, 100), "small": (5, 2, 10)}  # per repository: issues, pull requests, commits

LABELS = (
    ("bug", "d73a4a", "Something isn't working"), ("enhancement", "a2eeef", "New feature or request"),
    ("documentation", "0075ca", "Improvements or additions to documentation"),
    ("good first issue", "7057ff", "Good for newcomers"), ("duplicate", "cfd3d7", "This issue already exists"),
    ("wontfix", "ffffff", "This will not be worked on"), ("needs-triage", "fbca04", "Not yet looked at"),
    ("priority:high", "b60205", "Fix this cycle"), ("priority:low", "c5def5", "Nice to have"),
    ("security", "ee0701", "Security relevant"), ("tech-debt", "5319e7", "Cleanup and refactoring"),
)
REPOS = {
    "route-planner": {
        "description": "Route optimisation service: ETAs, stop sequencing and carrier rates",
        "areas": ("eta", "sequencing", "rates", "api", "geocoding"),
        "files": {
            "README.md": "# route-planner\n\nComputes delivery routes and ETAs for Kestrel's carriers.\n\n## Run\n\n    make dev\n",
            "pyproject.toml": "[project]\nname = \"route-planner\"\nversion = \"4.{minor}.0\"\nrequires-python = \">=3.11\"\ndependencies = [\"fastapi>=0.110\", \"ortools>=9.8\", \"pyarrow>=15\"]\n",
            "src/route_planner/__init__.py": "\"\"\"Route planning for Kestrel Freight.\"\"\"\n__version__ = \"4.{minor}.0\"\n",
            "src/route_planner/eta.py": "def eta_minutes(distance_km: float, speed_kmh: float = {speed}) -> int:\n    \"\"\"Minutes to cover distance_km at speed_kmh, rounded up.\"\"\"\n    return -(-int(distance_km * 60) // int(speed_kmh))\n",
            "src/route_planner/sequencing.py": "from .eta import eta_minutes\n\n\ndef order_stops(stops):\n    \"\"\"Nearest-neighbour ordering of stops, starting at the depot.\"\"\"\n    return sorted(stops, key=lambda s: s.distance_km)\n",
            "src/route_planner/rates.py": "RATE_CARD = {rates}\n\n\ndef quote(carrier: str, kg: float) -> float:\n    return round(RATE_CARD[carrier] * kg, 2)\n",
            "src/route_planner/api.py": "from fastapi import FastAPI\n\napp = FastAPI(title=\"route-planner\")\n\n\n@app.get(\"/healthz\")\ndef health():\n    return {{\"ok\": True}}\n",
            "tests/test_eta.py": "from route_planner.eta import eta_minutes\n\n\ndef test_eta_rounds_up():\n    assert eta_minutes(1.0, 60) == 1\n",
            "tests/test_rates.py": "from route_planner.rates import quote\n\n\ndef test_quote_is_rounded():\n    assert quote(\"DHL\", 1.0) >= 0\n",
            "docs/adr/0001-use-or-tools.md": "# 1. Use OR-Tools for sequencing\n\nStatus: accepted\n\nWe use OR-Tools' routing solver instead of a hand-written heuristic.\n",
            "docs/adr/0002-eta-model.md": "# 2. ETA model\n\nStatus: accepted\n\nETAs use historical speeds per region ({region}).\n",
            "CHANGELOG.md": "# Changelog\n\n## 4.{minor}.0\n- Faster stop sequencing\n- Rate card for {customer}\n",
            ".github/CODEOWNERS": "* @kestrel-freight/routing\n/docs/ @kestrel-freight/architecture\n",
            ".github/workflows/ci.yml": "name: ci\non: [push, pull_request]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: pip install -e .[test] && pytest -q\n",
            "Makefile": "dev:\n\tuvicorn route_planner.api:app --reload\n\ntest:\n\tpytest -q\n",
        },
    },
    "driver-app": {
        "description": "Driver mobile app (React Native): manifests, proof of delivery, offline sync",
        "areas": ("offline-sync", "proof-of-delivery", "manifest", "auth", "maps"),
        "files": {
            "README.md": "# driver-app\n\nThe app drivers use on the road.\n\n    npm ci && npm run ios\n",
            "package.json": "{{\n  \"name\": \"driver-app\",\n  \"version\": \"4.{minor}.0\",\n  \"scripts\": {{\"test\": \"jest\", \"lint\": \"eslint src\"}}\n}}\n",
            "tsconfig.json": "{{\n  \"compilerOptions\": {{\"strict\": true, \"target\": \"es2022\", \"jsx\": \"react-native\"}}\n}}\n",
            "src/App.tsx": "import {{ ManifestScreen }} from './screens/ManifestScreen';\n\nexport default function App() {{\n  return <ManifestScreen />;\n}}\n",
            "src/screens/ManifestScreen.tsx": "export function ManifestScreen() {{\n  // lists today's stops\n  return null;\n}}\n",
            "src/screens/ProofOfDelivery.tsx": "export function ProofOfDelivery() {{\n  // signature and photo capture\n  return null;\n}}\n",
            "src/sync/offlineQueue.ts": "export const MAX_QUEUE = {queue};\n\nexport function enqueue(queue: unknown[], item: unknown) {{\n  if (queue.length >= MAX_QUEUE) throw new Error('queue full');\n  queue.push(item);\n}}\n",
            "src/api/client.ts": "export const API_URL = 'https://api.{region}.kestrelfreight.com';\n",
            "__tests__/offlineQueue.test.ts": "import {{ enqueue }} from '../src/sync/offlineQueue';\n\ntest('enqueue adds', () => {{\n  const q: unknown[] = [];\n  enqueue(q, 1);\n  expect(q).toHaveLength(1);\n}});\n",
            "CHANGELOG.md": "# Changelog\n\n## 4.{minor}.0\n- Offline sync retries with backoff\n",
            ".github/CODEOWNERS": "* @kestrel-freight/mobile\n",
            ".github/workflows/ci.yml": "name: ci\non: [pull_request]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: npm ci && npm test\n",
        },
    },
    "infra": {
        "description": "Terraform and Kubernetes manifests for every Kestrel environment",
        "areas": ("terraform", "k8s", "observability", "ci", "networking"),
        "files": {
            "README.md": "# infra\n\nTerraform modules and Kubernetes manifests. Changes go through pull requests only.\n",
            "terraform/main.tf": "module \"cluster\" {{\n  source = \"./modules/cluster\"\n  region = \"{region}\"\n  nodes  = {nodes}\n}}\n",
            "terraform/variables.tf": "variable \"environment\" {{\n  type    = string\n  default = \"production\"\n}}\n",
            "terraform/modules/cluster/main.tf": "resource \"aws_eks_cluster\" \"this\" {{\n  name = var.name\n}}\n",
            "k8s/route-planner/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: route-planner\nspec:\n  replicas: {replicas}\n",
            "k8s/tracking-gateway/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: tracking-gateway\nspec:\n  replicas: {replicas}\n",
            "k8s/monitoring/alerts.yaml": "groups:\n  - name: slo\n    rules:\n      - alert: HighErrorRate\n        expr: error_rate > 0.0{pct}\n",
            "runbooks/failover.md": "# Database failover\n\n1. Page the on-call SRE\n2. Promote the replica in {region}\n",
            ".github/CODEOWNERS": "* @kestrel-freight/platform\n",
            ".github/workflows/plan.yml": "name: terraform-plan\non: [pull_request]\njobs:\n  plan:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: terraform plan\n",
        },
    },
}
ISSUE_TITLES = (
    ("bug", "{area}: crash when {thing} is empty"), ("bug", "{area} returns 500 for {customer}"),
    ("bug", "Wrong ETA shown after {area} update"), ("bug", "{area} times out in {region}"),
    ("bug", "Duplicate {thing} created on retry"), ("enhancement", "Support bulk {thing} export in {area}"),
    ("enhancement", "Add metrics for {area}"), ("enhancement", "{area}: configurable {thing} limit"),
    ("documentation", "Document the {area} rollout process"), ("tech-debt", "Remove the legacy {area} code path"),
    ("security", "Rotate credentials used by {area}"), ("enhancement", "Allow {customer} to set a default {thing}"),
)
THINGS = ("manifest", "stop list", "rate card", "shipment", "label batch", "webhook", "route", "driver shift")
COMMIT_VERBS = ("fix", "feat", "chore", "refactor", "docs", "test", "perf", "ci")
COMMENTS = ("I can reproduce this on main.", "Seen again today, see logs in the incident channel.",
            "This looks like a duplicate of an older report.", "Fixed by the linked pull request, please verify.",
            "Can we get this into the next milestone?", "Customer impact is limited to {customer}.",
            "Not reproducible anymore after the last deploy.", "I'll take this one.")


def _login(first: str, last: str) -> str:
    return f"{first[0]}{last}".lower()


class _Team:
    """Who works in a repository of version 1: eight logins from the shared pool, any of them at any time."""

    def __init__(self, logins: list[str]) -> None:
        self.logins = logins

    def author(self, rng: random.Random, day: str | None) -> str:
        return rng.choice(self.logins)

    def assignees(self, rng: random.Random, day: str, closed: bool) -> list[str]:
        return rng.sample(self.logins, k=rng.choice((0, 1, 1, 2)))


def _repo(rng: random.Random, name: str, spec: dict[str, Any], size: str, customers: tuple[str, ...],
          regions: tuple[str, ...], team_of: Callable[[random.Random], _Team],
          extra_prs: Callable[[list[dict], dict[str, str], int], list[dict]] | None = None) -> dict[str, Any]:
    """One repository: its files, ``main``'s history, issues with comments, pull requests (merged, closed,
    open with their head branches); ``team_of(rng)`` says who writes them; ``extra_prs`` adds pull
    requests of known content after the others (the organisation's incident fixes)."""
    n_issues, n_prs, n_commits = SIZES[size]
    params: dict[str, Any] = {
        "minor": rng.randint(18, 24), "speed": rng.choice((38, 42, 45)), "region": rng.choice(regions),
        "customer": rng.choice(customers), "queue": rng.choice((200, 500, 1000)), "nodes": rng.randint(3, 9),
        "replicas": rng.randint(2, 6), "pct": rng.randint(1, 5),
        "rates": {c: round(rng.uniform(0.4, 2.2), 2) for c in ("DHL", "UPS", "DPD")}}
    files = {path: text.format(**params) for path, text in spec["files"].items()}
    team = team_of(rng)
    full = f"{OWNER}/{name}"
    commits, parent = [], ""
    for i in range(n_commits):
        area = rng.choice(spec["areas"])
        message = f"{rng.choice(COMMIT_VERBS)}({area}): {rng.choice(THINGS)} {rng.choice(('handling', 'limits', 'retries', 'validation', 'logging', 'tests'))}"
        if rng.random() < 0.3:
            message += f" (#{rng.randint(1, n_issues + n_prs)})"
        sha = commit_sha(full, "main", parent, message, str(i))
        commits.append({"sha": sha, "message": message, "author": team.author(rng, None)})
        parent = sha
    commits.reverse()  # newest first
    numbers = list(range(1, n_issues + n_prs + 1))
    rng.shuffle(numbers)
    issue_numbers, pr_numbers = sorted(numbers[:n_issues]), sorted(numbers[n_issues:])
    milestones = [{"number": 1, "title": f"v4.{params['minor'] + 1}", "state": "open", "due_on": "2026-04-15",
                   "description": "Next minor release"},
                  {"number": 2, "title": f"v4.{params['minor']}", "state": "closed", "due_on": "2026-02-27",
                   "description": "Current release"},
                  {"number": 3, "title": "Q2 hardening", "state": "open", "due_on": "2026-06-30",
                   "description": "Reliability and security work"}]
    issues, comment_id = [], 1
    for k, number in enumerate(issue_numbers):
        kind, title = rng.choice(ISSUE_TITLES)
        title = title.format(area=rng.choice(spec["areas"]), thing=rng.choice(THINGS),
                             customer=rng.choice(customers), region=rng.choice(regions))
        title = title[0].upper() + title[1:]
        closed = rng.random() < 0.4
        labels = [kind] + ([rng.choice(("priority:high", "priority:low", "needs-triage"))] if rng.random() < 0.6 else [])
        day = 1 + k * 88 // n_issues
        date = f"2026-{1 + day // 31:02d}-{1 + day % 28:02d}"
        comments = []
        for _ in range(rng.choice((0, 0, 1, 1, 2, 3))):
            comments.append({"id": comment_id, "author": team.author(rng, date),
                             "body": rng.choice(COMMENTS).format(customer=rng.choice(customers))})
            comment_id += 1
        issues.append({
            "number": number, "title": title, "author": team.author(rng, date),
            "body": f"Observed in {rng.choice(regions)} since {('January', 'February', 'March')[day // 31]}.\n\n"
                    f"Steps: open the {rng.choice(THINGS)} view and {rng.choice(('retry', 'refresh', 'export'))}.",
            "state": "closed" if closed else "open",
            "state_reason": rng.choice(("completed", "completed", "not_planned")) if closed else None,
            "labels": labels, "assignees": team.assignees(rng, date, closed), "comments": comments,
            "milestone": rng.choice((None, None, 1, 2, 3)),
            "created_at": f"{date}T{rng.randint(7, 18):02d}:{rng.randint(0, 59):02d}:00Z",
        })
    main = {"name": "main", "files": files, "commits": commits, "protected": True}
    branches, prs = [main], []

    def open_branch(head: str, title: str, author: str, area: str) -> None:
        path = rng.choice(sorted(files))
        message = f"{head.split('/')[0]}({area}): {title.split(': ', 1)[1]}"
        sha = commit_sha(full, head, commits[0]["sha"], message)
        branches.append({"name": head, "files": {**files, path: files[path] + f"\n# {title}\n"},
                         "commits": [{"sha": sha, "message": message, "author": author}, *commits]})

    for k, number in enumerate(pr_numbers):
        area, thing, kind = rng.choice(spec["areas"]), rng.choice(THINGS), rng.choice(("fix", "feat", "chore"))
        head = f"{kind}/{area}-{thing.replace(' ', '-')}-{number}"
        fate = rng.choices(("merged", "closed", "open"), (55, 10, 35))[0]
        title = f"{kind.capitalize()}: {thing} {rng.choice(('handling', 'limits', 'retries'))} in {area}"
        date = f"2026-03-{1 + k % 12:02d}"
        pr: dict[str, Any] = {
            "number": number, "title": title, "body": f"Closes #{rng.choice(issue_numbers)}.", "head": head,
            "base": "main", "author": team.author(rng, date),
            "labels": [rng.choice(("enhancement", "bug", "tech-debt"))],
            "created_at": f"{date}T{rng.randint(8, 18):02d}:00:00Z"}
        if fate == "merged":
            pr.update(state="closed", merged=True, merge_commit_sha=rng.choice(commits[:60])["sha"])
        elif fate == "closed":
            pr.update(state="closed")
        else:
            open_branch(head, title, pr["author"], area)
        prs.append(pr)
    for pr in (extra_prs(commits, files, n_issues + n_prs) if extra_prs else []):
        if pr.pop("_open", False):
            open_branch(pr["head"], pr["title"], pr["author"], pr.pop("_area"))
        pr.pop("_area", None)
        prs.append(pr)
    return {"owner": OWNER, "name": name, "description": spec["description"], "default_branch": "main",
            "private": name == "infra", "branches": branches, "issues": issues, "pull_requests": prs,
            "labels": [{"name": n, "color": c, "description": d} for n, c, d in LABELS], "milestones": milestones}


def build(rng: random.Random, size: str) -> dict[str, Any]:
    """Version 1: thirty logins drawn from the shared name pools, eight per repository."""
    staff = people(rng, 30)
    logins = sorted({_login(p.first, p.last) for p in staff})
    repos = [_repo(rng, name, spec, size, CUSTOMERS, REGIONS, lambda r: _Team(r.sample(logins, 8)))
             for name, spec in REPOS.items()]
    return {"viewer": "kestrel-ops-bot", "repos": repos}


#: Version 2's repositories' teams: the organisation's teams whose engineers work in each.
REPO_TEAMS = {"route-planner": ("Backend",), "driver-app": ("Mobile", "Frontend"), "infra": ("SRE", "Security"),
              "platform-services": ("Backend", "Data", "Security", "SRE")}


def _platform_services(org: Organisation) -> dict[str, Any]:
    """The backend monorepo of version 2: a package per service it holds, each owned (CODEOWNERS) by the
    service's owner, the person its runbook names."""
    services = [s for s in org.services if s.repo == "platform-services"]
    files = {"README.md": "# platform-services\n\nThe backend services behind the web app and the API, one package "
                          "each.\n\n" + "".join(f"- services/{s.name}\n" for s in services),
             "pyproject.toml": "[project]\nname = \"platform-services\"\nversion = \"4.{minor}.0\"\n",
             ".github/workflows/ci.yml": "name: ci\non: [push, pull_request]\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
                                        "    steps:\n      - uses: actions/checkout@v4\n      - run: make test\n"}
    owners = "* @kestrel-freight/backend\n"
    for service in services:
        module = service.name.replace("-", "_")
        files[f"services/{service.name}/README.md"] = (f"# {service.name}\n\nTier {service.tier}, owned by the "
                                                       f"{service.team} team. Runbook in Notion: Runbook: {service.name}.\n")
        files[f"services/{service.name}/src/{module}/__init__.py"] = f"\"\"\"{service.name}.\"\"\"\n"
        files[f"services/{service.name}/tests/test_{module}.py"] = f"def test_{module}_imports():\n    import {module}  # noqa: F401\n"
        owners += f"/services/{service.name}/ @{org.employee(service.owner).github_login}\n"
    files[".github/CODEOWNERS"] = owners
    return {"description": next(r.description for r in org.repos if r.name == "platform-services"),
            "areas": tuple(s.name for s in services), "files": files}


class _OrgTeam(_Team):
    """Who works in a repository of version 2: the engineers of its teams who had started, each writing
    only while they work here; open issues are assigned to people who work here today."""

    def __init__(self, org: Organisation, name: str) -> None:
        self.people = [e for e in org.staff if e.team in REPO_TEAMS[name] and e.github_login]

    def author(self, rng: random.Random, day: str | None) -> str:
        return _github_login(rng.choice([e for e in self.people if day is None or e.employed_on(day)]))

    def assignees(self, rng: random.Random, day: str, closed: bool) -> list[str]:
        pool = [e for e in self.people if (e.employed_on(day) if closed else e.active)]
        return sorted(_github_login(e) for e in rng.sample(pool, k=min(len(pool), rng.choice((0, 1, 1, 2)))))

    @classmethod
    def of(cls, org: Organisation, name: str) -> Callable[[random.Random], _Team]:
        """The ``team_of`` of repository ``name`` (the team does not depend on ``rng``)."""
        return lambda rng: cls(org, name)


def _github_login(person: Employee) -> str:
    assert person.github_login is not None, f"{person.key} writes to a repository and has no GitHub login"
    return person.github_login


def _incident_fixes(rng: random.Random, org: Organisation, name: str):
    """The pull requests that fixed the organisation's incidents of the services in repository ``name``:
    merged once resolved, still open while the incident is monitored."""
    def extra(commits: list[dict], files: dict[str, str], taken: int) -> list[dict]:
        out = []
        mine = [i for i in org.incidents if next(s for s in org.services if s.name == i.service).repo == name]
        for k, incident in enumerate(mine):
            owner = org.employee(incident.postmortem_owner)
            author = owner if owner.github_login else org.employee(incident.commander)
            when = (incident.resolved or incident.started)[:10]
            head = f"fix/incident-{incident.number}"
            pr = {"number": taken + k + 1, "title": f"Fix: {incident.cause} (incident {incident.number})",
                  "body": f"Root cause of incident {incident.number} ({incident.severity}, {incident.service}). "
                          f"Follow-ups in Linear: " + "; ".join(incident.followups) + ".",
                  "head": head, "base": "main", "author": author.github_login, "labels": ["bug"],
                  "created_at": f"{when}T{rng.randint(12, 20):02d}:00:00Z", "_area": incident.service}
            if incident.resolved:
                pr.update(state="closed", merged=True, merge_commit_sha=rng.choice(commits[:20])["sha"])
            else:
                pr["_open"] = True
            out.append(pr)
        return out
    return extra


def build_v2(rng: random.Random, size: str, org: Organisation) -> dict[str, Any]:
    """Version 2: the organisation's four repositories (the backend monorepo ``platform-services`` among
    them), written by the engineers of their teams while they worked here, with a pull request fixing
    each incident of their services."""
    specs = {**REPOS, "platform-services": _platform_services(org)}
    repos = [_repo(rng, repo.name, specs[repo.name], size, org.words.customers, org.words.regions,
                   _OrgTeam.of(org, repo.name), _incident_fixes(rng, org, repo.name))
             for repo in org.repos]
    return {"viewer": "kestrel-ops-bot", "repos": repos}


def describe(state: dict[str, Any]) -> dict[str, int]:
    repos = state["repos"]
    return {"repositories": len(repos), "issues": sum(len(r.get("issues", [])) for r in repos),
            "pull_requests": sum(len(r.get("pull_requests", [])) for r in repos),
            "commits": sum(len(b.get("commits", [])) for r in repos for b in r.get("branches", [])
                            if b["name"] == r.get("default_branch", "main"))}


COLLECTIONS: dict[str, Key] = {
    "repos": lambda r, _: f"{r['owner']}/{r['name']}", "repos.issues": "number", "repos.pull_requests": "number",
    "repos.milestones": "number", "repos.labels": "name", "repos.branches": "name", "repos.branches.files": "path",
    "repos.branches.commits": "sha", "repos.issues.comments": "id"}
GENERATORS = versions("github", COLLECTIONS, describe, build, (build_v2, cast))
GENERATOR = GENERATORS[-1]

__all__ = ["GENERATOR", "GENERATORS"]
