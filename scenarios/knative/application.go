package knative

import (
	"github.com/argoproj/argo-cd/v2/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gitops-conformance/suite/pkg/env"
)

// Application installs Knative Serving from the fixture repository (kustomize).
func Application() *v1alpha1.Application {
	return &v1alpha1.Application{
		ObjectMeta: metav1.ObjectMeta{Name: app, Labels: map[string]string{"app.kubernetes.io/part-of": "gitops-conformance"}},
		Spec: v1alpha1.ApplicationSpec{
			Project:     "default",
			Source:      &v1alpha1.ApplicationSource{RepoURL: env.RepoURL(app), TargetRevision: "main", Path: "."},
			Destination: v1alpha1.ApplicationDestination{Server: "https://kubernetes.default.svc"},
		},
	}
}

// Guarded is a ConfigMap the configuration-validation webhook
// (config.webhook.serving.knative.dev, failurePolicy Fail) must admit: its
// objectSelector matches the labels. The name is one Knative does not know,
// so a running webhook admits it unchanged.
const Guarded = `apiVersion: v1
kind: ConfigMap
metadata:
  name: config-gitops-conformance
  namespace: knative-serving
  labels: {app.kubernetes.io/name: knative-serving, app.kubernetes.io/component: controller}
data: {probe: "true"}
`

// Unguarded is the negative control: no labels, no webhook matches it.
const Unguarded = `apiVersion: v1
kind: ConfigMap
metadata:
  name: gitops-conformance-unguarded
  namespace: knative-serving
data: {probe: "true"}
`
