#!/usr/bin/env bash
# Prepares Docker for the integration tests, idempotently: installs Debian's Docker engine and debootstrap when
# they are missing, starts dockerd in the background when no engine answers, and builds the local base image
# the test images start FROM. No image can be pulled here, so the base image is made with debootstrap from the
# machine's own Debian mirror (read from its apt sources at run time) and `docker import`.
#
# A dockerd started by this script writes its pid to $PATHFENCE_DOCKERD_PID (default /tmp/pathfence-dockerd.pid)
# so the caller can stop it at the end; its log goes to /tmp/pathfence-dockerd.log.
#
# Runs as root (CI's machines run everything as root; elsewhere: sudo scripts/docker.sh): installing packages,
# starting dockerd, debootstrap and the Docker socket all need it, and so does stopping that dockerd by its pid.
set -euo pipefail
source "$(dirname "$0")/env.sh"

if [ "$(id -u)" -ne 0 ]; then
  echo "docker.sh: must run as root (it installs packages, starts dockerd and runs debootstrap): sudo $0" >&2
  exit 1
fi

BASE_IMAGE="${PATHFENCE_BASE_IMAGE:-pathfence/base-jre:bookworm}"
PID_FILE="${PATHFENCE_DOCKERD_PID:-/tmp/pathfence-dockerd.pid}"
DOCKERD_LOG=/tmp/pathfence-dockerd.log

if ! command -v dockerd >/dev/null 2>&1 || ! command -v debootstrap >/dev/null 2>&1; then
  echo "docker.sh: installing docker.io and debootstrap"
  apt-get update -q
  env DEBIAN_FRONTEND=noninteractive apt-get install -y -q docker.io debootstrap
fi

if ! docker info >/dev/null 2>&1; then
  echo "docker.sh: starting dockerd (log: $DOCKERD_LOG)"
  # The daemon must not inherit this script's open descriptors beyond stdio: a caller's lock (flock) or pipe
  # would stay held for as long as dockerd runs.
  (
    for fd in /proc/$BASHPID/fd/*; do
      n="${fd##*/}"
      if [ "$n" -gt 2 ] 2>/dev/null; then eval "exec $n>&-" 2>/dev/null || true; fi
    done
    exec dockerd > "$DOCKERD_LOG" 2>&1 < /dev/null
  ) &
  echo $! > "$PID_FILE"
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

# The release the base image is made of: bookworm packages the JRE (17) the test images run.
RELEASE=bookworm
# The machine's Debian archive: the first apt source whose suites include $RELEASE or the machine's own release
# itself (not -security, not -updates) with the component main, deb822 or one-line style. Matching on the suite,
# not on the URI, keeps third-party repositories with "debian" in their address (download.docker.com/linux/debian)
# out; any Debian mirror serves every release, so the machine's own one is good for $RELEASE too.
# The machine's own codename counts only on Debian: an Ubuntu archive matching its own codename is no source of
# Debian packages.
CODENAME="$( (. /etc/os-release && [ "${ID:-}" = debian ] && echo "${VERSION_CODENAME:-}") 2>/dev/null || true)"
SUITES="^(${RELEASE}${CODENAME:+|$CODENAME})\$"
debian_mirror() {
  local existing=()
  for f in /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list /etc/apt/sources.list; do
    [ -f "$f" ] && existing+=("$f")
  done
  [ ${#existing[@]} -gt 0 ] || return 0
  {
    # deb822: one stanza per blank-line-separated block (awk's paragraph mode).
    for f in "${existing[@]}"; do
      case "$f" in *.sources) awk -v RS= -v wanted="$SUITES" '
        {
          types = uris = suites = comps = ""
          n = split($0, lines, "\n")
          for (i = 1; i <= n; i++) {
            line = lines[i]
            if (line ~ /^Types:/) types = line
            else if (line ~ /^URIs:/) { sub(/^URIs:[ \t]*/, "", line); uris = line }
            else if (line ~ /^Suites:/) suites = " " substr(line, 8) " "
            else if (line ~ /^Components:/) comps = " " substr(line, 12) " "
          }
          found = 0
          m = split(suites, names, /[ \t]+/)
          for (i = 1; i <= m; i++) if (names[i] ~ wanted) found = 1
          if (types ~ /(^|[ \t:])deb([ \t]|$)/ && found && comps ~ /[ \t]main[ \t]/) {
            split(uris, first, /[ \t]+/); print first[1]
          }
        }' "$f" ;;
      esac
    done
    # One-line style: deb [options] URI SUITE COMPONENT...
    for f in "${existing[@]}"; do
      case "$f" in *.list) sed 's/\[[^]]*\]//' "$f" \
        | awk -v wanted="$SUITES" '$1 == "deb" && $3 ~ wanted { for (i = 4; i <= NF; i++) if ($i == "main") { print $2; break } }' ;;
      esac
    done
  } | head -n 1
}

if docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
  echo "docker.sh: $BASE_IMAGE is present"
else
  mirror="$(debian_mirror || true)"
  if [ -z "$mirror" ]; then
    echo "docker.sh: no apt source for Debian $RELEASE${CODENAME:+ or $CODENAME} main in /etc/apt/sources.list.d/ or /etc/apt/sources.list" >&2
    exit 1
  fi
  rootfs="$(mktemp -d /tmp/pathfence-rootfs.XXXXXX)"
  trap 'rm -rf "$rootfs"' EXIT
  echo "docker.sh: building $BASE_IMAGE (debootstrap $RELEASE minbase + openjdk-17-jre-headless, from $mirror)"
  debootstrap --variant=minbase --include=openjdk-17-jre-headless "$RELEASE" "$rootfs" "$mirror" \
    > /tmp/pathfence-debootstrap.log 2>&1 || {
      echo "docker.sh: debootstrap failed; its log ends with:" >&2
      tail -n 30 /tmp/pathfence-debootstrap.log >&2
      exit 1
    }
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["/bin/bash"]' - "$BASE_IMAGE" >/dev/null
  echo "docker.sh: built $BASE_IMAGE"
fi

# Each run tags its freshly built test images anew; the untagged ones of earlier runs are only disk.
docker image prune -f --filter label=org.testcontainers=true >/dev/null
