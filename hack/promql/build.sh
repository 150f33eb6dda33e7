#!/usr/bin/env bash
# Builds promql-check (hack/promql/main.go: Prometheus's own PromQL parser, pinned in
# hack/promql/go.mod) into .cache/promql/bin, from the Go module proxy only, for the chart's
# observability test. Skipped when the cached binary was built from the same sources (a stamp of
# their SHA-256 sits next to it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${SVC_PROMQL_BIN:-$root/.cache/promql/bin}
stamp=$(cat "$here/go.mod" "$here/go.sum" "$here/main.go" "$0" | sha256sum | cut -d' ' -f1)

if [ -f "$out/.stamp" ] && [ "$(cat "$out/.stamp")" = "$stamp" ] && [ -x "$out/promql-check" ]; then
  echo "promql-check: cached binary in $out matches the pinned version"
  exit 0
fi
command -v go >/dev/null || { echo "promql-check: Go is required (https://go.dev/dl) to build it" >&2; exit 1; }
mkdir -p "$out"
rm -f "$out/.stamp"
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-trimpath
version=$(awk '$1 == "require" && $2 == "github.com/prometheus/prometheus" { print $3 }' "$here/go.mod" | head -n 1)
start=$(date +%s)
echo "promql-check: building with github.com/prometheus/prometheus $version (pinned in hack/promql/go.mod)"
(cd "$here" && go build -o "$out/promql-check" .)
echo "$stamp" >"$out/.stamp"
echo "promql-check: built in $(($(date +%s) - start))s into $out"
