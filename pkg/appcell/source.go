package appcell

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/internal/shell"
	"github.com/gitops-conformance/suite/pkg/fixture"
)

// Source is an Application's source as this machine has it: a Helm chart
// (a directory or .tgz, or pulled from its repository online), or a
// directory of plain manifests or a kustomization.
type Source struct {
	Chart *Chart // a Helm chart; nil for a directory
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
	if IsRepoURL(repo) || strings.HasPrefix(repo, "git@") || strings.HasPrefix(repo, "ssh://") {
		switch {
		case src.Chart == "":
			return Source{}, fmt.Errorf("application %s: source %s is a git repository; clone it and %s", name, src.RepoURL, local)
		case !r.Online:
			return Source{}, fmt.Errorf("application %s: chart %s %s of repository %s needs the online mode (no chart repository is reachable here); %s", name, src.Chart, src.TargetRevision, src.RepoURL, local)
		}
		c, err := RepoChart(src.RepoURL, src.Chart, src.TargetRevision, r.CacheDir)
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
		return Source{}, fmt.Errorf("application %s: source %s: %w", name, path, UnwrapPath(err))
	}
	if !info.IsDir() || src.Chart != "" || isChart(path) {
		c, err := LocalChart(path, src.Chart, strings.TrimPrefix(src.TargetRevision, "v"), "", r.CacheDir)
		if err != nil {
			return Source{}, fmt.Errorf("application %s: %w", name, err)
		}
		return Source{Chart: c, Files: c.Files, From: c.Source}, nil
	}
	files, err := fixture.ReadTree(path)
	switch {
	case errors.Is(err, fixture.ErrEmptyTree):
		return Source{}, fmt.Errorf("application %s: source %s holds no manifest", name, path)
	case err != nil:
		return Source{}, fmt.Errorf("application %s: source %s: %w", name, path, err)
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

// WithObject is the source's files with one more object, as a team adds
// one in git: a template of a Helm chart, a file of a directory, a file
// named in a kustomization's resources. file is the new file's name; doc
// its manifest.
func (s Source) WithObject(file, doc string) (map[string]string, error) {
	files := maps.Clone(s.Files)
	switch s.Kind() {
	case "Helm chart":
		file = "templates/" + file
	case "kustomize directory":
		k := map[string]any{}
		if err := yaml.Unmarshal([]byte(files["kustomization.yaml"]), &k); err != nil {
			return nil, fmt.Errorf("kustomization.yaml: %w", err)
		}
		resources, _ := k["resources"].([]any)
		k["resources"] = append(resources, file)
		out, err := yaml.Marshal(k)
		if err != nil {
			return nil, err
		}
		files["kustomization.yaml"] = string(out)
	}
	if _, ok := files[file]; ok {
		return nil, fmt.Errorf("the source already holds %s", file)
	}
	files[file] = doc
	return files, nil
}

// ApplyPatch is files with a unified diff applied as `git apply` applies it
// (the diff's paths from the files' root), in a scratch directory: the
// files after it, those it adds, not those it deletes.
func ApplyPatch(ctx context.Context, files map[string]string, diff string) (map[string]string, error) {
	dir, err := os.MkdirTemp("", "gitops-conformance-patch-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := fixture.WriteTree(dir, files); err != nil {
		return nil, err
	}
	if _, err := shell.Run(ctx, shell.Cmd{Name: "git", Args: []string{"apply", "--whitespace=nowarn", "-"}, Dir: dir, Stdin: strings.NewReader(diff)}); err != nil {
		return nil, err
	}
	out, err := fixture.ReadTree(dir)
	if errors.Is(err, fixture.ErrEmptyTree) {
		return map[string]string{}, nil // the patch deleted every file
	}
	return out, err
}
