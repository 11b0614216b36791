package conform

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/pkg/appcell"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/helm"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/runner"
)

// Options are make conform's variables, as the e2e test binary's flags.
type Options struct {
	Chart           string // CHART: a chart directory, a directory or .tgz holding charts, or a repository URL
	ChartName       string // CHART_NAME: which chart (a repository URL needs it)
	ChartVersion    string // CHART_VERSION: which version (a repository URL needs it)
	ChartDigest     string // CHART_DIGEST: refuse a chart whose content sha256 differs (fixture.Digest)
	Values          string // VALUES: a values file
	Namespace       string // NAMESPACE: created beforehand, without labels unless NamespaceLabels
	NamespaceLabels string // NAMESPACE_LABELS: k=v,... put on it
	Release         string // RELEASE: the Helm release and Application name (default: the chart's name)
	Extra           string // EXTRA: a directory of manifests applied after the install
	Checks          string // CHECKS: which checks (default: all)
	SyncOptions     string // SYNC_OPTIONS: the Application's sync options (ServerSideApply=true ...)
	// IGNORE_DIFFERENCES: a file: the Application's spec.ignoreDifferences (a list)
	IgnoreDifferences string
	// IMAGES, IMAGE_RECIPES, and EXPECT (check=OUTCOME,...) with EXPECT_WHY
	// in place of the expectation that a chart passes every check (make
	// conform-validate's known answers): registered by Shared.Register.
	appcell.Shared
}

// Register defines the options' own flags on fs (the Shared ones are
// registered once, by Shared.Register).
func (o *Options) Register(fs *flag.FlagSet) {
	fs.StringVar(&o.Chart, "chart", "", "make conform: the chart (a chart directory, a directory or .tgz/.tar.gz holding charts, or a chart repository URL)")
	fs.StringVar(&o.ChartName, "chart-name", "", "make conform: the chart's name (a repository URL needs it; else it chooses among the charts found)")
	fs.StringVar(&o.ChartVersion, "chart-version", "", "make conform: the chart's version (a repository URL needs it; else it chooses among the charts found)")
	fs.StringVar(&o.ChartDigest, "chart-digest", "", "make conform: the content sha256 the chart must have (find . -type f -printf '%P\\n' | LC_ALL=C sort | xargs sha256sum | sha256sum)")
	fs.StringVar(&o.Values, "values", "", "make conform: a Helm values file")
	fs.StringVar(&o.Namespace, "namespace", "", "make conform: the namespace the chart is installed into, created beforehand (default: the release's name)")
	fs.StringVar(&o.NamespaceLabels, "namespace-labels", "", "make conform: labels (k=v,...) put on the namespace when it is created")
	fs.StringVar(&o.Release, "release", "", "make conform: the Helm release and ArgoCD Application name (default: the chart's name)")
	fs.StringVar(&o.Extra, "extra", "", "make conform: a directory of manifests applied after the install (e.g. a custom resource that drives the chart's controllers)")
	fs.StringVar(&o.Checks, "checks", "", "make conform: the checks, comma-separated (default: all: "+strings.Join(Names(), ", ")+")")
	fs.StringVar(&o.SyncOptions, "sync-options", "", "make conform: the Application's sync options, comma-separated (e.g. ServerSideApply=true)")
	fs.StringVar(&o.IgnoreDifferences, "ignore-differences", "", "make conform: a YAML file: the Application's spec.ignoreDifferences, a list (with SYNC_OPTIONS=RespectIgnoreDifferences=true, what a sync leaves alone too)")
}

// Options are one of the two runs a user's Application is checked by.
var _ appcell.Options = (*Options)(nil)

// Enabled reports whether the run is make conform's.
func (o *Options) Enabled() bool { return o.Chart != "" }

