#!/usr/bin/env bash
# The nightly's merge step: merges the reports the shards left under
# OUT/shards/<shard>/ into OUT (report.json, report.md, report.html, junit.xml;
# evidence links point into the shards' directories); with SITE, the published
# history (hack/nightly-publish.sh), compares it with the newest night there
# (OUT/diff.json, OUT/diff.md). The job summary ($GITHUB_STEP_SUMMARY, stdout
# when unset) starts with that comparison, then the merged report's summary,
# then every shard that left no report.json.
#
# Exit status: 0; 1 when no shard left a report, or when a cell's outcome
# changed on a supported ArgoCD line (SUPPORTED, e.g. 3.4,3.5,3.6; every line
# when empty) and no earlier night in SITE reported that change. Run from the
# repository root; CONFORMANCE is the CLI.
set -euo pipefail
shopt -s nullglob
out=${1:?usage: hack/nightly-merge.sh OUTDIR [SITE] (the shards in OUTDIR/shards/<shard>/)}
site=${2:-}
read -ra conformance <<<"${CONFORMANCE:-go run ./cmd/conformance}"
summary=${GITHUB_STEP_SUMMARY:-/dev/stdout}
dirs=()
missing=()
for shard in "$out"/shards/*/; do
  found=()
  # a run's own report, not its clusters' (a PARALLEL run's shards/<n>/, which
  # its report already merges)
  while IFS= read -r dir; do found+=("$shard$dir"); done < <(cd "$shard" && find . -name report.json -not -path '*/shards/*' -printf '%h\n' | sort)
  if [ ${#found[@]} -eq 0 ]; then
    missing+=("$(basename "$shard")")
  fi
  dirs+=("${found[@]}")
done
if [ ${#dirs[@]} -eq 0 ]; then
  echo "## Conformance: no shard left a report.json under $out/shards/" | tee -a "$summary" >&2
  exit 1
fi
"${conformance[@]}" report merge -o "$out" "${dirs[@]}"

status=0
last=""
if [ -n "$site" ] && [ -d "$site/nights" ]; then
  # the newest night before this one (a re-run of this night is already there)
  night=$(hack/nightly-publish.sh --night-of "$out")
  while IFS= read -r dir; do
    if [[ "$(basename "$dir")" < "$night" ]]; then last=$dir; fi
  done < <(find "$site/nights" -mindepth 2 -maxdepth 2 -name report.json -printf '%h\n' | sort)
fi
if [ -n "$last" ]; then
  "${conformance[@]}" report diff -supported "${SUPPORTED:-}" -history "$site" -json "$out/diff.json" "$last" "$out" >"$out/diff.md" || status=$?
  if [ "$status" -gt 1 ]; then
    echo "nightly-merge: report diff failed (exit $status)" >&2
    exit "$status"
  fi
  cat "$out/diff.md" >>"$summary"
elif [ -n "$site" ]; then
  printf '## Since the last night: no earlier night in %s\n\nThe first night: nothing to compare with.\n\n' "$site" >>"$summary"
fi
"${conformance[@]}" report summary "$out" >>"$summary"
if [ ${#missing[@]} -gt 0 ]; then
  {
    printf '\n### Shards without a report\n\n'
    printf -- '- %s: no report.json (the job failed or timed out before writing it; see its log)\n' "${missing[@]}"
  } >>"$summary"
fi
exit "$status"
