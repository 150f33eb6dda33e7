#!/usr/bin/env bash
# Builds the container images the local node runs, with buildah and no container registry, into
# .cache/images/<name>.tar (docker-archive, which `ctr -n k8s.io images import` accepts):
#   pause.tar         registry.k8s.io/pause:3.10        the sandbox image: Kubernetes' pause.c, static
#   node-base.tar     localhost/svc/node-base:24        Debian bookworm (dash, coreutils, libstdc++) + Node 24 + npm
#   runtime-base.tar  localhost/svc/runtime-base:bookworm  Debian bookworm glibc + CA certificates
#   svc.tar           ghcr.io/svc-io/svc:0.1.0          deploy/Dockerfile --target svc
#   sidecar.tar       ghcr.io/svc-io/svc-sidecar:0.1.0  deploy/Dockerfile --target sidecar
#   demo.tar          ghcr.io/svc-io/svc-demo:0.1.0     deploy/demo-app/Dockerfile
# The base images come from Debian's packages (mmdebstrap, the host's apt mirror) and the Node
# binary npm installed into node_modules; the product images come from deploy/Dockerfile
# unchanged, its base images given as build arguments. An image is rebuilt only when the hash of
# its inputs changed (a stamp next to its archive); a cached image missing from buildah's store
# is loaded back from its archive. docs/container-images.md ("Built here").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${SVC_IMAGES_DIR:-$root/.cache/images}
export PATH=$root/node_modules/.bin:$PATH:/usr/local/go/bin

PAUSE_IMAGE=registry.k8s.io/pause:3.10
NODE_BASE=localhost/svc/node-base:24
RUNTIME_BASE=localhost/svc/runtime-base:bookworm
SVC_IMAGE=ghcr.io/svc-io/svc:0.1.0
SIDECAR_IMAGE=ghcr.io/svc-io/svc-sidecar:0.1.0
DEMO_IMAGE=ghcr.io/svc-io/svc-demo:0.1.0
# The product images' build stage with only the dependencies installed: a cache, never shipped.
DEPS_IMAGE=localhost/svc/build-deps:latest
SUITE=bookworm
# Debian packages of each base (their dependencies come too). Node needs libstdc++ and libgcc;
# the Dockerfile's build stage runs `sh -c '... && ...'` (dash, coreutils).
NODE_BASE_PACKAGES=libc6,libstdc++6,libgcc-s1,dash,coreutils
# Bun needs only glibc.
RUNTIME_BASE_PACKAGES=libc6
# Both bases get /etc/ssl/certs/ca-certificates.crt, the bundle update-ca-certificates makes
# from this package's Mozilla certificates (its script needs perl and openssl: not shipped).
CA_PACKAGE=ca-certificates

# Only the local node runs these images, and it needs root too: without root, nothing to build
# (make test then reports the node's tests as skipped, make dev runs without a node).
if [ "$(id -u)" != 0 ]; then
  echo "images: not root, so no images are built (buildah runs as root here: overlay storage, chroot isolation); the local node needs root as well"
  exit 0
fi

