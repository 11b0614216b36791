#!/usr/bin/env bash
# make conform-validate: each validation of suites/conform.yaml (a chart a
# scenario measured, installed as it installed it) is one make conform run,
# with the validation's known answers as the cells' expectations, one after
# the other on one kind cluster (kept between runs, deleted at the end unless
# KEEP=1). Then bin/conformance conform table writes docs/conform-validation.md
# (known answer against outcome, per check) and exits 1 when one differs.
#
#   usage: hack/conform-validate.sh [e2e test binary flags: -mode, -registry-mirror ...]
#   env:   CONFORMANCE, E2E (the binaries), CLUSTER, KEEP=1, ONLY=name,name
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

CONFORMANCE=${CONFORMANCE:-bin/conformance}
E2E=${E2E:-bin/e2e.test}
CLUSTER=${CLUSTER:-gitops-conformance}
TABLE=${TABLE:-docs/conform-validation.md}
FLAGS=("$@")
log() { printf '%s conform-validate: %s\n' "$(date +%H:%M:%S)" "$*"; }

runs=$("$CONFORMANCE" conform runs ${ONLY:+-only "$ONLY"}) || exit $?
mapfile -t lines <<<"$runs"
[ -n "$runs" ] || { log "no validation selected"; exit 2; }
n=${#lines[@]}
results=()
status=0
start=$SECONDS
for i in "${!lines[@]}"; do
  name=${lines[$i]%%$'\t'*}
  flags=${lines[$i]#*$'\t'}
  keep=-keep
  if [ $((i + 1)) -eq "$n" ] && [ "${KEEP:-0}" != 1 ]; then keep=; fi
  before=$(readlink reports/latest 2>/dev/null)
  log "$((i + 1))/$n $name"
  t=$SECONDS
  # the flags are conform runs' own output, each word quoted for bash
  eval "set -- $flags"
  (cd suites && "../$E2E" -test.v -test.count=1 -test.timeout 90m -test.run TestConform "$@" "${FLAGS[@]}" \
    -cluster "$CLUSTER" $keep -command "make conform-validate ONLY=$name")
  rc=$?
  after=$(readlink reports/latest 2>/dev/null)
  case $rc in
    0 | 1) ;; # 1: an outcome not as known; the table says which
    130) log "interrupted"; exit 130 ;;
    *) status=$rc ;;
  esac
  if [ -n "$after" ] && [ "$after" != "$before" ]; then
    results+=("$name=reports/$after")
    log "$name: run $after, exit $rc, $((SECONDS - t)) s"
  else
    log "$name: no report (exit $rc)"
  fi
done
log "$n run(s) in $((SECONDS - start)) s"
"$CONFORMANCE" conform table -o "$TABLE" "${results[@]}" || status=1
log "table: $TABLE"
exit "$status"
