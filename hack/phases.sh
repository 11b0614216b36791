#!/usr/bin/env bash
# usage: hack/phases.sh TARGET...
# Runs `make TARGET` for each TARGET in order (make test's steps, .ci/run's
# make verify) and prints each one's wall time and the CPU-seconds the whole
# machine spent meanwhile: user+system of every process from /proc/stat, since
# Docker builds and kind nodes run under the engine, not under make. Stops at
# the first failure, as make does. With PHASES_LOG set, each phase is also a
# line "phase NAME STATUS WALL_S CPU_S" in that file (hack/ci-cold.sh's table).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
hz=$(getconf CLK_TCK)
# busy: the machine's CPU ticks spent in user, nice, system, irq, softirq, steal
busy() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }
rows=()
status=0
for target in "$@"; do
  t0=$SECONDS c0=$(busy)
  echo "=== phase $target"
  ${MAKE:-make} --no-print-directory "$target"
  status=$?
  wall=$((SECONDS - t0)) cpu=$(( ($(busy) - c0) / hz ))
  word=ok; [ "$status" -eq 0 ] || word="failed ($status)"
  echo "=== phase $target: $word, wall ${wall}s, machine CPU ${cpu}s"
  rows+=("$(printf '%-20s %-12s %6ss %6ss' "$target" "$word" "$wall" "$cpu")")
  [ -z "${PHASES_LOG:-}" ] || echo "phase $target ${word%% *} $wall $cpu" >>"$PHASES_LOG"
  [ "$status" -eq 0 ] || break
done
if [ "$#" -gt 1 ]; then
  printf '%-20s %-12s %7s %7s\n' phase status wall "CPU(all)"
  printf '%s\n' "${rows[@]}"
fi
exit "$status"
