#!/usr/bin/env bash
# make bench: the matrix run twice in one benchmark, side by side, warm caches:
#   - sequential: one cluster, one cell after another, images by kind load
#     (PARALLEL=1 DELIVER=load: how the matrix ran before -clusters);
#   - the default: make matrix's PARALLEL (MATRIX_PARALLEL) and DELIVER.
# Then both reports compared cell by cell (bin/conformance report compare):
# wall times and their ratio, per-scenario times, every cell's outcome; the
# benchmark fails when an outcome differs (running faster must not change a
# verdict). Printed, and written to reports/benchmarks/<date>-matrix.md.
#
# The full default matrix takes hours sequentially on a 2-core machine;
# BENCH_SCENARIO, BENCH_VARIANT and BENCH_ARGOCD narrow both runs alike.
#
#   env: BENCH_PARALLEL (default MATRIX_PARALLEL), BENCH_DELIVER (default
#        DELIVER), BENCH_CLUSTER (cluster name prefix, default bench)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

E2E=$(realpath "${E2E:-bin/e2e.test}")
CLI=${CLI:-bin/conformance}
parallel=${BENCH_PARALLEL:-3}
deliver=${BENCH_DELIVER:-load}
prefix=${BENCH_CLUSTER:-bench}
selection=(-scenario "${BENCH_SCENARIO:-}" -variant "${BENCH_VARIANT:-}" -argocd "${BENCH_ARGOCD:-}")
what="the default matrix"
[ -n "${BENCH_SCENARIO:-}${BENCH_VARIANT:-}${BENCH_ARGOCD:-}" ] &&
  what="SCENARIO=${BENCH_SCENARIO:-} VARIANT=${BENCH_VARIANT:-} ARGOCD=${BENCH_ARGOCD:-}"

"$CLI" check "${selection[@]}" || exit 2
mkdir -p reports/benchmarks
out=reports/benchmarks/$(date -u +%Y%m%d-%H%M%S)-matrix.md

# run NAME ARGS...: one run of the selection; sets dir (its report) and wall (s)
run() {
  local name=$1 start before; shift
  echo "== $name: $what ($*)"
  before=$(readlink reports/latest || true)
  start=$(date +%s)
  (cd suites && "$E2E" -test.run TestMatrix -test.count=1 -test.timeout 600m "${selection[@]}" "$@" \
    -command "make bench ($name)")
  local code=$?
  wall=$(( $(date +%s) - start ))
  [ "$code" = 130 ] && { echo "bench: interrupted"; exit 130; }
  if [ "$(readlink reports/latest || true)" = "$before" ]; then
    echo "bench: the $name run wrote no report (exit $code)"; exit 1
  fi
  dir=reports/$(readlink reports/latest)
  echo "== $name: exit $code in ${wall}s, report $dir"
}

run sequential -clusters 1 -deliver load -cluster "$prefix-seq"
seq_dir=$dir seq_wall=$wall
run "PARALLEL=$parallel" -clusters "$parallel" -deliver "$deliver" -cluster "$prefix-par"
par_dir=$dir par_wall=$wall

{
  echo "# The matrix: one cluster vs $parallel at once"
  echo
  echo "$(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo); $what."
  echo "Process wall time (cluster creation, every cell, cluster deletion; the binaries were built before):"
  echo "sequential ${seq_wall} s (PARALLEL=1 DELIVER=load), PARALLEL=$parallel DELIVER=$deliver ${par_wall} s:" \
    "ratio $(awk -v a="$par_wall" -v b="$seq_wall" 'BEGIN{printf "%.2f (%.1fx as fast)", a/b, b/a}')."
  echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo
  "$CLI" report compare -names "PARALLEL=1,PARALLEL=$parallel" "$seq_dir" "$par_dir"
  echo "compare-exit: $?"
} > "$out.tmp"
same=$(sed -n 's/^compare-exit: //p' "$out.tmp")
grep -v '^compare-exit: ' "$out.tmp" > "$out" && rm -f "$out.tmp"
cat "$out"
echo "written to $out"
[ "$same" = 0 ] || { echo "bench: the two runs' outcomes differ (see above)"; exit 1; }
