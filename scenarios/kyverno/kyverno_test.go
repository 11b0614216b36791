package kyverno

import (
	"slices"
	"testing"

	"sigs.k8s.io/yaml"
)

func values(t *testing.T, variant string) map[string]map[string]any {
	t.Helper()
	a, err := Application(variant).Render()
	if err != nil {
		t.Fatalf("%s: %v", variant, err)
	}
	if a.Spec.Source.Helm == nil || a.Spec.Source.Helm.ReleaseName != "kyverno" || a.Spec.Destination.Namespace != namespace {
		t.Fatalf("%s: want a Helm source, release kyverno, namespace %s: %+v", variant, namespace, a.Spec)
	}
	var v map[string]map[string]any
	if err := yaml.UnmarshalStrict([]byte(a.Spec.Source.Helm.Values), &v); err != nil {
		t.Fatalf("%s: values: %v", variant, err)
	}
	return v
}

func TestValuesPerVariant(t *testing.T) {
	for _, variant := range []string{"bug", "argocd-upgrade", "hook-disabled"} {
		v := values(t, variant)
		for _, c := range []string{"backgroundController", "cleanupController", "reportsController", "webhooksCleanup"} {
			if v[c]["enabled"] != false {
				t.Errorf("%s: %s must be off (no image for it offline)", variant, c)
			}
		}
		_, dropped := v["policyReportsCleanup"]
		if dropped != (variant == "hook-disabled") {
			t.Errorf("%s: policyReportsCleanup set = %v; only hook-disabled may drop the hook", variant, dropped)
		}
	}
	if values(t, "hook-disabled")["policyReportsCleanup"]["enabled"] != false {
		t.Error("hook-disabled: policyReportsCleanup.enabled must be false")
	}
}

func TestSyncOptions(t *testing.T) {
	a, err := Application("bug").Render()
	if err != nil {
		t.Fatal(err)
	}
	if a.Spec.SyncPolicy.Retry == nil || a.Spec.SyncPolicy.Retry.Limit != 2 {
		t.Errorf("want a retry of 2: %+v", a.Spec.SyncPolicy)
	}
	if !slices.Contains(a.Spec.SyncPolicy.SyncOptions, "ServerSideApply=true") || a.Spec.SyncPolicy.Automated != nil {
		t.Fatalf("want manual syncs with ServerSideApply: %+v", a.Spec.SyncPolicy)
	}
	if a.Finalizers != nil || a.Annotations != nil {
		t.Fatal("the suite must not add ArgoCD finalizers or annotations")
	}
}
