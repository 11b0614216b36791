package appcell

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/internal/gitserver"
	"github.com/gitops-conformance/suite/internal/shell"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/repro"
	"github.com/gitops-conformance/suite/pkg/runner"
	"github.com/gitops-conformance/suite/pkg/step"
)

// Options are a run's make variables as the e2e test binary's flags: make
// conform's (conform.Options) or make upgrade-check's (spec.Options of pkg/upgrade/spec).
// A run whose options are Enabled makes its scenario at run time from what
// they name, in place of suites/matrix.yaml's.
type Options interface {
	Register(fs *flag.FlagSet)
	Enabled() bool
}

// Shared are the make variables both runs take, one flag each, named as
// for every command: IMAGES (-images), IMAGE_RECIPES (-image-recipes),
// ARGOCD_CMD_PARAMS (-argocd-cmd-params), EXPECT (-expect) and EXPECT_WHY
// (-expect-why). The test binary registers
// them once; conform.Options and pkg/upgrade/spec's Options embed a copy.
type Shared struct {
	Images       string // IMAGES: local Docker images given to the node
	ImageRecipes string // IMAGE_RECIPES: component@version built by the suite's offline recipes (images/<component>/build.sh)
	// ARGOCD_CMD_PARAMS: a file: the argocd-cmd-params-cm ConfigMap, or a
	// map of its data (ArgoCDConfig reads it)
	ArgoCDCmdParams string
	// Expect (name=OUTCOME,...) and ExpectWhy replace a run's expectation
	// that every cell comes through clean: known answers.
	Expect, ExpectWhy string
}

// Register defines the shared flags on fs.
func (s *Shared) Register(fs *flag.FlagSet) {
	fs.StringVar(&s.Images, "images", "", "make conform, make upgrade-check: local Docker images given to the node, comma-separated (offline: what the chart's or Applications' workloads run) (IMAGES)")
	fs.StringVar(&s.ImageRecipes, "image-recipes", "", "make conform, make upgrade-check: component@version, comma-separated: images the suite builds offline with images/<component>/build.sh and gives to the node (IMAGE_RECIPES)")
	fs.StringVar(&s.ArgoCDCmdParams, "argocd-cmd-params", "", "make conform, make upgrade-check: the argocd-cmd-params-cm settings ArgoCD runs with (a sync timeout, server-side diff, --persist-resource-health...): a ConfigMap manifest or a YAML map of its data (ARGOCD_CMD_PARAMS)")
	fs.StringVar(&s.Expect, "expect", "", "make conform: check=REPRODUCED|NOT_REPRODUCED,... in place of NOT_REPRODUCED; make upgrade-check: application=SAFE|CHANGED|BROKEN,... in place of SAFE (known answers) (EXPECT)")
	fs.StringVar(&s.ExpectWhy, "expect-why", "", "make conform, make upgrade-check: where the -expect outcomes come from (EXPECT_WHY)")
}

// ArgoCDConfig reads an ArgoCD ConfigMap's settings from a file: the
// ConfigMap's manifest, or a YAML map of its data (ARGOCD_CM,
// ARGOCD_CMD_PARAMS).
func ArgoCDConfig(file string) (map[string]string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, UnwrapPath(err)
	}
	var cm struct {
		Kind string            `json:"kind"`
		Data map[string]string `json:"data"`
	}
	if err := yaml.Unmarshal(data, &cm); err == nil && cm.Kind == "ConfigMap" {
		return cm.Data, nil
	}
	var m map[string]string
	if err := yaml.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("neither a ConfigMap nor a map of strings: %w", err)
	}
	return m, nil
}

// Where tells a run's Resolve where it runs: the suite's checkout (relative
// paths are taken from it), where archives are extracted and charts pulled,
// whether a chart repository can be reached (offline only a directory or
// archive can), and the Kubernetes version a chart is rendered for (the
// cluster's, as ArgoCD tells it the chart).
type Where struct {
	Repo, CacheDir string
	Online         bool
	Kubernetes     string
}

// Path is p taken from the checkout, unless absolute.
func (w Where) Path(p string) string {
	if filepath.IsAbs(p) || w.Repo == "" {
		return p
	}
	return filepath.Join(w.Repo, p)
}

