package suites

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/pkg/conform"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/sources"
	"github.com/gitops-conformance/suite/scenarios/knative"
)

//go:embed conform.yaml
var conformYAML []byte

// Validation is one run of make conform-validate: a chart the scenarios
// measured, installed as they installed it, and the outcomes the checks of
// its bug's class must have (suites/conform.yaml).
type Validation struct {
	Name string `json:"name"`
	// Title is the chart and its setting in a few words: the table's row.
	Title string         `json:"title"`
	Chart ValidatedChart `json:"chart"`
	// Values are the chart's values (written to a file for VALUES), or
	// ValuesFile names a values file (relative to the checkout).
	Values          map[string]any `json:"values,omitempty"`
	ValuesFile      string         `json:"valuesFile,omitempty"`
	Namespace       string         `json:"namespace"`
	NamespaceLabels string         `json:"namespaceLabels,omitempty"`
	SyncOptions     []string       `json:"syncOptions,omitempty"`
	// Recipes are the suite's offline image recipes (component@version)
	// that build what the chart runs (IMAGE_RECIPES; online the node pulls).
	Recipes []string `json:"recipes,omitempty"`
	ArgoCD  string   `json:"argocd"`
	// Expect are the known answers: check to outcome. Only these checks run.
	Expect map[string]report.Outcome `json:"expect"`
	// Why says where the known answers come from (the scenario's measured
	// cells, suites/matrix.yaml).
	Why string `json:"why"`
}

// ValidatedChart is where a validation's chart comes from: a Path (a chart
// directory, or a directory or archive holding charts: ${VAR} expanded,
// relative to the checkout), a Module's directory (module@version, Dir, and
// Only some of its templates), or Knative Serving's core at a
// knative.dev/serving version (knative.Chart).
type ValidatedChart struct {
	Path    string   `json:"path,omitempty"`
	Name    string   `json:"name,omitempty"`
	Version string   `json:"version,omitempty"`
	Digest  string   `json:"digest,omitempty"`
	Module  string   `json:"module,omitempty"`
	Dir     string   `json:"dir,omitempty"`
	Only    []string `json:"only,omitempty"`
	// Documents keep, of the Only files, the documents of these names
	// (plain YAML files: what a scenario applied of one).
	Documents []string `json:"documents,omitempty"`
	Knative   string   `json:"knative,omitempty"`
	Flag      bool     `json:"flag,omitempty"`
}

// Validations are suites/conform.yaml's, checked.
func Validations() ([]Validation, error) {
	var file struct {
		Validations []Validation `json:"validations"`
	}
	if err := yaml.UnmarshalStrict(conformYAML, &file); err != nil {
		return nil, fmt.Errorf("suites/conform.yaml: %w", err)
	}
	seen := map[string]bool{}
	for _, v := range file.Validations {
		if err := v.check(); err != nil {
			return nil, fmt.Errorf("suites/conform.yaml: validation %q: %w", v.Name, err)
		}
		if seen[v.Name] {
			return nil, fmt.Errorf("suites/conform.yaml: validation %q twice", v.Name)
		}
		seen[v.Name] = true
	}
	return file.Validations, nil
}

func (v Validation) check() error {
	switch {
	case v.Name == "" || v.Title == "" || v.Why == "":
		return errors.New("name, title and why are required")
	case v.ArgoCD == "" || v.Namespace == "":
		return errors.New("argocd and namespace are required: the answers were measured on one release")
	case len(v.Expect) == 0:
		return errors.New("no expect: a validation checks known answers")
	case len(v.Values) > 0 && v.ValuesFile != "":
		return errors.New("values or valuesFile, not both")
	}
	for c, o := range v.Expect {
		if !slices.Contains(conform.Names(), c) {
			return fmt.Errorf("expect: unknown check %q (valid: %s)", c, strings.Join(conform.Names(), ", "))
		}
		if o != report.Reproduced && o != report.NotReproduced {
			return fmt.Errorf("expect %s: %s is not REPRODUCED or NOT_REPRODUCED", c, o)
		}
	}
	sources := 0
	for _, set := range []bool{v.Chart.Path != "", v.Chart.Module != "", v.Chart.Knative != ""} {
		if set {
			sources++
		}
	}
	if sources != 1 {
		return errors.New("chart: exactly one of path, module, knative")
	}
	if v.Chart.Module != "" && (!strings.Contains(v.Chart.Module, "@") || v.Chart.Dir == "") {
		return errors.New("chart: module is module@version, with the chart's dir in it")
	}
	if len(v.Chart.Documents) > 0 && len(v.Chart.Only) == 0 {
		return errors.New("chart: documents are taken from the only files")
	}
	return nil
}

