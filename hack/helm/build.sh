#!/usr/bin/env bash
# Builds the helm command pinned in hack/helm/go.mod into .cache/helm/bin, from the Go module
# proxy only (no binary download), for the Helm chart's tests. Skipped when the cached binary
# was built from the same go.mod/go.sum (a stamp of their SHA-256 sits next to it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${SVC_HELM_BIN:-$root/.cache/helm/bin}
stamp=$(cat "$here/go.mod" "$here/go.sum" "$0" | sha256sum | cut -d' ' -f1)

if [ -f "$out/.stamp" ] && [ "$(cat "$out/.stamp")" = "$stamp" ] && [ -x "$out/helm" ]; then
  echo "helm: cached binary in $out matches the pinned version"
  exit 0
fi
command -v go >/dev/null || { echo "helm: Go is required (https://go.dev/dl) to build helm" >&2; exit 1; }
mkdir -p "$out"
rm -f "$out/.stamp"
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-trimpath
version=$(awk '$1 == "helm.sh/helm/v3" { print $2 }' "$here/go.mod" | head -n 1)
start=$(date +%s)
echo "helm: building $version (pinned in hack/helm/go.mod)"
(cd "$here" && go build -ldflags "-X helm.sh/helm/v3/internal/version.version=$version" -o "$out/helm" helm.sh/helm/v3/cmd/helm)
echo "$stamp" >"$out/.stamp"
echo "helm: built in $(($(date +%s) - start))s into $out"
