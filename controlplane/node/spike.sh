#!/usr/bin/env bash
# The real-node spike in one command: builds what is missing, starts the local control plane and a real node, runs the
# Pods of a manifest to Running and Ready (by default spike-pod.yaml: one Pod of the locally built Debian image with an
# exec readiness probe), runs each Pod's crdgen.invalid/check command in its container, deletes them, stops
# everything and checks nothing is left behind. Prints how long each step took.
#
#   sudo bash controlplane/node/spike.sh [manifest]   # from the repository, after npm ci && npm run build
#   sudo bash controlplane/node/spike.sh controlplane/node/images-pods.yaml   # the MariaDB and operator images
#
# In the manifest, @IMAGE_<name>@ and @VERSION_<name>@ stand for the image images.sh builds as <name> and its tag.
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

manifest="${1:-$SCRIPT_DIR/spike-pod.yaml}"
[[ -f "$manifest" ]] || die "no manifest at '$manifest'"
[[ "$(id -u)" == 0 ]] || die "run as root (containerd, runc, CNI and cgroups need it)"
[[ -f "$REPO/runtime/dist/envtest/index.js" ]] || die "runtime/dist is missing: run npm run build first"

T0="$(now_s)"
T="$(now_s)"
assets="$(bash "$SCRIPT_DIR/build.sh" | tail -n 1)"
# The images the manifest names, on top of build.sh's pause and debian.
mapfile -t wanted < <(grep -o '@IMAGE_[a-z]*@' "$manifest" | sed 's/@IMAGE_\(.*\)@/\1/' | sort -u)
images_dir="$(bash "$SCRIPT_DIR/images.sh" pause debian "${wanted[@]}" | tail -n 1)"
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

# The manifest with its image placeholders filled in.
cp "$manifest" "$WORK/pods.yaml"
for name in "${wanted[@]}"; do
  ref="$(cat "$images_dir/$name.oci.tar.image")"
  sed -i -e "s|@IMAGE_$name@|$ref|g" -e "s|@VERSION_$name@|${ref##*:}|g" "$WORK/pods.yaml"
done

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
"${kubectl[@]}" apply -f "$WORK/pods.yaml" >/dev/null
pod_names='{range .items[?(@.kind=="Pod")]}{.metadata.name}{"\n"}{end}'
mapfile -t pods < <("${kubectl[@]}" get -f "$WORK/pods.yaml" -o jsonpath="$pod_names")
for pod in "${pods[@]}"; do
  "${kubectl[@]}" wait --for=condition=Ready "pod/$pod" --timeout=300s >/dev/null || {
    "${kubectl[@]}" describe pod "$pod" >&2
    die "Pod $pod did not become Ready"
  }
done
ips="$("${kubectl[@]}" get pods "${pods[@]}" -o jsonpath='{range .items[*]}{.metadata.name}={.status.podIP} {end}')"
step_done "${#pods[@]} Pod(s) Running and Ready ($ips)" "$T"

crictl=("$assets/crictl" --config "$WORK/node/crictl.yaml")
T="$(now_s)"
for pod in "${pods[@]}"; do
  check="$("${kubectl[@]}" get pod "$pod" -o jsonpath='{.metadata.annotations.crdgen\.invalid/check}')"
  [[ -n "$check" ]] || continue
  container="$("${crictl[@]}" ps -q --label "io.kubernetes.pod.name=$pod" 2>/dev/null | head -n 1)"
  out="$("${crictl[@]}" exec "$container" sh -c "$check" 2>&1)" || die "check of $pod failed: $check: $out"
  log "check of $pod passed: $check${out:+ -> $out}"
done
step_done "checks in the containers" "$T"

T="$(now_s)"
"${kubectl[@]}" delete -f "$WORK/pods.yaml" --wait=true --timeout=120s >/dev/null
# The kubelet stopped the sandboxes: no pod sandbox of the node is ready any more.
deadline=$((SECONDS + 60))
until [[ -z "$("${crictl[@]}" pods --state ready -q)" ]]; do
  ((SECONDS < deadline)) || die "a Pod sandbox is still ready a minute after the Pods were deleted"
  sleep 0.5
done
step_done "Pods deleted, sandboxes stopped" "$T"
