package matrix

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/report"
)

// kubeAxis is a catalog's Kubernetes axis of three versions, the middle one
// the default, each with an online image of another patch.
var kubeAxis = catalog.Kubernetes{Default: "v1.33.13", Versions: []catalog.KubeVersion{
	{Version: "v1.30.4", OnlineNodeImage: "kindest/node:v1.30.13@sha256:aa"},
	{Version: "v1.33.13", OnlineNodeImage: "kindest/node:v1.33.1"},
	{Version: "v1.35.4", OnlineNodeImage: "kindest/node:v1.35.0@sha256:bb"},
}}

const kubeMatrix = `
scenarios:
  - name: s
    component: c
    argocd: [v2.13.3, v2.14.11]
    variants:
      - name: bug
        componentVersion: v1.0.0
        kubernetes: [v1.35.4, v1.30.4]
      - name: fix
        mitigation: true
        componentVersion: v1.0.0
expectations:
  - scenario: s
    variant: bug
    argocd: v2.14.11
    kubernetes: v1.35.4
    componentVersion: v1.0.0
    expected: NOT_REPRODUCED
    runs: [20261124-120000]
  - scenario: s
    variant: bug
    argocd: v2.14.11
    kubernetes: v1.30.4,v1.30.13
    componentVersion: v1.0.0
    expected: REPRODUCED
    runs: [20261124-120000]
`

func kubePlan(t *testing.T, sel Selection) ([]string, *Data, []Cell) {
	t.Helper()
	d, cells := kubePlanOf(t, kubeMatrix, []string{"v1.0.0"}, sel)
	var ids []string
	for _, c := range cells {
		ids = append(ids, strings.TrimPrefix(c.Report().ID(), "s_"))
	}
	return ids, d, cells
}

// kubePlanOf plans sel on matrix data m, with kubeAxis and component c at
// versions, failing the test on an error.
func kubePlanOf(t *testing.T, m string, versions []string, sel Selection) (*Data, []Cell) {
	t.Helper()
	d, err := Parse([]byte(m))
	if err != nil {
		t.Fatal(err)
	}
	cat := &catalog.Catalog{ArgoCD: argocdV2, Kubernetes: kubeAxis, Components: map[string]catalog.Component{"c": {Versions: versions}}}
	cells, err := d.Plan(cat, sel)
	if err != nil {
		t.Fatal(err)
	}
	return d, cells
}

// The variant's own axis, else the scenario's (here the catalog default);
// the plan runs each Kubernetes version's cells together, oldest first, and
// within one the ArgoCD releases in order.
func TestPlanRunsEachKubernetesVersionsCellsTogether(t *testing.T) {
	ids, _, _ := kubePlan(t, Selection{})
	want := "[bug_v2.13.3_v1.0.0_k8s-v1.30.4 bug_v2.14.11_v1.0.0_k8s-v1.30.4" +
		" fix_v2.13.3_v1.0.0_k8s-v1.33.13 fix_v2.14.11_v1.0.0_k8s-v1.33.13" +
		" bug_v2.13.3_v1.0.0_k8s-v1.35.4 bug_v2.14.11_v1.0.0_k8s-v1.35.4]"
	if fmt.Sprint(ids) != want {
		t.Errorf("plan = %v\nwant %s", ids, want)
	}
}

// KUBERNETES= replaces every axis, by version or by minor.
func TestSelectedKubernetesReplacesTheAxes(t *testing.T) {
	ids, _, cells := kubePlan(t, Selection{Kubernetes: []string{"v1.35"}, ArgoCD: []string{"v2.14.11"}})
	if want := "[bug_v2.14.11_v1.0.0_k8s-v1.35.4 fix_v2.14.11_v1.0.0_k8s-v1.35.4]"; fmt.Sprint(ids) != want {
		t.Errorf("plan = %v, want %s", ids, want)
	}
	if got := cells[0].Replay(); !strings.HasSuffix(got, " KUBERNETES=v1.35.4") {
		t.Errorf("replay %q does not name the Kubernetes version", got)
	}
	d, _ := Parse([]byte(kubeMatrix))
	cat := &catalog.Catalog{ArgoCD: argocdV2, Kubernetes: kubeAxis}
	if _, err := d.Plan(cat, Selection{Kubernetes: []string{"v1.34.4"}}); err == nil || !strings.Contains(err.Error(), "v1.30.4, v1.33.13, v1.35.4") {
		t.Errorf("v1.34.4: %v; want the axis named", err)
	}
}

