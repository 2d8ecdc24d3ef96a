#!/usr/bin/env bash
# Builds the local Kubernetes control plane used by the tests (envtest-style):
# etcd, kube-apiserver and kubectl, plus kube-controller-manager, kube-scheduler
# and kwok for startControlPlane({ controllers: true }), compiled from Go modules
# with the local Go toolchain (no prebuilt binaries are downloaded).
#
#   npm run controlplane:build          # or: bash controlplane/build.sh
#
# Binaries land in a cache outside the repo:
#   ${CRDGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/crdgen}/controlplane/<kube version>/
#     etcd kube-apiserver kubectl kube-controller-manager kube-scheduler kwok
# A binary that is already there and reports the wanted version is reused, so
# a second run takes well under a second. The last line printed on stdout is
# that folder, ready for KUBEBUILDER_ASSETS:
#   export KUBEBUILDER_ASSETS="$(bash controlplane/build.sh)"
# If KUBEBUILDER_ASSETS is already set to a folder, it is used and nothing is built.
#
# Environment:
#   CRDGEN_KUBE_VERSION   kube-apiserver/kubectl/kube-controller-manager/kube-scheduler release
#                         (k8s.io/kubernetes module), default below
#   CRDGEN_ETCD_VERSION   etcd release (go.etcd.io/etcd/server/v3 module), default below
#   CRDGEN_KWOK_VERSION   kwok release (sigs.k8s.io/kwok module), default below; "none" skips kwok.
#                         kwok is optional: if it cannot be resolved or built, the script warns
#                         and still succeeds (only fake-node tests need it).
#   CRDGEN_CONTROLLERS    0 = only etcd, kube-apiserver and kubectl (setup-envtest's set, all envtest's tests need;
#                         what `crdgen envtest` builds unless given --controllers); default 1 also builds
#                         kube-controller-manager, kube-scheduler and kwok
#   CRDGEN_NODE_BINARIES  1 = also build kubelet and kube-proxy (same module, same folder) for a real node
#                         (controlplane/node/); off by default, so a control-plane-only cache stays valid
#   CRDGEN_CACHE_DIR      cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/crdgen)
#   CRDGEN_BUILD_VERBOSE  1 = stream the go command's output instead of keeping it for errors
#   GOTOOLCHAIN           passed through; needed only if a module's go line is newer than the local Go
#
# Kubernetes 1.37 pins etcd client 3.7 and kubeadm's default etcd for 1.37 is
# 3.7.0, so the etcd default follows that line (3.6.x also works with 1.37).
# kwok 0.8.0 is the newest release; it is built against client-go 0.36 and Go 1.26
# in its own module (its dependency versions differ from kubernetes').
set -euo pipefail

KUBE_VERSION="${CRDGEN_KUBE_VERSION:-1.37.2}"
ETCD_VERSION="${CRDGEN_ETCD_VERSION:-3.7.3}"
KWOK_VERSION="${CRDGEN_KWOK_VERSION:-0.8.0}"

KUBE_VERSION="${KUBE_VERSION#v}"
ETCD_VERSION="${ETCD_VERSION#v}"
KWOK_VERSION="${KWOK_VERSION#v}"
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Built by one `go build` from the k8s.io/kubernetes module, so they share compiled packages.
KUBE_BINARIES=(kube-apiserver kubectl)
CONTROLLERS="${CRDGEN_CONTROLLERS:-1}"
[[ "$CONTROLLERS" == 1 ]] && KUBE_BINARIES+=(kube-controller-manager kube-scheduler)
[[ "${CRDGEN_NODE_BINARIES:-0}" == 1 ]] && KUBE_BINARIES+=(kubelet kube-proxy)
BINARIES=(etcd "${KUBE_BINARIES[@]}")
[[ "$CONTROLLERS" != 1 || "$KWOK_VERSION" == none ]] || BINARIES+=(kwok)

log() { printf 'controlplane:build: %s\n' "$*" >&2; }
die() {
  log "FAILED: $*"
  exit 1
}

# Microseconds since the epoch (bash >= 5 has EPOCHREALTIME; fall back to date).
now_us() {
  if [[ -n "${EPOCHREALTIME:-}" ]]; then
    local t="${EPOCHREALTIME/[.,]/}"
    printf '%s' "$t"
  else
    printf '%s' "$(($(date +%s%N) / 1000))"
  fi
}
fmt_since() { # $1 = start in microseconds
  local us=$(($(now_us) - $1))
  printf '%d.%01ds' $((us / 1000000)) $(((us % 1000000) / 100000))
}

