#!/usr/bin/env bash
# Offline build of Kargo's image for one release, with no container registry:
# the source is a Kargo git tree at the tag (the module proxy does not serve
# Kargo whole: its zip lacks the nested modules api/ and
# pkg/x/client/generated/), its dependencies come from the Go module proxy,
# the base from Debian's mirror. Nothing of Kargo's is kept in this repository.
#
#   usage: build.sh TAG SOURCE_DIR   e.g. build.sh v1.11.2 /path/to/kargo-v1.11.2
#   env:   CACHE_DIR                 default ${XDG_CACHE_HOME:-$HOME/.cache}/gitops-conformance
#          DEBIAN_SUITE              default bookworm
#          DEBIAN_MIRROR             default http://deb.debian.org/debian
#          GIT_COMMIT                the tree's commit (40 hex) when SOURCE_DIR is no
#                                    checkout (an archive's: git get-tar-commit-id)
#
# What upstream's Dockerfile ships and this recipe rebuilds:
#   - /usr/local/bin/kargo: ./cmd/controlplane (api, controller,
#     management-controller, webhooks servers, garbage-collector), with the
#     ldflags of the tag's Dockerfile and Makefile: -w and, into
#     pkg/x/version, version=TAG, buildDate (now, UTC), gitCommit (a
#     checkout's HEAD, else GIT_COMMIT) and gitTreeState (clean, or dirty when
#     `git status --porcelain` of a checkout lists anything; an archive is the
#     commit's tree: clean). Kargo's version.go reports "devel+unknown"
#     without a commit, so without one the build goes on and says so. The UI is not built (no node image offline): the
#     tree's empty pkg/server/ui (internal/server/ui before v1.7) embeds and the
#     API serves an empty page. `go mod download` is skipped (go.mod's tool
#     block names a dev tool the proxy cannot serve); `go build` fetches what
#     the package needs. GOSUMDB=off; the resolved go.sum is kept by the binary.
#   - /usr/local/bin/grpc_health_probe when the tag's chart probes with it
#     (up to v1.6: the API Deployment's exec probes), from the module proxy at
#     the version the tag's Dockerfile downloads.
#   - a Debian base with what upstream's base image has: tini (the chart runs
#     /sbin/tini -- /usr/local/bin/kargo <subcommand>), git, gpg, gpg-agent,
#     openssh-client, ca-certificates; user kargo (1000), USER 1000:0.
# The image is named as the chart names it: ghcr.io/akuity/kargo:TAG.
# Progress goes to stderr; stdout carries only "IMAGES:" and the image name.
# The image is labelled gitops-conformance.cache-key=<sha256 over the tag, a
# digest of the source tree, the recipe files, the Go version and the Debian
# inputs>; an image with that name and key is reused.
set -euo pipefail

