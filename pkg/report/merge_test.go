package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var night = time.Date(2026, 11, 22, 2, 17, 0, 0, time.UTC)

func kyverno(argocd string, o Outcome) Cell {
	c := Cell{Scenario: "kyverno-argocd", Variant: "bug", ArgoCD: argocd, Component: "kyverno", ComponentVersion: "v1.14.0",
		Outcome: o, Expected: NotReproduced, Reason: "sync " + string(o), Duration: 200}
	c.Evidence = "cells/" + c.ID()
	c.Settle()
	return c
}

func run(id string, start time.Time, dir string, cells ...Cell) *Report {
	return &Report{RunID: id, Started: start, Finished: start.Add(30 * time.Minute), Offline: false, Kubernetes: "v1.33.13",
		Command: "make e2e SCENARIO=kyverno-argocd", Dir: dir, Cells: cells}
}

// Two nights of the same cell stay one cell of the matrix: k/N when they
// agree, FLAKY when they disagree, each run's evidence in its own directory.
func TestMergeFoldsRepeatedCellsAsRuns(t *testing.T) {
	first := run("20261122-021700", night, "/shards/a",
		kyverno("v2.14.21", NotReproduced), kyverno("v2.14.3", NotReproduced))
	second := run("20261123-021700", night.Add(24*time.Hour), "/shards/b",
		kyverno("v2.14.3", Reproduced), kyverno("v2.14.21", NotReproduced))
	m, err := Merge(second, first)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Cells) != 2 || m.Cells[0].ArgoCD != "v2.14.3" {
		t.Fatalf("cells = %+v, want v2.14.3 then v2.14.21", m.Cells)
	}
	flaky, agreed := m.Cells[0], m.Cells[1]
	if flaky.Outcome != Flaky || !flaky.Unexpected || !strings.HasPrefix(flaky.Reason, "1/2 NOT_REPRODUCED") {
		t.Errorf("disagreeing nights = %s %q, want FLAKY 1/2", flaky.Outcome, flaky.Reason)
	}
	if len(flaky.Runs) != 2 || flaky.Runs[0].Evidence != "/shards/a/cells/kyverno-argocd_bug_v2.14.3_v1.14.0" ||
		flaky.Runs[1].Evidence != "/shards/b/cells/kyverno-argocd_bug_v2.14.3_v1.14.0" {
		t.Errorf("runs = %+v, want the first night's then the second's, each in its directory", flaky.Runs)
	}
	if agreed.Outcome != NotReproduced || agreed.Unexpected || !strings.HasPrefix(agreed.Reason, "2/2 NOT_REPRODUCED") {
		t.Errorf("agreeing nights = %s %q, want 2/2 NOT_REPRODUCED", agreed.Outcome, agreed.Reason)
	}
	if !m.Started.Equal(first.Started) || !m.Finished.Equal(second.Finished) || m.RunID != "merged-20261123-024700" {
		t.Errorf("merged run %s %s..%s", m.RunID, m.Started, m.Finished)
	}
	if len(m.Sources) != 2 || m.Sources[0].RunID != first.RunID || m.Sources[1].Cells != 2 || len(m.Notes) != 0 {
		t.Errorf("sources %+v, notes %q", m.Sources, m.Notes)
	}
	if !m.Failed() {
		t.Error("a merged FLAKY cell must fail the merged report")
	}
}

// An offline run skips kargo-argocd; the online run that ran it is the verdict.
func TestMergeSkippedGivesWayAndDifferencesAreNoted(t *testing.T) {
	kargo := Cell{Scenario: "kargo-argocd", Variant: "bug", ArgoCD: "v2.14.11", Component: "kargo", ComponentVersion: "v1.6.0"}
	offline, online := kargo, kargo
	offline.Outcome, offline.Expected, offline.Reason = Skipped, Skipped, "offline: Kargo is not obtainable offline"
	online.Outcome, online.Reason = Reproduced, "namespace team-a deleted"
	a := run("20261122-050000", night, "/runs/offline", offline)
	a.Offline = true
	b := run("20261122-060000", night.Add(time.Hour), "/runs/online", online)
	b.Kubernetes = "v1.33.1"
	for _, order := range [][]*Report{{a, b}, {b, a}} {
		m, err := Merge(order...)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Cells) != 1 || m.Cells[0].Outcome != Reproduced || len(m.Cells[0].Runs) != 0 {
			t.Fatalf("cells = %+v, want the online REPRODUCED alone", m.Cells)
		}
		notes := strings.Join(m.Notes, "\n")
		for _, want := range []string{"run 20261122-050000: 1 SKIPPED result(s) left out",
			"differ in mode: offline (run 20261122-050000), online (run 20261122-060000)"} {
			if !strings.Contains(notes, want) {
				t.Errorf("notes lack %q:\n%s", want, notes)
			}
		}
		if m.Offline || m.Kubernetes != "v1.33.1" {
			t.Errorf("offline %v, kubernetes %s", m.Offline, m.Kubernetes)
		}
	}
}

