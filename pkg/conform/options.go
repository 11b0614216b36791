package conform

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/internal/gitserver"
	"github.com/gitops-conformance/suite/internal/shell"
	"github.com/gitops-conformance/suite/pkg/helm"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/repro"
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
	Images          string // IMAGES: local Docker images given to the node
	ImageRecipes    string // IMAGE_RECIPES: component@version built by the suite's offline recipes (images/<component>/build.sh)
	SyncOptions     string // SYNC_OPTIONS: the Application's sync options (ServerSideApply=true ...)
	// Expect (check=OUTCOME,...) and ExpectWhy replace the expectation that
	// a chart passes every check: make conform-validate's known answers.
	Expect    string
	ExpectWhy string
}

// Register defines the options' flags on fs.
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
	fs.StringVar(&o.Images, "images", "", "make conform: local Docker images given to the node, comma-separated (offline: what the chart's workloads run)")
	fs.StringVar(&o.ImageRecipes, "image-recipes", "", "make conform: component@version, comma-separated: images the suite builds offline with images/<component>/build.sh and gives to the node")
	fs.StringVar(&o.SyncOptions, "sync-options", "", "make conform: the Application's sync options, comma-separated (e.g. ServerSideApply=true)")
	fs.StringVar(&o.Expect, "expect", "", "make conform: expected outcomes check=OUTCOME,... in place of NOT_REPRODUCED (make conform-validate's known answers)")
	fs.StringVar(&o.ExpectWhy, "expect-why", "", "make conform: where the -expect outcomes come from")
}

// Enabled reports whether the run is make conform's.
func (o *Options) Enabled() bool { return o.Chart != "" }

// Spec is what a make conform run checks, found and read before anything
// starts: the chart, rendered as ArgoCD will install it, and how.
type Spec struct {
	Chart     *Chart
	Rendered  *Rendered
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
	Expect      map[string]report.Outcome
	ExpectWhy   string
	// Command is make conform with the options given, for a cell's replay.
	Command string
}

// Reserved are namespaces the suite's own cluster needs: a chart checked
// into one would be deleted with it.
var Reserved = []string{"default", "kube-system", "kube-public", "kube-node-lease", "argocd", gitserver.Namespace, "local-path-storage"}

// Where tells Resolve where it runs: the suite's checkout (relative paths
// are taken from it), where archives are extracted and charts pulled,
// whether a chart repository can be reached (offline only a directory or
// archive can), and the Kubernetes version the chart is rendered for (the
// cluster's, as ArgoCD tells it the chart).
type Where struct {
	Repo, CacheDir string
	Online         bool
	Kubernetes     string
}

