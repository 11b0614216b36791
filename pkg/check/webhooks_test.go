package check

import "testing"

// A rendered webhook configuration as chart kruise 1.5.2 and 1.8.3 write it
// (mpod.kb.io's selector), plus one webhook without a selector.
const rendered = `apiVersion: v1
kind: Service
metadata:
  name: kruise-webhook-service
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: kruise-mutating-webhook-configuration
webhooks:
- name: mpod.kb.io
  failurePolicy: Fail
  clientConfig:
    service: {name: kruise-webhook-service, namespace: kruise-system, path: /mutate-pod}
  rules:
  - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  namespaceSelector:
    matchExpressions:
    - {key: control-plane, operator: NotIn, values: [openkruise]}
    - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}
- name: mcloneset.kb.io
`

func TestWebhooksOfAManifest(t *testing.T) {
	all, err := Webhooks(rendered)
	if err != nil || len(all) != 2 {
		t.Fatalf("Webhooks: %+v, %v", all, err)
	}
	w, err := FindWebhook(rendered, "mpod.kb.io")
	if err != nil || w.FailurePolicy != "Fail" || w.Config != MutatingWebhooks || w.ConfigName != "kruise-mutating-webhook-configuration" ||
		w.ClientConfig.Service == nil || w.ClientConfig.Service.Name != "kruise-webhook-service" || len(w.Rules) != 1 || w.Rules[0].Resources[0] != "pods" {
		t.Fatalf("FindWebhook: %+v, %v", w, err)
	}
	if got := SelectorText(w.NamespaceSelector); got != "control-plane notin (openkruise),kubernetes.io/metadata.name notin (kube-system)" {
		t.Errorf("SelectorText: %q", got)
	}
	unlabelled := map[string]string{"kubernetes.io/metadata.name": "kruise-system"}
	labelled := map[string]string{"kubernetes.io/metadata.name": "kruise-system", "control-plane": "openkruise"}
	for _, tt := range []struct {
		labels map[string]string
		want   bool
	}{
		{unlabelled, true},
		{labelled, false},
		{map[string]string{"kubernetes.io/metadata.name": "kube-system"}, false},
		{map[string]string{"kubernetes.io/metadata.name": "default"}, true},
	} {
		if got, err := Selects(w.NamespaceSelector, tt.labels); err != nil || got != tt.want {
			t.Errorf("Selects(%v) = %v, %v; want %v", tt.labels, got, err, tt.want)
		}
	}
	none, err := FindWebhook(rendered, "mcloneset.kb.io")
	if err != nil {
		t.Fatal(err)
	}
	if all, _ := Selects(none.NamespaceSelector, labelled); !all {
		t.Error("a webhook without namespaceSelector selects every namespace")
	}
	if all, _ := Selects(none.ObjectSelector, nil); !all {
		t.Error("a webhook without objectSelector selects every object")
	}
	if _, err := FindWebhook(rendered, "nope.kb.io"); err == nil {
		t.Error("a missing webhook must be an error")
	}
	if got := SortedLabels(labelled); got != "{control-plane=openkruise,kubernetes.io/metadata.name=kruise-system}" {
		t.Errorf("SortedLabels: %q", got)
	}
}
