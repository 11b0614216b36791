package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func sample() *Report {
	return &Report{RunID: "20261122-050000", Started: time.Unix(0, 0), Finished: time.Unix(60, 0), Offline: true, Kubernetes: "v1.33.13",
		Cells: []Cell{
			{Scenario: "kubeovn-argocd", Variant: "bug", ArgoCD: "v2.14.11", Component: "kube-ovn", ComponentVersion: "v1.14.10",
				Outcome: Reproduced, Expected: Reproduced, Reason: "OutOfSync | 2 refreshes", Duration: 41.2},
			{Scenario: "kubeovn-argocd", Variant: "ignore-differences", ArgoCD: "v2.14.11", Component: "kube-ovn", ComponentVersion: "v1.14.10",
				Outcome: NotMitigated, Expected: Mitigated, Reason: "stayed OutOfSync"},
			{Scenario: "kargo-argocd", Variant: "bug", ArgoCD: "v2.14.11", Outcome: Skipped, Expected: Skipped, Reason: "offline"},
		}}
}

func TestSettle(t *testing.T) {
	c := Cell{Expected: Reproduced, Runs: []Run{{Outcome: Reproduced, Duration: 1}, {Outcome: Reproduced, Duration: 2}}}
	c.Settle()
	if c.Outcome != Reproduced || c.Unexpected || !strings.HasPrefix(c.Reason, "2/2 REPRODUCED") || c.Duration != 3 {
		t.Fatalf("settled = %+v", c)
	}
	f := Cell{Expected: Reproduced, Runs: []Run{{Outcome: Reproduced}, {Outcome: NotReproduced}, {Outcome: Reproduced}}}
	f.Settle()
	if f.Outcome != Flaky || !f.Unexpected || !strings.HasPrefix(f.Reason, "2/3 REPRODUCED") {
		t.Fatalf("flaky = %+v", f)
	}
}

// A run that ended ERROR (an interrupt, a failed read) is no disagreement: the
// cell is ERROR, with the other runs counted, never FLAKY.
func TestSettleErrorRun(t *testing.T) {
	c := Cell{Expected: Reproduced, Runs: []Run{{Outcome: Reproduced}, {Outcome: Reproduced}, {Outcome: Error, Reason: "interrupted"}}}
	c.Settle()
	if c.Outcome != Error || !c.NeedsLook() || c.Reason != "1/3 ERROR, run 3: interrupted; REPRODUCED 2, ERROR 1" {
		t.Fatalf("settled = %+v", c)
	}
}

// An expected race allows either verdict and FLAKY, and nothing else: an ERROR
// still fails the run, and a cell whose runs disagree without an expected race
// still does.
func TestRaceExpectation(t *testing.T) {
	for _, tc := range []struct {
		runs []Outcome
		want Outcome
		fail bool
	}{
		{[]Outcome{Mitigated, NotMitigated, NotMitigated}, Flaky, false},
		{[]Outcome{Mitigated, Mitigated}, Mitigated, false},
		{[]Outcome{NotMitigated}, NotMitigated, false},
		{[]Outcome{Mitigated, Error}, Error, true},
		{[]Outcome{Skipped}, Skipped, true},
	} {
		c := Cell{Expected: Race}
		for _, o := range tc.runs {
			c.Runs = append(c.Runs, Run{Outcome: o})
		}
		c.Settle()
		r := &Report{Cells: []Cell{c}}
		if c.Outcome != tc.want || r.Failed() != tc.fail {
			t.Errorf("runs %v: outcome %s, failed %v; want %s, %v", tc.runs, c.Outcome, r.Failed(), tc.want, tc.fail)
		}
	}
	f := Cell{Expected: Mitigated, Runs: []Run{{Outcome: Mitigated}, {Outcome: NotMitigated}}}
	f.Settle()
	if !(&Report{Cells: []Cell{f}}).Failed() {
		t.Fatalf("a FLAKY cell expected MITIGATED passed: %+v", f)
	}
	u := Cell{Runs: []Run{{Outcome: Mitigated}, {Outcome: NotMitigated}}}
	u.Settle()
	if !u.NeedsLook() {
		t.Fatalf("a FLAKY cell with no expectation needs no look: %+v", u)
	}
}

func TestDisagreementsSetMinimalBesideBug(t *testing.T) {
	r := &Report{Cells: []Cell{
		{Scenario: "kyverno-argocd", Variant: "bug", ArgoCD: "v2.14.3", Component: "kyverno", ComponentVersion: "v1.14.0", Outcome: Reproduced},
		{Scenario: "kyverno-argocd", Variant: "minimal", ArgoCD: "v2.14.3", Outcome: Reproduced},
		{Scenario: "kyverno-argocd", Variant: "bug", ArgoCD: "v3.1.4", Component: "kyverno", ComponentVersion: "v1.14.0", Outcome: NotReproduced},
		{Scenario: "kyverno-argocd", Variant: "minimal", ArgoCD: "v3.1.4", Outcome: Reproduced},
		{Scenario: "kyverno-argocd", Variant: "minimal", ArgoCD: "v2.13.3", Outcome: Error},
		{Scenario: "kyverno-argocd", Variant: "bug", ArgoCD: "v2.13.3", Outcome: NotReproduced},
	}}
	d := r.Disagreements()
	if len(d) != 1 || !strings.Contains(d[0], "v3.1.4") || !strings.Contains(d[0], "disagree") {
		t.Fatalf("disagreements %q, want one on v3.1.4 (an ERROR is no verdict to compare)", d)
	}
	r.noteDisagreements()
	r.noteDisagreements()
	if len(r.Notes) != 1 {
		t.Fatalf("notes %q: each disagreement once", r.Notes)
	}
}

