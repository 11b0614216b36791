package suites

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/sources"
	"github.com/gitops-conformance/suite/scenarios/knative"
)

// Chart is where a chart of the suite's data comes from (a validation of
// suites/conform.yaml): a Path (a chart directory, or a directory or archive
// holding charts: ${VAR} expanded, relative to the checkout), a Module's
// directory (module@version, Dir, and Only some of its templates), or
// Knative Serving's core at a knative.dev/serving version (knative.Chart).
type Chart struct {
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

func (c Chart) check() error {
	sources := 0
	for _, set := range []bool{c.Path != "", c.Module != "", c.Knative != ""} {
		if set {
			sources++
		}
	}
	if sources != 1 {
		return errors.New("exactly one of path, module, knative")
	}
	if c.Module != "" && (!strings.Contains(c.Module, "@") || c.Dir == "") {
		return errors.New("module is module@version, with the chart's dir in it")
	}
	if len(c.Documents) > 0 && len(c.Only) == 0 {
		return errors.New("documents are taken from the only files")
	}
	return nil
}

// chart is where the chart is on this machine, made under dir
// when it comes from a module.
func (c Chart) chart(ctx context.Context, dir string) (string, error) {
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
