package kyverno

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/sources"
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

func TestMissingHook(t *testing.T) {
	hook := "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ template \"kyverno.fullname\" . }}-clean-reports\n  annotations:\n    helm.sh/hook: post-upgrade\n"
	with := map[string]string{"templates/hooks/post-upgrade-clean-reports.yaml": hook, "values.yaml": "policyReportsCleanup:\n  enabled: true\n"}
	for _, variant := range []string{"argocd-upgrade", "hook-disabled"} {
		if why := MissingHook(variant)(with); why != "" {
			t.Errorf("%s on a chart with the hook: %q", variant, why)
		}
		if why := MissingHook(variant)(map[string]string{"values.yaml": "crds: {}\n"}); !strings.Contains(why, "no "+job) {
			t.Errorf("%s on a chart without the hook: %q", variant, why)
		}
	}
	if why := MissingHook("hook-disabled")(map[string]string{"templates/x.yaml": hook, "values.yaml": "crds: {}\n"}); !strings.Contains(why, "policyReportsCleanup") {
		t.Errorf("hook-disabled without the value: %q", why)
	}
}

// TestMissingHookRealCharts reads charts/kyverno from the module zips the
// catalog pins: 3.4.0 (v1.14.0) has the hook, 3.9.1 (v1.19.1) has not. Not in
// -short (make unit): it needs the network. It skips only where the module
// proxy answers that it cannot serve a zip; no answer at all fails.
func TestMissingHookRealCharts(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: downloads github.com/kyverno/kyverno module zips from the module proxy")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for v, has := range map[string]bool{"v1.14.0": true, "v1.19.1": false} {
		dir, err := sources.ModuleDir(ctx, "github.com/kyverno/kyverno", v)
		if err != nil && !sources.NotPublished(err) && !strings.Contains(err.Error(), "403 Forbidden") {
			t.Fatalf("no answer from the module proxy for github.com/kyverno/kyverno@%s (this test needs the network; -short leaves it out): %v", v, err)
		}
		if err != nil {
			t.Skipf("the module proxy cannot serve github.com/kyverno/kyverno@%s: %v", v, err)
		}
		files, err := fixture.ReadTree(filepath.Join(dir, "charts/kyverno"))
		if err != nil {
			t.Fatal(err)
		}
		if why := MissingHook("hook-disabled")(files); (why == "") != has {
			t.Errorf("%s: want the hook %v, MissingHook says %q", v, has, why)
		}
	}
}
