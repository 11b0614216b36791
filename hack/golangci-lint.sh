#!/usr/bin/env bash
# Runs golangci-lint with .golangci.yml, building the pinned version from the
# Go module proxy once into the suite's cache (a few minutes on 2 cores; later
# runs take the cached binary).
#
# It is built by the suite's Go, go.mod's toolchain line (GOTOOLCHAIN=auto, as
# the Makefile sets it): a golangci-lint built by an older Go refuses the
# module ("the Go language version (go1.26) used to build golangci-lint is
# lower than the targeted Go version (1.27.3)"), so the binary's name carries
# the Go that built it. The checksum rules are hack/goenv.sh's.
set -euo pipefail
cd "$(dirname "$0")/.."
. hack/goenv.sh
version=v2.15.0
go_env auto
suite_go=$(go env GOVERSION)
dir=${GITOPS_CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gitops-conformance}/bin
bin=$dir/golangci-lint-$version-$suite_go
if [ ! -x "$bin" ]; then
  echo "building golangci-lint $version with $suite_go (once, into $dir)"
  tmp=$(mktemp -d "$dir/tmp-lint.XXXXXX" 2>/dev/null || { mkdir -p "$dir" && mktemp -d "$dir/tmp-lint.XXXXXX"; })
  trap 'rm -rf "$tmp"' EXIT
  go_env "$suite_go"
  GOBIN=$tmp GOFLAGS=-mod=mod go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$version"
  mv "$tmp/golangci-lint" "$bin"
  rm -rf "$tmp" # exec below ends the shell before its EXIT trap
fi
exec "$bin" run --config .golangci.yml ./...
