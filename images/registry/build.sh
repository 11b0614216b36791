#!/usr/bin/env bash
# The suite's local registry image, built with no container registry: the
# registry command of github.com/distribution/distribution/v3 (the version the
# build module module/go.mod pins, with its committed go.sum) from the Go module
# proxy, CGO_ENABLED=0, into a FROM scratch image with config.yml.
#
#   usage: build.sh IMAGE        e.g. build.sh gitops-conformance/registry:3.0.0-<key>
#   env:   CACHE_DIR             default ${XDG_CACHE_HOME:-$HOME/.cache}/gitops-conformance
#          CACHE_KEY             the label value (internal/images hashes this recipe)
#
# stdout carries only "IMAGES:" and the image name; progress goes to stderr.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 IMAGE" >&2; exit 2; }
IMAGE=$1
BUILD_NAME=registry
# shellcheck source=images/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
CACHE_KEY=${CACHE_KEY:-$(cd "$HERE" && cat build.sh config.yml registry.Dockerfile module/go.mod module/go.sum "$LIB" | sha256sum | cut -c1-16)}

if [ "$(image_key "$IMAGE")" = "$CACHE_KEY" ]; then
  progress "image registry" "cached $IMAGE"
  echo "IMAGES:"; echo "$IMAGE"; exit 0
fi

CTX=$(mktemp -d "$WORK_DIR/registry.XXXXXX"); TMPS+=("$CTX")
# the build module is copied: go build may touch go.sum, the checkout stays as committed
cp "$HERE/module/go.mod" "$HERE/module/go.sum" "$HERE/module/tools.go" "$CTX/"
mkdir -p "$CTX/root/etc/distribution" "$CTX/root/var/lib/registry" "$CTX/root/tmp"
chmod 1777 "$CTX/root/tmp"
progress "binary registry" "go build github.com/distribution/distribution/v3/cmd/registry (~2 min cold)"
run go-build go -C "$CTX" build -trimpath -ldflags "-s -w" -o "$CTX/root/registry" github.com/distribution/distribution/v3/cmd/registry
cp "$HERE/config.yml" "$CTX/root/etc/distribution/config.yml"
tar --numeric-owner -C "$CTX/root" -cf "$CTX/rootfs.tar" .
cp "$HERE/registry.Dockerfile" "$CTX/Dockerfile"
run docker-build docker build --force-rm --label "$LABEL_KEY=$CACHE_KEY" -t "$IMAGE" "$CTX"
progress "image registry" "built $IMAGE"
echo "build.sh: done in $((SECONDS - T0))s" >&2
echo "IMAGES:"
echo "$IMAGE"
