package helm

import (
	"fmt"
	"strings"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/releaseutil"
	"k8s.io/client-go/rest"
)

// Document is one document of a chart's render, with the template that
// made it.
type Document struct {
	Template string // the template's path, the chart's name first (kube-ovn/templates/ovn-tls-secret.yaml)
	Manifest string
	Hook     bool
}

// Templates renders a chart directory's templates as Helm's engine does,
// each document with its template. With cfg, Helm's lookup function asks
// that cluster, as `helm install` and `helm upgrade` do; with nil it
// answers nothing, as `helm template` does, and ArgoCD's repo server,
// which runs it. Both render as a first install (revision 1, IsInstall),
// as `helm template` does, so that two renders differ by lookup alone.
func Templates(r Release, cfg *rest.Config) ([]Document, error) {
	chrt, err := loader.Load(r.Chart)
	if err != nil {
		return nil, fmt.Errorf("load chart %q: %w", r.Chart, err)
	}
	caps := chartutil.DefaultCapabilities.Copy()
	kv, err := r.kubeVersion()
	if err != nil {
		return nil, err
	}
	if kv != nil {
		caps.KubeVersion = *kv
	}
	values := r.Values
	if values == nil {
		values = map[string]any{}
	}
	if err := chartutil.ProcessDependenciesWithMerge(chrt, values); err != nil {
		return nil, fmt.Errorf("chart %q: %w", r.Chart, err)
	}
	vals, err := chartutil.ToRenderValues(chrt, values, chartutil.ReleaseOptions{Name: r.Name, Namespace: r.Namespace, Revision: 1, IsInstall: true}, caps)
	if err != nil {
		return nil, fmt.Errorf("chart %q: %w", r.Chart, err)
	}
	var files map[string]string
	if cfg != nil {
		files, err = engine.RenderWithClient(chrt, vals, cfg)
	} else {
		files, err = engine.Render(chrt, vals)
	}
	if err != nil {
		return nil, fmt.Errorf("render chart %q: %w", r.Chart, err)
	}
	for name := range files {
		if strings.HasSuffix(name, "NOTES.txt") {
			delete(files, name)
		}
	}
	hooks, manifests, err := releaseutil.SortManifests(files, caps.APIVersions, releaseutil.InstallOrder)
	if err != nil {
		return nil, fmt.Errorf("render chart %q: %w", r.Chart, err)
	}
	var out []Document
	for _, m := range manifests {
		out = append(out, Document{Template: m.Name, Manifest: m.Content})
	}
	for _, h := range hooks {
		out = append(out, Document{Template: h.Path, Manifest: h.Manifest, Hook: true})
	}
	return out, nil
}
