#!/usr/bin/env bash
# Runs shellcheck on the suite's scripts (.ci/run, hack/, images/), installing
# it with apt-get when missing; without apt-get or root it stops and says what
# to install. --install-only: only make sure it is there (for actionlint).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v shellcheck >/dev/null; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "installing shellcheck (apt-get)" >&2
    apt-get install -y -qq shellcheck >/dev/null || { apt-get update -qq && apt-get install -y -qq shellcheck >/dev/null; }
  else
    echo "shellcheck is not installed: install it (Debian: apt-get install shellcheck) so the scripts are checked" >&2
    exit 1
  fi
fi
[ "${1:-}" = --install-only ] && exit 0
exec shellcheck -x -S warning .ci/run hack/*.sh images/lib.sh images/rootfs.sh images/build/*.sh images/build/kubernetes/build.sh \
  images/node/*.sh \
  images/argocd/*.sh images/knative/*.sh images/kyverno/build.sh images/kargo/build.sh images/openkruise/build.sh images/registry/build.sh
