#!/usr/bin/env bash
# One-time setup of a fresh machine: system packages (bubblewrap, iproute2, Node for the TypeScript
# verifier, Chromium for the report's and the viewer's browser tests), then this project and its test dependencies. Safe to run again.
#   scripts/setup.sh --docker   also the docker sandbox: engine, dockerd, images (scripts/setup-docker.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
docker=0
for arg in "$@"; do
  case "$arg" in
    --docker) docker=1 ;;
    *) echo "scripts/setup.sh: unknown option '$arg' (known: --docker)" >&2; exit 2 ;;
  esac
done
need=()
command -v bwrap >/dev/null || need+=(bubblewrap)
command -v ip >/dev/null || need+=(iproute2)
command -v node >/dev/null || need+=(nodejs npm)
# headless Chromium: the report's and the viewer's browser tests render pages in it (Playwright drives this
# system Chromium; `playwright install`, which downloads a browser of its own, is never run)
command -v chromium >/dev/null || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
  else
    sudo apt-get update -qq && sudo apt-get install -y -qq "${need[@]}" >/dev/null
  fi
fi
python -m pip install -q -e ".[dev]"
# pyenv only creates the `mcpbench` shim on a rehash.
if command -v pyenv >/dev/null; then pyenv rehash; fi
# The TypeScript verifier (tasks_catalog/verifier-ts): dependencies from the committed lock file, then tsc.
(cd tasks_catalog/verifier-ts && npm ci --no-audit --no-fund --loglevel=error && npm run --silent build)
# A third-party MCP client for the tests: the official TypeScript SDK (tests/clients/ts-sdk), from its lock file.
(cd tests/clients/ts-sdk && npm ci --no-audit --no-fund --loglevel=error)
if [ "$docker" = 1 ]; then scripts/setup-docker.sh; fi
