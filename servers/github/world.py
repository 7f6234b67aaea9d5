"""The GitHub world: Kestrel Freight Systems' organisation ``kestrel-freight``.

At the default size: 3 repositories (``route-planner`` in Python, ``driver-app`` in TypeScript,
``infra`` with Terraform and Kubernetes manifests), 150 issues, 40 pull requests (merged, closed and
open, each open one with its head branch), 300 commits on the protected ``main`` branches, labels,
milestones, comments and near-duplicate issues as real trackers accumulate. The viewer is the bot
``kestrel-ops-bot``.

Patchable collections: ``repos`` (by ``owner/name``), ``repos.issues``, ``repos.pull_requests`` and
``repos.milestones`` (by ``number``), ``repos.labels`` and ``repos.branches`` (by ``name``),
``repos.branches.files`` (a mapping: path -> text), ``repos.branches.commits`` (by ``sha``),
``repos.issues.comments`` (by ``id``).
"""

from __future__ import annotations

import random
from typing import Any

from servers.github.state import commit_sha
from servers.kit.world import WorldGenerator
from servers.kit.worldtext import CUSTOMERS, REGIONS, people

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
REPOS: dict[str, dict[str, Any]] = {
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


def build(rng: random.Random, size: str) -> dict[str, Any]:
    n_issues, n_prs, n_commits = SIZES[size]
    staff = people(rng, 30)
    logins = sorted({_login(p.first, p.last) for p in staff})
    repos = []
    for name, spec in REPOS.items():
        params: dict[str, Any] = {"minor": rng.randint(18, 24), "speed": rng.choice((38, 42, 45)), "region": rng.choice(REGIONS),
                  "customer": rng.choice(CUSTOMERS), "queue": rng.choice((200, 500, 1000)), "nodes": rng.randint(3, 9),
                  "replicas": rng.randint(2, 6), "pct": rng.randint(1, 5),
                  "rates": {c: round(rng.uniform(0.4, 2.2), 2) for c in ("DHL", "UPS", "DPD")}}
        files = {path: text.format(**params) for path, text in spec["files"].items()}
        team = rng.sample(logins, 8)
        full = f"{OWNER}/{name}"
        commits, parent = [], ""
        for i in range(n_commits):
            area = rng.choice(spec["areas"])
            message = f"{rng.choice(COMMIT_VERBS)}({area}): {rng.choice(THINGS)} {rng.choice(('handling', 'limits', 'retries', 'validation', 'logging', 'tests'))}"
            if rng.random() < 0.3:
                message += f" (#{rng.randint(1, n_issues + n_prs)})"
            sha = commit_sha(full, "main", parent, message, str(i))
            commits.append({"sha": sha, "message": message, "author": rng.choice(team)})
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
                                 customer=rng.choice(CUSTOMERS), region=rng.choice(REGIONS))
            title = title[0].upper() + title[1:]
            closed = rng.random() < 0.4
            labels = [kind] + ([rng.choice(("priority:high", "priority:low", "needs-triage"))] if rng.random() < 0.6 else [])
            comments = []
            for _ in range(rng.choice((0, 0, 1, 1, 2, 3))):
                comments.append({"id": comment_id, "author": rng.choice(team),
                                 "body": rng.choice(COMMENTS).format(customer=rng.choice(CUSTOMERS))})
                comment_id += 1
            day = 1 + k * 88 // n_issues
            issues.append({
                "number": number, "title": title, "author": rng.choice(team),
                "body": f"Observed in {rng.choice(REGIONS)} since {('January', 'February', 'March')[day // 31]}.\n\n"
                        f"Steps: open the {rng.choice(THINGS)} view and {rng.choice(('retry', 'refresh', 'export'))}.",
                "state": "closed" if closed else "open",
                "state_reason": rng.choice(("completed", "completed", "not_planned")) if closed else None,
                "labels": labels, "assignees": rng.sample(team, k=rng.choice((0, 1, 1, 2))), "comments": comments,
                "milestone": rng.choice((None, None, 1, 2, 3)),
                "created_at": f"2026-{1 + day // 31:02d}-{1 + day % 28:02d}T{rng.randint(7, 18):02d}:{rng.randint(0, 59):02d}:00Z",
            })
        main = {"name": "main", "files": files, "commits": commits, "protected": True}
        branches, prs = [main], []
        for k, number in enumerate(pr_numbers):
            area, thing, kind = rng.choice(spec["areas"]), rng.choice(THINGS), rng.choice(("fix", "feat", "chore"))
            head = f"{kind}/{area}-{thing.replace(' ', '-')}-{number}"
            fate = rng.choices(("merged", "closed", "open"), (55, 10, 35))[0]
            title = f"{kind.capitalize()}: {thing} {rng.choice(('handling', 'limits', 'retries'))} in {area}"
            pr = {"number": number, "title": title, "body": f"Closes #{rng.choice(issue_numbers)}.", "head": head,
                  "base": "main", "author": rng.choice(team), "labels": [rng.choice(("enhancement", "bug", "tech-debt"))],
                  "created_at": f"2026-03-{1 + k % 12:02d}T{rng.randint(8, 18):02d}:00:00Z"}
            if fate == "merged":
                pr.update(state="closed", merged=True, merge_commit_sha=rng.choice(commits[:60])["sha"])
            elif fate == "closed":
                pr.update(state="closed")
            else:
                path = rng.choice(sorted(files))
                message = f"{head.split('/')[0]}({area}): {title.split(': ', 1)[1]}"
                sha = commit_sha(full, head, commits[0]["sha"], message)
                branches.append({"name": head, "files": {**files, path: files[path] + f"\n# {title}\n"},
                                 "commits": [{"sha": sha, "message": message, "author": pr["author"]}, *commits]})
            prs.append(pr)
        repos.append({"owner": OWNER, "name": name, "description": spec["description"], "default_branch": "main",
                      "private": name == "infra", "branches": branches, "issues": issues, "pull_requests": prs,
                      "labels": [{"name": n, "color": c, "description": d} for n, c, d in LABELS],
                      "milestones": milestones})
    return {"viewer": "kestrel-ops-bot", "repos": repos}


def describe(state: dict[str, Any]) -> dict[str, int]:
    repos = state["repos"]
    return {"repositories": len(repos), "issues": sum(len(r.get("issues", [])) for r in repos),
            "pull_requests": sum(len(r.get("pull_requests", [])) for r in repos),
            "commits": sum(len(b.get("commits", [])) for r in repos for b in r.get("branches", [])
                            if b["name"] == r.get("default_branch", "main"))}


GENERATOR = WorldGenerator(
    name="github", version=1, build=build, describe=describe,
    collections={"repos": lambda r, _: f"{r['owner']}/{r['name']}", "repos.issues": "number",
                 "repos.pull_requests": "number", "repos.milestones": "number", "repos.labels": "name",
                 "repos.branches": "name", "repos.branches.files": "path", "repos.branches.commits": "sha",
                 "repos.issues.comments": "id"},
)

__all__ = ["GENERATOR"]
