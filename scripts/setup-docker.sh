#!/usr/bin/env bash
# The docker sandbox on this machine, from nothing: Debian's engine (docker.io) and mmdebstrap where
# missing, dockerd started where none answers, and the project's two images built locally from Debian
# packages (no registry is needed or used). Safe to run again: an image whose content hash is already
# built is kept. Prints the image names the docker backend will use.
#
#   scripts/setup-docker.sh            # as root (or with sudo available)
#   MCPBENCH_DOCKERD_LOG=/path/log     # where a dockerd started here logs (default /var/log/mcpbench-dockerd.log)
set -euo pipefail
cd "$(dirname "$0")/.."
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

need=()
command -v dockerd >/dev/null || [ -x /usr/sbin/dockerd ] || need+=(docker.io)
command -v mmdebstrap >/dev/null || need+=(mmdebstrap)
# The live tests cut a connection to the engine through a socat relay they start on the host.
command -v socat >/dev/null || need+=(socat)
if [ ${#need[@]} -gt 0 ]; then
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
export PATH="$PATH:/usr/sbin:/sbin"

if ! docker info >/dev/null 2>&1; then
  log=${MCPBENCH_DOCKERD_LOG:-/var/log/mcpbench-dockerd.log}
  # No bridge and no iptables rules: the sandbox uses only `--network none` and shared namespaces, so
  # the engine never touches the host's network configuration.
  as_root sh -c "setsid nohup dockerd --bridge=none --iptables=false --ip-masq=false >>'$log' 2>&1 </dev/null &"
  for _ in $(seq 1 120); do
    docker info >/dev/null 2>&1 && break
    sleep 0.5
  done
  docker info >/dev/null 2>&1 || { echo "setup-docker: dockerd did not come up in 60 s; see $log" >&2; tail -20 "$log" >&2; exit 1; }
fi

# Images are named by the content hash of what they are built from (mcpbench.sandbox.docker.default_images),
# so an unchanged recipe is never rebuilt and a changed one never reuses a stale image.
read -r base_tag agent_tag relay_tag < <(python -c 'from mcpbench.sandbox.docker import image_tags; print(*image_tags())')
if docker image inspect "$base_tag" >/dev/null 2>&1; then
  echo "image $base_tag is up to date"
else
  docker/rootfs.sh "$base_tag"
fi
if docker image inspect "$agent_tag" >/dev/null 2>&1; then
  echo "image $agent_tag is up to date"
else
  context=$(mktemp -d)
  trap 'rm -rf "$context"' EXIT
  mkdir -p "$context/mcpbench/agents"
  for f in $(python -c 'from mcpbench.sandbox.docker import CLIENT_FILES; print(*CLIENT_FILES)'); do cp "$f" "$context/$f"; done
  # The classic builder: nothing to pull, and no buildx plugin needed.
  DOCKER_BUILDKIT=0 docker build -q -f docker/agent.Dockerfile --build-arg "BASE=$base_tag" -t "$agent_tag" "$context" \
    >"$context/build.log" 2>&1 || { cat "$context/build.log" >&2; exit 1; }
  echo "built $agent_tag"
fi
# The relay runs only socat from the base image, under the same lockdown as the agent.
docker image inspect "$relay_tag" >/dev/null 2>&1 || docker tag "$base_tag" "$relay_tag"
echo "docker sandbox ready: agent image $agent_tag, relay image $relay_tag"
