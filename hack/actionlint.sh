#!/usr/bin/env bash
# Lints the GitHub workflows with actionlint, building the pinned version from
# the Go module proxy once, and the run: scripts with shellcheck, which it
# installs with apt-get when missing (a lint that silently checks less on a
# new machine is no check): without apt-get or root it stops and says so.
set -euo pipefail
cd "$(dirname "$0")/.."
./hack/shellcheck.sh --install-only
version=v1.7.7
bin=${GITOPS_CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gitops-conformance}/bin/actionlint-$version
if [ ! -x "$bin" ]; then
  echo "building actionlint $version (once)"
  GOBIN=$(dirname "$bin")/tmp-actionlint GOFLAGS=-mod=mod GOSUMDB=off go install "github.com/rhysd/actionlint/cmd/actionlint@$version"
  mv "$(dirname "$bin")/tmp-actionlint/actionlint" "$bin" && rmdir "$(dirname "$bin")/tmp-actionlint"
fi
exec "$bin" "$@"
