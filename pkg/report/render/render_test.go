package render

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gitops-conformance/suite/pkg/report"
)

func sample() *report.Report {
	return &report.Report{RunID: "20261122-050000", Started: time.Unix(0, 0), Finished: time.Unix(60, 0), Offline: true, Kubernetes: "v1.33.13",
		Cells: []report.Cell{
			{Scenario: "kubeovn-argocd", Variant: "bug", ArgoCD: "v2.14.11", Component: "kube-ovn", ComponentVersion: "v1.14.10",
				Outcome: report.Reproduced, Expected: report.Reproduced, Reason: "OutOfSync | 2 refreshes", Duration: 41.2},
			{Scenario: "kubeovn-argocd", Variant: "ignore-differences", ArgoCD: "v2.14.11", Component: "kube-ovn", ComponentVersion: "v1.14.10",
				Outcome: report.NotMitigated, Expected: report.Mitigated, Reason: "stayed OutOfSync"},
			{Scenario: "kargo-argocd", Variant: "bug", ArgoCD: "v2.14.11", Outcome: report.Skipped, Expected: report.Skipped, Reason: "offline"},
		}}
}

var night = time.Date(2026, 11, 22, 2, 17, 0, 0, time.UTC)

func kyverno(argocd string, o report.Outcome) report.Cell {
	c := report.Cell{Scenario: "kyverno-argocd", Variant: "bug", ArgoCD: argocd, Component: "kyverno", ComponentVersion: "v1.14.0",
		Outcome: o, Expected: report.NotReproduced, Reason: "sync " + string(o), Duration: 200}
	c.Evidence = "cells/" + c.ID()
	c.Settle()
	return c
}

// wantAll fails the test for each of wants that the rendering got lacks.
func wantAll(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(got, want) {
			t.Errorf("%s lacks %q:\n%s", what, want, got)
		}
	}
}

// A repeated cell's section lists every run with its evidence directory, so
// "5/5" can be checked run by run.
func TestMarkdownListsRuns(t *testing.T) {
	r := sample()
	r.Cells = []report.Cell{{Scenario: "kyverno-argocd", Variant: "bug", ArgoCD: "v2.14.3", Expected: report.Reproduced, Evidence: "cells/x",
		Runs: []report.Run{{Outcome: report.Reproduced, Reason: "held", Duration: 200, Evidence: "cells/x/run-1"},
			{Outcome: report.NotReproduced, Reason: "Job | gone", Duration: 90, Evidence: "cells/x/run-2"}},
		Observations: []string{"hook Job carries the finalizer: true"}}}
	r.Cells[0].Settle()
	wantAll(t, "report.md", Markdown(r),
		"- run 1: REPRODUCED in 200s: held (`cells/x/run-1`)",
		"- run 2: NOT_REPRODUCED in 90s: Job \\| gone (`cells/x/run-2`)",
		"Run 2, step by step:",
		"- hook Job carries the finalizer: true")
}

