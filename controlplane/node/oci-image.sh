#!/usr/bin/env bash
# Wraps a root file system tar into a one-layer OCI image archive (an OCI image layout, tarred) that
# `ctr images import` reads: no registry and no image builder needed.
#
#   bash controlplane/node/oci-image.sh <rootfs.tar> <image name:tag> <out.tar> [<entrypoint JSON>] [<cmd JSON>]
#
# The layer is the rootfs tar itself (uncompressed, so its digest is its diff ID). The entrypoint and cmd default to
# null (set by the Pod). PATH is the only environment variable set.
set -euo pipefail

die() {
  printf 'oci-image: FAILED: %s\n' "$*" >&2
  exit 1
}
(($# >= 3 && $# <= 5)) || die "usage: oci-image.sh <rootfs.tar> <name:tag> <out.tar> [<entrypoint JSON>] [<cmd JSON>]"
rootfs="$1" name="$2" out="$3" entrypoint="${4:-null}" cmd="${5:-null}"
[[ -f "$rootfs" ]] || die "the rootfs tar '$rootfs' does not exist"
[[ "$name" == *:* ]] || die "the image name '$name' has no tag (name:tag)"
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

cp "$rootfs" "$layout/layer.tar"
read -r layer_digest layer_size < <(put_blob "$layout/layer.tar")

path_env="PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
cat >"$layout/config.json" <<JSON
{"architecture":"$arch","os":"linux","config":{"Env":["$path_env"],"Entrypoint":$entrypoint,"Cmd":$cmd},
 "rootfs":{"type":"layers","diff_ids":["sha256:$layer_digest"]}}
JSON
read -r config_digest config_size < <(put_blob "$layout/config.json")

cat >"$layout/manifest.json" <<JSON
{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json",
 "config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:$config_digest","size":$config_size},
 "layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:$layer_digest","size":$layer_size}]}
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
