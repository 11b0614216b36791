package openkruise

import (
	"context"
	"fmt"
	"strings"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/helm"
	"github.com/gitops-conformance/suite/pkg/step"
)

// ChartsEnv names, offline, where the kruise chart comes from (see
// fixture.UserChart): a directory holding versions/kruise/<chart version>/ (an
// openkruise/charts checkout), an archive of one, or a directory of archives.
// The Makefile sets it to ../shared/upstream/openkruise when that exists.
const ChartsEnv = "OPENKRUISE_CHARTS"

const (
	namespace = "kruise-system"
	manager   = "kruise-controller-manager"
	service   = "kruise-webhook-service"
	mutating  = "kruise-mutating-webhook-configuration"
	podHook   = "mpod.kb.io"
	app       = "kruise"
	// label is what the chart puts on the namespace it creates and what its
	// pod webhooks' namespaceSelector excludes.
	label = "control-plane=openkruise"
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
func Release() helm.Release {
	return helm.Release{Name: app, Namespace: namespace, Values: Values(), NoWait: true, ExistingNamespace: true, NoHooks: true}
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
// CreateNamespace, manual syncs (fixtures/charts/application).
func Application() fixture.App { return ApplicationNamed(app) }

// ApplicationNamed is Application under another name (the repository's too),
// the Helm release still kruise, with the sync options given.
func ApplicationNamed(name string, syncOptions ...string) fixture.App {
	return fixture.Application(map[string]any{"name": name, "namespace": namespace, "syncOptions": syncOptions,
		"helm": map[string]any{"releaseName": app, "values": values}})
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
		env.ApplyFiles("namespace "+namespace, Namespace(true)),
		env.ComponentImagesWith("openkruise", componentVersion, HookImage(chart)),
		env.PushRepo(repo, chart)}
}

// ManagedNamespace is the label mitigation the GitOps way: the Application
// labels its destination namespace (managedNamespaceMetadata, which ArgoCD
// applies only with CreateNamespace=true; an existing namespace is labelled).
func ManagedNamespace(a *v1alpha1.Application) {
	k, v, _ := strings.Cut(label, "=")
	if a.Spec.SyncPolicy == nil {
		a.Spec.SyncPolicy = &v1alpha1.SyncPolicy{}
	}
	a.Spec.SyncPolicy.SyncOptions = append(a.Spec.SyncPolicy.SyncOptions, "CreateNamespace=true")
	a.Spec.SyncPolicy.ManagedNamespaceMetadata = &v1alpha1.ManagedNamespaceMetadata{Labels: map[string]string{k: v}}
}

// Namespace is kruise-system as the user creates it beforehand (the probes
// fixture chart's namespace).
func Namespace(labelled bool) fixture.Files {
	ns := map[string]any{"name": namespace}
	if labelled {
		k, v, _ := strings.Cut(label, "=")
		ns["labels"] = map[string]string{k: v}
	}
	return fixture.Chart("probes", map[string]any{"namespace": ns})
}

// NamespaceLabels are the labels the API server gives Namespace(labelled).
func NamespaceLabels(labelled bool) map[string]string {
	l := map[string]string{"kubernetes.io/metadata.name": namespace}
	if labelled {
		k, v, _ := strings.Cut(label, "=")
		l[k] = v
	}
	return l
}

// ProbePod is a Pod a server-side dry run creates in ns: admitted or not
// tells whether that namespace can still create Pods.
func ProbePod(ns string) fixture.Files {
	return fixture.Chart("probes", map[string]any{"pod": map[string]any{
		"name": "gitops-conformance-probe", "namespace": ns, "container": "pause", "image": "registry.k8s.io/pause:3.10"}})
}

// LetsThrough holds when the rendered chart's pod webhook does not apply to
// kruise-system with nsLabels: the manager's own Pods bypass it. What it saw
// names the selector as rendered.
func LetsThrough(rendered fixture.Files, nsLabels map[string]string) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		f, err := rendered(ctx)
		if err != nil {
			return false, "", err
		}
		w, err := check.FindWebhook(f["install.yaml"], podHook)
		if err != nil {
			return false, "", fmt.Errorf("the rendered chart: %w", err)
		}
		selected, err := check.Selects(w.NamespaceSelector, nsLabels)
		if err != nil {
			return false, "", err
		}
		verdict := "not selected: the manager's own Pods bypass " + podHook
		if selected {
			verdict = "selected: the manager's own Pods go through " + podHook + ", which that manager serves"
		}
		return !selected, fmt.Sprintf("namespaceSelector %q, failurePolicy %s; %s with labels %s is %s",
			check.SelectorText(w.NamespaceSelector), w.FailurePolicy, namespace, check.SortedLabels(nsLabels), verdict), nil
	}
}
