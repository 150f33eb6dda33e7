#!/usr/bin/env bash
# Builds the helm command pinned in hack/helm/go.mod into .cache/helm/bin, from the Go module
# proxy only (no binary download), for the Helm chart's tests. Skipped when the cached binary
# was built from the same go.mod/go.sum (a stamp of their SHA-256 sits next to it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$root/hack/lib/go-build.sh"
out=${SVC_HELM_BIN:-$root/.cache/helm/bin}
stamp=$(go_build_stamp "$here/go.mod" "$here/go.sum" "$0")

if go_build_fresh "$out" "$stamp" helm; then
  echo "helm: cached binary in $out matches the pinned version"
  exit 0
fi
go_build_begin helm "$out"
version=$(awk '$1 == "helm.sh/helm/v3" { print $2 }' "$here/go.mod" | head -n 1)
echo "helm: building $version (pinned in hack/helm/go.mod)"
(cd "$here" && go build -ldflags "-X helm.sh/helm/v3/internal/version.version=$version" -o "$out/helm" helm.sh/helm/v3/cmd/helm)
go_build_end helm "$out" "$stamp"