// Checks are the checks a validation runs: those it knows the answer of.
func (v Validation) Checks() []string {
	var out []string
	for _, c := range conform.Names() {
		if _, ok := v.Expect[c]; ok {
			out = append(out, c)
		}
	}
	return out
}

// Args are the e2e test binary's make conform flags for the validation, its
// chart and values written under dir first where they come from a module.
func (v Validation) Args(ctx context.Context, dir string) ([]string, error) {
	chart, err := v.chart(ctx, filepath.Join(dir, v.Name))
	if err != nil {
		return nil, fmt.Errorf("validation %s: %w", v.Name, err)
	}
	args := []string{"-chart", chart, "-namespace", v.Namespace, "-argocd", v.ArgoCD, "-checks", strings.Join(v.Checks(), ",")}
	for _, f := range []struct{ flag, value string }{
		{"-chart-name", v.Chart.Name}, {"-chart-version", v.Chart.Version}, {"-chart-digest", v.Chart.Digest},
		{"-namespace-labels", v.NamespaceLabels}, {"-sync-options", strings.Join(v.SyncOptions, ",")},
		{"-image-recipes", strings.Join(v.Recipes, ",")},
	} {
		if f.value != "" {
			args = append(args, f.flag, f.value)
		}
	}
	if v.ValuesFile != "" {
		args = append(args, "-values", v.ValuesFile)
	}
	if len(v.Values) > 0 {
		data, err := yaml.Marshal(v.Values)
		if err != nil {
			return nil, err
		}
		file := filepath.Join(dir, v.Name+"-values.yaml")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(file, data, 0o644); err != nil {
			return nil, err
		}
		args = append(args, "-values", file)
	}
	var expect []string
	for _, c := range v.Checks() {
		expect = append(expect, c+"="+string(v.Expect[c]))
	}
	return append(args, "-expect", strings.Join(expect, ","), "-expect-why", "suites/conform.yaml "+v.Name+": "+v.Why), nil
}

// chart is where the validation's chart is on this machine, made under dir
// when it comes from a module.
func (v Validation) chart(ctx context.Context, dir string) (string, error) {
	c := v.Chart
	switch {
	case c.Path != "":
		var unset []string
		p := os.Expand(c.Path, func(name string) string {
			v, ok := os.LookupEnv(name)
			if !ok || v == "" {
				unset = append(unset, name)
			}
			return v
		})
		if len(unset) > 0 {
			return "", fmt.Errorf("chart path %q: set %s (docs/offline-online.md)", c.Path, strings.Join(unset, ", "))
		}
		return p, nil
	case c.Knative != "":
		files, err := knative.Chart(fixture.ReadModules(ctx), c.Knative, c.Flag)
		if err != nil {
			return "", err
		}
		return dir, write(dir, files)
	}
	module, version, _ := strings.Cut(c.Module, "@")
	root, err := sources.ModuleDir(ctx, module, version)
	if err != nil {
		return "", err
	}
	src := filepath.Join(root, filepath.FromSlash(c.Dir))
	if len(c.Only) == 0 {
		return src, nil
	}
	files, err := fixture.ReadTree(src)
	if err != nil {
		return "", err
	}
	kept := map[string]string{}
	for p, content := range files {
		if p == "Chart.yaml" || p == "values.yaml" || slices.Contains(c.Only, p) {
			kept[p] = content
		}
	}
	for _, p := range c.Only {
		if _, ok := kept[p]; !ok {
			return "", fmt.Errorf("%s/%s has no %s", c.Module, c.Dir, p)
		}
		if len(c.Documents) > 0 {
			var docs []string
			for _, name := range c.Documents {
				if doc, err := sources.Document([]byte(kept[p]), name); err == nil {
					docs = append(docs, doc)
				}
			}
			if len(docs) != len(c.Documents) {
				return "", fmt.Errorf("%s/%s/%s holds %d of the documents %v", c.Module, c.Dir, p, len(docs), c.Documents)
			}
			kept[p] = strings.Join(docs, "\n---\n")
		}
	}
	return dir, write(dir, kept)
}

// write makes dir hold exactly files.
func write(dir string, files map[string]string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for p := range files {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		path := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(files[p]), 0o644); err != nil {
			return err
		}
	}
	return nil
}