// Reserved are namespaces the suite's own cluster needs: a user's
// Application checked into one would be deleted with it.
var Reserved = []string{"default", "kube-system", "kube-public", "kube-node-lease", "argocd", gitserver.Namespace, "local-path-storage"}

// LocalImages checks that the local Docker has each image (when Docker
// answers at all: on a host the suite still has to set it up, loading them
// fails later, saying so).
func LocalImages(ctx context.Context, imgs []string) error {
	if len(imgs) == 0 {
		return nil
	}
	if _, err := shell.Output(ctx, "docker", "info", "--format", "{{.ServerVersion}}"); err != nil {
		return nil
	}
	for _, img := range imgs {
		if _, err := shell.Output(ctx, "docker", "image", "inspect", "--format", "{{.Id}}", img); err != nil {
			return fmt.Errorf("image %q: not in the local Docker (docker images lists what is): IMAGES names images to load into the node", img)
		}
	}
	return nil
}

var recipe = regexp.MustCompile(`^([a-z0-9-]+)@(v[0-9][0-9A-Za-z.+-]*)$`)

// Recipes are IMAGE_RECIPES: component@version with a recipe under images/.
func Recipes(repo, s string) ([][2]string, error) {
	var out [][2]string
	for _, r := range matrix.ParseList(s) {
		m := recipe.FindStringSubmatch(r)
		if m == nil {
			return nil, fmt.Errorf("image recipe %q: not component@version (e.g. knative@v0.42.2)", r)
		}
		if _, err := os.Stat(filepath.Join(repo, "images", m[1], "build.sh")); err != nil {
			return nil, fmt.Errorf("image recipe %q: the suite has no recipe images/%s/build.sh", r, m[1])
		}
		out = append(out, [2]string{m[1], m[2]})
	}
	return out, nil
}

// Expectations reads EXPECT (name=OUTCOME,...): each outcome one of
// outcomes (else the error says bad), each name one known says is a cell of
// the run (else the error it returns).
func Expectations(s, bad string, outcomes []report.Outcome, known func(name string) error) (map[string]report.Outcome, error) {
	out := map[string]report.Outcome{}
	for _, kv := range matrix.ParseList(s) {
		k, v, ok := strings.Cut(kv, "=")
		o := report.Outcome(v)
		if !ok || !slices.Contains(outcomes, o) {
			return nil, fmt.Errorf("expect %q: %s", kv, bad)
		}
		if err := known(k); err != nil {
			return nil, fmt.Errorf("expect %q: %w", kv, err)
		}
		out[k] = o
	}
	return out, nil
}

// Var is a make variable and its value.
type Var struct{ Name, Value string }

// Command is target with the variables given, as a user types it.
func Command(target string, vars ...Var) string {
	parts := []string{target}
	for _, v := range vars {
		if v.Value != "" {
			parts = append(parts, v.Name+"="+repro.Quote(v.Value))
		}
	}
	return strings.Join(parts, " ")
}

// Known is what a run-time scenario's cells are expected to be: Want for
// Why, or as EXPECT says (Expect, for ExpectWhy, or for Flag when it says
// nothing).
type Known struct {
	Want      report.Outcome
	Why       string
	Expect    map[string]report.Outcome
	ExpectWhy string
	Flag      string
}

// Plan is a run-time scenario's matrix data and code: sc, its variants the
// run's cells, each expected as known says, and its feature.
func Plan(sc matrix.Scenario, known Known, feature func(matrix.Cell) step.Scenario) (*matrix.Data, runner.Scenarios) {
	d := &matrix.Data{Scenarios: []matrix.Scenario{sc}}
	var names []string
	for _, v := range sc.Variants {
		names = append(names, v.Name)
		want, why := known.Want, known.Why
		if o, ok := known.Expect[v.Name]; ok {
			want, why = o, cmp.Or(known.ExpectWhy, known.Flag)
		}
		d.Expectations = append(d.Expectations, matrix.Expectation{Scenario: sc.Name, Variant: v.Name, Expected: want, Why: why})
	}
	return d, runner.Scenarios{sc.Name: {Feature: feature, Variants: names}}
}
