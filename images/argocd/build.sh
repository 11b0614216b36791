#!/usr/bin/env bash
# Offline build of the Argo CD images for one released tag, with no container
# registry: everything comes from the Go module proxy and Debian's mirror,
# and, for a tag whose module zip does not build, from a source tree of the
# tag that the caller names.
#
#   usage: build.sh TAG [SOURCE_DIR]   e.g. build.sh v2.14.11
#                                           build.sh v3.5.1 /path/to/argo-cd-v3.5.1
#   env:   CACHE_DIR               default ${XDG_CACHE_HOME:-$HOME/.cache}/gitops-conformance
#          DEBIAN_SUITE            default bookworm
#          DEBIAN_MIRROR           default http://deb.debian.org/debian
#          GIT_COMMIT              the commit of TAG (40 hex). The module proxy does not
#                                  tell it, nor does an archive made without git: without
#                                  it the version reads vX.Y.Z+unknown. A checkout's HEAD
#                                  is read from it. (ARGOCD_GIT_COMMIT: the older name.)
#
# Where the sources come from:
#   - without SOURCE_DIR: the tag's module zip (github.com/argoproj/argo-cd/vN@TAG),
#     built as the main module (its go.mod, go.sum and replaces apply). From
#     v3.3.0 go.mod replaces gitops-engine with the nested module ./gitops-engine,
#     which the zip leaves out. Where go.mod requires that nested module at the
#     tag itself (3.6 on: github.com/argoproj/argo-cd/gitops-engine/v3 v3.6.1,
#     "Tagged as gitops-engine/vX.Y.Z at release time"), its own module zip at
#     that version, from the same commit (the proxy's .info times agree), is
#     placed where the replace points: the two zips are the tree upstream
#     tagged. Where it requires another version (3.3.x-3.5.x pin an untagged
#     pseudo-version the replace makes meaningless), the tag is refused here
#     with what to give.
#   - with SOURCE_DIR: an argo-cd tree at the tag (a checkout, or an archive
#     extracted), gitops-engine/ included, built the same way from a copy;
#     its manifests/install.yaml names the images.
# What the image has, read from the tag's own files (see README.md): the
# argocd binary (ldflags as the tag's Makefile sets them), helm (helm3_version
# or helm4_version), kustomize and, where pinned, git-lfs at the versions of
# hack/tool-versions.sh, each from the module proxy; the Debian packages of
# the argocd-base stage of the tag's Dockerfile (plus what the recipe needs);
# that stage's ENV instructions; one symlink per component name. Then
# `docker build` (legacy builder) of
#   - the argocd image, under the exact name manifests/install.yaml uses
#     (quay.io/argoproj/argocd:TAG), and
#   - a redis image from Debian's redis-server, under the exact redis name
#     install.yaml uses (redis:7.0.15-alpine, public.ecr.aws/docker/library/redis:...).
# Go: the machine's (GOTOOLCHAIN=local), or, for a module whose go line asks
# for a newer one, the approved toolchain of that minor (gotoolchain.sh).
# Progress goes to stderr, one line per step; stdout carries "SOURCE:" lines
# (each module the build read, for a module build: "MODULE@VERSION h1:<zip
# hash>", a nested one "as ./DIR"; for a tree: "tree <sha256> commit <id>")
# then the marker line "IMAGES:" followed by the image names, one per line
# (for `kind load`).
# Each image is labelled gitops-conformance.cache-key=<sha256 over the tag,
# the source (module, or the tree's digest and commit) and the recipe files>;
# an image with that name and key already present is reused.
set -euo pipefail

