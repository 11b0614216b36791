package matrix

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/catalog"
)

func TestComponentVersionsOneCellEach(t *testing.T) {
	d, err := Parse([]byte(`
scenarios:
  - name: s
    component: c
    argocd: [v2.14.11, v2.13.3]
    variants:
      - name: bug
        componentVersions: [v0.42.2, v0.43.0]
      - name: fix
        mitigation: true
        componentVersion: v0.43.0
expectations:
  - scenario: s
    variant: bug
    argocd: v2.13.3
    kubernetes: v1.33.13
    componentVersion: v0.42.2
    expected: NOT_REPRODUCED
    runs: [20261122-081801]
  - scenario: s
    variant: bug
    argocd: v2.13.3,v2.14.11
    kubernetes: v1.33.13
    componentVersion: v0.43.0
    expected: REPRODUCED
    runs: [20261122-081801, 20261122-093900-2]
`))
	if err != nil {
		t.Fatal(err)
	}
	cells, err := d.Plan(&catalog.Catalog{ArgoCD: argocdV2, Kubernetes: kube133}, Selection{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cells {
		got = append(got, c.Report().ID())
	}
	want := []string{
		"s_bug_v2.13.3_v0.42.2_k8s-v1.33.13", "s_bug_v2.13.3_v0.43.0_k8s-v1.33.13", "s_fix_v2.13.3_v0.43.0_k8s-v1.33.13",
		"s_bug_v2.14.11_v0.42.2_k8s-v1.33.13", "s_bug_v2.14.11_v0.43.0_k8s-v1.33.13", "s_fix_v2.14.11_v0.43.0_k8s-v1.33.13",
	}
	if len(got) != len(want) {
		t.Fatalf("cells = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("cells = %v, want %v", got, want)
		}
	}
	if e, _ := d.Expected(cells[0], true); e != "NOT_REPRODUCED" {
		t.Fatalf("expected for %s = %s", cells[0].Report().ID(), e)
	}
	if e, _ := d.Expected(cells[1], true); e != "REPRODUCED" {
		t.Fatalf("expected for %s = %s", cells[1].Report().ID(), e)
	}
	// measured nowhere: v0.42.2 on v2.14.11, and the fix on any release
	for _, i := range []int{2, 3, 5} {
		if e, why := d.Expected(cells[i], true); e != "" || !strings.Contains(why, "no measured expectation") {
			t.Fatalf("expected for %s = %q (%s), want none measured", cells[i].Report().ID(), e, why)
		}
	}
	if v := (Variant{ComponentVersion: "v1"}).Versions(); len(v) != 1 || v[0] != "v1" {
		t.Fatalf("a single componentVersion: %v", v)
	}
}

func TestSelectedVersionsReplaceTheVariants(t *testing.T) {
	d, err := Parse([]byte(`
scenarios:
  - name: s
    component: c
    argocd: [v2.14.11]
    variants:
      - name: bug
        componentVersions: [v0.42.2, v0.43.0]
      - name: fix
        mitigation: true
        componentVersion: v0.43.0
  - name: other
    component: o
    argocd: [v2.14.11]
    variants:
      - name: bug
        componentVersion: v1.0.0
`))
	if err != nil {
		t.Fatal(err)
	}
	cat := &catalog.Catalog{ArgoCD: argocdV2, Kubernetes: kube133, Components: map[string]catalog.Component{
		"c": {Versions: []string{"v0.42.2", "v0.43.0", "v0.47.1"}},
		"o": {Versions: []string{"v1.0.0"}},
	}}
	cells, err := d.Plan(cat, Selection{Versions: []string{"v0.47.1"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cells {
		got = append(got, c.Report().ID())
	}
	if want := "[s_bug_v2.14.11_v0.47.1_k8s-v1.33.13 s_fix_v2.14.11_v0.47.1_k8s-v1.33.13]"; fmt.Sprint(got) != want {
		t.Fatalf("cells = %v, want %s", got, want)
	}
	if _, err := d.Plan(cat, Selection{Versions: []string{"v9.9.9"}}); err == nil || !strings.Contains(err.Error(), `unknown component version "v9.9.9" (valid: c: v0.42.2, v0.43.0, v0.47.1; o: v1.0.0)`) {
		t.Fatalf("unknown version: %v", err)
	}
	// a release newer than the pins, for the scenario that installs it: every
	// variant that installs the component runs on it, minimal on none
	d.Scenarios[0].Variants = append(d.Scenarios[0].Variants, Variant{Name: "minimal"})
	cells, err = d.Plan(cat, Selection{Scenarios: []string{"s"}, Versions: []string{"v0.43.0", "v0.51.0"}})
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, c := range cells {
		got = append(got, c.Report().ID())
	}
	if want := "[s_bug_v2.14.11_v0.43.0_k8s-v1.33.13 s_bug_v2.14.11_v0.51.0_k8s-v1.33.13 s_fix_v2.14.11_v0.43.0_k8s-v1.33.13 s_fix_v2.14.11_v0.51.0_k8s-v1.33.13 s_minimal_v2.14.11_k8s-v1.33.13]"; fmt.Sprint(got) != want {
		t.Fatalf("cells = %v, want %s", got, want)
	}
	if !Pinned(cat, d.Scenarios[0], "v0.43.0") || Pinned(cat, d.Scenarios[0], "v0.51.0") {
		t.Error("Pinned: v0.43.0 is the catalog's, v0.51.0 is not")
	}
	for _, bad := range []Selection{
		{Scenarios: []string{"s"}, Versions: []string{"latest"}}, // not a version
		{Versions: []string{"v0.51.0"}},                          // whose? two components selected
	} {
		if _, err := d.Plan(cat, bad); err == nil {
			t.Errorf("Plan(%+v) accepted", bad)
		}
	}
}

// argocdV2 is a catalog's ArgoCD part that parses v2 tags.
var argocdV2 = catalog.ArgoCD{Modules: map[string]string{"v2": "github.com/argoproj/argo-cd/v2"}}

// kube133 is a catalog's Kubernetes axis of one version.
var kube133 = catalog.Kubernetes{Default: "v1.33.13", Versions: []catalog.KubeVersion{{Version: "v1.33.13"}}}

func TestReplayNamesTheCell(t *testing.T) {
	c := Cell{Scenario: Scenario{Name: "knative-argocd"}, Variant: Variant{Name: "bug"}, ArgoCD: catalog.MustRelease("v2.14.11"), ComponentVersion: "v0.42.2"}
	want := "make e2e SCENARIO=knative-argocd VARIANT=bug ARGOCD=v2.14.11 COMPONENT_VERSION=v0.42.2"
	if got := c.Replay(); got != want {
		t.Errorf("Replay() = %q, want %q", got, want)
	}
}

func TestParseRefusesExpectationsNoVariantCanHave(t *testing.T) {
	const head = "scenarios:\n- name: s\n  component: c\n  variants:\n  - {name: bug}\n  - {name: fix, mitigation: true}\n  - {name: versioned, mitigation: true, componentVersions: [v1, v2]}\nexpectations:\n"
	const measured = "argocd: v2.14.11, kubernetes: v1.33.13, runs: [20261122-081801]"
	for _, bad := range []string{
		"- {scenario: s, variant: nope, expected: REPRODUCED, " + measured + "}",
		"- {scenario: s, variant: bug, expected: MITIGATED, " + measured + "}",
		"- {scenario: s, variant: fix, expected: REPRODUCED, " + measured + "}",

		"- {scenario: s, variant: 'bug,fix', expected: MITIGATED, " + measured + "}",                      // covers bug too
		"- {scenario: s, variant: bug, expected: REPRODUCED, runs: [20261122-081801]}",                    // no release
		"- {scenario: s, variant: bug, expected: REPRODUCED, argocd: 'v2.14.*', runs: [20261122-081801]}", // a pattern
		"- {scenario: s, variant: bug, expected: REPRODUCED, argocd: v2.14.11, kubernetes: v1.33.13}",     // no run
		"- {scenario: s, variant: bug, expected: REPRODUCED, argocd: v2.14.11, runs: [20261122-081801]}",  // no Kubernetes version
		"- {scenario: s, variant: bug, expected: REPRODUCED, argocd: v2.14.11, kubernetes: 'v1.3*', runs: [20261122-081801]}",
		"- {scenario: s, variant: bug, expected: REPRODUCED, argocd: v2.14.11, runs: [yesterday]}", // not a run id
		"- {scenario: s, variant: versioned, expected: MITIGATED, " + measured + "}",               // no component version
		"- {scenario: s, variant: versioned, componentVersion: 'v*', expected: MITIGATED, " + measured + "}",
		"- {scenario: s, variant: fix, expected: FLAKY, " + measured + "}",      // an outcome, not an expectation
		"- {scenario: s, variant: fix, expected: RACE, argocd: v2.14.11}",       // a race nobody measured
		"- {scenario: s, variant: versioned, expected: RACE, " + measured + "}", // no component version
	} {
		if _, err := Parse([]byte(head + bad + "\n")); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
	valid := "- {scenario: s, variant: bug, expected: NOT_REPRODUCED, " + measured + "}\n" +
		"- {scenario: s, variant: fix, expected: NOT_MITIGATED, " + measured + "}\n" +
		"- {scenario: s, variant: versioned, componentVersion: 'v1,v2', expected: MITIGATED, " + measured + "}\n" +
		"- {scenario: s, variant: 'bug,fix', expected: RACE, " + measured + "}\n" +
		"- {scenario: s, expected: SKIPPED}\n"
	if _, err := Parse([]byte(head + valid)); err != nil {
		t.Errorf("refused valid expectations: %v", err)
	}
}

// A variant is bug, minimal or a mitigation that says so: a name cannot
// make a variant a mitigation by accident.
func TestParseRefusesVariantsOfNoKind(t *testing.T) {
	for _, bad := range []string{
		"{name: bug}, {name: fix}",                          // fix says nothing
		"{name: bug, mitigation: true}",                     // bug is not a mitigation
		"{name: minimal, mitigation: true}",                 // neither is minimal
		"{name: bug}, {name: bug}",                          // twice
		"{name: bug}, {summary: no name, mitigation: true}", // no name
		"", // none
	} {
		yaml := "scenarios:\n- name: s\n  component: c\n  variants: [" + bad + "]\n"
		if _, err := Parse([]byte(yaml)); err == nil {
			t.Errorf("accepted variants [%s]", bad)
		} else if !strings.Contains(err.Error(), `scenario "s"`) {
			t.Errorf("[%s]: the error does not name the scenario: %v", bad, err)
		}
	}
	d, err := Parse([]byte("scenarios:\n- name: s\n  component: c\n  variants: [{name: bug}, {name: minimal}, {name: fix, mitigation: true}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{false, false, true} {
		if v := d.Scenarios[0].Variants[i]; v.Mitigation() != want {
			t.Errorf("%s: Mitigation() = %v, want %v", v.Name, v.Mitigation(), want)
		}
	}
}

// An unknown variant is refused naming the valid variants of the scenario.
func TestPlanRefusesAnUnknownVariantNamingTheScenarios(t *testing.T) {
	d, err := Parse([]byte("scenarios:\n- name: s\n  component: c\n  variants: [{name: bug}, {name: fix, mitigation: true}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Plan(&catalog.Catalog{}, Selection{Scenarios: []string{"s"}, Variants: []string{"nope"}})
	if err == nil || err.Error() != `unknown variant "nope" (valid: s: bug, fix)` {
		t.Fatalf("got %v", err)
	}
}
