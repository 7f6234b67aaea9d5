#!/usr/bin/env bash
# The project's base image, built locally from Debian packages with no registry:
#     docker/rootfs.sh TAG
# mmdebstrap makes a root filesystem from this machine's configured Debian mirror (its apt sources) and
# `docker import` turns it into an image. Pinned: the suite, the variant, the package list below and
# SOURCE_DATE_EPOCH; the resolved versions of every package are written into the image
# (/etc/mcpbench-image.packages) and the listed ones into its label, so two builds can be compared.
# The agent image (docker/agent.Dockerfile) and the relay image are built from it.
set -euo pipefail
tag=${1:?usage: docker/rootfs.sh TAG}
suite=bookworm
packages=(python3 python-is-python3 socat)
sources=
for candidate in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list; do
  if [ -s "$candidate" ] && grep -q '^[^#]*deb' "$candidate"; then sources=$candidate; break; fi
done
[ -n "$sources" ] || { echo "docker/rootfs.sh: no Debian apt sources on this machine" >&2; exit 1; }
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1735689600}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
list=$(IFS=,; echo "${packages[*]}")
mmdebstrap --quiet --variant=essential --include="$list" \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --customize-hook='chroot "$1" dpkg-query -W -f "\${Package}=\${Version}\n" > "$1/etc/mcpbench-image.packages"' \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*' \
  "$suite" "$work/rootfs.tar" "$sources"
versions=$(tar -xOf "$work/rootfs.tar" ./etc/mcpbench-image.packages | grep -E "^($(IFS='|'; echo "${packages[*]}"))=" | tr '\n' ' ')
docker import --change "LABEL org.mcpbench.suite=$suite org.mcpbench.packages=\"${versions% }\"" \
  "$work/rootfs.tar" "$tag" >/dev/null
echo "built $tag (Debian $suite: ${versions% })"
