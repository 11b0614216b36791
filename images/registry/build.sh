#!/usr/bin/env bash
# The suite's local registry image, built with no container registry: the
# registry command of github.com/distribution/distribution/v3 (the version the
# build module module/go.mod pins, with its committed go.sum) from the Go module
# proxy, CGO_ENABLED=0, into a FROM scratch image with config.yml.
#
#   usage: build.sh IMAGE        e.g. build.sh gitops-conformance/registry:3.0.0-<key>
#   env:   CACHE_DIR             default ${XDG_CACHE_HOME:-$HOME/.cache}/gitops-conformance
#          CACHE_KEY             the label value (pkg/images hashes this recipe)
#
# stdout carries only "IMAGES:" and the image name; progress goes to stderr.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 IMAGE" >&2; exit 2; }
IMAGE=$1
LABEL_KEY=gitops-conformance.cache-key
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE_DIR=${CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gitops-conformance}
CACHE_KEY=${CACHE_KEY:-$(cd "$HERE" && cat build.sh config.yml registry.Dockerfile module/go.mod module/go.sum | sha256sum | cut -c1-16)}
WORK_DIR=$CACHE_DIR/work
LOG_DIR=$CACHE_DIR/logs/registry
mkdir -p "$WORK_DIR" "$LOG_DIR"
export GOFLAGS="-mod=mod -buildvcs=false" GOSUMDB=off GOTOOLCHAIN=local GOWORK=off CGO_ENABLED=0
export DOCKER_BUILDKIT=0

T0=$SECONDS
progress() { printf '[%4ss] %-24s %s\n' "$((SECONDS - T0))" "$1" "$2" >&2; }
CTX=""
cleanup() {
  local rc=$?
  [ -z "$CTX" ] || rm -rf --one-file-system "$CTX"
  [ "$rc" -eq 0 ] || echo "build.sh: FAILED (exit $rc) after $((SECONDS - T0))s; logs in $LOG_DIR" >&2
}
trap cleanup EXIT
run() { # run LOGNAME CMD...: output to a log, its tail on failure
  local log=$LOG_DIR/$1.log; shift
  if ! "$@" >"$log" 2>&1; then
    echo "build.sh: command failed: $*" >&2; tail -n 40 "$log" >&2; return 1
  fi
}

if [ "$(docker image inspect -f "{{ index .Config.Labels \"$LABEL_KEY\" }}" "$IMAGE" 2>/dev/null || true)" = "$CACHE_KEY" ]; then
  progress "image registry" "cached $IMAGE"
  echo "IMAGES:"; echo "$IMAGE"; exit 0
fi

CTX=$(mktemp -d "$WORK_DIR/registry.XXXXXX")
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
