#!/usr/bin/env bash
# Says whether a Kubernetes release can be built offline: k8s.io/kubernetes's
# module zip leaves out staging/, and its go.mod replaces each staging module
# (k8s.io/api, kubelet, kube-proxy, cri-client, ...) with ./staging/src/...,
# so the build needs every one of them from the Go module proxy at the
# matching v0.Y.Z. This asks the proxy (go list -m: the .info and .mod, not
# the zips) for each module that release's own go.mod replaces that way;
# code-generator and the sample-* modules are left out, no binary needs them.
#
# usage: staging-check.sh KUBE_VERSION          e.g. v1.35.4
# Prints nothing and exits 0 when all are there. Otherwise one line and:
#   3  the proxy lacks k8s.io/kubernetes at that version or some staging modules
#   2  KUBE_VERSION is not a Kubernetes release version
#   1  the proxy could not be asked (network, proxy error)
# The same modules' published versions are what images/build/kubernetes/module.sh
# puts in the build module: a release is never built from a mix of patch versions.
set -euo pipefail
ver=${1:-}
if ! [[ $ver =~ ^v1\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
  echo "staging-check.sh: KUBE_VERSION must be a Kubernetes release such as v1.35.4, got \"$ver\"" >&2
  exit 2
fi
staging=v0.${ver#v1.}
# shellcheck source=../../hack/goenv.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../hack/goenv.sh"
go_env local
export GOFLAGS=-mod=mod GOWORK=off
# outside any module: the query must not see a go.mod's requirements or replaces
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

# missing ERR: whether a module error means "the proxy does not have it" (as
# opposed to a network or proxy failure)
missing() {
  case "$1" in
    *"404 Not Found"* | *"410 Gone"* | *"403 Forbidden"* | *"not available"* | *"unknown revision"* | *"invalid version"* | *"no matching versions"*) return 0 ;;
    *"file://"*"no such file or directory"*) return 0 ;; # GOPROXY=file://DIR, a proxy's layout on disk
  esac
  return 1
}
# query MODULE@VERSION...: one line per module, "PATH<TAB>ERROR" (ERROR empty when found)
query() {
  go list -m -e -json "$@" 2>&1 | tr -d '\r' |
    sed -n -e 's/^\t"Path": "\(.*\)",$/\1/p' -e 's/^\t\t"Err": "\(.*\)"$/ERR\t\1/p' |
    awk -F'\t' '$1 == "ERR" { err[n] = $2; next } { n++; path[n] = $1 } END { for (i = 1; i <= n; i++) print path[i] "\t" err[i] }'
}

line=$(query "k8s.io/kubernetes@$ver")
err=${line#*$'\t'}
if [ -n "$err" ]; then
  if missing "$err"; then
    echo "Kubernetes $ver cannot be built offline: the module proxy lacks k8s.io/kubernetes at $ver"
    exit 3
  fi
  echo "staging-check.sh: cannot ask the module proxy for k8s.io/kubernetes@$ver: $err" >&2
  exit 1
fi
gomod=$(go list -m -e -json "k8s.io/kubernetes@$ver" | sed -n 's/^\t"GoMod": "\(.*\)",\{0,1\}$/\1/p')
mapfile -t modules < <(sed -n 's#^[[:space:]]*\(k8s\.io/[A-Za-z0-9._-]*\) => \./staging/src/.*#\1#p' "$gomod" |
  grep -v -e '^k8s\.io/code-generator$' -e '^k8s\.io/sample-')
if [ "${#modules[@]}" -eq 0 ]; then
  echo "staging-check.sh: k8s.io/kubernetes@$ver's go.mod replaces no staging module (read $gomod)" >&2
  exit 1
fi

lacking=()
while IFS=$'\t' read -r path err; do
  [ -z "$err" ] && continue
  if ! missing "$err"; then
    echo "staging-check.sh: cannot ask the module proxy for $path@$staging: $err" >&2
    exit 1
  fi
  lacking+=("$path")
done < <(query "${modules[@]/%/@$staging}")
if [ "${#lacking[@]}" -gt 0 ]; then
  list=$(printf '%s, ' "${lacking[@]}")
  echo "Kubernetes $ver cannot be built offline: the module proxy lacks ${list%, } at $staging"
  exit 3
fi
