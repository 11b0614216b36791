package nightly

import (
	"strings"
	"testing"
	"time"

	"github.com/gitops-conformance/suite/pkg/report"
)

func nightly(id string, day int, cells ...report.Cell) *report.Report {
	for i := range cells {
		if cells[i].Kubernetes == "" {
			cells[i].Kubernetes = "v1.33.13"
		}
		cells[i].Settle()
	}
	start := time.Date(2026, 11, day, 2, 17, 0, 0, time.UTC)
	return &report.Report{RunID: id, Started: start, Finished: start.Add(time.Hour), Kubernetes: "v1.33.13", Cells: cells}
}

func cell(scenario, variant, argocd, version string, outcome, expected report.Outcome) report.Cell {
	return report.Cell{Scenario: scenario, Variant: variant, ArgoCD: argocd, Component: "kyverno", ComponentVersion: version, Outcome: outcome, Expected: expected}
}

func TestDiffListsFlipsNewReleasesAndStoppedCells(t *testing.T) {
	old := nightly("n1", 22,
		cell("kyverno-argocd", "bug", "v3.5.7", "v1.14.0", report.NotReproduced, report.NotReproduced),
		cell("kyverno-argocd", "bug", "v2.14.3", "v1.14.0", report.Reproduced, report.Reproduced),
		cell("kyverno-argocd", "minimal", "v3.4.12", "", report.NotReproduced, ""),
		cell("kargo-argocd", "keep-namespace-foreground", "v2.14.11", "v1.6.0", report.Mitigated, report.Race),
		cell("kyverno-argocd", "hook-disabled", "v3.5.7", "v1.14.0", report.Error, report.Mitigated),
		cell("kyverno-argocd", "argocd-upgrade", "v3.5.7", "v1.14.0", report.Mitigated, report.Mitigated),
	)
	now := nightly("n2", 23,
		cell("kyverno-argocd", "bug", "v3.5.7", "v1.14.0", report.Reproduced, report.NotReproduced),  // a flip, supported: fails
		cell("kyverno-argocd", "bug", "v2.14.3", "v1.14.0", report.NotReproduced, report.Reproduced), // a flip, end of life: listed
		cell("kargo-argocd", "keep-namespace-foreground", "v2.14.11", "v1.6.0", report.NotMitigated, report.Race),
		cell("kyverno-argocd", "hook-disabled", "v3.5.7", "v1.14.0", report.Mitigated, report.Mitigated), // back from ERROR
		cell("kyverno-argocd", "argocd-upgrade", "v3.5.7", "v1.14.0", report.Mitigated, report.Mitigated),
		cell("kyverno-argocd", "minimal", "v3.6.1", "", report.NotReproduced, ""),    // a new ArgoCD release
		cell("kyverno-argocd", "bug", "v3.5.7", "v1.19.1", report.NotReproduced, ""), // a new component release
		cell("kyverno-argocd", "fresh", "v3.5.7", "v1.14.0", report.Mitigated, ""),   // a new cell on releases that ran
	)
	d := DiffOf(old, now, []string{"3.4", "3.5", "3.6"})
	if len(d.Flips) != 3 {
		t.Fatalf("flips = %+v, want 3 (the two bugs, hook-disabled back from ERROR)", d.Flips)
	}
	fails := d.Failing()
	if len(fails) != 1 || fails[0].Cell.ArgoCD != "v3.5.7" || fails[0].Cell.Variant != "bug" || fails[0].To != report.Reproduced {
		t.Errorf("failing = %+v, want only the supported release's bug", fails)
	}
	if len(d.Races) != 1 || d.Races[0].Cell.Scenario != "kargo-argocd" {
		t.Errorf("races = %+v, want the kargo cell expected RACE", d.Races)
	}
	var rels []string
	for _, nr := range d.NewReleases {
		rels = append(rels, nr.Kind+" "+nr.Version)
	}
	if got := strings.Join(rels, ", "); got != "ArgoCD v3.6.1, kyverno v1.19.1" {
		t.Errorf("new releases = %s", got)
	}
	if len(d.NewCells) != 1 || d.NewCells[0].Variant != "fresh" {
		t.Errorf("new cells = %+v", d.NewCells)
	}
	if len(d.Stopped) != 1 || d.Stopped[0].ArgoCD != "v3.4.12" {
		t.Errorf("stopped = %+v, want the minimal cell on v3.4.12", d.Stopped)
	}
	md := d.Markdown()
	for _, want := range []string{
		"## Since the last night: 3 cells changed their outcome (1 fails the nightly), 2 new releases ran, 1 cell stopped running, 1 new cell",
		"| kyverno-argocd bug · kyverno v1.14.0 | v3.5.7 | NOT_REPRODUCED | **REPRODUCED** | NOT_REPRODUCED | **fails the nightly** |",
		"| v2.14.3 | REPRODUCED | **NOT_REPRODUCED** | REPRODUCED | end-of-life ArgoCD line: listed |",
		"recovered from ERROR",
		"- ArgoCD v3.6.1: 1 cell (NOT_REPRODUCED 1), 1 unmeasured",
		"- kyverno-argocd minimal · ArgoCD v3.4.12\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	// no lines given: every release counts
	if n := len(DiffOf(old, now, nil).Failing()); n != 2 {
		t.Errorf("without lines, %d failing; want 2 (both bugs)", n)
	}
}

// The same change the next night (the cell went back and came again) does
// not fail again; a change reported by the same night's earlier diff (a
// re-run) does.
func TestDiffSameFlipFailsOnce(t *testing.T) {
	a := nightly("n1", 22, cell("kyverno-argocd", "bug", "v3.5.7", "v1.14.0", report.NotReproduced, report.NotReproduced))
	b := nightly("n2", 23, cell("kyverno-argocd", "bug", "v3.5.7", "v1.14.0", report.Reproduced, report.NotReproduced))
	c := nightly("n3", 24, cell("kyverno-argocd", "bug", "v3.5.7", "v1.14.0", report.NotReproduced, report.NotReproduced))
	d := nightly("n4", 25, cell("kyverno-argocd", "bug", "v3.5.7", "v1.14.0", report.Reproduced, report.NotReproduced))
	lines := []string{"3.5"}
	ab := DiffOf(a, b, lines)
	ab.MarkSeen(nil)
	if len(ab.Failing()) != 1 {
		t.Fatalf("n1 to n2: %+v, want one failing flip", ab.Flips)
	}
	bc := DiffOf(b, c, lines)
	bc.MarkSeen([]*Diff{ab})
	if len(bc.Failing()) != 1 {
		t.Fatalf("n2 to n3 (the way back, a change not seen before): %+v, want it failing", bc.Flips)
	}
	cd := DiffOf(c, d, lines)
	cd.MarkSeen([]*Diff{ab, bc})
	if len(cd.Failing()) != 0 || cd.Flips[0].SeenIn != "n2" {
		t.Fatalf("n3 to n4, the n2 change again: %+v, want it reported before (n2), not failing", cd.Flips)
	}
	if !strings.Contains(cd.Markdown(), "reported before (n2)") {
		t.Errorf("markdown does not say it was reported before:\n%s", cd.Markdown())
	}
	// the same night compared again (a re-run): its own earlier diff does not count
	again := DiffOf(c, d, lines)
	again.MarkSeen([]*Diff{cd})
	if len(again.Failing()) != 1 {
		t.Errorf("a re-run of n4: %+v, want it failing again", again.Flips)
	}
}

// Cells are keyed by their Kubernetes version too: a cell on another
// Kubernetes version is a new release, not a flip.
func TestDiffKeysCellsByKubernetes(t *testing.T) {
	a := nightly("n1", 22, cell("s", "bug", "v3.5.7", "v1", report.Reproduced, report.Reproduced))
	c := cell("s", "bug", "v3.5.7", "v1", report.NotReproduced, report.Reproduced)
	c.Kubernetes = "v1.35.4"
	b := nightly("n2", 23, cell("s", "bug", "v3.5.7", "v1", report.Reproduced, report.Reproduced), c)
	d := DiffOf(a, b, nil)
	if len(d.Flips) != 0 || len(d.NewReleases) != 1 || d.NewReleases[0].Kind != "Kubernetes" {
		t.Errorf("flips %+v, new releases %+v: want no flip and Kubernetes v1.35.4 new", d.Flips, d.NewReleases)
	}
	if !strings.Contains(d.Markdown(), "Kubernetes v1.35.4: 1 cell") {
		t.Errorf("markdown:\n%s", d.Markdown())
	}
}
