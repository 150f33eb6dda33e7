#!/usr/bin/env bash
# Builds etcd, kube-apiserver, kube-controller-manager and kubectl, and the node's kubelet,
# kube-scheduler and kube-proxy, from the Go modules pinned in hack/controlplane/{etcd,kube}/go.mod
# into .cache/controlplane/bin. Only the Go module
# proxy is used: no binary downloads. The build is skipped when the cached binaries were
# built from the same go.mod/go.sum (a stamp of their SHA-256 sits next to the binaries).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${SVC_CONTROLPLANE_BIN:-$root/.cache/controlplane/bin}
stamp=$(cat "$here"/etcd/go.mod "$here"/etcd/go.sum "$here"/kube/go.mod "$here"/kube/go.sum "$0" | sha256sum | cut -d' ' -f1)

if [ -f "$out/.stamp" ] && [ "$(cat "$out/.stamp")" = "$stamp" ] &&
  [ -x "$out/etcd" ] && [ -x "$out/kube-apiserver" ] && [ -x "$out/kube-controller-manager" ] && [ -x "$out/kubectl" ] &&
  [ -x "$out/kubelet" ] && [ -x "$out/kube-scheduler" ] && [ -x "$out/kube-proxy" ]; then
  echo "control plane: cached binaries in $out match the pinned versions"
  exit 0
fi

command -v go >/dev/null || { echo "control plane: Go is required (https://go.dev/dl) to build etcd and kube-apiserver" >&2; exit 1; }
mkdir -p "$out"
rm -f "$out/.stamp"
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-trimpath
start=$(date +%s)
echo "control plane: building etcd (pinned in hack/controlplane/etcd/go.mod)"
(cd "$here/etcd" && go build -o "$out/etcd" go.etcd.io/etcd/server/v3)
# Kubernetes' own build stamps its version into the binaries; without it they report
# v0.0.0-master, and so would /version (which svc shows as a cluster's kubernetesVersion).
kube_version=$(awk '$1 == "k8s.io/kubernetes" { print $2 }' "$here/kube/go.mod" | head -n 1)
minor=$(echo "$kube_version" | cut -d. -f2)
stamp_flags=""
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  stamp_flags+=" -X $pkg.gitVersion=$kube_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
done
echo "control plane: building kube-apiserver, kube-controller-manager, kubectl, kubelet, kube-scheduler and kube-proxy $kube_version (pinned in hack/controlplane/kube/go.mod)"
(cd "$here/kube" && go build -ldflags "$stamp_flags" -o "$out/" k8s.io/kubernetes/cmd/kube-apiserver \
  k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kubectl \
  k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kube-proxy)
echo "$stamp" >"$out/.stamp"
echo "control plane: built in $(($(date +%s) - start))s into $out"
