#!/usr/bin/env bash
# The nightly's publish step: adds the merged report in OUT (hack/nightly-merge.sh)
# as a night of the published history SITE (a checkout of the gh-pages branch)
# and renders the site again. SITE/nights/<night>/ gets report.json, diff.json
# and diff.md (when OUT has them), releases.json ($RELEASES, when set) and
# night.json (the workflow run, $RUN_URL); the night is named by when the
# merged report started (YYYYMMDD-HHMMSS, UTC), so a re-run of the same night
# replaces it. Nights beyond the newest $KEEP_NIGHTS (default 90) are removed
# (git keeps them). Then `conformance report history` writes each night's
# report.html and SITE/index.html. It commits nothing: the workflow does.
#
#   hack/nightly-publish.sh OUT SITE
#   hack/nightly-publish.sh --night-of OUT     (prints the night's name)
set -euo pipefail
night_of() {
  local started
  started=$(jq -r .started "$1/report.json")
  date -u -d "$started" +%Y%m%d-%H%M%S
}
if [ "${1:-}" = --night-of ]; then
  night_of "${2:?usage: hack/nightly-publish.sh --night-of OUT}"
  exit 0
fi
out=${1:?usage: hack/nightly-publish.sh OUT SITE}
site=${2:?usage: hack/nightly-publish.sh OUT SITE}
read -ra conformance <<<"${CONFORMANCE:-go run ./cmd/conformance}"
if [ ! -s "$out/report.json" ]; then
  echo "nightly-publish: $out holds no report.json: nothing to publish" >&2
  exit 2
fi
night=$(night_of "$out")
dest=$site/nights/$night
mkdir -p "$dest"
cp "$out/report.json" "$dest/"
for f in diff.json diff.md; do
  if [ -e "$out/$f" ]; then cp "$out/$f" "$dest/"; fi
done
if [ -n "${RELEASES:-}" ]; then cp "$RELEASES" "$dest/releases.json"; fi
jq -n --arg url "${RUN_URL:-}" '{run_url: $url}' >"$dest/night.json"
keep=${KEEP_NIGHTS:-90}
mapfile -t nights < <(find "$site/nights" -mindepth 1 -maxdepth 1 -type d | sort)
if [ "${#nights[@]}" -gt "$keep" ]; then
  rm -rf "${nights[@]:0:${#nights[@]}-keep}"
fi
# served as files, not through Jekyll
touch "$site/.nojekyll"
"${conformance[@]}" report history "$site"
echo "nightly-publish: night $night in $site"
