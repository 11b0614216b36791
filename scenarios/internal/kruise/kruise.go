package kruise

import (
	"context"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/step"
)

// ChartsEnv names, offline, where the kruise chart comes from (see
// fixture.UserChart): a directory holding versions/kruise/<chart version>/ (an
// openkruise/charts checkout), an archive of one, or a directory of archives.
// The Makefile sets it to ../shared/upstream/openkruise when that exists.
const ChartsEnv = "OPENKRUISE_CHARTS"

const (
	// Namespace is where the write-up installs kruise, made beforehand.
	Namespace = "kruise-system"
	// ReleaseName is the Helm release's name, and the Application's by default.
	ReleaseName = "kruise"
	// Label is what the chart puts on the namespace it creates and what its
	// pod webhooks' namespaceSelector excludes.
	Label = "control-plane=openkruise"
)

// values are the write-up's: `helm install kruise kruise/kruise
// --namespace=kruise-system --values=./kruise-chart-values.yaml` with these.
const values = `installation:
  createNamespace: false
manager:
  replicas: 1
`

// Values are the write-up's chart values.
func Values() map[string]any {
	var v map[string]any
	if err := yaml.Unmarshal([]byte(values), &v); err != nil {
		panic(err)
	}
	return v
}

// Release is the write-up's `helm install`: release kruise into the
// kruise-system made beforehand, no --wait. The chart's pre-delete hook
// (1.8: openkruise/kruise-helm-hook, see HookImage) is left out of the cell's
// uninstall, so that the cleanup does not depend on the hook's Pod.
func Release() env.Release {
	return env.Release{Name: ReleaseName, Namespace: Namespace, Values: Values(), NoWait: true, ExistingNamespace: true, NoHooks: true}
}

// HookImage is the image of the chart's Helm pre-delete hook
// (values.yaml helmHooks.image; charts 1.8.0 and 1.8.3 name
// openkruise/kruise-helm-hook:v0.1.0), as the recipe's HOOK_IMAGE: offline,
// images/openkruise/build.sh builds it from the kruise module's cmd/helm_hook,
// so that an ArgoCD that runs the hook finds its image, as online. Nothing
// for a chart without the hook (1.5.2).
func HookImage(chart fixture.Files) func(ctx context.Context) ([]string, error) {
	return func(ctx context.Context) ([]string, error) {
		f, err := chart(ctx)
		if err != nil {
			return nil, err
		}
		var v struct {
			HelmHooks struct {
				Image struct{ Repository, Tag string }
			} `json:"helmHooks"`
		}
		if err := yaml.Unmarshal([]byte(f["values.yaml"]), &v); err != nil {
			return nil, fmt.Errorf("the chart's values.yaml: %w", err)
		}
		if img := v.HelmHooks.Image; img.Repository != "" && img.Tag != "" {
			return []string{"HOOK_IMAGE=" + img.Repository + ":" + img.Tag}, nil
		}
		return nil, nil
	}
}

// Application installs the chart from the fixture repository with the
// write-up's values into kruise-system, which exists beforehand: no
// CreateNamespace, manual syncs (fixtures/charts/application). It is named
// name (the repository's too), the Helm release still kruise, with the sync
// options given.
func Application(name string, syncOptions ...string) fixture.App {
	return fixture.Application(map[string]any{"name": name, "namespace": Namespace, "syncOptions": syncOptions,
		"helm": map[string]any{"releaseName": ReleaseName, "values": values}})
}

// ThroughArgoCD provides the chart as published, at the cell's component
// version, to an Application's repository: the CRDs an earlier cell left
// removed first (and at the end, last), kruise-system made beforehand with
// the label its webhooks need (so the install comes up and only what follows
// is measured), and, offline, its images built (the pre-delete hook's with
// them).
func ThroughArgoCD(componentVersion, repo string) []step.Step {
	version := strings.TrimPrefix(componentVersion, "v")
	chart := fixture.OfflinePullPolicy(fixture.UserChart(ChartsEnv, "openkruise", "kruise", version))
	rendered := fixture.HelmRender(chart, Release())
	return []step.Step{env.Provided("chart kruise "+version, chart),
		// registered first, the end's removal runs last
		env.RemoveRendered("chart kruise "+version, rendered), env.RemoveRenderedAtEnd("chart kruise "+version, rendered),
		env.ApplyNamespace(Namespace, Label),
		env.ComponentImagesWith("openkruise", componentVersion, HookImage(chart)),
		env.PushRepo(repo, chart)}
}
