#!/usr/bin/env bash
# A real node for the local control plane: containerd (Debian's 1.6) + runc + the CNI bridge, host-local and loopback
# plugins, kubelet, kube-proxy and CoreDNS, everything configured in one folder and nothing installed system-wide.
#
#   bash controlplane/node/node.sh start <folder> <kubeconfig>   # prints the node name once it is Ready
#   bash controlplane/node/node.sh stop <folder>                 # stops it and removes what it made
#   bash controlplane/node/node.sh leftovers <folder>            # lists what stop should have removed (exit 1 if any)
#
# Needs root and what `bash controlplane/node/build.sh` builds: kubelet, kube-proxy, kubectl, crictl, coredns, and the
# images (the pause image is containerd's sandbox_image; every image is imported from the cache, nothing is pulled).
# Debian packages: containerd runc containernetworking-plugins iptables.
#
# Networking, as on a cluster:
#   - The bridge (default crdgen0) is made here with the pods' gateway address (10.200.0.1), before anything runs, so
#     that CoreDNS can bind it; the CNI bridge plugin then reuses it. Pods reach the host at that address.
#   - The API server must be reachable there: startControlPlane({ node: "real" }) runs kube-apiserver with
#     --bind-address=0.0.0.0 --advertise-address=<gateway>, so the `kubernetes` Service (10.0.0.1:443) leads to it.
#   - kube-proxy (iptables mode, masqueradeAll, localhostNodePorts off so route_localnet stays untouched, conntrack
#     sysctls left as they are) programs every ClusterIP, in PREROUTING for pods and in OUTPUT for the host, so the
#     host reaches ClusterIP Services too. stop runs `kube-proxy --cleanup`, which removes its chains.
#   - CoreDNS (coredns/main.go) listens on <gateway>:53, answers cluster.local from the API's Services and
#     EndpointSlices (kubernetes plugin, with the kubeconfig given) and forwards every other name to the host's
#     resolver; kubelet's clusterDNS is <gateway> and clusterDomain cluster.local.
#   - net.ipv4.ip_forward is set to 1 while the node runs (the bridge plugin needs it) and restored by stop.
#
# Environment:
#   CRDGEN_NODE_NAME       node name (default crdgen-node); also the cgroup parent (/<name> in every hierarchy)
#   CRDGEN_NODE_POD_CIDR   the pods' range on the bridge (default 10.200.0.0/24; its .1 is the gateway)
#   CRDGEN_NODE_BRIDGE     the bridge's name (default crdgen0)
#   CRDGEN_CNI_BIN_DIR     CNI plugins (default /usr/lib/cni, Debian's containernetworking-plugins)
#   CRDGEN_NODE_IMAGES     the images (images.sh names) to import, e.g. "pause debian" (default: every one built)
#   KUBEBUILDER_ASSETS     where kubelet, kube-proxy, kubectl, crictl and coredns are (default: the build cache)
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
NODE_NAME="${CRDGEN_NODE_NAME:-crdgen-node}"
POD_CIDR="${CRDGEN_NODE_POD_CIDR:-10.200.0.0/24}"
BRIDGE="${CRDGEN_NODE_BRIDGE:-crdgen0}"
CNI_BIN_DIR="${CRDGEN_CNI_BIN_DIR:-/usr/lib/cni}"
CACHE_ROOT="${CRDGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/crdgen}"
IMAGES_DIR="$CACHE_ROOT/images"
SANDBOX_IMAGE=localhost/crdgen/pause:1

