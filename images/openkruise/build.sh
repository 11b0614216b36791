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
# stdout carries only "IMAGES:" and the image name; progress goes to stderr.
# The image is labelled gitops-conformance.cache-key=<sha256 over the tag, the
# recipe files and the Go version>; an image with that key is reused.
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

KEY=$(printf '%s\n' openkruise "$TAG" "$IMAGE" "$RECIPE" "$GOVERSION" | sha256sum | cut -d' ' -f1)
if [ "$(image_key "$IMAGE")" = "$KEY" ]; then
  progress "image kruise-manager" "cached $IMAGE"
  echo "IMAGES:"; echo "$IMAGE"; exit 0
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
build_bin manager .
build_bin daemon ./cmd/daemon

CTX=$(mktemp -d "$WORK_DIR/kruise-image.XXXXXX"); TMPS+=("$CTX")
mkdir -p "$CTX/root/tmp" "$CTX/root/etc/ssl/certs" "$CTX/root/log"
chmod 1777 "$CTX/root/tmp"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/:/sbin/nologin\n' >"$CTX/root/etc/passwd"
printf 'root:x:0:\nnobody:x:65534:\n' >"$CTX/root/etc/group"
cp /etc/ssl/certs/ca-certificates.crt "$CTX/root/etc/ssl/certs/"
cp "$BIN_DIR/kruise-manager-$TAG" "$CTX/root/manager"
cp "$BIN_DIR/kruise-daemon-$TAG" "$CTX/root/kruise-daemon"
chown -R 65534:65534 "$CTX/root/log"
tar --numeric-owner -C "$CTX/root" -cf "$CTX/rootfs.tar" .
cp "$HERE/kruise-manager.Dockerfile" "$CTX/Dockerfile"
run docker-build docker build --force-rm --label "$LABEL_KEY=$KEY" --label "gitops-conformance.openkruise-tag=$TAG" -t "$IMAGE" "$CTX"
progress "image kruise-manager" "built $IMAGE"
echo "build.sh $TAG: done in $((SECONDS - T0))s" >&2
echo "IMAGES:"
echo "$IMAGE"
