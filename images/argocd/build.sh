#!/usr/bin/env bash
# Offline build of the Argo CD images for one released tag, with no container
# registry: everything comes from the Go module proxy and Debian's mirror.
#
#   usage: build.sh TAG            e.g. build.sh v2.14.11   (v2.x and v3.x tags)
#   env:   CACHE_DIR               default ${XDG_CACHE_HOME:-$HOME/.cache}/gitops-conformance
#          DEBIAN_SUITE            default bookworm
#          DEBIAN_MIRROR           default http://deb.debian.org/debian
#          ARGOCD_GIT_COMMIT       optional commit of TAG; the module proxy does not
#                                  tell it, so by default the version reads vX.Y.Z+unknown
#
# What it does (see README.md): builds the argocd binary from the tag's module
# zip as the main module (its go.mod, go.sum and replaces apply), helm and
# kustomize at the versions hack/tool-versions.sh pins, a debootstrap rootfs
# imported as a local docker image, then `docker build` (legacy builder) of
#   - the argocd image, under the exact name manifests/install.yaml uses
#     (quay.io/argoproj/argocd:TAG), and
#   - a redis image from Debian's redis-server, under the exact redis name
#     install.yaml uses (redis:7.0.15-alpine, public.ecr.aws/docker/library/redis:...).
# Progress goes to stderr, one line per step; stdout carries only the marker
# line "IMAGES:" followed by the image names, one per line (for `kind load`).
# Each image is labelled gitops-conformance.cache-key=<sha256 over the tag and
# the recipe files>; an image with that name and key already present is reused.
set -euo pipefail

