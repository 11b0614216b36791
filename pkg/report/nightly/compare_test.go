package nightly

import (
	"strings"
	"testing"
	"time"

	"github.com/gitops-conformance/suite/pkg/report"
)

func TestCompareNamesEveryCellThatDiffers(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	cell := func(v string, o report.Outcome, d float64) report.Cell {
		return report.Cell{Scenario: "s", Variant: v, ArgoCD: "v1.0.0", Outcome: o, Duration: d}
	}
	seq := &report.Report{RunID: "seq", Started: t0, Finished: t0.Add(40 * time.Minute),
		Cells: []report.Cell{cell("bug", report.Reproduced, 600), cell("fix", report.Mitigated, 300), cell("gone", report.Mitigated, 60)}}
	par := &report.Report{RunID: "par", Started: t0, Finished: t0.Add(20 * time.Minute),
		Cells: []report.Cell{cell("bug", report.Reproduced, 700), cell("fix", report.NotMitigated, 320), cell("new", report.Mitigated, 60)}}
	c := Compare(seq, par)
	if c.Same() || len(c.Differ) != 1 || c.Differ[0] != "s_fix_v1.0.0" || len(c.Missing) != 2 {
		t.Fatalf("differ %v, missing %v", c.Differ, c.Missing)
	}
	md := c.Markdown("PARALLEL=1", "PARALLEL=3")
	for _, want := range []string{"| wall time | 40m0s | 20m0s |", "(2.0x as fast)", "| s_fix_v1.0.0 | MITIGATED 5m0s | NOT_MITIGATED 5m20s | **differs** |", "s_new_v1.0.0"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if !Compare(seq, seq).Same() {
		t.Error("a run compared with itself differs")
	}
}

// A cell expected to race may come out either way in each run of a benchmark:
// that is no difference; an ERROR in one of them still is.
func TestCompareAllowsAnExpectedRace(t *testing.T) {
	race := func(o report.Outcome) *report.Report {
		return &report.Report{Cells: []report.Cell{{Scenario: "s", Variant: "v", ArgoCD: "v1.0.0", Outcome: o, Expected: report.Race}}}
	}
	c := Compare(race(report.Mitigated), race(report.NotMitigated))
	if !c.Same() {
		t.Fatalf("an expected race differs: %v", c.Differ)
	}
	if md := c.Markdown("a", "b"); !strings.Contains(md, "race (RACE expected)") {
		t.Errorf("markdown does not name the race:\n%s", md)
	}
	if Compare(race(report.Mitigated), race(report.Error)).Same() {
		t.Error("an ERROR beside a race's verdict is the same")
	}
}
