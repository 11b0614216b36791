#!/usr/bin/env bash
# make mirror-check: the online pull path, run here for real. With no
# registry reachable from this machine, the suite's own registry stands in for
# the user's mirror:
#   1. start the local registry (images/registry: distribution/distribution
#      built from the Go module proxy) on the kind network;
#   2. push the suite's offline builds of the smoke release's images
#      (images/argocd/build.sh: built first when not cached) under their
#      upstream paths;
#   3. run the smoke cell (kubeovn-argocd bug) with MODE=online
#      REGISTRY_MIRROR=<that registry> NODE_IMAGE=built, so containerd on the
#      node pulls quay.io/argoproj/argocd and docker.io/library/redis through
#      the mirror (nothing is `kind load`ed online);
#   4. check the report (the cell as expected, registry_mirror set) and the
#      pulls: containerd's PullImage lines and the registry's access log
#      (requests from containerd, ?ns=<upstream>), written to
#      <report>/mirror-pulls.txt with the timings.
# The registry is removed at the end, also after a failure or Ctrl-C
# (KEEP_REGISTRY=1 keeps it); its data stays in the cache directory, so the
# next push sends only what it lacks. The cluster goes with the run.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

CLI=${CLI:-bin/conformance}
E2E=${E2E:-bin/e2e.test}
CLUSTER=${MIRROR_CLUSTER:-mirror-check}
NAME=${REGISTRY_NAME:-gitops-conformance-mirror-check}
TAG=${SMOKE_ARGOCD:?run it through make mirror-check (the Makefile reads the catalog)}
SMOKE_KUBERNETES=${SMOKE_KUBERNETES:?run it through make mirror-check (the Makefile reads the catalog)}
CACHE_DIR=${GITOPS_CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gitops-conformance}
export CACHE_DIR

log() { printf '%s mirror-check: %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { log "FAIL: $*"; exit 1; }

stop_registry() {
  if [ "${KEEP_REGISTRY:-0}" = 1 ]; then
    log "registry $NAME kept (KEEP_REGISTRY=1); remove it with: $CLI registry stop -name $NAME"
  else
    "$CLI" registry stop -name "$NAME" >/dev/null 2>&1 || log "could not remove the registry: docker rm -f $NAME"
  fi
}
trap stop_registry EXIT
trap 'log "interrupted"; exit 130' INT TERM

T0=$SECONDS
out=$("$CLI" registry start -name "$NAME") || die "registry start: $out"
printf '%s\n' "$out" | grep -v '^REGISTRY_MIRROR=' | grep -v '^IMAGES:\|^gitops-conformance/registry:' || true
MIRROR=$(sed -n 's/^REGISTRY_MIRROR=//p' <<<"$out")
[ -n "$MIRROR" ] || die "registry start printed no REGISTRY_MIRROR"
T_START=$((SECONDS - T0))

T1=$SECONDS
log "the smoke release's images (argocd $TAG): built or found by images/argocd/build.sh"
built=$(images/argocd/build.sh "$TAG" 2>"$CACHE_DIR/logs/mirror-check-build.log") || {
  tail -20 "$CACHE_DIR/logs/mirror-check-build.log"; die "images/argocd/build.sh $TAG failed"; }
mapfile -t IMAGES < <(sed -n '/^IMAGES:$/,$p' <<<"$built" | sed 1d | sed '/^$/d')
[ "${#IMAGES[@]}" -gt 0 ] || die "images/argocd/build.sh $TAG named no images"
T_BUILD=$((SECONDS - T1))

T2=$SECONDS
"$CLI" registry push -name "$NAME" "${IMAGES[@]}" || die "push to the registry failed"
T_PUSH=$((SECONDS - T2))

T3=$SECONDS
log "the smoke cell, online through REGISTRY_MIRROR=$MIRROR (cluster $CLUSTER)"
(cd suites && "../$E2E" -test.count=1 -test.timeout 40m -test.run TestMatrix \
  -scenario kubeovn-argocd -variant bug -argocd "$TAG" -kubernetes "$SMOKE_KUBERNETES" -mode online \
  -registry-mirror "$MIRROR" -node-image built -cluster "$CLUSTER" -command "make mirror-check")
rc=$?
T_RUN=$((SECONDS - T3))
[ "$rc" -ne 130 ] || exit 130
REPORT=reports/$(readlink reports/latest)
[ "$rc" -eq 0 ] || die "the run exited $rc; see $REPORT/report.md"

# The evidence: what containerd pulled and from where, and what the registry served.
node_log=$(find "$REPORT/cluster-logs" -name containerd.log 2>/dev/null | head -1)
[ -n "$node_log" ] || die "no containerd.log under $REPORT/cluster-logs"
pulls=$REPORT/mirror-pulls.txt
{
  echo "# make mirror-check $(date -u +%FT%TZ): REGISTRY_MIRROR=$MIRROR, argocd $TAG"
  echo "# seconds: registry start $T_START, images (build or cache) $T_BUILD, push $T_PUSH, run (cluster, install, cell, delete) $T_RUN"
  echo "## containerd on the node ($node_log): PullImage and the host each pull resolved"
  grep -E 'msg="PullImage \\"[^"]*\\"( returns|")|msg=resolving host=' "$node_log" | sed -E 's/^.*time="([^"]*)".*msg=/\1 /'
  echo "## the registry's access log: requests from containerd"
  docker logs "$NAME" 2>&1 | grep -E '^[0-9a-f.:]+ - ' | grep -E '/manifests/.*"containerd/'
} >"$pulls"

for img in "${IMAGES[@]}"; do
  grep -qF "PullImage \\\"$img\\\" returns image reference" "$pulls" ||
    die "containerd did not pull $img (see $pulls)"
done
grep -qF "resolving host=\"$MIRROR\"" "$pulls" || die "containerd resolved no pull at $MIRROR (see $pulls)"
grep -qE "manifests/.*\\?ns=quay\\.io .*containerd/" "$pulls" || die "the registry served no quay.io pull to containerd (see $pulls)"
grep -q "\"registry_mirror\": \"$MIRROR\"" "$REPORT/report.json" || die "report.json does not name the mirror"

log "ok: $REPORT: $(grep -m1 '^| kubeovn-argocd' "$REPORT/report.md")"
log "ok: pulled through $MIRROR: ${IMAGES[*]} ($(grep -c 'returns image reference' "$pulls") PullImage calls, $(grep -c 'containerd/' "$pulls") registry requests; $pulls)"
log "seconds: registry start $T_START, images $T_BUILD, push $T_PUSH, run $T_RUN, total $((SECONDS - T0))"
