#!/usr/bin/env bash
# Offline build of the Kyverno images one chart release runs, with no
# container registry: the Go module zip of github.com/kyverno/kyverno at
# VERSION, Debian's mirror, and the kubectl built with the node image.
#
#   usage: build.sh VERSION        e.g. build.sh v1.14.0
#   env:   CACHE_DIR               default ${XDG_CACHE_HOME:-$HOME/.cache}/gitops-conformance
#          KUBECTL                 default $CACHE_DIR/bin/kubernetes-v1.33.13/kubectl (static)
#          DEBIAN_SUITE            default bookworm
#          DEBIAN_MIRROR           default http://deb.debian.org/debian
#
# Images, named exactly as the module's charts/kyverno/values.yaml names them:
#   - <defaultRegistry>/kyverno/kyverno:VERSION     (cmd/kyverno, the admission controller)
#   - <defaultRegistry>/kyverno/kyvernopre:VERSION  (cmd/kyverno-init, its init container)
#     FROM scratch: the static binary as entrypoint (as ko builds it), the
#     host's CA bundle, USER 65532.
#   - the policyReportsCleanup hook image (bitnami/kubectl:<tag> in 3.4.x):
#     a Debian minbase rootfs (bash, awk, xargs, wc: what the hook script uses)
#     plus the static kubectl. Its kubectl version is the node's, not the tag's.
#     Only for a chart that has the hook: chart 3.4.4 (v1.14.4) still has it,
#     3.5.1 (v1.15.1; the proxy refuses v1.15.0) and every later chart
#     read (to 3.9.1, v1.19.1) have neither the hook nor its
#     policyReportsCleanup values, so for those no kubectl image is built.
# The background, cleanup and reports controllers and the kyverno-cli image
# are not built: the scenario's chart values switch them off.
# Progress goes to stderr; stdout carries only "IMAGES:" and one name per line.
# Each image is labelled gitops-conformance.cache-key=<sha256 over the version,
# the recipe files and the inputs>; an image with that name and key is reused.
set -euo pipefail

