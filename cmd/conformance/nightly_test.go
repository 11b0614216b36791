package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestMain lets the test binary stand in for the conformance CLI when a test
// runs a script that calls it (CONFORMANCE=<test binary>).
func TestMain(m *testing.M) {
	if os.Getenv("CONFORMANCE_TEST_AS_CLI") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The nightly's shards are each scenario on each release of its default
// ArgoCD axis, no more and no fewer.
func TestNightlyShardsAreTheMatrixAxes(t *testing.T) {
	raw, err := os.ReadFile("../../.github/workflows/nightly.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Strategy struct {
				Matrix struct {
					Include []map[string]any `json:"include"`
				} `json:"matrix"`
			} `json:"strategy"`
		} `json:"jobs"`
	}
	if err := yaml.Unmarshal(raw, &wf); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, shard := range wf.Jobs["shard"].Strategy.Matrix.Include {
		got = append(got, fmt.Sprintf("%v@%v", shard["scenario"], shard["argocd"]))
	}
	cat, data := loadMatrix(t)
	var want []string
	for _, s := range data.Scenarios {
		axis := s.ArgoCD
		if len(axis) == 0 {
			axis = cat.ArgoCD.Default
		}
		for _, tag := range axis {
			want = append(want, s.Name+"@"+tag)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("nightly.yml shards:\n  %s\nthe matrix's default axes:\n  %s", strings.Join(got, " "), strings.Join(want, " "))
	}
}

// The nightly's merge step, as the workflow runs it, on shard artifacts laid
// out as actions/download-artifact leaves them, one shard having crashed
// before it wrote its report.
func TestNightlyMergeStep(t *testing.T) {
	out := t.TempDir()
	for i, run := range testRuns(t) {
		dst := filepath.Join(out, "shards", fmt.Sprintf("report-shard-%d", i), filepath.Base(run))
		if err := os.CopyFS(dst, os.DirFS(run)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(out, "shards", "report-knative-argocd-v2.14.11", "20261122-021720", "cells"), 0o755); err != nil {
		t.Fatal(err)
	}
	summary := filepath.Join(t.TempDir(), "summary.md")
	cmd := exec.Command("bash", "hack/nightly-merge.sh", out)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "CONFORMANCE="+os.Args[0], "CONFORMANCE_TEST_AS_CLI=1", "GITHUB_STEP_SUMMARY="+summary)
	if output, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hack/nightly-merge.sh: %v\n%s", err, output)
	}
	s, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Conformance: 13 cells, 2 need a look", "runs merged: 6",
		"- report-knative-argocd-v2.14.11: no report.json"} {
		if !strings.Contains(string(s), want) {
			t.Errorf("job summary lacks %q:\n%s", want, s)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
		t.Error(err)
	}
}
