#!/usr/bin/env bash
# Builds everything a real node needs, into crdgen's cache (reused when present):
#   kubelet, kube-proxy   ../build.sh with CRDGEN_NODE_BINARIES=1 (same module and folder as kube-apiserver)
#   crictl                sigs.k8s.io/cri-tools (node.sh stop tears pod sandboxes down through CRI with it)
#   coredns               github.com/coredns/coredns with the plugins of coredns/main.go (the cluster DNS)
#   images                images.sh: the pause image and a Debian image, as OCI archives
#
#   bash controlplane/node/build.sh     # the last line on stdout is the binaries' folder
#
# Environment: CRDGEN_CRICTL_VERSION, CRDGEN_COREDNS_VERSION (defaults below), and those of ../build.sh and images.sh.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CRICTL_VERSION="${CRDGEN_CRICTL_VERSION:-1.37.0}"
CRICTL_VERSION="${CRICTL_VERSION#v}"
COREDNS_VERSION="${CRDGEN_COREDNS_VERSION:-1.15.0}"
COREDNS_VERSION="${COREDNS_VERSION#v}"

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
  GOWORK=off GOBIN="$gobin" CGO_ENABLED=0 go install -trimpath \
    -ldflags="-s -w -X sigs.k8s.io/cri-tools/pkg/version.Version=v$CRICTL_VERSION" \
    "sigs.k8s.io/cri-tools/cmd/crictl@v$CRICTL_VERSION" ||
    die "go install sigs.k8s.io/cri-tools/cmd/crictl@v$CRICTL_VERSION (set CRDGEN_CRICTL_VERSION to another release)"
  mv -f "$gobin/crictl" "$assets/crictl"
  rm -rf "$gobin"
  log "crictl $CRICTL_VERSION: built in $((SECONDS - start))s"
fi

# CoreDNS: its own module (its client-go differs from kubernetes'), with only the plugins main.go imports.
have="$("$assets/coredns" -version 2>/dev/null | sed -n 's/^CoreDNS-//p' || true)"
if [[ "$have" == "$COREDNS_VERSION" && "$(cat "$assets/coredns.key" 2>/dev/null)" == "$(sha256sum <"$SCRIPT_DIR/coredns/main.go")" ]]; then
  log "coredns $have: cached"
else
  start=$SECONDS
  work="$(mktemp -d "${TMPDIR:-/tmp}/crdgen-coredns.XXXXXX")"
  gomod="$(cd "$work" && GOWORK=off go mod download -json "github.com/coredns/coredns@v$COREDNS_VERSION" |
    sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')" || true
  [[ -n "$gomod" && -f "$gomod" ]] ||
    die "cannot resolve github.com/coredns/coredns@v$COREDNS_VERSION (set CRDGEN_COREDNS_VERSION to a release)"
  grep -v '^//' "$SCRIPT_DIR/coredns/go.mod.tmpl" |
    sed -e "s|@GO_DIRECTIVE@|$(grep -m1 -E '^go [0-9]' "$gomod")|" -e "s|@COREDNS_VERSION@|$COREDNS_VERSION|" \
      >"$work/go.mod"
  cp "$SCRIPT_DIR/coredns/main.go" "$work/"
  (cd "$work" && GOWORK=off go mod tidy >"$work/build.log" 2>&1 &&
    GOWORK=off CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$work/coredns" . >>"$work/build.log" 2>&1) ||
    { tail -n 30 "$work/build.log" >&2; die "building coredns $COREDNS_VERSION (set CRDGEN_COREDNS_VERSION to a release)"; }
  mv -f "$work/coredns" "$assets/coredns"
  sha256sum <"$SCRIPT_DIR/coredns/main.go" >"$assets/coredns.key"
  rm -rf "$work"
  have="$("$assets/coredns" -version 2>/dev/null | sed -n 's/^CoreDNS-//p' || true)"
  [[ "$have" == "$COREDNS_VERSION" ]] || die "the built coredns reports '${have:-nothing}', expected $COREDNS_VERSION"
  log "coredns $COREDNS_VERSION: built in $((SECONDS - start))s"
fi

bash "$SCRIPT_DIR/images.sh" >/dev/null
printf '%s\n' "$assets"
