package suites

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/pkg/appcell"
	"github.com/gitops-conformance/suite/pkg/upgrade/spec"
	"github.com/gitops-conformance/suite/scenarios/kargo"
)

//go:embed upgrade-check.yaml
var upgradeCheckYAML []byte

// SeedApp is one Application of make upgrade-check's default APPS: a seed
// project's chart as its scenario installs it on the supported lines
// (suites/upgrade-check.yaml).
type SeedApp struct {
	// Name is the Application's name, and the file's and the chart
	// directory's that `conformance upgrade-check apps` writes.
	Name  string `json:"name"`
	Title string `json:"title"`
	// Measured are the scenario cells that install the chart this way.
	Measured Measured       `json:"measured"`
	Chart    Chart          `json:"chart"`
	Values   map[string]any `json:"values,omitempty"`
	// Generate names the values the suite makes when it writes the
	// Application (generators): what no file of the suite may hold.
	Generate        string            `json:"generate,omitempty"`
	Release         string            `json:"release,omitempty"`
	Namespace       string            `json:"namespace"`
	NamespaceLabels map[string]string `json:"namespaceLabels,omitempty"`
	SyncOptions     []string          `json:"syncOptions,omitempty"`
	RetryLimit      int64             `json:"retryLimit,omitempty"`
	// Recipes are the suite's offline image recipes (component@version)
	// that build what the chart runs.
	Recipes []string `json:"recipes,omitempty"`
}

// Measured are the cells of suites/matrix.yaml that install a seed's chart
// as its SeedApp does: the scenario's variants at a component version.
type Measured struct {
	Scenario string   `json:"scenario"`
	Variants []string `json:"variants"`
	Version  string   `json:"version"`
}

// generators make the values of an Application when it is written
// (generate: NAME), from its chart.
var generators = map[string]func(ctx context.Context, c Chart) (map[string]any, error){
	// the scenario's offline values, the webhook certificate's Secret in the release
	"kargo": func(ctx context.Context, c Chart) (map[string]any, error) {
		component, tag, _ := strings.Cut(c.Tree, "@")
		if component != "kargo" {
			return nil, fmt.Errorf("generate kargo: the chart is not Kargo's source tree (tree: kargo@TAG)")
		}
		return kargo.ApplicationValues(ctx, tag)
	},
}

// recipe is an image recipe: component@version.
var recipe = regexp.MustCompile(`^[a-z0-9-]+@v[0-9][0-9A-Za-z.+-]*$`)

// SeedApps are suites/upgrade-check.yaml's, checked.
func SeedApps() ([]SeedApp, error) {
	return readList(upgradeCheckYAML, "suites/upgrade-check.yaml", "applications", "application", func(a SeedApp) string { return a.Name }, SeedApp.check)
}

func (a SeedApp) check() error {
	if errs := validation.IsDNS1123Label(a.Name); len(errs) > 0 {
		return fmt.Errorf("name: %s", strings.Join(errs, "; "))
	}
	if errs := validation.IsDNS1123Label(a.Namespace); len(errs) > 0 {
		return fmt.Errorf("namespace %q: %s", a.Namespace, strings.Join(errs, "; "))
	}
	if errs := validation.IsDNS1123Label(a.release()); len(errs) > 0 || len(a.release()) > 53 {
		return fmt.Errorf("release %q: not a Helm release name (a DNS label of at most 53 characters)", a.release())
	}
	switch {
	case a.Title == "":
		return errors.New("no title")
	case a.Measured.Scenario == "" || len(a.Measured.Variants) == 0 || a.Measured.Version == "":
		return errors.New("measured: the scenario, its variants and the component version that install the chart this way")
	case len(a.Values) > 0 && a.Generate != "":
		return errors.New("values or generate, not both")
	case a.Generate != "" && generators[a.Generate] == nil:
		return fmt.Errorf("generate %q: the suite makes no such values", a.Generate)
	case len(a.NamespaceLabels) > 0 && !slices.Contains(a.SyncOptions, "CreateNamespace=true"):
		return errors.New("namespaceLabels need CreateNamespace=true: ArgoCD applies managedNamespaceMetadata only then")
	}
	if err := a.Chart.check(); err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	for _, o := range a.SyncOptions {
		if k, v, ok := strings.Cut(o, "="); !ok || k == "" || v == "" {
			return fmt.Errorf("sync option %q: not Name=value", o)
		}
	}
	for _, r := range a.Recipes {
		if !recipe.MatchString(r) {
			return fmt.Errorf("image recipe %q: not component@version (e.g. knative@v0.42.2)", r)
		}
	}
	return nil
}

func (a SeedApp) release() string {
	if a.Release != "" {
		return a.Release
	}
	return a.Name
}

// Write writes the Application into out: its chart as a directory of its
// own, out/<name>/, and the Application, out/<name>.yaml, whose source is
// that directory (./<name>, relative to the file). It returns the file
// and the chart written.
func (a SeedApp) Write(ctx context.Context, at Local, out string) (string, *appcell.Chart, error) {
	ch, err := a.Chart.Write(ctx, at, filepath.Join(out, a.Name))
	if err != nil {
		return "", nil, err
	}
	values := a.Values
	if a.Generate != "" {
		if values, err = generators[a.Generate](ctx, a.Chart); err != nil {
			return "", nil, err
		}
	}
	data, err := yaml.Marshal(a.application("./"+a.Name, values))
	if err != nil {
		return "", nil, err
	}
	header := fmt.Sprintf("# suites/upgrade-check.yaml %s: %s\n# written by conformance upgrade-check apps; the chart: %s %s from %s\n",
		a.Name, a.Title, ch.Name, ch.Version, ch.Source)
	if a.Generate != "" {
		header += "# values made when written (generate: " + a.Generate + "): throwaway credentials and certificates, this install's only\n"
	}
	file := filepath.Join(out, a.Name+".yaml")
	if err := os.WriteFile(file, append([]byte(header), data...), 0o644); err != nil {
		return "", nil, err
	}
	return file, ch, nil
}

// application is the Application installing the chart at repoURL with
// values: manual syncs, in the argocd namespace's default project.
func (a SeedApp) application(repoURL string, values map[string]any) map[string]any {
	meta := map[string]any{"name": a.Name, "namespace": "argocd"}
	if len(a.Recipes) > 0 {
		meta["annotations"] = map[string]string{spec.RecipesAnnotation: strings.Join(a.Recipes, ",")}
	}
	helm := map[string]any{"releaseName": a.release()}
	if len(values) > 0 {
		helm["valuesObject"] = values
	}
	spec := map[string]any{
		"project":     "default",
		"source":      map[string]any{"repoURL": repoURL, "helm": helm},
		"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": a.Namespace},
	}
	policy := map[string]any{}
	if len(a.SyncOptions) > 0 {
		policy["syncOptions"] = a.SyncOptions
	}
	if len(a.NamespaceLabels) > 0 {
		policy["managedNamespaceMetadata"] = map[string]any{"labels": a.NamespaceLabels}
	}
	if a.RetryLimit > 0 {
		policy["retry"] = map[string]any{"limit": a.RetryLimit}
	}
	if len(policy) > 0 {
		spec["syncPolicy"] = policy
	}
	return map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "Application", "metadata": meta, "spec": spec}
}
