package openkruise

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/scenarios/internal/kruise"
)

func TestWriteUpValuesAndApplication(t *testing.T) {
	v := Values()
	if v["installation"].(map[string]any)["createNamespace"] != false || v["manager"].(map[string]any)["replicas"] != float64(1) {
		t.Fatalf("the write-up's values: %v", v)
	}
	r := kruise.Release()
	if !r.NoWait || !r.ExistingNamespace || r.Namespace != namespace || r.Name != "kruise" {
		t.Fatalf("release: %+v (the write-up: helm install kruise --namespace=kruise-system, no --wait, no --create-namespace)", r)
	}
	a, err := kruise.Application(app).Render()
	if err != nil {
		t.Fatal(err)
	}
	if a.Spec.Source.Helm == nil || a.Spec.Source.Helm.ReleaseName != "kruise" || a.Spec.Destination.Namespace != namespace {
		t.Fatalf("application: %+v", a.Spec)
	}
	if a.Spec.SyncPolicy != nil {
		t.Fatalf("the namespace is made outside the Application: no CreateNamespace, manual syncs: %+v", a.Spec.SyncPolicy)
	}
	var hv map[string]any
	if err := yaml.Unmarshal([]byte(a.Spec.Source.Helm.Values), &hv); err != nil || hv["installation"].(map[string]any)["createNamespace"] != false {
		t.Fatalf("application values: %v %v", hv, err)
	}
	ManagedNamespace(a)
	p := a.Spec.SyncPolicy
	if !slices.Contains(p.SyncOptions, "CreateNamespace=true") || p.ManagedNamespaceMetadata.Labels["control-plane"] != "openkruise" {
		t.Fatalf("managedNamespaceMetadata: %+v", p)
	}
}

func TestNamespaceAndProbe(t *testing.T) {
	plain, err := fixture.Manifest(context.Background(), fixture.Namespace(namespace))
	if err != nil {
		t.Fatal(err)
	}
	labelled, err := fixture.Manifest(context.Background(), fixture.Namespace(namespace, label))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain, "labels") || !strings.Contains(labelled, "control-plane: openkruise") || !strings.Contains(plain, "name: kruise-system") {
		t.Fatalf("namespace:\n%s\n%s", plain, labelled)
	}
	var pod struct {
		Metadata struct{ Namespace string }
	}
	probe, err := fixture.Manifest(context.Background(), ProbePod("default"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte(strings.TrimPrefix(probe, "---\n")), &pod); err != nil || pod.Metadata.Namespace != "default" {
		t.Fatalf("probe pod: %+v %v", pod, err)
	}
}

// The real chart, per release on the axis, from its source on this machine
// (OPENKRUISE_CHARTS, else the catalog's default, as the Makefile has it): the write-up's values
// render no kruise-system Namespace, the manager image the offline build
// names, and mpod.kb.io selecting an unlabelled kruise-system. Not in -short
// (make unit); without -short the source must be there: a run that asks for
// this test and lacks it fails.
func TestRealChart(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: renders the kruise chart from its source (" + kruise.ChartsEnv + ")")
	}
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	comp, _ := cat.Component("openkruise")
	repo, _ := filepath.Abs("../..")
	dir := comp.Sources.Path(repo)
	if dir == "" {
		t.Fatal(kruise.ChartsEnv + " is not set: set it to an openkruise/charts checkout holding versions/kruise/<chart version>/ for each release on the axis, " +
			"an archive of one or a directory of archives (the Makefile and this test use ../shared/upstream/openkruise when that exists), or run with -short")
	}
	t.Setenv(kruise.ChartsEnv, dir)
	for _, v := range comp.Versions {
		t.Run(v, func(t *testing.T) {
			ctx := lifecycle.WithRun(context.Background(), &lifecycle.Run{Repo: repo, CacheDir: t.TempDir(), Catalog: cat, Mode: images.Offline})
			ctx, _ = lifecycle.WithCell(ctx, t.TempDir())
			chart := fixture.OfflinePullPolicy(fixture.UserChart(kruise.ChartsEnv, "openkruise", "kruise", strings.TrimPrefix(v, "v")))
			r := fixture.HelmRender(chart, kruise.Release())
			f, err := r(ctx)
			if err != nil {
				t.Fatal(err)
			}
			m := f["install.yaml"]
			if strings.Contains(m, "kind: Namespace\nmetadata:\n  labels:\n    control-plane: openkruise") {
				t.Error("installation.createNamespace=false must render no kruise-system Namespace")
			}
			for _, want := range []string{"image: openkruise/kruise-manager:" + v, "imagePullPolicy: IfNotPresent", "replicas: 1"} {
				if !strings.Contains(m, want) {
					t.Errorf("rendered chart lacks %q", want)
				}
			}
			if strings.Contains(m, "imagePullPolicy: Always") {
				t.Error("offline, no imagePullPolicy: Always may be left")
			}
			through, seen, err := LetsThrough(r, NamespaceLabels(false))(ctx)
			if err != nil || through {
				t.Errorf("unlabelled kruise-system: lets through %v (%s), %v; want selected", through, seen, err)
			}
			t.Logf("unlabelled: %s", seen)
			if through, seen, _ := LetsThrough(r, NamespaceLabels(true))(ctx); !through {
				t.Errorf("labelled kruise-system must be let through: %s", seen)
			}
			// the recipe is asked for the hook image where the chart has a
			// pre-delete hook Job running helmHooks.image (1.8.x), for none
			// where it has no such hook (1.5.2)
			vars, err := kruise.HookImage(chart)(ctx)
			if err != nil {
				t.Fatal(err)
			}
			files, _ := chart(ctx)
			job := files["templates/pre_delete_hook_job.yaml"]
			hasHook := strings.Contains(job, `"helm.sh/hook": pre-delete`) && strings.Contains(job, "image: {{ .Values.helmHooks.image.repository }}:{{ .Values.helmHooks.image.tag }}")
			if hasHook != (len(vars) == 1) {
				t.Fatalf("HookImage = %v, chart with a pre-delete hook Job running helmHooks.image: %v", vars, hasHook)
			}
		})
	}
}

func TestHookImage(t *testing.T) {
	for values, want := range map[string]string{
		"helmHooks:\n  image:\n    repository: openkruise/kruise-helm-hook\n    tag: v0.1.0\n": "HOOK_IMAGE=openkruise/kruise-helm-hook:v0.1.0",
		"manager:\n  replicas: 2\n": "",
	} {
		chart := func(context.Context) (map[string]string, error) { return map[string]string{"values.yaml": values}, nil }
		got, err := kruise.HookImage(chart)(context.Background())
		if err != nil || strings.Join(got, " ") != want {
			t.Errorf("HookImage(%q) = %v, %v; want %q", values, got, err, want)
		}
	}
}
