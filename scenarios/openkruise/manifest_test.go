package openkruise

import (
	"context"
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/pkg/fixture"
)

// A reduced config/default rendering: the documents AsChart and Split touch.
const kustomized = `apiVersion: v1
kind: Namespace
metadata:
  name: kruise-daemon-config
---
apiVersion: v1
kind: Namespace
metadata:
  labels:
    control-plane: controller-manager
  name: kruise-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kruise-controller-manager
  namespace: kruise-system
spec:
  replicas: 1
  template:
    spec:
      containers:
      - args: [--enable-leader-election, --v=5, --feature-gates=AllAlpha=true]
        env:
        - {name: KUBE_CACHE_MUTATION_DETECTOR, value: "true"}
        image: controller:latest
        imagePullPolicy: Always
        name: manager
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: kruise-mutating-webhook-configuration
webhooks:
- name: mpod.kb.io
  failurePolicy: Fail
  namespaceSelector:
    matchExpressions:
    - {key: control-plane, operator: DoesNotExist}
- name: mcloneset.kb.io
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: kruise-validating-webhook-configuration
webhooks:
- name: vpod.kb.io
- name: vbuiltindeployment.kb.io
  objectSelector: {}
`

func TestAsChartAndSplit(t *testing.T) {
	f, err := AsChart("v1.5.2")(map[string]string{"install.yaml": kustomized})
	if err != nil {
		t.Fatal(err)
	}
	parts, err := Split(f)
	if err != nil {
		t.Fatal(err)
	}
	install, webhooks := parts["install.yaml"], parts["webhooks.yaml"]
	if strings.Contains(install, "name: kruise-system\n") && strings.Contains(install, "kind: Namespace\nmetadata:\n  labels") {
		t.Fatalf("createNamespace=false: kruise-system must not be in the install:\n%s", install)
	}
	if !strings.Contains(install, "name: kruise-daemon-config") || strings.Contains(install, "Webhook") {
		t.Fatalf("install must keep the rest and hold no webhook configuration:\n%s", install)
	}
	for _, want := range []string{"replicas: 0", "image: openkruise/kruise-manager:v1.5.2", "imagePullPolicy: IfNotPresent", `value: "false"`, "memory: 512Mi"} {
		if !strings.Contains(install, want) {
			t.Errorf("install lacks %q:\n%s", want, install)
		}
	}
	if strings.Contains(install, "AllAlpha") {
		t.Errorf("the chart's default has no feature gates:\n%s", install)
	}
	docs, err := parse(webhooks)
	if err != nil || len(docs) != 2 {
		t.Fatalf("webhooks: %d docs, %v", len(docs), err)
	}
	sel := func(doc map[string]any, name string) string {
		for _, w := range list(doc, "webhooks") {
			if str(w, "name") == name {
				y, _ := yaml.Marshal(w.(map[string]any)["namespaceSelector"])
				return string(y)
			}
		}
		t.Fatalf("no webhook %s", name)
		return ""
	}
	chartPod := "matchExpressions:\n- key: control-plane\n  operator: NotIn\n  values:\n  - openkruise\n- key: kubernetes.io/metadata.name\n  operator: NotIn\n  values:\n  - kube-system\n"
	if got := sel(docs[0], "mpod.kb.io"); got != chartPod {
		t.Errorf("mpod.kb.io selector:\n%s\nwant the chart's:\n%s", got, chartPod)
	}
	if got := sel(docs[1], "vpod.kb.io"); got != chartPod {
		t.Errorf("vpod.kb.io selector:\n%s", got)
	}
	if got := sel(docs[1], "vbuiltindeployment.kb.io"); !strings.Contains(got, "kube-system") || strings.Contains(got, "openkruise") {
		t.Errorf("vbuiltindeployment.kb.io selector:\n%s", got)
	}
	if got := sel(docs[0], "mcloneset.kb.io"); got != "null\n" {
		t.Errorf("mcloneset.kb.io must stay without selector: %s", got)
	}
}

// The real rendering, when the module and kustomize are on this machine.
func TestAsChartOnTheModule(t *testing.T) {
	path := os.Getenv("OPENKRUISE_KUSTOMIZED")
	if path == "" {
		t.Skip("OPENKRUISE_KUSTOMIZED names a `kustomize build config/default` output")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := AsChart("v1.5.2")(map[string]string{"install.yaml": string(data)})
	if err != nil {
		t.Fatal(err)
	}
	parts, err := Split(f)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(parts["webhooks.yaml"], "operator: NotIn"); n != 3+3+5 {
		t.Errorf("NotIn expressions in the webhooks: %d, want 11 (3 pod webhooks x2, 5 protection webhooks)", n)
	}
}

func TestNamespaceAndProbe(t *testing.T) {
	if strings.Contains(Namespace(false), "labels") || !strings.Contains(Namespace(true), "control-plane: openkruise") {
		t.Fatalf("namespace:\n%s\n%s", Namespace(false), Namespace(true))
	}
	var pod map[string]any
	probe, err := fixture.Manifest(context.Background(), ProbePod("default"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte(strings.TrimPrefix(probe, "---\n")), &pod); err != nil || str(pod["metadata"], "namespace") != "default" {
		t.Fatalf("probe pod: %v %v", pod, err)
	}
}
