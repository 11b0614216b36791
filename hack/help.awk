# make help: the Makefile's targets and their "## " text, the three jobs
# first, then the rest grouped, each line within 100 columns. A text too long
# is cut at the last clause that fits ("; ", ": ", ", ", " (", " ["), and
# FULL=1 prints it whole, wrapped. $$ in a recipe's text is $.
function group(t) {
  if (t ~ /^(e2e|conform|upgrade-check)$/) return 1
  if (t ~ /^(matrix|list|plan|releases|bisect|sweep|repro|argocd-check|tested-ranges)$/) return 2
  if (t ~ /^(conform|upgrade-check)-/) return 3
  if (t ~ /^report-/) return 4
  if (t ~ /^(bench|ci-cold)/) return 5
  if (t ~ /^(test|unit|unit-online|smoke|fault-test|mirror-check|interrupt-test|merge-check|lint-workflows|verify|docs)$/) return 6
  return 7
}
function clip(s, n,    i, best, c) {
  if (length(s) <= n) return s
  best = 0
  for (i = n - 2; i > n / 3; i--) {
    c = substr(s, i, 2)
    if (c == "; " || c == ": " || c == ", " || c == " (" || c == " [") { best = i; break }
  }
  if (best == 0) for (i = n - 2; i > 0; i--) if (substr(s, i, 1) == " ") { best = i; break }
  return substr(s, 1, best - 1) " ..."
}
function wrap(s, n, indent,    out, line, w, k, words) {
  k = split(s, words, " ")
  line = ""
  for (w = 1; w <= k; w++) {
    if (line != "" && length(line) + 1 + length(words[w]) > n) { out = out line "\n" indent; line = words[w] }
    else line = (line == "" ? words[w] : line " " words[w])
  }
  return out line
}
BEGIN {
  FS = ":.*## "
  title[1] = "The three jobs"; title[2] = "The matrix: run, plan, find a change"
  title[3] = "Conform and upgrade-check: smoke, known answers, fixtures"; title[4] = "Reports"
  title[5] = "Benchmarks"; title[6] = "The suite's own checks"; title[7] = "Housekeeping"
}
/^[a-z0-9-]+:.*## / {
  t = $1; text = $2
  gsub(/\$\$/, "$", text)
  g = group(t)
  n[g]++; name[g, n[g]] = t; help[g, n[g]] = text
}
END {
  width = 100; col = 24
  for (g = 1; g <= 7; g++) {
    if (!n[g]) continue
    printf "%s%s:\n", (g > 1 ? "\n" : ""), title[g]
    for (i = 1; i <= n[g]; i++) {
      t = name[g, i]
      pad = sprintf("  %-" (col - 3) "s ", t)
      if (length(t) > col - 3) pad = "  " t "\n" sprintf("%" col "s", "")
      text = full ? wrap(help[g, i], width - col, sprintf("%" col "s", "")) : clip(help[g, i], width - col)
      printf "%s%s\n", pad, text
    }
  }
  if (!full) printf "\nmake help FULL=1 prints each text whole; docs/running.md says more.\n"
}
