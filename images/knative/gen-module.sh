#!/usr/bin/env bash
# gen-module.sh VERSION: writes modules/VERSION/{go.mod,go.sum}, the build
# module build.sh compiles Knative Serving's commands in. go.mod is upstream's
# (knative.dev/serving@VERSION: its require and replace blocks, so the build
# resolves exactly upstream's versions) renamed, plus a require of the module
# itself; go.sum is upstream's plus what the build resolves. Commit both.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 VERSION" >&2; exit 2; }
VERSION=$1
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../hack/goenv.sh
. "$HERE/../../hack/goenv.sh"
go_env local
export GOFLAGS="-mod=mod -buildvcs=false" GOWORK=off CGO_ENABLED=0
OUT=$HERE/modules/$VERSION
mkdir -p "$OUT"
J=$(cd /tmp && go mod download -json "knative.dev/serving@$VERSION")
DIR=$(jq -r .Dir <<<"$J")
sed -E "s#^module knative.dev/serving\$#module github.com/gitops-conformance/suite/images/knative/build#" "$DIR/go.mod" >"$OUT/go.mod"
go -C "$OUT" mod edit -require="knative.dev/serving@$VERSION"
{ cat "$DIR/go.sum"; echo "knative.dev/serving $VERSION $(jq -r .Sum <<<"$J")"; echo "knative.dev/serving $VERSION/go.mod $(jq -r .GoModSum <<<"$J")"; } | LC_ALL=C sort -u >"$OUT/go.sum"
# resolve what the commands need (fills go.sum), without keeping binaries
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
go -C "$OUT" build -o "$T/" knative.dev/serving/cmd/webhook knative.dev/serving/cmd/controller \
  knative.dev/serving/cmd/activator knative.dev/serving/cmd/autoscaler
echo "modules/$VERSION written" >&2