func TestMergeNotesAChangedExpectation(t *testing.T) {
	before := kyverno("v2.14.3", Reproduced)
	after := before
	after.Expected = Reproduced
	after.Settle()
	m, err := Merge(run("a", night, "", before), run("b", night.Add(time.Hour), "", after))
	if err != nil {
		t.Fatal(err)
	}
	if c := m.Cells[0]; c.Expected != Reproduced || c.Unexpected {
		t.Errorf("cell = %+v, want the later expectation checked", c)
	}
	if len(m.Notes) != 1 || !strings.Contains(m.Notes[0], "expected NOT_REPRODUCED in run a, REPRODUCED in run b") {
		t.Errorf("notes = %q", m.Notes)
	}
}

func TestMergeRejectsNothingAndTheSameRunTwice(t *testing.T) {
	if _, err := Merge(); err == nil {
		t.Error("merging nothing must be an error")
	}
	r := run("a", night, "/runs/a", kyverno("v2.14.3", Reproduced))
	if _, err := Merge(r, r); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("the same directory twice: %v", err)
	}
}

// Written elsewhere, the merged report's links still reach the runs'
// evidence; and a merged report merges again.
func TestMergedEvidenceResolvesFromTheOutputDirectory(t *testing.T) {
	root := t.TempDir()
	var runs []*Report
	for i, c := range []Cell{kyverno("v2.14.3", Reproduced), kyverno("v2.14.3", Reproduced), kyverno("v3.1.4", NotReproduced)} {
		dir := filepath.Join(root, "shards", string(rune('a'+i)), "20261122-021700")
		r := run("20261122-021700", night.Add(time.Duration(i)*time.Minute), "", c)
		if err := os.MkdirAll(filepath.Join(dir, c.Evidence), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := r.Save(dir); err != nil {
			t.Fatal(err)
		}
		loaded, err := LoadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, loaded)
	}
	out := filepath.Join(root, "merged")
	m, err := Merge(runs[:2]...)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Rebase(out); err != nil {
		t.Fatal(err)
	}
	if err := m.Save(out); err != nil {
		t.Fatal(err)
	}
	again, err := LoadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	all, err := Merge(again, runs[2])
	if err != nil {
		t.Fatal(err)
	}
	out2 := filepath.Join(root, "elsewhere", "all")
	if err := all.Rebase(out2); err != nil {
		t.Fatal(err)
	}
	if len(all.Cells) != 2 || len(all.Sources) != 3 || all.Cells[0].Reason[:3] != "2/2" {
		t.Fatalf("merged again: %d cells, %d sources, %q", len(all.Cells), len(all.Sources), all.Cells[0].Reason)
	}
	for _, c := range all.Cells {
		paths := []string{c.Evidence}
		for _, r := range c.Runs {
			paths = append(paths, r.Evidence)
		}
		for _, p := range paths {
			if filepath.IsAbs(p) || !strings.HasPrefix(p, "../../shards/") {
				t.Errorf("%s: evidence %q, want relative to the output directory", c.ID(), p)
			}
			if _, err := os.Stat(filepath.Join(out2, p)); err != nil {
				t.Errorf("%s: evidence does not resolve: %v", c.ID(), err)
			}
		}
	}
	for _, s := range all.Sources {
		if _, err := os.Stat(filepath.Join(out2, s.Dir, "report.json")); err != nil {
			t.Errorf("source %s: %v", s.RunID, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(root, "latest")); err == nil {
		t.Error("merging must not point a latest link at the merged report")
	}
}

// Shards of one run on two Kubernetes versions: the same variant on each
// version is two cells of the matrix, both kept.
func TestMergeKeepsACellPerKubernetesMinor(t *testing.T) {
	c := Cell{Scenario: "kargo-argocd", Variant: "keep-namespace-foreground", ArgoCD: "v2.14.11", Component: "kargo", ComponentVersion: "v1.6.0", Outcome: Mitigated}
	on133, on135 := c, c
	on133.Kubernetes, on135.Kubernetes = "v1.33.13", "v1.35.4"
	a := run("20261124-104339", night, "/runs/1", on133)
	b := run("20261124-104340", night, "/runs/2", on135)
	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Cells) != 2 || m.Kubernetes != "v1.33.13, v1.35.4" {
		t.Errorf("merged %d cells on %q, want 2 on v1.33.13, v1.35.4", len(m.Cells), m.Kubernetes)
	}
}
