#!/usr/bin/env bash
# Writes the tag's manifests/install.yaml (from the argo-cd module zip on the
# Go module proxy: the file the release publishes; or from SOURCE_DIR, a
# source tree of the tag, for a tag whose images build.sh builds from that
# tree) for a cluster. ADAPT=offline
# (the default) adapts it to an offline cluster:
#   - imagePullPolicy: Always  ->  IfNotPresent (images are `kind load`ed, never pulled)
#   - the argocd-dex-server Deployment is dropped (dex cannot be built offline:
#     github.com/dexidp/dex is not on the proxy); its Service, RBAC and
#     NetworkPolicy stay, they are inert without the Deployment.
# ADAPT=online leaves it as published; DEX=drop drops dex there too (a registry
# mirror that lacks dex's image).
# Prints what it changed to stdout.
#
#   usage: [ADAPT=offline|online] [DEX=drop|keep] install-yaml.sh TAG OUT_FILE [SOURCE_DIR]
#          e.g. install-yaml.sh v2.14.11 /tmp/argocd.yaml
#               install-yaml.sh v3.5.1 /tmp/argocd.yaml /path/to/argo-cd-v3.5.1
set -euo pipefail

usage() { echo "usage: $0 TAG OUT_FILE [SOURCE_DIR]   (a released argo-cd tag, e.g. v2.14.11; an argo-cd tree at that tag)" >&2; exit 2; }
[ $# -eq 2 ] || [ $# -eq 3 ] || usage
TAG=$1 OUT=$2 SRC=${3:-}
[[ $TAG =~ ^v([0-9]+)\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] || usage
MAJOR=${BASH_REMATCH[1]}
[ "$MAJOR" -ge 2 ] || { echo "install-yaml.sh: only module tags (v2.x and later) are supported" >&2; exit 2; }
MOD=github.com/argoproj/argo-cd/v$MAJOR
ADAPT=${ADAPT:-offline}
case $ADAPT in
  offline) DEX=${DEX:-drop} ;;
  online) DEX=${DEX:-keep} ;;
  *) echo "install-yaml.sh: ADAPT=$ADAPT is not offline or online" >&2; exit 2 ;;
esac
[ "$DEX" = drop ] || [ "$DEX" = keep ] || { echo "install-yaml.sh: DEX=$DEX is not drop or keep" >&2; exit 2; }
# shellcheck source=gotoolchain.sh
. "$(dirname "${BASH_SOURCE[0]}")/gotoolchain.sh"
go_env local
export GOFLAGS="-mod=mod -buildvcs=false" GOWORK=off

TMP=""
cleanup() { [ -z "$TMP" ] || rm -rf "$TMP"; }
trap cleanup EXIT
TMP=$(mktemp -d)

if [ -n "$SRC" ]; then
  IN=$SRC/manifests/install.yaml FROM="tree $SRC"
  [ -f "$IN" ] || { echo "install-yaml.sh: $SRC has no manifests/install.yaml (not an argo-cd tree?)" >&2; exit 1; }
  grep -q "^module $MOD\$" "$SRC/go.mod" 2>/dev/null || { echo "install-yaml.sh: $SRC/go.mod is not $MOD (the module of $TAG)" >&2; exit 1; }
  grep -qE "image: [^ ]*/argocd:$TAG\$" "$IN" || { echo "install-yaml.sh: $IN names no argocd image of $TAG (a tree at another tag?)" >&2; exit 1; }
else
  FROM="$MOD@$TAG"
  # exact version only: the module proxy here is partial
  j=$(cd "$TMP" && go mod download -json "$MOD@$TAG" 2>"$TMP/err") || true
  # a module asking for a newer Go: the local go will not extract it, the approved toolchain does
  need=$(needs_go "$(jq -r '.Error // empty' <<<"$j" 2>/dev/null)")
  if [ -n "$need" ]; then
    tc=$(toolchain_for "$need") || exit 1
    toolchain_env "$tc"
    j=$(cd "$TMP" && env "${TC_ENV[@]}" go mod download -json "$MOD@$TAG" 2>"$TMP/err") || true
  fi
  if [ -z "$j" ] || [ -n "$(jq -r '.Error // empty' <<<"$j" 2>/dev/null)" ]; then
    echo "install-yaml.sh: go mod download $MOD@$TAG failed: $(jq -r '.Error // empty' <<<"$j" 2>/dev/null) $(cat "$TMP/err")" >&2
    exit 1
  fi
  IN=$(jq -r .Dir <<<"$j")/manifests/install.yaml
  [ -f "$IN" ] || { echo "install-yaml.sh: $MOD@$TAG has no manifests/install.yaml" >&2; exit 1; }
fi

# Documents are separated by lines "---". A document is dropped when its
# top-level kind is Deployment and its metadata.name (two-space indent) is
# argocd-dex-server.
awk -v dropped="$TMP/dropped" -v dex="$DEX" '
  function flush() {
    if (doc != "") {
      if (dex == "drop" && kind == "Deployment" && name == "argocd-dex-server") {
        print kind "/" name > dropped
      } else {
        printf "%s%s", (n++ ? "---\n" : ""), doc
      }
    }
    doc = ""; kind = ""; name = ""; inmeta = 0
  }
  /^---[[:space:]]*$/ { flush(); next }
  {
    doc = doc $0 "\n"
    if ($0 ~ /^kind:[[:space:]]/) { kind = $2 }
    if ($0 ~ /^metadata:/) { inmeta = 1 } else if ($0 ~ /^[^[:space:]#]/) { inmeta = 0 }
    if (inmeta && name == "" && $0 ~ /^  name:[[:space:]]/) { name = $2 }
  }
  END { flush() }
' "$IN" >"$TMP/stage1.yaml"

[ "$DEX" = keep ] || [ -s "$TMP/dropped" ] || { echo "install-yaml.sh: no argocd-dex-server Deployment found in $IN" >&2; exit 1; }
touch "$TMP/dropped"
POLICIES=0
if [ "$ADAPT" = offline ]; then
  POLICIES=$(grep -cE '^[[:space:]]*imagePullPolicy:[[:space:]]*Always[[:space:]]*$' "$TMP/stage1.yaml" || true)
  sed -E 's/^([[:space:]]*imagePullPolicy:[[:space:]]*)Always[[:space:]]*$/\1IfNotPresent/' "$TMP/stage1.yaml" >"$TMP/out.yaml"
else
  cp "$TMP/stage1.yaml" "$TMP/out.yaml"
fi

mkdir -p "$(dirname "$OUT")"
mv -f "$TMP/out.yaml" "$OUT"
while read -r d; do echo "dropped: $d"; done <"$TMP/dropped"
echo "imagePullPolicy Always -> IfNotPresent: $POLICIES"
echo "images:"
sed -nE 's/^[[:space:]-]*image:[[:space:]]*["'\'']?([^"'\''[:space:]]+).*/  \1/p' "$OUT" | LC_ALL=C sort -u
echo "wrote $OUT (from $FROM, ADAPT=$ADAPT DEX=$DEX)"
