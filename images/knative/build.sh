#!/usr/bin/env bash
# build.sh VERSION: Knative Serving's core images, offline, from the Go module
# knative.dev/serving at VERSION (a module tag: v0.43.0 is Knative 1.16.0).
#
# The commands of the core (config/core/deployments): webhook, controller,
# activator, autoscaler. They are built in a build module of our own,
# modules/VERSION/{go.mod,go.sum} (committed: it pins the build), which requires
# knative.dev/serving VERSION with upstream's own require and replace blocks;
# `./gen-module.sh VERSION` writes it. Images are named as the release names
# them (gcr.io/knative-releases/knative.dev/serving/cmd/NAME), tagged VERSION
# since a digest cannot be reproduced. Progress goes to stderr; stdout carries
# only "IMAGES:" and the image names. Each image carries the label
# gitops-conformance.cache-key=<sha256 over VERSION, this recipe and the build
# module>; an image with that key is reused.
set -euo pipefail

usage() { echo "usage: $0 VERSION   (a knative.dev/serving module tag, e.g. v0.43.0)" >&2; exit 2; }
[ $# -eq 1 ] || usage
VERSION=$1
[[ $VERSION =~ ^v0\.[0-9]+\.[0-9]+$ ]] || usage

BUILD_NAME=knative-$VERSION
# shellcheck source=images/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
MODDIR=$HERE/modules/$VERSION
exec 9>"$WORK_DIR/knative-$VERSION.lock" # one build of a version at a time
flock 9
if [ ! -f "$MODDIR/go.mod" ]; then
  echo "build.sh: no build module modules/$VERSION; generating it (commit it afterwards)" >&2
  "$HERE/gen-module.sh" "$VERSION" >&2
fi
CMDS=(webhook controller activator autoscaler)
REGISTRY=gcr.io/knative-releases/knative.dev/serving/cmd
WORK=$(mktemp -d "$WORK_DIR/knative-$VERSION.XXXXXX"); TMPS+=("$WORK")

KEY=$(cat "$HERE/build.sh" "$HERE/serving.Dockerfile" "$LIB" "$MODDIR/go.mod" "$MODDIR/go.sum" <(echo "$VERSION $GOVERSION") | sha256sum | cut -d' ' -f1)

TODO=()
for c in "${CMDS[@]}"; do
  if [ "$(image_key "$REGISTRY/$c:$VERSION")" = "$KEY" ]; then
    progress "image $c" "cached $REGISTRY/$c:$VERSION"
  else
    TODO+=("$c")
  fi
done

if [ ${#TODO[@]} -gt 0 ]; then
  cp "$MODDIR/go.mod" "$MODDIR/go.sum" "$WORK/"
  pkgs=(); for c in "${TODO[@]}"; do pkgs+=("knative.dev/serving/cmd/$c"); done
  mkdir -p "$WORK/out"
  run go-build go -C "$WORK" build -trimpath -ldflags "-s -w" -o "$WORK/out/" "${pkgs[@]}"
  if ! cmp -s "$WORK/go.sum" "$MODDIR/go.sum"; then
    echo "build.sh: warning: the build added lines to go.sum; commit modules/$VERSION/go.sum (run gen-module.sh $VERSION)" >&2
  fi
  progress "go build" "${TODO[*]}"
  for c in "${TODO[@]}"; do
    ctx=$WORK/ctx-$c; mkdir -p "$ctx/kodata"
    cp "$WORK/out/$c" "$ctx/app"
    echo "$VERSION" >"$ctx/kodata/HEAD" # what ko puts there: the commit; the module tag here
    cp "$HERE/serving.Dockerfile" "$ctx/Dockerfile"
    old=$(docker image inspect -f '{{.Id}}' "$REGISTRY/$c:$VERSION" 2>/dev/null || true)
    run "docker-build-$c" docker build --force-rm --label "$LABEL_KEY=$KEY" \
      --label gitops-conformance.knative-serving="$VERSION" -t "$REGISTRY/$c:$VERSION" "$ctx"
    [ -z "$old" ] || [ "$old" = "$(docker image inspect -f '{{.Id}}' "$REGISTRY/$c:$VERSION")" ] || docker rmi "$old" >/dev/null 2>&1 || true
    progress "image $c" "built $REGISTRY/$c:$VERSION"
  done
fi

echo "build.sh $VERSION: done in $((SECONDS - T0))s" >&2
echo "IMAGES:"
for c in "${CMDS[@]}"; do echo "$REGISTRY/$c:$VERSION"; done
