#!/usr/bin/env bash
# Builds a kind node image from source, with no registry: Kubernetes, etcd,
# CoreDNS and pause from the Go module proxy, a Debian rootfs from debootstrap,
# and kind's own base files from the kind module.
#
# Which Kubernetes versions build offline: those whose staging modules the
# proxy has, every one at the release's v0.Y.Z (staging-check.sh, run first,
# refuses the others with one line and exit 3, before anything is built).
# k8s.io/kubernetes's module zip leaves staging/ out, so a release builds only
# from the published staging modules, and never from a mix of patch versions.
# Checked here (2026-11-24): the staging modules of v1.30.4, v1.33.13, v1.34.4,
# v1.35.4 and v1.37.2 are complete (all but v1.34.4 built and run); v1.31.14
# lacks six. Each component's build module is generated from
# the release's own go.mod (images/build/module.sh) under CACHE_DIR/build, and
# its binaries are built once per version under CACHE_DIR/bin.
#
# usage: build.sh IMAGE
# env:   KUBE_VERSION ETCD_VERSION COREDNS_VERSION (what kubeadm of that release
#        asks for: checked against `kubeadm config images list`) KIND_VERSION CACHE_DIR
#        NOSYSRESOURCE=true installs runc-nosysresource as containerd's runc
#        CACHE_KEY labels the image (gitops-conformance.cache-key)
set -euo pipefail
image=${1:?usage: build.sh IMAGE}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
: "${KUBE_VERSION:?}" "${ETCD_VERSION:?}" "${COREDNS_VERSION:?}" "${KIND_VERSION:?}" "${CACHE_DIR:?}"
nosysresource=${NOSYSRESOURCE:-false}
# shellcheck source=../../hack/goenv.sh
. "$repo/hack/goenv.sh"
go_env local
export GOFLAGS=-mod=mod CGO_ENABLED=0

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

# refuse, in one line, a release whose staging modules the proxy lacks
"$here/staging-check.sh" "$KUBE_VERSION"

# binaries: each set is built once per version, from a build module generated
# from the release's go.mod under $CACHE_DIR/build; the stamp beside it names
# the module and the Go that built it, so a changed recipe builds it again.
bin=$CACHE_DIR/bin
mkdir -p "$bin" "$CACHE_DIR/build"
binaries() { # family version target
  local family=$1 version=$2 target=$3 mod=$CACHE_DIR/build/$1-$2 stamp lock
  exec {lock}>"$target.lock"
  flock "$lock" # another build of the same version waits, then finds it done
  "$repo/images/build/module.sh" "$family" "$version" "$mod"
  stamp=$(cat "$mod/go.mod" "$mod/main.txt" "$mod/toolchain" "$repo/images/build/kubernetes/build.sh" <(go env GOVERSION) |
    sha256sum | cut -c1-16)
  if [ -e "$target" ] && [ "$(cat "$target.stamp" 2>/dev/null)" = "$stamp" ]; then
    exec {lock}>&-
    return
  fi
  step "build $family $version ($(cat "$mod/toolchain") Go toolchain${4:+; $4})"
  rm -rf "$target.partial"
  if [ "$family" = kubernetes ]; then
    KUBE_VERSION=$version "$repo/images/build/kubernetes/build.sh" "$mod" "$target.partial"
  else
    (cd "$mod" && go_env "$(cat toolchain)" && export GOFLAGS="-mod=mod -buildvcs=false" GOWORK=off &&
      go build -trimpath -ldflags "-s -w" -o "$target.partial" "$(cat main.txt)")
  fi
  rm -rf "$target" && mv "$target.partial" "$target"
  echo "$stamp" >"$target.stamp"
  exec {lock}>&-
}
kube=$bin/kubernetes-$KUBE_VERSION
binaries kubernetes "$KUBE_VERSION" "$kube" "about 10 min cold on 2 cores"
binaries etcd "$ETCD_VERSION" "$bin/etcd-$ETCD_VERSION"
binaries coredns "$COREDNS_VERSION" "$bin/coredns-$COREDNS_VERSION"
step "build pause and runc-nosysresource"
# the suite's own code, with the suite's Go: go.mod's toolchain line (GOTOOLCHAIN=auto
# takes it from the module proxy, verified against the checksum database, as the Makefile does)
(cd "$repo" && go_env auto &&
  go build -trimpath -ldflags "-s -w" -o "$work/pause" ./cmd/pause &&
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
kind_dir=$(cd "$work" && go mod download -json "sigs.k8s.io/kind@$KIND_VERSION" | sed -n 's/^\s*"Dir": "\(.*\)",$/\1/p')
ctx=$work/node
mkdir -p "$ctx"
cp -r "$kind_dir/images/base/files" "$ctx/files"
chmod -R u+w "$ctx/files"
cp "$kube/kubeadm" "$kube/kubelet" "$kube/kubectl" "$work/runc-nosysresource" "$ctx/"
cp "$here/containerd-patch.sh" "$here/10-kind.conflist" "$here/crictl" "$ctx/"
# From 1.35 the kubelet refuses to start on a cgroup v1 host unless told
# otherwise (failCgroupV1, default true); kind's nodes share the host's cgroup
# version, and cgroup v1 hosts (this suite's own included) are still supported
# by upstream with the setting. A kubelet without the flag (before 1.31) needs nothing.
kubelet_args=""
if grep -q -- '--fail-cgroupv1' <<<"$("$kube/kubelet" --help 2>&1)"; then
  kubelet_args=" --fail-cgroupv1=false"
fi
sed -e "s|@ROOTFS@|$rootfs|" -e "s|@NOSYSRESOURCE@|$nosysresource|" -e "s|@PAUSE_IMAGE@|$pause_image|" \
  -e "s|@KUBE_VERSION@|$KUBE_VERSION|" -e "s|@KUBELET_ARGS@|$kubelet_args|" "$here/Dockerfile" >"$ctx/Dockerfile"
dbuild -t "$image-base" "$ctx"

step "preload $(wc -l <"$work/images.txt") images into the node's containerd"
builder=gitops-conformance-build-$$
docker run -d --name "$builder" --entrypoint=sleep --security-opt seccomp=unconfined "$image-base" infinity >/dev/null
docker exec "$builder" bash -c 'nohup containerd >/tmp/containerd.log 2>&1 &'
for _ in $(seq 1 30); do docker exec "$builder" ctr version >/dev/null 2>&1 && break; sleep 1; done
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
# the container first: while it exists, its image cannot be untagged
docker rm -f -v "$builder" >/dev/null && builder=""
docker rmi "$image-base" >/dev/null
step "done $image"