log() { printf 'node: %s\n' "$*" >&2; }
die() {
  log "FAILED: $*"
  exit 1
}
now_s() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now_s)" 'BEGIN { printf "%.1fs", b - a }'; }
assets() {
  if [[ -n "${KUBEBUILDER_ASSETS:-}" ]]; then printf '%s' "$KUBEBUILDER_ASSETS"; else
    CRDGEN_NODE_BINARIES=1 bash "$SCRIPT_DIR/../build.sh" 2>/dev/null | tail -n 1
  fi
}
# wait_for <seconds> <what> <command...>: polls the command; logs "<what> in <elapsed>" when it succeeds.
wait_for() {
  local deadline=$((SECONDS + $1)) what="$2" start
  start="$(now_s)"
  shift 2
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.5
  done
  log "$what in $(since "$start")"
}
pid_alive() { [[ -s "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null; }
# stop_pid <pid file> <seconds>: SIGTERM, then SIGKILL.
stop_pid() {
  pid_alive "$1" || return 0
  local pid
  pid="$(cat "$1")"
  kill -TERM "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + $2))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
  kill -KILL "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
}

# runc, or runc-oom-clamp.sh where root may not lower oom_score_adj (CAP_SYS_RESOURCE, bit 24, not in the bounding set).
runc_binary() {
  local bounding
  bounding="$(sed -n 's/^CapBnd:[[:space:]]*//p' /proc/self/status)"
  if (((16#$bounding >> 24) & 1)); then command -v runc; else printf '%s' "$SCRIPT_DIR/runc-oom-clamp.sh"; fi
}

write_configs() { # $1 folder (absolute)
  local dir="$1" gateway="${POD_CIDR%.*}.1"
  mkdir -p "$dir/containerd" "$dir/cni/net.d" "$dir/kubelet" "$dir/logs"
  # containerd: its own root, state and socket, so it never meets a containerd of the host.
  cat >"$dir/containerd/config.toml" <<TOML
version = 2
root = "$dir/containerd/root"
state = "$dir/containerd/state"
[grpc]
  address = "$dir/containerd/containerd.sock"
[ttrpc]
  address = "$dir/containerd/containerd.sock.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$dir/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$SANDBOX_IMAGE"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        BinaryName = "$(runc_binary)"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$CNI_BIN_DIR"
    conf_dir = "$dir/cni/net.d"
TOML
  # CNI: one bridge on a private range, host-local addresses kept in the folder; no masquerade (pods talk to the node).
  cat >"$dir/cni/net.d/10-crdgen.conflist" <<JSON
{
  "cniVersion": "0.4.0",
  "name": "crdgen",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$BRIDGE",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{ "subnet": "$POD_CIDR", "gateway": "$gateway" }]],
        "routes": [{ "dst": "0.0.0.0/0" }],
        "dataDir": "$dir/cni/ipam"
      }
    },
    { "type": "portmap", "capabilities": { "portMappings": true } },
    { "type": "loopback" }
  ]
}
JSON
}

write_kubelet_config() { # $1 folder, $2 kubelet port, $3 healthz port, $4 cluster DNS address
  local dir="$1"
  # Why each setting: cgroupfs (no systemd here), cgroup v1 hierarchies (failCgroupV1: false), no swap check, eviction
  # thresholds a busy shared 2-core box never crosses, image GC off (images cannot be pulled again), the kubelet
  # API on loopback without authentication (only the test machine talks to it), pod logs in the folder.
  cat >"$dir/kubelet/config.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: cgroupfs
cgroupRoot: /$NODE_NAME
failCgroupV1: false
failSwapOn: false
containerRuntimeEndpoint: unix://$dir/containerd/containerd.sock
address: 127.0.0.1
port: $2
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $3
authentication:
  anonymous:
    enabled: true
  webhook:
    enabled: false
authorization:
  mode: AlwaysAllow
podLogsDir: $dir/kubelet/pod-logs
evictionHard:
  memory.available: 100Mi
  nodefs.available: 1%
  nodefs.inodesFree: 1%
  imagefs.available: 1%
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
resolvConf: /etc/resolv.conf
clusterDNS: [$4]
clusterDomain: cluster.local
registerNode: true
serializeImagePulls: false
YAML
}

write_kube_proxy_config() { # $1 folder, $2 kubeconfig, $3 healthz port, $4 metrics port
  # iptables mode. masqueradeAll: a pod reaching a Service backed by a pod on the same bridge gets its replies back
  # through the host without br_netfilter. localhostNodePorts off: kube-proxy would set route_localnet otherwise.
  # conntrack zeros: leave the host's conntrack sysctls as they are.
  cat >"$1/kube-proxy.yaml" <<YAML
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection:
  kubeconfig: $2
hostnameOverride: $NODE_NAME
mode: iptables
clusterCIDR: $POD_CIDR
healthzBindAddress: 127.0.0.1:$3
metricsBindAddress: 127.0.0.1:$4
iptables:
  masqueradeAll: true
  localhostNodePorts: false
  syncPeriod: 30s
  minSyncPeriod: 0s
conntrack:
  maxPerCore: 0
  min: 0
  tcpEstablishedTimeout: 0s
  tcpCloseWaitTimeout: 0s
YAML
}

write_corefile() { # $1 folder, $2 kubeconfig, $3 listen address, $4 ready port
  # TTL 5 s and no cache plugin: a Service created a moment ago resolves at once.
  cat >"$1/Corefile" <<COREFILE
.:53 {
    bind $3
    ready 127.0.0.1:$4
    errors
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig $2
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
        ttl 5
    }
    forward . /etc/resolv.conf
}
COREFILE
}

# make_bridge <gateway>/<prefix>: the pods' bridge with the gateway address, up.
make_bridge() {
  ip link add "$BRIDGE" type bridge && ip addr add "$1" dev "$BRIDGE" && ip link set "$BRIDGE" up
}

free_port() { # asks the kernel for a free port
  node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

cmd_start() {
  local dir="$1" kubeconfig="$2" T T0 assets
  [[ "$(id -u)" == 0 ]] || die "a real node needs root (containerd, runc, CNI, cgroups)"
  for b in containerd runc ctr; do
    command -v "$b" >/dev/null 2>&1 || die "'$b' is not installed (apt-get install containerd runc)"
  done
  [[ -x "$CNI_BIN_DIR/bridge" && -x "$CNI_BIN_DIR/host-local" && -x "$CNI_BIN_DIR/loopback" ]] ||
    die "the CNI plugins are not in $CNI_BIN_DIR (apt-get install containernetworking-plugins)"
  [[ -s "$IMAGES_DIR/pause.oci.tar" ]] || die "no pause image in $IMAGES_DIR: run bash controlplane/node/build.sh"
  [[ -f "$kubeconfig" ]] || die "no kubeconfig at '$kubeconfig'"
  assets="$(assets)"
  for b in kubelet kube-proxy kubectl coredns; do
    [[ -x "$assets/$b" ]] || die "$b is missing in '$assets': run bash controlplane/node/build.sh"
  done
  command -v iptables >/dev/null 2>&1 || die "'iptables' is not installed (apt-get install iptables)"
  # One real node per machine: the bridge, the pod range and the cgroup parent are fixed.
  if ip link show "$BRIDGE" >/dev/null 2>&1 || [[ -d "/sys/fs/cgroup/memory/$NODE_NAME" ]]; then
    die "another crdgen node is running here (bridge $BRIDGE or cgroup /$NODE_NAME exists); stop it first"
  fi
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  T0="$(now_s)"
  write_configs "$dir"
  local gateway="${POD_CIDR%.*}.1"
  printf '%s\n' "$NODE_NAME" >"$dir/node-name"
  # The bridge and forwarding first (stop undoes both; node-name above lets it run on a half-started node).
  cat /proc/sys/net/ipv4/ip_forward >"$dir/ip_forward.saved"
  make_bridge "$gateway/${POD_CIDR#*/}" || die "cannot create the bridge $BRIDGE with $gateway/${POD_CIDR#*/}"
  echo 1 >/proc/sys/net/ipv4/ip_forward
  [[ "$(runc_binary)" == */runc-oom-clamp.sh ]] &&
    log "note: root lacks CAP_SYS_RESOURCE here, so negative oom_score_adj values are raised to 0 (runc-oom-clamp.sh)"
  printf 'runtime-endpoint: unix://%s\nimage-endpoint: unix://%s\ntimeout: 30\n' \
    "$dir/containerd/containerd.sock" "$dir/containerd/containerd.sock" >"$dir/crictl.yaml"

  setsid containerd --config "$dir/containerd/config.toml" >"$dir/logs/containerd.log" 2>&1 </dev/null &
  echo $! >"$dir/containerd.pid"
  wait_for 30 "containerd up" ctr --address "$dir/containerd/containerd.sock" version ||
    { tail -n 20 "$dir/logs/containerd.log" >&2; die "containerd did not start (log: $dir/logs/containerd.log)"; }

  T="$(now_s)"
  local image images=()
  if [[ -n "${CRDGEN_NODE_IMAGES:-}" ]]; then
    for image in pause $CRDGEN_NODE_IMAGES; do
      [[ -s "$IMAGES_DIR/$image.oci.tar" ]] ||
        die "no $image image in $IMAGES_DIR: run bash controlplane/node/images.sh $image"
      [[ " ${images[*]} " == *" $IMAGES_DIR/$image.oci.tar "* ]] || images+=("$IMAGES_DIR/$image.oci.tar")
    done
  else
    images=("$IMAGES_DIR"/*.oci.tar)
  fi
  for image in "${images[@]}"; do
    ctr --address "$dir/containerd/containerd.sock" -n k8s.io images import --no-unpack=false "$image" >/dev/null ||
      die "ctr images import $image"
  done
  log "images imported in $(since "$T"):" \
    "$(ctr --address "$dir/containerd/containerd.sock" -n k8s.io images ls -q | grep -v '^sha256:' | tr '\n' ' ')"

  # kubelet's cgroup parent must exist in every hierarchy.
  local h
  for h in /sys/fs/cgroup/*/; do
    [[ "$h" == */unified/ ]] || mkdir -p "$h$NODE_NAME"
  done
  # CoreDNS needs only the API server and the bridge address: it starts while kubelet does.
  local ready_port
  ready_port="$(free_port)"
  write_corefile "$dir" "$kubeconfig" "$gateway" "$ready_port"
  setsid "$assets/coredns" -conf "$dir/Corefile" >"$dir/logs/coredns.log" 2>&1 </dev/null &
  echo $! >"$dir/coredns.pid"

  write_kubelet_config "$dir" "$(free_port)" "$(free_port)" "$gateway"
  setsid "$assets/kubelet" --config="$dir/kubelet/config.yaml" --kubeconfig="$kubeconfig" \
    --root-dir="$dir/kubelet/root" --cert-dir="$dir/kubelet/pki" --hostname-override="$NODE_NAME" \
    >"$dir/logs/kubelet.log" 2>&1 </dev/null &
  echo $! >"$dir/kubelet.pid"
  local ready='{.status.conditions[?(@.type=="Ready")].status}'
  node_ready() {
    pid_alive "$dir/kubelet.pid" || return 2
    local status
    status="$("$assets/kubectl" --kubeconfig="$kubeconfig" get node "$NODE_NAME" -o jsonpath="$ready" 2>/dev/null)"
    [[ "$status" == True ]]
  }
  wait_for 120 "node $NODE_NAME Ready (kubelet start to Ready)" node_ready ||
    { tail -n 30 "$dir/logs/kubelet.log" >&2; die "node $NODE_NAME did not become Ready (log: $dir/logs/kubelet.log)"; }
  # kube-proxy once the Node exists (it reads the node's addresses); ready when the `kubernetes` Service is programmed.
  T="$(now_s)"
  write_kube_proxy_config "$dir" "$kubeconfig" "$(free_port)" "$(free_port)"
  setsid "$assets/kube-proxy" --config="$dir/kube-proxy.yaml" >"$dir/logs/kube-proxy.log" 2>&1 </dev/null &
  echo $! >"$dir/kube-proxy.pid"
  services_programmed() {
    pid_alive "$dir/kube-proxy.pid" || return 2
    iptables -t nat -S KUBE-SERVICES 2>/dev/null | grep -q -- 'default/kubernetes:https'
  }
  wait_for 60 "kube-proxy programmed the kubernetes Service" services_programmed ||
    { tail -n 30 "$dir/logs/kube-proxy.log" >&2; die "kube-proxy did not program ClusterIPs (log: $dir/logs/kube-proxy.log)"; }
  dns_ready() {
    pid_alive "$dir/coredns.pid" || return 2
    node -e 'fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' \
      "http://127.0.0.1:$ready_port/ready"
  }
  wait_for 60 "CoreDNS ready on $gateway:53" dns_ready ||
    { tail -n 30 "$dir/logs/coredns.log" >&2; die "CoreDNS did not become ready (log: $dir/logs/coredns.log)"; }
  log "started in $(since "$T0")"
  printf '%s\n' "$NODE_NAME"
}

# The mounts, network namespaces and cgroups the node made.
our_mounts() { findmnt -rn -o TARGET | grep -F "$1/" | sort -r || true; }
our_cgroups() {
  local h
  for h in /sys/fs/cgroup/*/; do
    [[ -d "$h$NODE_NAME" ]] && find "$h$NODE_NAME" -depth -type d
  done
  return 0
}

# kubelet's iptables chains (KUBE-FIREWALL drops non-loopback traffic to 127.0.0.0/8; the others are markers) and
# kube-proxy's (KUBE-SERVICES, KUBE-SVC-*, KUBE-SEP-*, KUBE-POSTROUTING, ...): every KUBE- chain and rule is the node's.
KUBELET_CHAINS=(KUBE-FIREWALL KUBE-KUBELET-CANARY KUBE-IPTABLES-HINT)
clean_iptables() { # $1 folder
  local ipt t c proxy
  # kube-proxy --cleanup removes the rules and chains of each of its modes (iptables, ipvs, nftables), and exits.
  proxy="$(assets)/kube-proxy"
  if [[ -x "$proxy" ]]; then
    "$proxy" --cleanup >"$1/logs/kube-proxy-cleanup.log" 2>&1 || log "warning: kube-proxy --cleanup failed"
  fi
  for ipt in iptables ip6tables; do
    command -v "$ipt" >/dev/null 2>&1 || continue
    for c in INPUT OUTPUT; do
      while "$ipt" -t filter -D "$c" -j KUBE-FIREWALL 2>/dev/null; do :; done
    done
    for t in filter nat mangle; do
      for c in "${KUBELET_CHAINS[@]}"; do
        "$ipt" -t "$t" -F "$c" 2>/dev/null && "$ipt" -t "$t" -X "$c" 2>/dev/null
      done
    done
  done
  return 0
}
our_iptables() {
  local ipt t
  for ipt in iptables ip6tables; do
    command -v "$ipt" >/dev/null 2>&1 || continue
    for t in filter nat mangle; do
      "$ipt" -t "$t" -S 2>/dev/null | grep -E -- "KUBE-" | sed "s/^/$ipt -t $t: /"
    done
  done
  if command -v nft >/dev/null 2>&1; then
    nft list tables 2>/dev/null | grep -E -- " kube-proxy$" | sed "s/^/nft: /"
  fi
  return 0
}

cmd_stop() {
  local dir="$1" T
  [[ -d "$dir" ]] || return 0
  dir="$(cd "$dir" && pwd)"
  # node-name marks a folder node.sh start made: stop removes the folder, so it must be one.
  [[ -s "$dir/node-name" ]] || die "'$dir' is not a node folder (no node-name file): nothing stopped or removed"
  NODE_NAME="$(cat "$dir/node-name")"
  T="$(now_s)"
  # kubelet first, so it restarts nothing; then every pod sandbox through CRI, which runs CNI DEL (veth, IP, netns).
  stop_pid "$dir/kubelet.pid" 20
  local sock="$dir/containerd/containerd.sock"
  if pid_alive "$dir/containerd.pid" && [[ -S "$sock" ]]; then
    local crictl
    crictl="$(assets)/crictl"
    if [[ -x "$crictl" ]]; then
      local pods
      pods="$("$crictl" --config "$dir/crictl.yaml" pods -q 2>/dev/null || true)"
      if [[ -n "$pods" ]]; then
        # shellcheck disable=SC2086
        "$crictl" --config "$dir/crictl.yaml" stopp $pods >/dev/null 2>&1 || log "warning: crictl stopp failed"
        # shellcheck disable=SC2086
        "$crictl" --config "$dir/crictl.yaml" rmp -f $pods >/dev/null 2>&1 || log "warning: crictl rmp failed"
      fi
    else
      log "warning: no crictl (bash controlplane/node/build.sh builds it): pod sandboxes are not torn down through CNI"
    fi
  fi
  stop_pid "$dir/containerd.pid" 20
  stop_pid "$dir/coredns.pid" 10
  stop_pid "$dir/kube-proxy.pid" 10
  # Shims outlive containerd; those of this containerd carry its socket address.
  local pid
  for pid in $(pgrep -f "containerd-shim-runc-v2 .*-address $sock" || true); do
    kill -KILL "$pid" 2>/dev/null || true
  done
  local m
  while read -r m; do [[ -n "$m" ]] && umount -l "$m" 2>/dev/null; done < <(our_mounts "$dir")
  local c
  while read -r c; do [[ -n "$c" ]] && rmdir "$c" 2>/dev/null; done < <(our_cgroups)
  ip link show "$BRIDGE" >/dev/null 2>&1 && ip link del "$BRIDGE"
  clean_iptables "$dir"
  [[ -s "$dir/ip_forward.saved" ]] && cat "$dir/ip_forward.saved" >/proc/sys/net/ipv4/ip_forward
  log "stopped in $(since "$T")"
  local left
  left="$(cmd_leftovers "$dir" || true)"
  [[ -z "$left" ]] || { printf '%s\n' "$left" >&2; die "left behind (see above)"; }
  T="$(now_s)"
  rm -rf "$dir"
  log "folder removed in $(since "$T")"
}

# Prints what a stopped node left behind; exit 1 if anything.
cmd_leftovers() {
  local dir="$1" out=""
  dir="$(cd "$dir" 2>/dev/null && pwd || printf '%s' "$1")"
  [[ -s "$dir/node-name" ]] && NODE_NAME="$(cat "$dir/node-name")"
  local procs
  procs="$(pgrep -af -- "$dir/" || true)"
  [[ -n "$procs" ]] && out+="processes:"$'\n'"$procs"$'\n'
  local mounts
  mounts="$(our_mounts "$dir")"
  [[ -n "$mounts" ]] && out+="mounts:"$'\n'"$mounts"$'\n'
  local cgroups
  cgroups="$(our_cgroups)"
  [[ -n "$cgroups" ]] && out+="cgroups:"$'\n'"$cgroups"$'\n'
  local links
  links="$(ip -o link show master "$BRIDGE" 2>/dev/null; ip -o link show "$BRIDGE" 2>/dev/null || true)"
  [[ -n "$links" ]] && out+="links:"$'\n'"$links"$'\n'
  local rules
  rules="$(our_iptables)"
  [[ -n "$rules" ]] && out+="iptables:"$'\n'"$rules"$'\n'
  [[ -z "$out" ]] && return 0
  printf '%s' "$out"
  return 1
}

case "${1:-}" in
start)
  (($# == 3)) || die "usage: node.sh start <folder> <kubeconfig>"
  cmd_start "$2" "$3"
  ;;
stop)
  (($# == 2)) || die "usage: node.sh stop <folder>"
  cmd_stop "$2"
  ;;
leftovers)
  (($# == 2)) || die "usage: node.sh leftovers <folder>"
  cmd_leftovers "$2"
  ;;
*) die "usage: node.sh start <folder> <kubeconfig> | stop <folder> | leftovers <folder>" ;;
esac