usage() { echo "usage: $0 TAG SOURCE_DIR   (a Kargo release tag and a Kargo tree at that tag)" >&2; exit 2; }
[ $# -eq 2 ] || usage
TAG=$1 SRC=$2
[[ $TAG =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || usage
[ -f "$SRC/go.mod" ] && [ -d "$SRC/cmd/controlplane" ] && [ -f "$SRC/api/go.mod" ] ||
  { echo "build.sh: $SRC is not a Kargo tree (no go.mod, cmd/controlplane or api/go.mod)" >&2; exit 1; }
grep -q '^module github.com/akuity/kargo$' "$SRC/go.mod" || { echo "build.sh: $SRC/go.mod is not github.com/akuity/kargo" >&2; exit 1; }
IMAGE=ghcr.io/akuity/kargo:$TAG

BUILD_NAME=kargo-$TAG
# shellcheck source=images/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
DEBIAN_SUITE=${DEBIAN_SUITE:-bookworm}
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
PACKAGES=ca-certificates,git,gnupg,gpg-agent,openssh-client,tini

# the tree's digest: every file's path and content (not where it lies, not
# .git, not the suite's marks of an extracted archive)
TREE=$(cd "$SRC" && find . \( -path ./.git -o -path ./.extracted -o -path ./.git-commit \) -prune -o -type f -print0 |
  LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
# the commit and tree state, as upstream's Makefile passes them to its Dockerfile
if [ -e "$SRC/.git" ]; then
  GIT_COMMIT=$(git -C "$SRC" rev-parse HEAD)
  GIT_TREE_STATE=$([ -z "$(git -C "$SRC" status --porcelain)" ] && echo clean || echo dirty)
else
  GIT_COMMIT=${GIT_COMMIT:-}
  GIT_TREE_STATE=clean
fi
[ -z "$GIT_COMMIT" ] || [[ $GIT_COMMIT =~ ^[0-9a-f]{40}$ ]] || { echo "build.sh: GIT_COMMIT=$GIT_COMMIT is not a commit id (40 hex)" >&2; exit 2; }
progress "source $TAG" "$SRC (tree sha256 ${TREE:0:16}, commit ${GIT_COMMIT:-unknown}, $GIT_TREE_STATE)"
[ -n "$GIT_COMMIT" ] || echo "build.sh: no commit for $SRC (not a checkout, GIT_COMMIT unset): kargo will report version devel+unknown" >&2

# grpc_health_probe: only where the tag's chart probes with it
PROBE_VERSION=""
if grep -rqs grpc_health_probe "$SRC/charts/kargo/templates"; then
  PROBE_VERSION=$(sed -nE 's/.*GRPC_HEALTH_PROBE_VERSION=(v[0-9.]+).*/\1/p' "$SRC/Dockerfile" | head -n1)
  [ -n "$PROBE_VERSION" ] || { echo "build.sh: the chart uses grpc_health_probe but $SRC/Dockerfile pins no GRPC_HEALTH_PROBE_VERSION" >&2; exit 1; }
fi

KEY=$(printf '%s\n' kargo "$TAG" "$TREE" "$GIT_COMMIT" "$GIT_TREE_STATE" "$IMAGE" "$RECIPE" "$GOVERSION" "$DEBIAN_SUITE" "$PACKAGES" "$PROBE_VERSION" |
  sha256sum | cut -d' ' -f1)
if [ "$(image_key "$IMAGE")" = "$KEY" ]; then
  progress "image kargo" "cached $IMAGE"
  echo "IMAGES:"; echo "$IMAGE"; exit 0
fi

# ---------------------------------------------------------------- kargo binary
VERSION_PACKAGE=github.com/akuity/kargo/pkg/x/version
LDFLAGS="-w -X $VERSION_PACKAGE.version=$TAG -X $VERSION_PACKAGE.gitCommit=$GIT_COMMIT -X $VERSION_PACKAGE.gitTreeState=$GIT_TREE_STATE"
# the stamp leaves the build date out: a cached binary keeps the date it was built on
STAMP=$(printf '%s\n' "$TAG" "$TREE" "$LDFLAGS" "$GOVERSION" "$GOFLAGS" | sha256sum | cut -d' ' -f1)
# one directory per stamp: two recipes sharing the cache (two checkouts, two
# branches) each keep their binary instead of rebuilding over each other's
BIN_DIR=$CACHE_DIR/bin/kargo-$TAG-${STAMP:0:12}
mkdir -p "$BIN_DIR"
if [ -x "$BIN_DIR/kargo" ] && [ "$(cat "$BIN_DIR/kargo.stamp" 2>/dev/null)" = "$STAMP" ]; then
  progress "binary kargo" "cached $BIN_DIR/kargo"
else
  rm -f "$BIN_DIR/kargo.stamp"
  W=$(mktemp -d "$WORK_DIR/kargo-$TAG.XXXXXX"); TMPS+=("$W")
  cp -R "$SRC/." "$W/"; chmod -R u+w "$W"
  # the UI's embed (all:ui) needs one file; the tree keeps a .keep there
  for ui in "$W/pkg/server/ui" "$W/internal/server/ui"; do
    [ -d "$(dirname "$ui")" ] || continue
    [ -n "$(ls -A "$ui" 2>/dev/null)" ] || { mkdir -p "$ui"; : >"$ui/.keep"; }
  done
  progress "go build" "./cmd/controlplane (cold: ~12 min on 2 busy cores)"
  run go-build go -C "$W" build -trimpath -ldflags "$LDFLAGS -X $VERSION_PACKAGE.buildDate=$(date -u +'%Y-%m-%dT%H:%M:%SZ')" \
    -o "$BIN_DIR/kargo.tmp" ./cmd/controlplane
  mv -f "$BIN_DIR/kargo.tmp" "$BIN_DIR/kargo"
  cp "$W/go.sum" "$BIN_DIR/go.sum"
  echo "$STAMP" >"$BIN_DIR/kargo.stamp"
  progress "binary kargo" "built $BIN_DIR/kargo"
fi
# what the binary says it is (upstream's Dockerfile runs `kargo version` after the build too;
# its JSON says "Version" up to v1.6, "version" later)
KARGO_VERSION=$("$BIN_DIR/kargo" version 2>/dev/null | jq -r '.Version // .version // empty') || KARGO_VERSION=""
progress "kargo version" "${KARGO_VERSION:-unreadable}"

if [ -n "$PROBE_VERSION" ]; then
  PROBE=$CACHE_DIR/bin/grpc_health_probe-$PROBE_VERSION
  if [ ! -x "$PROBE" ]; then
    J=$(cd "$WORK_DIR" && go mod download -json "github.com/grpc-ecosystem/grpc-health-probe@$PROBE_VERSION") ||
      { echo "build.sh: go mod download grpc-health-probe@$PROBE_VERSION failed" >&2; exit 1; }
    P=$(mktemp -d "$WORK_DIR/grpc-health-probe.XXXXXX"); TMPS+=("$P")
    cp -R "$(jq -r .Dir <<<"$J")/." "$P/"; chmod -R u+w "$P"
    run go-build-probe go -C "$P" build -trimpath -ldflags "-s -w" -o "$PROBE.tmp" .
    mv -f "$PROBE.tmp" "$PROBE"
    progress "grpc_health_probe" "built $PROBE"
  fi
fi

# ---------------------------------------------------------------- base and image
BASE=gitops-conformance/kargo-base:$(printf '%s\n' "$DEBIAN_SUITE" minbase "$PACKAGES" | sha256sum | cut -c1-12)
if ! docker image inspect "$BASE" >/dev/null 2>&1; then
  R=$(mktemp -d "$WORK_DIR/rootfs-kargo.XXXXXX"); TMPS+=("$R")
  run debootstrap debootstrap --variant=minbase --include="$PACKAGES" "$DEBIAN_SUITE" "$R/fs" "$DEBIAN_MIRROR"
  rm -rf "$R"/fs/var/cache/apt/archives/*.deb "$R"/fs/var/lib/apt/lists/* "$R"/fs/var/log/*.log
  run import-base bash -o pipefail -c 'tar --numeric-owner -C "$1" -cf - . | docker import - "$2"' _ "$R/fs" "$BASE"
  progress "rootfs kargo" "built $BASE"
fi
C=$(mktemp -d "$WORK_DIR/ctx-kargo.XXXXXX"); TMPS+=("$C")
mkdir -p "$C/bin"
cp "$BIN_DIR/kargo" "$C/bin/kargo"
[ -z "$PROBE_VERSION" ] || cp "$PROBE" "$C/bin/grpc_health_probe"
cp "$HERE/kargo.Dockerfile" "$C/Dockerfile"
OLD=$(docker image inspect -f '{{.Id}}' "$IMAGE" 2>/dev/null || true)
run docker-build docker build --force-rm --build-arg BASE_IMAGE="$BASE" --label "$LABEL_KEY=$KEY" \
  --label gitops-conformance.kargo-tag="$TAG" --label gitops-conformance.kargo-tree="$TREE" \
  --label gitops-conformance.kargo-commit="${GIT_COMMIT:-unknown}" --label gitops-conformance.kargo-version="$KARGO_VERSION" -t "$IMAGE" "$C"
if [ -n "$OLD" ] && [ "$OLD" != "$(docker image inspect -f '{{.Id}}' "$IMAGE")" ]; then
  docker rmi "$OLD" >/dev/null 2>&1 || true # superseded by this build; kept if still in use
fi
progress "image kargo" "built $IMAGE"
echo "build.sh $TAG: done in $((SECONDS - T0))s" >&2
echo "IMAGES:"
echo "$IMAGE"