// An expectation holds on the Kubernetes versions it names: offline the
// built version, online the published image's, or what the cluster answered.
func TestExpectationsNameTheirKubernetesVersion(t *testing.T) {
	_, d, cells := kubePlan(t, Selection{ArgoCD: []string{"v2.14.11"}, Variants: []string{"bug"}})
	got := map[string]report.Outcome{}
	for _, c := range cells {
		for _, offline := range []bool{true, false} {
			o, _ := d.Expected(c, offline)
			got[fmt.Sprint(c.Kubernetes.Running(offline))] = o
		}
	}
	want := map[string]report.Outcome{"v1.30.4": report.Reproduced, "v1.30.13": report.Reproduced, "v1.35.4": report.NotReproduced, "v1.35.0": ""}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("expected = %v, want %v", got, want)
	}
	if o, _ := d.ExpectedOn(cells[0], false, "v1.30.4"); o != report.Reproduced {
		t.Errorf("online on a built v1.30.4 node: %q", o)
	}
}

// A variant's own ArgoCD axis replaces the scenario's for that variant only,
// and ARGOCD= replaces both; ArgoCDTags is their union.
func TestVariantArgoCDAxis(t *testing.T) {
	const m = `
scenarios:
  - name: s
    component: c
    argocd: [v2.13.3]
    variants:
      - name: bug
        componentVersion: v1.0.0
      - name: fix
        mitigation: true
        componentVersion: v1.0.0
        argocd: [v2.13.3, v2.14.11]
        argocdWhy: ArgoCD acts here
`
	d, err := Parse([]byte(m))
	if err != nil {
		t.Fatal(err)
	}
	cat := &catalog.Catalog{ArgoCD: argocdV2, Kubernetes: kubeAxis, Components: map[string]catalog.Component{"c": {Versions: []string{"v1.0.0"}}}}
	for _, tc := range []struct {
		sel  Selection
		want string
	}{
		{Selection{}, "[bug_v2.13.3_v1.0.0_k8s-v1.33.13 fix_v2.13.3_v1.0.0_k8s-v1.33.13 fix_v2.14.11_v1.0.0_k8s-v1.33.13]"},
		{Selection{ArgoCD: []string{"v2.14.11"}}, "[bug_v2.14.11_v1.0.0_k8s-v1.33.13 fix_v2.14.11_v1.0.0_k8s-v1.33.13]"},
	} {
		cells, err := d.Plan(cat, tc.sel)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, c := range cells {
			ids = append(ids, strings.TrimPrefix(c.Report().ID(), "s_"))
		}
		if fmt.Sprint(ids) != tc.want {
			t.Errorf("%+v: plan = %v\nwant %s", tc.sel, ids, tc.want)
		}
	}
	if got := fmt.Sprint(d.Scenarios[0].ArgoCDTags([]string{"v2.14.21"})); got != "[v2.13.3 v2.14.11]" {
		t.Errorf("ArgoCDTags = %s", got)
	}
	d.Scenarios[0].Variants[1].ArgoCD = []string{"v9.9.9"}
	if _, err := d.Plan(cat, Selection{}); err == nil || !strings.Contains(err.Error(), `variant "fix"`) {
		t.Errorf("an unknown release on a variant's axis: %v; want the variant named", err)
	}
}

// kubernetesOnlyFor keeps a version of the axis to some component versions
// (a release on its own minimum), unless the user names the version; Parse
// refuses a version off the axis or a component version the variant lacks.
func TestKubernetesOnlyFor(t *testing.T) {
	const m = `
scenarios:
  - name: s
    component: c
    argocd: [v2.14.11]
    variants:
      - name: bug
        componentVersions: [v1.0.0, v2.0.0]
        kubernetes: [v1.30.4, v1.33.13]
        kubernetesOnlyFor: {v1.33.13: [v2.0.0]}
`
	ids := func(sel Selection) string {
		_, cells := kubePlanOf(t, m, []string{"v1.0.0", "v2.0.0"}, sel)
		var out []string
		for _, c := range cells {
			out = append(out, strings.TrimPrefix(c.Report().ID(), "s_bug_v2.14.11_"))
		}
		return strings.Join(out, " ")
	}
	if got, want := ids(Selection{}), "v1.0.0_k8s-v1.30.4 v2.0.0_k8s-v1.30.4 v2.0.0_k8s-v1.33.13"; got != want {
		t.Errorf("plan %q, want %q", got, want)
	}
	if got, want := ids(Selection{Kubernetes: []string{"v1.33.13"}}), "v1.0.0_k8s-v1.33.13 v2.0.0_k8s-v1.33.13"; got != want {
		t.Errorf("named: plan %q, want %q", got, want)
	}
	for _, bad := range []string{"{v1.35.4: [v2.0.0]}", "{v1.33.13: [v3.0.0]}"} {
		if _, err := Parse([]byte(strings.Replace(m, "{v1.33.13: [v2.0.0]}", bad, 1))); err == nil {
			t.Errorf("kubernetesOnlyFor %s: parsed", bad)
		}
	}
}
