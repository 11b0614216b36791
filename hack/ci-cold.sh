#!/usr/bin/env bash
# usage: hack/ci-cold.sh            (make ci-cold)
# Runs .ci/run as CI runs it on a new machine: a fresh clone of HEAD with a
# copy of ../shared beside it (no write bits), CI=true, no standard input, an
# empty Go build and module cache, an empty suite cache (its built linters,
# kind, the node image's binaries) and no Docker images, the engine stopped.
# It prints the wall time, the CPU-seconds the machine spent (all processes,
# /proc/stat: Docker builds run under the engine), their floor on this
# machine's cores, and each phase's (hack/phases.sh), and writes them to
# reports/benchmarks/<time>-ci-cold.md with the machine's CPU probe.
#
# Docker images are the one cache it cannot set aside: an engine that holds
# images or containers is refused unless CI_COLD_WIPE=1, which removes them
# all (every image, container and kind cluster of this engine). The clone and
# its caches are removed at the end; CI_COLD_KEEP=1 keeps them.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
shared=$(cd "$repo/.." && pwd)/shared
[ -d "$shared" ] || { echo "ci-cold: no shared/ beside the checkout ($shared): CI runs with it" >&2; exit 2; }
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
  echo "ci-cold: the working tree has uncommitted changes; the clone is of HEAD ($(git rev-parse --short HEAD)) without them" >&2

# Docker: no images, the engine stopped, as on a new machine
engine_up() { docker info >/dev/null 2>&1; }
started=""
if ! engine_up && [ -d /var/lib/docker/image ] && command -v systemctl >/dev/null; then
  systemctl start docker >/dev/null 2>&1 && started=1 || true # only to look at what it holds
fi
if engine_up; then
  held=$(( $(docker images -aq | wc -l) + $(docker ps -aq | wc -l) ))
  if [ "$held" -gt 0 ]; then
    if [ "${CI_COLD_WIPE:-}" != 1 ]; then
      [ -z "$started" ] || systemctl stop docker docker.socket >/dev/null 2>&1 || true
      echo "ci-cold: the Docker engine holds $held images and containers; a new machine has none. CI_COLD_WIPE=1 removes them all (every image, container and kind cluster of this engine)" >&2
      exit 2
    fi
    echo "ci-cold: removing the engine's $held images and containers (CI_COLD_WIPE=1)"
    docker ps -aq | xargs -r docker rm -f >/dev/null
    docker system prune -af --volumes >/dev/null
  fi
  if command -v systemctl >/dev/null; then
    systemctl stop docker docker.socket containerd >/dev/null 2>&1 || true
  fi
fi

stamp=$(date -u +%Y%m%d-%H%M%S)
out=$repo/reports/benchmarks
mkdir -p "$out"
log=$out/$stamp-ci-cold.log
work=$(mktemp -d -t ci-cold.XXXXXX)
cleanup() {
  if [ "${CI_COLD_KEEP:-}" = 1 ]; then
    echo "ci-cold: kept $work"
  else
    chmod -R u+w "$work" 2>/dev/null
    rm -rf "$work"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

git clone -q "$repo" "$work/main"
cp -r "$shared" "$work/shared" && chmod -R a-w "$work/shared"
mkdir -p "$work/cache" "$work/gopath"
commit=$(git -C "$work/main" rev-parse --short HEAD)

hz=$(getconf CLK_TCK)
busy() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }
cores=$(nproc)
echo "ci-cold: .ci/run on a fresh clone of $commit in $work, caches empty, engine stopped; log $log"
t0=$SECONDS c0=$(busy)
(cd "$work/main" &&
  env -u GOCACHE -u GOMODCACHE -u GOPATH -u GITOPS_CONFORMANCE_CACHE -u CACHE_DIR -u GOFLAGS \
    CI=true XDG_CACHE_HOME="$work/cache" GOPATH="$work/gopath" PHASES_LOG="$work/phases" \
    bash .ci/run </dev/null 2>&1 | tee "$log" | grep --line-buffered -E '^=== phase .*: |^\.ci/run: |^(--- )?FAIL' ) || true
# .ci/run's last line says it passed; anything else is a failure
status=1
tail -n1 "$log" | grep -q '^\.ci/run: passed' && status=0
wall=$((SECONDS - t0)) cpu=$(( ($(busy) - c0) / hz ))
floor=$((cpu / cores))
# the CPU probe the plan scales build figures by: its median, and the factor against the machines of coldcost.yaml
probe=$("$work/main/bin/conformance" bench probe -n 3 2>/dev/null | grep -E '^(median|  against)' | sed 's/^ *//' | paste -sd';' - || true)

{
  echo "# make ci-cold, $stamp"
  echo
  echo "\`.ci/run\` on a fresh clone of $commit, as on a new machine: empty Go build and module caches, an"
  echo "empty suite cache, no Docker images, the engine stopped. Log: \`$stamp-ci-cold.log\`."
  echo
  echo "- exit: $status"
  echo "- wall: ${wall} s ($((wall / 60))m$((wall % 60))s)"
  echo "- machine CPU (user+system, all processes): ${cpu} s; floor on $cores cores: ${floor} s; wall/floor: $(awk -v w="$wall" -v f="$floor" 'BEGIN { if (f > 0) printf "%.2f", w / f; else print "-" }')"
  echo "- CPU probe after the run: ${probe:-not taken}"
  echo
  echo "| phase | status | wall s | machine CPU s |"
  echo "|---|---|---|---|"
  [ -e "$work/phases" ] && awk '{ printf "| %s | %s | %s | %s |\n", $2, $3, $4, $5 }' "$work/phases"
} >"$out/$stamp-ci-cold.md"
cat "$out/$stamp-ci-cold.md"
exit "$status"
