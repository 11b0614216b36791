package render

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/upgrade/changes"
)

// A graded report answers first: can the fleet upgrade (its BROKEN, ERROR
// and unexplained CHANGED counted), then each behaviour change of ArgoCD
// its verdicts name (pkg/upgrade/changes) with its Applications, impact and
// what to set, then the rows.

// upgradeTitle is a graded report's title: "Upgrade check v2.14.11 ->
// v3.6.1: 8 Application(s)", the releases where every cell names the same.
func upgradeTitle(r *report.Report) string {
	from, to := "", ""
	for i, c := range r.Cells {
		if i == 0 {
			from, to = c.ArgoCD, c.UpgradedTo
		} else if c.ArgoCD != from || c.UpgradedTo != to {
			from, to = "", ""
			break
		}
	}
	if from == "" || to == "" {
		return fmt.Sprintf("Upgrade check: %d Application(s)", len(r.Cells))
	}
	return fmt.Sprintf("Upgrade check %s -> %s: %d Application(s)", from, to, len(r.Cells))
}

// answer is a graded report's first sentence: whether the upgrade is safe
// as far as the check tells, and which rows to read first.
func answer(cells []report.Cell) string {
	n := map[report.Outcome]int{}
	for _, v := range verdictCounts(cells) {
		n[v.Outcome] = v.N
	}
	broken, errs, changed := n[report.Broken], n[report.Error], n[report.Changed]
	unexplained := 0
	for _, c := range cells {
		if c.Unexplained {
			unexplained++
		}
	}
	var parts []string
	if broken > 0 {
		parts = append(parts, fmt.Sprintf("%d BROKEN (each reason says what no longer works, and what to set where a change of ArgoCD explains it)", broken))
	}
	if errs > 0 {
		parts = append(parts, fmt.Sprintf("%d ERROR (could not tell: fix what it names and run again)", errs))
	}
	if unexplained > 0 {
		parts = append(parts, fmt.Sprintf("%d CHANGED by a difference no known behaviour change explains (read those rows)", unexplained))
	}
	switch {
	case broken > 0:
		return "Not safe to upgrade as it is: " + strings.Join(parts, "; ") + "."
	case len(parts) > 0:
		return "Nothing broke; " + strings.Join(parts, "; ") + "."
	case changed > 0:
		return fmt.Sprintf("Nothing broke; the %d CHANGED are ArgoCD's behaviour changes its upgrade guides describe, below: set what keeps the old behaviour, or accept them.", changed)
	}
	return "Every Application came through as it was."
}

// cause is a behaviour change the report's verdicts name, and of which
// Applications.
type cause struct {
	changes.Change
	Apps  []string
	Total int
}

// causes are the changes the cells name, in the catalog's order; an id the
// catalog no longer has is named as it is.
func causes(cells []report.Cell) []cause {
	var out []cause
	for _, c := range cells {
		for _, id := range c.Explained {
			i := slices.IndexFunc(out, func(k cause) bool { return k.ID == id })
			if i < 0 {
				ch, ok := changes.ByID(id)
				if !ok {
					ch = changes.Change{ID: id, Title: "not in this suite's catalog"}
				}
				out, i = append(out, cause{Change: ch, Total: len(cells)}), len(out)
			}
			out[i].Apps = append(out[i].Apps, c.Variant)
		}
	}
	slices.SortStableFunc(out, func(a, b cause) int { return changes.Compare(a.ID, b.ID) })
	return out
}

// Names are the Applications it is said of: at most namesShown named and
// the rest counted, "all 200" where it is every one of more.
func (c cause) Names() string {
	if len(c.Apps) == c.Total && c.Total > namesShown {
		return fmt.Sprintf("all %d", c.Total)
	}
	s := strings.Join(c.Apps[:min(len(c.Apps), namesShown)], ", ")
	if more := len(c.Apps) - namesShown; more > 0 {
		s += fmt.Sprintf(" ... and %d more", more)
	}
	return s
}

// Do is what to do about it: what keeps the old behaviour, or adapts.
func (c cause) Do() string {
	var do []string
	if c.Restore != "" {
		do = append(do, "To keep the old behaviour: "+c.Restore)
	}
	if c.Adapt != "" {
		do = append(do, "Or adapt: "+c.Adapt)
	}
	return strings.Join(do, ". ")
}

// causesMarkdown is a graded report's line per behaviour change.
func causesMarkdown(b *strings.Builder, cs []cause) {
	if len(cs) == 0 {
		return
	}
	b.WriteString("What ArgoCD's upgrade changed for them, by cause (docs/upgrade-check-changes.md):\n\n")
	for _, c := range cs {
		fmt.Fprintf(b, "- **%s** (%s, %s): %s. %d of %d (%s). %s\n", c.ID, c.Since, impactText(c.Impact), mdEscape(c.Title), len(c.Apps), c.Total, c.Names(), mdEscape(c.Do()))
	}
	b.WriteString("\n")
}

// impactText is an impact as the line per cause says it.
func impactText(i changes.Impact) string {
	if i == "" {
		return "impact unknown"
	}
	return string(i)
}

// readFirst orders a graded report's rows: BROKEN, then CHANGED by a
// difference no change explains, CHANGED, ERROR, SAFE.
func readFirst(a, b report.Cell) int {
	rank := func(c report.Cell) int {
		r := 2 * verdictRank(c.Outcome)
		if c.Outcome == report.Changed && !c.Unexplained {
			r++
		}
		return r
	}
	return rank(a) - rank(b)
}

// notCauses are the shared clauses but those naming a behaviour change
// ("explained: ..."): the line per cause says each once, with its
// Applications.
func notCauses(common []shared) []shared {
	return slices.DeleteFunc(common, func(s shared) bool { return strings.HasPrefix(s.Clause, "explained: ") })
}
