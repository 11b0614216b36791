package suites

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/pkg/conform"
	"github.com/gitops-conformance/suite/pkg/report"
)

//go:embed conform.yaml
var conformYAML []byte

// Validation is one run of make conform-validate: a chart the scenarios
// measured, installed as they installed it, and the outcomes the checks of
// its bug's class must have (suites/conform.yaml).
type Validation struct {
	Name string `json:"name"`
	// Title is the chart and its setting in a few words: the table's row.
	Title string `json:"title"`
	Chart Chart  `json:"chart"`
	// Values are the chart's values (written to a file for VALUES), or
	// ValuesFile names a values file (relative to the checkout).
	Values          map[string]any `json:"values,omitempty"`
	ValuesFile      string         `json:"valuesFile,omitempty"`
	Namespace       string         `json:"namespace"`
	NamespaceLabels string         `json:"namespaceLabels,omitempty"`
	SyncOptions     []string       `json:"syncOptions,omitempty"`
	// IgnoreDifferences are the Application's spec.ignoreDifferences
	// (IGNORE_DIFFERENCES), ArgoCDCmdParams argocd-cmd-params-cm's settings
	// (ARGOCD_CMD_PARAMS): a mitigation the validation measures.
	IgnoreDifferences []any             `json:"ignoreDifferences,omitempty"`
	ArgoCDCmdParams   map[string]string `json:"argocdCmdParams,omitempty"`
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

// writeYAML writes v as YAML to dir/name and returns the file's path.
func writeYAML(dir, name string, v any) (string, error) {
	data, err := yaml.Marshal(v)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	file := filepath.Join(dir, name)
	return file, os.WriteFile(file, data, 0o644)
}

// Validations are suites/conform.yaml's, checked.
func Validations() ([]Validation, error) {
	return readList(conformYAML, "suites/conform.yaml", "validations", "validation", func(v Validation) string { return v.Name }, Validation.check)
}

// readList reads the list under key of an embedded YAML file (its name for
// errors), each entry checked and its name (what) unique.
func readList[T any](data []byte, file, key, what string, name func(T) string, check func(T) error) ([]T, error) {
	var doc map[string][]T
	if err := yaml.UnmarshalStrict(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	for k := range doc {
		if k != key {
			return nil, fmt.Errorf("%s: unknown field %q (the file holds %s)", file, k, key)
		}
	}
	seen := map[string]bool{}
	for _, e := range doc[key] {
		if err := check(e); err != nil {
			return nil, fmt.Errorf("%s: %s %q: %w", file, what, name(e), err)
		}
		if seen[name(e)] {
			return nil, fmt.Errorf("%s: %s %q twice", file, what, name(e))
		}
		seen[name(e)] = true
	}
	return doc[key], nil
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
	if err := v.Chart.check(); err != nil {
		return fmt.Errorf("chart: %w", err)
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
	// relative paths and variables as make runs it: from the checkout
	chart, err := v.Chart.chart(ctx, Local{Cache: dir}, filepath.Join(dir, v.Name))
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
	for _, f := range []struct {
		flag, suffix string
		set          bool
		v            any
	}{
		{"-values", "values", len(v.Values) > 0, v.Values},
		{"-ignore-differences", "ignore-differences", len(v.IgnoreDifferences) > 0, v.IgnoreDifferences},
		{"-argocd-cmd-params", "argocd-cmd-params", len(v.ArgoCDCmdParams) > 0, v.ArgoCDCmdParams},
	} {
		if !f.set {
			continue
		}
		file, err := writeYAML(dir, v.Name+"-"+f.suffix+".yaml", f.v)
		if err != nil {
			return nil, err
		}
		args = append(args, f.flag, file)
	}
	var expect []string
	for _, c := range v.Checks() {
		expect = append(expect, c+"="+string(v.Expect[c]))
	}
	return append(args, "-expect", strings.Join(expect, ","), "-expect-why", "suites/conform.yaml "+v.Name+": "+v.Why), nil
}
