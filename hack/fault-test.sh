#!/usr/bin/env bash
# End-to-end check that a verdict never rests on a read that failed (make
# fault-test). Runs the kubeovn-argocd bug cell on a cluster of its own and,
# once the verdict's hold has begun (its step "application kube-ovn-crd
# OutOfSync after a refresh"), takes the API server away for $FAULT_PAUSE
# seconds: FAULT=kill (default) kills kube-apiserver in the node again and again (reads fail at once: connection refused, as the
# kubelet restarts it), FAULT=pause freezes the node container (reads hang).
# The cell must end REPRODUCED (the hold waited the outage out) or ERROR (a
# read could not tell), never NOT_REPRODUCED: a failed read is not "OutOfSync
# no longer holds". Prints what the report says either way.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

E2E=${E2E:-bin/e2e.test}
CLUSTER=${FAULT_CLUSTER:-fault-test}
TAG=${SMOKE_ARGOCD:?run it through make fault-test (the Makefile reads the catalog)}
SMOKE_KUBERNETES=${SMOKE_KUBERNETES:?run it through make fault-test (the Makefile reads the catalog)}
PAUSE=${FAULT_PAUSE:-20}
FAULT=${FAULT:-kill}
REPORTS=$(mktemp -d -t fault-test.XXXXXX)
log() { printf '%s fault-test: %s\n' "$(date +%H:%M:%S)" "$*"; }

[ -x "$E2E" ] || { echo "fault-test: $E2E missing: run make $E2E" >&2; exit 2; }
docker info >/dev/null 2>&1 || { echo "fault-test: no Docker engine: run make smoke first (it installs and starts one)" >&2; exit 2; }
out=$REPORTS/run.log
(cd suites && exec "../$E2E" -test.v -test.count=1 -test.timeout 30m -test.run TestMatrix -cluster "$CLUSTER" \
  -reports "$REPORTS" -mode offline -scenario kubeovn-argocd -variant bug -argocd "$TAG" -kubernetes "$SMOKE_KUBERNETES") >"$out" 2>&1 &
pid=$!
node=$CLUSTER-control-plane
paused=0
for ((i = 0; i < 1200; i++)); do
  if grep -q "OutOfSync_after_a_refresh" "$out"; then # the verdict step (its subtest), by its own name
    sleep 3
    if [ "$FAULT" = pause ]; then
      log "the verdict's hold has begun: docker pause $node for ${PAUSE}s"
      docker pause "$node" >/dev/null && paused=1
      sleep "$PAUSE"
      docker unpause "$node" >/dev/null
      log "docker unpause $node"
    else
      log "the verdict's hold has begun: killing kube-apiserver in $node for ${PAUSE}s"
      for ((j = 0; j < PAUSE; j++)); do
        docker exec "$node" pkill -x kube-apiserver && paused=1
        sleep 1
      done
      log "kube-apiserver left to the kubelet to restart"
    fi
    break
  fi
  kill -0 "$pid" 2>/dev/null || break
  sleep 1
done
wait "$pid"; rc=$?
dir=$(ls -d "$REPORTS"/2* 2>/dev/null | head -1)
outcome=$(jq -r '.cells[0].outcome // "none"' "$dir/report.json" 2>/dev/null)
reason=$(jq -r '.cells[0].reason // ""' "$dir/report.json" 2>/dev/null)
log "exit $rc; the cell: $outcome: $reason"
log "report: $dir (removed when the check passes)"
if [ "$paused" = 1 ] && { [ "$outcome" = REPRODUCED ] || [ "$outcome" = ERROR ]; }; then
  rm -rf "$REPORTS" # the verdict is quoted above; nothing else to look at
  echo "fault-test: 1 passed, 0 failed"
  exit 0
fi
log "report and run log kept for a look: $REPORTS"
[ "$paused" = 1 ] || { log "the hold never began: the last lines:"; tail -n 20 "$out"; }
echo "fault-test: 0 passed, 1 failed"
exit 1
