#!/usr/bin/env bash
# Builds everything a real node needs, into crdgen's cache (reused when present):
#   kubelet, kube-proxy   ../build.sh with CRDGEN_NODE_BINARIES=1 (same module and folder as kube-apiserver)
#   crictl                sigs.k8s.io/cri-tools (node.sh stop tears pod sandboxes down through CRI with it)
#   images                images.sh: the pause image and a Debian image, as OCI archives
#
#   bash controlplane/node/build.sh     # the last line on stdout is the binaries' folder
#
# Environment: CRDGEN_CRICTL_VERSION (default below), and those of ../build.sh and images.sh.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CRICTL_VERSION="${CRDGEN_CRICTL_VERSION:-1.37.0}"
CRICTL_VERSION="${CRICTL_VERSION#v}"

log() { printf 'node:build: %s\n' "$*" >&2; }
die() {
  log "FAILED: $*"
  exit 1
}

assets="$(CRDGEN_NODE_BINARIES=1 bash "$SCRIPT_DIR/../build.sh" | tail -n 1)"
[[ -d "$assets" ]] || die "controlplane/build.sh did not print its folder"

have="$("$assets/crictl" --version 2>/dev/null | sed -n 's/^crictl version v//p' || true)"
if [[ "$have" == "$CRICTL_VERSION" ]]; then
  log "crictl $have: cached"
else
  start=$SECONDS
  gobin="$(mktemp -d "${TMPDIR:-/tmp}/crdgen-crictl.XXXXXX")"
  trap 'rm -rf "$gobin"' EXIT
  GOWORK=off GOBIN="$gobin" CGO_ENABLED=0 go install -trimpath \
    -ldflags="-s -w -X sigs.k8s.io/cri-tools/pkg/version.Version=v$CRICTL_VERSION" \
    "sigs.k8s.io/cri-tools/cmd/crictl@v$CRICTL_VERSION" ||
    die "go install sigs.k8s.io/cri-tools/cmd/crictl@v$CRICTL_VERSION (set CRDGEN_CRICTL_VERSION to another release)"
  mv -f "$gobin/crictl" "$assets/crictl"
  log "crictl $CRICTL_VERSION: built in $((SECONDS - start))s"
fi

bash "$SCRIPT_DIR/images.sh" >/dev/null
printf '%s\n' "$assets"