// Spec is what a make conform run checks, found and read before anything
// starts: the chart, rendered as ArgoCD will install it, and how.
type Spec struct {
	Chart     *appcell.Chart
	Rendered  *appcell.Rendered
	Values    string // the values file's content ("" for none)
	Namespace string
	Labels    map[string]string
	Release   string
	// Extra are the manifests of EXTRA, namespaces filled in ("" for none).
	Extra       string
	Checks      []string
	Images      []string
	Recipes     [][2]string // component, version
	SyncOptions []string
	// IgnoreDifferences are the Application's spec.ignoreDifferences;
	// CmdParams are argocd-cmd-params-cm's settings (ARGOCD_CMD_PARAMS).
	IgnoreDifferences []any
	CmdParams         map[string]string
	// values are the chart's values, kubernetes the version it renders for
	// (the lookup check renders it again).
	values     map[string]any
	kubernetes string
	Expect     map[string]report.Outcome
	ExpectWhy  string
	// Command is make conform with the options given, for a cell's replay.
	Command string
}

// Resolve checks the options and reads the chart: a user error is returned
// as is (the caller makes it bad input: one line, exit 2).
func (o Options) Resolve(ctx context.Context, w appcell.Where) (*Spec, error) {
	repo, cacheDir, online := w.Repo, w.CacheDir, w.Online
	s := &Spec{SyncOptions: matrix.ParseList(o.SyncOptions), ExpectWhy: o.ExpectWhy}
	var err error
	if s.Checks, err = checkNames(o.Checks); err != nil {
		return nil, err
	}
	known := func(k string) error {
		if !slices.Contains(s.Checks, k) {
			return fmt.Errorf("%q is not a check of this run (%s)", k, strings.Join(s.Checks, ", "))
		}
		return nil
	}
	if s.Expect, err = appcell.Expectations(o.Expect, "not check=REPRODUCED or check=NOT_REPRODUCED",
		[]report.Outcome{report.Reproduced, report.NotReproduced}, known); err != nil {
		return nil, err
	}
	switch {
	case appcell.IsRepoURL(o.Chart) && !online:
		return nil, fmt.Errorf("chart %q: a chart repository needs the online mode (no registry or chart repository is reachable here); offline give CHART a chart directory or .tgz", o.Chart)
	case appcell.IsRepoURL(o.Chart):
		s.Chart, err = appcell.RepoChart(o.Chart, o.ChartName, o.ChartVersion, cacheDir)
	default:
		s.Chart, err = appcell.LocalChart(o.Chart, o.ChartName, o.ChartVersion, repo, cacheDir)
	}
	if err != nil {
		return nil, err
	}
	if o.ChartDigest != "" && o.ChartDigest != s.Chart.Digest {
		return nil, fmt.Errorf("chart %s %s from %s: its content sha256 is %s, not CHART_DIGEST %s", s.Chart.Name, s.Chart.Version, s.Chart.Source, s.Chart.Digest, o.ChartDigest)
	}
	s.Release = cmp.Or(o.Release, s.Chart.Name)
	if errs := validation.IsDNS1123Label(s.Release); len(errs) > 0 || len(s.Release) > 53 {
		return nil, fmt.Errorf("release %q: not a Helm release name (a DNS label of at most 53 characters): set RELEASE", s.Release)
	}
	s.Namespace = cmp.Or(o.Namespace, s.Release)
	if errs := validation.IsDNS1123Label(s.Namespace); len(errs) > 0 {
		return nil, fmt.Errorf("namespace %q: %s", s.Namespace, strings.Join(errs, "; "))
	}
	if slices.Contains(appcell.Reserved, s.Namespace) {
		return nil, fmt.Errorf("namespace %q: the suite's cluster needs it, and a check deletes its namespace at the end: choose another NAMESPACE", s.Namespace)
	}
	if s.Labels, err = labels(o.NamespaceLabels); err != nil {
		return nil, err
	}
	values := map[string]any{}
	if o.Values != "" {
		data, err := os.ReadFile(w.Path(o.Values))
		if err != nil {
			return nil, fmt.Errorf("values %q: %w", o.Values, appcell.UnwrapPath(err))
		}
		if err := yaml.Unmarshal(data, &values); err != nil {
			return nil, fmt.Errorf("values %q: not a YAML map: %w", o.Values, err)
		}
		s.Values = string(data)
	}
	s.values, s.kubernetes = values, w.Kubernetes
	if o.IgnoreDifferences != "" {
		data, err := os.ReadFile(w.Path(o.IgnoreDifferences))
		if err != nil {
			return nil, fmt.Errorf("ignore differences %q: %w", o.IgnoreDifferences, appcell.UnwrapPath(err))
		}
		if err := yaml.Unmarshal(data, &s.IgnoreDifferences); err != nil || len(s.IgnoreDifferences) == 0 {
			return nil, fmt.Errorf("ignore differences %q: not a YAML list of spec.ignoreDifferences entries", o.IgnoreDifferences)
		}
	}
	if o.ArgoCDCmdParams != "" {
		if s.CmdParams, err = appcell.ArgoCDConfig(w.Path(o.ArgoCDCmdParams)); err != nil {
			return nil, fmt.Errorf("argocd cmd params %q: %w", o.ArgoCDCmdParams, err)
		}
	}
	manifest, err := helm.RenderAll(ctx, helm.Release{Name: s.Release, Namespace: s.Namespace, Chart: s.Chart.Dir, Values: values, KubeVersion: w.Kubernetes})
	if err != nil {
		return nil, fmt.Errorf("chart %s %s does not render with these values: %w", s.Chart.Name, s.Chart.Version, err)
	}
	if s.Rendered, err = appcell.ParseRendered(manifest, s.Namespace); err != nil {
		return nil, fmt.Errorf("chart %s %s: %w", s.Chart.Name, s.Chart.Version, err)
	}
	if o.Extra != "" {
		if s.Extra, err = extra(w.Path(o.Extra), s.Namespace); err != nil {
			return nil, fmt.Errorf("extra %q: %w", o.Extra, err)
		}
	}
	s.Images = matrix.ParseList(o.Images)
	if err := appcell.LocalImages(ctx, s.Images); err != nil {
		return nil, err
	}
	if s.Recipes, err = appcell.Recipes(repo, o.ImageRecipes); err != nil {
		return nil, err
	}
	s.Command = o.command()
	return s, nil
}

