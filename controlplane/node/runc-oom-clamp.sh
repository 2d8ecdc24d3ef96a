#!/usr/bin/env bash
# containerd's runc, for machines whose root lacks CAP_SYS_RESOURCE (e.g. a VM whose init drops it): there a process
# may not lower its oom_score_adj below 0, and runc fails to start any pod sandbox, since kubelet asks -998 for it
# ("failed to update /proc/self/oom_score_adj: Permission denied", seen by containerd as "can't get final child's PID
# from pipe: EOF"). This raises a negative oomScoreAdj in the OCI spec (bundle config.json, or exec's --process file)
# to 0, then runs runc. node.sh configures it as the runtime's BinaryName only when the capability is missing.
set -euo pipefail
clamp() { sed -i -E 's/"oomScoreAdj":-[0-9]+/"oomScoreAdj":0/' "$1"; }
prev=""
for arg in "$@"; do
  case "$prev" in
  --bundle | -b) [[ -f "$arg/config.json" ]] && clamp "$arg/config.json" ;;
  --process | -p) [[ -f "$arg" ]] && clamp "$arg" ;;
  esac
  prev="$arg"
done
exec "${CRDGEN_RUNC:-runc}" "$@"
