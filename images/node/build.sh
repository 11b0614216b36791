#!/usr/bin/env bash
# Builds a kind node image from source, with no registry: Kubernetes, etcd,
# CoreDNS and pause from the Go module proxy, a Debian rootfs from debootstrap,
# and kind's own base files from the kind module.
#
# usage: build.sh IMAGE
# env:   KUBE_VERSION ETCD_VERSION COREDNS_VERSION KIND_VERSION CACHE_DIR
#        NOSYSRESOURCE=true installs runc-nosysresource as containerd's runc
#        CACHE_KEY labels the image (gitops-conformance.cache-key)
set -euo pipefail
image=${1:?usage: build.sh IMAGE}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
: "${KUBE_VERSION:?}" "${ETCD_VERSION:?}" "${COREDNS_VERSION:?}" "${KIND_VERSION:?}" "${CACHE_DIR:?}"
nosysresource=${NOSYSRESOURCE:-false}
export GOFLAGS=-mod=mod GOSUMDB=off GOTOOLCHAIN=local CGO_ENABLED=0

start=$SECONDS
step() { echo "[node-image +$((SECONDS - start))s] $*"; }
# docker build, quiet unless it fails (the legacy builder's deprecation notice is noise here)
dbuild() {
  local log
  if ! log=$(docker build -q "$@" 2>&1); then
    echo "$log" >&2
    echo "failed: docker build $*" >&2
    return 1
  fi
}

work=$(mktemp -d "$CACHE_DIR/tmp/node.XXXXXX")
builder=""
cleanup() {
  [ -n "$builder" ] && docker rm -f -v "$builder" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# binaries: each set is built once per version; Go's build cache does the rest.
bin=$CACHE_DIR/bin
kube=$bin/kubernetes-$KUBE_VERSION
if [ ! -x "$kube/kube-proxy" ]; then
  step "build Kubernetes $KUBE_VERSION (about 9 min cold on 2 cores)"
  KUBE_VERSION=$KUBE_VERSION "$repo/images/build/kubernetes/build.sh" "$kube.partial"
  rm -rf "$kube" && mv "$kube.partial" "$kube"
fi
if [ ! -x "$bin/etcd-$ETCD_VERSION" ]; then
  step "build etcd $ETCD_VERSION"
  (cd "$repo/images/build/etcd" && go build -trimpath -ldflags "-s -w" -o "$bin/etcd-$ETCD_VERSION.partial" go.etcd.io/etcd/server/v3)
  mv "$bin/etcd-$ETCD_VERSION.partial" "$bin/etcd-$ETCD_VERSION"
fi
if [ ! -x "$bin/coredns-$COREDNS_VERSION" ]; then
  step "build coredns $COREDNS_VERSION"
  (cd "$repo/images/build/coredns" && go build -trimpath -ldflags "-s -w" -o "$bin/coredns-$COREDNS_VERSION.partial" github.com/coredns/coredns)
  mv "$bin/coredns-$COREDNS_VERSION.partial" "$bin/coredns-$COREDNS_VERSION"
fi
step "build pause and runc-nosysresource"
(cd "$repo" && go build -trimpath -ldflags "-s -w" -o "$work/pause" ./cmd/pause &&
  go build -trimpath -ldflags "-s -w" -o "$work/runc-nosysresource" ./cmd/runc-nosysresource)

# the images kubeadm will ask for, under the names it uses
mapfile -t wanted < <("$kube/kubeadm" config images list --kubernetes-version "$KUBE_VERSION" 2>/dev/null)
want() { printf '%s\n' "${wanted[@]}" | grep -E "/$1:" ; }
etcd_image=$(want etcd)
coredns_image=$(want coredns)
pause_image=$(want pause)
case "$etcd_image" in *":${ETCD_VERSION#v}"*) ;; *) echo "kubeadm $KUBE_VERSION wants $etcd_image, the catalog builds etcd $ETCD_VERSION" >&2; exit 1 ;; esac
case "$coredns_image" in *":$COREDNS_VERSION") ;; *) echo "kubeadm $KUBE_VERSION wants $coredns_image, the catalog builds coredns $COREDNS_VERSION" >&2; exit 1 ;; esac