# --- an existing KUBEBUILDER_ASSETS folder wins --------------------------------
if [[ -n "${KUBEBUILDER_ASSETS:-}" ]]; then
  if [[ ! -d "$KUBEBUILDER_ASSETS" ]]; then
    die "KUBEBUILDER_ASSETS is set to '$KUBEBUILDER_ASSETS', which is not a folder (unset it to build the binaries)"
  fi
  log "KUBEBUILDER_ASSETS is set: using '$KUBEBUILDER_ASSETS', nothing to build"
  for b in "${BINARIES[@]}"; do
    case "$b" in
    etcd | kube-apiserver | kubectl) [[ -x "$KUBEBUILDER_ASSETS/$b" ]] || log "warning: '$KUBEBUILDER_ASSETS/$b' is missing or not executable" ;;
    kubelet | kube-proxy) [[ -x "$KUBEBUILDER_ASSETS/$b" ]] || log "warning: '$KUBEBUILDER_ASSETS/$b' is missing (a real node needs it)" ;;
    *) [[ -x "$KUBEBUILDER_ASSETS/$b" ]] || log "note: '$KUBEBUILDER_ASSETS/$b' is missing (needed only by startControlPlane({ controllers: true }))" ;;
    esac
  done
  printf '%s\n' "$KUBEBUILDER_ASSETS"
  exit 0
fi

CACHE_ROOT="${CRDGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/crdgen}"
OUT_DIR="$CACHE_ROOT/controlplane/$KUBE_VERSION"
mkdir -p "$OUT_DIR" || die "cannot create the cache folder '$OUT_DIR'"
OUT_DIR="$(cd "$OUT_DIR" && pwd)"

# --- reuse what is cached --------------------------------------------------------
# Prints the version a binary reports, or nothing.
binary_version() {
  local bin="$1" out=""
  [[ -x "$OUT_DIR/$bin" ]] || return 0
  case "$bin" in
  etcd) out="$("$OUT_DIR/etcd" --version 2>/dev/null | sed -n 's/^etcd Version: *//p')" || true ;;
  kube-apiserver) out="$("$OUT_DIR/kube-apiserver" --version 2>/dev/null | sed -n 's/^Kubernetes v//p')" || true ;;
  kubectl) out="$("$OUT_DIR/kubectl" version --client 2>/dev/null | sed -n 's/^Client Version: v//p')" || true ;;
  kube-controller-manager | kube-scheduler | kube-proxy | kubelet) out="$("$OUT_DIR/$bin" --version 2>/dev/null | sed -n 's/^Kubernetes v//p')" || true ;;
  kwok) out="$("$OUT_DIR/kwok" --version 2>/dev/null | sed -n 's/^kwok version v\{0,1\}\([^ ]*\).*$/\1/p')" || true ;;
  esac
  printf '%s' "$out"
}
wanted_version() {
  case "$1" in
  etcd) printf '%s' "$ETCD_VERSION" ;;
  kwok) printf '%s' "$KWOK_VERSION" ;;
  *) printf '%s' "$KUBE_VERSION" ;;
  esac
}
missing=()
check_cache() {
  missing=()
  local b have
  for b in "${BINARIES[@]}"; do
    have="$(binary_version "$b")"
    if [[ "$b" == kwok && ! -s "$OUT_DIR/kwok-stages.yaml" ]]; then
      have="" # kwok is useless without the stage definitions extracted beside it
    fi
    if [[ "$have" == "$(wanted_version "$b")" ]]; then
      log "$b $have: cached"
    else
      [[ -e "$OUT_DIR/$b" ]] && log "$b: cached binary reports '${have:-nothing}', want $(wanted_version "$b"): rebuilding"
      missing+=("$b")
    fi
  done
}