// The report marks each ArgoCD release supported or end-of-life as the run
// read it (report.json; render sets the marks in Markdown and HTML), and a
// merge keeps every release's mark, the later read winning.
func TestArgoCDSupportIsReported(t *testing.T) {
	r := sample()
	r.ArgoCDSupport = &Support{Lines: []string{"3.6 (newest v3.6.1)", "3.5 (newest v3.5.7)", "3.4 (newest v3.4.13)"},
		Releases: map[string]string{"v2.14.11": "end-of-life", "v3.5.1": "supported"}}
	r.Cells = append(r.Cells, Cell{Scenario: "kubeovn-argocd", Variant: "bug", ArgoCD: "v3.5.1", Component: "kube-ovn", ComponentVersion: "v1.14.10", Outcome: Reproduced})
	data, _ := json.Marshal(r)
	if !strings.Contains(string(data), `"argocd_support":{"supported_lines":["3.6 (newest v3.6.1)"`) {
		t.Errorf("report.json: %s", data)
	}
	later := sample()
	later.RunID, later.Started = "later", time.Unix(100, 0)
	later.ArgoCDSupport = &Support{Why: "the module proxy's list of github.com/argoproj/argo-cd/v3: 403 Forbidden", Releases: map[string]string{"v2.14.11": "could not tell"}}
	m, err := Merge(r, later)
	if err != nil {
		t.Fatal(err)
	}
	s := m.ArgoCDSupport
	if s.Releases["v3.5.1"] != "supported" || s.Releases["v2.14.11"] != "could not tell" || len(s.Lines) != 3 {
		t.Errorf("merged support: %+v", s)
	}
}

// TestLoadGivesOldCellsTheRunsKubernetes: a report written before cells
// carried their Kubernetes version reads as if each had the run's.
func TestLoadGivesOldCellsTheRunsKubernetes(t *testing.T) {
	dir := t.TempDir()
	old := `{"run_id":"x","kubernetes":"v1.33.13","cells":[{"scenario":"s","variant":"bug","argocd":"v2.14.11"},
	  {"scenario":"s","variant":"bug","argocd":"v2.14.21","kubernetes":"v1.35.4"}],
	  "not_run":[{"scenario":"s","variant":"bug","argocd":"v2.13.3"}]}`
	if err := os.WriteFile(filepath.Join(dir, "report.json"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{r.Cells[0].Kubernetes, r.Cells[1].Kubernetes, r.NotRun[0].Kubernetes}; !slices.Equal(got, []string{"v1.33.13", "v1.35.4", "v1.33.13"}) {
		t.Errorf("cells' Kubernetes = %v", got)
	}
}

// The same cell on two Kubernetes versions is one group, its tallies (the
// counts of each outcome) per version, oldest first.
func TestAcrossKubernetesSetsTheTalliesSideBySide(t *testing.T) {
	runs := func(outcomes ...Outcome) []Run {
		var rs []Run
		for _, o := range outcomes {
			rs = append(rs, Run{Outcome: o})
		}
		return rs
	}
	cell := Cell{Scenario: "kargo-argocd", Variant: "keep-namespace-foreground", ArgoCD: "v2.14.11", Component: "kargo", ComponentVersion: "v1.6.0"}
	on135, on133, other := cell, cell, cell
	on135.Kubernetes, on135.Runs = "v1.35.4", runs(Mitigated, Mitigated, Mitigated)
	on133.Kubernetes, on133.Runs = "v1.33.13", runs(Mitigated, NotMitigated, Mitigated)
	other.Variant, other.Kubernetes = "bug", "v1.33.13"
	for _, c := range []*Cell{&on135, &on133} {
		c.Settle()
	}
	r := &Report{RunID: "20261124-120000", Cells: []Cell{on135, other, on133}}
	groups := r.AcrossKubernetes()
	if len(groups) != 1 || fmt.Sprint(groups[0].Kubernetes) != "[v1.33.13 v1.35.4]" {
		t.Fatalf("groups = %+v", groups)
	}
	if got := groups[0].Cells[0].Tally(); got != "MITIGATED 2/3, NOT_MITIGATED 1/3" {
		t.Errorf("v1.33.13 tally %q", got)
	}
}

// A cell without an expectation is listed as a new outcome when it ran; one
// that did not run (a component's minimum Kubernetes) measured nothing, and
// its SKIPPED reason says why, so UNMEASURED=fail does not fail on it.
func TestSkippedCellIsNotUnmeasured(t *testing.T) {
	ran := Cell{Runs: []Run{{Outcome: Mitigated}}}
	skipped := Cell{Runs: []Run{{Outcome: Skipped, Reason: "knative-serving v0.50.0 requires Kubernetes v1.34.0 or newer"}}}
	ran.Settle()
	skipped.Settle()
	if !ran.Unmeasured || skipped.Unmeasured {
		t.Errorf("unmeasured: ran %v, skipped %v; want true, false", ran.Unmeasured, skipped.Unmeasured)
	}
	r := &Report{UnmeasuredFails: true, Cells: []Cell{skipped}}
	if r.Fails(&r.Cells[0]) || len(r.Unmeasured()) != 0 {
		t.Errorf("a SKIPPED cell counted as unmeasured: %+v", r.Cells[0])
	}
}
