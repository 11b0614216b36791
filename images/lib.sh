# images/lib.sh: what every offline image recipe (images/<family>/build.sh)
# shares, sourced by it once it has checked its arguments:
#
#   BUILD_NAME=kyverno-v1.14.0   # names its log directory and its failure line
#   . "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
#
# It sets HERE (the recipe's directory), CACHE_DIR (env, default
# ${XDG_CACHE_HOME:-$HOME/.cache}/gitops-conformance), WORK_DIR, LOG_DIR
# (logs/BUILD_NAME), LABEL_KEY, GOVERSION and RECIPE (a sha256 over the
# recipe's files and this one: a changed recipe rebuilds), exports the Go and
# Docker build environment, and defines progress, run and image_key. On exit
# the temporary directories a recipe adds to TMPS go, and a failure says where the logs are;
# an interrupt exits 130.
# shellcheck shell=bash
# shellcheck disable=SC2034 # GOVERSION, RECIPE, LABEL_KEY: for the recipes that source this

HERE=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh
GOENV=$(cd "$(dirname "${BASH_SOURCE[0]}")/../hack" && pwd)/goenv.sh
# shellcheck source=../hack/goenv.sh
. "$GOENV"
CACHE_DIR=${CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gitops-conformance}
WORK_DIR=$CACHE_DIR/work
LOG_DIR=$CACHE_DIR/logs/$BUILD_NAME
LABEL_KEY=gitops-conformance.cache-key
mkdir -p "$WORK_DIR" "$LOG_DIR"

go_env local
export GOFLAGS="-mod=mod -buildvcs=false" GOWORK=off CGO_ENABLED=0
export DOCKER_BUILDKIT=0
GOVERSION=$(go env GOVERSION)
# the recipe's files (not its subdirectories: a build module is hashed by the
# recipe that uses it) and this helper, by name
RECIPE=$( (cd "$HERE" && for f in $(ls -1 | LC_ALL=C sort); do [ -f "$f" ] && printf '== %s\n' "$f" && cat "$f"; done
  printf '== lib.sh\n'; cat "$LIB"; printf '== goenv.sh\n'; cat "$GOENV") | sha256sum | cut -d' ' -f1)

T0=$SECONDS
# progress WHAT DETAIL: one line on stderr with the seconds since the start
progress() { printf '[%4ss] %-24s %s\n' "$((SECONDS - T0))" "$1" "$2" >&2; }

# run LOGNAME CMD...: output to LOG_DIR/LOGNAME.log, its tail on failure
run() {
  local log=$LOG_DIR/$1.log; shift
  if ! "$@" >"$log" 2>&1; then
    echo "build.sh: command failed: $*" >&2; tail -n 40 "$log" >&2; return 1
  fi
}

# image_key IMAGE: the image's cache-key label, empty when there is no such image
image_key() { docker image inspect -f "{{ index .Config.Labels \"$LABEL_KEY\" }}" "$1" 2>/dev/null || true; }

# the temporary directories to remove on exit: D=$(mktemp -d ...); TMPS+=("$D")
TMPS=()

lib_cleanup() {
  local rc=$? d
  for d in "${TMPS[@]+"${TMPS[@]}"}"; do [ ! -e "$d" ] || rm -rf --one-file-system "$d"; done
  [ "$rc" -eq 0 ] || echo "build.sh $BUILD_NAME: FAILED (exit $rc) after $((SECONDS - T0))s; logs in $LOG_DIR" >&2
}
trap lib_cleanup EXIT
trap 'exit 130' INT TERM
