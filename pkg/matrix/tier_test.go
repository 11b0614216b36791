package matrix

import (
	"slices"
	"testing"

	"github.com/gitops-conformance/suite/pkg/catalog"
)

const tierMatrix = `
scenarios:
  - name: s
    component: c
    argocd: [v2.13.3, v2.14.11]
    kubernetes: [v1.30.4, v1.33.13, v1.35.4]
    quick:
      argocd: [v2.14.11]
      componentVersions: [v1.1.0]
      why: the story
    variants:
      - name: bug
        componentVersions: [v1.0.0, v1.1.0]
        quick: {argocd: [v2.13.3, v2.14.11], why: where it comes and goes}
      - name: fix
        mitigation: true
        componentVersions: [v1.0.0, v1.2.0]
      - name: minimal
`

func tierPlan(t *testing.T, sel Selection) []string {
	t.Helper()
	d, err := Parse([]byte(tierMatrix))
	if err != nil {
		t.Fatal(err)
	}
	cat := &catalog.Catalog{ArgoCD: argocdV2, Kubernetes: kubeAxis, Components: map[string]catalog.Component{"c": {Versions: []string{"v1.0.0", "v1.1.0", "v1.2.0"}}}}
	cells, err := d.Plan(cat, sel)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range cells {
		ids = append(ids, c.Report().ID())
	}
	return ids
}

// The quick tier runs each variant on its (or its scenario's) quick ArgoCD
// releases, the component versions of the tier it has (else its newest) and
// the default Kubernetes; an axis the user names is run exactly as named.
func TestQuickTier(t *testing.T) {
	got := tierPlan(t, Selection{Tier: TierQuick})
	want := []string{
		"s_bug_v2.13.3_v1.1.0_k8s-v1.33.13",
		"s_bug_v2.14.11_v1.1.0_k8s-v1.33.13", "s_fix_v2.14.11_v1.2.0_k8s-v1.33.13", "s_minimal_v2.14.11_k8s-v1.33.13",
	}
	if !slices.Equal(got, want) {
		t.Errorf("quick tier:\n got %v\nwant %v", got, want)
	}
	if full := tierPlan(t, Selection{Tier: TierFull}); len(full) != 3*(2*2+2*2+2) || !slices.Equal(full, tierPlan(t, Selection{})) {
		t.Errorf("full tier: %d cells, want every axis (30), the same as no tier", len(full))
	}
	named := tierPlan(t, Selection{Tier: TierQuick, ArgoCD: []string{"v2.13.3"}, Kubernetes: []string{"v1.35.4"}, Versions: []string{"v1.0.0"}})
	want = []string{"s_bug_v2.13.3_v1.0.0_k8s-v1.35.4", "s_fix_v2.13.3_v1.0.0_k8s-v1.35.4", "s_minimal_v2.13.3_k8s-v1.35.4"}
	if !slices.Equal(named, want) {
		t.Errorf("named axes in the quick tier:\n got %v\nwant %v", named, want)
	}
}

func TestTierRefusals(t *testing.T) {
	d, err := Parse([]byte(tierMatrix))
	if err != nil {
		t.Fatal(err)
	}
	cat := &catalog.Catalog{ArgoCD: argocdV2, Kubernetes: kubeAxis}
	if _, err := d.Plan(cat, Selection{Tier: "fast"}); err == nil {
		t.Error("tier fast: want a refusal naming quick and full")
	}
	for name, m := range map[string]string{
		"no why":            "scenarios:\n  - name: s\n    quick: {argocd: [v2.14.11]}\n    variants: [{name: bug}]\n",
		"a foreign version": "scenarios:\n  - name: s\n    variants: [{name: bug, componentVersion: v1.0.0, quick: {componentVersions: [v9.0.0], why: w}}]\n",
	} {
		if _, err := Parse([]byte(m)); err == nil {
			t.Errorf("%s: want a refusal", name)
		}
	}
}

const upgradeMatrix = `
scenarios:
  - name: s
    argocd: [v2.13.3, v2.14.11]
    kubernetes: [v1.33.13]
    variants:
      - name: bug
        argocdUpgrades: [v2.14.11]
      - name: upgrade
        mitigation: true
        argocdUpgrades: [v2.14.11]
`

// A mitigation that is an in-place upgrade has nothing to mitigate with on
// a release as new as its upgrades (ARGOCD=v3.6.1 on longname-hooks-argocd
// argocd-upgrade, whose upgrade is v3.4.3, ended ERROR in run
// 20261128-043710): SKIPPED, saying so. A bug variant runs without them.
func TestUpgradeMitigationWithNothingToUpgradeTo(t *testing.T) {
	d, err := Parse([]byte(upgradeMatrix))
	if err != nil {
		t.Fatal(err)
	}
	cells, err := d.Plan(&catalog.Catalog{ArgoCD: argocdV2, Kubernetes: kubeAxis}, Selection{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range cells {
		got[c.Report().ID()] = c.Skip
	}
	for id, skip := range map[string]string{
		"s_bug_v2.13.3_k8s-v1.33.13":      "",
		"s_bug_v2.14.11_k8s-v1.33.13":     "",
		"s_upgrade_v2.13.3_k8s-v1.33.13":  "",
		"s_upgrade_v2.14.11_k8s-v1.33.13": "upgrade upgrades ArgoCD in place to v2.14.11, and v2.14.11 is no older: nothing to upgrade to",
	} {
		if s, ok := got[id]; !ok || s != skip {
			t.Errorf("%s: planned %v, skip %q; want skip %q (plan %v)", id, ok, s, skip, got)
		}
	}
}
