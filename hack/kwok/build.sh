#!/usr/bin/env bash
# Builds the kwok command pinned in hack/kwok/go.mod into .cache/kwok/bin, from the Go module
# proxy only (no binary download), for the fleet benchmark (bench/fleet), with stages.yaml beside
# it: the node and pod lifecycles kwokctl runs by default, taken from the same module (the
# `kwok` command has none built in). Skipped when the cached binary was built from the same
# go.mod/go.sum (a stamp of their SHA-256 sits next to it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$root/hack/lib/go-build.sh"
out=${SVC_KWOK_BIN:-$root/.cache/kwok/bin}
stamp=$(go_build_stamp "$here/go.mod" "$here/go.sum" "$0")

if go_build_fresh "$out" "$stamp" kwok stages.yaml; then
  echo "kwok: cached binary in $out matches the pinned version"
  exit 0
fi
go_build_begin kwok "$out"
version=$(awk '$1 == "sigs.k8s.io/kwok" { print $2 }' "$here/go.mod" | head -n 1)
echo "kwok: building $version (pinned in hack/kwok/go.mod)"
(cd "$here" && go build -ldflags "-X sigs.k8s.io/kwok/pkg/consts.Version=$version" -o "$out/kwok" sigs.k8s.io/kwok/cmd/kwok)
module=$(cd "$here" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
for stage in node/fast/node-initialize node/heartbeat-with-lease/node-heartbeat-with-lease \
  pod/fast/pod-ready pod/fast/pod-complete pod/fast/pod-delete; do
  echo "---"
  cat "$module/kustomize/stage/$stage.yaml"
done >"$out/stages.yaml"
go_build_end kwok "$out" "$stamp"
