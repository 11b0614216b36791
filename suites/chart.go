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

	"github.com/gitops-conformance/suite/pkg/appcell"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/sources"
	"github.com/gitops-conformance/suite/scenarios/knative"
)

// Chart is where a chart of the suite's data comes from (a validation of
// suites/conform.yaml, a seed Application of suites/upgrade-check.yaml): a
// Path (a chart directory, or a directory or archive holding charts: ${VAR}
// expanded, relative to the checkout; Name and Version choose one), a
// Module's directory (module@version, Dir, and Only some of its templates),
// a component's source Tree at a tag (component@tag, Dir: the chart in it),
// or Knative Serving's core at a knative.dev/serving version (knative.Chart).
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
	// Tree is component@tag: the component's source tree at the tag, from
	// where its catalog sources entry says (KARGO_SOURCES: a checkout or an
	// archive per tag, as the scenario reads it); Dir is the chart in it.
	Tree    string `json:"tree,omitempty"`
	Knative string `json:"knative,omitempty"`
	Flag    bool   `json:"flag,omitempty"`
}

// Local is where charts are made on this machine.
type Local struct {
	Repo  string // the suite's checkout: relative paths and variables are taken from it
	Cache string // the suite's cache: archives and source trees are extracted under it
}

func (c Chart) check() error {
	sources := 0
	for _, set := range []bool{c.Path != "", c.Module != "", c.Knative != "", c.Tree != ""} {
		if set {
			sources++
		}
	}
	if sources != 1 {
		return errors.New("exactly one of path, module, knative, tree")
	}
	if c.Module != "" && (!strings.Contains(c.Module, "@") || c.Dir == "") {
		return errors.New("module is module@version, with the chart's dir in it")
	}
	if c.Tree != "" && (!strings.Contains(c.Tree, "@") || c.Dir == "") {
		return errors.New("tree is component@tag, with the chart's dir in it")
	}
	if len(c.Documents) > 0 && len(c.Only) == 0 {
		return errors.New("documents are taken from the only files")
	}
	return nil
}

// Write makes dir hold the chart, whatever form it comes in, as a chart
// directory of its own: the chart chosen by Name and Version where a path
// holds several, Digest checked. It says what it wrote (Dir is dir, Source
// where it came from).
func (c Chart) Write(ctx context.Context, at Local, dir string) (*appcell.Chart, error) {
	src, err := c.chart(ctx, at, dir)
	if err != nil {
		return nil, err
	}
	ch, err := appcell.LocalChart(src, c.Name, c.Version, at.Repo, at.Cache)
	if err != nil {
		return nil, err
	}
	if c.Digest != "" && ch.Digest != c.Digest {
		return nil, fmt.Errorf("chart %s %s from %s: its content sha256 is %s, not %s", ch.Name, ch.Version, ch.Source, ch.Digest, c.Digest)
	}
	if src != dir {
		if err := write(dir, ch.Files); err != nil {
			return nil, err
		}
	}
	source := c.String()
	if c.Path != "" || c.Tree != "" {
		source += " (" + ch.Source + ")"
	}
	ch.Dir, ch.Source = dir, source
	return ch, nil
}

// String is where the chart comes from, as the spec says it.
func (c Chart) String() string {
	switch {
	case c.Path != "":
		return c.Path
	case c.Knative != "":
		return "Knative Serving core " + c.Knative
	case c.Tree != "":
		return c.Tree + " source tree, " + c.Dir
	}
	return c.Module + "/" + c.Dir
}

// chart is where the chart is on this machine (as make conform's CHART
// takes it), made under dir when it comes from a module or Knative.
func (c Chart) chart(ctx context.Context, at Local, dir string) (string, error) {
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
	case c.Tree != "":
		return c.tree(at)
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

// tree is the chart's directory in the component's source tree at the tag,
// found as its scenario finds it (sources.Trees from the catalog's entry).
func (c Chart) tree(at Local) (string, error) {
	component, tag, _ := strings.Cut(c.Tree, "@")
	cat, err := catalog.Load()
	if err != nil {
		return "", err
	}
	comp, err := cat.Component(component)
	if err != nil {
		return "", err
	}
	if !comp.FromTree() {
		return "", fmt.Errorf("chart tree %q: the catalog names no source tree of %s", c.Tree, component)
	}
	root, _, err := sources.TreesOf(comp.Sources).Tree(at.Repo, filepath.Join(at.Cache, "sources"), tag)
	if err != nil {
		return "", err
	}
	return filepath.Join(root, filepath.FromSlash(c.Dir)), nil
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
