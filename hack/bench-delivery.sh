#!/usr/bin/env bash
# make bench-delivery: how offline builds reach a node, per ArgoCD release per
# cluster, measured side by side in one run:
#   - kind load: `kind load docker-image` of the release's images (docker save,
#     then an import of whole images into the node), into a new cluster, one
#     release after another;
#   - the suite's registry (DELIVER=registry): a push of the same images into an
#     empty registry (once per release; every cluster then pulls), then a pull
#     by the node's containerd through hosts.toml (`ctr images pull --hosts-dir
#     /etc/containerd/certs.d`, pulled and unpacked as the CRI does; the node
#     image has no real crictl: cri-tools is not obtainable offline), into a new
#     cluster, one release after another. Layers the releases share are pushed
#     and pulled once.
# Printed, and written to reports/benchmarks/<date>-delivery.md.
#
#   env: BENCH_ARGOCD   releases, comma-separated (default: the default axis;
#                       images/argocd/build.sh builds the ones not cached)
#        BENCH_CLUSTER  cluster name prefix (default bench-delivery)
set -euo pipefail
cd "$(dirname "$0")/.." || exit 2

CLI=${CLI:-bin/conformance}
cache=${GITOPS_CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gitops-conformance}
export CACHE_DIR=$cache
kind=$(find "$cache/bin" -maxdepth 1 -name 'kind-*' -type f | head -1)
default_axis=${CATALOG_ARGOCD:?run it through make bench-delivery (the Makefile reads the catalog)}
tags=${BENCH_ARGOCD:-$default_axis}
prefix=${BENCH_CLUSTER:-bench-delivery}
load_cluster=$prefix-load pull_cluster=$prefix-pull reg=$prefix-registry
node_image=$(docker images --format '{{.Repository}}:{{.Tag}}' gitops-conformance/node | grep -v -- '-base$' | head -1)
if [ -z "$kind" ] || [ -z "$node_image" ]; then echo "bench-delivery: no kind binary or node image in the cache yet: run make test (or make smoke) once first"; exit 2; fi
out=reports/benchmarks/$(date -u +%Y%m%d-%H%M%S)-delivery.md
mkdir -p reports/benchmarks

now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }
# full name of an image, as containerd pulls it (redis:7 -> docker.io/library/redis:7)
full() {
  local first=${1%%/*}
  if [[ $1 != */* ]]; then echo "docker.io/library/$1"
  elif [[ $first != *.* && $first != *:* && $first != localhost ]]; then echo "docker.io/$1"
  else echo "$1"; fi
}
log() { printf '%s bench-delivery: %s\n' "$(date +%H:%M:%S)" "$*"; }
cleanup() {
  "$kind" delete cluster --name "$load_cluster" >/dev/null 2>&1 || true
  "$kind" delete cluster --name "$pull_cluster" >/dev/null 2>&1 || true
  "$CLI" registry stop -name "$reg" >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

declare -A imgs load push pull
for tag in ${tags//,/ }; do
  log "argocd $tag images (images/argocd/build.sh: cached or built)"
  imgs[$tag]=$(images/argocd/build.sh "$tag" 2>/dev/null | sed -n '/^IMAGES:$/,$p' | sed 1d | tr '\n' ' ')
  [ -n "${imgs[$tag]}" ] || { echo "bench-delivery: images/argocd/build.sh $tag named no images"; exit 1; }
done

config=$(mktemp -t bench-delivery-kind.XXXXXX)
{ cat kind-config.yaml; printf 'containerdConfigPatches:\n  - |-\n'; "$CLI" registry containerd-patch | sed 's/^/    /'; } >"$config"

# kind load, into a new cluster
cleanup
log "cluster $load_cluster (kind load)"
"$kind" create cluster --name "$load_cluster" --image "$node_image" --config kind-config.yaml >/dev/null 2>&1
for tag in ${tags//,/ }; do
  t=$(now)
  # shellcheck disable=SC2086 # the image list
  "$kind" load docker-image ${imgs[$tag]} --name "$load_cluster" >/dev/null 2>&1
  load[$tag]=$(since "$t"); log "argocd $tag: kind load ${load[$tag]} s"
done
"$kind" delete cluster --name "$load_cluster" >/dev/null 2>&1

# the registry: an empty one, a push per release, then a new cluster pulling
rm -rf "$cache/registry/$reg"
mirror=$("$CLI" registry start -name "$reg" | sed -n 's/^REGISTRY_MIRROR=//p')
for tag in ${tags//,/ }; do
  t=$(now)
  # shellcheck disable=SC2086 # the image list
  "$CLI" registry push -name "$reg" ${imgs[$tag]} >/dev/null
  push[$tag]=$(since "$t"); log "argocd $tag: push ${push[$tag]} s"
done
log "cluster $pull_cluster (pulls through $mirror)"
"$kind" create cluster --name "$pull_cluster" --image "$node_image" --config "$config" >/dev/null 2>&1
"$CLI" registry nodes -name "$reg" "$pull_cluster-control-plane"
for tag in ${tags//,/ }; do
  t=$(now)
  for img in ${imgs[$tag]}; do
    docker exec "$pull_cluster-control-plane" ctr -n k8s.io images pull --hosts-dir /etc/containerd/certs.d "$(full "$img")" >/dev/null
  done
  pull[$tag]=$(since "$t"); log "argocd $tag: pull ${pull[$tag]} s"
done
t=$(now)
first=${tags%%,*}
# shellcheck disable=SC2086 # the image list
"$CLI" registry push -name "$reg" ${imgs[$first]} >/dev/null
repush=$(since "$t")
served=$(docker logs "$reg" 2>&1 | grep -cE '^[0-9a-f.:]+ - .*"GET /v2/.*/blobs/.*"containerd/' || true)
stored=$(du -sm "$cache/registry/$reg" | cut -f1)
rm -rf "$cache/registry/$reg"

{
  echo "# Delivery of ArgoCD images to a node: kind load vs the suite's registry"
  echo
  echo "$(date -u +%FT%TZ), $(nproc) cores, node image $node_image; releases in this order: ${tags//,/, }."
  echo "Each release's images: argocd and redis (images/argocd/build.sh). Seconds, wall clock, one run."
  echo
  echo "| release | kind load (per cluster) | registry push (once) | registry pull (per cluster) |"
  echo "|---|---|---|---|"
  tl=0 tp=0 tq=0
  for tag in ${tags//,/ }; do
    printf '| %s | %.1f | %.1f | %.1f |\n' "$tag" "${load[$tag]}" "${push[$tag]}" "${pull[$tag]}"
    tl=$(echo "$tl + ${load[$tag]}" | bc); tp=$(echo "$tp + ${push[$tag]}" | bc); tq=$(echo "$tq + ${pull[$tag]}" | bc)
  done
  printf '| all | %.1f | %.1f | %.1f |\n' "$tl" "$tp" "$tq"
  echo
  for n in 1 2 4; do
    printf -- '- %d cluster(s): kind load %.0f s, registry %.0f s (push once + %d pulls)\n' "$n" "$(echo "$tl * $n" | bc)" "$(echo "$tp + $tq * $n" | bc)" "$n"
  done
  printf -- '- pushing %s again into the registry that holds it: %.1f s\n' "$first" "$repush"
  echo "- the registry stored ${stored} MB for all releases; it served $served blob GETs to containerd"
} | tee "$out"
log "written to $out"
