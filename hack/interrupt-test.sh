#!/usr/bin/env bash
# End-to-end test of an interrupt (make interrupt-test; part of make test).
# Starts real runs of the e2e test binary on a cluster of their own and sends
# them SIGINT, as a terminal's Ctrl-C does (to the run's process group):
#   1. at a build: an ArgoCD release no run builds to the end here
#      ($INTERRUPT_BUILD_TAG), interrupted once its build.sh is running;
#   2. at a cell: the smoke cell, interrupted once the cell has started;
#   3. a parallel run (-clusters 2, one registry for both clusters) at its
#      cells: each cluster's run must end its cell, write its report and
#      delete its cluster, the registry must go, and the merged report must
#      say so.
# Each time it asserts: exit status 130 within $INTERRUPT_EXIT_LIMIT seconds,
# no process of the run left (build.sh, go build, kubectl, kind, docker
# clients: any process of the run's session), no container of its cluster
# left, and a report that says "interrupted", with the interrupted cell ERROR
# and the rest not run. INTERRUPT_CASES picks cases (default: all three).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

E2E=${E2E:-bin/e2e.test}
CLUSTER=${INTERRUPT_CLUSTER:-interrupt-test}
BUILD_TAG=${INTERRUPT_BUILD_TAG:-v2.14.5}
SMOKE_TAG=${SMOKE_ARGOCD:?run it through make interrupt-test (the Makefile reads the catalog)}
SMOKE_KUBERNETES=${SMOKE_KUBERNETES:?run it through make interrupt-test (the Makefile reads the catalog)}
LIMIT=${INTERRUPT_EXIT_LIMIT:-60}
REPORTS=$(mktemp -d -t interrupt-test.XXXXXX)
FAILS=0 PASSES=0

log() { printf '%s interrupt-test: %s\n' "$(date +%H:%M:%S)" "$*"; }
fail() { log "FAIL: $*"; FAILS=$((FAILS + 1)); }
pass() { log "ok: $*"; PASSES=$((PASSES + 1)); }

# wait_for SECONDS DESCRIPTION COMMAND...: poll COMMAND every second, bounded.
wait_for() {
  local limit=$1 what=$2 i; shift 2
  for ((i = 0; i < limit; i++)); do "$@" && return 0; sleep 1; done
  log "gave up after ${limit}s waiting for: $what"
  return 1
}

# processes of the run: the run is started with setsid, so every process it
# started (in process groups of their own or not) keeps its session id
leftovers() { ps -eo pid=,sid=,args= | awk -v s="$1" '$2 == s { $2 = ""; print }'; }
containers() { docker ps -a --filter "name=^${CLUSTER}-" --format '{{.Names}}'; }

# interrupt NAME READY_DESCRIPTION READY_CHECK ARGS... (EXPECT_CELL_ERROR=1: the first cell
# ends ERROR "interrupted"; =setup: that, or no cell started when the signal came in the setup)
interrupt() {
  local name=$1 ready_what=$2 ready=$3 args rc start elapsed dir out=$REPORTS/$1.log
  shift 3
  args=("$@")
  log "$name: starting (${args[*]})"
  (cd suites && exec setsid ../"$E2E" -test.v -test.count=1 -test.timeout 60m -test.run TestMatrix \
    -cluster "$CLUSTER" -reports "$REPORTS/$name" -mode offline "${args[@]}") >"$out" 2>&1 &
  local pid=$!
  if ! wait_for 1500 "$ready_what" "$ready" "$out"; then
    fail "$name: never reached the point to interrupt; the run's last lines:"; tail -n 20 "$out"
    kill -KILL -- "-$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    return
  fi
  sleep 5
  log "$name: SIGINT to the run's process group ($ready_what)"
  start=$SECONDS
  kill -INT -- "-$pid"
  wait "$pid"; rc=$?
  elapsed=$((SECONDS - start))
  [ "$rc" -eq 130 ] && pass "$name: exit status 130" || { fail "$name: exit status $rc, want 130"; tail -n 30 "$out"; }
  [ "$elapsed" -le "${CASE_LIMIT:-$LIMIT}" ] && pass "$name: exited ${elapsed}s after the signal" || fail "$name: exited ${elapsed}s after the signal (limit ${CASE_LIMIT:-$LIMIT}s)"
  sleep 2
  local left; left=$(leftovers "$pid")
  [ -z "$left" ] && pass "$name: no process of the run left" || fail "$name: processes left: $left"
  left=$(containers)
  [ -z "$left" ] && pass "$name: no container of cluster $CLUSTER left" || fail "$name: containers left: $left"
  dir=$(ls -d "$REPORTS/$name"/2* 2>/dev/null | head -1)
  [ -z "$(docker ps -a --filter "name=^${CLUSTER}-" --format '{{.Names}}')" ] ||
    fail "$name: a registry or node container is left: $(docker ps -a --filter "name=^${CLUSTER}-" --format '{{.Names}}')"
  if [ -f "$dir/report.json" ]; then
    jq -e '.stopped | test("interrupted")' "$dir/report.json" >/dev/null &&
      pass "$name: report.json says why the run stopped: $(jq -r .stopped "$dir/report.json")" ||
      fail "$name: report.json does not say interrupted: $(jq -c '{stopped, not_run: [.not_run[]?.variant]}' "$dir/report.json")"
    jq -e '(.not_run | length) >= 1' "$dir/report.json" >/dev/null &&
      pass "$name: not run: $(jq -r '[.not_run[] | .variant + "@" + .argocd] | join(" ")' "$dir/report.json")" ||
      fail "$name: report.json lists no cell as not run"
    if [ "$EXPECT_CELL_ERROR" = setup ] && jq -e '(.cells | length) == 0' "$dir/report.json" >/dev/null; then
      # the build was the run's prebuild, beside the node image and the cluster: no cell had started
      pass "$name: interrupted in the setup's prebuild: no cell started, every planned cell not run"
    elif [ "$EXPECT_CELL_ERROR" = 1 ] || [ "$EXPECT_CELL_ERROR" = setup ]; then
      jq -e '.cells[0].outcome == "ERROR" and (.cells[0].reason | test("interrupted"))' "$dir/report.json" >/dev/null &&
        pass "$name: the interrupted cell is ERROR: $(jq -r '.cells[0].reason' "$dir/report.json" | cut -c1-160)" ||
        fail "$name: the interrupted cell: $(jq -c '.cells[0] | {outcome, reason}' "$dir/report.json")"
    fi
  else
    fail "$name: no report.json under $REPORTS/$name"
  fi
}

