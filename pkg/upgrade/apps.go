package upgrade

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gitops-conformance/suite/internal/kube"
	"github.com/gitops-conformance/suite/pkg/conform"
	"github.com/gitops-conformance/suite/pkg/matrix"
)

// The annotations the suite reads on an Application of APPS: images its
// workloads run, given to the node (as make conform's IMAGES and
// IMAGE_RECIPES).
const (
	ImagesAnnotation  = "upgrade-check.gitops-conformance.dev/images"
	RecipesAnnotation = "upgrade-check.gitops-conformance.dev/image-recipes"
)

// App is one Application of APPS, its source read.
type App struct {
	// Spec is the Application as the user gave it.
	Spec *v1alpha1.Application
	// File is where it was read.
	File string
	// Source is what the suite pushes to its git server for it.
	Source Source
	// Images and Recipes are its annotations'.
	Images  []string
	Recipes [][2]string
}

// Name is the Application's name.
func (a App) Name() string { return a.Spec.Name }

// Namespace is the Application's destination namespace ("" for none).
func (a App) Namespace() string { return a.Spec.Spec.Destination.Namespace }

// Source is an Application's source as this machine has it: a Helm chart
// (a directory or .tgz, or pulled from its repository online), or a
// directory of plain manifests or a kustomization.
type Source struct {
	Chart *conform.Chart // a Helm chart; nil for a directory
	// Files are the directory's files (a chart's are Chart.Files), by path.
	Files map[string]string
	// From says where it came from, for the report.
	From string
}

// Kind is "Helm chart" or "directory".
func (s Source) Kind() string {
	if s.Chart != nil {
		return "Helm chart"
	}
	if _, ok := s.Files["kustomization.yaml"]; ok {
		return "kustomize directory"
	}
	return "directory of manifests"
}

// ReadApps reads the Applications of a YAML file, or of the .yaml, .yml
// and .json files directly in a directory (not its subdirectories, where
// their charts may be), as `kubectl get applications -o yaml` exports
// them: one, several, or a List. Other kinds are passed over.
func ReadApps(path string) ([]*v1alpha1.Application, []string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, fmt.Errorf("APPS %q: %w", path, conform.UnwrapPath(err))
	}
	files := []string{path}
	if info.IsDir() {
		entries, err := os.ReadDir(path)
		if err != nil {
			return nil, nil, fmt.Errorf("APPS %q: %w", path, err)
		}
		files = nil
		for _, e := range entries {
			switch filepath.Ext(e.Name()) {
			case ".yaml", ".yml", ".json":
				if !e.IsDir() {
					files = append(files, filepath.Join(path, e.Name()))
				}
			}
		}
	}
	var apps []*v1alpha1.Application
	var from []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, fmt.Errorf("APPS %q: %w", f, conform.UnwrapPath(err))
		}
		objs, err := kube.Decode(string(data))
		if err != nil {
			return nil, nil, fmt.Errorf("APPS %q: %w", f, err)
		}
		for _, o := range objs {
			items := []map[string]any{o.Object}
			if strings.HasSuffix(o.GetKind(), "List") {
				items = nil
				list, _ := o.Object["items"].([]any)
				for _, it := range list {
					if m, ok := it.(map[string]any); ok {
						items = append(items, m)
					}
				}
			}
			for _, it := range items {
				if it["kind"] != "Application" {
					continue // a user's export may hold other objects: not ours to check
				}
				var app v1alpha1.Application
				if err := runtime.DefaultUnstructuredConverter.FromUnstructured(it, &app); err != nil {
					return nil, nil, fmt.Errorf("APPS %q: not an Application: %w", f, err)
				}
				apps = append(apps, &app)
				from = append(from, f)
			}
		}
	}
	if len(apps) == 0 {
		return nil, nil, fmt.Errorf("APPS %q: no ArgoCD Application in it (kind: Application, or a List of them)", path)
	}
	return apps, from, nil
}

// Resolver finds an Application's source on this machine.
type Resolver struct {
	CacheDir string
	Online   bool
}