func TestWriteAllFormats(t *testing.T) {
	r := sample()
	for i := range r.Cells {
		r.Cells[i].Settle()
	}
	if !r.Failed() {
		t.Fatal("a NOT_MITIGATED cell expected MITIGATED must fail the run")
	}
	dir := filepath.Join(t.TempDir(), "reports", r.RunID)
	if err := Write(r, dir); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var generic map[string]any
	if err := json.Unmarshal(data, &generic); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"run_id", "started", "finished", "offline", "kubernetes", "cells"} {
		if _, ok := generic[k]; !ok {
			t.Errorf("report.json lacks %q", k)
		}
	}
	cell := generic["cells"].([]any)[0].(map[string]any)
	for _, k := range []string{"scenario", "variant", "argocd", "component", "component_version", "outcome", "expected", "reason", "duration_seconds"} {
		if _, ok := cell[k]; !ok {
			t.Errorf("cell lacks %q", k)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if !strings.Contains(string(md), `OutOfSync \| 2 refreshes`) || !strings.Contains(string(md), "**(unexpected)**") {
		t.Errorf("markdown:\n%s", md)
	}
	html, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	if !strings.Contains(string(html), `class="cell not_mitigated unexpected"`) {
		t.Errorf("html lacks the unexpected cell")
	}
	junit, _ := os.ReadFile(filepath.Join(dir, "junit.xml"))
	if !strings.Contains(string(junit), `failures="1"`) || !strings.Contains(string(junit), `skipped="1"`) {
		t.Errorf("junit:\n%s", junit)
	}
	if target, err := os.Readlink(filepath.Join(filepath.Dir(dir), "latest")); err != nil || target != r.RunID {
		t.Errorf("latest -> %q, %v", target, err)
	}
}

// Rendering again from report.json leaves the data and latest alone.
func TestRenderRewritesOnlyTheRenderings(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "reports", "20261122-050000")
	r := sample()
	if err := WriteFiles(r, dir); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	if err := os.Remove(filepath.Join(dir, "report.html")); err != nil {
		t.Fatal(err)
	}
	loaded, err := report.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteRenderings(loaded, dir); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	if !bytes.Equal(data, after) {
		t.Error("render changed report.json")
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err != nil {
		t.Error("render did not write report.html")
	}
	if _, err := os.Lstat(filepath.Join(filepath.Dir(dir), "latest")); err == nil {
		t.Error("render must not repoint latest")
	}
}

// Cells that need a look come first; then each scenario gets its own table
// whose columns are its ArgoCD releases, by version.
func TestHTMLTablePerScenarioColumnsByVersion(t *testing.T) {
	r := sample()
	r.Cells = append(r.Cells, kyverno("v2.14.21", report.NotReproduced), kyverno("v2.14.3", report.Reproduced), kyverno("v3.1.4", report.NotReproduced))
	for i := range r.Cells {
		r.Cells[i].Settle()
	}
	html := HTML(r)
	kyv := html[strings.Index(html, "<h2>kyverno-argocd"):]
	kyv = kyv[:strings.Index(kyv, "</table>")]
	if i, j, k := strings.Index(kyv, "ArgoCD v2.14.3"), strings.Index(kyv, "ArgoCD v2.14.21"), strings.Index(kyv, "ArgoCD v3.1.4"); i < 0 || i > j || j > k {
		t.Errorf("kyverno columns out of version order:\n%s", kyv)
	}
	look := strings.Index(html, `<h2>Needs a look</h2><ul class="look"><li><span class="not_mitigated">NOT_MITIGATED</span> kubeovn-argocd ignore-differences`)
	if look < 0 || look > strings.Index(html, "<h2>kubeovn-argocd") {
		t.Errorf("the unexpected cell is not listed before the tables:\n%s", html)
	}
	kube := html[strings.Index(html, "<h2>kubeovn-argocd"):]
	kube = kube[:strings.Index(kube, "</table>")]
	if strings.Contains(kube, "v3.1.4") {
		t.Errorf("kubeovn table carries kyverno's columns:\n%s", kube)
	}
}

func TestSummaryPutsCellsThatNeedALookFirst(t *testing.T) {
	r := sample()
	r.Cells = append(r.Cells, kyverno("v2.14.3", report.Error))
	for i := range r.Cells {
		r.Cells[i].Settle()
	}
	s := Summary(r)
	wantAll(t, "summary", s,
		"## Conformance: 4 cells, 2 need a look",
		"REPRODUCED 1 · NOT_MITIGATED 1 · SKIPPED 1 · ERROR 1.",
		"| kubeovn-argocd | ignore-differences | kube-ovn v1.14.10 | v2.14.11 | **NOT_MITIGATED** | MITIGATED | stayed OutOfSync |",
		"| ignore-differences | kube-ovn v1.14.10 | **NOT_MITIGATED** (expected MITIGATED) |",
		"| bug | kube-ovn v1.14.10 | REPRODUCED |")
	look, matrix := strings.Index(s, "### Needs a look"), strings.Index(s, "### kubeovn-argocd")
	if look < 0 || look > matrix || strings.Index(s, "### kubeovn-argocd") > strings.Index(s, "### kargo-argocd") {
		t.Errorf("want the cells that need a look, then scenarios with such cells first:\n%s", s)
	}
}

// The report marks each ArgoCD release supported or end-of-life as the run
// read it: a line in the Markdown, the HTML's column heads.
func TestArgoCDSupportIsRendered(t *testing.T) {
	r := sample()
	r.ArgoCDSupport = &report.Support{Lines: []string{"3.6 (newest v3.6.1)", "3.5 (newest v3.5.7)", "3.4 (newest v3.4.13)"},
		Releases: map[string]string{"v2.14.11": "end-of-life", "v3.5.1": "supported"}}
	r.Cells = append(r.Cells, report.Cell{Scenario: "kubeovn-argocd", Variant: "bug", ArgoCD: "v3.5.1", Component: "kube-ovn", ComponentVersion: "v1.14.10", Outcome: report.Reproduced})
	md := Markdown(r)
	if !strings.Contains(md, "ArgoCD v2.14.11 end-of-life, v3.5.1 supported (upstream supports 3.6 (newest v3.6.1), 3.5 (newest v3.5.7), 3.4 (newest v3.4.13)") {
		t.Errorf("markdown lacks the support line:\n%s", md)
	}
	html := HTML(r)
	if !strings.Contains(html, `ArgoCD v3.5.1<div class="meta">supported</div>`) || !strings.Contains(html, `ArgoCD v2.14.11<div class="meta">end-of-life</div>`) {
		t.Errorf("the HTML's column heads lack the marks:\n%s", html)
	}
	if HTML(sample()) == "" || strings.Contains(Markdown(sample()), "end-of-life") {
		t.Error("a report without support data renders without marks")
	}
}

// The same cell on two Kubernetes versions: the report sets the two tallies
// side by side (markdown, HTML), the counts of each outcome per version.
func TestAcrossKubernetesSetsTheTalliesSideBySide(t *testing.T) {
	runs := func(outcomes ...report.Outcome) []report.Run {
		var rs []report.Run
		for _, o := range outcomes {
			rs = append(rs, report.Run{Outcome: o})
		}
		return rs
	}
	cell := report.Cell{Scenario: "kargo-argocd", Variant: "keep-namespace-foreground", ArgoCD: "v2.14.11", Component: "kargo", ComponentVersion: "v1.6.0"}
	on135, on133, other := cell, cell, cell
	on135.Kubernetes, on135.Runs = "v1.35.4", runs(report.Mitigated, report.Mitigated, report.Mitigated)
	on133.Kubernetes, on133.Runs = "v1.33.13", runs(report.Mitigated, report.NotMitigated, report.Mitigated)
	other.Variant, other.Kubernetes = "bug", "v1.33.13"
	for _, c := range []*report.Cell{&on135, &on133} {
		c.Settle()
	}
	r := &report.Report{RunID: "20261124-120000", Cells: []report.Cell{on135, other, on133}}
	wantAll(t, "markdown", Markdown(r), "## Across Kubernetes versions", "| Kubernetes v1.33.13 | Kubernetes v1.35.4 |", "| outcome | MITIGATED 2/3, NOT_MITIGATED 1/3 | MITIGATED 3/3 |")
	if html := HTML(r); !strings.Contains(html, "<b>v1.35.4</b>: MITIGATED 3/3") {
		t.Errorf("html lacks the v1.35.4 tally")
	}
}

// A merge of an offline and an online run says its mode is mixed.
func TestMergedModesAreNamed(t *testing.T) {
	a := &report.Report{RunID: "a", Started: night, Finished: night.Add(time.Hour), Offline: true, Cells: []report.Cell{kyverno("v2.14.3", report.Reproduced)}}
	b := &report.Report{RunID: "b", Started: night.Add(time.Hour), Finished: night.Add(2 * time.Hour), Cells: []report.Cell{kyverno("v2.14.3", report.Reproduced)}}
	m, err := report.Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	wantAll(t, "markdown", Markdown(m), "mixed: offline and online runs")
}