usage() { echo "usage: $0 TAG [SOURCE_DIR]   (a released argo-cd tag, e.g. v2.14.11; an argo-cd tree at that tag)" >&2; exit 2; }
[ $# -eq 1 ] || [ $# -eq 2 ] || usage
TAG=$1 SRC=${2:-}
[[ $TAG =~ ^v([0-9]+)\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] || usage
MAJOR=${BASH_REMATCH[1]}
[ "$MAJOR" -ge 2 ] || { echo "build.sh: only module tags (v2.x and later) are supported, got $TAG" >&2; exit 2; }
MOD=github.com/argoproj/argo-cd/v$MAJOR
GIT_COMMIT=${GIT_COMMIT:-${ARGOCD_GIT_COMMIT:-}}
[ -z "$GIT_COMMIT" ] || [[ $GIT_COMMIT =~ ^[0-9a-f]{40}$ ]] || { echo "build.sh: GIT_COMMIT=$GIT_COMMIT is not a commit id (40 hex)" >&2; exit 2; }
if [ -n "$SRC" ]; then
  [ -f "$SRC/go.mod" ] && [ -f "$SRC/manifests/install.yaml" ] && [ -d "$SRC/cmd" ] ||
    { echo "build.sh: $SRC is not an argo-cd tree (no go.mod, cmd/ or manifests/install.yaml)" >&2; exit 1; }
  SRC=$(cd "$SRC" && pwd)
  grep -q "^module $MOD\$" "$SRC/go.mod" || { echo "build.sh: $SRC/go.mod is not $MOD (the module of $TAG)" >&2; exit 1; }
  TREE_VERSION=$(tr -d ' \n' <"$SRC/VERSION" 2>/dev/null || true)
  [ "v$TREE_VERSION" = "${TAG%%-*}" ] || [ "v$TREE_VERSION" = "$TAG" ] ||
    { echo "build.sh: $SRC is not argo-cd $TAG: its VERSION file says '$TREE_VERSION'" >&2; exit 1; }
fi

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=gotoolchain.sh
. "$HERE/gotoolchain.sh"
CACHE_DIR=${CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gitops-conformance}
DEBIAN_SUITE=${DEBIAN_SUITE:-bookworm}
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# what the recipe itself needs in the argocd image, whatever the tag's Dockerfile installs
RECIPE_PACKAGES=git,gnupg,openssh-client,tini,ca-certificates
REDIS_PACKAGES=redis-server
ROOTFS_REV=1 # bump when the rootfs recipe below changes
LABEL_KEY=gitops-conformance.cache-key

go_env local
export GOFLAGS="-mod=mod -buildvcs=false" GOWORK=off CGO_ENABLED=0
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

# mod_json MOD@VER: download one exact module version (never list versions:
# the proxy here is partial) and print go's JSON of it (Dir, Sum: the zip's
# h1 hash). A module whose go line asks for a newer Go than this one is
# downloaded again with the approved toolchain of that Go (gotoolchain.sh):
# the local go refuses to extract it.
mod_json() {
  local j need tc
  j=$(cd "$WORK_DIR" && go mod download -json "$1" 2>>"$LOG_DIR/go-mod-download.log") || true
  need=$(needs_go "$(jq -r '.Error // empty' <<<"$j" 2>/dev/null)")
  if [ -n "$need" ]; then
    tc=$(toolchain_for "$need") || return 1
    toolchain_env "$tc"
    j=$(cd "$WORK_DIR" && env "${TC_ENV[@]}" go mod download -json "$1" 2>>"$LOG_DIR/go-mod-download.log") || true
  fi
  if [ -z "$j" ] || [ -n "$(jq -r '.Error // empty' <<<"$j" 2>/dev/null)" ]; then
    echo "build.sh: go mod download $1 failed: $(jq -r '.Error // empty' <<<"$j" 2>/dev/null || echo "$j")" >&2
    return 1
  fi
  echo "$j"
}
# mod_dir MOD@VER: mod_json's extracted directory
mod_dir() {
  local j dir
  j=$(mod_json "$1") || return 1
  dir=$(jq -r .Dir <<<"$j")
  [ -d "$dir" ] || { echo "build.sh: no module directory for $1" >&2; return 1; }
  echo "$dir"
}
mod_sum() { mod_json "$1" | jq -r .Sum; } # the zip's h1 hash, as go.sum writes it
mod_info_time() { # commit time of MOD@VER from the proxy's .info (reproducible build date; no zip)
  local j
  j=$(cd "$WORK_DIR" && go list -m -json "$1")
  jq -r '.Time // "1970-01-01T00:00:00Z"' <<<"$j" | sed -E 's/\.[0-9]+Z$/Z/'
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
  (for f in $(cd "$HERE" && ls -1 ./*.sh ./*.Dockerfile | LC_ALL=C sort); do
    printf '== %s\n' "$f"; cat "$HERE/$f"
  done
  printf '== goenv.sh\n'; cat "$GOENV") | sha256sum | cut -d' ' -f1
}
RECIPE=$(recipe_digest)

# go_toolchain GO.MOD: the GOTOOLCHAIN a main module builds with: local, or,
# when its go line asks for a newer Go than this one, the approved toolchain
# of that Go (gotoolchain.sh: downloaded through the module proxy, for this
# build only); sets TOOLCHAIN, TC_ENV and TOOLCHAIN_NOTE.
go_toolchain() {
  local need
  need=$(go mod edit -json "$1" | jq -r '.Go // empty')
  TOOLCHAIN=local TOOLCHAIN_NOTE=""
  [ -z "$need" ] || TOOLCHAIN=$(toolchain_for "$need") || exit 1
  toolchain_env "$TOOLCHAIN"
  [ "$TOOLCHAIN" = local ] || TOOLCHAIN_NOTE="go $need (go.mod) > $(go env GOVERSION): GOTOOLCHAIN=$TOOLCHAIN"
}

# build_bin NAME OUT DIR ID PKG LDFLAGS [PREP_FN]
# Builds PKG of the Go main module in DIR (copied to a writable directory
# under $CACHE_DIR/work: its go.mod, go.sum and replaces apply, and nothing is
# written into DIR) into OUT. A stamp over ID (what DIR is), the package,
# ldflags and the Go version decides reuse. Sets BUILT.
build_bin() {
  local name=$1 out=$2 dir=$3 id=$4 pkg=$5 ldflags=$6 prep=${7:-} stamp work added gover
  go_toolchain "$dir/go.mod"
  gover=$(cd "$dir" && env "${TC_ENV[@]}" go env GOVERSION)
  stamp=$(printf '%s\n' "$id" "$pkg" "$ldflags" "$gover" "$GOFLAGS" | sha256sum | cut -d' ' -f1)
  if [ -x "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$stamp" ]; then
    BUILT=$out; progress "$name" "cached $out"; return 0
  fi
  mktmp "$name"; work=$TMP_D
  # a checkout's .git and the UI's node_modules are not needed to build
  tar -C "$dir" --exclude=./.git --exclude=./ui/node_modules -cf - . | tar -C "$work" -xf -
  chmod -R u+w "$work"
  PREP_NOTE=""
  [ -z "$prep" ] || "$prep" "$work"
  TMPS+=("$out.tmp")
  # (|| return: a caller may run it where set -e does not hold, as `if (build_go_bin ...)`)
  run "go-build-${name%% *}" env "${TC_ENV[@]}" go -C "$work" build -trimpath -ldflags "$ldflags" -o "$out.tmp" "$pkg" || { safe_rm "$work"; return 1; }
  mv -f "$out.tmp" "$out"
  echo "$stamp" >"$out.stamp"
  # keep the go.sum the build resolved: it pins the build (upstream's may lack lines)
  cp "$work/go.sum" "$out.go.sum"
  added=$(comm -13 <(LC_ALL=C sort -u "$dir/go.sum") <(LC_ALL=C sort -u "$work/go.sum") | wc -l)
  safe_rm "$work"
  BUILT=$out
  progress "$name" "built $out with $gover (go.sum +$added lines${PREP_NOTE:+; $PREP_NOTE}${TOOLCHAIN_NOTE:+; $TOOLCHAIN_NOTE})"
}

# build_go_bin NAME VERSION MODULE PKG LDFLAGS [PREP_FN]: build_bin of
# MODULE@VERSION from the module proxy, cached as $CACHE_DIR/bin/NAME-VERSION.
build_go_bin() {
  local name=$1 ver=$2 mod=$3 pkg=$4 ldflags=$5 prep=${6:-} dir
  begin
  dir=$(mod_dir "$mod@$ver") || return 1
  # the id's two lines are what stamps written before build_bin held
  build_bin "$name $ver" "$BIN_DIR/$name-$ver" "$dir" "$mod@$ver"$'\n'"$(cat "$dir/go.sum" 2>/dev/null | sha256sum)" "$pkg" "$ldflags" "$prep"
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

# ---------------------------------------------------------------- sources
begin
# local_replaces GO.MOD: the replace directives that point into the module's
# own tree (a nested module), which a module zip leaves out
local_replaces() {
  go mod edit -json "$1" | jq -r '.Replace[]? | select(.New.Path | test("^\\.{1,2}/")) | "\(.Old.Path) => \(.New.Path)"'
}
NESTED=() # "DIR MODULE_DIR" of each nested module placed from its own zip
SOURCES=() # what the build read, printed as SOURCE: lines
if [ -z "$SRC" ]; then
  ARGO_DIR=$(mod_dir "$MOD@$TAG")
  SOURCES+=("$MOD@$TAG $(mod_sum "$MOD@$TAG")")
  SOURCE="module $MOD@$TAG"
  SOURCE_ID="$MOD@$TAG"
  TAG_TIME=$(mod_info_time "$MOD@$TAG")
  while read -r old _ rel; do
    [ -n "$old" ] || continue
    # the version go.mod requires the nested module at (the replace names none)
    want=$(go mod edit -json "$ARGO_DIR/go.mod" | jq -r --arg p "$old" '[.Require[]? | select(.Path == $p) | .Version] | first // empty')
    if [ "$want" != "$TAG" ]; then
      echo "build.sh: $MOD@$TAG does not build from module zips: go.mod replaces $old with $rel, a nested module the zip leaves out," \
        "and requires it at ${want:-no version}, not at the tag (a pin the replace makes meaningless: the tree's $rel is no module the proxy serves);" \
        "give a source tree of the tag: $0 $TAG /path/to/argo-cd-$TAG (the suite passes the one ARGOCD_SOURCES names)" >&2
      exit 1
    fi
    if ! dir=$(mod_dir "$old@$want"); then
      echo "build.sh: $MOD@$TAG replaces $old with $rel and the module proxy does not serve $old@$want; give a source tree of the tag: $0 $TAG /path/to/argo-cd-$TAG" >&2
      exit 1
    fi
    # tagged with the release: the same commit, so the same commit time
    nested_time=$(mod_info_time "$old@$want")
    if [ "$nested_time" != "$TAG_TIME" ]; then
      echo "build.sh: $old@$want ($nested_time) is not from the commit of $MOD@$TAG ($TAG_TIME): not the tree's $rel" >&2
      exit 1
    fi
    sum=$(mod_sum "$old@$want")
    NESTED+=("${rel#./} $dir")
    SOURCES+=("$old@$want $sum as $rel")
    SOURCE+=" + $old@$want as $rel"
    SOURCE_ID+=$'\n'"$old@$want $sum => $rel"
  done < <(local_replaces "$ARGO_DIR/go.mod")
  [ "${#NESTED[@]}" -eq 0 ] || SOURCE_ID+=$'\n'"$MOD@$TAG ${SOURCES[0]#* }"
  GIT_TREE_STATE=clean
else
  ARGO_DIR=$SRC
  for r in $(local_replaces "$ARGO_DIR/go.mod" | sed 's/.* => //'); do
    [ -f "$ARGO_DIR/$r/go.mod" ] || { echo "build.sh: $ARGO_DIR/go.mod replaces a module with $r, which the tree lacks ($ARGO_DIR/$r/go.mod)" >&2; exit 1; }
  done
  # the tree's digest: every file's path and content (not where it lies, not
  # .git, not the suite's marks of an extracted archive)
  TREE=$(cd "$ARGO_DIR" && find . \( -path ./.git -o -path ./.extracted -o -path ./.git-commit -o -path ./ui/node_modules \) -prune -o -type f -print0 |
    LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
  # the commit and tree state, as upstream's Makefile reads them
  if [ -e "$ARGO_DIR/.git" ]; then
    GIT_COMMIT=$(git -C "$ARGO_DIR" rev-parse HEAD)
    GIT_TREE_STATE=$([ -z "$(git -C "$ARGO_DIR" status --porcelain)" ] && echo clean || echo dirty)
  else
    GIT_TREE_STATE=clean # an archive is the commit's tree
  fi
  SOURCE="tree $ARGO_DIR (sha256 ${TREE:0:16}, commit ${GIT_COMMIT:-unknown}, $GIT_TREE_STATE)"
  SOURCE_ID="tree $TREE"
  SOURCES+=("tree $TREE commit ${GIT_COMMIT:-unknown}")
fi
INSTALL_YAML=$ARGO_DIR/manifests/install.yaml
[ -f "$INSTALL_YAML" ] || { echo "build.sh: $SOURCE has no manifests/install.yaml" >&2; exit 1; }
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
progress "source $TAG" "$SOURCE: $ARGOCD_IMAGE, $REDIS_IMAGE"
[ -n "$GIT_COMMIT" ] || echo "build.sh: no commit for $TAG (GIT_COMMIT unset${SRC:+, $SRC is no checkout}): argocd will report v${TAG#v}+unknown" >&2

# What the tag's Dockerfile puts into the image, from its argocd-base stage
# (to the next FROM): the packages its apt-get install names, its ENV
# instructions (continuation lines joined), whether it runs
# `git lfs install --system`.
DOCKERFILE=$ARGO_DIR/Dockerfile
[ -f "$DOCKERFILE" ] || { echo "build.sh: $SOURCE has no Dockerfile" >&2; exit 1; }
base_stage() {
  awk '/^FROM .* AS argocd-base/ { on = 1; next } on && /^FROM / { exit } on' "$DOCKERFILE" |
    sed -e ':a' -e '/\\$/N; s/\\\n/ /; ta'
}
# (a pinned version, git=${GIT_APT_VERSION} in 3.6, is Ubuntu's: the name is kept)
UPSTREAM_PACKAGES=$(base_stage | grep -oE 'apt-get install [^&]*' | sed -E 's/apt-get install//; s/(^| )-[^ ]+//g; s/=[^ ]*//g' | tr ' ' '\n' | grep -E '^[a-z0-9][a-z0-9.+-]*$' | LC_ALL=C sort -u | tr '\n' ' ')
[ -n "$UPSTREAM_PACKAGES" ] || { echo "build.sh: no apt-get install in the argocd-base stage of $DOCKERFILE" >&2; exit 1; }
UPSTREAM_ENV=$(base_stage | grep -E '^ENV ' || true)
GIT_LFS_SYSTEM=0
# 3.5: `git lfs install --system`; 3.6: `git lfs install --skip-repo --system`
! grep -qE 'git lfs install( --[a-z-]+)* --system' <<<"$(base_stage)" || GIT_LFS_SYSTEM=1

# helm, kustomize and git-lfs at the versions the tag pins
TOOLS=$ARGO_DIR/hack/tool-versions.sh
# (to 3.5: helm3_version or helm4_version, kustomize5_version, git_lfs_version;
# 3.6: HELM_VERSION, KUSTOMIZE_VERSION, GIT_LFS_VERSION, Helm's major in the version)
pinned() { local n; for n in "$@"; do sed -nE "s/^$n=([^[:space:]]+).*/\1/p" "$TOOLS"; done | head -n1; }
HELM_MAJOR=3 HELM_VERSION=$(pinned helm3_version)
[ -n "$HELM_VERSION" ] || { HELM_MAJOR=4 HELM_VERSION=$(pinned helm4_version); }
[ -n "$HELM_VERSION" ] || { HELM_VERSION=$(pinned HELM_VERSION); HELM_MAJOR=${HELM_VERSION%%.*}; }
KUSTOMIZE_VERSION=$(pinned kustomize5_version KUSTOMIZE_VERSION)
GIT_LFS_VERSION=""
# the builder stage installs git-lfs from its release (the pinned version);
# where the base stage's apt-get installs it instead, Debian's package is it
if grep -q 'install.sh git-lfs' "$DOCKERFILE"; then
  GIT_LFS_VERSION=$(pinned git_lfs_version GIT_LFS_VERSION)
  [ -n "$GIT_LFS_VERSION" ] || { echo "build.sh: $DOCKERFILE installs git-lfs but $TOOLS pins no git_lfs_version" >&2; exit 1; }
  GIT_LFS_VERSION=v$GIT_LFS_VERSION
fi
[ -n "$HELM_VERSION" ] && [ -n "$KUSTOMIZE_VERSION" ] ||
  { echo "build.sh: cannot read helm3_version, helm4_version or HELM_VERSION, and kustomize5_version or KUSTOMIZE_VERSION, from $TOOLS" >&2; exit 1; }
HELM_VERSION=v$HELM_VERSION KUSTOMIZE_VERSION=v$KUSTOMIZE_VERSION
ARGOCD_PACKAGES=$( { tr ',' '\n' <<<"$RECIPE_PACKAGES"; tr ' ' '\n' <<<"$UPSTREAM_PACKAGES"; } | grep . | LC_ALL=C sort -u | paste -sd, -)
progress "Dockerfile $TAG" "packages $ARGOCD_PACKAGES; helm $HELM_VERSION, kustomize $KUSTOMIZE_VERSION${GIT_LFS_VERSION:+, git-lfs $GIT_LFS_VERSION}; ENV: $(sed -E 's/^ENV //' <<<"$UPSTREAM_ENV" | tr '\n' ' ')"

ARGOCD_KEY=$(printf '%s\n' argocd "$TAG" "$SOURCE_ID" "$GIT_COMMIT" "$GIT_TREE_STATE" "$ARGOCD_IMAGE" "$RECIPE" "$GOVERSION" "$DEBIAN_SUITE" "$ARGOCD_PACKAGES" | sha256sum | cut -d' ' -f1)
REDIS_KEY=$(printf '%s\n' redis "$REDIS_IMAGE" "$RECIPE" "$DEBIAN_SUITE" "$REDIS_PACKAGES" | sha256sum | cut -d' ' -f1)

# ---------------------------------------------------------------- argocd image
begin
if [ "$(image_key "$ARGOCD_IMAGE")" = "$ARGOCD_KEY" ]; then
  progress "image argocd" "cached $ARGOCD_IMAGE"
  # what its build said of a tool in place of the tag's pin, from its label
  KNOTE=$(docker image inspect -f '{{ index .Config.Labels "gitops-conformance.argocd-source" }}' "$ARGOCD_IMAGE" |
    grep -oE 'kustomize v[0-9.]+ in place of v[0-9.]+' | tail -n1 || true)
  [ -z "$KNOTE" ] || SOURCES+=("kustomize: sigs.k8s.io/kustomize/kustomize/v5@$(cut -d' ' -f2 <<<"$KNOTE") in place of ${KNOTE##* }")
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
  # the build date: the tag's commit time (a checkout's, else the proxy's for the tag)
  if [ -n "$SRC" ] && [ -e "$SRC/.git" ]; then
    BUILD_DATE=$(TZ=UTC git -C "$SRC" log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ)
  elif ! BUILD_DATE=$(mod_info_time "$MOD@$TAG" 2>/dev/null); then
    BUILD_DATE=$(date -u +'%Y-%m-%dT%H:%M:%SZ') # as upstream's Makefile defaults it
  fi
  # gitCommit unknown (GIT_COMMIT unset): the version string reads
  # v$VERSION+unknown; with it v$VERSION+<commit7>, as upstream release builds print.
  ARGO_LDFLAGS="-s -w -X $PKG.version=$VERSION -X $PKG.buildDate=$BUILD_DATE"
  ARGO_LDFLAGS+=" -X $PKG.gitCommit=$GIT_COMMIT -X $PKG.gitTreeState=$GIT_TREE_STATE"
  ARGO_LDFLAGS+=" -X $PKG.kubectlVersion=$KUBECTL_VERSION"
  if [ -z "$SRC" ] && [ "${#NESTED[@]}" -gt 0 ]; then
    ARGO_LDFLAGS+=" -X '$PKG.extraBuildInfo=gitops-conformance offline build from the module zips'"
  elif [ -z "$SRC" ]; then
    ARGO_LDFLAGS+=" -X '$PKG.extraBuildInfo=gitops-conformance offline build from the module zip'"
  else
    ARGO_LDFLAGS+=" -X '$PKG.extraBuildInfo=gitops-conformance offline build from a source tree'"
  fi
  prep_argocd() { # the nested modules where the replaces point; ui/embed.go embeds ui/dist/app, which needs one non-hidden file
    local app=$1/ui/dist/app n
    for n in "${NESTED[@]+"${NESTED[@]}"}"; do
      mkdir -p "$1/${n%% *}"
      tar -C "${n#* }" -cf - . | tar -C "$1/${n%% *}" -xf -
      chmod -R u+w "$1/${n%% *}"
    done
    if [ -f "$1/ui/embed.go" ] && [ -z "$(find "$app" -maxdepth 1 -type f ! -name '.*' ! -name '_*' 2>/dev/null | head -n1)" ]; then
      mkdir -p "$app"; : >"$app/gitkeep"; PREP_NOTE="placeholder ui/dist/app/gitkeep added"
    fi
  }
  if [ -z "$SRC" ] && [ "${#NESTED[@]}" -eq 0 ]; then
    build_go_bin argocd "$TAG" "$MOD" ./cmd "$ARGO_LDFLAGS" prep_argocd
  elif [ -z "$SRC" ]; then
    begin
    progress "argocd $TAG" "building from the module zips: ${SOURCES[*]} (cold: ~10 min on 2 busy cores)"
    build_bin "argocd $TAG" "$BIN_DIR/argocd-$TAG" "$ARGO_DIR" "$SOURCE_ID" ./cmd "$ARGO_LDFLAGS" prep_argocd
  else
    # one binary per tree: two trees of a tag (a checkout, an archive) keep their own
    begin
    progress "argocd $TAG" "building from $ARGO_DIR (cold: ~10 min on 2 busy cores)"
    build_bin "argocd $TAG" "$BIN_DIR/argocd-$TAG-tree-${TREE:0:12}" "$ARGO_DIR" "$SOURCE_ID" ./cmd "$ARGO_LDFLAGS" prep_argocd
  fi
  ARGOCD_BIN=$BUILT

  HELM_DIR=$(mod_dir "helm.sh/helm/v$HELM_MAJOR@$HELM_VERSION")
  HV=helm.sh/helm/v$HELM_MAJOR
  if [ "$HELM_MAJOR" = 3 ]; then
    HELM_K8S=$(gomod_version "$HELM_DIR/go.mod" k8s.io/client-go) # v0.31.x -> Kubernetes 1.31
    HELM_K8S_MAJOR=$(( $(cut -d. -f1 <<<"${HELM_K8S#v}") + 1 ))
    HELM_K8S_MINOR=$(cut -d. -f2 <<<"$HELM_K8S")
    HELM_LDFLAGS="-s -w -X $HV/internal/version.version=$HELM_VERSION -X $HV/internal/version.gitTreeState=clean"
    HELM_LDFLAGS+=" -X $HV/pkg/lint/rules.k8sVersionMajor=$HELM_K8S_MAJOR -X $HV/pkg/lint/rules.k8sVersionMinor=$HELM_K8S_MINOR"
    HELM_LDFLAGS+=" -X $HV/pkg/chartutil.k8sVersionMajor=$HELM_K8S_MAJOR -X $HV/pkg/chartutil.k8sVersionMinor=$HELM_K8S_MINOR"
  else # helm 4's Makefile: version, metadata (empty for a tag), tree state
    HELM_LDFLAGS="-s -w -X $HV/internal/version.version=$HELM_VERSION -X $HV/internal/version.metadata= -X $HV/internal/version.gitTreeState=clean"
  fi
  build_go_bin helm "$HELM_VERSION" "$HV" ./cmd/helm "$HELM_LDFLAGS"
  HELM_BIN=$BUILT

  # kustomize at the pinned version; where its build needs a module the proxy
  # refuses (3.6's v5.8.3: k8s.io/kube-openapi@v0.0.0-20261001230523-97fa35140926,
  # 403 on 2026-11-28), the nearest earlier patch of that minor that builds,
  # said in the progress line, the image's source label and a SOURCE: line
  KP=sigs.k8s.io/kustomize/api/provenance
  KUSTOMIZE_BIN="" KUSTOMIZE_NOTE=""
  kmaj=${KUSTOMIZE_VERSION%.*} kpatch=${KUSTOMIZE_VERSION##*.}
  for ((p = kpatch; p >= 0; p--)); do
    kv=$kmaj.$p
    KUSTOMIZE_LDFLAGS="-s -w -X $KP.version=$kv -X $KP.buildDate=$(mod_info_time "sigs.k8s.io/kustomize/kustomize/v5@$kv" 2>/dev/null || echo 1970-01-01T00:00:00Z)"
    if (build_go_bin kustomize "$kv" sigs.k8s.io/kustomize/kustomize/v5 . "$KUSTOMIZE_LDFLAGS"); then
      KUSTOMIZE_BIN=$BIN_DIR/kustomize-$kv
      break
    fi
    why=$(grep -oE '[^ :]+@v[^ :]+: reading [^ ]+: [0-9]{3} [A-Za-z ]+' "$LOG_DIR/go-build-kustomize.log" | head -n1 | sed -E 's/: reading [^ ]+//')
    KUSTOMIZE_NOTE+="kustomize $kv does not build here (${why:-see $LOG_DIR/go-build-kustomize.log}); "
  done
  [ -n "$KUSTOMIZE_BIN" ] || { echo "build.sh: no kustomize $kmaj.x builds here: $KUSTOMIZE_NOTE" >&2; exit 1; }
  if [ -n "$KUSTOMIZE_NOTE" ]; then
    KUSTOMIZE_NOTE+="kustomize $kv in place of $KUSTOMIZE_VERSION"
    progress "kustomize" "$KUSTOMIZE_NOTE"
    SOURCE+="; $KUSTOMIZE_NOTE"
    SOURCES+=("kustomize: sigs.k8s.io/kustomize/kustomize/v5@$kv in place of $KUSTOMIZE_VERSION")
  fi

  GIT_LFS_BIN=""
  if [ -n "$GIT_LFS_VERSION" ]; then # git-lfs's Makefile: -s -w, config.GitCommit (unknown from a module zip)
    build_go_bin git-lfs "$GIT_LFS_VERSION" github.com/git-lfs/git-lfs/v3 . "-s -w"
    GIT_LFS_BIN=$BUILT
  fi

  ensure_rootfs argocd "$ARGOCD_PACKAGES"
  ARGOCD_BASE=$ROOTFS

  # component names: the tag's Dockerfile symlinks, the argocd-* commands and
  # /usr/local/bin/argocd-* paths of install.yaml, and the names 2.x/3.x share
  LINKS=$( {
    grep -oE 'ln -s /usr/local/bin/argocd /usr/local/bin/argocd-[a-z0-9-]+' "$DOCKERFILE" | sed 's|.*/||'
    grep -oE '/usr/local/bin/argocd-[a-z0-9-]+' "$INSTALL_YAML" | sed 's|.*/||'
    awk 'prev ~ /(command|args):[[:space:]]*$/ && $0 ~ /^[[:space:]]*-[[:space:]]+argocd-[a-z0-9-]+[[:space:]]*$/ { print $2 }
         { prev = $0 }' "$INSTALL_YAML"
    printf '%s\n' argocd-server argocd-repo-server argocd-application-controller argocd-cmp-server \
      argocd-applicationset-controller argocd-notifications argocd-dex argocd-k8s-auth
  } | LC_ALL=C sort -u | tr '\n' ' ')
  LINKS=${LINKS% }

  begin
  mktmp ctx-argocd; CTX=$TMP_D
  mkdir "$CTX/bin"
  cp "$ARGOCD_BIN" "$CTX/bin/argocd"
  cp "$HELM_BIN" "$CTX/bin/helm"
  cp "$KUSTOMIZE_BIN" "$CTX/bin/kustomize"
  [ -z "$GIT_LFS_BIN" ] || cp "$GIT_LFS_BIN" "$CTX/bin/git-lfs"
  cp "$ARGO_DIR/hack/gpg-wrapper.sh" "$ARGO_DIR/hack/git-verify-wrapper.sh" "$ARGO_DIR/entrypoint.sh" "$CTX/bin/"
  chmod 0755 "$CTX"/bin/*
  # the recipe's Dockerfile with the tag's ENV instructions where it marks them
  awk -v env="$UPSTREAM_ENV" '$0 == "# upstream ENV" { if (env != "") print env; next } { print }' \
    "$HERE/argocd.Dockerfile" >"$CTX/Dockerfile"
  OLD_ID=$(docker image inspect -f '{{.Id}}' "$ARGOCD_IMAGE" 2>/dev/null || true)
  run docker-build-argocd docker build --force-rm \
    --build-arg BASE_IMAGE="$ARGOCD_BASE" --build-arg ARGOCD_LINKS="$LINKS" --build-arg GIT_LFS_SYSTEM="$GIT_LFS_SYSTEM" \
    --label "$LABEL_KEY=$ARGOCD_KEY" --label gitops-conformance.argocd-tag="$TAG" \
    --label gitops-conformance.argocd-source="$SOURCE" --label gitops-conformance.argocd-commit="${GIT_COMMIT:-unknown}" \
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
printf 'SOURCE: %s\n' "${SOURCES[@]}"
echo "IMAGES:"
printf '%s\n' "$ARGOCD_IMAGE" "$REDIS_IMAGE"
