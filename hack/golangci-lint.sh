#!/usr/bin/env bash
# Runs golangci-lint with .golangci.yml, building the pinned version from the
# Go module proxy once into the suite's cache (a few minutes on 2 cores; later
# runs take the cached binary).
set -euo pipefail
cd "$(dirname "$0")/.."
version=v2.15.0
dir=${GITOPS_CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gitops-conformance}/bin
bin=$dir/golangci-lint-$version
if [ ! -x "$bin" ]; then
  echo "building golangci-lint $version (once, into $dir)"
  tmp=$(mktemp -d "$dir/tmp-lint.XXXXXX" 2>/dev/null || { mkdir -p "$dir" && mktemp -d "$dir/tmp-lint.XXXXXX"; })
  trap 'rm -rf "$tmp"' EXIT
  GOBIN=$tmp GOFLAGS=-mod=mod GOSUMDB=off go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$version"
  mv "$tmp/golangci-lint" "$bin"
fi
exec "$bin" run --config .golangci.yml ./...
