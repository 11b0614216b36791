#!/usr/bin/env bash
# Lints the GitHub workflows with actionlint, building the pinned version from
# the Go module proxy once, and the run: scripts with shellcheck, which it
# installs with apt-get when missing (a lint that silently checks less on a
# new machine is no check): without apt-get or root it stops and says so.
#
# actionlint is built by the suite's Go (go.mod's toolchain line, GOTOOLCHAIN=auto
# as the Makefile sets it), under hack/goenv.sh's checksum rules.
set -euo pipefail
cd "$(dirname "$0")/.."
. hack/goenv.sh
./hack/shellcheck.sh --install-only
version=v1.7.7
dir=${GITOPS_CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gitops-conformance}/bin
bin=$dir/actionlint-$version
if [ ! -x "$bin" ]; then
  echo "building actionlint $version (once, into $dir)"
  mkdir -p "$dir"
  tmp=$(mktemp -d "$dir/tmp-actionlint.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  go_env auto
  GOBIN=$tmp GOFLAGS=-mod=mod go install "github.com/rhysd/actionlint/cmd/actionlint@$version"
  mv "$tmp/actionlint" "$bin"
  rm -rf "$tmp" # exec below ends the shell before its EXIT trap
fi
exec "$bin" "$@"
