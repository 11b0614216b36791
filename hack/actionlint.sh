#!/usr/bin/env bash
# Lints the GitHub workflows with actionlint, building the pinned version from
# the Go module proxy once. When the shellcheck binary is installed (Debian:
# apt-get install shellcheck), actionlint runs it on the run: scripts too.
set -euo pipefail
version=v1.7.7
bin=${XDG_CACHE_HOME:-$HOME/.cache}/gitops-conformance/bin/actionlint-$version
if [ ! -x "$bin" ]; then
  echo "building actionlint $version (once)"
  GOBIN=$(dirname "$bin")/tmp-actionlint GOFLAGS=-mod=mod GOSUMDB=off go install "github.com/rhysd/actionlint/cmd/actionlint@$version"
  mv "$(dirname "$bin")/tmp-actionlint/actionlint" "$bin" && rmdir "$(dirname "$bin")/tmp-actionlint"
fi
command -v shellcheck >/dev/null || echo "actionlint: shellcheck not installed, run: scripts are not checked" >&2
exec "$bin" "$@"
