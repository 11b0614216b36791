package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/releases"
	"github.com/gitops-conformance/suite/pkg/schedule"
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

// The nightly's shard job takes its matrix from conformance releases, and
// every matrix field it reads is one the plan writes (pkg/releases.Shard).
func TestNightlyWorkflowTakesTheReleasesPlan(t *testing.T) {
	raw, err := os.ReadFile("../../.github/workflows/nightly.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Strategy struct {
				Matrix any `json:"matrix"`
			} `json:"strategy"`
			Steps []map[string]any `json:"steps"`
		} `json:"jobs"`
	}
	if err := yaml.Unmarshal(raw, &wf); err != nil {
		t.Fatal(err)
	}
	if m := wf.Jobs["shard"].Strategy.Matrix; m != "${{ fromJSON(needs.releases.outputs.matrix) }}" {
		t.Errorf("the shard job's matrix is %v, not the releases job's plan", m)
	}
	if !strings.Contains(string(raw), `jq -c '{include: .shards}' releases.json`) || !strings.Contains(string(raw), "make releases MODE=online RELEASES_JSON=releases.json") {
		t.Error("the releases job does not turn make releases' shards into the matrix")
	}
	fields := map[string]bool{}
	st := reflect.TypeOf(releases.Shard{})
	for i := range st.NumField() {
		fields[strings.Split(st.Field(i).Tag.Get("json"), ",")[0]] = true
	}
	used := regexp.MustCompile(`matrix\.([a-z0-9_]+)`).FindAllStringSubmatch(string(raw), -1)
	if len(used) < 8 {
		t.Fatalf("the workflow reads %d matrix fields: not the shard job this test knows", len(used))
	}
	for _, m := range used {
		if !fields[m[1]] {
			t.Errorf("nightly.yml reads matrix.%s, which conformance releases does not write (fields: %v)", m[1], slices.Sorted(maps.Keys(fields)))
		}
	}
}

// fakeProxy lists ArgoCD's lines 3.0 to 3.6 as this machine's module proxy
// did on 2026-11-24 (newest patches v3.4.13, v3.5.7, v3.6.1) and serves
// every component version asked for: each component has releases past its
// pins, which the full shards run.
type fakeProxy struct{}

func (fakeProxy) Versions(_ context.Context, module string) ([]string, error) {
	if module == "github.com/argoproj/argo-cd/v3" {
		return []string{"v3.0.0", "v3.1.0", "v3.2.0", "v3.3.0", "v3.4.0", "v3.4.13", "v3.5.0", "v3.5.7", "v3.6.0", "v3.6.1"}, nil
	}
	return nil, errors.New("403 Forbidden")
}
func (fakeProxy) Tags(context.Context, string) ([]string, error) { return nil, errors.New("git") }
func (fakeProxy) Lookup(_ context.Context, module, version string) error {
	if n := catalog.TagNumbers(version); strings.HasPrefix(module, "github.com/argoproj/argo-cd/") && n[0] == 3 && n[1] >= 4 && !slices.Contains([]string{"v3.4.0", "v3.4.13", "v3.5.0", "v3.5.7", "v3.6.0", "v3.6.1"}, version) {
		return errors.New("403 Forbidden")
	}
	return nil
}

// GoMod: 3.6's go.mod requires its nested engine at the release's tag.
func (fakeProxy) GoMod(_ context.Context, module, version string) ([]byte, error) {
	if catalog.TagNumbers(version)[1] >= 6 {
		return []byte("module " + module + "\n\nrequire github.com/argoproj/argo-cd/gitops-engine/v3 " + version + "\n\nreplace github.com/argoproj/argo-cd/gitops-engine/v3 => ./gitops-engine\n"), nil
	}
	return []byte("module " + module + "\n"), nil
}

