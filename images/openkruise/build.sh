#!/usr/bin/env bash
# Offline build of the OpenKruise images for one released tag, with no
# container registry: the sources come from the Go module proxy.
#
#   usage: build.sh TAG            e.g. build.sh v1.5.2
#   env:   CACHE_DIR               default ${XDG_CACHE_HOME:-$HOME/.cache}/gitops-conformance
#
# Upstream's Dockerfile builds two binaries from the module, `manager` (the
# module root package main) and `daemon` (./cmd/daemon), into ONE image,
# openkruise/kruise-manager:TAG, that both the controller-manager Deployment
# (/manager) and the kruise-daemon DaemonSet (/kruise-daemon) run. This
# recipe does the same from the module zip (its vendor/ is not in the zip, so
# the build resolves go.mod against the proxy; the resolved go.sum is kept
# next to the binary), on a scratch rootfs holding what upstream's alpine
# base gives them: /tmp (1777), /etc/passwd with nobody, CA certificates.
# stdout carries only "IMAGES:" and the image names; progress goes to stderr.
# The image is labelled gitops-conformance.cache-key=<sha256 over the tag, the
# recipe files and the Go version>; an image with that key is reused.
#
# With HOOK_IMAGE (the image the release's chart names for its Helm pre-delete
# hook, values.yaml helmHooks.image: openkruise/kruise-helm-hook:v0.1.0 in
# charts 1.8.0 and 1.8.3) it also builds that image, as upstream's
# Dockerfile_helm_hook does: the module's ./cmd/helm_hook as /helm_hook, its
# ENTRYPOINT, on the same rootfs. Upstream does not say which commit built
# v0.1.0; cmd/helm_hook/main.go is the same file in the module at v1.8.0,
# v1.8.2 and v1.8.3 (sha256 03650e4e3654...; v1.7.0 and earlier have none),
# so it is built from the module at TAG, and a TAG without it is refused.
set -euo pipefail

[ $# -eq 1 ] && [[ $1 =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "usage: $0 TAG   (e.g. v1.5.2)" >&2; exit 2; }
TAG=$1
MOD=github.com/openkruise/kruise
IMAGE=openkruise/kruise-manager:$TAG

BUILD_NAME=openkruise-$TAG
# shellcheck source=images/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
BIN_DIR=$CACHE_DIR/bin
mkdir -p "$BIN_DIR"

HOOK_IMAGE=${HOOK_IMAGE:-}
[ -z "$HOOK_IMAGE" ] || [[ $HOOK_IMAGE =~ ^[a-z0-9./-]+:[A-Za-z0-9._-]+$ ]] || { echo "build.sh: HOOK_IMAGE=$HOOK_IMAGE is not an image name with a tag" >&2; exit 2; }
KEY=$(printf '%s\n' openkruise "$TAG" "$IMAGE" "$RECIPE" "$GOVERSION" | sha256sum | cut -d' ' -f1)
HOOK_KEY=$(printf '%s\n' openkruise-helm-hook "$TAG" "$HOOK_IMAGE" "$RECIPE" "$GOVERSION" | sha256sum | cut -d' ' -f1)
if [ "$(image_key "$IMAGE")" = "$KEY" ] && { [ -z "$HOOK_IMAGE" ] || [ "$(image_key "$HOOK_IMAGE")" = "$HOOK_KEY" ]; }; then
  progress "image kruise-manager" "cached $IMAGE${HOOK_IMAGE:+ and $HOOK_IMAGE}"
  echo "IMAGES:"; echo "$IMAGE"; [ -z "$HOOK_IMAGE" ] || echo "$HOOK_IMAGE"; exit 0
fi

J=$(cd "$WORK_DIR" && go mod download -json "$MOD@$TAG")
SRC=$(jq -r .Dir <<<"$J")
[ -d "$SRC" ] || { echo "build.sh: go mod download $MOD@$TAG: $(jq -r '.Error // empty' <<<"$J")" >&2; exit 1; }
progress "module $MOD@$TAG" "$SRC"

# build_bin NAME PKG: cached as $BIN_DIR/kruise-NAME-TAG, stamped with the module sum and Go version
build_bin() {
  local name=$1 pkg=$2 out=$BIN_DIR/kruise-$1-$TAG stamp work
  stamp=$(printf '%s\n' "$MOD@$TAG" "$(jq -r .Sum <<<"$J")" "$pkg" "$GOVERSION" "$GOFLAGS" | sha256sum | cut -d' ' -f1)
  if [ -x "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$stamp" ]; then
    progress "binary $name" "cached $out"; return 0
  fi
  work=$(mktemp -d "$WORK_DIR/kruise-$name.XXXXXX"); TMPS+=("$work")
  cp -R "$SRC/." "$work/"; chmod -R u+w "$work"; rm -rf "$work/vendor" # the zip keeps only vendor/modules.txt
  run "go-build-$name" go -C "$work" build -trimpath -ldflags "-s -w" -o "$out.tmp" "$pkg"
  mv -f "$out.tmp" "$out"; echo "$stamp" >"$out.stamp"; cp "$work/go.sum" "$out.go.sum"
  progress "binary $name" "built $out"
}
if [ -n "$HOOK_IMAGE" ] && [ ! -f "$SRC/cmd/helm_hook/main.go" ]; then
  echo "build.sh: the chart names the hook image $HOOK_IMAGE, but $MOD@$TAG has no cmd/helm_hook to build it from" >&2; exit 1
fi
build_bin manager .
build_bin daemon ./cmd/daemon
[ -z "$HOOK_IMAGE" ] || build_bin helm_hook ./cmd/helm_hook

# image NAME KEY DOCKERFILE BINARY:PATH...: the binaries on the rootfs upstream's alpine base gives them
image() {
  local name=$1 key=$2 dockerfile=$3 ctx b; shift 3
  ctx=$(mktemp -d "$WORK_DIR/kruise-image.XXXXXX"); TMPS+=("$ctx")
  mkdir -p "$ctx/root/tmp" "$ctx/root/etc/ssl/certs" "$ctx/root/log"
  chmod 1777 "$ctx/root/tmp"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/:/sbin/nologin\n' >"$ctx/root/etc/passwd"
  printf 'root:x:0:\nnobody:x:65534:\n' >"$ctx/root/etc/group"
  cp /etc/ssl/certs/ca-certificates.crt "$ctx/root/etc/ssl/certs/"
  for b in "$@"; do cp "$BIN_DIR/kruise-${b%%:*}-$TAG" "$ctx/root/${b#*:}"; done
  chown -R 65534:65534 "$ctx/root/log"
  tar --numeric-owner -C "$ctx/root" -cf "$ctx/rootfs.tar" .
  cp "$HERE/$dockerfile" "$ctx/Dockerfile"
  run "docker-build-${dockerfile%.Dockerfile}" docker build --force-rm --label "$LABEL_KEY=$key" --label "gitops-conformance.openkruise-tag=$TAG" -t "$name" "$ctx"
  progress "image ${dockerfile%.Dockerfile}" "built $name"
}
image "$IMAGE" "$KEY" kruise-manager.Dockerfile manager:manager daemon:kruise-daemon
[ -z "$HOOK_IMAGE" ] || image "$HOOK_IMAGE" "$HOOK_KEY" kruise-helm-hook.Dockerfile helm_hook:helm_hook
echo "build.sh $TAG: done in $((SECONDS - T0))s" >&2
echo "IMAGES:"
echo "$IMAGE"
[ -z "$HOOK_IMAGE" ] || echo "$HOOK_IMAGE"
