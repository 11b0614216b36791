#!/usr/bin/env bash
# Builds the Kubernetes binaries the node image needs from the pinned build module.
# usage: build.sh OUT_DIR      (KUBE_VERSION must match go.mod's k8s.io/kubernetes)
set -euo pipefail
out=${1:?usage: build.sh OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
ver=${KUBE_VERSION:?KUBE_VERSION is required}
minor=$(echo "$ver" | cut -d. -f2)
pkg=k8s.io/component-base/version
cpkg=k8s.io/client-go/pkg/version
ld="-s -w"
for p in $pkg $cpkg; do
  ld+=" -X $p.gitVersion=$ver -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean -X $p.buildDate=1970-01-01T00:00:00Z"
done
mkdir -p "$out"
cd "$here"
export CGO_ENABLED=0 GOFLAGS=-mod=mod GOSUMDB=off GOTOOLCHAIN=local
for cmd in kubeadm kubelet kubectl kube-apiserver kube-controller-manager kube-scheduler kube-proxy; do
  echo "build $cmd"
  go build -trimpath -ldflags "$ld" -o "$out/$cmd" "k8s.io/kubernetes/cmd/$cmd"
done
