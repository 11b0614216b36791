package conform

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gitops-conformance/suite/internal/kube/kubetest"
	"github.com/gitops-conformance/suite/pkg/appcell"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/check/checktest"
)

var (
	cluster = checktest.Cluster
	obj     = kubetest.Object
	refused = checktest.Refused
)

// look is one check against a fake cluster, and what it must say.
type look struct {
	name    string
	check   assert.Check
	ctx     context.Context
	ok      bool
	unknown bool
	seen    string // a part of what it must say it saw
}

func expect(t *testing.T, looks []look) {
	t.Helper()
	for _, l := range looks {
		checktest.Saw(t, l.name, l.check, l.ctx, l.ok, l.unknown, l.seen)
	}
}

// Kube-OVN v1.14.10's shape (run 20261124-083029's evidence): the chart's CRD
// carries x-kubernetes-patch-* keys on a property of an items schema, the
// live one has them not.
func TestDriftNamesTheFieldsTheAPIServerDropped(t *testing.T) {
	r, err := appcell.ParseRendered(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.conformance.gitops.io, labels: {app: w}}
spec:
  group: conformance.gitops.io
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        properties:
          key: {type: string, x-kubernetes-patch-strategy: merge, x-kubernetes-patch-merge-key: key}
`, "ns")
	if err != nil {
		t.Fatal(err)
	}
	live := obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "widgets.conformance.gitops.io", map[string]any{
		"spec": map[string]any{"group": "conformance.gitops.io", "scope": "Namespaced", "versions": []any{map[string]any{"name": "v1",
			"schema": map[string]any{"openAPIV3Schema": map[string]any{"properties": map[string]any{"key": map[string]any{"type": "string"}}}}}}}})
	live.SetLabels(map[string]string{"app": "w", "app.kubernetes.io/instance": "crds"})
	app := func(status string) *unstructured.Unstructured {
		return obj("argoproj.io/v1alpha1", "Application", "argocd", "crds", map[string]any{"status": map[string]any{"resources": []any{
			map[string]any{"group": "apiextensions.k8s.io", "kind": "CustomResourceDefinition", "name": "widgets.conformance.gitops.io", "status": status}}}})
	}
	expect(t, []look{
		{"OutOfSync: the dropped keys named", Drift("crds", r), cluster(nil, app("OutOfSync"), live), false, false,
			"2 field(s) of the chart the live object lacks (dropped by the API server): .spec.versions[0].schema.openAPIV3Schema.properties.key.x-kubernetes-patch-merge-key, .spec.versions[0].schema.openAPIV3Schema.properties.key.x-kubernetes-patch-strategy; 0 differ"},
		{"Synced", Drift("crds", r), cluster(nil, app("Synced"), live), true, false, "none of the application's 1 resources OutOfSync"},
		{"OutOfSync on a field the cluster adds", Drift("crds", r), cluster(nil, app("OutOfSync"), desired(r)), false, false,
			"every field of the chart is in the live object as the chart has it"},
		{"OutOfSync, gone", Drift("crds", r), cluster(nil, app("OutOfSync")), false, false, "OutOfSync: not in the cluster"},
		{"no answer", Drift("crds", r), cluster(refused), false, true, ""},
	})
}

func TestSelectionAndTheChartsWebhooks(t *testing.T) {
	webhooks, err := check.Webhooks(`apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: kruise-mutating-webhook-configuration}
webhooks:
- name: mpod.kb.io
  failurePolicy: Fail
  clientConfig: {service: {name: kruise-webhook-service, namespace: kruise-system}}
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods]}]
  namespaceSelector:
    matchExpressions: [{key: control-plane, operator: NotIn, values: [openkruise]}]
`)
	if err != nil {
		t.Fatal(err)
	}
	ns := func(labels map[string]string) *unstructured.Unstructured {
		n := obj("v1", "Namespace", "", "kruise-system", nil)
		n.SetLabels(labels)
		return n
	}
	r, err := appcell.ParseRendered(`apiVersion: v1
kind: Service
metadata: {name: kruise-webhook-service}
spec: {selector: {control-plane: controller-manager}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: kruise-controller-manager}
spec: {template: {metadata: {labels: {control-plane: controller-manager}}}}
`, "kruise-system")
	if err != nil {
		t.Fatal(err)
	}
	sel := Selection("kruise-system", r, func() []check.Webhook { return webhooks })
	expect(t, []look{
		{"unlabelled: the chart's own namespace taken, failing closed", sel, cluster(nil, ns(map[string]string{"kubernetes.io/metadata.name": "kruise-system"})), false, false,
			`mpod.kb.io (mutatingwebhookconfiguration kruise-mutating-webhook-configuration): failurePolicy Fail, namespaceSelector "control-plane notin (openkruise)", objectSelector "", takes kruise-system {kubernetes.io/metadata.name=kruise-system}: true, called for the Pods of deployment kruise-system/kruise-controller-manager, served by service kruise-system/kruise-webhook-service (deployment kruise-system/kruise-controller-manager)`},
		{"labelled: let through", sel, cluster(nil, ns(map[string]string{"control-plane": "openkruise"})), true, false, "takes kruise-system {control-plane=openkruise}: false"},
		{"no answer", sel, cluster(refused), false, true, ""},
	})

	registered, err := check.Webhooks(`kind: ValidatingWebhookConfiguration
metadata: {name: kyverno-resource-validating-webhook-cfg}
webhooks: [{name: validate.kyverno.svc, clientConfig: {service: {name: kyverno-svc, namespace: kyverno}}}]
---
kind: ValidatingWebhookConfiguration
metadata: {name: someone-elses}
webhooks: [{name: other.example.com, clientConfig: {service: {name: other, namespace: other}}}]
---
kind: ValidatingWebhookConfiguration
metadata: {name: there-before}
webhooks: [{name: before.example.com, clientConfig: {service: {name: x, namespace: kyverno}}}]
`)
	if err != nil {
		t.Fatal(err)
	}
	live := append(append([]check.Webhook{}, webhooks...), registered...)
	got := appcell.ChartWebhooks(live, webhooks, map[string]bool{"validatingwebhookconfiguration/there-before": true}, []string{"kyverno"})
	var names []string
	for _, w := range got {
		names = append(names, w.Name)
	}
	if strings.Join(names, " ") != "mpod.kb.io validate.kyverno.svc" {
		t.Errorf("the chart's webhooks (rendered, or new and calling its namespace): %v", names)
	}
}

// desired is the chart's object as the cluster would hold it, unchanged.
func desired(r *appcell.Rendered) *unstructured.Unstructured {
	return r.Objects[0].DeepCopy()
}
