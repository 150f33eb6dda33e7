#!/usr/bin/env bash
# Fetches Prometheus Operator's CRDs (ServiceMonitor, PodMonitor, PrometheusRule) at the pinned
# version from the Go module proxy (the module github.com/prometheus-operator/prometheus-operator
# ships them in example/prometheus-operator-crd/; `go mod download` checks the module against
# the checksum database) into .cache/prometheus-operator/crds, for the chart's observability test,
# which installs them in its control plane so that the API server validates the chart's objects
# against their real schemas. Skipped when the cached copy is of the same version.
set -euo pipefail
VERSION=v0.94.1
MODULE=github.com/prometheus-operator/prometheus-operator
CRDS=(servicemonitors podmonitors prometheusrules)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${SVC_PROMETHEUS_OPERATOR_CRDS:-$root/.cache/prometheus-operator/crds}
stamp=$(cat "$0" | sha256sum | cut -d' ' -f1)

if [ -f "$out/.stamp" ] && [ "$(cat "$out/.stamp")" = "$stamp" ]; then
  echo "prometheus-operator CRDs: cached copy in $out matches the pinned version $VERSION"
  exit 0
fi
command -v go >/dev/null || { echo "prometheus-operator CRDs: Go is required (https://go.dev/dl) to fetch them" >&2; exit 1; }
mkdir -p "$out"
rm -f "$out/.stamp" "$out"/*.yaml
export GOTOOLCHAIN=local
dir=$(cd "$out" && go mod download -json "$MODULE@$VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
[ -d "$dir" ] || { echo "prometheus-operator CRDs: go mod download gave no directory for $MODULE@$VERSION" >&2; exit 1; }
for crd in "${CRDS[@]}"; do
  cp "$dir/example/prometheus-operator-crd/monitoring.coreos.com_$crd.yaml" "$out/"
done
chmod 644 "$out"/*.yaml
echo "$VERSION" >"$out/VERSION"
echo "$stamp" >"$out/.stamp"
echo "prometheus-operator CRDs: $VERSION (${CRDS[*]}) in $out"