// Each scenario runs every variant on each release of its axis (the seed
// pins), as the nightly did before it read releases, and on the newest
// patch of each supported line; a seed pin only some variants name on their
// own axis (the guard's bug on v3.6.0) runs those variants.
func TestNightlyPlanRunsTheSeedAxesAndTheSupportedLines(t *testing.T) {
	cat, data := loadMatrix(t)
	f := &releases.Finder{Catalog: cat, Matrix: data, Source: fakeProxy{}, Mode: images.Online, Repo: t.TempDir()}
	r, err := f.Find(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Plan(cat, data, schedule.ReadCosts(t.TempDir())); err != nil {
		t.Fatal(err)
	}
	full := map[string]releases.Shard{}
	for _, sh := range r.Shards {
		// make e2e takes the shard as it is: its selection plans every cell it names
		cells, err := data.Plan(cat, matrix.Selection{Scenarios: []string{sh.Scenario}, ArgoCD: []string{sh.ArgoCD},
			Variants: matrix.ParseList(sh.Variant), Versions: matrix.ParseList(sh.ComponentVersion)})
		if err != nil {
			t.Fatalf("shard %s: %v", sh.ID, err)
		}
		planned := map[string]bool{}
		for _, c := range cells {
			planned[c.Report().ID()] = true
		}
		for _, id := range matrix.ParseList(sh.Cells) {
			if !planned[id] {
				t.Errorf("shard %s names cell %s, which its selection does not plan", sh.ID, id)
			}
		}
		if n := len(matrix.ParseList(sh.Cells)); n == 0 && len(cells) != sh.CellCount || n > 0 && n != sh.CellCount {
			t.Errorf("shard %s: %d cells counted, the selection plans %d and names %d", sh.ID, sh.CellCount, len(cells), n)
		}
		if sh.Tier == releases.TierFull {
			full[sh.Scenario+"@"+sh.ArgoCD] = sh
		}
	}
	for _, s := range data.Scenarios {
		axis := s.ArgoCDTags(cat.ArgoCD.Default)
		for _, tag := range append(slices.Clone(axis), "v3.4.13", "v3.5.7", "v3.6.1") {
			if catalog.MustRelease(tag).FromSources() && !slices.Contains([]string{"v3.4.13", "v3.5.7", "v3.6.1"}, tag) {
				// on the default axis as the newest patch obtainable offline, not a
				// seed pin: online the supported line's newest patch takes the full tier
				continue
			}
			want := ""
			if !slices.Contains([]string{"v3.4.13", "v3.5.7", "v3.6.1"}, tag) {
				var on []string
				for _, v := range s.Variants {
					if slices.Contains(s.ArgoCDAxis(v, cat.ArgoCD.Default), tag) {
						on = append(on, v.Name)
					}
				}
				if len(on) < len(s.Variants) {
					want = strings.Join(on, ",")
				}
			}
			sh, ok := full[s.Name+"@"+tag]
			if !ok || sh.Variant != want {
				t.Errorf("no full shard of %s on %s with VARIANT=%q (%+v)", s.Name, tag, want, sh)
			}
		}
	}
}

// The nightly's merge and publish steps, as the workflow runs them, four
// nights in a row on shard artifacts laid out as actions/download-artifact
// leaves them: the first night has nothing to compare with; the second flips
// a cell (the nightly fails); the third flips it back (a new change: fails);
// the fourth flips it as the second did (reported before: passes). One shard
// crashed before it wrote its report, every night.
func TestNightlyMergeAndPublishSteps(t *testing.T) {
	site := filepath.Join(t.TempDir(), "site")
	rel := filepath.Join(t.TempDir(), "releases.json") // what make releases wrote that night
	if err := os.WriteFile(rel, []byte(`{"argocd": {"supported": ["2.14"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	runs := map[string]string{}
	for _, dir := range testRuns(t) {
		runs[filepath.Base(dir)] = dir
	}
	before := []string{runs["20261122-021700"], runs["20261122-021705"]} // kyverno argocd-upgrade on v2.14.3 NOT_MITIGATED
	after := []string{runs["20261122-021700"], runs["20261123-021700"]}  // ... MITIGATED
	for i, tc := range []struct {
		shards       []string
		status       int
		first, wants string
	}{
		{before, 0, "## Since the last night: no earlier night", "## Conformance: 8 cells"},
		{after, 1, "## Since the last night: 1 cell changed its outcome (1 fails the nightly)", "NOT_MITIGATED | **MITIGATED** | NOT_MITIGATED | **fails the nightly**"},
		{before, 1, "## Since the last night: 1 cell changed its outcome (1 fails the nightly)", "- kyverno-argocd hook-disabled · ArgoCD v2.14.3 · kyverno v1.14.0"},
		{after, 0, "## Since the last night: 1 cell changed its outcome,", "| reported before (merged-20261125-"},
	} {
		out := filepath.Join(t.TempDir(), "merged")
		for j, run := range tc.shards {
			shifted(t, run, filepath.Join(out, "shards", fmt.Sprintf("report-shard-%d", j), filepath.Base(run)), 24*(i+1))
		}
		if err := os.MkdirAll(filepath.Join(out, "shards", "report-knative-argocd-v2.14.11-full", "20261122-021720", "cells"), 0o755); err != nil {
			t.Fatal(err)
		}
		// a PARALLEL run's clusters' reports under its own: its report merges them already
		first := filepath.Join(out, "shards", "report-shard-0", filepath.Base(tc.shards[0]))
		shifted(t, tc.shards[0], filepath.Join(first, "shards", "1", filepath.Base(tc.shards[0])), 24*(i+1))
		summary := filepath.Join(t.TempDir(), "summary.md")
		status, output := conformance(t, []string{"GITHUB_STEP_SUMMARY=" + summary}, "report", "nightly-merge", "-site", site, "-supported", "2.14", out)
		if status != tc.status {
			t.Fatalf("night %d: report nightly-merge exit %d, want %d\n%s", i+1, status, tc.status, output)
		}
		s, err := os.ReadFile(summary)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(s), tc.first) || !strings.Contains(string(s), tc.wants) ||
			!strings.Contains(string(s), "- report-knative-argocd-v2.14.11-full: no report.json") {
			t.Errorf("night %d: job summary does not start with %q or lacks %q or the shard without a report:\n%s", i+1, tc.first, tc.wants, s)
		}
		if !strings.Contains(output, "runs merged: 2,") {
			t.Errorf("night %d: the merge took other than the two shards' runs:\n%s", i+1, output)
		}
		if status, output := conformance(t, nil, "report", "publish", "-run-url", "https://example.com/runs/"+fmt.Sprint(i+1), "-releases", rel, out, site); status != 0 {
			t.Fatalf("night %d: report publish exit %d\n%s", i+1, status, output)
		}
		if status, output := conformance(t, nil, "report", "night", out); status != 0 || !strings.HasPrefix(output, fmt.Sprintf("2026112%d-", 3+i)) {
			t.Errorf("night %d: report night: exit %d, %q", i+1, status, output)
		}
	}
	nights, err := filepath.Glob(filepath.Join(site, "nights", "*", "report.html"))
	if err != nil || len(nights) != 4 {
		t.Fatalf("published nights: %v %v", nights, err)
	}
	index, err := os.ReadFile(filepath.Join(site, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"first night", `<span class="fail">(1 failed the nightly)</span>`, "https://example.com/runs/4", "kyverno-argocd",
		"supported ArgoCD lines 2.14", `<th class="line supported" colspan="1">ArgoCD 2.14</th>`} {
		if !strings.Contains(string(index), want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(site, ".nojekyll")); err != nil {
		t.Error(err)
	}
}

// shifted copies a run's report directory to dst, its start and end hours
// later and its run id to match: the same run on another night.
func shifted(t *testing.T, src, dst string, hours int) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dst, "report.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"started", "finished"} {
		at, err := time.Parse(time.RFC3339, r[k].(string))
		if err != nil {
			t.Fatal(err)
		}
		r[k] = at.Add(time.Duration(hours) * time.Hour).Format(time.RFC3339)
	}
	data, err = json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// conformance runs the CLI (the test binary as it) from the repository
// root, and returns its exit status and output.
func conformance(t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = "../.."
	cmd.Env = append(append(os.Environ(), "CONFORMANCE_TEST_AS_CLI=1"), env...)
	output, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), string(output)
	}
	if err != nil {
		t.Fatalf("conformance %v: %v", args, err)
	}
	return 0, string(output)
}