// Resolve reads an Application's source: a local path (relative to the
// file the Application came from) to a chart, a .tgz or a directory; or,
// online, a Helm chart repository. A git repository, or a chart repository
// offline, is refused in one line saying how to point it at a local copy.
func (r Resolver) Resolve(app *v1alpha1.Application, file string) (Source, error) {
	name := app.Name
	switch {
	case app.Spec.HasMultipleSources():
		return Source{}, fmt.Errorf("application %s: %d sources: make upgrade-check takes Applications with one source (spec.source)", name, len(app.Spec.Sources))
	case app.Spec.Source == nil:
		return Source{}, fmt.Errorf("application %s: no spec.source", name)
	}
	src := app.Spec.Source
	repo := strings.TrimPrefix(src.RepoURL, "file://")
	local := localCopy(name)
	if conform.IsRepoURL(repo) || strings.HasPrefix(repo, "git@") || strings.HasPrefix(repo, "ssh://") {
		switch {
		case src.Chart == "":
			return Source{}, fmt.Errorf("application %s: source %s is a git repository; clone it and %s", name, src.RepoURL, local)
		case !r.Online:
			return Source{}, fmt.Errorf("application %s: chart %s %s of repository %s needs the online mode (no chart repository is reachable here); %s", name, src.Chart, src.TargetRevision, src.RepoURL, local)
		}
		c, err := conform.RepoChart(src.RepoURL, src.Chart, src.TargetRevision, r.CacheDir)
		if err != nil {
			return Source{}, fmt.Errorf("application %s: %w", name, err)
		}
		return Source{Chart: c, Files: c.Files, From: c.Source}, nil
	}
	if repo == "" {
		return Source{}, fmt.Errorf("application %s: no spec.source.repoURL", name)
	}
	if !filepath.IsAbs(repo) {
		repo = filepath.Join(filepath.Dir(file), repo)
	}
	path := filepath.Join(repo, src.Path)
	info, err := os.Stat(path)
	if err != nil {
		return Source{}, fmt.Errorf("application %s: source %s: %w", name, path, conform.UnwrapPath(err))
	}
	if !info.IsDir() || src.Chart != "" || isChart(path) {
		c, err := conform.LocalChart(path, src.Chart, strings.TrimPrefix(src.TargetRevision, "v"), "", r.CacheDir)
		if err != nil {
			return Source{}, fmt.Errorf("application %s: %w", name, err)
		}
		return Source{Chart: c, Files: c.Files, From: c.Source}, nil
	}
	files, err := readDir(path)
	if err != nil {
		return Source{}, fmt.Errorf("application %s: source %s: %w", name, path, err)
	}
	if len(files) == 0 {
		return Source{}, fmt.Errorf("application %s: source %s holds no manifest", name, path)
	}
	return Source{Files: files, From: path}, nil
}

// localCopy says how to point an Application at a local copy of its source.
func localCopy(name string) string {
	return fmt.Sprintf("point application %s's spec.source.repoURL at a local copy (a chart directory or .tgz, or a directory of manifests or a kustomization; relative to its file)", name)
}

func isChart(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "Chart.yaml"))
	return err == nil
}

// readDir reads a directory of manifests or a kustomization: its files, by
// path, but for version control's.
func readDir(dir string) (map[string]string, error) {
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	return files, err
}

// checkNames refuses Applications the suite cannot tell apart or name a
// cell after.
func checkNames(apps []*v1alpha1.Application) error {
	var seen []string
	for _, a := range apps {
		if errs := validation.IsDNS1123Subdomain(a.Name); len(errs) > 0 {
			return fmt.Errorf("application %q: %s", a.Name, strings.Join(errs, "; "))
		}
		if slices.Contains(seen, a.Name) {
			return fmt.Errorf("application %q twice in APPS: each is a cell, named after it", a.Name)
		}
		seen = append(seen, a.Name)
	}
	return nil
}

// annotations are the suite's annotations of an Application: its local
// images and image recipes.
func annotations(repo string, a *v1alpha1.Application) (images []string, recipes [][2]string, err error) {
	recipes, err = conform.Recipes(repo, a.Annotations[RecipesAnnotation])
	if err != nil {
		return nil, nil, fmt.Errorf("application %s: annotation %s: %w", a.Name, RecipesAnnotation, err)
	}
	return matrix.ParseList(a.Annotations[ImagesAnnotation]), recipes, nil
}