// Resolve checks the options and reads the chart: a user error is returned
// as is (the caller makes it bad input: one line, exit 2).
func (o Options) Resolve(ctx context.Context, w Where) (*Spec, error) {
	repo, cacheDir, online := w.Repo, w.CacheDir, w.Online
	s := &Spec{SyncOptions: matrix.ParseList(o.SyncOptions), ExpectWhy: o.ExpectWhy}
	var err error
	if s.Checks, err = checkNames(o.Checks); err != nil {
		return nil, err
	}
	if s.Expect, err = expectations(o.Expect, s.Checks); err != nil {
		return nil, err
	}
	switch {
	case IsRepoURL(o.Chart) && !online:
		return nil, fmt.Errorf("chart %q: a chart repository needs the online mode (no registry or chart repository is reachable here); offline give CHART a chart directory or .tgz", o.Chart)
	case IsRepoURL(o.Chart):
		s.Chart, err = RepoChart(o.Chart, o.ChartName, o.ChartVersion, cacheDir)
	default:
		s.Chart, err = LocalChart(o.Chart, o.ChartName, o.ChartVersion, repo, cacheDir)
	}
	if err != nil {
		return nil, err
	}
	if o.ChartDigest != "" && o.ChartDigest != s.Chart.Digest {
		return nil, fmt.Errorf("chart %s %s from %s: its content sha256 is %s, not CHART_DIGEST %s", s.Chart.Name, s.Chart.Version, s.Chart.Source, s.Chart.Digest, o.ChartDigest)
	}
	s.Release = orDefault(o.Release, s.Chart.Name)
	if errs := validation.IsDNS1123Label(s.Release); len(errs) > 0 || len(s.Release) > 53 {
		return nil, fmt.Errorf("release %q: not a Helm release name (a DNS label of at most 53 characters): set RELEASE", s.Release)
	}
	s.Namespace = orDefault(o.Namespace, s.Release)
	if errs := validation.IsDNS1123Label(s.Namespace); len(errs) > 0 {
		return nil, fmt.Errorf("namespace %q: %s", s.Namespace, strings.Join(errs, "; "))
	}
	if slices.Contains(Reserved, s.Namespace) {
		return nil, fmt.Errorf("namespace %q: the suite's cluster needs it, and a check deletes its namespace at the end: choose another NAMESPACE", s.Namespace)
	}
	if s.Labels, err = labels(o.NamespaceLabels); err != nil {
		return nil, err
	}
	values := map[string]any{}
	if o.Values != "" {
		data, err := os.ReadFile(abs(repo, o.Values))
		if err != nil {
			return nil, fmt.Errorf("values %q: %w", o.Values, UnwrapPath(err))
		}
		if err := yaml.Unmarshal(data, &values); err != nil {
			return nil, fmt.Errorf("values %q: not a YAML map: %w", o.Values, err)
		}
		s.Values = string(data)
	}
	manifest, err := helm.RenderAll(ctx, helm.Release{Name: s.Release, Namespace: s.Namespace, Chart: s.Chart.Dir, Values: values, KubeVersion: w.Kubernetes})
	if err != nil {
		return nil, fmt.Errorf("chart %s %s does not render with these values: %w", s.Chart.Name, s.Chart.Version, err)
	}
	if s.Rendered, err = ParseRendered(manifest, s.Namespace); err != nil {
		return nil, fmt.Errorf("chart %s %s: %w", s.Chart.Name, s.Chart.Version, err)
	}
	if o.Extra != "" {
		if s.Extra, err = extra(abs(repo, o.Extra), s.Namespace); err != nil {
			return nil, fmt.Errorf("extra %q: %w", o.Extra, err)
		}
	}
	s.Images = matrix.ParseList(o.Images)
	if err := LocalImages(ctx, s.Images); err != nil {
		return nil, err
	}
	if s.Recipes, err = Recipes(repo, o.ImageRecipes); err != nil {
		return nil, err
	}
	s.Command = o.command()
	return s, nil
}

func abs(base, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(base, p)
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

func expectations(s string, checks []string) (map[string]report.Outcome, error) {
	out := map[string]report.Outcome{}
	for _, kv := range matrix.ParseList(s) {
		k, v, ok := strings.Cut(kv, "=")
		o := report.Outcome(v)
		switch {
		case !ok || (o != report.Reproduced && o != report.NotReproduced):
			return nil, fmt.Errorf("expect %q: not check=REPRODUCED or check=NOT_REPRODUCED", kv)
		case !slices.Contains(checks, k):
			return nil, fmt.Errorf("expect %q: %q is not a check of this run (%s)", kv, k, strings.Join(checks, ", "))
		}
		out[k] = o
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
		return "", UnwrapPath(err)
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
	r, err := ParseRendered(strings.Join(docs, "\n---\n"), namespace)
	if err != nil {
		return "", err
	}
	if len(r.Objects) == 0 {
		return "", errors.New("no manifests (*.yaml, *.yml, *.json) in it")
	}
	return r.Manifest(), nil
}

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

// command is make conform with the options given, as a user types it.
func (o Options) command() string {
	parts := []string{"make conform"}
	for _, v := range []struct{ name, value string }{
		{"CHART", o.Chart}, {"CHART_NAME", o.ChartName}, {"CHART_VERSION", o.ChartVersion}, {"CHART_DIGEST", o.ChartDigest},
		{"VALUES", o.Values}, {"NAMESPACE", o.Namespace}, {"NAMESPACE_LABELS", o.NamespaceLabels}, {"RELEASE", o.Release},
		{"EXTRA", o.Extra}, {"IMAGES", o.Images}, {"IMAGE_RECIPES", o.ImageRecipes}, {"SYNC_OPTIONS", o.SyncOptions},
	} {
		if v.value != "" {
			parts = append(parts, v.name+"="+repro.Quote(v.value))
		}
	}
	return strings.Join(parts, " ")
}
