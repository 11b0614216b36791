#!/usr/bin/env bash
# Makes a Debian rootfs with debootstrap and imports it as a Docker image.
# usage: rootfs.sh IMAGE PACKAGE[,PACKAGE...]
# The image is what every offline image here is built FROM; no registry involved.
set -euo pipefail
image=${1:?usage: rootfs.sh IMAGE PACKAGES}
packages=${2:?usage: rootfs.sh IMAGE PACKAGES}
suite=${DEBIAN_SUITE:-bookworm}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
work=$(mktemp -d "${TMPDIR:-/tmp}/rootfs.XXXXXX")
trap 'rm -rf "$work"' EXIT
debootstrap --variant=minbase --include="$packages" "$suite" "$work/root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
  tail -n 20 "$work/debootstrap.log" >&2
  echo "debootstrap failed: debootstrap --variant=minbase --include=$packages $suite ROOT $mirror" >&2
  exit 1
}
# Shrink: package lists, caches and docs are not needed at run time.
rm -rf "$work/root"/var/lib/apt/lists/* "$work/root"/var/cache/apt/* \
  "$work/root"/usr/share/doc/* "$work/root"/usr/share/man/* "$work/root"/usr/share/locale/*
tar -C "$work/root" -c . | docker import - "$image" >/dev/null
echo "imported $image"