# Tools, installed when missing (root, as on CI), like the Makefile's postgres target.
missing=()
command -v buildah >/dev/null || missing+=(buildah)
command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
command -v gcc >/dev/null || missing+=(gcc libc6-dev)
if [ ${#missing[@]} -gt 0 ]; then
  echo "images: installing ${missing[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

mkdir -p "$out"
# One build at a time per archive folder (two work trees may share it, and they share buildah's
# store: a build's final prune would remove the other's build stage under it).
exec 9>"$out/.lock"
flock -n 9 || { echo "images: waiting for another build of the images in $out"; flock 9; }
work=$(mktemp -d)
# Working containers this script made, removed whatever happens (buildah keeps them otherwise).
containers=()
cleanup() {
  for c in "${containers[@]}"; do buildah rm "$c" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT
script_hash=$(sha256sum "$0" | cut -d' ' -f1)
total_start=$(date +%s)

hash_stdin() { sha256sum | cut -d' ' -f1; }
# stored NAME STAMP: buildah's store holds NAME built from these inputs (its svc.io/inputs label),
# as another work tree's run left it: written out as it is, its layers stay the cache of what is
# built on it.
stored() {
  [ "$(buildah inspect --type image --format '{{index .OCIv1.Config.Labels "svc.io/inputs"}}' "$1" 2>/dev/null)" = "$2" ]
}
# fresh FILE STAMP: the archive exists and was built from these inputs.
fresh() { [ -f "$out/$1" ] && [ -f "$out/$1.stamp" ] && [ "$(cat "$out/$1.stamp")" = "$2" ]; }
# loaded NAME FILE: make sure buildah's store holds NAME (a later build uses it as a base).
loaded() {
  buildah inspect --type image "$1" >/dev/null 2>&1 || buildah pull --quiet "docker-archive:$out/$2" >/dev/null
}
size_of() { du -m "$out/$1" | cut -f1; }
# export NAME FILE STAMP START [HOW]: write the archive, then its stamp; print time and size.
export_image() {
  rm -f "$out/$2" "$out/$2.stamp"
  buildah push --quiet "$1" "docker-archive:$out/$2.tmp:$1" >/dev/null
  mv "$out/$2.tmp" "$out/$2"
  echo "$3" >"$out/$2.stamp"
  echo "images: $1 ${5:-built} in $(($(date +%s) - $4))s -> $2 ($(size_of "$2") MB)"
}
cached() { echo "images: $1 cached -> $2 ($(size_of "$2") MB)"; }

# A base image from a root filesystem folder: its files as one layer, then its configuration.
commit_rootfs() {
  local name=$1 rootfs=$2
  shift 2
  local ctr
  ctr=$(buildah from --quiet scratch)
  containers+=("$ctr")
  buildah add --quiet "$ctr" "$rootfs" / >/dev/null
  buildah config "$@" "$ctr"
  buildah commit --quiet --rm "$ctr" "$name" >/dev/null
}

# The files of Debian packages, unpacked without running their scripts, minus documentation.
debian_rootfs() {
  local dir=$1 packages=$2
  mmdebstrap --quiet --mode=root --variant=extract --include="$packages" \
    --dpkgopt='path-exclude=/usr/share/doc/*' "$SUITE" "$dir" >"$work/mmdebstrap.log" 2>&1 ||
    { cat "$work/mmdebstrap.log" >&2; return 1; }
  rm -rf "${dir:?}"/usr/share/{doc,man,info,locale,lintian,bug} "${dir:?}"/var/cache/* \
    "${dir:?}"/var/lib/apt/lists/* "${dir:?}"/var/log/* "${dir:?}"/dev/*
  # Users (root and the images' numeric non-root user) and a world-writable /tmp.
  printf 'root:x:0:0:root:/root:/bin/sh\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$dir/etc/passwd"
  printf 'root:x:0:\nnonroot:x:65532:\n' >"$dir/etc/group"
  mkdir -p "$dir/tmp" "$dir/root" "$dir/home/nonroot"
  chmod 1777 "$dir/tmp"
  chown 65532:65532 "$dir/home/nonroot"
}

# The CA bundle both bases ship, made once per run when a base is built.
ca_bundle() {
  local dir=$1
  if [ ! -f "$work/ca-certificates.crt" ]; then
    debian_rootfs "$work/ca" "$CA_PACKAGE"
    cat "$work/ca"/usr/share/ca-certificates/mozilla/*.crt >"$work/ca-certificates.crt"
  fi
  mkdir -p "$dir/etc/ssl/certs"
  cp "$work/ca-certificates.crt" "$dir/etc/ssl/certs/ca-certificates.crt"
}

# The versions a base takes from the apt mirror: its named packages' candidates as apt sees now.
debian_versions() {
  # shellcheck disable=SC2046 # the comma-separated list, split into package names
  apt-cache policy $(echo "$1" | tr ',' ' ') 2>/dev/null | awk '/^[^ ]/ { p = $1 } /Candidate:/ { print p, $2 }'
}

# 1. pause: Kubernetes' own pause.c, static, in an image of that one file.
kube_version=$(awk '$1 == "k8s.io/kubernetes" { print $2 }' "$root/hack/controlplane/kube/go.mod" | head -n 1)
pause_c=$(go env GOMODCACHE)/k8s.io/kubernetes@$kube_version/build/pause/linux/pause.c
if [ ! -f "$pause_c" ]; then
  (cd "$root/hack/controlplane/kube" && go mod download k8s.io/kubernetes)
fi
stamp=$( (echo "$script_hash"; sha256sum <"$pause_c"; gcc --version | head -n 1) | hash_stdin)
if fresh pause.tar "$stamp"; then
  cached "$PAUSE_IMAGE" pause.tar
elif stored "$PAUSE_IMAGE" "$stamp"; then
  export_image "$PAUSE_IMAGE" pause.tar "$stamp" "$(date +%s)" "taken from buildah's store"
else
  start=$(date +%s)
  mkdir -p "$work/pause"
  gcc -Os -Wall -Werror -static -DVERSION="v3.10-svc-$kube_version" -o "$work/pause/pause" "$pause_c"
  strip "$work/pause/pause"
  ctr=$(buildah from --quiet scratch)
  containers+=("$ctr")
  buildah copy --quiet "$ctr" "$work/pause/pause" /pause >/dev/null
  buildah config --entrypoint '["/pause"]' --user 65535:65535 --label "svc.io/inputs=$stamp" "$ctr"
  buildah commit --quiet --rm "$ctr" "$PAUSE_IMAGE" >/dev/null
  export_image "$PAUSE_IMAGE" pause.tar "$stamp" "$start"
fi

# 2a. Node base: Debian's minimal shell and libraries, Node 24 from node_modules, npm from the host.
node_bin=$(readlink -f "$root/node_modules/node/bin/node")
[ -x "$node_bin" ] || { echo "images: $node_bin missing: run make install first" >&2; exit 1; }
npm_dir=$(cd "$(dirname "$(readlink -f "$(command -v npm)")")/.." && pwd)
[ -f "$npm_dir/package.json" ] || { echo "images: npm not found under $npm_dir" >&2; exit 1; }
node_version=$("$node_bin" --version)
npm_version=$(node -p "require('$npm_dir/package.json').version")
stamp=$( (echo "$script_hash $SUITE $NODE_BASE_PACKAGES $node_version $npm_version"; sha256sum <"$node_bin"
  debian_versions "$NODE_BASE_PACKAGES,$CA_PACKAGE") | hash_stdin)
node_base_stamp=$stamp
if fresh node-base.tar "$stamp"; then
  cached "$NODE_BASE" node-base.tar
  loaded "$NODE_BASE" node-base.tar
elif stored "$NODE_BASE" "$stamp"; then
  export_image "$NODE_BASE" node-base.tar "$stamp" "$(date +%s)" "taken from buildah's store"
else
  start=$(date +%s)
  rootfs=$work/node-base
  debian_rootfs "$rootfs" "$NODE_BASE_PACKAGES"
  mkdir -p "$rootfs/usr/local/bin" "$rootfs/usr/local/lib/node_modules"
  cp "$node_bin" "$rootfs/usr/local/bin/node"
  cp -a "$npm_dir" "$rootfs/usr/local/lib/node_modules/npm"
  rm -rf "$rootfs/usr/local/lib/node_modules/npm/"{docs,man}
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  # npm trusts the system bundle, as Debian's npm does: a build that mounts its host's bundle
  # there (this script's does, for a TLS-inspecting proxy's CA) reaches the registry through it.
  printf 'cafile=/etc/ssl/certs/ca-certificates.crt\nupdate-notifier=false\n' >"$rootfs/usr/local/lib/node_modules/npm/npmrc"
  ca_bundle "$rootfs"
  commit_rootfs "$NODE_BASE" "$rootfs" --label "svc.io/inputs=$stamp" \
    --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env NODE_VERSION="${node_version#v}" --cmd '["node"]' \
    --label org.opencontainers.image.description="Node $node_version and npm $npm_version on Debian $SUITE ($NODE_BASE_PACKAGES), built by hack/images/build.sh"
  export_image "$NODE_BASE" node-base.tar "$stamp" "$start"
fi

# 2b. Runtime base (the sidecar's, for Bun): glibc and the CA bundle, no shell.
stamp=$( (echo "$script_hash $SUITE $RUNTIME_BASE_PACKAGES"; debian_versions "$RUNTIME_BASE_PACKAGES,$CA_PACKAGE") | hash_stdin)
runtime_base_stamp=$stamp
if fresh runtime-base.tar "$stamp"; then
  cached "$RUNTIME_BASE" runtime-base.tar
  loaded "$RUNTIME_BASE" runtime-base.tar
elif stored "$RUNTIME_BASE" "$stamp"; then
  export_image "$RUNTIME_BASE" runtime-base.tar "$stamp" "$(date +%s)" "taken from buildah's store"
else
  start=$(date +%s)
  full=$work/runtime-full
  debian_rootfs "$full" "$RUNTIME_BASE_PACKAGES"
  # Keep glibc (and libgcc, its dependency) and the files the base folders hold.
  rootfs=$work/runtime-base
  mkdir -p "$rootfs"
  keep=(etc/passwd etc/group tmp home root lib64)
  for lib in lib/x86_64-linux-gnu usr/lib/x86_64-linux-gnu; do [ ! -d "$full/$lib" ] || keep+=("$lib"); done
  (cd "$full" && tar -cf - "${keep[@]}") | tar -xf - -C "$rootfs"
  ca_bundle "$rootfs"
  # Only glibc's and libgcc's libraries of those folders (no OpenSSL, perl or zlib).
  find "$rootfs" -path '*/x86_64-linux-gnu/*' \( -type f -o -type l \) \
    ! -name 'ld-linux-x86-64.so.*' ! -name 'libc.so.*' ! -name 'libm.so.*' ! -name 'libdl.so.*' \
    ! -name 'libpthread.so.*' ! -name 'librt.so.*' ! -name 'libresolv.so.*' ! -name 'libnss_*' \
    ! -name 'libgcc_s.so.*' ! -name 'libutil.so.*' ! -name 'libanl.so.*' -delete
  find "$rootfs" -path '*/x86_64-linux-gnu/*' -type d -empty -delete
  commit_rootfs "$RUNTIME_BASE" "$rootfs" --label "svc.io/inputs=$stamp" \
    --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
    --label org.opencontainers.image.description="glibc and CA certificates from Debian $SUITE, built by hack/images/build.sh"
  export_image "$RUNTIME_BASE" runtime-base.tar "$stamp" "$start"
fi

# 3. The product images: deploy/Dockerfile as it is, on the bases above. Its build stage runs
# `npm ci` against the npm registry (the host's network; chroot isolation needs no CNI).
# The Dockerfile installs the dependencies from each workspace's manifest before the sources:
# a workspace it does not copy would be missing from that install.
for manifest in "$root"/packages/*/package.json; do
  line="COPY packages/$(basename "$(dirname "$manifest")")/package.json"
  grep -q -F "$line" "$root/deploy/Dockerfile" ||
    { echo "images: deploy/Dockerfile lacks \"$line packages/…/\" before its npm ci" >&2; exit 1; }
done
bud=(buildah bud --layers --force-rm --isolation chroot --network host --pull=never
  --build-arg "NODE_IMAGE=$NODE_BASE" --build-arg "BASE_IMAGE=$RUNTIME_BASE")
# The build's RUN steps trust what the host trusts (here, a TLS-inspecting proxy's CA too);
# nothing of it lands in an image.
host_ca=/etc/ssl/certs/ca-certificates.crt
[ -f "$host_ca" ] && bud+=(--volume "$host_ca:$host_ca:ro")
# The context, hashed: git's view (tracked and untracked, not ignored) less what .dockerignore
# keeps out of it (this list may leave out less than .dockerignore does, never more).
context_hash=$(cd "$root" && git ls-files -co --exclude-standard -z |
  grep -z -v -E '^(\.ci|bench|docs|test|hack|deploy/demo-app|deploy/helm|packages/[^/]+/test)/|\.md$' |
  grep -z -v -x -E 'Makefile|eslint\.config\.js|vitest\.config\.ts|\.prettierrc\.json|\.prettierignore' |
  while IFS= read -r -d '' f; do if [ -f "$f" ]; then printf '%s\0' "$f"; fi; done |
  xargs -0 sha256sum | hash_stdin)
built_products=0
for target in svc sidecar; do
  if [ $target = svc ]; then name=$SVC_IMAGE; else name=$SIDECAR_IMAGE; fi
  stamp=$(echo "$script_hash $node_base_stamp $runtime_base_stamp $context_hash" | hash_stdin)
  if fresh $target.tar "$stamp"; then
    cached "$name" $target.tar
    continue
  fi
  start=$(date +%s)
  if stored "$name" "$stamp"; then
    export_image "$name" $target.tar "$stamp" "$start" "taken from buildah's store"
    continue
  fi
  # The dependencies' stage, tagged so that the prune below keeps it: the next build whose
  # manifests did not change reuses it instead of running npm ci again.
  "${bud[@]}" -f "$root/deploy/Dockerfile" --target deps -t "$DEPS_IMAGE" "$root" >"$work/bud-deps.log" 2>&1 ||
    { tail -n 60 "$work/bud-deps.log" >&2; echo "images: installing the dependencies failed" >&2; exit 1; }
  "${bud[@]}" -f "$root/deploy/Dockerfile" --target $target -t "$name" --label "svc.io/inputs=$stamp" "$root" >"$work/bud-$target.log" 2>&1 ||
    { tail -n 60 "$work/bud-$target.log" >&2; echo "images: building $name failed" >&2; exit 1; }
  export_image "$name" $target.tar "$stamp" "$start"
  built_products=1
done

# 4. The demo application, on the Node base.
demo=$root/deploy/demo-app
stamp=$( (echo "$script_hash $node_base_stamp"; cd "$demo" && find . -type f ! -path './test/*' -print0 | sort -z |
  xargs -0 sha256sum) | hash_stdin)
if fresh demo.tar "$stamp"; then
  cached "$DEMO_IMAGE" demo.tar
elif stored "$DEMO_IMAGE" "$stamp"; then
  export_image "$DEMO_IMAGE" demo.tar "$stamp" "$(date +%s)" "taken from buildah's store"
else
  start=$(date +%s)
  "${bud[@]}" -f "$demo/Dockerfile" -t "$DEMO_IMAGE" --label "svc.io/inputs=$stamp" "$demo" >"$work/bud-demo.log" 2>&1 ||
    { tail -n 60 "$work/bud-demo.log" >&2; echo "images: building $DEMO_IMAGE failed" >&2; exit 1; }
  export_image "$DEMO_IMAGE" demo.tar "$stamp" "$start"
fi

# A product build leaves its build stage (1.3 GB with the full npm install) untagged in the
# store: drop such leftovers once every image is written (the stamps, not them, skip unchanged
# builds); the tagged dependencies' stage stays.
if [ "$built_products" = 1 ]; then buildah rmi --prune >/dev/null 2>&1 || true; fi

echo "images: done in $(($(date +%s) - total_start))s ($out)"
