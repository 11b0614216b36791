#!/bin/sh
# Adapts kind's containerd config to this node image.
# usage: containerd-patch.sh CONFIG NOSYSRESOURCE PAUSE_IMAGE
#  - no fuse-overlayfs snapshotter (not built here)
#  - the sandbox image kubeadm names
#  - NOSYSRESOURCE=true: restrict_oom_score_adj and runc-nosysresource as runc,
#    for hosts whose capability bounding set lacks CAP_SYS_RESOURCE
set -eu
config=$1 nosysresource=$2 pause=$3
sed -i -e '/^\[proxy_plugins\]/,/address = /d' -e '/^# fuse-overlayfs/d' \
  -e "s|sandbox_image = .*|sandbox_image = \"$pause\"|" "$config"
if [ "$nosysresource" = true ]; then
  sed -i -e 's|restrict_oom_score_adj = false|restrict_oom_score_adj = true|' \
    -e 's|^\(\s*\)SystemdCgroup = true|\1SystemdCgroup = true\n\1BinaryName = "/usr/local/bin/runc-nosysresource"|' "$config"
fi
