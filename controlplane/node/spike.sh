#!/usr/bin/env bash
# The real-node spike in one command: builds what is missing, starts the local control plane and a real node, runs one
# Pod from the locally built Debian image to Running and Ready (exec readiness probe), deletes it, stops everything and
# checks nothing is left behind. Prints how long each step took.
#
#   sudo bash controlplane/node/spike.sh      # from the repository, after npm ci && npm run build
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$SCRIPT_DIR/../.." && pwd)"
log() { printf 'spike: %s\n' "$*" >&2; }
die() {
  log "FAILED: $*"
  exit 1
}
now_s() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now_s)" 'BEGIN { printf "%.1fs", b - a }'; }
timings=()
step_done() { # step_done <label> <start>
  local t
  t="$(since "$2")"
  timings+=("$(printf '%-44s %s' "$1" "$t")")
  log "$1: $t"
}

[[ "$(id -u)" == 0 ]] || die "run as root (containerd, runc, CNI and cgroups need it)"
[[ -f "$REPO/runtime/dist/envtest/index.js" ]] || die "runtime/dist is missing: run npm run build first"

T0="$(now_s)"
T="$(now_s)"
assets="$(bash "$SCRIPT_DIR/build.sh" | tail -n 1)"
step_done "binaries and images (build or cache)" "$T"
export KUBEBUILDER_ASSETS="$assets"
kubectl=("$assets/kubectl")

WORK="$(mktemp -d "${TMPDIR:-/tmp}/crdgen-spike.XXXXXX")"
cp_pid=""
cleanup() {
  local rc=$?
  set +e
  if [[ -s "$WORK/node/node-name" ]]; then
    local T
    T="$(now_s)"
    bash "$SCRIPT_DIR/node.sh" stop "$WORK/node" || rc=1
    step_done "node stopped, no leftovers" "$T"
  fi
  if [[ -n "$cp_pid" ]]; then
    kill -TERM "$cp_pid" 2>/dev/null
    wait "$cp_pid" 2>/dev/null
  fi
  rm -rf "$WORK"
  if ((rc == 0)); then
    log "timings:"
    printf '  %s\n' "${timings[@]}" >&2
    log "total $(since "$T0")"
  fi
  exit "$rc"
}
trap cleanup EXIT

T="$(now_s)"
(cd "$REPO" && exec node "$SCRIPT_DIR/control-plane.mjs" "$WORK/control-plane.json") >"$WORK/control-plane.log" 2>&1 &
cp_pid=$!
until [[ -s "$WORK/control-plane.json" ]]; do
  kill -0 "$cp_pid" 2>/dev/null || { cat "$WORK/control-plane.log" >&2; die "the control plane did not start"; }
  sleep 0.5
done
kubeconfig="$(sed -n 's/.*"kubeconfigPath":"\([^"]*\)".*/\1/p' "$WORK/control-plane.json")"
kubectl+=("--kubeconfig=$kubeconfig")
step_done "control plane (etcd, apiserver, controllers)" "$T"

T="$(now_s)"
node_name="$(bash "$SCRIPT_DIR/node.sh" start "$WORK/node" "$kubeconfig" | tail -n 1)"
step_done "node $node_name Ready (containerd, images, kubelet)" "$T"

T="$(now_s)"
"${kubectl[@]}" apply -f "$SCRIPT_DIR/spike-pod.yaml" >/dev/null
"${kubectl[@]}" wait --for=condition=Ready pod/crdgen-spike --timeout=180s >/dev/null || {
  "${kubectl[@]}" describe pod crdgen-spike >&2
  die "the spike Pod did not become Ready"
}
phase="$("${kubectl[@]}" get pod crdgen-spike -o jsonpath='{.status.phase} {.status.podIP}')"
step_done "Pod Running and Ready ($phase)" "$T"

T="$(now_s)"
"${kubectl[@]}" delete pod crdgen-spike --wait=true --timeout=120s >/dev/null
# The kubelet stopped the sandbox: no pod sandbox of the node is ready any more.
crictl=("$assets/crictl" --config "$WORK/node/crictl.yaml")
deadline=$((SECONDS + 60))
until [[ -z "$("${crictl[@]}" pods --state ready -q)" ]]; do
  ((SECONDS < deadline)) || die "the Pod's sandbox is still ready a minute after the Pod was deleted"
  sleep 0.5
done
step_done "Pod deleted, sandbox stopped" "$T"
