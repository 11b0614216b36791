#!/usr/bin/env bash
# make bench-quick: each scenario's quick tier (make e2e's default), one after
# the other, as a user at the keyboard runs it: its plan's estimate, the wall
# time, and where the time went by phase (build, cluster, install, the cell's
# own steps, waits and holds, evidence, teardown), from each run's report.json.
# The figures go to stdout and to reports/benchmarks/<time>-quick.md.
#
#   env: BENCH_SCENARIO (comma-separated; default every scenario),
#        BENCH_PARALLEL (default auto), BENCH_CLUSTER (default bench-quick),
#        BENCH_BUDGET (minutes a quick tier may take warm, default 15)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

CLI=${CLI:-bin/conformance}
parallel=${BENCH_PARALLEL:-auto}
cluster=${BENCH_CLUSTER:-bench-quick}
budget=${BENCH_BUDGET:-15}
scenarios=${BENCH_SCENARIO:-$("$CLI" list | sed -n 's/^\([a-z0-9-]*\) (.*/\1/p' | paste -sd, -)}
[ -n "$scenarios" ] || { echo "bench-quick: no scenario (make list lists none)"; exit 2; }
mkdir -p reports/benchmarks
out=reports/benchmarks/$(date -u +%Y%m%d-%H%M%S)-quick.md
{
  echo "# Each scenario's quick tier"
  echo
  echo "$(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg); PARALLEL=$parallel; budget ${budget} min warm."
} >"$out"
summary=()
code=0
IFS=, read -ra list <<<"$scenarios"
for s in "${list[@]}"; do
  echo "== $s"
  before=$(readlink reports/latest || true)
  start=$(date +%s)
  make --no-print-directory e2e SCENARIO="$s" PARALLEL="$parallel" CLUSTER="$cluster" E2E_COMMAND="make bench-quick ($s)"
  rc=$?
  wall=$(( $(date +%s) - start ))
  [ "$rc" = 130 ] && { echo "bench-quick: interrupted"; exit 130; }
  now=$(readlink reports/latest || true)
  if [ "$now" = "$before" ]; then
    echo "bench-quick: $s wrote no report (exit $rc)"; code=1; continue
  fi
  verdict="within"
  [ "$wall" -le $((budget * 60)) ] || { verdict="OVER"; code=1; }
  [ "$rc" = 0 ] || code=1
  summary+=("| $s | $now | $((wall / 60))m$((wall % 60))s | $verdict the ${budget} min budget | exit $rc |")
  { echo; echo "## $s (run $now, exit $rc, ${wall}s by the clock)"; echo; echo '```'; "$CLI" report phases "reports/$now"; echo '```'; } >>"$out"
done
{
  echo
  echo "| scenario | run | wall (make e2e, build of the binaries included) | budget | exit |"
  echo "|---|---|---|---|---|"
  printf '%s\n' "${summary[@]}"
} >>"$out"
cat "$out"
echo "bench-quick: $out"
exit "$code"
