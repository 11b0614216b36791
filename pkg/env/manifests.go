package env

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/cli"
	"sigs.k8s.io/e2e-framework/pkg/features"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/images"
	"github.com/gitops-conformance/suite/pkg/shell"
	"github.com/gitops-conformance/suite/pkg/sources"
)

// Install manifests of a component, rendered when the step that needs them
// runs; the source each run used goes into the report as an observation.

// ByMode is offline's Files in offline mode and online's otherwise.
func ByMode(offline, online Files) Files {
	return func(ctx context.Context) (map[string]string, error) {
		if From(ctx).Mode == images.Offline {
			return offline(ctx)
		}
		return online(ctx)
	}
}

// KustomizeBuild renders a kustomize directory of a component release's Go
// module (the catalog's file key, e.g. config/default) with the kustomize
// the catalog pins (component "kustomize"), as {"install.yaml": manifest}.
func KustomizeBuild(component, version, key string) Files {
	return once(func(ctx context.Context) (map[string]string, error) {
		r := From(ctx)
		comp, rel, err := r.Catalog.File(component, key)
		if err != nil {
			return nil, err
		}
		kz, err := r.Catalog.Component("kustomize")
		if err != nil || len(kz.Versions) == 0 {
			return nil, fmt.Errorf("kustomize build: the catalog pins no kustomize version")
		}
		bin := filepath.Join(r.CacheDir, "bin", "kustomize-"+kz.Versions[0])
		if _, err := os.Stat(bin); err != nil {
			return nil, fmt.Errorf("kustomize build: no %s (images/argocd/build.sh builds it)", bin)
		}
		dir, err := sources.ModuleDir(ctx, comp.Module, version)
		if err != nil {
			return nil, err
		}
		out := filepath.Join(r.CacheDir, "tmp", component+"-"+version+"-"+strings.ReplaceAll(key, "/", "_")+".yaml")
		// -o: kustomize's deprecation warnings go to stderr, not into the manifest
		if _, err := shell.Run(ctx, shell.Cmd{Name: bin, Args: []string{"build", filepath.Join(dir, rel), "-o", out}}); err != nil {
			return nil, fmt.Errorf("kustomize build %s@%s/%s: %w", comp.Module, version, rel, err)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			return nil, err
		}
		observe(ctx, "source: %s %s: kustomize %s build of %s@%s/%s (Go module zip)", component, version, kz.Versions[0], comp.Module, version, rel)
		return map[string]string{"install.yaml": string(data)}, nil
	})
}

// HelmTemplate renders a chart of the component's online chart repository
// (the catalog's onlineURL) through the Helm SDK, the way `helm install
// --dry-run` renders it: release name and namespace as given, values merged
// over the chart's defaults. It returns {"install.yaml": manifest}.
func HelmTemplate(component, chart, chartVersion, release, namespace string, values map[string]any) Files {
	return once(func(ctx context.Context) (map[string]string, error) {
		r := From(ctx)
		comp, err := r.Catalog.Component(component)
		if err != nil {
			return nil, err
		}
		settings := cli.New()
		settings.RepositoryCache = filepath.Join(r.CacheDir, "helm", "repository")
		settings.RepositoryConfig = filepath.Join(r.CacheDir, "helm", "repositories.yaml")
		install := action.NewInstall(&action.Configuration{Log: func(string, ...any) {}})
		install.DryRun, install.ClientOnly, install.Replace = true, true, true
		install.ReleaseName, install.Namespace = release, namespace
		install.RepoURL, install.Version = comp.OnlineURL, chartVersion
		path, err := install.LocateChart(chart, settings)
		if err != nil {
			return nil, fmt.Errorf("locate chart %s %s in %s: %w", chart, chartVersion, comp.OnlineURL, err)
		}
		ch, err := loader.Load(path)
		if err != nil {
			return nil, fmt.Errorf("load chart %s: %w", path, err)
		}
		rel, err := install.RunWithContext(ctx, ch, values)
		if err != nil {
			return nil, fmt.Errorf("render chart %s %s: %w", chart, chartVersion, err)
		}
		observe(ctx, "source: %s: Helm chart %s %s from %s (Helm SDK), values %v", component, chart, chartVersion, comp.OnlineURL, values)
		return map[string]string{"install.yaml": rel.Manifest}, nil
	})
}

// Pick is one file of files, for the steps that apply it.
func Pick(files Files, name string) Files {
	return func(ctx context.Context) (map[string]string, error) {
		f, err := files(ctx)
		if err != nil {
			return nil, err
		}
		content, ok := f[name]
		if !ok {
			return nil, fmt.Errorf("no file %q among the rendered manifests", name)
		}
		return map[string]string{name: content}, nil
	}
}

// Transform applies fn to the files once they are produced (memoized).
func Transform(files Files, fn func(map[string]string) (map[string]string, error)) Files {
	return once(func(ctx context.Context) (map[string]string, error) {
		f, err := files(ctx)
		if err != nil {
			return nil, err
		}
		return fn(f)
	})
}

// ApplyFiles applies produced manifests server-side, in the files' name
// order; the cell deletes them at its end (cleanups run in reverse order of
// registration, so what is applied last goes first).
func ApplyFiles(what string, files Files) features.Func {
	return assert.Step("apply "+what, func(ctx context.Context) error {
		r, c := From(ctx), CellFrom(ctx)
		f, err := files(ctx)
		if err != nil {
			return err
		}
		var b strings.Builder
		for _, name := range fileOrder(f) {
			b.WriteString("---\n" + strings.TrimSpace(f[name]) + "\n")
		}
		manifest := b.String()
		_ = os.MkdirAll(c.Dir, 0o755)
		_ = os.WriteFile(filepath.Join(c.Dir, "applied-"+fileName(what)+".yaml"), []byte(manifest), 0o644)
		c.Step("apply %s: %d bytes (applied-%s.yaml)", what, len(manifest), fileName(what))
		c.Defer("delete "+what, func(ctx context.Context) error {
			_, err := shell.Run(ctx, shell.Cmd{Name: r.Kubectl.Bin, Stdin: strings.NewReader(manifest),
				Args: []string{"--kubeconfig", r.Kubectl.Kubeconfig, "delete", "--ignore-not-found", "--wait=true", "--timeout=2m", "-f", "-"}})
			return err
		})
		return r.Kubectl.Apply(ctx, manifest)
	})
}

func fileOrder(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func fileName(what string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, strings.ToLower(what))
}
