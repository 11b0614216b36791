package render

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/pkg/report"
)

// A report of make upgrade-check (graded: its cells are SAFE, CHANGED or
// BROKEN) is read for its verdicts: their counts first, the cells sorted by
// verdict, and what the check says of several Applications for one reason
// (3.0's tracking annotation on every object, the CRDs a cascade leaves)
// said once with their names, not on every row.

// verdictOrder is the order a graded report lists its cells in: what
// needs a look first.
var verdictOrder = []report.Outcome{report.Broken, report.Changed, report.Error, report.Safe}

func verdictRank(o report.Outcome) int {
	if i := slices.Index(verdictOrder, o); i >= 0 {
		return i
	}
	return len(verdictOrder)
}

// byVerdict is the cells in verdictOrder, each verdict's in their order.
func byVerdict(cells []report.Cell) []report.Cell {
	out := slices.Clone(cells)
	slices.SortStableFunc(out, readFirst)
	return out
}

// verdictCount is one verdict and how many cells have it.
type verdictCount struct {
	Outcome report.Outcome
	N       int
}

// verdictCounts are the counts of verdictOrder's verdicts (every one, 0
// too) and of any other outcome the cells have.
func verdictCounts(cells []report.Cell) []verdictCount {
	var out []verdictCount
	for _, o := range verdictOrder {
		out = append(out, verdictCount{Outcome: o})
	}
	for _, c := range cells {
		i := slices.IndexFunc(out, func(v verdictCount) bool { return v.Outcome == c.Outcome })
		if i < 0 {
			out, i = append(out, verdictCount{Outcome: c.Outcome}), len(out)
		}
		out[i].N++
	}
	return out
}

// CountsText is a graded run's verdicts counted, in verdictOrder: "0
// BROKEN, 200 CHANGED, 0 ERROR, 0 SAFE" (the report's first line, make
// bench-upgrade-check's last).
func CountsText(cells []report.Cell) string {
	var s []string
	for _, v := range verdictCounts(cells) {
		s = append(s, fmt.Sprintf("%d %s", v.N, v.Outcome))
	}
	return strings.Join(s, ", ")
}

// shared is a clause of the reasons said of several cells.
type shared struct {
	Clause string   // as said, the cell's own name and the numbers in it made general
	Cells  []string // the cells (their variants: the Applications) it is said of
	Ns     []string // each cell's numbers in it (N), "" where it has none
	Total  int      // the cells of the report
}

// namesShown bounds the names a line said of several lists, and
// clausesShown the lines: a report's head stays short whatever the fleet's
// size (each row still says what of it was said above).
const (
	namesShown   = 10
	clausesShown = 10
)

// clauses are a reason's parts, split at "; " outside parentheses.
func clauses(reason string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(reason); i++ {
		switch reason[i] {
		case '(':
			depth++
		case ')':
			depth = max(0, depth-1)
		case ';':
			if depth == 0 && strings.HasPrefix(reason[i:], "; ") {
				out = append(out, reason[start:i])
				start = i + 2
				i++
			}
		}
	}
	return append(out, reason[start:])
}

// count is a number standing alone (not part of a version, a name or a
// duration): what differs between Applications said the same of.
var count = regexp.MustCompile(`(^|[\s(])\d+([\s)]|$)`)

// general is a clause said of the cell named name, its name and counts
// made general, so that the same clause of two cells compares equal, and
// the counts it had.
func general(clause, name string) (string, []string) {
	if name != "" {
		clause = strings.ReplaceAll(clause, name, "<application>")
	}
	var ns []string
	for {
		m := count.FindStringSubmatchIndex(clause)
		if m == nil {
			return clause, ns
		}
		// the number is between the two groups
		ns = append(ns, strings.TrimSpace(strings.Trim(clause[m[3]:m[4]], "()")))
		clause = clause[:m[3]] + "N" + clause[m[4]:]
	}
}

// ownClauses are, of a cell's reason, the clauses said of it alone, and
// how many it shares with other cells.
type ownClauses struct {
	Kept   []string
	Shared int
}

