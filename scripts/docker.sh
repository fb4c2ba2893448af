#!/usr/bin/env bash
# Prepares Docker for the integration tests, idempotently: installs Debian's Docker engine and debootstrap when
# they are missing, starts dockerd in the background when no engine answers, and builds the local base image
# the test images start FROM. No image can be pulled here, so the base image is made with debootstrap from the
# machine's own Debian mirror (read from its apt sources at run time) and `docker import`.
#
# A dockerd started by this script writes its pid to $PATHFENCE_DOCKERD_PID (default /tmp/pathfence-dockerd.pid)
# so the caller can stop it at the end; its log goes to /tmp/pathfence-dockerd.log.
set -euo pipefail
source "$(dirname "$0")/env.sh"

BASE_IMAGE="${PATHFENCE_BASE_IMAGE:-pathfence/base-jre:bookworm}"
PID_FILE="${PATHFENCE_DOCKERD_PID:-/tmp/pathfence-dockerd.pid}"
DOCKERD_LOG=/tmp/pathfence-dockerd.log

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

if ! command -v dockerd >/dev/null 2>&1 || ! command -v debootstrap >/dev/null 2>&1; then
  echo "docker.sh: installing docker.io and debootstrap"
  as_root apt-get update -q
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q docker.io debootstrap
fi

if ! docker info >/dev/null 2>&1; then
  echo "docker.sh: starting dockerd (log: $DOCKERD_LOG)"
  as_root sh -c "dockerd > '$DOCKERD_LOG' 2>&1 & echo \$! > '$PID_FILE'"
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && break
    sleep 1
  done
  if ! docker info >/dev/null 2>&1; then
    echo "docker.sh: dockerd did not answer within 60 s; its log:" >&2
    tail -n 30 "$DOCKERD_LOG" >&2 || true
    exit 1
  fi
fi

# The first Debian archive (not the security one) that the machine's apt sources name, deb822 or one-line style.
debian_mirror() {
  local sources=(/etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list /etc/apt/sources.list)
  local existing=()
  for f in "${sources[@]}"; do [ -f "$f" ] && existing+=("$f"); done
  [ ${#existing[@]} -gt 0 ] || return 0
  {
    grep -h '^URIs:' "${existing[@]}" 2>/dev/null | awk '{for (i = 2; i <= NF; i++) print $i}'
    grep -h '^deb ' "${existing[@]}" 2>/dev/null | sed 's/\[[^]]*\]//' | awk '{print $2}'
  } | grep -v -- '-security' | grep -i 'debian' | head -n 1
}

if docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
  echo "docker.sh: $BASE_IMAGE is present"
else
  mirror="$(debian_mirror || true)"
  if [ -z "$mirror" ]; then
    echo "docker.sh: no Debian mirror found in /etc/apt/sources.list.d/ or /etc/apt/sources.list" >&2
    exit 1
  fi
  rootfs="$(mktemp -d /tmp/pathfence-rootfs.XXXXXX)"
  trap 'as_root rm -rf "$rootfs"' EXIT
  echo "docker.sh: building $BASE_IMAGE (debootstrap bookworm minbase + openjdk-17-jre-headless)"
  as_root debootstrap --variant=minbase --include=openjdk-17-jre-headless bookworm "$rootfs" "$mirror" \
    > /tmp/pathfence-debootstrap.log 2>&1 || {
      echo "docker.sh: debootstrap failed; its log ends with:" >&2
      tail -n 30 /tmp/pathfence-debootstrap.log >&2
      exit 1
    }
  as_root rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  as_root tar -C "$rootfs" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["/bin/bash"]' - "$BASE_IMAGE" >/dev/null
  echo "docker.sh: built $BASE_IMAGE"
fi

# Each run tags its freshly built test images anew; the untagged ones of earlier runs are only disk.
docker image prune -f --filter label=org.testcontainers=true >/dev/null
