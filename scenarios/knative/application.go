package knative

import "github.com/gitops-conformance/suite/pkg/fixture"

// Application installs Knative Serving from the fixture repository (kustomize).
func Application() fixture.App { return fixture.Application(map[string]any{"name": app}) }

// Guarded is a ConfigMap the configuration-validation webhook
// (config.webhook.serving.knative.dev, failurePolicy Fail) must admit: its
// objectSelector matches the labels. The name is one Knative does not know,
// so a running webhook admits it unchanged.
var Guarded = fixture.Chart("probes", map[string]any{"configMap": map[string]any{
	"name": "config-gitops-conformance", "namespace": "knative-serving", "data": map[string]string{"probe": "true"},
	"labels": map[string]string{"app.kubernetes.io/name": "knative-serving", "app.kubernetes.io/component": "controller"}}})

// Unguarded is the negative control: no labels, no webhook matches it.
var Unguarded = fixture.Chart("probes", map[string]any{"configMap": map[string]any{
	"name": "gitops-conformance-unguarded", "namespace": "knative-serving", "data": map[string]string{"probe": "true"}}})
