package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/runner"
)

// testdata/reports holds six runs as a nightly leaves them: shards of one
// night (kubeovn-argocd, kyverno-argocd on two releases, kargo-argocd online),
// kyverno-argocd on v2.14.3 again the next night, and an offline kargo-argocd
// run that skipped its cells.
func testRuns(t *testing.T) []string {
	dirs, err := filepath.Glob("testdata/reports/2026*")
	if err != nil || len(dirs) != 6 {
		t.Fatalf("testdata runs: %v %v", dirs, err)
	}
	return dirs
}

func TestReportMerge(t *testing.T) {
	out := filepath.Join(t.TempDir(), "nightly", "merged")
	var stdout bytes.Buffer
	if err := reportCommand(append([]string{"merge", "-o", out}, testRuns(t)...), &stdout); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stdout.String(), "runs merged: 6, cells: 13") {
		t.Errorf("stdout = %q", stdout.String())
	}
	for _, f := range []string{"report.json", "report.md", "report.html", "junit.xml"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Lstat(filepath.Join(filepath.Dir(out), "latest")); err == nil {
		t.Error("merge must not point a latest link at the merged report")
	}
	m, err := report.LoadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]report.Cell{}
	for _, c := range m.Cells {
		byID[c.ID()] = c
		evidence := []string{c.Evidence}
		for _, r := range c.Runs {
			evidence = append(evidence, r.Evidence)
		}
		for _, e := range evidence {
			if _, err := os.Stat(filepath.Join(out, e)); err != nil || filepath.IsAbs(e) {
				t.Errorf("%s: evidence %q does not resolve from the merged report: %v", c.ID(), e, err)
			}
		}
	}
	for id, want := range map[string]string{
		"kyverno-argocd_bug_v2.14.3_v1.14.0_k8s-v1.33.13":            "REPRODUCED 3/3",
		"kyverno-argocd_argocd-upgrade_v2.14.3_v1.14.0_k8s-v1.33.13": "FLAKY 2/3",
		"kyverno-argocd_hook-disabled_v2.14.21_v1.14.0_k8s-v1.33.13": "ERROR",
		"kargo-argocd_bug_v2.14.11_v1.6.0_k8s-v1.33.13":              "REPRODUCED", // the online run, not the offline SKIPPED
	} {
		c := byID[id]
		if got := strings.TrimSpace(string(c.Outcome) + " " + strings.SplitN(c.Reason, " ", 2)[0]); !strings.HasPrefix(got, want) {
			t.Errorf("%s = %q, want %s", id, got, want)
		}
	}
	if len(m.Cells) != 13 || len(m.Sources) != 6 || !m.Failed() {
		t.Errorf("merged: %d cells, %d sources, failed %v", len(m.Cells), len(m.Sources), m.Failed())
	}
}

func TestReportRenderAndSummary(t *testing.T) {
	src := "testdata/reports/20261122-021705"
	dir := filepath.Join(t.TempDir(), "reports", "20261122-021705")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(src, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := reportCommand([]string{"render", dir}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil || !strings.Contains(string(md), "- run 2: REPRODUCED in 207s") {
		t.Errorf("report.md: %v\n%s", err, md)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "report.json")); !bytes.Equal(after, data) {
		t.Error("render changed report.json")
	}
	if _, err := os.Lstat(filepath.Join(filepath.Dir(dir), "latest")); err == nil {
		t.Error("render must not repoint latest")
	}
	var stdout bytes.Buffer
	if err := reportCommand([]string{"summary", src}, &stdout); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stdout.String(), "## Conformance: 3 cells, as expected") ||
		!strings.Contains(stdout.String(), "| argocd-upgrade | kyverno v1.14.0 | NOT_MITIGATED |") {
		t.Errorf("summary:\n%s", stdout.String())
	}
}

// Bad input is one line and exit status 2 (a usageError), through run as main calls it.
func TestReportRejectsBadInputWithOneLine(t *testing.T) {
	cat, data := loadMatrix(t)
	out := t.TempDir()
	run1 := "testdata/reports/20261122-021700"
	for _, args := range [][]string{
		{},
		{"publish"},
		{"merge", run1},
		{"merge", "-o", out},
		{"merge", "-o", out, "testdata/reports/nope"},
		{"merge", "-o", out, "testdata"},
		{"merge", "-o", run1, run1},
		{"merge", "-o", "testdata/reports/20261122-021710", run1},
		{"merge", "-o", out, run1, "./" + run1},
		{"render"},
		{"render", run1, run1},
		{"summary", "testdata"},
	} {
		err := run(context.Background(), cat, data, "report", args)
		if !runner.IsBadInput(err) {
			t.Errorf("report %v: want a usage error, got %v", args, err)
			continue
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("report %v: error is not one line: %q", args, err)
		}
	}
}
