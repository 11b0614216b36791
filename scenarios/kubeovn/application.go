package kubeovn

import (
	"github.com/argoproj/argo-cd/v2/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gitops-conformance/suite/pkg/env"
)

// ignorePaths drop the two keys wherever they stand in the CRD's schema.
var ignorePaths = []string{
	`.spec.versions[].schema.openAPIV3Schema | .. | select(type == "object" and has("x-kubernetes-patch-strategy")) | ."x-kubernetes-patch-strategy"`,
	`.spec.versions[].schema.openAPIV3Schema | .. | select(type == "object" and has("x-kubernetes-patch-merge-key")) | ."x-kubernetes-patch-merge-key"`,
}

// IgnoreYAML is the argocd-cm form of the same ignore rule.
var IgnoreYAML = "jqPathExpressions:\n- '" + ignorePaths[0] + "'\n- '" + ignorePaths[1] + "'\n"

// Application is the Application for a variant.
func Application(variant string) *v1alpha1.Application {
	a := &v1alpha1.Application{
		ObjectMeta: metav1.ObjectMeta{Name: app, Labels: map[string]string{"app.kubernetes.io/part-of": "gitops-conformance"}},
		Spec: v1alpha1.ApplicationSpec{
			Project:     "default",
			Source:      &v1alpha1.ApplicationSource{RepoURL: env.RepoURL(app), TargetRevision: "main", Path: "."},
			Destination: v1alpha1.ApplicationDestination{Server: "https://kubernetes.default.svc"},
		},
	}
	switch variant {
	case "ignore-differences":
		a.Spec.IgnoreDifferences = []v1alpha1.ResourceIgnoreDifferences{{
			Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition", Name: crd, JQPathExpressions: ignorePaths}}
	case "server-side-diff":
		a.Annotations = map[string]string{"argocd.argoproj.io/compare-options": "ServerSideDiff=true"}
	}
	return a
}
