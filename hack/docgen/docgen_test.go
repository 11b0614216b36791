package main

import (
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/suites"
)

func TestFirstSentence(t *testing.T) {
	for in, want := range map[string]string{
		"Sync starts a sync operation. It returns at once.":               "Sync starts a sync operation.",
		"Delete deletes an object (e.g. \"--cascade=foreground\"). More.": "Delete deletes an object (e.g. \"--cascade=foreground\").",
		"Chart 1.5.2 is the one.\nSecond line.":                           "Chart 1.5.2 is the one.",
		"No period at all\n\nSecond paragraph.":                           "No period at all",
		"Wraps\nacross lines. Then more.":                                 "Wraps across lines.",
	} {
		if got := FirstSentence(in); got != want {
			t.Errorf("FirstSentence(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSpliceReplacesOnlyBetweenTheMarkers(t *testing.T) {
	page := "before\n" + markers("x", "old\n") + "after\n"
	got, err := Splice(page, "x", "new\n")
	if err != nil || got != "before\n"+markers("x", "new\n")+"after\n" {
		t.Fatalf("Splice = %q, %v", got, err)
	}
	if s, err := Section(got, "x"); err != nil || s != "new\n" {
		t.Fatalf("Section = %q, %v", s, err)
	}
	if _, err := Splice("no markers", "x", "new"); err == nil {
		t.Fatal("a page without the markers must be refused")
	}
}

// The real packages: every exported name has a doc comment, and a page
// naming a verb the code lacks is caught.
func TestVocabularyOfTheRealPackagesAndMentions(t *testing.T) {
	page, names, err := Vocabulary("../..", vocabularyPackages)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| `Sync(name string, options ...string) features.Func` |", "## pkg/assert", "`Intervals`"} {
		if !strings.Contains(page, want) {
			t.Errorf("the vocabulary lacks %q", want)
		}
	}
	bad := CheckMentions(map[string]string{"a.md": "use env.Sync, assert.Intervals.Sync and fixture.Chart; not env.HelmTemplate or fixture.Transform"}, names)
	if strings.Join(bad, "; ") != "a.md: env.HelmTemplate; a.md: fixture.Transform" {
		t.Errorf("CheckMentions = %q", bad)
	}
}

func TestResultsPageHasEveryScenarioItsFindingsAndTheReport(t *testing.T) {
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	data, err := suites.Matrix()
	if err != nil {
		t.Fatal(err)
	}
	r, err := report.LoadDir("../../cmd/conformance/testdata/reports/20261122-021700")
	if err != nil {
		t.Fatal(err)
	}
	page, err := ResultsPage(cat, data, suites.Scenarios(), ReportSection(r))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range data.Scenarios {
		if !strings.Contains(page, "\n## "+s.Name+"\n") {
			t.Errorf("no section for %s", s.Name)
		}
	}
	for _, want := range []string{"[scenarios/kyverno/README.md](../scenarios/kyverno/README.md)", "| `hook-disabled` | mitigation |",
		"Run `20261122-021700`", "\n### Conformance: ", "20261122-224330"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if s, err := Section(page, "report"); err != nil || !strings.HasPrefix(s, "Run `20261122-021700`") {
		t.Errorf("the report section is not between its markers: %q, %v", s, err)
	}
}

// The README's table has a row per scenario of matrix.yaml, each with its
// title, issue and findings page; a scenario without a title, or whose
// upstream is not an issue URL, is refused.
func TestScenarioTable(t *testing.T) {
	data, err := suites.Matrix()
	if err != nil {
		t.Fatal(err)
	}
	table, err := ScenarioTable(data, suites.Scenarios())
	if err != nil {
		t.Fatal(err)
	}
	if rows := strings.Count(table, "\n") - 2; rows != len(data.Scenarios) {
		t.Errorf("%d rows for %d scenarios:\n%s", rows, len(data.Scenarios), table)
	}
	if !strings.Contains(table, "| `kubeovn-argocd` | a CRD's") || !strings.Contains(table, "[kubeovn/kube-ovn#4817](https://github.com/kubeovn/kube-ovn/issues/4817) | [scenarios/kubeovn](scenarios/kubeovn/README.md) |") {
		t.Errorf("the kubeovn row is not as expected:\n%s", table)
	}
	data.Scenarios[0].Title = ""
	if _, err := ScenarioTable(data, suites.Scenarios()); err == nil || !strings.Contains(err.Error(), "no title") {
		t.Errorf("a scenario without a title: err = %v", err)
	}
	for _, u := range []string{"https://example.com/a/b/issues/1", "https://github.com/a/b", "::"} {
		if _, err := issueRef(u); err == nil {
			t.Errorf("issueRef(%q) accepted", u)
		}
	}
	if got, err := issueRef("https://github.com/akuity/kargo/pull/4202"); err != nil || got != "akuity/kargo#4202" {
		t.Errorf("issueRef = %q, %v", got, err)
	}
}
