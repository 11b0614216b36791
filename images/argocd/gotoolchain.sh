# shellcheck shell=bash
# Sourced by build.sh and install-yaml.sh: which Go toolchain a module builds
# (or downloads) with.
#
# A module whose go line asks for a newer Go than this machine's builds with
# the approved toolchain of that Go minor, which the go command takes from the
# module proxy like a module (GOTOOLCHAIN=go1.27.3), for that command only:
# the approved ones are the catalog's goToolchains (pkg/catalog/catalog.yaml),
# or GO_TOOLCHAINS (space-separated) when set. Derived from the go line, never
# named per release: ArgoCD v3.6.x says `go 1.27.0`, the approved 1.27 is
# go1.27.3, so every 3.6 patch builds with it.
#
# The go command checks a toolchain it switches to against the checksum
# database whatever GONOSUMDB says, and refuses with GOSUMDB=off ("verifying
# module: checksum database disabled by GOSUMDB=off"). So a switched command
# runs with the checksum database on and GONOSUMDB='*': the toolchain is
# verified, every other module is read as under GOSUMDB=off (the recipes'
# setting: some checksum-database lookups answer 404 here).

GOENV=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../hack" && pwd)/goenv.sh
# shellcheck source=../../hack/goenv.sh
. "$GOENV"
CATALOG_YAML=${CATALOG_YAML:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/pkg/catalog/catalog.yaml}
if [ -z "${GO_TOOLCHAINS+set}" ]; then
  GO_TOOLCHAINS=$(sed -nE 's/^goToolchains:[[:space:]]*\[([^]]*)\].*/\1/p' "$CATALOG_YAML" 2>/dev/null | tr ',' ' ' | xargs)
fi

# ver_ge A B: whether Go version A (1.27.3, 1.27) is B or newer
ver_ge() { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | tail -n1)" = "$1" ]; }

# toolchain_for NEED: prints the GOTOOLCHAIN a module whose go line says NEED
# builds with: "local" when this Go is new enough, else the approved toolchain
# of NEED's minor; none approved (or too old for NEED): one line on stderr, status 3.
toolchain_for() {
  local need=$1 have minor t
  [[ $need =~ ^[0-9]+\.[0-9]+$ ]] && need=$need.0
  have=${GO_LOCAL_VERSION:-$(GOTOOLCHAIN=local go env GOVERSION)}
  have=${have#go}
  if ver_ge "$have" "$need"; then
    echo local
    return 0
  fi
  minor=$(cut -d. -f1,2 <<<"$need")
  for t in $GO_TOOLCHAINS; do
    if [ "$(cut -d. -f1,2 <<<"${t#go}")" = "$minor" ] && ver_ge "${t#go}" "$need"; then
      echo "$t"
      return 0
    fi
  done
  echo "go.mod asks for go $need and this machine has go $have; no approved Go $minor toolchain (GO_TOOLCHAINS='$GO_TOOLCHAINS', the catalog's goToolchains) to take from the module proxy" >&2
  return 3
}

# toolchain_env TOOLCHAIN: sets TC_ENV, the environment (NAME=VALUE words,
# for env) a go command runs with under TOOLCHAIN
# shellcheck disable=SC2034 # TC_ENV is read by the scripts that source this one
toolchain_env() {
  go_env_words "$1"
  TC_ENV=("${GO_ENV[@]}")
}

# needs_go ERROR: the Go version a go command's error says a module requires
# ("requires go >= 1.27.0 (running go 1.26.8; GOTOOLCHAIN=local)"), or nothing
needs_go() { sed -nE 's/.*requires go (>=|\\u003e=) ([0-9][0-9.]*) \(running go.*/\2/p' <<<"$1" | head -n1; }