// sharedClauses are the clauses of the cells' reasons said of two cells or
// more, most cells first; for each cell, the clauses of its reason not
// among them.
func sharedClauses(cells []report.Cell) ([]shared, []ownClauses) {
	var all []shared
	raw, parts := make([][]string, len(cells)), make([][]string, len(cells))
	for i, c := range cells {
		raw[i] = clauses(c.Reason)
		for _, cl := range raw[i] {
			g, ns := general(cl, c.Variant)
			parts[i] = append(parts[i], g)
			j := slices.IndexFunc(all, func(s shared) bool { return s.Clause == g })
			if j < 0 {
				all, j = append(all, shared{Clause: g}), len(all)
			}
			if !slices.Contains(all[j].Cells, c.Variant) {
				all[j].Cells = append(all[j].Cells, c.Variant)
				all[j].Ns = append(all[j].Ns, strings.Join(ns, "/"))
			}
		}
	}
	out := slices.DeleteFunc(all, func(s shared) bool { return len(s.Cells) < 2 })
	slices.SortStableFunc(out, func(a, b shared) int { return len(b.Cells) - len(a.Cells) })
	for i := range out {
		out[i].Total = len(cells)
	}
	own := make([]ownClauses, len(cells))
	for i := range cells {
		for k, cl := range raw[i] {
			if slices.ContainsFunc(out, func(s shared) bool { return s.Clause == parts[i][k] }) {
				own[i].Shared++
			} else {
				own[i].Kept = append(own[i].Kept, cl)
			}
		}
	}
	return out, own
}

// gradedMarkdown is a graded report's verdicts, what several Applications
// have in common, and its table of cells, sorted by verdict, each linking
// its evidence.
func gradedMarkdown(b *strings.Builder, r *report.Report) {
	cells := byVerdict(r.Cells)
	fmt.Fprintf(b, "**%s**\n\n%d Application(s): %s.\n\n", answer(cells), len(cells), CountsText(cells))
	causesMarkdown(b, causes(cells))
	common, own := sharedClauses(cells)
	common = notCauses(common)
	if len(common) > 0 {
		b.WriteString("Said of several Applications (once here, not on each row; numbers that differ between them as N):\n\n")
		for _, s := range common[:min(len(common), clausesShown)] {
			fmt.Fprintf(b, "- %d of %d (%s): %s\n", len(s.Cells), len(cells), s.Names(), mdEscape(s.Clause))
		}
		if more := len(common) - clausesShown; more > 0 {
			fmt.Fprintf(b, "- and %d more said of several, each in its Applications' rows\n", more)
		}
		b.WriteString("\n")
	}
	b.WriteString("| application | ArgoCD | Kubernetes | verdict | expected | time | reason |\n|---|---|---|---|---|---|---|\n")
	for i, c := range cells {
		mark := ""
		if c.Unexpected {
			mark = " **(unexpected)**"
		}
		name := c.Variant
		if c.Evidence != "" {
			name = fmt.Sprintf("[%s](%s/)", c.Variant, c.Evidence)
		}
		reason := strings.Join(own[i].Kept, "; ")
		if n := own[i].Shared; n > 0 && reason == "" {
			reason = fmt.Sprintf("as said above of several (%d part(s))", n)
		} else if n > 0 {
			reason += fmt.Sprintf("; and %d part(s) said above of several", n)
		}
		kube := c.Kubernetes
		if c.Outside() {
			kube += " (outside ArgoCD's tested " + c.ArgoCDTested + ")"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s%s | %s | %.0fs | %s |\n", name, c.ArgoCD, kube, c.Outcome, mark, c.ExpectedText(), c.Duration, mdEscape(reason))
	}
}

// Names are the cells it is said of, each with its N where the cells'
// differ ("kargo N=9, kruise N=17"): "all 200" when it is said of every
// one, and at most namesShown of them named ("t001, t002 ... and 188 more").
func (s shared) Names() string {
	same := !slices.ContainsFunc(s.Ns, func(n string) bool { return n != s.Ns[0] })
	if same && len(s.Cells) == s.Total {
		all := fmt.Sprintf("all %d", s.Total)
		if s.Ns[0] != "" {
			all += "; N=" + s.Ns[0]
		}
		return all
	}
	var out []string
	for i, c := range s.Cells[:min(len(s.Cells), namesShown)] {
		if !same && s.Ns[i] != "" {
			c += " N=" + s.Ns[i]
		}
		out = append(out, c)
	}
	names := strings.Join(out, ", ")
	if more := len(s.Cells) - namesShown; more > 0 {
		names += fmt.Sprintf(" ... and %d more", more)
	}
	if same && s.Ns[0] != "" {
		return names + "; N=" + s.Ns[0]
	}
	return names
}