rootfs=gitops-conformance/node-rootfs:$(sha256sum "$here/packages.txt" | cut -c1-12)
if ! docker image inspect "$rootfs" >/dev/null 2>&1; then
  step "debootstrap node rootfs $rootfs (about 1 min)"
  "$repo/images/rootfs.sh" "$rootfs" "$(paste -sd, "$here/packages.txt")"
fi

# one small image per binary, FROM scratch (kube-proxy needs iptables: the rootfs)
component() { # name image base binary...
  local name=$1 ref=$2 base=$3; shift 3
  local ctx=$work/img-$name
  mkdir -p "$ctx"
  cp "$@" "$ctx/"
  {
    echo "FROM $base"
    for f in "$@"; do echo "COPY $(basename "$f") /usr/local/bin/"; done
    echo 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
  } >"$ctx/Dockerfile"
  [ "$name" = coredns ] && echo 'ENTRYPOINT ["/usr/local/bin/coredns"]' >>"$ctx/Dockerfile"
  [ "$name" = pause ] && echo 'ENTRYPOINT ["/usr/local/bin/pause"]' >>"$ctx/Dockerfile"
  dbuild -t "$ref" "$ctx"
  echo "$ref" >>"$work/images.txt"
}
step "component images"
for c in kube-apiserver kube-controller-manager kube-scheduler; do
  component "$c" "$(want "$c")" scratch "$kube/$c"
done
component kube-proxy "$(want kube-proxy)" "$rootfs" "$kube/kube-proxy"
cp "$bin/etcd-$ETCD_VERSION" "$work/etcd" && component etcd "$etcd_image" scratch "$work/etcd"
cp "$bin/coredns-$COREDNS_VERSION" "$work/coredns" && component coredns "$coredns_image" scratch "$work/coredns"
component pause "$pause_image" scratch "$work/pause"

step "node base image"
kind_dir=$(go mod download -json "sigs.k8s.io/kind@$KIND_VERSION" | sed -n 's/^\s*"Dir": "\(.*\)",$/\1/p')
ctx=$work/node
mkdir -p "$ctx"
cp -r "$kind_dir/images/base/files" "$ctx/files"
chmod -R u+w "$ctx/files"
cp "$kube/kubeadm" "$kube/kubelet" "$kube/kubectl" "$work/runc-nosysresource" "$ctx/"
cp "$here/containerd-patch.sh" "$here/10-kind.conflist" "$here/crictl" "$ctx/"
sed -e "s|@ROOTFS@|$rootfs|" -e "s|@NOSYSRESOURCE@|$nosysresource|" -e "s|@PAUSE_IMAGE@|$pause_image|" \
  -e "s|@KUBE_VERSION@|$KUBE_VERSION|" "$here/Dockerfile" >"$ctx/Dockerfile"
dbuild -t "$image-base" "$ctx"

step "preload $(wc -l <"$work/images.txt") images into the node's containerd"
builder=gitops-conformance-build-$$
docker run -d --name "$builder" --entrypoint=sleep --security-opt seccomp=unconfined "$image-base" infinity >/dev/null
docker exec "$builder" bash -c 'nohup containerd >/tmp/containerd.log 2>&1 &'
for i in $(seq 1 30); do docker exec "$builder" ctr version >/dev/null 2>&1 && break; sleep 1; done
while read -r ref; do
  docker save "$ref" | docker exec -i "$builder" ctr --namespace=k8s.io images import \
    --label=io.cri-containerd.pinned=pinned --all-platforms --no-unpack --digests - >/dev/null
done <"$work/images.txt"
docker exec "$builder" ctr --namespace=k8s.io images list -q | grep -v -e '^sha256:' -e '^import-' | sed 's/^/  /'
docker exec "$builder" pkill containerd || true
sleep 1
docker commit \
  --change 'ENTRYPOINT [ "/usr/local/bin/entrypoint", "/sbin/init" ]' \
  --change "LABEL gitops-conformance.cache-key=${CACHE_KEY:-none}" \
  "$builder" "$image" >/dev/null
docker rmi "$image-base" >/dev/null 2>&1 || true
step "done $image"
