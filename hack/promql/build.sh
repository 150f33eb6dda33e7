#!/usr/bin/env bash
# Builds promql-check (hack/promql/main.go: Prometheus's own PromQL parser, pinned in
# hack/promql/go.mod) into .cache/promql/bin, from the Go module proxy only, for the chart's
# observability test. Skipped when the cached binary was built from the same sources (a stamp of
# their SHA-256 sits next to it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$root/hack/lib/go-build.sh"
out=${SVC_PROMQL_BIN:-$root/.cache/promql/bin}
stamp=$(go_build_stamp "$here/go.mod" "$here/go.sum" "$here/main.go" "$0")

if go_build_fresh "$out" "$stamp" promql-check; then
  echo "promql-check: cached binary in $out matches the pinned version"
  exit 0
fi
go_build_begin promql-check "$out"
version=$(awk '$1 == "require" && $2 == "github.com/prometheus/prometheus" { print $3 }' "$here/go.mod" | head -n 1)
echo "promql-check: building with github.com/prometheus/prometheus $version (pinned in hack/promql/go.mod)"
(cd "$here" && go build -o "$out/promql-check" .)
go_build_end promql-check "$out" "$stamp"
