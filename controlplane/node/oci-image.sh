#!/usr/bin/env bash
# Wraps root file system tars (layers, lowest first) into an OCI image archive (an OCI image layout, tarred) that
# `ctr images import` reads: no registry and no image builder needed.
#
#   bash controlplane/node/oci-image.sh --name <name:tag> --out <file.tar> --layer <rootfs.tar> [--layer <tar>]...
#     [--entrypoint <JSON array>] [--cmd <JSON array>] [--workdir <dir>] [--user <uid:gid>] [--env NAME=value]...
#
# Layers are stored uncompressed, so a layer's digest is its diff ID and two images built on the same rootfs tar
# share that layer in containerd. PATH is always set.
set -euo pipefail

die() {
  printf 'oci-image: FAILED: %s\n' "$*" >&2
  exit 1
}
name="" out="" entrypoint=null cmd=null workdir="" user=""
layers=()
env_json="\"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\""
while (($#)); do
  (($# >= 2)) || die "$1 needs a value"
  case "$1" in
  --name) name="$2" ;;
  --out) out="$2" ;;
  --layer) layers+=("$2") ;;
  --entrypoint) entrypoint="$2" ;;
  --cmd) cmd="$2" ;;
  --workdir) workdir="$2" ;;
  --user) user="$2" ;;
  --env) env_json+=",\"$2\"" ;;
  *) die "unknown option $1" ;;
  esac
  shift 2
done
[[ -n "$name" && -n "$out" ]] || die "--name and --out are required"
[[ "$name" == *:* ]] || die "the image name '$name' has no tag (name:tag)"
((${#layers[@]})) || die "at least one --layer is required"
case "$(uname -m)" in
x86_64) arch=amd64 ;;
aarch64) arch=arm64 ;;
*) die "unsupported machine $(uname -m)" ;;
esac

layout="$(mktemp -d "${TMPDIR:-/tmp}/crdgen-oci.XXXXXX")"
trap 'rm -rf "$layout"' EXIT
blobs="$layout/blobs/sha256"
mkdir -p "$blobs"

# put_blob <file>: moves the file into blobs/sha256/<digest>, prints "<digest> <size>".
put_blob() {
  local digest size
  digest="$(sha256sum "$1" | cut -d' ' -f1)"
  size="$(stat -c %s "$1")"
  mv "$1" "$blobs/$digest"
  printf '%s %s\n' "$digest" "$size"
}

diff_ids="" layer_descriptors=""
for layer in "${layers[@]}"; do
  [[ -f "$layer" ]] || die "the layer tar '$layer' does not exist"
  cp "$layer" "$layout/layer.tar"
  read -r digest size < <(put_blob "$layout/layer.tar")
  diff_ids+="${diff_ids:+,}\"sha256:$digest\""
  layer_descriptors+="${layer_descriptors:+,}"
  layer_descriptors+="{\"mediaType\":\"application/vnd.oci.image.layer.v1.tar\","
  layer_descriptors+="\"digest\":\"sha256:$digest\",\"size\":$size}"
done

cat >"$layout/config.json" <<JSON
{"architecture":"$arch","os":"linux",
 "config":{"Env":[$env_json],"Entrypoint":$entrypoint,"Cmd":$cmd,"WorkingDir":"$workdir","User":"$user"},
 "rootfs":{"type":"layers","diff_ids":[$diff_ids]}}
JSON
read -r config_digest config_size < <(put_blob "$layout/config.json")

cat >"$layout/manifest.json" <<JSON
{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json",
 "config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:$config_digest","size":$config_size},
 "layers":[$layer_descriptors]}
JSON
read -r manifest_digest manifest_size < <(put_blob "$layout/manifest.json")

# io.containerd.image.name is the full name ctr gives the image; ref.name is the OCI tag.
cat >"$layout/index.json" <<JSON
{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json",
 "digest":"sha256:$manifest_digest","size":$manifest_size,"platform":{"architecture":"$arch","os":"linux"},
 "annotations":{"io.containerd.image.name":"$name","org.opencontainers.image.ref.name":"${name##*:}"}}]}
JSON
printf '{"imageLayoutVersion":"1.0.0"}' >"$layout/oci-layout"

tar -C "$layout" --owner=0 --group=0 --numeric-owner -cf "$out.tmp.$$" oci-layout index.json blobs
mv -f "$out.tmp.$$" "$out"
