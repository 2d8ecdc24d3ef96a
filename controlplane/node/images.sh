#!/usr/bin/env bash
# Builds the images a real node needs without a registry, as OCI image archives for `ctr images import`:
#   pause.oci.tar   localhost/crdgen/pause:1             the pod sandbox image (pause/main.go, a static Go binary)
#   debian.oci.tar  localhost/crdgen/debian:bookworm     a minimal Debian rootfs (mmdebstrap, the host's apt sources)
# into ${CRDGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/crdgen}/images/. An archive whose inputs did not change
# (its .key file) is reused; so is the Debian rootfs tar (rootfs/), the slow part (minutes: every package is
# downloaded). The last line printed on stdout is that folder.
#
#   bash controlplane/node/images.sh
#
# Needs root (mmdebstrap's root mode), Go and mmdebstrap (apt-get install mmdebstrap).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE_ROOT="${CRDGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/crdgen}"
OUT_DIR="$CACHE_ROOT/images"
SUITE="${CRDGEN_DEBIAN_SUITE:-bookworm}"
# The host's deb822 sources (the same mirror the host installs from), else Debian's default mirror.
APT_SOURCES="${CRDGEN_APT_SOURCES:-/etc/apt/sources.list.d/debian.sources}"

log() { printf 'images: %s\n' "$*" >&2; }
die() {
  log "FAILED: $*"
  exit 1
}
now_s() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now_s)" 'BEGIN { printf "%.1fs", b - a }'; }

mkdir -p "$OUT_DIR/rootfs"
# Every archive's key includes the wrapper that writes it.
wrapper_key="$(sha256sum "$SCRIPT_DIR/oci-image.sh" | cut -d' ' -f1)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/crdgen-images.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

# cached <file> <key>: true when the file exists and was built from the same key (<file>.key).
cached() { [[ -s "$1" && "$(cat "$1.key" 2>/dev/null)" == "$2" ]]; }
store() { # store <built file> <file> <key>
  mv -f "$1" "$2" && printf '%s' "$3" >"$2.key"
}

# --- pause ---------------------------------------------------------------------------------------------------------
key="pause $(cat "$SCRIPT_DIR/pause/main.go" "$SCRIPT_DIR/pause/go.mod" | sha256sum | cut -d' ' -f1)"
key+=" $(go env GOVERSION) $wrapper_key"
if cached "$OUT_DIR/pause.oci.tar" "$key"; then
  log "pause: cached"
else
  T="$(now_s)"
  mkdir -p "$WORK/pause-rootfs"
  (cd "$SCRIPT_DIR/pause" &&
    CGO_ENABLED=0 GOWORK=off go build -trimpath -ldflags='-s -w' -o "$WORK/pause-rootfs/pause" .) ||
    die "go build of the pause binary"
  tar -C "$WORK/pause-rootfs" --owner=0 --group=0 --numeric-owner --mtime=@0 -cf "$WORK/pause-rootfs.tar" ./pause
  bash "$SCRIPT_DIR/oci-image.sh" "$WORK/pause-rootfs.tar" localhost/crdgen/pause:1 "$WORK/pause.oci.tar" '["/pause"]'
  store "$WORK/pause.oci.tar" "$OUT_DIR/pause.oci.tar" "$key"
  log "pause: built in $(since "$T")"
fi

# --- debian ----------------------------------------------------------------------------------------------------------
command -v mmdebstrap >/dev/null 2>&1 || die "mmdebstrap is not installed (apt-get install mmdebstrap)"
[[ -f "$APT_SOURCES" ]] || APT_SOURCES="http://deb.debian.org/debian"
# debian_rootfs <name> <packages, comma-separated or empty>: a cached minbase rootfs tar with those packages.
debian_rootfs() {
  local file="$OUT_DIR/rootfs/$1.tar" key="debian $SUITE minbase ca-certificates${2:+,$2}" T
  if cached "$file" "$key"; then
    log "rootfs $1 ($SUITE): cached"
  else
    T="$(now_s)"
    mmdebstrap --quiet --variant=minbase --include="ca-certificates${2:+,$2}" "$SUITE" "$WORK/$1.tar" "$APT_SOURCES" ||
      die "mmdebstrap $SUITE (is the package mirror reachable? the sources used: $APT_SOURCES)"
    store "$WORK/$1.tar" "$file" "$key"
    log "rootfs $1 ($SUITE): built in $(since "$T")"
  fi
}
debian_rootfs debian ""
key="$(cat "$OUT_DIR/rootfs/debian.tar.key") $wrapper_key"
if cached "$OUT_DIR/debian.oci.tar" "$key"; then
  log "debian $SUITE: cached"
else
  bash "$SCRIPT_DIR/oci-image.sh" "$OUT_DIR/rootfs/debian.tar" "localhost/crdgen/debian:$SUITE" \
    "$WORK/debian.oci.tar" null '["/bin/bash"]'
  store "$WORK/debian.oci.tar" "$OUT_DIR/debian.oci.tar" "$key"
  log "debian $SUITE: image written"
fi

printf '%s\n' "$OUT_DIR"
