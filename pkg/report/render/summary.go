package render

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/pkg/report"
)

// Summary renders the report as a short Markdown page for a CI job summary
// ($GITHUB_STEP_SUMMARY): the counts, the cells no measured expectation
// covers (the news), the cells that need a look (NeedsLook), then a compact
// matrix per scenario, scenarios with such cells first.
func Summary(r *report.Report) string {
	var b strings.Builder
	var flagged []*report.Cell
	counts := map[report.Outcome]int{}
	for i := range r.Cells {
		c := &r.Cells[i]
		counts[c.Outcome]++
		if c.NeedsLook() {
			flagged = append(flagged, c)
		}
	}
	verdict := "as expected"
	if len(flagged) > 0 {
		verdict = fmt.Sprintf("%d need a look", len(flagged))
	}
	fmt.Fprintf(&b, "## Conformance: %d cells, %s\n\n", len(r.Cells), verdict)
	var parts []string
	for _, o := range report.Outcomes {
		if counts[o] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", o, counts[o]))
		}
	}
	fmt.Fprintf(&b, "%s. Run %s, Kubernetes %s, %s, %s", strings.Join(parts, " · "), r.RunID, r.Kubernetes, mode(r), span(r))
	if len(r.Sources) > 0 {
		fmt.Fprintf(&b, ", runs merged: %d", len(r.Sources))
	}
	b.WriteString(".\n\n")
	if cells := r.Unmeasured(); len(cells) > 0 {
		fmt.Fprintf(&b, "### New: %d cell(s) with %s\n\nTheir outcomes are news (a release or a cell nobody measured), not checked against anything; marked _unmeasured_ below.\n\n", len(cells), report.NoMeasurement)
		b.WriteString("| scenario | variant | component | ArgoCD | outcome |\n|---|---|---|---|---|\n")
		for _, c := range cells {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", c.Scenario, c.Variant, strings.TrimSpace(c.Component+" "+c.ComponentVersion), c.ArgoCD, c.Outcome)
		}
		b.WriteString("\n")
	}

	if len(flagged) > 0 {
		b.WriteString("### Needs a look\n\n| scenario | variant | component | ArgoCD | outcome | expected | reason |\n|---|---|---|---|---|---|---|\n")
		for _, c := range flagged {
			fmt.Fprintf(&b, "| %s | %s | %s %s | %s | **%s** | %s | %s |\n", c.Scenario, c.Variant, c.Component, c.ComponentVersion,
				c.ArgoCD, c.Outcome, c.ExpectedText(), mdEscape(shorten(c.Reason, 240)))
		}
		b.WriteString("\n")
	}

	tables := tables(r)
	slices.SortStableFunc(tables, func(a, b *table) int { return flaggedIn(b) - flaggedIn(a) })
	for _, t := range tables {
		fmt.Fprintf(&b, "### %s\n\n| variant | component |", t.Scenario)
		for _, v := range t.Versions {
			fmt.Fprintf(&b, " %s |", v)
		}
		b.WriteString("\n|---|---|" + strings.Repeat("---|", len(t.Versions)) + "\n")
		for _, rw := range t.Rows {
			fmt.Fprintf(&b, "| %s | %s |", rw.Variant, rw.Component)
			for _, c := range rw.Cells {
				fmt.Fprintf(&b, " %s |", summaryCell(c))
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	if len(r.Notes) > 0 {
		b.WriteString("### Notes\n\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "- %s\n", mdEscape(n))
		}
	}
	return b.String()
}

func flaggedIn(t *table) int {
	n := 0
	for _, rw := range t.Rows {
		for _, c := range rw.Cells {
			if c != nil && c.NeedsLook() {
				n++
			}
		}
	}
	return n
}

func summaryCell(c *report.Cell) string {
	switch {
	case c == nil:
		return ""
	case c.Unexpected:
		return fmt.Sprintf("**%s** (expected %s)", c.Outcome, c.Expected)
	case c.NeedsLook():
		return "**" + string(c.Outcome) + "**"
	case c.Unmeasured:
		return string(c.Outcome) + " _unmeasured_"
	case c.Expected == report.Race:
		return string(c.Outcome) + " _race_"
	}
	return string(c.Outcome)
}

func shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