usage() { echo "usage: $0 VERSION   (a kyverno release tag, e.g. v1.14.0)" >&2; exit 2; }
[ $# -eq 1 ] || usage
VERSION=$1
[[ $VERSION =~ ^v1\.[0-9]+\.[0-9]+$ ]] || usage
MOD=github.com/kyverno/kyverno

BUILD_NAME=kyverno-$VERSION
# shellcheck source=images/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
KUBECTL=${KUBECTL:-$CACHE_DIR/bin/kubernetes-v1.33.13/kubectl}
DEBIAN_SUITE=${DEBIAN_SUITE:-bookworm}
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
BIN_DIR=$CACHE_DIR/bin/kyverno-$VERSION
mkdir -p "$BIN_DIR"

# ---------------------------------------------------------------- module and names
J=$(cd "$WORK_DIR" && go mod download -json "$MOD@$VERSION" 2>>"$LOG_DIR/go-mod-download.log") ||
  { echo "build.sh: go mod download $MOD@$VERSION failed: $(jq -r '.Error // empty' <<<"$J")" >&2; exit 1; }
SRC=$(jq -r .Dir <<<"$J")
VALUES=$SRC/charts/kyverno/values.yaml
[ -f "$VALUES" ] || { echo "build.sh: $MOD@$VERSION has no charts/kyverno/values.yaml" >&2; exit 1; }
# value TOPKEY FIELD: the first "FIELD: x" line under a top-level "TOPKEY:" block
value() {
  awk -v top="$1:" -v f="$2" '
    /^[^ #]/ { inside = ($1 == top) }
    inside && $1 == f":" { v = $2; gsub(/["'\'']/, "", v); print v; exit }' "$VALUES"
}
REGISTRY=$(value admissionController defaultRegistry)
[ -n "$REGISTRY" ] || { echo "build.sh: no admissionController defaultRegistry in $VALUES" >&2; exit 1; }
KYVERNO_IMAGE=$REGISTRY/kyverno/kyverno:$VERSION
KYVERNOPRE_IMAGE=$REGISTRY/kyverno/kyvernopre:$VERSION
KUBECTL_IMAGE=""
if grep -q '^policyReportsCleanup:' "$VALUES"; then
  KUBECTL_REPO=$(value policyReportsCleanup repository)
  KUBECTL_TAG=$(value policyReportsCleanup tag)
  [ -n "$KUBECTL_REPO" ] && [ -n "$KUBECTL_TAG" ] || { echo "build.sh: no policyReportsCleanup image in $VALUES" >&2; exit 1; }
  KUBECTL_IMAGE=$KUBECTL_REPO:$KUBECTL_TAG
fi
progress "module $MOD@$VERSION" "$KYVERNO_IMAGE $KYVERNOPRE_IMAGE ${KUBECTL_IMAGE:-(no policyReportsCleanup hook in this chart)}"

# ---------------------------------------------------------------- kyverno, kyvernopre
KEY=$(printf '%s\n' kyverno "$VERSION" "$RECIPE" "$GOVERSION" "$(sha256sum "$CA_BUNDLE")" | sha256sum | cut -d' ' -f1)
if [ "$(image_key "$KYVERNO_IMAGE")" = "$KEY" ] && [ "$(image_key "$KYVERNOPRE_IMAGE")" = "$KEY" ]; then
  progress "kyverno images" "cached"
else
  STAMP=$(printf '%s\n' "$MOD@$VERSION" "$GOVERSION" "$GOFLAGS" | sha256sum | cut -d' ' -f1)
  if [ "$(cat "$BIN_DIR/stamp" 2>/dev/null)" != "$STAMP" ]; then
    rm -f "$BIN_DIR/stamp" # an interrupted rebuild must not leave an old stamp over new binaries
    W=$(mktemp -d "$WORK_DIR/kyverno-$VERSION.XXXXXX"); TMPS+=("$W")
    cp -R "$SRC/." "$W/"; chmod -R u+w "$W"
    # ldflags as the release Makefile sets them (LD_FLAGS, PACKAGE=github.com/kyverno/kyverno)
    run go-build go -C "$W" build -trimpath -ldflags "-s -w -X $MOD/pkg/version.BuildVersion=$VERSION" \
      -o "$BIN_DIR/" ./cmd/kyverno ./cmd/kyverno-init
    cp "$W/go.sum" "$BIN_DIR/go.sum"
    echo "$STAMP" >"$BIN_DIR/stamp"
    progress "go build" "cmd/kyverno cmd/kyverno-init -> $BIN_DIR"
  else
    progress "go build" "cached $BIN_DIR"
  fi
  for pair in "kyverno:$KYVERNO_IMAGE" "kyverno-init:$KYVERNOPRE_IMAGE"; do
    bin=${pair%%:*} img=${pair#*:}
    C=$(mktemp -d "$WORK_DIR/ctx-$bin.XXXXXX"); TMPS+=("$C")
    cp "$BIN_DIR/$bin" "$C/app"; cp "$CA_BUNDLE" "$C/ca-certificates.crt"
    cp "$HERE/kyverno.Dockerfile" "$C/Dockerfile"
    run "docker-build-$bin" docker build --force-rm --label "$LABEL_KEY=$KEY" \
      --label gitops-conformance.kyverno-version="$VERSION" -t "$img" "$C"
    progress "image $bin" "built $img"
  done
fi

# ---------------------------------------------------------------- kubectl (hook image)
build_kubectl() {
  [ -x "$KUBECTL" ] || { echo "build.sh: no kubectl at $KUBECTL (built with the node image)" >&2; exit 1; }
  KKEY=$(printf '%s\n' kubectl "$KUBECTL_IMAGE" "$RECIPE" "$DEBIAN_SUITE" "$(sha256sum <"$KUBECTL")" | sha256sum | cut -d' ' -f1)
  if [ "$(image_key "$KUBECTL_IMAGE")" = "$KKEY" ]; then
    progress "image kubectl" "cached $KUBECTL_IMAGE"
    return
  fi
  BASE=gitops-conformance/kubectl-base:$(printf '%s\n' "$DEBIAN_SUITE" minbase | sha256sum | cut -c1-12)
  if ! docker image inspect "$BASE" >/dev/null 2>&1; then
    R=$(mktemp -d "$WORK_DIR/rootfs-kubectl.XXXXXX"); TMPS+=("$R")
    run debootstrap debootstrap --variant=minbase "$DEBIAN_SUITE" "$R/fs" "$DEBIAN_MIRROR"
    rm -rf "$R"/fs/var/cache/apt/archives/*.deb "$R"/fs/var/lib/apt/lists/* "$R"/fs/var/log/*.log
    run import-kubectl bash -o pipefail -c 'tar --numeric-owner -C "$1" -cf - . | docker import - "$2"' _ "$R/fs" "$BASE"
    progress "rootfs kubectl" "built $BASE"
  fi
  C=$(mktemp -d "$WORK_DIR/ctx-kubectl.XXXXXX"); TMPS+=("$C")
  cp "$KUBECTL" "$C/kubectl"; cp "$HERE/kubectl.Dockerfile" "$C/Dockerfile"
  run docker-build-kubectl docker build --force-rm --build-arg BASE_IMAGE="$BASE" \
    --label "$LABEL_KEY=$KKEY" -t "$KUBECTL_IMAGE" "$C"
  progress "image kubectl" "built $KUBECTL_IMAGE ($("$KUBECTL" version --client 2>/dev/null | head -n1); upstream tag $KUBECTL_TAG)"
}
if [ -n "$KUBECTL_IMAGE" ]; then
  build_kubectl
else
  progress "image kubectl" "none: the chart has no policyReportsCleanup hook"
fi

echo "build.sh $VERSION: done in $((SECONDS - T0))s" >&2
echo "IMAGES:"
printf '%s\n' "$KYVERNO_IMAGE" "$KYVERNOPRE_IMAGE"
[ -z "$KUBECTL_IMAGE" ] || echo "$KUBECTL_IMAGE"
