package suites

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/sources/sourcestest"
	"github.com/gitops-conformance/suite/pkg/upgrade/spec"
	"github.com/gitops-conformance/suite/scenarios/kyverno"
	"github.com/gitops-conformance/suite/scenarios/openkruise"
)

// Every seed is installed as cells of its scenario measured it installing
// and syncing on a supported line (an expectation of suites/matrix.yaml on
// a v3.4 or v3.5 release, MITIGATED or NOT_REPRODUCED, for each variant at
// the version), with the scenario's values and images; every component of
// the matrix has one.
func TestSeedAppsAreTheScenariosInstalls(t *testing.T) {
	apps, err := SeedApps()
	if err != nil {
		t.Fatal(err)
	}
	data, err := Matrix()
	if err != nil {
		t.Fatal(err)
	}
	components := map[string]bool{}
	for _, a := range apps {
		i := slices.IndexFunc(data.Scenarios, func(s matrix.Scenario) bool { return s.Name == a.Measured.Scenario })
		if i < 0 {
			t.Errorf("%s: measured by %q, which matrix.yaml has no scenario of", a.Name, a.Measured.Scenario)
			continue
		}
		components[data.Scenarios[i].Component] = true
		for _, v := range a.Measured.Variants {
			if !slices.ContainsFunc(data.Expectations, func(e matrix.Expectation) bool {
				return e.Scenario == a.Measured.Scenario && slices.Contains(matrix.ParseList(e.Variant), v) &&
					slices.Contains(matrix.ParseList(e.ComponentVersion), a.Measured.Version) &&
					(e.Expected == report.Mitigated || e.Expected == report.NotReproduced) &&
					slices.ContainsFunc(matrix.ParseList(e.ArgoCD), func(r string) bool { return strings.HasPrefix(r, "v3.4.") || strings.HasPrefix(r, "v3.5.") })
			}) {
				t.Errorf("%s: no expectation of %s %s at %s on a v3.4 or v3.5 release, MITIGATED or NOT_REPRODUCED", a.Name, a.Measured.Scenario, v, a.Measured.Version)
			}
		}
		for _, r := range a.Recipes {
			component, version, _ := strings.Cut(r, "@")
			if _, err := os.Stat(filepath.Join("..", "images", component, "build.sh")); err != nil {
				t.Errorf("%s: recipe %s: the suite has no images/%s/build.sh", a.Name, r, component)
			}
			if version != a.Measured.Version {
				t.Errorf("%s: recipe %s builds another version than the measured %s", a.Name, r, a.Measured.Version)
			}
		}
		switch a.Measured.Scenario {
		case "kyverno-argocd":
			var want map[string]any
			if err := yaml.Unmarshal([]byte(kyverno.Values("bug")), &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(roundTrip(t, a.Values), want) || !slices.Contains(a.SyncOptions, kyverno.SyncOptions[0]) {
				t.Errorf("%s: values %v, sync options %v; the scenario's are %v, %v", a.Name, a.Values, a.SyncOptions, want, kyverno.SyncOptions)
			}
		case "openkruise-webhook":
			if !reflect.DeepEqual(roundTrip(t, a.Values), openkruise.Values()) || a.NamespaceLabels["control-plane"] != "openkruise" {
				t.Errorf("%s: values %v, namespace labels %v; the write-up's values are %v, the label control-plane=openkruise", a.Name, a.Values, a.NamespaceLabels, openkruise.Values())
			}
		case "knative-argocd":
			if !a.Chart.Flag || a.Chart.Knative != a.Measured.Version {
				t.Errorf("%s: env-flag's chart is Knative %s with the flag: %+v", a.Name, a.Measured.Version, a.Chart)
			}
		}
	}
	for _, s := range data.Scenarios {
		if !components[s.Component] {
			t.Errorf("no seed application of %s (scenario %s)", s.Component, s.Name)
		}
	}
}

// roundTrip is v as it reads from YAML.
func roundTrip(t *testing.T, v map[string]any) map[string]any {
	t.Helper()
	data, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := yaml.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSeedAppRefusesWhatItCannotWrite(t *testing.T) {
	ok := SeedApp{Name: "a", Title: "t", Namespace: "n", Chart: Chart{Path: "p"}, Measured: Measured{Scenario: "s", Variants: []string{"v"}, Version: "v1.0.0"}}
	if err := ok.check(); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		change func(*SeedApp)
		want   string
	}{
		{func(a *SeedApp) { a.Name = "Kyverno_1" }, "name: "},
		{func(a *SeedApp) { a.Namespace = "" }, "namespace \"\""},
		{func(a *SeedApp) { a.Measured = Measured{} }, "measured:"},
		{func(a *SeedApp) { a.Chart = Chart{} }, "chart: exactly one of"},
		{func(a *SeedApp) { a.Values, a.Generate = map[string]any{"a": 1}, "kargo" }, "values or generate"},
		{func(a *SeedApp) { a.Generate = "nope" }, `generate "nope"`},
		{func(a *SeedApp) { a.NamespaceLabels = map[string]string{"a": "b"} }, "need CreateNamespace=true"},
		{func(a *SeedApp) { a.SyncOptions = []string{"ServerSideApply"} }, "not Name=value"},
		{func(a *SeedApp) { a.Recipes = []string{"kyverno-1.14.0"} }, "not component@version"},
	} {
		a := ok
		tt.change(&a)
		if err := a.check(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v; want %q", a, err, tt.want)
		}
	}
}

// The Application written for a path entry reads back as an Application:
// its source the chart written beside it, the Helm release and values, the
// destination, the sync options, labels and retry, the recipes annotation,
// and no automated sync.
func TestSeedAppWrite(t *testing.T) {
	a := SeedApp{Name: "clean", Title: "the clean chart", Namespace: "conform-clean", Release: "clean-release",
		Measured: Measured{Scenario: "s", Variants: []string{"v"}, Version: "v1.0.0"},
		Chart:    Chart{Path: "fixtures/charts/conform-clean"}, Values: map[string]any{"replicas": 2, "image": map[string]any{"tag": "v1"}},
		NamespaceLabels: map[string]string{"team": "a"}, SyncOptions: []string{"ServerSideApply=true", "CreateNamespace=true"}, RetryLimit: 2,
		Recipes: []string{"kyverno@v1.14.0", "knative@v0.47.1"}}
	out := t.TempDir()
	file, ch, err := a.Write(context.Background(), Local{Repo: "..", Cache: t.TempDir()}, out)
	if err != nil {
		t.Fatal(err)
	}
	if file != filepath.Join(out, "clean.yaml") || ch.Name != "conform-clean" {
		t.Errorf("wrote %s, chart %s", file, ch.Name)
	}
	app := readApplication(t, file)
	if app.Name != "clean" || app.Namespace != "argocd" || app.Spec.Project != "default" {
		t.Errorf("metadata %s/%s, project %s", app.Namespace, app.Name, app.Spec.Project)
	}
	src := app.Spec.Source
	if src == nil || src.RepoURL != "./clean" || src.Helm == nil || src.Helm.ReleaseName != "clean-release" {
		t.Fatalf("source: %+v", src)
	}
	if _, err := os.Stat(filepath.Join(out, src.RepoURL, "Chart.yaml")); err != nil {
		t.Errorf("the source, relative to the file, is no chart: %v", err)
	}
	var values map[string]any
	if err := json.Unmarshal(src.Helm.ValuesObject.Raw, &values); err != nil || !reflect.DeepEqual(values, roundTrip(t, a.Values)) {
		t.Errorf("valuesObject %s: %v", src.Helm.ValuesObject.Raw, err)
	}
	if d := app.Spec.Destination; d.Server != "https://kubernetes.default.svc" || d.Namespace != "conform-clean" {
		t.Errorf("destination: %+v", d)
	}
	p := app.Spec.SyncPolicy
	if p == nil || p.Automated != nil || !slices.Equal([]string(p.SyncOptions), a.SyncOptions) || p.Retry == nil || p.Retry.Limit != 2 ||
		p.ManagedNamespaceMetadata == nil || p.ManagedNamespaceMetadata.Labels["team"] != "a" {
		t.Errorf("sync policy: %+v", p)
	}
	if got := app.Annotations[spec.RecipesAnnotation]; got != "kyverno@v1.14.0,knative@v0.47.1" {
		t.Errorf("recipes annotation: %q", got)
	}
}

// Kargo's Application: its chart from the source tree (an archive where
// KARGO_SOURCES points), its values made when written, the certificate's
// Secret in them.
func TestSeedAppWriteKargo(t *testing.T) {
	apps, err := SeedApps()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(apps, func(a SeedApp) bool { return a.Chart.Tree != "" })
	if i < 0 {
		t.Fatal("no seed from a source tree")
	}
	a := apps[i]
	component, tag, _ := strings.Cut(a.Chart.Tree, "@")
	trees := t.TempDir()
	root := component + "-" + tag + "/"
	sourcestest.Archive(t, filepath.Join(trees, component+"-"+tag+".tar.gz"), "", map[string]string{
		root + "charts/kargo/Chart.yaml":          "apiVersion: v2\nname: kargo\nversion: 0.1.0\n",
		root + "charts/kargo/templates/none.yaml": "",
	})
	t.Setenv("KARGO_SOURCES", trees)
	out := t.TempDir()
	file, _, err := a.Write(context.Background(), Local{Repo: "..", Cache: t.TempDir()}, out)
	if err != nil {
		t.Fatal(err)
	}
	app := readApplication(t, file)
	var values struct {
		Image        struct{ Tag string }
		ExtraObjects []struct{ Kind, Type string } `json:"extraObjects"`
	}
	if err := json.Unmarshal(app.Spec.Source.Helm.ValuesObject.Raw, &values); err != nil {
		t.Fatal(err)
	}
	if values.Image.Tag != tag || len(values.ExtraObjects) != 1 || values.ExtraObjects[0].Type != "kubernetes.io/tls" {
		t.Errorf("values: %+v", values)
	}
	if _, err := os.Stat(filepath.Join(out, app.Spec.Source.RepoURL, "templates", "none.yaml")); err != nil {
		t.Errorf("the chart of the tree not written: %v", err)
	}
}

// Every seed written for real, from the module proxy and the sources the
// Makefile exports (else the catalog's defaults, ../shared/upstream). Not
// in -short.
func TestSeedAppsWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: fetches modules from the proxy and reads the sources of ../shared/upstream")
	}
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	repo, _ := filepath.Abs("..")
	for _, s := range cat.AllSources() {
		if p := s.Path(repo); p != "" {
			t.Setenv(s.Env, p)
		}
	}
	apps, err := SeedApps()
	if err != nil {
		t.Fatal(err)
	}
	out, cache := t.TempDir(), t.TempDir()
	for _, a := range apps {
		t.Run(a.Name, func(t *testing.T) {
			file, ch, err := a.Write(context.Background(), Local{Repo: repo, Cache: cache}, out)
			if err != nil {
				t.Fatal(err)
			}
			app := readApplication(t, file)
			if app.Name != a.Name || app.Spec.Source.RepoURL != "./"+a.Name || ch.Dir != filepath.Join(out, a.Name) {
				t.Errorf("%s: %s from %s", app.Name, app.Spec.Source.RepoURL, ch.Dir)
			}
		})
	}
}

// readApplication reads file as an ArgoCD Application, strictly.
func readApplication(t *testing.T, file string) v1alpha1.Application {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var app v1alpha1.Application
	if err := yaml.UnmarshalStrict(data, &app); err != nil {
		t.Fatalf("%s: %v\n%s", file, err, data)
	}
	if app.APIVersion != "argoproj.io/v1alpha1" || app.Kind != "Application" {
		t.Fatalf("%s: %s %s", file, app.APIVersion, app.Kind)
	}
	return app
}
