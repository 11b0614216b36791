#!/usr/bin/env bash
# build.sh VERSION: metrics-server's image, offline, from the Go module
# sigs.k8s.io/metrics-server at VERSION (its module zip from the module proxy),
# under the name upstream publishes it: registry.k8s.io/metrics-server/metrics-server:VERSION
# (what the module's manifests/components/release names, and so what
# `kubectl kustomize manifests/overlays/release`, the release's components.yaml,
# runs).
#
# The binary is built as upstream's Makefile builds it (`make metrics-server`:
# CGO_ENABLED=0 go build -mod=readonly -trimpath -ldflags "-w -X
# k8s.io/client-go/pkg/version.gitVersion=..." sigs.k8s.io/metrics-server/cmd/metrics-server),
# in a writable copy of the module zip's tree, with the module's own go.sum: no
# build module of ours, since its go.mod replaces nothing. Its Go is the go
# line's (images/argocd/gotoolchain.sh: this machine's when new enough, else the
# catalog's approved toolchain of that minor). The image is upstream's
# Dockerfile's final stage on scratch instead of distroless/static (nothing is
# pulled offline): the binary at /metrics-server, USER 65534. metrics-server
# reads the kubelets' certificates with --kubelet-insecure-tls (the suite's
# manifests add it) and its API server's from the service account, so it needs
# no CA bundle of the image.
#
# Progress goes to stderr; stdout carries a "SOURCE:" line (the module, its
# version and its zip's h1 hash) and, after "IMAGES:", the image's name. The
# image carries the label gitops-conformance.cache-key=<sha256 over VERSION,
# the Go version and this recipe> (an image with that key is reused) and
# gitops-conformance.source=<module@version h1:...>.
set -euo pipefail

usage() { echo "usage: $0 VERSION   (a sigs.k8s.io/metrics-server module tag, e.g. v0.9.0)" >&2; exit 2; }
[ $# -eq 1 ] || usage
VERSION=$1
[[ $VERSION =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || usage

BUILD_NAME=metrics-server-$VERSION
# shellcheck source=images/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# shellcheck source=images/argocd/gotoolchain.sh
. "$HERE/../argocd/gotoolchain.sh"
exec 9>"$WORK_DIR/metrics-server-$VERSION.lock" # one build of a version at a time
flock 9

MOD=sigs.k8s.io/metrics-server
IMAGE=registry.k8s.io/metrics-server/metrics-server:$VERSION
KEY=$(echo "$RECIPE $VERSION $GOVERSION" | sha256sum | cut -d' ' -f1)

# a module whose go line is newer than this Go is downloaded (extracted) by that Go's approved toolchain
J=$(cd / && go mod download -json "$MOD@$VERSION" 2>/dev/null) || true
if need=$(needs_go "$(jq -r '.Error // empty' <<<"$J" 2>/dev/null)") && [ -n "$need" ]; then
  toolchain_env "$(toolchain_for "$need")"
  J=$(cd / && env "${TC_ENV[@]}" go mod download -json "$MOD@$VERSION" 2>/dev/null) || true
fi
DIR=$(jq -r '.Dir // empty' <<<"$J" 2>/dev/null)
[ -n "$DIR" ] || { echo "build.sh: $MOD@$VERSION: $(jq -r '.Error // "no answer"' <<<"$J" 2>/dev/null || echo "the module proxy gave no module")" >&2; exit 1; }
SUM=$(jq -r .Sum <<<"$J")
SOURCE="$MOD@$VERSION $SUM"

if [ "$(image_key "$IMAGE")" = "$KEY" ]; then
  progress "image metrics-server" "cached $IMAGE"
else
  goline=$(sed -n 's/^go \([0-9.]*\).*/\1/p' "$DIR/go.mod")
  toolchain=$(toolchain_for "$goline")
  toolchain_env "$toolchain"
  WORK=$(mktemp -d "$WORK_DIR/metrics-server-$VERSION.XXXXXX"); TMPS+=("$WORK")
  cp -r "$DIR" "$WORK/src" && chmod -R u+w "$WORK/src"
  # upstream's VERSION_LDFLAGS: the tag, and the tag's time as the build date (reproducible)
  ldflags="-w -X k8s.io/client-go/pkg/version.gitVersion=$VERSION -X k8s.io/client-go/pkg/version.buildDate=$(jq -r .Time "$(jq -r .Info <<<"$J")")"
  mkdir -p "$WORK/ctx"
  run go-build env "${TC_ENV[@]}" go -C "$WORK/src" build -mod=readonly -trimpath -ldflags "$ldflags" \
    -o "$WORK/ctx/metrics-server" ./cmd/metrics-server
  progress "go build" "$MOD@$VERSION (go $goline, GOTOOLCHAIN=$toolchain)"
  cat >"$WORK/ctx/Dockerfile" <<'DOCKERFILE'
FROM scratch
COPY metrics-server /
USER 65534
ENTRYPOINT ["/metrics-server"]
DOCKERFILE
  old=$(docker image inspect -f '{{.Id}}' "$IMAGE" 2>/dev/null || true)
  run docker-build docker build --force-rm --label "$LABEL_KEY=$KEY" --label "gitops-conformance.source=$SOURCE" \
    -t "$IMAGE" "$WORK/ctx"
  [ -z "$old" ] || [ "$old" = "$(docker image inspect -f '{{.Id}}' "$IMAGE")" ] || docker rmi "$old" >/dev/null 2>&1 || true
  progress "image metrics-server" "built $IMAGE"
fi

echo "build.sh $VERSION: done in $((SECONDS - T0))s" >&2
echo "SOURCE: $SOURCE"
echo "IMAGES:"
echo "$IMAGE"