usage() { echo "usage: $0 TAG   (a released argo-cd tag, e.g. v2.14.11)" >&2; exit 2; }
[ $# -eq 1 ] || usage
TAG=$1
[[ $TAG =~ ^v([0-9]+)\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] || usage
MAJOR=${BASH_REMATCH[1]}
[ "$MAJOR" -ge 2 ] || { echo "build.sh: only module tags (v2.x and later) are supported, got $TAG" >&2; exit 2; }
MOD=github.com/argoproj/argo-cd/v$MAJOR

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE_DIR=${CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gitops-conformance}
DEBIAN_SUITE=${DEBIAN_SUITE:-bookworm}
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
ARGOCD_PACKAGES=git,gnupg,openssh-client,tini,ca-certificates
REDIS_PACKAGES=redis-server
ROOTFS_REV=1 # bump when the rootfs recipe below changes
LABEL_KEY=gitops-conformance.cache-key

export GOFLAGS="-mod=mod -buildvcs=false" GOSUMDB=off GOTOOLCHAIN=local GOWORK=off CGO_ENABLED=0
export DOCKER_BUILDKIT=0

BIN_DIR=$CACHE_DIR/bin
WORK_DIR=$CACHE_DIR/work
LOG_DIR=$CACHE_DIR/logs/argocd-$TAG
mkdir -p "$BIN_DIR" "$WORK_DIR" "$LOG_DIR"
CACHE_DIR=$(cd "$CACHE_DIR" && pwd) BIN_DIR=$(cd "$BIN_DIR" && pwd) WORK_DIR=$(cd "$WORK_DIR" && pwd) LOG_DIR=$(cd "$LOG_DIR" && pwd)

# ---------------------------------------------------------------- helpers
T0=$SECONDS
STEP_T=$SECONDS
begin() { STEP_T=$SECONDS; }
# progress: one line per step, total and step elapsed seconds
progress() { printf '[%4ss] %-28s %s (%ss)\n' "$((SECONDS - T0))" "$1" "$2" "$((SECONDS - STEP_T))" >&2; }

TMPS=()
safe_rm() { # remove a temp dir, first unmounting what debootstrap may have left below it
  local d=$1 m
  [ -n "$d" ] && [ -e "$d" ] || return 0
  while read -r m; do umount -l "$m" 2>/dev/null || true; done < <(
    awk -v p="$d/" 'index($2, p) == 1 { print $2 }' /proc/mounts | sort -r)
  rm -rf --one-file-system "$d"
}
cleanup() {
  local rc=$? d
  for d in "${TMPS[@]+"${TMPS[@]}"}"; do safe_rm "$d"; done
  [ "$rc" -eq 0 ] || echo "build.sh $TAG: FAILED (exit $rc) after $((SECONDS - T0))s; logs in $LOG_DIR" >&2
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# mktmp NAME: a temp dir under $CACHE_DIR/work, in $TMP_D, removed on exit
# (not used as $(mktmp): TMPS must be set in this shell, not a subshell)
mktmp() { TMP_D=$(mktemp -d "$WORK_DIR/$1.XXXXXX"); TMPS+=("$TMP_D"); }

# run LOGNAME CMD...: an external command, output to a log, its tail on failure
run() {
  local log=$LOG_DIR/$1.log; shift
  if ! "$@" >"$log" 2>&1; then
    echo "build.sh: command failed: $*" >&2
    echo "---- last lines of $log" >&2
    tail -n 40 "$log" >&2
    return 1
  fi
}

# mod_dir MOD@VER: download one exact module version (never list versions:
# the proxy here is partial) and print its extracted directory.
mod_dir() {
  local j dir
  if ! j=$(cd "$WORK_DIR" && go mod download -json "$1" 2>>"$LOG_DIR/go-mod-download.log"); then
    echo "build.sh: go mod download $1 failed: $(jq -r '.Error // empty' <<<"$j" 2>/dev/null || echo "$j")" >&2
    return 1
  fi
  dir=$(jq -r .Dir <<<"$j")
  [ -d "$dir" ] || { echo "build.sh: no module directory for $1" >&2; return 1; }
  echo "$dir"
}
mod_info_time() { # commit time of MOD@VER from the proxy's .info (reproducible build date)
  local j
  j=$(cd "$WORK_DIR" && go mod download -json "$1")
  jq -r '.Time // "1970-01-01T00:00:00Z"' "$(jq -r .Info <<<"$j")" | sed -E 's/\.[0-9]+Z$/Z/'
}
gomod_version() { # gomod_version GO.MOD PATH: version in effect (replace wins over require)
  go mod edit -json "$1" | jq -r --arg p "$2" '
    ([.Replace[]? | select(.Old.Path == $p) | .New.Version // empty] | first)
    // ([.Require[]? | select(.Path == $p) | .Version] | first) // empty'
}
drop_superseded() { # drop_superseded OLD_ID NAME: remove the image NAME pointed to before a rebuild
  [ -n "$1" ] && [ "$1" != "$(docker image inspect -f '{{.Id}}' "$2")" ] || return 0
  docker rmi "$1" >/dev/null 2>&1 || true # still used by a container or another tag: keep it
}
image_key() { docker image inspect -f "{{ index .Config.Labels \"$LABEL_KEY\" }}" "$1" 2>/dev/null || true; }

GOVERSION=$(go env GOVERSION)
recipe_digest() { # names and contents of every recipe file in this directory
  local f
  for f in $(cd "$HERE" && ls -1 ./*.sh ./*.Dockerfile | LC_ALL=C sort); do
    printf '== %s\n' "$f"; cat "$HERE/$f"
  done | sha256sum | cut -d' ' -f1
}
RECIPE=$(recipe_digest)

# build_go_bin NAME VERSION MODULE PKG LDFLAGS [PREP_FN]
# Builds PKG of MODULE@VERSION as the main module in a writable copy under
# $CACHE_DIR/work, caching the binary as $CACHE_DIR/bin/NAME-VERSION (a stamp
# over module sum, package, ldflags and Go version decides reuse). Sets BUILT.
build_go_bin() {
  local name=$1 ver=$2 mod=$3 pkg=$4 ldflags=$5 prep=${6:-} out dir stamp work added
  out=$BIN_DIR/$name-$ver
  begin
  dir=$(mod_dir "$mod@$ver")
  stamp=$(printf '%s\n' "$mod@$ver" "$(cat "$dir/go.sum" 2>/dev/null | sha256sum)" "$pkg" "$ldflags" "$GOVERSION" "$GOFLAGS" | sha256sum | cut -d' ' -f1)
  if [ -x "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$stamp" ]; then
    BUILT=$out; progress "$name $ver" "cached $out"; return 0
  fi
  mktmp "$name-$ver"; work=$TMP_D
  cp -R "$dir/." "$work/"
  chmod -R u+w "$work"
  PREP_NOTE=""
  [ -z "$prep" ] || "$prep" "$work"
  TMPS+=("$out.tmp")
  run "go-build-$name" go -C "$work" build -trimpath -ldflags "$ldflags" -o "$out.tmp" "$pkg"
  mv -f "$out.tmp" "$out"
  echo "$stamp" >"$out.stamp"
  # keep the go.sum the build resolved: it pins the build (upstream's may lack lines)
  cp "$work/go.sum" "$out.go.sum"
  added=$(comm -13 <(LC_ALL=C sort -u "$dir/go.sum") <(LC_ALL=C sort -u "$work/go.sum") | wc -l)
  safe_rm "$work"
  BUILT=$out
  progress "$name $ver" "built $out (go.sum +$added lines${PREP_NOTE:+; $PREP_NOTE})"
}

# ensure_rootfs NAME PACKAGES: a debootstrap minbase rootfs, cached as the
# local image gitops-conformance/NAME-base:<hash of suite and package list>.
ensure_rootfs() {
  local name=$1 pkgs=$2 hash ref root
  begin
  hash=$(printf '%s\n' "rev=$ROOTFS_REV" "$DEBIAN_SUITE" minbase "$pkgs" | sha256sum | cut -c1-12)
  ref=gitops-conformance/$name-base:$hash
  if docker image inspect "$ref" >/dev/null 2>&1; then
    ROOTFS=$ref; progress "rootfs $name" "cached $ref"; return 0
  fi
  mktmp "rootfs-$name"; root=$TMP_D
  run "debootstrap-$name" debootstrap --variant=minbase --include="$pkgs" \
    "$DEBIAN_SUITE" "$root/fs" "$DEBIAN_MIRROR"
  rm -rf "$root"/fs/var/cache/apt/archives/*.deb "$root"/fs/var/lib/apt/lists/* \
    "$root"/fs/var/cache/apt/*.bin "$root"/fs/var/log/*.log "$root"/fs/var/log/apt/*
  run "import-$name" bash -o pipefail -c 'tar --numeric-owner -C "$1" -cf - . | docker import - "$2"' \
    _ "$root/fs" "$ref"
  safe_rm "$root"
  ROOTFS=$ref
  progress "rootfs $name" "built $ref ($(docker image inspect -f '{{.Size}}' "$ref" | awk '{printf "%d MB", $1/1e6}'))"
}

# ---------------------------------------------------------------- module
begin
ARGO_DIR=$(mod_dir "$MOD@$TAG")
INSTALL_YAML=$ARGO_DIR/manifests/install.yaml
[ -f "$INSTALL_YAML" ] || { echo "build.sh: $MOD@$TAG has no manifests/install.yaml" >&2; exit 1; }
images_named() { # images_named REGEX: distinct image references in install.yaml matching
  sed -nE 's/^[[:space:]-]*image:[[:space:]]*["'\'']?([^"'\''[:space:]]+).*/\1/p' "$INSTALL_YAML" |
    { grep -E "$1" || true; } | LC_ALL=C sort -u
}
ARGOCD_IMAGE=$(images_named '(^|/)argocd:')
REDIS_IMAGE=$(images_named '(^|/)redis:')
[ "$(wc -w <<<"$ARGOCD_IMAGE")" -eq 1 ] || { echo "build.sh: expected one argocd image in install.yaml, got: $ARGOCD_IMAGE" >&2; exit 1; }
[ "$(wc -w <<<"$REDIS_IMAGE")" -eq 1 ] || { echo "build.sh: expected one redis image in install.yaml, got: $REDIS_IMAGE" >&2; exit 1; }
if grep -q -- '--update=none' "$INSTALL_YAML"; then
  echo "build.sh: warning: install.yaml uses 'cp --update=none' (coreutils >= 9.3); $DEBIAN_SUITE's cp may lack it (try DEBIAN_SUITE=trixie)" >&2
fi
progress "module $MOD@$TAG" "$ARGOCD_IMAGE, $REDIS_IMAGE"

ARGOCD_KEY=$(printf '%s\n' argocd "$TAG" "${ARGOCD_GIT_COMMIT:-}" "$ARGOCD_IMAGE" "$RECIPE" "$GOVERSION" "$DEBIAN_SUITE" "$ARGOCD_PACKAGES" | sha256sum | cut -d' ' -f1)
REDIS_KEY=$(printf '%s\n' redis "$REDIS_IMAGE" "$RECIPE" "$DEBIAN_SUITE" "$REDIS_PACKAGES" | sha256sum | cut -d' ' -f1)

# ---------------------------------------------------------------- argocd image
begin
if [ "$(image_key "$ARGOCD_IMAGE")" = "$ARGOCD_KEY" ]; then
  progress "image argocd" "cached $ARGOCD_IMAGE"
else
  # argocd: ldflags as the tag's Makefile sets them (PACKAGE=.../common)
  PKG=$(sed -nE 's/^PACKAGE[[:space:]]*[:?]?=[[:space:]]*(.*)$/\1/p' "$ARGO_DIR/Makefile" | head -n1)
  PKG=${PKG:-$MOD/common}
  VERSION=$(tr -d ' \n' <"$ARGO_DIR/VERSION" 2>/dev/null || true)
  if [ "v$VERSION" != "$TAG" ]; then
    echo "build.sh: warning: VERSION file says '$VERSION', using ${TAG#v}" >&2
    VERSION=${TAG#v}
  fi
  KUBECTL_VERSION=$(gomod_version "$ARGO_DIR/go.mod" k8s.io/client-go)
  BUILD_DATE=$(mod_info_time "$MOD@$TAG")
  # No git here: gitCommit is unknown unless given, so the version string is
  # v$VERSION+<commit7> (as upstream release builds print) or v$VERSION+unknown.
  ARGO_LDFLAGS="-s -w -X $PKG.version=$VERSION -X $PKG.buildDate=$BUILD_DATE"
  ARGO_LDFLAGS+=" -X $PKG.gitCommit=${ARGOCD_GIT_COMMIT:-} -X $PKG.gitTreeState=clean"
  ARGO_LDFLAGS+=" -X $PKG.kubectlVersion=$KUBECTL_VERSION"
  ARGO_LDFLAGS+=" -X '$PKG.extraBuildInfo=gitops-conformance offline build from the module zip'"
  prep_argocd() { # ui/embed.go embeds ui/dist/app, which needs one non-hidden file
    local app=$1/ui/dist/app
    if [ -f "$1/ui/embed.go" ] && [ -z "$(find "$app" -maxdepth 1 -type f ! -name '.*' ! -name '_*' 2>/dev/null | head -n1)" ]; then
      mkdir -p "$app"; : >"$app/gitkeep"; PREP_NOTE="placeholder ui/dist/app/gitkeep added"
    fi
  }
  build_go_bin argocd "$TAG" "$MOD" ./cmd "$ARGO_LDFLAGS" prep_argocd
  ARGOCD_BIN=$BUILT

  # helm and kustomize at the versions the tag pins
  TOOLS=$ARGO_DIR/hack/tool-versions.sh
  HELM_VERSION=v$(sed -nE 's/^helm3_version=([^[:space:]]+).*/\1/p' "$TOOLS")
  KUSTOMIZE_VERSION=v$(sed -nE 's/^kustomize5_version=([^[:space:]]+).*/\1/p' "$TOOLS")
  [ "$HELM_VERSION" != v ] && [ "$KUSTOMIZE_VERSION" != v ] ||
    { echo "build.sh: cannot read helm3_version/kustomize5_version from $TOOLS" >&2; exit 1; }

  HELM_DIR=$(mod_dir "helm.sh/helm/v3@$HELM_VERSION")
  HELM_K8S=$(gomod_version "$HELM_DIR/go.mod" k8s.io/client-go) # v0.31.x -> Kubernetes 1.31
  HELM_K8S_MAJOR=$(( $(cut -d. -f1 <<<"${HELM_K8S#v}") + 1 ))
  HELM_K8S_MINOR=$(cut -d. -f2 <<<"$HELM_K8S")
  HV=helm.sh/helm/v3
  HELM_LDFLAGS="-s -w -X $HV/internal/version.version=$HELM_VERSION -X $HV/internal/version.gitTreeState=clean"
  HELM_LDFLAGS+=" -X $HV/pkg/lint/rules.k8sVersionMajor=$HELM_K8S_MAJOR -X $HV/pkg/lint/rules.k8sVersionMinor=$HELM_K8S_MINOR"
  HELM_LDFLAGS+=" -X $HV/pkg/chartutil.k8sVersionMajor=$HELM_K8S_MAJOR -X $HV/pkg/chartutil.k8sVersionMinor=$HELM_K8S_MINOR"
  build_go_bin helm "$HELM_VERSION" helm.sh/helm/v3 ./cmd/helm "$HELM_LDFLAGS"
  HELM_BIN=$BUILT

  KP=sigs.k8s.io/kustomize/api/provenance
  KUSTOMIZE_LDFLAGS="-s -w -X $KP.version=$KUSTOMIZE_VERSION -X $KP.buildDate=$(mod_info_time "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION")"
  build_go_bin kustomize "$KUSTOMIZE_VERSION" sigs.k8s.io/kustomize/kustomize/v5 . "$KUSTOMIZE_LDFLAGS"
  KUSTOMIZE_BIN=$BUILT

  ensure_rootfs argocd "$ARGOCD_PACKAGES"
  ARGOCD_BASE=$ROOTFS

  # component names: the tag's Dockerfile symlinks, the argocd-* commands and
  # /usr/local/bin/argocd-* paths of install.yaml, and the names 2.x/3.x share
  LINKS=$( {
    grep -oE 'ln -s /usr/local/bin/argocd /usr/local/bin/argocd-[a-z0-9-]+' "$ARGO_DIR/Dockerfile" | sed 's|.*/||'
    grep -oE '/usr/local/bin/argocd-[a-z0-9-]+' "$INSTALL_YAML" | sed 's|.*/||'
    awk 'prev ~ /(command|args):[[:space:]]*$/ && $0 ~ /^[[:space:]]*-[[:space:]]+argocd-[a-z0-9-]+[[:space:]]*$/ { print $2 }
         { prev = $0 }' "$INSTALL_YAML"
    printf '%s\n' argocd-server argocd-repo-server argocd-application-controller argocd-cmp-server \
      argocd-applicationset-controller argocd-notifications argocd-dex argocd-k8s-auth
  } | LC_ALL=C sort -u | tr '\n' ' ')
  LINKS=${LINKS% }

  begin
  mktmp ctx-argocd; CTX=$TMP_D
  cp "$ARGOCD_BIN" "$CTX/argocd"
  cp "$HELM_BIN" "$CTX/helm"
  cp "$KUSTOMIZE_BIN" "$CTX/kustomize"
  cp "$ARGO_DIR/hack/gpg-wrapper.sh" "$ARGO_DIR/hack/git-verify-wrapper.sh" "$ARGO_DIR/entrypoint.sh" "$CTX/"
  chmod 0755 "$CTX"/*
  cp "$HERE/argocd.Dockerfile" "$CTX/Dockerfile"
  OLD_ID=$(docker image inspect -f '{{.Id}}' "$ARGOCD_IMAGE" 2>/dev/null || true)
  run docker-build-argocd docker build --force-rm \
    --build-arg BASE_IMAGE="$ARGOCD_BASE" --build-arg ARGOCD_LINKS="$LINKS" \
    --label "$LABEL_KEY=$ARGOCD_KEY" --label gitops-conformance.argocd-tag="$TAG" \
    -t "$ARGOCD_IMAGE" "$CTX"
  safe_rm "$CTX"
  drop_superseded "$OLD_ID" "$ARGOCD_IMAGE"
  progress "image argocd" "built $ARGOCD_IMAGE (links: $LINKS)"
fi

# ---------------------------------------------------------------- redis image
begin
if [ "$(image_key "$REDIS_IMAGE")" = "$REDIS_KEY" ]; then
  progress "image redis" "cached $REDIS_IMAGE"
else
  ensure_rootfs redis "$REDIS_PACKAGES"
  begin
  mktmp ctx-redis; CTX=$TMP_D
  cp "$HERE/redis.Dockerfile" "$CTX/Dockerfile"
  OLD_ID=$(docker image inspect -f '{{.Id}}' "$REDIS_IMAGE" 2>/dev/null || true)
  run docker-build-redis docker build --force-rm --build-arg BASE_IMAGE="$ROOTFS" \
    --label "$LABEL_KEY=$REDIS_KEY" -t "$REDIS_IMAGE" "$CTX"
  safe_rm "$CTX"
  drop_superseded "$OLD_ID" "$REDIS_IMAGE"
  progress "image redis" "built $REDIS_IMAGE ($(docker run --rm --entrypoint redis-server "$REDIS_IMAGE" --version | grep -oE 'v=[0-9.]+'))"
fi

echo "build.sh $TAG: done in $((SECONDS - T0))s" >&2
echo "IMAGES:"
printf '%s\n' "$ARGOCD_IMAGE" "$REDIS_IMAGE"