build_running() { pgrep -f "argocd/build.sh $BUILD_TAG" >/dev/null && grep -q "build argocd\|argocd $BUILD_TAG\|$BUILD_TAG" "$1"; }
cell_started() { grep -q "sync application kube-ovn-crd" "$1"; } # a step of the cell's feature, past its preparation

[ -x "$E2E" ] || { echo "interrupt-test: $E2E missing: run make $E2E" >&2; exit 2; }
docker info >/dev/null 2>&1 || { echo "interrupt-test: no Docker engine: run make smoke first (it installs and starts one)" >&2; exit 2; }
if [ -n "$(containers)" ]; then log "removing cluster $CLUSTER left by an earlier run"; make -s cluster-delete CLUSTER="$CLUSTER"; fi

CASES=${INTERRUPT_CASES:-at-build at-cell parallel}
case " $CASES " in *" at-build "*)
# the build runs in the setup (the prebuild beside the node image) or, when
# that was done, in the first cell's install: either way nothing is left
EXPECT_CELL_ERROR=setup interrupt at-build "the $BUILD_TAG build running" build_running \
  -scenario kubeovn-argocd -variant bug,ignore-differences -argocd "$BUILD_TAG" -kubernetes "$SMOKE_KUBERNETES";;
esac
case " $CASES " in *" at-cell "*)
EXPECT_CELL_ERROR=1 interrupt at-cell "the first cell's sync" cell_started \
  -scenario kubeovn-argocd -variant bug,ignore-differences -argocd "$SMOKE_TAG" -kubernetes "$SMOKE_KUBERNETES";;
esac
# two clusters taking the cells from the run's queue: each starts one, two
# are left not run. Four variants on the smoke's release, not a second
# release: on a new machine another ArgoCD release is another cold build
# (v2.13.3's took about 6 min with Go's build cache warm, on 2026-11-26).
both_started() { [ "$(grep -c '^\[[12]/2\] .*sync application kube-ovn-crd' "$1")" -ge 2 ]; }
case " $CASES " in *" parallel "*)
CASE_LIMIT=$((LIMIT * 2)) EXPECT_CELL_ERROR=1 interrupt parallel "both clusters' first sync" both_started \
  -scenario kubeovn-argocd -variant bug,ignore-differences,argocd-cm,server-side-diff -argocd "$SMOKE_TAG" -kubernetes "$SMOKE_KUBERNETES" -clusters 2 -deliver registry;;
esac

if [ "$FAILS" -eq 0 ]; then
  rm -rf "$REPORTS" # nothing to look at: every check passed
else
  log "reports and logs kept for a look: $REPORTS"
fi
echo "interrupt-test: $PASSES passed, $FAILS failed"
[ "$FAILS" -eq 0 ]