T_TOTAL="$(now_us)"
with_kwok=""
[[ " ${BINARIES[*]} " == *" kwok "* ]] && with_kwok=", kwok $KWOK_VERSION"
log "kube $KUBE_VERSION, etcd $ETCD_VERSION$with_kwok, into $OUT_DIR"
check_cache
if ((${#missing[@]} > 0)) && command -v flock >/dev/null 2>&1; then
  # Another build of the same version may be running: wait for it, then look again.
  exec 9>"$OUT_DIR/.build.lock"
  if ! flock -n 9; then
    log "another controlplane build holds $OUT_DIR/.build.lock: waiting"
    flock 9
    check_cache
  fi
fi
if ((${#missing[@]} == 0)); then
  log "all binaries present ($(fmt_since "$T_TOTAL"))"
  printf '%s\n' "$OUT_DIR"
  exit 0
fi
needs() { # true if any of the named binaries is missing
  local b w
  for b in "${missing[@]}"; do
    for w in "$@"; do [[ "$b" == "$w" ]] && return 0; done
  done
  return 1
}

# --- Go environment ----------------------------------------------------------------
command -v go >/dev/null 2>&1 || die "building the control plane needs Go 1.26 or newer (kube 1.37's modules say so), and 'go' is not on PATH: install Go, then run this again"
log "using $(go version)${GOTOOLCHAIN:+ (GOTOOLCHAIN=$GOTOOLCHAIN)}"
export GOWORK=off GO111MODULE=on CGO_ENABLED=0
unset GOOS GOARCH || true # build for this machine

WORK="$(mktemp -d "${TMPDIR:-/tmp}/crdgen-controlplane.XXXXXX")" || die "cannot create a temporary folder"
trap 'rm -rf "$WORK"' EXIT

# run_step <label> <log name> <command...>: runs in the current folder, times it,
# keeps the output in a log and prints its tail if the command fails.
run_step() {
  local label="$1" name="$2" start rc=0
  shift 2
  start="$(now_us)"
  log "$label ..."
  if [[ "${CRDGEN_BUILD_VERBOSE:-0}" == 1 ]]; then
    "$@" >&2 || rc=$?
  else
    "$@" >"$WORK/$name.log" 2>&1 || rc=$?
  fi
  if ((rc != 0)); then
    if [[ -s "$WORK/$name.log" ]]; then
      log "last lines of the output of: $*"
      tail -n 40 "$WORK/$name.log" | sed 's/^/    /' >&2
    fi
    die "$label (exit $rc)${HINT:+; $HINT}"
  fi
  log "$label: done in $(fmt_since "$start")"
}

# Field of `go list -m -json <module>@<version>` (fetches only .info and .mod).
module_field() { # $1 module@version, $2 field
  (cd "$WORK" && go list -m -json "$1") | sed -n "s/^[[:space:]]*\"$2\": \"\(.*\)\",\{0,1\}$/\1/p" | head -n 1
}

render() { # $1 template, $2 output, then sed expressions
  local tmpl="$1" out="$2"
  shift 2
  grep -v '^//' "$tmpl" | sed "$@" >"$out"
}

# --- resolve the wanted releases first (cheap), so a bad version fails before any build ---
T="$(now_us)"
if needs etcd; then
  etcd_gomod="$(module_field "go.etcd.io/etcd/server/v3@v$ETCD_VERSION" GoMod)" || true
  [[ -n "$etcd_gomod" && -f "$etcd_gomod" ]] || die "cannot resolve go.etcd.io/etcd/server/v3@v$ETCD_VERSION from the Go module proxy (is it a released version? set CRDGEN_ETCD_VERSION)"
fi
if needs "${KUBE_BINARIES[@]}"; then
  kube_gomod="$(module_field "k8s.io/kubernetes@v$KUBE_VERSION" GoMod)" || true
  [[ -n "$kube_gomod" && -f "$kube_gomod" ]] || die "cannot resolve k8s.io/kubernetes@v$KUBE_VERSION from the Go module proxy (is it a released version? set CRDGEN_KUBE_VERSION)"
  kube_time="$(module_field "k8s.io/kubernetes@v$KUBE_VERSION" Time)" || true
fi
kwok_gomod=""
if needs kwok; then
  kwok_gomod="$(module_field "sigs.k8s.io/kwok@v$KWOK_VERSION" GoMod)" || true
  if [[ -z "$kwok_gomod" || ! -f "$kwok_gomod" ]]; then
    log "warning: cannot resolve sigs.k8s.io/kwok@v$KWOK_VERSION from the Go module proxy: kwok is skipped (set CRDGEN_KWOK_VERSION to another release, or to none)"
    kwok_gomod=""
  fi
fi
log "releases resolved in $(fmt_since "$T")"

# --- etcd ------------------------------------------------------------------------------
if needs etcd; then
  HINT="etcd $ETCD_VERSION could not be built; try another release with CRDGEN_ETCD_VERSION"
  T="$(now_us)"
  mkdir -p "$WORK/etcd"
  etcd_go="$(grep -m1 -E '^go [0-9]' "$etcd_gomod")"
  render "$SCRIPT_DIR/etcd.go.mod.tmpl" "$WORK/etcd/go.mod" \
    -e "s|@GO_DIRECTIVE@|$etcd_go|" -e "s|@ETCD_VERSION@|$ETCD_VERSION|g"
  (cd "$WORK/etcd" && run_step "etcd: resolve modules" etcd-tidy go mod tidy)
  (cd "$WORK/etcd" && run_step "etcd: go build" etcd-build \
    go build -trimpath -ldflags='-s -w' -o "$WORK/etcd/etcd" go.etcd.io/etcd/server/v3)
  mv -f "$WORK/etcd/etcd" "$OUT_DIR/etcd.tmp.$$" && mv -f "$OUT_DIR/etcd.tmp.$$" "$OUT_DIR/etcd"
  got="$(binary_version etcd)"
  [[ "$got" == "$ETCD_VERSION" ]] || die "the built etcd reports version '${got:-nothing}', expected $ETCD_VERSION"
  log "etcd $got: built in $(fmt_since "$T")"
fi

# --- kube-apiserver, kubectl, kube-controller-manager and kube-scheduler ----------------------
if needs "${KUBE_BINARIES[@]}"; then
  HINT="kube $KUBE_VERSION could not be built; an earlier release can be chosen with CRDGEN_KUBE_VERSION (e.g. 1.36.3)"
  T="$(now_us)"
  mkdir -p "$WORK/kube"
  kube_go="$(grep -m1 -E '^go [0-9]' "$kube_gomod")"
  kube_godebug="$(grep -m1 -E '^godebug ' "$kube_gomod" || true)"
  # Staging modules: k8s.io/<name> => ./staging/src/k8s.io/<name> in kubernetes' go.mod,
  # published as k8s.io/<name> v0.<minor>.<patch>.
  staging_version="0.${KUBE_VERSION#*.}"
  replaces="$(sed -n -E 's#^[[:space:]]*(replace[[:space:]]+)?(k8s\.io/[A-Za-z0-9._/-]+)[[:space:]]+=>[[:space:]]+\./staging/src/.*$#\2#p' "$kube_gomod" |
    awk -v v="$staging_version" '{ printf "\t%s => %s v%s\\n", $1, $1, v }')"
  [[ -n "$replaces" ]] || die "found no staging replace directives in k8s.io/kubernetes@v$KUBE_VERSION's go.mod"
  log "kube: pinning $(printf '%b' "$replaces" | grep -c .) staging modules to v$staging_version"
  # Only the commands being built are tools of the module, so tidy resolves no more than they need.
  tools="$(printf '\\tk8s.io/kubernetes/cmd/%s\\n' "${KUBE_BINARIES[@]}")"
  render "$SCRIPT_DIR/go.mod.tmpl" "$WORK/kube/go.mod" \
    -e "s|@GO_DIRECTIVE@|$kube_go|" -e "s|@GODEBUG_DIRECTIVE@|$kube_godebug|" -e "s|@TOOLS@|$tools|" \
    -e "s|@KUBE_VERSION@|$KUBE_VERSION|g" -e "s|@STAGING_REPLACES@|$replaces|"
  (cd "$WORK/kube" && run_step "kube: resolve modules" kube-tidy go mod tidy)

  # Version stamp, as kubernetes' hack/lib/version.sh does it.
  minor="${KUBE_VERSION#*.}"
  minor="${minor%%.*}"
  build_date=""
  if [[ -n "$kube_time" ]]; then # the release's module time, e.g. 2026-01-02T03:04:05Z
    build_date="${kube_time%%.*}"
    build_date="${build_date%Z}Z"
  fi
  ldflags="-s -w"
  for pkg in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
    ldflags+=" -X $pkg.gitVersion=v$KUBE_VERSION -X $pkg.gitMajor=${KUBE_VERSION%%.*} -X $pkg.gitMinor=$minor"
    ldflags+=" -X $pkg.gitTreeState=clean"
    [[ -n "$build_date" ]] && ldflags+=" -X $pkg.buildDate=$build_date"
  done
  # One go build for every missing binary: shared packages are compiled once and the
  # compile steps of all of them run in parallel.
  kube_build=()
  for b in "${KUBE_BINARIES[@]}"; do
    needs "$b" && kube_build+=("$b")
  done
  TB="$(now_us)"
  mkdir -p "$WORK/kube/bin"
  (cd "$WORK/kube" && run_step "${kube_build[*]}: go build" kube-build \
    go build -trimpath -ldflags="$ldflags" -o "$WORK/kube/bin/" "${kube_build[@]/#/k8s.io/kubernetes/cmd/}")
  for b in "${kube_build[@]}"; do
    mv -f "$WORK/kube/bin/$b" "$OUT_DIR/$b.tmp.$$" && mv -f "$OUT_DIR/$b.tmp.$$" "$OUT_DIR/$b"
    got="$(binary_version "$b")"
    [[ "$got" == "$KUBE_VERSION" ]] || die "the built $b reports version '${got:-nothing}', expected $KUBE_VERSION"
  done
  log "${kube_build[*]} v$KUBE_VERSION: built in $(fmt_since "$TB")"
fi

# --- kwok (optional) --------------------------------------------------------------------------
# Its own module like etcd. A failure is a warning: everything but fake nodes works without it.
build_kwok() { # runs in a subshell, where set -e does not apply: every step says || exit 1
  HINT="kwok $KWOK_VERSION could not be built; try another release with CRDGEN_KWOK_VERSION, or CRDGEN_KWOK_VERSION=none"
  mkdir -p "$WORK/kwok" || exit 1
  local kwok_go got
  kwok_go="$(grep -m1 -E '^go [0-9]' "$kwok_gomod")" || exit 1
  render "$SCRIPT_DIR/kwok.go.mod.tmpl" "$WORK/kwok/go.mod" \
    -e "s|@GO_DIRECTIVE@|$kwok_go|" -e "s|@KWOK_VERSION@|$KWOK_VERSION|g" || exit 1
  (cd "$WORK/kwok" && run_step "kwok: resolve modules" kwok-tidy go mod tidy) || exit 1
  (cd "$WORK/kwok" && run_step "kwok: go build" kwok-build \
    go build -trimpath -ldflags="-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=$KWOK_VERSION" -o "$WORK/kwok/kwok" sigs.k8s.io/kwok/cmd/kwok) || exit 1
  # kwok acts only through Stage objects; kwokctl installs its default ones. Take the same defaults from the module
  # (node initialisation, node heartbeat with a Lease, pods ready/complete/delete), so nothing of kwok is committed here.
  local kwok_src
  kwok_src="$(cd "$WORK/kwok" && go mod download -json "sigs.k8s.io/kwok@v$KWOK_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')" || exit 1
  [[ -d "$kwok_src/kustomize/stage" ]] || { log "kwok $KWOK_VERSION: its module has no kustomize/stage folder"; exit 1; }
  {
    for stage_dir in node/fast node/heartbeat-with-lease pod/fast; do
      for f in "$kwok_src/kustomize/stage/$stage_dir"/*.yaml; do
        [[ "$(basename "$f")" == kustomization.yaml ]] && continue
        printf -- '---\n'
        cat "$f"
      done
    done
  } >"$OUT_DIR/kwok-stages.yaml.tmp.$$" && mv -f "$OUT_DIR/kwok-stages.yaml.tmp.$$" "$OUT_DIR/kwok-stages.yaml" || exit 1
  mv -f "$WORK/kwok/kwok" "$OUT_DIR/kwok.tmp.$$" && mv -f "$OUT_DIR/kwok.tmp.$$" "$OUT_DIR/kwok" || exit 1
  got="$(binary_version kwok)"
  [[ "$got" == "$KWOK_VERSION" ]] || die "the built kwok reports version '${got:-nothing}', expected $KWOK_VERSION"
}
if needs kwok && [[ -n "$kwok_gomod" ]]; then
  T="$(now_us)"
  if (build_kwok); then
    log "kwok $KWOK_VERSION: built in $(fmt_since "$T")"
  else
    log "warning: kwok $KWOK_VERSION was not built (see above); the control plane works without it, but pods stay Pending (no node)"
  fi
fi

log "done in $(fmt_since "$T_TOTAL"): $OUT_DIR ($(du -sh "$OUT_DIR" | cut -f1))"
printf '%s\n' "$OUT_DIR"
