#!/usr/bin/env bash
# Benchmarks, printed and written to reports/benchmarks/<date>.md:
#  - node image: cache hit, and assembly with compiled binaries cached
#  - cluster create from the cached node image, to node Ready
#  - ArgoCD image per tag: cache hit; install to all workloads rolled out
#  - cluster reuse: the same cells with a fresh cluster per cell vs one reused cluster
# Cold build figures (compiling Kubernetes, ArgoCD) are printed by the builds
# themselves on a cold cache; BENCH_COLD=1 removes the cached binaries first.
set -euo pipefail
cd "$(dirname "$0")/.."
# the catalog's values, as the Makefile exports them (bin/conformance catalog defaults)
SMOKE_KUBERNETES=${SMOKE_KUBERNETES:?run it through make bench-infra (the Makefile reads the catalog)}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/gitops-conformance
kind=$cache/bin/kind-${CATALOG_KIND:?run it through make bench-infra}
# the default Kubernetes version's kubectl (kubernetes.default)
kubectl=$cache/bin/kubernetes-${CATALOG_KUBERNETES:?run it through make bench-infra}/kubectl
tags=${BENCH_ARGOCD:-${SMOKE_ARGOCD:?run it through make bench-infra}}
out=reports/benchmarks/$(date -u +%Y%m%d-%H%M%S).md
mkdir -p reports/benchmarks
results=()
now() { date +%s.%N; }
record() { printf '%-58s %8.1f s\n' "$1" "$2"; results+=("| $1 | $(printf '%.1f' "$2") s |"); }
cleanup() { "$kind" delete cluster --name bench >/dev/null 2>&1 || true; }
trap cleanup EXIT

# Let the suite prepare the host and the node image once (a smoke-sized run).
node_image() { docker images --format '{{.Repository}}:{{.Tag}}' gitops-conformance/node | head -1; }
if [ -z "$(node_image)" ]; then
  echo "no node image yet: run make test (or make e2e) once first"; exit 1
fi
image=$(node_image)
capbnd=$(awk '/^CapBnd:/{print $2}' /proc/self/status)
nosysresource=$(( (16#$capbnd >> 24) & 1 )) && nosysresource=$([ "$nosysresource" = 1 ] && echo false || echo true)
[ "${BENCH_COLD:-0}" = 1 ] && rm -rf "$cache"/bin/kubernetes-* "$cache"/bin/etcd-* "$cache"/bin/coredns-*

t=$(now); env KUBE_VERSION=v1.33.13 ETCD_VERSION=v3.5.24 COREDNS_VERSION=v1.12.0 KIND_VERSION=v0.27.0 CACHE_DIR="$cache" \
  NOSYSRESOURCE=$nosysresource CACHE_KEY=bench \
  ./images/node/build.sh gitops-conformance/node:bench >/dev/null
record "node image assembly (binaries cached)" "$(echo "$(now) - $t" | bc)"
docker rmi gitops-conformance/node:bench >/dev/null

cleanup
t=$(now)
"$kind" create cluster --name bench --image "$image" --config kind-config.yaml >/dev/null 2>&1
"$kubectl" --context kind-bench wait --for=condition=Ready node --all --timeout=180s >/dev/null
record "cluster create, warm node image, to node Ready" "$(echo "$(now) - $t" | bc)"

for tag in ${tags//,/ }; do
  t=$(now); CACHE_DIR=$cache ./images/argocd/build.sh "$tag" >/dev/null
  record "argocd $tag images (cache hit or build)" "$(echo "$(now) - $t" | bc)"
  manifest=$(mktemp); CACHE_DIR=$cache ./images/argocd/install-yaml.sh "$tag" "$manifest" >/dev/null
  t=$(now)
  for img in $(CACHE_DIR=$cache ./images/argocd/build.sh "$tag" | sed -n '/^IMAGES:$/,$p' | tail -n +2); do
    "$kind" load docker-image --name bench "$img" >/dev/null
  done
  record "argocd $tag kind load" "$(echo "$(now) - $t" | bc)"
  t=$(now)
  "$kubectl" --context kind-bench create namespace argocd >/dev/null 2>&1 || true
  "$kubectl" --context kind-bench apply --server-side --force-conflicts -n argocd -f "$manifest" >/dev/null
  for w in $("$kubectl" --context kind-bench -n argocd get deploy,statefulset -o name); do
    "$kubectl" --context kind-bench -n argocd rollout status "$w" --timeout=5m >/dev/null
  done
  record "argocd $tag install to rolled out" "$(echo "$(now) - $t" | bc)"
  "$kubectl" --context kind-bench delete -n argocd -f "$manifest" --wait >/dev/null 2>&1 || true
  rm -f "$manifest"
done
cleanup

# Cluster reuse: the same cells both ways.
cells=${BENCH_CELLS:-bug,ignore-differences}
make -s bin/e2e.test
run() { (cd suites && ../bin/e2e.test -test.count=1 -test.timeout 60m -test.run TestMatrix -scenario kubeovn-argocd -argocd "${tags%%,*}" -kubernetes "$SMOKE_KUBERNETES" "$@" >/dev/null 2>&1); }
t=$(now)
for v in ${cells//,/ }; do run -variant "$v" -cluster bench -reports /tmp/bench-reports; done
fresh=$(echo "$(now) - $t" | bc)
record "kubeovn-argocd $cells: fresh cluster per cell" "$fresh"
t=$(now); run -variant "$cells" -cluster bench -reports /tmp/bench-reports
reused=$(echo "$(now) - $t" | bc)
record "kubeovn-argocd $cells: one reused cluster" "$reused"
ratio=$(echo "scale=2; $fresh / $reused" | bc)
echo "reuse ratio (fresh / reused): $ratio"
{
  echo "# Benchmarks $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores"
  echo; echo "| what | time |"; echo "|---|---|"
  printf '%s\n' "${results[@]}"
  echo "| reuse ratio (fresh / reused) | $ratio |"
} >"$out"
echo "written to $out"
