#!/usr/bin/env bash
# The nightly's merge step: merges the reports the shards left under
# OUT/shards/<shard>/ into OUT (report.json, report.md, report.html, junit.xml;
# evidence links point into the shards' directories) and appends the Markdown
# summary to $GITHUB_STEP_SUMMARY (stdout when unset), naming every shard that
# left no report.json. Run from the repository root; CONFORMANCE is the CLI.
set -euo pipefail
shopt -s nullglob
out=${1:?usage: hack/nightly-merge.sh OUTDIR (the shards in OUTDIR/shards/<shard>/)}
read -ra conformance <<<"${CONFORMANCE:-go run ./cmd/conformance}"
summary=${GITHUB_STEP_SUMMARY:-/dev/stdout}
dirs=()
missing=()
for shard in "$out"/shards/*/; do
  found=()
  while IFS= read -r dir; do found+=("$dir"); done < <(find "$shard" -name report.json -printf '%h\n' | sort)
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
"${conformance[@]}" report summary "$out" >>"$summary"
if [ ${#missing[@]} -gt 0 ]; then
  {
    printf '\n### Shards without a report\n\n'
    printf -- '- %s: no report.json (the job failed or timed out before writing it; see its log)\n' "${missing[@]}"
  } >>"$summary"
fi
