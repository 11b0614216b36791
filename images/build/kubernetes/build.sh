#!/usr/bin/env bash
# Builds the Kubernetes binaries the node image needs from a build module that
# images/build/module.sh wrote, with the version fields upstream's build sets.
# usage: build.sh MODULE_DIR OUT_DIR      (KUBE_VERSION: the module's k8s.io/kubernetes)
set -euo pipefail
# shellcheck source=../../../hack/goenv.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../../hack/goenv.sh"
mod=${1:?usage: build.sh MODULE_DIR OUT_DIR}
out=${2:?usage: build.sh MODULE_DIR OUT_DIR}
ver=${KUBE_VERSION:?KUBE_VERSION is required}
minor=$(echo "$ver" | cut -d. -f2)
ld="-s -w"
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ld+=" -X $p.gitVersion=$ver -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean -X $p.buildDate=1970-01-01T00:00:00Z"
done
mkdir -p "$out"
cd "$mod"
go_env "$(cat toolchain)"
export CGO_ENABLED=0 GOFLAGS="-mod=mod -buildvcs=false" GOWORK=off
while read -r pkg; do
  echo "build ${pkg##*/}"
  go build -trimpath -ldflags "$ld" -o "$out/${pkg##*/}" "$pkg"
done <main.txt