// checkNames are the checks asked for, all of them for none, in the order
// of Names.
func checkNames(s string) ([]string, error) {
	asked := matrix.ParseList(s)
	for _, c := range asked {
		if !slices.Contains(Names(), c) {
			return nil, fmt.Errorf("unknown check %q (valid: %s)", c, strings.Join(Names(), ", "))
		}
	}
	var out []string
	for _, n := range Names() {
		if len(asked) == 0 || slices.Contains(asked, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

func labels(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range matrix.ParseList(s) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("namespace label %q: not key=value", kv)
		}
		if errs := append(validation.IsQualifiedName(k), validation.IsValidLabelValue(v)...); len(errs) > 0 {
			return nil, fmt.Errorf("namespace label %q: %s", kv, strings.Join(errs, "; "))
		}
		out[k] = v
	}
	return out, nil
}

// extra reads a directory's manifests (*.yaml, *.yml, *.json, in name order)
// as one manifest, namespaced objects without a namespace put into namespace.
func extra(dir, namespace string) (string, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return "", appcell.UnwrapPath(err)
	}
	if !st.IsDir() {
		return "", errors.New("not a directory")
	}
	var docs []string
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if n := e.Name(); !e.IsDir() && (strings.HasSuffix(n, ".yaml") || strings.HasSuffix(n, ".yml") || strings.HasSuffix(n, ".json")) {
			data, err := os.ReadFile(filepath.Join(dir, n))
			if err != nil {
				return "", err
			}
			docs = append(docs, string(data))
		}
	}
	r, err := appcell.ParseRendered(strings.Join(docs, "\n---\n"), namespace)
	if err != nil {
		return "", err
	}
	if len(r.Objects) == 0 {
		return "", errors.New("no manifests (*.yaml, *.yml, *.json) in it")
	}
	return r.Manifest(), nil
}

