#!/usr/bin/env bash
# Runs golangci-lint, building the pinned version from the Go module proxy once.
set -euo pipefail
version=v1.64.8
bin=${XDG_CACHE_HOME:-$HOME/.cache}/gitops-conformance/bin/golangci-lint-$version
if [ ! -x "$bin" ]; then
  echo "building golangci-lint $version (once)"
  GOBIN=$(dirname "$bin")/tmp-lint GOFLAGS=-mod=mod GOSUMDB=off go install "github.com/golangci/golangci-lint/cmd/golangci-lint@$version"
  mv "$(dirname "$bin")/tmp-lint/golangci-lint" "$bin" && rmdir "$(dirname "$bin")/tmp-lint"
fi
exec "$bin" run --timeout 10m --build-tags e2e ./...
