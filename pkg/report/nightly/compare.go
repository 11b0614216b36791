package nightly

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/pkg/report"
)

// Comparison is two runs of the same cells side by side: a benchmark's
// baseline and candidate (make bench: one cluster vs several at once).
type Comparison struct {
	Base, Other *report.Report
	// Differ are the cells whose outcomes differ (where no race was expected
	// in both runs), and Missing those only one run holds (not run, or not in
	// its plan).
	Differ, Missing []string
}

// Compare pairs base's and other's cells.
func Compare(base, other *report.Report) *Comparison {
	c := &Comparison{Base: base, Other: other}
	theirs := map[report.Key]report.Cell{}
	for _, x := range other.Cells {
		theirs[x.Key()] = x
	}
	for _, x := range base.Cells {
		y, ok := theirs[x.Key()]
		delete(theirs, x.Key())
		switch {
		case !ok:
			c.Missing = append(c.Missing, x.ID())
		case differ(x, y):
			c.Differ = append(c.Differ, x.ID())
		}
	}
	for _, y := range other.Cells {
		if _, ok := theirs[y.Key()]; ok {
			c.Missing = append(c.Missing, y.ID())
		}
	}
	return c
}

// differ reports whether two runs of a cell disagree: different outcomes,
// unless the expectation both runs had allows each (an expected race).
func differ(x, y report.Cell) bool {
	bothAllowed := x.Expected == y.Expected && x.Expected.Allows(x.Outcome) && x.Expected.Allows(y.Outcome)
	return x.Outcome != y.Outcome && !bothAllowed
}

// Same reports whether every cell is in both runs with the same outcome.
func (c *Comparison) Same() bool { return len(c.Differ) == 0 && len(c.Missing) == 0 }

// Markdown is the comparison as a benchmark's report: wall times and their
// ratio, per-scenario cell time, and every cell's outcome in both runs.
func (c *Comparison) Markdown(baseName, otherName string) string {
	var b strings.Builder
	bw, ow := c.Base.Finished.Sub(c.Base.Started), c.Other.Finished.Sub(c.Other.Started)
	fmt.Fprintf(&b, "| | %s | %s |\n|---|---|---|\n", baseName, otherName)
	fmt.Fprintf(&b, "| run | %s | %s |\n", c.Base.RunID, c.Other.RunID)
	fmt.Fprintf(&b, "| cells | %d | %d |\n", len(c.Base.Cells), len(c.Other.Cells))
	fmt.Fprintf(&b, "| wall time | %s | %s |\n", round(bw), round(ow))
	if ow > 0 {
		fmt.Fprintf(&b, "| ratio | 1 | %.2f (%.1fx as fast) |\n", ow.Seconds()/bw.Seconds(), bw.Seconds()/ow.Seconds())
	}
	b.WriteString("\nPer scenario, the sum of its cells' times (a cell's time includes installing an ArgoCD release its cluster did not have):\n\n")
	fmt.Fprintf(&b, "| scenario | cells | %s | %s |\n|---|---|---|---|\n", baseName, otherName)
	bs, ot := perScenario(c.Base), perScenario(c.Other)
	for _, s := range scenarioNames(c.Base, c.Other) {
		fmt.Fprintf(&b, "| %s | %d | %s | %s |\n", s, max(bs[s].n, ot[s].n), round(bs[s].d), round(ot[s].d))
	}
	b.WriteString("\nCell by cell:\n\n| cell | " + baseName + " | " + otherName + " | |\n|---|---|---|---|\n")
	theirs := map[report.Key]report.Cell{}
	for _, y := range c.Other.Cells {
		theirs[y.Key()] = y
	}
	for _, x := range c.Base.Cells {
		y, ok := theirs[x.Key()]
		mark, got := "", "not run"
		if ok {
			got = fmt.Sprintf("%s %s", y.Outcome, round(seconds(y.Duration)))
		}
		switch {
		case !ok || differ(x, y):
			mark = "**differs**"
		case x.Outcome != y.Outcome:
			mark = "race (RACE expected)"
		}
		fmt.Fprintf(&b, "| %s | %s %s | %s | %s |\n", x.ID(), x.Outcome, round(seconds(x.Duration)), got, mark)
	}
	if c.Same() {
		b.WriteString("\nEvery cell has the same outcome in both runs.\n")
	} else {
		fmt.Fprintf(&b, "\n%d cell(s) differ and %d are in one run only: %s\n", len(c.Differ), len(c.Missing), strings.Join(append(slices.Clone(c.Differ), c.Missing...), ", "))
	}
	return b.String()
}

type total struct {
	n int
	d time.Duration
}

func perScenario(r *report.Report) map[string]total {
	t := map[string]total{}
	for _, c := range r.Cells {
		x := t[c.Scenario]
		x.n++
		for _, run := range c.Results() {
			x.d += seconds(run.Duration)
		}
		t[c.Scenario] = x
	}
	return t
}

func scenarioNames(rs ...*report.Report) []string {
	var names []string
	for _, r := range rs {
		for _, c := range r.Cells {
			if !slices.Contains(names, c.Scenario) {
				names = append(names, c.Scenario)
			}
		}
	}
	return names
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func round(d time.Duration) string {
	if d >= time.Minute {
		return d.Round(time.Second).String()
	}
	return fmt.Sprintf("%.0fs", d.Seconds())
}