// command is make conform with the options given, as a user types it.
func (o Options) command() string {
	return appcell.Command("make conform",
		appcell.Var{Name: "CHART", Value: o.Chart}, appcell.Var{Name: "CHART_NAME", Value: o.ChartName},
		appcell.Var{Name: "CHART_VERSION", Value: o.ChartVersion}, appcell.Var{Name: "CHART_DIGEST", Value: o.ChartDigest},
		appcell.Var{Name: "VALUES", Value: o.Values}, appcell.Var{Name: "NAMESPACE", Value: o.Namespace},
		appcell.Var{Name: "NAMESPACE_LABELS", Value: o.NamespaceLabels}, appcell.Var{Name: "RELEASE", Value: o.Release},
		appcell.Var{Name: "EXTRA", Value: o.Extra}, appcell.Var{Name: "IMAGES", Value: o.Images},
		appcell.Var{Name: "IMAGE_RECIPES", Value: o.ImageRecipes}, appcell.Var{Name: "SYNC_OPTIONS", Value: o.SyncOptions},
		appcell.Var{Name: "IGNORE_DIFFERENCES", Value: o.IgnoreDifferences}, appcell.Var{Name: "ARGOCD_CMD_PARAMS", Value: o.ArgoCDCmdParams})
}

// Scenario is the scenario make conform's cells belong to; each check is a
// variant of it. It is made at run time from the chart (Plan), never listed
// in suites/matrix.yaml: make matrix does not run it.
const Scenario = "conform"

// Clean is why a check is expected NOT_REPRODUCED when nothing else is said.
const Clean = "a chart is expected to pass every check (make conform)"

// Plan is the run's matrix data and code: the scenario conform with one
// variant per check, on the chart's version, each expected NOT_REPRODUCED
// (or as -expect says), and its feature. Without ARGOCD the cells run on the
// newest release of the catalog's default axis.
func (s *Spec) Plan(cat *catalog.Catalog) (*matrix.Data, runner.Scenarios, error) {
	axis, err := cat.Releases(cat.ArgoCD.Default)
	if err != nil {
		return nil, nil, err
	}
	if len(axis) == 0 {
		return nil, nil, fmt.Errorf("the catalog has no default ArgoCD axis")
	}
	newest := slices.MaxFunc(axis, catalog.Release.Compare)
	sc := matrix.Scenario{Name: Scenario, Component: s.Chart.Name, ArgoCD: []string{newest.String()}, UserChart: true, ReplayCommand: s.Command,
		Title:   "the bug classes of the scenarios and of upstream reports, checked on a chart",
		Summary: fmt.Sprintf("Chart %s %s (%s) installed through ArgoCD as release %s into namespace %s, made beforehand; each check a bug class a scenario reproduced or an upstream report describes.", s.Chart.Name, s.Chart.Version, s.Chart.Source, s.Release, s.Namespace)}
	for _, r := range s.Recipes { // built beside the node image (the prebuild), not in the first cell
		sc.Builds = append(sc.Builds, r[0]+"@"+r[1])
	}
	for _, name := range s.Checks {
		c, _ := lookup(name)
		sc.Variants = append(sc.Variants, matrix.Variant{Name: c.Name, Summary: c.Summary, ComponentVersion: s.Chart.Version})
	}
	data, code := appcell.Plan(sc, appcell.Known{Want: report.NotReproduced, Why: Clean, Expect: s.Expect, ExpectWhy: s.ExpectWhy, Flag: "make conform -expect"}, s.Feature)
	return data, code, nil
}
