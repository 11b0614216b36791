package openkruise

import (
	"context"
	"fmt"
	"strings"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/scenarios/internal/kruise"
)

const (
	namespace = kruise.Namespace
	manager   = "kruise-controller-manager"
	service   = "kruise-webhook-service"
	mutating  = "kruise-mutating-webhook-configuration"
	podHook   = "mpod.kb.io"
	app       = kruise.ReleaseName
	label     = kruise.Label
)

// Values are the write-up's chart values (make conform's and
// upgrade-check's openkruise Applications are checked against them).
func Values() map[string]any { return kruise.Values() }

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

// NamespaceLabels are the labels the API server gives kruise-system made
// beforehand (env.ApplyNamespace), labelled with label or not.
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
