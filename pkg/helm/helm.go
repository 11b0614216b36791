package helm

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/cli"
	"helm.sh/helm/v3/pkg/registry"
	"helm.sh/helm/v3/pkg/release"
)

// Release is what to install.
type Release struct {
	Name      string
	Namespace string
	Chart     string // oci://..., a repo URL with RepoURL set, or a directory
	RepoURL   string
	Version   string
	Values    map[string]any
	Timeout   time.Duration
	// NoWait returns once the objects are created, as `helm install` without
	// --wait does (a release that never gets ready is what some scenarios show).
	NoWait bool
	// ExistingNamespace installs into a namespace made beforehand, as
	// `helm install --namespace` without --create-namespace does.
	ExistingNamespace bool
	// NoHooks uninstalls without the chart's delete hooks (`helm uninstall
	// --no-hooks`): for hooks whose image is not obtainable offline.
	NoHooks bool
	// KubeVersion is the Kubernetes version a client-side render tells the
	// chart (.Capabilities.KubeVersion, a chart's kubeVersion constraint), as
	// ArgoCD tells it the cluster's; "" for the Helm SDK's default.
	KubeVersion string
}

func config(kubeconfig, namespace string, out io.Writer) (*action.Configuration, *cli.EnvSettings, error) {
	settings := cli.New()
	settings.KubeConfig = kubeconfig
	settings.SetNamespace(namespace)
	cfg := new(action.Configuration)
	logf := func(format string, v ...any) { fmt.Fprintf(out, "helm: "+format+"\n", v...) }
	if err := cfg.Init(settings.RESTClientGetter(), namespace, "secret", logf); err != nil {
		return nil, nil, fmt.Errorf("helm: %w", err)
	}
	rc, err := registry.NewClient(registry.ClientOptWriter(out))
	if err != nil {
		return nil, nil, fmt.Errorf("helm registry client: %w", err)
	}
	cfg.RegistryClient = rc
	return cfg, settings, nil
}

// Install installs a release and waits for its resources to be ready.
func Install(ctx context.Context, kubeconfig string, r Release, out io.Writer) error {
	cfg, settings, err := config(kubeconfig, r.Namespace, out)
	if err != nil {
		return err
	}
	install := action.NewInstall(cfg)
	install.ReleaseName, install.Namespace, install.CreateNamespace = r.Name, r.Namespace, !r.ExistingNamespace
	install.Version, install.RepoURL = r.Version, r.RepoURL
	install.Wait, install.Timeout = !r.NoWait, r.Timeout
	path, err := install.LocateChart(r.Chart, settings)
	if err != nil {
		return fmt.Errorf("locate chart %q %s: %w", r.Chart, r.Version, err)
	}
	chart, err := loader.Load(path)
	if err != nil {
		return fmt.Errorf("load chart %q: %w", path, err)
	}
	if _, err := install.RunWithContext(ctx, chart, r.Values); err != nil {
		return fmt.Errorf("install release %s/%s: %w", r.Namespace, r.Name, err)
	}
	return nil
}

// Render renders a chart client-side, the way `helm install --dry-run`
// does: the release's name, namespace and values over the chart's defaults.
func Render(ctx context.Context, r Release) (string, error) {
	rel, err := render(ctx, r, false)
	if err != nil {
		return "", err
	}
	return rel.Manifest, nil
}

// RenderAll is Render with everything a GitOps tool applies from the chart:
// the CRDs of its crds/ directory first (as `helm template --include-crds`),
// then the templates, then its hooks (ArgoCD runs Helm hooks as its own).
func RenderAll(ctx context.Context, r Release) (string, error) {
	rel, err := render(ctx, r, true)
	if err != nil {
		return "", err
	}
	docs := []string{strings.TrimSpace(rel.Manifest)}
	for _, h := range rel.Hooks {
		docs = append(docs, "# Source: "+h.Path+"\n"+strings.TrimSpace(h.Manifest))
	}
	return strings.Join(docs, "\n---\n") + "\n", nil
}

// kubeVersion is KubeVersion parsed; nil for "" (the Helm SDK's default).
func (r Release) kubeVersion() (*chartutil.KubeVersion, error) {
	if r.KubeVersion == "" {
		return nil, nil
	}
	kv, err := chartutil.ParseKubeVersion(r.KubeVersion)
	if err != nil {
		return nil, fmt.Errorf("kubernetes version %q: %w", r.KubeVersion, err)
	}
	return kv, nil
}

func render(ctx context.Context, r Release, all bool) (*release.Release, error) {
	install := action.NewInstall(&action.Configuration{Log: func(string, ...any) {}})
	install.DryRun, install.ClientOnly, install.Replace = true, true, true
	install.IncludeCRDs = all
	install.ReleaseName, install.Namespace = r.Name, r.Namespace
	install.Version, install.RepoURL = r.Version, r.RepoURL
	kv, err := r.kubeVersion()
	if err != nil {
		return nil, err
	}
	install.KubeVersion = kv
	path, err := install.LocateChart(r.Chart, cli.New())
	if err != nil {
		return nil, fmt.Errorf("locate chart %q %s: %w", r.Chart, r.Version, err)
	}
	chart, err := loader.Load(path)
	if err != nil {
		return nil, fmt.Errorf("load chart %q: %w", path, err)
	}
	rel, err := install.RunWithContext(ctx, chart, r.Values)
	if err != nil {
		return nil, fmt.Errorf("render chart %q: %w", path, err)
	}
	return rel, nil
}

// Uninstall removes a release; a missing release is no error.
func Uninstall(kubeconfig, namespace, name string, out io.Writer) error {
	return uninstall(kubeconfig, Release{Namespace: namespace, Name: name}, out)
}

// UninstallRelease removes a release as r says (NoHooks); a missing release is no error.
func UninstallRelease(kubeconfig string, r Release, out io.Writer) error {
	return uninstall(kubeconfig, r, out)
}

func uninstall(kubeconfig string, r Release, out io.Writer) error {
	namespace, name := r.Namespace, r.Name
	cfg, _, err := config(kubeconfig, namespace, out)
	if err != nil {
		return err
	}
	u := action.NewUninstall(cfg)
	u.Wait, u.Timeout, u.DisableHooks = true, 3*time.Minute, r.NoHooks
	if _, err := u.Run(name); err != nil && !strings.Contains(err.Error(), "not found") {
		return fmt.Errorf("uninstall release %s/%s: %w", namespace, name, err)
	}
	return nil
}
